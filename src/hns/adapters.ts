/**
 * The node's network adapters as HNS sees them, and the Hyper-V virtual switches HNS creates on them
 * (reference hns-hcs.md §1.1 `NetAdapterName`, §3.1 `ManagementIP`; vfp-dataplane.md §5–§6;
 * kubernetes-windows.md §1). A host has physical adapters (`Ethernet` by default); the first
 * external-switch network (L2Bridge, L2Tunnel, Overlay, Transparent) on an adapter creates the
 * external vSwitch and moves the host's addresses to the host vNIC `vEthernet (<adapter>)`; the last
 * network leaving the switch removes it and gives the addresses back. NAT, ICS and Internal networks
 * get an internal switch whose host vNIC `vEthernet (<network>)` holds the subnet gateway; Private
 * networks a private switch with no host vNIC. The management IP of a network is the IPv4 address of
 * its switch's host vNIC.
 *
 * A switch is named after, and has the ID of, the network whose creation made it: what every network
 * on it reports as `Health.Extra.SwitchGuid`, and what ncproxy resolves with `GetNetworkByID` to
 * name the switch (docs/model.md, "The switch"). The ID outlives that network while others keep the
 * switch (a Hyper-V switch keeps its ID).
 *
 *   const nics = HostNics.create(parseAdapterSpecs([{ name: 'Ethernet', ipAddress: '10.0.0.4/24' }], 1));
 *   const plan = nics.plan(net, rng);   // validation only: HCN_E_ADAPTER_NOT_FOUND for a bad name
 *   nics.commit(plan);                  // the switch exists, the host IP is on vEthernet (Ethernet)
 *
 * HNS's mutations happen in `commit`/`release`, called from the service's commit phases; the
 * host's own adapter operations (a vNIC added to a switch outside HNS, as Open vSwitch's
 * `create_wmi_port` does; `Rename-NetAdapter`; `New-NetIPAddress`) in `addVNic`, `removeVNic`,
 * `rename` and `setIpv4`, called by src/host.
 */
import { hnsError } from '../core/errors.js';
import { derivedGuid, newGuid } from '../core/guid.js';
import { isJsonObject, type Json, type JsonObject } from '../core/json.js';
import { Rng } from '../core/rng.js';
import { formatIp, parseIp, parsePrefix, prefixContains, prefixLast, type Prefix } from '../addr/ip.js';
import { formatMac, isUnicastMac, parseMac } from '../addr/mac.js';
import { subnetsOf, type EndpointRec, type NetworkRec } from './model.js';
import type { NetworkType } from './policy/contracts.js';
import type { NetAdapterNameSettings } from './policy/network/net-adapter-name.js';
import type { ProviderAddressSettings } from './policy/shared/provider-address.js';
import type { ExtensionOverride } from './extensions.js';

/** How a host adapter is described in `createHost({ adapters })`, `hnsim serve --adapter` or a host file. */
export interface AdapterSpec {
  /** Interface alias, e.g. `Ethernet` or `Ethernet 2` (unique, compared case-insensitively). */
  readonly name: string;
  /** IPv4 address with its prefix length, e.g. `10.0.0.4/24`; omit for an adapter without an address. */
  readonly ipAddress?: string;
  /** IPv4 default gateway, inside the adapter's subnet. */
  readonly gateway?: string;
  /** `00-0D-3A-12-34-56` or `00:0d:3a:12:34:56`; default derived from the seed. */
  readonly macAddress?: string;
  /** Link MTU in bytes (576..9216, default 1500). */
  readonly mtu?: number;
  /** Interface description (default `Microsoft Hyper-V Network Adapter`). */
  readonly description?: string;
  /** Whether the NIC lets frames with other source MACs out (MAC address spoofing; default false). */
  readonly macSpoofing?: boolean;
}

/** An IPv4 configuration of an interface. */
export interface InterfaceIpRec {
  readonly IPAddress: string;
  readonly PrefixLength: number;
  readonly DefaultGateway?: string;
  readonly addr: number;
}

/** One adapter as `Get-NetAdapter` / `Get-NetIPAddress` would show it. */
export interface NetAdapterRec {
  readonly Name: string;
  readonly InterfaceDescription: string;
  readonly InterfaceGuid: string;
  readonly ifIndex: number;
  readonly MacAddress: string;
  readonly MtuSize: number;
  /** `Physical` for a NIC, `HostVNic` for a vEthernet adapter of a vSwitch. */
  readonly Kind: 'Physical' | 'HostVNic';
  readonly MacAddressSpoofing: boolean;
  /** The address the interface holds now (moved to the host vNIC while an external switch is bound). */
  readonly IPv4?: InterfaceIpRec;
  /** The switch the adapter is bound to (physical: as uplink; host vNIC: as its port). */
  readonly SwitchId?: string;
}

export type VSwitchType = 'External' | 'Internal' | 'Private';

