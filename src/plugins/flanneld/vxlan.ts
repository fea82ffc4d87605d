/**
 * flanneld's vxlan backend on Windows, the current design (flannel-io/flannel @ cdf76059
 * `pkg/backend/vxlan/vxlan_windows.go`, `device_windows.go`, `vxlan_network_windows.go`;
 * reference cni-windows.md §5.3, pitfalls P11, P16): an HCN v2 Overlay network `flannel.<VNI>`
 * (Flags 8: gone after a reboot) on the lease subnet with the VSID policy, reused when its type
 * and first subnet prefix match, else deleted and recreated; a wait for HNS to publish the
 * ProviderAddress; the HostRoute policy; the DR MAC published as the lease's VtepMAC; and one
 * RemoteSubnetRoute policy per other node (an existing one for the same prefix removed first;
 * nothing added or removed for a lease without a MAC).
 *
 *   const vx = new FlanneldVxlan(flanneldHost(host), { backend: { Type: 'vxlan', VNI: 4096 } });
 *   const { lease } = await vx.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
 *   await vx.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12', vni: 4096, vtepMac: '00:15:5d:…' });
 */
import type { HostComputeNetwork } from '../../api/hcn/network.js';
import { FlanneldBackend, WAIT_INTERVAL, WAIT_TIMEOUT, type LeaseBatch } from './backend.js';
import { field, goBool, goInt, goString, goUnmarshal, type GoType } from '../../cni/gojson.js';
import { isJsonObject, type Json, type JsonObject } from '../../core/json.js';
import { fmt } from '../../vswitch/v4.js';
import { GoPanic, indexOutOfRange, nilDereference } from '../../cni/gopanic.js';
import { macError, macString, parseMAC } from '../../cni/gomac.js';
import { backendJson } from './hostgw.js';
import { DEADLINE_EXCEEDED, getInterfaceByIP, parseIP4, wrap } from './host.js';
import { LeaseWatcher, parseLease, subnetText, type Lease, type ParsedLease } from './lease.js';

/** `defaultVNI` and `vxlanPort`: the only port Windows supports. */
export const DEFAULT_VNI = 4096;
export const VXLAN_PORT = 4789;
/** `encapOverhead`: the MTU flanneld reports is the interface's minus this. */
export const ENCAP_OVERHEAD = 50;

/** The vxlan Backend config after defaults and validation. */
export interface VxlanConfig {
  readonly name: string;
  readonly macPrefix: string;
  readonly vni: number;
  readonly port: number;
  readonly gbp: boolean;
  readonly directRouting: boolean;
}

const VXLAN_CONFIG: GoType = {
  k: 'struct',
  name: 'struct { Name string; MacPrefix string; VNI int; Port int; GBP bool; DirectRouting bool }',
  short: '',
  fields: [
    field('Name', goString),
    field('MacPrefix', goString),
    field('VNI', goInt),
    field('Port', goInt),
    field('GBP', goBool),
    field('DirectRouting', goBool),
  ],
};

/**
 * Steps 1–2 of `RegisterNetwork` (the same in the 2018 design): defaults VNI 4096, Port 4789,
 * MacPrefix `0E-2A`; decoded with `encoding/json` (keys case-insensitive); then the Windows checks,
 * with flanneld's texts.
 */
