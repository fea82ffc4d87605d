/**
 * Hyper-V extensible-switch extensions as HNS lists and toggles them on a network's vSwitch
 * (reference ovs-windows.md §1.2; docs/model.md "Switch extensions"): the extensions Windows lists
 * on every switch HNS made, the Open vSwitch forwarding extension, what each switch has enabled,
 * and Windows' rule that at most one forwarding extension is enabled per switch (MSD
 * forwarding-extensions.md). The state is the switch's (src/hns/adapters.ts `VSwitchRec`): every
 * network on a switch shows the same list, and a reboot gives every switch its defaults back.
 *
 *   const sw2 = withExtension(sw, version, OVS_EXTENSION_ID, true);   // throws before any change
 *   switchExtensions(sw2, version)    // [{Id, IsEnabled, Name, …}] in the order HNS lists them
 */
import { hnsError } from '../core/errors.js';
import type { NetworkType } from './policy/contracts.js';
import type { HnsVersion } from './versions.js';

/** The Open vSwitch forwarding extension (antrea `winnet/net_windows.go` `OVSExtensionID`). */
export const OVS_EXTENSION_ID = '583CC151-73EC-4A6A-8B47-578297AD7623';
const OVS_EXTENSION_NAME = 'Open vSwitch Extension';

/** `Get-VMSwitchExtension`'s ExtensionType. */
export type SwitchExtensionType = 'Capture' | 'Filtering' | 'Forwarding';

/** An extension installed on the host, as `Get-VMSwitchExtension` describes it. */
export interface SwitchExtensionInfo {
  /** Upper-case GUID, as HNS prints it. */
  readonly Id: string;
  readonly Name: string;
  readonly Vendor: string;
  readonly ExtensionType: SwitchExtensionType;
}

/** One extension on one switch: what the v1 `Extensions` list shows, plus its description. */
export interface SwitchExtensionState extends SwitchExtensionInfo {
  readonly IsEnabled: boolean;
}

/** What a switch records: the extensions whose state a request set (the rest keep their default). */
export interface ExtensionOverride {
  readonly Id: string;
  readonly IsEnabled: boolean;
}

const WFP: SwitchExtensionInfo = {
  Id: 'E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A',
  Name: 'Microsoft Windows Filtering Platform',
  Vendor: 'Microsoft',
  ExtensionType: 'Filtering',
};
const OVS: SwitchExtensionInfo = {
  Id: OVS_EXTENSION_ID,
  Name: OVS_EXTENSION_NAME,
  Vendor: 'Open vSwitch',
  ExtensionType: 'Forwarding',
};
/** VFP and NDIS Capture carry other GUIDs on the builds of 2019 than on later ones (docs/model.md). */
const VFP_2019: SwitchExtensionInfo = {
  Id: 'E9B59CFA-2BE1-4B21-828F-B6FBDBDDC017',
  Name: 'Microsoft Azure VFP Switch Extension',
  Vendor: 'Microsoft',
  ExtensionType: 'Forwarding',
};
const VFP: SwitchExtensionInfo = { ...VFP_2019, Id: 'F74F241B-440F-4433-BB28-00F89EAD20D8' };
const CAPTURE_2019: SwitchExtensionInfo = {
  Id: 'EA24CD6C-D17A-4348-9190-09F0D5BE83DD',
  Name: 'Microsoft NDIS Capture',
  Vendor: 'Microsoft',
  ExtensionType: 'Capture',
};
const CAPTURE: SwitchExtensionInfo = { ...CAPTURE_2019, Id: '430BDADD-BAB0-41AB-A369-94B67FA5BE0A' };

/** Builds up to HNS 14 (ws2019's 9.5) list the 2019 GUIDs; the ws2022 and ws2025 profiles the later ones. */
const CATALOGUE_2019 = [WFP, OVS, VFP_2019, CAPTURE_2019] as const;
const CATALOGUE = [WFP, OVS, VFP, CAPTURE] as const;

/** The extensions installed on a host of this HNS version, in the order HNS lists them. */
function extensionCatalogue(version: HnsVersion): readonly SwitchExtensionInfo[] {
  return version.major < 15 ? CATALOGUE_2019 : CATALOGUE;
}

/** Whether an extension is VFP (either GUID). */
function isVfp(id: string): boolean {
  return id === VFP.Id || id === VFP_2019.Id;
}

/** Network types whose switch HNS gives VFP as its forwarding extension (docs/model.md). */
const VFP_TYPES: ReadonlySet<NetworkType> = new Set(['L2Bridge', 'L2Tunnel', 'Overlay']);

/** What a switch needs for its extension list: the network type that made it and what was set. */
export interface ExtensionHolder {
  /** The type of the network whose creation made the switch (absent in 0.x snapshots: none). */
  readonly NetworkType?: NetworkType;
  readonly Extensions?: readonly ExtensionOverride[];
}

function defaultEnabled(info: SwitchExtensionInfo, networkType: NetworkType | undefined): boolean {
  if (info.ExtensionType === 'Capture') return true;
  if (isVfp(info.Id)) return networkType !== undefined && VFP_TYPES.has(networkType);
  return false;
}

/** The extensions of a switch with their state, in HNS's order. */
export function switchExtensions(sw: ExtensionHolder, version: HnsVersion): SwitchExtensionState[] {
  return extensionCatalogue(version).map((info) => {
    const o = sw.Extensions?.find((x) => x.Id === info.Id);
    return { ...info, IsEnabled: o ? o.IsEnabled : defaultEnabled(info, sw.NetworkType) };
  });
}

/** The forwarding extension enabled on a switch other than VFP (OVS), if any. */
export function thirdPartyForwarding(
  sw: ExtensionHolder,
  version: HnsVersion,
): SwitchExtensionInfo | undefined {
  if (!sw.Extensions?.length) return undefined;
  return switchExtensions(sw, version).find(
    (e) => e.IsEnabled && e.ExtensionType === 'Forwarding' && !isVfp(e.Id),
  );
}

/**
 * The switch with extension `id` (an upper-case GUID) enabled or disabled. Throws, changing nothing:
 * an extension the host does not have → HCN_E_SWITCH_EXTENSION_NOT_FOUND; enabling a forwarding
 * extension while another is enabled → HCN_E_REQUEST_UNSUPPORTED (Windows allows one per switch;
 * the code is our choice).
 */
export function withExtension<T extends ExtensionHolder>(
  sw: T,
  version: HnsVersion,
  id: string,
  enable: boolean,
  switchName: string,
): T {
  const list = switchExtensions(sw, version);
  const ext = list.find((e) => e.Id === id);
  if (!ext) throw hnsError('HCN_E_SWITCH_EXTENSION_NOT_FOUND', `${id} on vSwitch "${switchName}"`);
  if (enable && ext.ExtensionType === 'Forwarding') {
    const other = list.find((e) => e.Id !== id && e.IsEnabled && e.ExtensionType === 'Forwarding');
    if (other) {
      throw hnsError(
        'HCN_E_REQUEST_UNSUPPORTED',
        `vSwitch "${switchName}" has the forwarding extension "${other.Name}" enabled: only one forwarding extension can be enabled on a switch`,
      );
    }
  }
  const rest = (sw.Extensions ?? []).filter((x) => x.Id !== id);
  return { ...sw, Extensions: [...rest, { Id: id, IsEnabled: enable }] };
}