export interface VSwitchRec {
  readonly ID: string;
  readonly Name: string;
  readonly SwitchType: VSwitchType;
  /** External switches: the physical adapter they are bound to. */
  readonly NetAdapterName?: string;
  /** The host vNIC of the switch (`vEthernet (…)`), absent for private switches. */
  readonly HostVNic?: string;
  /** Networks on the switch, in the order they joined it. */
  readonly Networks: readonly string[];
  /** The type of the network whose creation made the switch (decides VFP's default, src/hns/extensions.ts). */
  readonly NetworkType?: NetworkType;
  /** Extensions a request enabled or disabled (the others keep their default); a reboot clears them. */
  readonly Extensions?: readonly ExtensionOverride[];
}

/** Network types that bind an external vSwitch to a host adapter (kubernetes-windows.md §1). */
const EXTERNAL_TYPES: ReadonlySet<NetworkType> = new Set(['L2Bridge', 'L2Tunnel', 'Overlay', 'Transparent']);
/** Network types whose switch is internal: a host vNIC holding the gateway, no uplink. */
const INTERNAL_TYPES: ReadonlySet<NetworkType> = new Set(['NAT', 'ICS', 'Internal', 'ConstrainedICS']);

/** What the service needs to know about a network to give it a switch. */
export interface SwitchRequest {
  readonly networkId: string;
  readonly name: string;
  readonly type: NetworkType;
  /** `NetAdapterName` policy value, if any. */
  readonly adapterName?: string;
  /** A `ProviderAddress` network policy's address: picks the adapter holding it (no NetAdapterName). */
  readonly providerAddress?: string;
  /** IPv4 gateway and prefix length of the network's first IPv4 subnet (internal switches). */
  readonly gateway?: { readonly addr: number; readonly prefixLength: number };
}

/**
 * What a network (a record, or a draft with its final Ipams) asks of the switches: the adapter its
 * `NetAdapterName` policy names (else the adapter holding its `ProviderAddress`), and the gateway of
 * its first IPv4 subnet that has one.
 */
export function switchRequestOf(
  networkId: string,
  n: Pick<NetworkRec, 'Name' | 'Type' | 'Policies' | 'Ipams'>,
): SwitchRequest {
  const adapter = n.Policies.find((p) => p.type === 'NetAdapterName');
  const pa = adapter ? undefined : n.Policies.find((p) => p.type === 'ProviderAddress');
  const sub = subnetsOf(n).find((s) => s.gateway?.family === 4);
  return {
    networkId,
    name: n.Name,
    type: n.Type,
    ...(adapter ? { adapterName: (adapter.settings as NetAdapterNameSettings).networkAdapterName } : {}),
    ...(pa ? { providerAddress: (pa.settings as ProviderAddressSettings).providerAddress } : {}),
    ...(sub?.gateway ? { gateway: { addr: sub.gateway.value as number, prefixLength: sub.prefix.len } } : {}),
  };
}

/** A validated switch decision, applied by `commit` (nothing is changed before). */
export interface SwitchPlan {
  readonly request: SwitchRequest;
  /** The switch to join, or undefined when the network gets no switch (Mirrored, Layered, …). */
  readonly switchId?: string;
  /** A switch to create (when `switchId` names no existing one). */
  readonly create?: { readonly sw: VSwitchRec; readonly vnic?: NetAdapterRec; readonly uplink?: string };
}

const PHYSICAL_DESCRIPTION = 'Microsoft Hyper-V Network Adapter';
/** The description of every host vNIC (`vEthernet (…)`), a switch's or an endpoint's. */
export const VNIC_DESCRIPTION = 'Hyper-V Virtual Ethernet Adapter';
/**
 * The index and MTU of an endpoint's interface, as the host (`Host.adapters()`, a host vNIC) and a
 * container (the HCS container view) show it: index 1000 + the endpoint's creation sequence, stable
 * for the endpoint's life and after the adapters' and switches' indexes (our choice: indices are
 * host-wide on Windows); MTU 1450 on an Overlay network (HNS lowers it for the VXLAN header,
 * vfp-dataplane.md §5), else 1500.
 */
export function endpointInterface(
  e: EndpointRec,
  net: NetworkRec | undefined,
): { ifIndex: number; mtu: number } {
  return { ifIndex: 1000 + e.seq, mtu: net?.Type === 'Overlay' ? 1450 : 1500 };
}

/** Microsoft's OUI used by Azure VM NICs (00-0D-3A): the seed-derived physical MACs live there, away from HNS pools. */
const NIC_OUI = 0x000d3a;
const TWO_24 = 0x1000000;
/** The first interface index given to adapters (1 is the loopback pseudo-interface on Windows). */
const FIRST_IF_INDEX = 4;

function specError(i: number, what: string): never {
  throw hnsError('E_INVALIDARG', `adapters[${i}]: ${what}`);
}