export function vxlanConfig(backend: unknown): VxlanConfig {
  let cfg: Record<string, unknown> = {};
  try {
    const raw = backendJson(backend);
    if (raw !== undefined) cfg = (goUnmarshal(raw, VXLAN_CONFIG) ?? {}) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`error decoding VXLAN backend config: ${(e as Error).message}`);
  }
  const vni = typeof cfg['VNI'] === 'number' ? cfg['VNI'] : DEFAULT_VNI;
  const port = typeof cfg['Port'] === 'number' ? cfg['Port'] : VXLAN_PORT;
  const macPrefix = typeof cfg['MacPrefix'] === 'string' ? cfg['MacPrefix'] : '0E-2A';
  const gbp = cfg['GBP'] === true;
  const directRouting = cfg['DirectRouting'] === true;
  if (vni < DEFAULT_VNI) {
    throw new Error(
      `invalid VXLAN backend config. VNI [${vni}] must be greater than or equal to ${DEFAULT_VNI} on Windows`,
    );
  }
  if (port !== VXLAN_PORT) {
    throw new Error(
      `invalid VXLAN backend config. Port [${port}] is not supported on Windows. Omit the setting to default to port ${VXLAN_PORT}`,
    );
  }
  if (directRouting)
    throw new Error('invalid VXLAN backend config. DirectRouting is not supported on Windows');
  if (gbp) throw new Error('invalid VXLAN backend config. GBP is not supported on Windows');
  // a byte-wise check, as Go's len() and indexing are
  const bytes = Buffer.from(macPrefix, 'utf8');
  if (bytes.length !== 5 || bytes[2] !== 0x2d) {
    throw new Error(
      `invalid VXLAN backend config.MacPrefix [${macPrefix}] is invalid, prefix must be of the format xx-xx e.g. 0E-2A`,
    );
  }
  const name = typeof cfg['Name'] === 'string' && cfg['Name'] !== '' ? cfg['Name'] : `flannel.${vni}`;
  return { name, macPrefix, vni, port, gbp, directRouting };
}

/** What vxlan set up, and the lease to publish (with its VNI and VtepMAC). */
export interface VxlanNetwork {
  readonly name: string;
  readonly networkId: string;
  /** The network's ProviderAddress (flanneld's "management IP"). */
  readonly managementIp: string;
  readonly vni: number;
  /** The DR MAC in Go's `HardwareAddr` form (`00:15:5d:…`). */
  readonly vtepMac: string;
  /** The interface MTU − 50. */
  readonly mtu: number;
  readonly lease: Lease;
}

/** The `vxlanLeaseAttrs` of a remote lease, or Go's decoding error text. */
export function leaseAttrs(lease: Lease): { vni: number; mac: Uint8Array | undefined } | { error: string } {
  // VtepMAC is decoded after VNI and its UnmarshalJSON error stops decoding at once
  let mac: Uint8Array | undefined;
  if (lease.vtepMac !== undefined) {
    mac = parseMAC(lease.vtepMac);
    if (!mac) return { error: macError(lease.vtepMac) };
  }
  const vni = lease.vni ?? 0;
  if (!Number.isInteger(vni) || vni < 0 || vni > 0xffff) {
    return {
      error: `json: cannot unmarshal number ${JSON.stringify(vni)} into Go struct field vxlanLeaseAttrs.VNI of type uint16`,
    };
  }
  return { vni, mac };
}

/** `getManagementIP`: the first ProviderAddress network policy's address ("" when none or unreadable). */
export function managementIpOf(network: HostComputeNetwork): string {
  for (const p of network.Policies) {
    if (p.Type !== 'ProviderAddress') continue;
    const s = p.Settings;
    if (s === undefined || s === null) return '';
    if (!isJsonObject(s)) return '';
    const v = pickFold(s, 'ProviderAddress');
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : '';
  }
  return '';
}

/** Go's case-insensitive field lookup on a settings object (exact name first). */
function pickFold(o: JsonObject, key: string): Json | undefined {
  if (Object.hasOwn(o, key)) return o[key];
  const k = Object.keys(o).find((x) => x.toLowerCase() === key.toLowerCase());
  return k === undefined ? undefined : o[k];
}

/** `hcn.RemoteSubnetRoutePolicySetting` in Go's field order (no omitempty). */
function rsrSettings(s: { prefix: string; vni: number; pa: string; mac: string }): JsonObject {
  return {
    DestinationPrefix: s.prefix,
    IsolationId: s.vni,
    ProviderAddress: s.pa,
    DistributedRouterMacAddress: s.mac,
  };
}