/** The IPv4 address of `a.b.c.d/len` and its subnet, or an error. */
function readIpv4Prefix(i: number, text: string): { addr: number; subnet: Prefix } {
  const p = parsePrefix(text);
  if (!p || p.family !== 4 || p.host.family !== 4)
    specError(i, `ipAddress "${text}" is not an IPv4 address with a prefix (10.0.0.4/24)`);
  if (p.len < 1) specError(i, `ipAddress "${text}" has prefix length ${p.len}, not 1..32`);
  const addr = p.host.value;
  if (p.len < 31 && (addr === p.addr || addr === prefixLast(p).value)) {
    specError(i, `ipAddress "${text}" is the network or broadcast address of its subnet`);
  }
  return { addr, subnet: p };
}

/**
 * Validate adapter specs and fill in defaults derived from `seed` (a generator of its own, so the
 * host's ID stream does not move). With no specs, one adapter `Ethernet` at `10.0.X.Y/16` with
 * gateway `10.0.0.1` and a MAC in 00-0D-3A. Bad specs → E_INVALIDARG naming the field.
 */
export function parseAdapterSpecs(specs: readonly AdapterSpec[] | undefined, seed: number): NetAdapterRec[] {
  const rng = new Rng((seed ^ 0x4e494331) >>> 0);
  const list: readonly AdapterSpec[] =
    specs && specs.length ? specs : [{ name: 'Ethernet', ...defaultAddressing(rng) }];
  if (!Array.isArray(list)) throw hnsError('E_INVALIDARG', 'adapters must be an array');
  const seenNames = new Set<string>();
  const seenMacs = new Set<number>();
  const seenIps = new Set<number>();
  return list.map((spec, i): NetAdapterRec => {
    if (!isJsonObject(spec as unknown as Json)) specError(i, 'must be an object');
    for (const k of Object.keys(spec)) if (!SPEC_KEYS.has(k)) specError(i, `unknown key "${k}"`);
    const name = spec.name;
    if (typeof name !== 'string' || name.trim() === '' || name.length > 256)
      specError(i, 'name must be a non-empty string');
    if (/^vEthernet \(/i.test(name)) specError(i, `name "${name}" is reserved for host vNICs`);
    if (seenNames.has(name.toLowerCase())) specError(i, `name "${name}" is used twice`);
    seenNames.add(name.toLowerCase());
    let mac: number;
    if (spec.macAddress !== undefined) {
      const m = typeof spec.macAddress === 'string' ? parseMac(spec.macAddress) : undefined;
      if (m === undefined || !isUnicastMac(m) || m === 0)
        specError(i, `macAddress "${String(spec.macAddress)}" is not a unicast MAC`);
      mac = m;
    } else {
      do mac = NIC_OUI * TWO_24 + rng.nextInt(TWO_24);
      while (seenMacs.has(mac));
    }
    if (seenMacs.has(mac)) specError(i, `macAddress ${formatMac(mac)} is used twice`);
    seenMacs.add(mac);
    let ipv4: InterfaceIpRec | undefined;
    if (spec.ipAddress !== undefined) {
      if (typeof spec.ipAddress !== 'string') specError(i, 'ipAddress must be a string');
      const { addr, subnet } = readIpv4Prefix(i, spec.ipAddress);
      if (seenIps.has(addr)) specError(i, `ipAddress ${formatIp({ family: 4, value: addr })} is used twice`);
      seenIps.add(addr);
      let gw: string | undefined;
      if (spec.gateway !== undefined) {
        const g = typeof spec.gateway === 'string' ? parseIp(spec.gateway) : undefined;
        if (!g || g.family !== 4) specError(i, `gateway "${String(spec.gateway)}" is not an IPv4 address`);
        if (!prefixContains(subnet, g)) {
          specError(i, `gateway ${spec.gateway} is outside ${spec.ipAddress}`);
        }
        if (g.value === addr) specError(i, `gateway ${spec.gateway} is the adapter's own address`);
        gw = formatIp(g);
      }
      ipv4 = {
        IPAddress: formatIp({ family: 4, value: addr }),
        PrefixLength: subnet.len,
        ...(gw ? { DefaultGateway: gw } : {}),
        addr,
      };
    } else if (spec.gateway !== undefined) {
      specError(i, 'gateway needs an ipAddress');
    }
    const mtu = spec.mtu ?? 1500;
    if (!Number.isInteger(mtu) || mtu < 576 || mtu > 9216)
      specError(i, `mtu ${String(spec.mtu)} is not an integer in 576..9216`);
    if (spec.description !== undefined && typeof spec.description !== 'string')
      specError(i, 'description must be a string');
    if (spec.macSpoofing !== undefined && typeof spec.macSpoofing !== 'boolean')
      specError(i, 'macSpoofing must be a boolean');
    return {
      Name: name,
      InterfaceDescription:
        spec.description ?? (i === 0 ? PHYSICAL_DESCRIPTION : `${PHYSICAL_DESCRIPTION} #${i + 1}`),
      InterfaceGuid: newGuid(rng),
      ifIndex: FIRST_IF_INDEX + i,
      MacAddress: formatMac(mac),
      MtuSize: mtu,
      Kind: 'Physical',
      MacAddressSpoofing: spec.macSpoofing ?? false,
      ...(ipv4 ? { IPv4: ipv4 } : {}),
    };
  });
}

const SPEC_KEYS = new Set([
  'name',
  'ipAddress',
  'gateway',
  'macAddress',
  'mtu',
  'description',
  'macSpoofing',
]);

/** The default adapter's addressing: 10.0.X.Y/16 (Y in 4..254), gateway 10.0.0.1. */
function defaultAddressing(rng: Rng): { ipAddress: string; gateway: string } {
  const x = rng.nextInt(256);
  const y = 4 + rng.nextInt(251);
  return { ipAddress: `10.0.${x}.${y}/16`, gateway: '10.0.0.1' };
}

/** The adapters and switches of one host. Records are replaced, never edited in place. */
export class HostNics {
  /** Adapters by lower-case name, physical first in configured order, then host vNICs in creation order. */
  readonly adapters = new Map<string, NetAdapterRec>();
  readonly switches = new Map<string, VSwitchRec>();
  /** Network ID → switch ID. */
  readonly networkSwitch = new Map<string, string>();
  nextIfIndex: number;

  private constructor(physical: readonly NetAdapterRec[]) {
    for (const a of physical) this.adapters.set(a.Name.toLowerCase(), a);
    this.nextIfIndex = FIRST_IF_INDEX + physical.length + 10;
  }

  static create(physical: readonly NetAdapterRec[]): HostNics {
    return new HostNics(physical);
  }

  /** Every adapter, physical then host vNICs. */
  list(): NetAdapterRec[] {
    return [...this.adapters.values()];
  }

  physical(): NetAdapterRec[] {
    return this.list().filter((a) => a.Kind === 'Physical');
  }

  /**
   * The physical adapter an external network binds to: the one `name` names (a physical adapter, or
   * the host vNIC of an external switch, which stands for that switch's uplink), else the default
   * one (the first with a default gateway, else the first). Unknown → HCN_E_ADAPTER_NOT_FOUND.
   */
  resolveUplink(name: string | undefined, providerAddress?: string): NetAdapterRec {
    if ((name === undefined || name === '') && providerAddress !== undefined) {
      // Azure CNI names the adapter of a multitenant network by its address instead
      // (GetHcnNetAdapterAddressPolicy); an address no adapter holds leaves the default one
      const holder = this.list().find((a) => a.IPv4?.IPAddress === providerAddress);
      if (holder) return this.resolveUplink(holder.Name);
    }
    if (name === undefined || name === '') {
      const phys = this.physical();
      const dflt = phys.find((a) => a.IPv4?.DefaultGateway) ?? phys[0];
      if (!dflt) throw hnsError('HCN_E_ADAPTER_NOT_FOUND', 'the host has no network adapter');
      return dflt;
    }
    const a = this.adapters.get(name.toLowerCase());
    if (!a) throw hnsError('HCN_E_ADAPTER_NOT_FOUND', `no adapter named "${name}"`);
    if (a.Kind === 'Physical') return a;
    const sw = a.SwitchId ? this.switches.get(a.SwitchId) : undefined;
    if (!sw || sw.SwitchType !== 'External' || !sw.NetAdapterName) {
      throw hnsError(
        'HCN_E_ADAPTER_NOT_FOUND',
        `"${name}" is the host vNIC of an ${sw?.SwitchType ?? 'unknown'} switch`,
      );
    }
    return this.adapters.get(sw.NetAdapterName.toLowerCase())!;
  }

  /**
   * Decide a network's switch; throws before anything changes. A new switch takes the network's ID
   * and name; GUIDs and MACs for its host vNIC are drawn from `rng`.
   */
  plan(req: SwitchRequest, rng: Rng): SwitchPlan {
    const id = req.networkId;
    const swName = req.name !== '' ? req.name : req.networkId;
    if (EXTERNAL_TYPES.has(req.type)) {
      const uplink = this.resolveUplink(req.adapterName, req.providerAddress);
      if (uplink.SwitchId) return { request: req, switchId: uplink.SwitchId };
      this.checkNewSwitchId(id, rng);
      const vnicName = `vEthernet (${uplink.Name})`;
      // the host vNIC takes over the uplink's MAC, MTU and address
      const vnic = this.newVNic(vnicName, id, uplink.MacAddress, uplink.MtuSize, uplink.IPv4, rng);
      const sw: VSwitchRec = {
        ID: id,
        Name: swName,
        SwitchType: 'External',
        NetAdapterName: uplink.Name,
        HostVNic: vnicName,
        Networks: [],
        NetworkType: req.type,
      };
      return { request: req, switchId: id, create: { sw, vnic, uplink: uplink.Name } };
    }
    if (INTERNAL_TYPES.has(req.type) || req.type === 'Private') {
      this.checkNewSwitchId(id, rng);
      if (req.type === 'Private') {
        return {
          request: req,
          switchId: id,
          create: {
            sw: { ID: id, Name: swName, SwitchType: 'Private', Networks: [], NetworkType: req.type },
          },
        };
      }
      let vnicName = `vEthernet (${swName})`;
      for (let k = 2; this.adapters.has(vnicName.toLowerCase()); k++) vnicName = `vEthernet (${swName}) ${k}`;
      const mac = 0x00155d * TWO_24 + rng.nextInt(TWO_24);
      const gw = req.gateway;
      const ipv4: InterfaceIpRec | undefined = gw && {
        IPAddress: formatIp({ family: 4, value: gw.addr }),
        PrefixLength: gw.prefixLength,
        addr: gw.addr,
      };
      const vnic = this.newVNic(vnicName, id, formatMac(mac), 1500, ipv4, rng);
      return {
        request: req,
        switchId: id,
        create: {
          sw: {
            ID: id,
            Name: swName,
            SwitchType: 'Internal',
            HostVNic: vnicName,
            Networks: [],
            NetworkType: req.type,
          },
          vnic,
        },
      };
    }
    return { request: req };
  }

  /**
   * A switch outlives the network that made it while other networks keep it, so its ID can name no
   * network: a new network given that ID cannot make a switch of its own (HCN_E_NETWORK_ALREADY_EXISTS).
   */
  private checkNewSwitchId(id: string, rng: Rng): void {
    // hnsim 0.1 drew a GUID for every new switch here: drawn still (and unused), the IDs a seed
    // gives stay those earlier releases gave, which docs and recorded outputs show
    newGuid(rng);
    if (this.switches.has(id)) {
      throw hnsError(
        'HCN_E_NETWORK_ALREADY_EXISTS',
        `${id} is the ID of the vSwitch "${this.switches.get(id)!.Name}"`,
      );
    }
  }

  /** The host vNIC of a switch about to be created (its InterfaceGuid drawn from `rng`). */
  private newVNic(
    name: string,
    switchId: string,
    macAddress: string,
    mtu: number,
    ipv4: InterfaceIpRec | undefined,
    rng: Rng,
  ): NetAdapterRec {
    return {
      Name: name,
      InterfaceDescription: `${VNIC_DESCRIPTION} #${this.vnicCount() + 1}`,
      InterfaceGuid: newGuid(rng),
      ifIndex: this.nextIfIndex,
      MacAddress: macAddress,
      MtuSize: mtu,
      Kind: 'HostVNic',
      MacAddressSpoofing: false,
      ...(ipv4 ? { IPv4: ipv4 } : {}),
      SwitchId: switchId,
    };
  }

  private vnicCount(): number {
    let n = 0;
    for (const a of this.adapters.values()) if (a.Kind === 'HostVNic') n++;
    return n;
  }

  /**
   * Apply a plan: create the switch (moving the uplink's address to the host vNIC) and/or join it.
   * `extensions`: the switch's extension states after the request (validated by the caller).
   */
  commit(plan: SwitchPlan, extensions?: readonly ExtensionOverride[]): void {
    const id = plan.switchId;
    if (!id) return;
    if (plan.create) {
      const { sw, vnic, uplink } = plan.create;
      this.switches.set(sw.ID, sw);
      if (uplink) {
        const a = this.adapters.get(uplink.toLowerCase())!;
        const { IPv4: _moved, ...rest } = a;
        this.adapters.set(uplink.toLowerCase(), { ...rest, SwitchId: sw.ID });
      }
      if (vnic) {
        this.adapters.set(vnic.Name.toLowerCase(), vnic);
        this.nextIfIndex++;
      }
    }
    const sw = this.switches.get(id)!;
    this.switches.set(id, {
      ...sw,
      Networks: [...sw.Networks, plan.request.networkId],
      ...(extensions ? { Extensions: extensions } : {}),
    });
    this.networkSwitch.set(plan.request.networkId, id);
  }

  /** Replace a switch's extension states (validated by src/hns/extensions.ts `withExtension`). */
  setExtensions(switchId: string, extensions: readonly ExtensionOverride[]): void {
    const sw = this.switches.get(switchId);
    if (sw) this.switches.set(switchId, { ...sw, Extensions: extensions });
  }

  /** A host reboot: every switch's extensions go back to their defaults (ovs-windows.md §5 #3). */
  resetExtensions(): void {
    for (const [id, sw] of this.switches) {
      if (!sw.Extensions) continue;
      const { Extensions: _e, ...rest } = sw;
      this.switches.set(id, rest);
    }
  }

  // ───────── the host's own adapter operations (not HNS's) ─────────

  /**
   * A host vNIC added to a switch outside HNS (`Add-VMNetworkAdapter -ManagementOS`; what Open
   * vSwitch's `create_wmi_port` does for an internal port no Hyper-V port has the name of): no
   * address, a MAC in Hyper-V's dynamic range derived from `seed` and the name (the host's ID
   * stream does not move), the next interface index. Errors: a name in use, an unknown switch.
   */
  addVNic(switchId: string, name: string, seed: number): NetAdapterRec {
    if (this.adapters.has(name.toLowerCase()))
      throw hnsError('E_INVALIDARG', `an adapter named "${name}" already exists`);
    if (!this.switches.has(switchId)) throw hnsError('HCN_E_NETWORK_NOT_FOUND', `no vSwitch ${switchId}`);
    let h = (seed ^ 0x2f6b1d3) >>> 0;
    for (const c of name.toLowerCase()) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    const vnic: NetAdapterRec = {
      Name: name,
      InterfaceDescription: `${VNIC_DESCRIPTION} #${this.vnicCount() + 1}`,
      InterfaceGuid: derivedGuid(`${switchId}/${name.toLowerCase()}`, 0x77c0),
      ifIndex: this.nextIfIndex++,
      MacAddress: formatMac(0x00155d * TWO_24 + (h % TWO_24)),
      MtuSize: 1500,
      Kind: 'HostVNic',
      MacAddressSpoofing: false,
      SwitchId: switchId,
    };
    this.adapters.set(name.toLowerCase(), vnic);
    return vnic;
  }

  /** Remove a host vNIC `addVNic` made (a switch's management vNIC stays: false). */
  removeVNic(name: string): boolean {
    const a = this.adapters.get(name.toLowerCase());
    if (!a || a.Kind !== 'HostVNic') return false;
    const sw = a.SwitchId ? this.switches.get(a.SwitchId) : undefined;
    if (sw?.HostVNic?.toLowerCase() === name.toLowerCase()) return false;
    this.adapters.delete(name.toLowerCase());
    return true;
  }

  /**
   * `Rename-NetAdapter` (and `Rename-VMNetworkAdapter` for a host vNIC): the switch keeps naming
   * its management vNIC by the new name. Errors: no such adapter, the new name taken.
   */
  rename(name: string, to: string): void {
    const a = this.adapters.get(name.toLowerCase());
    if (!a) throw hnsError('HCN_E_ADAPTER_NOT_FOUND', `no adapter named "${name}"`);
    if (to === '' || (to.toLowerCase() !== name.toLowerCase() && this.adapters.has(to.toLowerCase())))
      throw hnsError('E_INVALIDARG', `an adapter named "${to}" already exists`);
    // the adapter keeps its place in the list (physical first, then vNICs in creation order)
    const all = [...this.adapters];
    this.adapters.clear();
    for (const [k, x] of all) {
      if (x === a) this.adapters.set(to.toLowerCase(), { ...a, Name: to });
      else this.adapters.set(k, x);
    }
    for (const [id, sw] of this.switches) {
      if (sw.HostVNic?.toLowerCase() === name.toLowerCase()) this.switches.set(id, { ...sw, HostVNic: to });
      if (sw.NetAdapterName?.toLowerCase() === name.toLowerCase())
        this.switches.set(id, { ...this.switches.get(id)!, NetAdapterName: to });
    }
  }

  /** `New-NetIPAddress` / `Remove-NetIPAddress` of an adapter's IPv4 address (undefined: none). */
  setIpv4(name: string, ipv4: InterfaceIpRec | undefined): void {
    const a = this.adapters.get(name.toLowerCase());
    if (!a) throw hnsError('HCN_E_ADAPTER_NOT_FOUND', `no adapter named "${name}"`);
    const { IPv4: _old, ...rest } = a;
    this.adapters.set(name.toLowerCase(), ipv4 ? { ...rest, IPv4: ipv4 } : rest);
  }

  /** A network leaves its switch; the last one out removes the switch and gives the uplink its address back. */
  release(networkId: string): VSwitchRec | undefined {
    const id = this.networkSwitch.get(networkId);
    if (!id) return undefined;
    this.networkSwitch.delete(networkId);
    const sw = this.switches.get(id)!;
    const Networks = sw.Networks.filter((n) => n !== networkId);
    if (Networks.length) {
      this.switches.set(id, { ...sw, Networks });
      return undefined;
    }
    this.switches.delete(id);
    const vnic = sw.HostVNic ? this.adapters.get(sw.HostVNic.toLowerCase()) : undefined;
    if (sw.HostVNic) this.adapters.delete(sw.HostVNic.toLowerCase());
    // vNICs added to the switch outside HNS go with it
    for (const [k, a] of this.adapters)
      if (a.Kind === 'HostVNic' && a.SwitchId === id) this.adapters.delete(k);
    if (sw.NetAdapterName) {
      const a = this.adapters.get(sw.NetAdapterName.toLowerCase())!;
      const { SwitchId: _s, ...rest } = a;
      this.adapters.set(sw.NetAdapterName.toLowerCase(), vnic?.IPv4 ? { ...rest, IPv4: vnic.IPv4 } : rest);
    }
    return sw;
  }

  switchOf(networkId: string): VSwitchRec | undefined {
    const id = this.networkSwitch.get(networkId);
    return id ? this.switches.get(id) : undefined;
  }

  /** The host vNIC of a network's switch. */
  hostVNicOf(networkId: string): NetAdapterRec | undefined {
    const sw = this.switchOf(networkId);
    return sw?.HostVNic ? this.adapters.get(sw.HostVNic.toLowerCase()) : undefined;
  }

  /** The host vNIC of a switch. */
  hostVNicOfSwitch(switchId: string): NetAdapterRec | undefined {
    const sw = this.switches.get(switchId);
    return sw?.HostVNic ? this.adapters.get(sw.HostVNic.toLowerCase()) : undefined;
  }

  /** The management IP of an external-switch network: its host vNIC's IPv4 address. */
  managementIp(networkId: string): string | undefined {
    const sw = this.switchOf(networkId);
    if (!sw || sw.SwitchType !== 'External') return undefined;
    return this.hostVNicOf(networkId)?.IPv4?.IPAddress;
  }

  /** The physical adapter an external network is bound to. */
  uplinkOf(networkId: string): NetAdapterRec | undefined {
    const sw = this.switchOf(networkId);
    return sw?.NetAdapterName ? this.adapters.get(sw.NetAdapterName.toLowerCase()) : undefined;
  }

  /** Plain-JSON state for snapshots. */
  toJSON(): JsonObject {
    return {
      adapters: this.list().map((a) => adapterJson(a, true)),
      switches: [...this.switches.values()].map(
        (s) => ({ ...s, Networks: [...s.Networks] }) as unknown as JsonObject,
      ),
      nextIfIndex: this.nextIfIndex,
    };
  }

  static fromJSON(v: unknown): HostNics {
    if (!isJsonObject(v) || !Array.isArray(v.adapters) || !Array.isArray(v.switches)) {
      throw new Error('adapters: expected {adapters, switches}');
    }
    const adapters = v.adapters.map((a) => readAdapterJson(a));
    const nics = new HostNics([]);
    for (const a of adapters) nics.adapters.set(a.Name.toLowerCase(), a);
    for (const s of v.switches) {
      if (
        !isJsonObject(s) ||
        typeof s.ID !== 'string' ||
        typeof s.Name !== 'string' ||
        !Array.isArray(s.Networks)
      ) {
        throw new Error('adapters: bad switch');
      }
      const type = s.SwitchType;
      if (type !== 'External' && type !== 'Internal' && type !== 'Private')
        throw new Error('adapters: bad SwitchType');
      const sw: VSwitchRec = {
        ID: s.ID,
        Name: s.Name,
        SwitchType: type,
        ...(typeof s.NetAdapterName === 'string' ? { NetAdapterName: s.NetAdapterName } : {}),
        ...(typeof s.HostVNic === 'string' ? { HostVNic: s.HostVNic } : {}),
        Networks: s.Networks.map(String),
        ...(typeof s.NetworkType === 'string' ? { NetworkType: s.NetworkType as NetworkType } : {}),
        ...(Array.isArray(s.Extensions) ? { Extensions: readOverrides(s.Extensions) } : {}),
      };
      nics.switches.set(sw.ID, sw);
      for (const n of sw.Networks) nics.networkSwitch.set(n, sw.ID);
    }
    if (typeof v.nextIfIndex !== 'number') throw new Error('adapters: bad nextIfIndex');
    nics.nextIfIndex = v.nextIfIndex;
    return nics;
  }

  /** Take over another instance's state (snapshot restore swaps a fully built one in). */
  assign(other: HostNics): void {
    this.adapters.clear();
    this.switches.clear();
    this.networkSwitch.clear();
    for (const [k, a] of other.adapters) this.adapters.set(k, a);
    for (const [k, s] of other.switches) this.switches.set(k, s);
    for (const [k, s] of other.networkSwitch) this.networkSwitch.set(k, s);
    this.nextIfIndex = other.nextIfIndex;
  }
}

function readOverrides(list: readonly Json[]): ExtensionOverride[] {
  return list.map((x) => {
    if (!isJsonObject(x) || typeof x.Id !== 'string' || typeof x.IsEnabled !== 'boolean')
      throw new Error('adapters: bad switch extension');
    return { Id: x.Id, IsEnabled: x.IsEnabled };
  });
}

/** An adapter as data (`Get-NetAdapter` + its IPv4 configuration); `internal` adds the switch binding. */
export function adapterJson(a: NetAdapterRec, internal = false): JsonObject {
  const out: JsonObject = {
    Name: a.Name,
    InterfaceDescription: a.InterfaceDescription,
    InterfaceGuid: a.InterfaceGuid,
    ifIndex: a.ifIndex,
    MacAddress: a.MacAddress,
    MtuSize: a.MtuSize,
    Kind: a.Kind,
    Status: 'Up',
  };
  if (a.MacAddressSpoofing) out.MacAddressSpoofing = true;
  if (a.IPv4) {
    out.IPv4Address = a.IPv4.IPAddress;
    out.PrefixLength = a.IPv4.PrefixLength;
    if (a.IPv4.DefaultGateway) out.DefaultGateway = a.IPv4.DefaultGateway;
  }
  if (a.SwitchId) out[internal ? 'SwitchId' : 'VSwitchId'] = a.SwitchId;
  return out;
}

function readAdapterJson(v: unknown): NetAdapterRec {
  if (!isJsonObject(v)) throw new Error('adapters: bad adapter');
  const str = (k: string): string => {
    const x = v[k];
    if (typeof x !== 'string') throw new Error(`adapters: ${k} must be a string`);
    return x;
  };
  const num = (k: string): number => {
    const x = v[k];
    if (typeof x !== 'number' || !Number.isInteger(x)) throw new Error(`adapters: ${k} must be an integer`);
    return x;
  };
  const kind = v.Kind;
  if (kind !== 'Physical' && kind !== 'HostVNic') throw new Error('adapters: bad Kind');
  let IPv4: InterfaceIpRec | undefined;
  if (typeof v.IPv4Address === 'string') {
    const ip = parseIp(v.IPv4Address);
    if (!ip || ip.family !== 4) throw new Error('adapters: bad IPv4Address');
    IPv4 = {
      IPAddress: formatIp(ip),
      PrefixLength: num('PrefixLength'),
      ...(typeof v.DefaultGateway === 'string' ? { DefaultGateway: v.DefaultGateway } : {}),
      addr: ip.value,
    };
  }
  const mac = parseMac(str('MacAddress'));
  if (mac === undefined) throw new Error('adapters: bad MacAddress');
  return {
    Name: str('Name'),
    InterfaceDescription: str('InterfaceDescription'),
    InterfaceGuid: str('InterfaceGuid'),
    ifIndex: num('ifIndex'),
    MacAddress: formatMac(mac),
    MtuSize: num('MtuSize'),
    Kind: kind,
    MacAddressSpoofing: v.MacAddressSpoofing === true,
    ...(IPv4 ? { IPv4 } : {}),
    ...(typeof v.SwitchId === 'string' ? { SwitchId: v.SwitchId } : {}),
  };
}

/** Consistency of adapters, switches and the networks that use them (for auditStore). */
export function auditNics(nics: HostNics, networkIds: ReadonlySet<string>): string[] {
  const out: string[] = [];
  // a switch has the ID of the network that made it; a network with that ID is on it
  for (const id of nics.switches.keys()) {
    if (networkIds.has(id) && nics.networkSwitch.get(id) !== id)
      out.push(`network ${id} has the ID of a switch it is not on`);
  }
  for (const [netId, swId] of nics.networkSwitch) {
    if (!networkIds.has(netId)) out.push(`switch ${swId} lists a missing network ${netId}`);
    const sw = nics.switches.get(swId);
    if (!sw) out.push(`network ${netId} is on a missing switch ${swId}`);
    else if (!sw.Networks.includes(netId)) out.push(`switch ${swId} does not list its network ${netId}`);
  }
  for (const sw of nics.switches.values()) {
    if (!sw.Networks.length) out.push(`switch ${sw.ID} has no network but still exists`);
    for (const n of sw.Networks)
      if (nics.networkSwitch.get(n) !== sw.ID) out.push(`switch ${sw.ID} lists network ${n} filed elsewhere`);
    if (sw.HostVNic) {
      const v = nics.adapters.get(sw.HostVNic.toLowerCase());
      if (!v || v.SwitchId !== sw.ID)
        out.push(`switch ${sw.ID}: host vNIC ${sw.HostVNic} is missing or not bound`);
    }
    if (sw.NetAdapterName) {
      const a = nics.adapters.get(sw.NetAdapterName.toLowerCase());
      if (!a || a.SwitchId !== sw.ID)
        out.push(`switch ${sw.ID}: uplink ${sw.NetAdapterName} is missing or not bound`);
      else if (a.IPv4) out.push(`switch ${sw.ID}: uplink ${a.Name} still holds ${a.IPv4.IPAddress}`);
    }
  }
  for (const a of nics.adapters.values()) {
    if (a.SwitchId && !nics.switches.has(a.SwitchId))
      out.push(`adapter ${a.Name} is bound to a missing switch`);
    if (a.Kind === 'HostVNic' && !a.SwitchId) out.push(`host vNIC ${a.Name} has no switch`);
  }
  return out;
}