const READY_INTERVAL = 5_000;
const READY_TIMEOUT = 45_000;

export class FlanneldVxlan extends FlanneldBackend {
  protected readonly backendName = 'vxlan';
  static readonly backendType = 'vxlan';
  #network: VxlanNetwork | undefined;
  /** `dev.link`: the network ensureNetwork returned (absent after its nil-error timeout path). */
  #linkName: string | undefined;

  get network(): VxlanNetwork | undefined {
    return this.#network;
  }

  /** The MTU flanneld writes to subnet.env (`MTU()`). */
  get mtu(): number {
    return this.ext.iface.mtu - ENCAP_OVERHEAD;
  }

  /** `RegisterNetwork` with the node's lease: returns the lease to publish, with VNI and VtepMAC. */
  async setup(lease: Lease): Promise<VxlanNetwork> {
    const own = parseLease({ ...lease, backendType: lease.backendType ?? FlanneldVxlan.backendType });
    const cfg = vxlanConfig(this.options.backend);
    this.logEntry(
      'I',
      `VXLAN config: Name=${cfg.name} MacPrefix=${cfg.macPrefix} VNI=${cfg.vni} Port=${cfg.port} GBP=${cfg.gbp} DirectRouting=${cfg.directRouting}`,
    );
    const hcn = this.host.hcn;
    await hcn.remoteSubnetSupported();

    let link: HostComputeNetwork | undefined;
    try {
      link = await this.#ensureNetwork(cfg, own);
    } catch (e) {
      if (e instanceof GoPanic) throw e;
      throw wrap('failed to create VXLAN network', e);
    }
    this.#linkName = link?.Name;

    let network: HostComputeNetwork;
    try {
      network = await hcn.getNetworkByName(cfg.name);
    } catch (e) {
      throw wrap('failed to get HNS network', e);
    }
    let drMac = '';
    for (const p of network.Policies) {
      if (p.Type !== 'DrMacAddress') continue;
      const s = p.Settings;
      if (s !== undefined && s !== null && !isJsonObject(s)) throw new Error('failed to unmarshal settings');
      const a = isJsonObject(s) ? pickFold(s, 'Address') : undefined;
      if (a !== undefined && a !== null && typeof a !== 'string')
        throw new Error('failed to unmarshal settings');
      drMac = typeof a === 'string' ? a : '';
    }
    const mac = parseMAC(drMac);
    if (!mac) throw new Error(`cannot parse DR MAC ${drMac}: ${macError(drMac)}`);

    // the physical interface must be ready before the lease is published again
    try {
      await this.#checkHostNetworkReady(network);
    } catch {
      throw new Error(
        `interface bound to ${network.Name} took too long to get ready. Please check your network host configuration`,
      );
    }
    const vtepMac = macString(mac);
    this.watcher = new LeaseWatcher(own.subnet, (level, message) => this.logEntry(level, message));
    this.#network = {
      name: cfg.name,
      networkId: network.ID,
      managementIp: managementIpOf(network),
      vni: cfg.vni,
      vtepMac,
      mtu: this.mtu,
      lease: { ...own.lease, vni: cfg.vni, vtepMac },
    };
    return this.#network;
  }

  /** `newVXLANDevice` + `ensureNetwork`. */
  async #ensureNetwork(cfg: VxlanConfig, own: ParsedLease): Promise<HostComputeNetwork | undefined> {
    const hcn = this.host.hcn;
    const prefix = subnetText(own.subnet);
    const expected = {
      Type: 'Overlay',
      Name: cfg.name,
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: prefix,
              Routes: [{ NextHop: fmt(own.subnet.addr + 1), DestinationPrefix: '0.0.0.0/0' }],
              Policies: [{ Type: 'VSID', Settings: { IsolationId: cfg.vni } }],
            },
          ],
        },
      ],
      Flags: 8,
      SchemaVersion: { Major: 2, Minor: 0 },
      ...(this.ext.iface.name !== ''
        ? { Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: this.ext.iface.name } }] }
        : {}),
    };

    let existing: HostComputeNetwork | undefined;
    try {
      existing = await hcn.getNetworkByName(cfg.name);
    } catch {
      existing = undefined;
    }
    let create = true;
    if (existing && existing.Type === expected.Type) {
      const ipam = existing.Ipams[0];
      if (!ipam) throw indexOutOfRange(0, 0);
      const subnet = (ipam.Subnets ?? [])[0];
      if (!subnet) throw indexOutOfRange(0, 0);
      if ((subnet.IpAddressPrefix ?? '') === prefix) {
        create = false;
        this.logEntry('I', `Found existing HostComputeNetwork ${cfg.name}`);
      }
    }

    let result = existing;
    if (create) {
      if (existing) {
        try {
          await existing.delete();
        } catch (e) {
          throw wrap(`failed to delete existing HostComputeNetwork ${cfg.name}`, e);
        }
        this.logEntry('I', `Deleted stale HostComputeNetwork ${cfg.name}`);
      }
      this.logEntry('I', `Attempting to create HostComputeNetwork ${cfg.name}`);
      let created: HostComputeNetwork;
      try {
        created = await hcn.createNetwork(expected);
      } catch (e) {
        throw wrap(`failed to create HostComputeNetwork ${cfg.name}`, e);
      }
      this.logEntry('I', `Waiting to get ManagementIP from HostComputeNetwork ${cfg.name}`);
      let lastErr: unknown;
      let got: HostComputeNetwork | undefined;
      const ok = await this.pollUntil(WAIT_INTERVAL, WAIT_TIMEOUT, async () => {
        try {
          got = await hcn.getNetworkByID(created.ID);
          lastErr = undefined;
        } catch (e) {
          got = undefined;
          lastErr = e;
        }
        return got !== undefined && managementIpOf(got) !== '';
      });
      if (!ok) {
        // errors.Wrapf(lastErr, …) with a nil lastErr is nil: ensureNetwork "succeeds" with no network
        if (lastErr === undefined) return undefined;
        throw wrap(`timeout, failed to get management IP from HostComputeNetwork ${cfg.name}`, lastErr);
      }
      try {
        await this.#checkHostNetworkReady(got!);
      } catch (e) {
        throw wrap(
          `Interface bound to ${cfg.name} took too long to get ready. Please check your network host configuration`,
          e,
        );
      }
      this.logEntry('I', `Created HostComputeNetwork ${cfg.name}`);
      result = got!;
    }

    const net = result!;
    if (!net.Policies.some((p) => p.Type === 'HostRoute')) {
      try {
        await net.addPolicy({ Policies: [{ Type: 'HostRoute', Settings: {} }] });
      } catch {
        this.logEntry(
          'I',
          'Could not apply HostRoute policy for local host to local pod connectivity. This policy requires Windows 18321.1000.19h1_release.190117-1502 or newer',
        );
      }
    }
    return net;
  }

  /** `checkHostNetworkReady`: an interface must hold the network's management IP (5 s polls, 45 s). */
  async #checkHostNetworkReady(network: HostComputeNetwork): Promise<void> {
    const managementIp = managementIpOf(network);
    this.logEntry(
      'I',
      `Waiting to get net interface for HostComputeNetwork ${network.Name} (${managementIp})`,
    );
    let v4: number;
    try {
      v4 = parseIP4(managementIp);
    } catch (e) {
      throw wrap(`Failed to parse management ip (${managementIp})`, e);
    }
    const ok = await this.pollUntil(READY_INTERVAL, READY_TIMEOUT, () => {
      try {
        const iface = getInterfaceByIP(this.host, v4);
        this.logEntry('I', `Host interface: ${iface.name} bound by ${network.Name} ready`);
        return Promise.resolve(true);
      } catch {
        return Promise.resolve(false);
      }
    });
    if (!ok) {
      throw wrap(
        `timeout, failed to get net interface for HostComputeNetwork ${network.Name} (${managementIp})`,
        DEADLINE_EXCEEDED,
      );
    }
  }

  /** `handleSubnetEvents`. HNS policy failures are ignored, as flanneld ignores them. */
  protected async handle(batch: LeaseBatch): Promise<void> {
    const hcn = this.host.hcn;
    for (const event of batch) {
      const l = event.lease;
      const type = l.lease.backendType ?? FlanneldVxlan.backendType;
      if (type.toLowerCase() !== FlanneldVxlan.backendType) {
        this.logEntry('W', `ignoring non-vxlan subnet(${subnetText(l.subnet)}): type=${type}`);
        continue;
      }
      const attrs = leaseAttrs(l.lease);
      if ('error' in attrs) {
        this.logEntry('E', `error decoding subnet lease JSON: ${attrs.error}`);
        continue;
      }
      if (attrs.vni < DEFAULT_VNI) {
        this.logEntry(
          'E',
          `VNI is ${attrs.vni} but it is required to be greater than or equal to 4096 on Windows.`,
        );
        continue;
      }
      if (this.#linkName === undefined) {
        throw nilDereference();
      }
      let network: HostComputeNetwork;
      try {
        network = await hcn.getNetworkByName(this.#linkName);
      } catch (e) {
        this.logEntry('E', `Unable to find network ${this.#linkName}, error: ${(e as Error).message}`);
        continue;
      }
      const settings = {
        prefix: subnetText(l.subnet),
        vni: attrs.vni,
        pa: fmt(l.publicIp),
        mac: macString(attrs.mac),
      };
      if (event.type === 'added') {
        for (const p of network.Policies) {
          if (p.Type !== 'RemoteSubnetRoute') continue;
          const have = decodeRsr(p.Settings);
          if (have.error) this.logEntry('E', 'Failed to unmarshal settings');
          if (have.settings.prefix !== settings.prefix) continue;
          await ignore(
            network.removePolicy({
              Policies: [{ Type: 'RemoteSubnetRoute', Settings: rsrSettings(have.settings) }],
            }),
          );
        }
        if (settings.mac !== '') {
          await ignore(
            network.addPolicy({ Policies: [{ Type: 'RemoteSubnetRoute', Settings: rsrSettings(settings) }] }),
          );
        }
      } else if (settings.mac !== '') {
        await ignore(
          network.removePolicy({
            Policies: [{ Type: 'RemoteSubnetRoute', Settings: rsrSettings(settings) }],
          }),
        );
      }
    }
  }
}

async function ignore(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch {
    // flanneld does not look at AddPolicy / RemovePolicy errors
  }
}

/**
 * `json.Unmarshal(policy.Settings, &RemoteSubnetRoutePolicySetting{})`: keys matched without case;
 * a field of the wrong type is left zero and the error reported (decoding goes on, as Go's does).
 */
function decodeRsr(s: Json | undefined): {
  settings: { prefix: string; vni: number; pa: string; mac: string };
  error: boolean;
} {
  const out = { prefix: '', vni: 0, pa: '', mac: '' };
  if (s === undefined || s === null) return { settings: out, error: false };
  if (!isJsonObject(s)) return { settings: out, error: true };
  let error = false;
  const str = (k: string): string => {
    const v = pickFold(s, k);
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    error = true;
    return '';
  };
  out.prefix = str('DestinationPrefix');
  out.pa = str('ProviderAddress');
  out.mac = str('DistributedRouterMacAddress');
  const vni = pickFold(s, 'IsolationId');
  if (typeof vni === 'number' && Number.isInteger(vni) && vni >= 0 && vni <= 0xffff) out.vni = vni;
  else if (vni !== undefined && vni !== null) error = true;
  return { settings: out, error };
}
