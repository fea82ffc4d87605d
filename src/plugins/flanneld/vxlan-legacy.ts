/**
 * flanneld's first Windows vxlan design (flannel-io/flannel commit e6fc2a29, 2018-09
 * `backend/vxlan/{vxlan_windows,device_windows,vxlan_network_windows}.go`; replaced by
 * RemoteSubnetRoute in ee48092c; reference cni-windows.md §5.3 item 6): an HNS v1 Overlay network
 * with a VSID subnet policy, and for every other node one remote endpoint per possible pod address
 * (S+2 … broadcast−1) named `remote_<ip>`, MAC `<prefix>-<ip as hex>`, with a `PA` policy holding
 * the node's public IP; an endpoint already there with the same PA on this network is kept.
 */
import type { HNSEndpoint, HNSNetwork } from '../../api/hnsv1/types.js';
import { FlanneldBackend, WAIT_INTERVAL, WAIT_TIMEOUT, type LeaseBatch } from './backend.js';
import { marshalNetwork } from '../../api/hnsv1/types.js';
import type { Json } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import { fmt } from '../../vswitch/v4.js';
import { GoPanic, nilDereference } from '../../cni/gopanic.js';
import { conjureMac } from '../../cni/gomac.js';
import { wrap } from './host.js';
import { LeaseWatcher, parseLease, subnetText, type Lease, type ParsedLease } from './lease.js';
import { ENCAP_OVERHEAD, vxlanConfig, type VxlanConfig } from './vxlan.js';

/** What the 2018 design set up. */
export interface LegacyVxlanNetwork {
  readonly name: string;
  /** Absent when the ManagementIP wait timed out without an error (Go returned a nil network). */
  readonly networkId: string | undefined;
  readonly managementIp: string;
  readonly vni: number;
  readonly mtu: number;
  /** The lease to publish: no BackendData in this design. */
  readonly lease: Lease;
}

/** `createEndpointName`. */
export function remoteEndpointName(ip: number): string {
  return `remote_${fmt(ip)}`;
}

/** `ConjureMac`: `%v-%02x-%02x-%02x-%02x`, the prefix as configured and the octets in lower-case hex. */
export { conjureMac };

/** `jsonparser.GetUnsafeString(policy, key)`: a case-sensitive top-level string, else "". */
function rawString(policy: Json | undefined, key: string): string {
  if (!isJsonObject(policy)) return '';
  const v = policy[key];
  return typeof v === 'string' ? v : '';
}

/** The endpoint's PA policy matches the node's public IP. */
function hasPa(ep: HNSEndpoint, pa: string): boolean {
  for (const p of ep.Policies ?? []) {
    if (rawString(p, 'Type') === 'PA' && rawString(p, 'PA') === pa) return true;
  }
  return false;
}

export class FlanneldVxlanLegacy extends FlanneldBackend {
  protected readonly backendName = 'vxlan (2018)';
  static readonly backendType = 'vxlan';
  #cfg: VxlanConfig | undefined;
  #link: HNSNetwork | undefined;
  #network: LegacyVxlanNetwork | undefined;

  get network(): LegacyVxlanNetwork | undefined {
    return this.#network;
  }

  get mtu(): number {
    return this.ext.iface.mtu - ENCAP_OVERHEAD;
  }

  /** `RegisterNetwork` (2018): config, then `newVXLANDevice` → `ensureNetwork`. */
  async setup(lease: Lease): Promise<LegacyVxlanNetwork> {
    const own = parseLease({ ...lease, backendType: lease.backendType ?? FlanneldVxlanLegacy.backendType });
    const cfg = vxlanConfig(this.options.backend);
    this.logEntry(
      'I',
      `VXLAN config: Name=${cfg.name} MacPrefix=${cfg.macPrefix} VNI=${cfg.vni} Port=${cfg.port} GBP=${cfg.gbp} DirectRouting=${cfg.directRouting}`,
    );
    this.#link = await this.#ensureNetwork(cfg, own);
    this.#cfg = cfg;
    this.watcher = new LeaseWatcher(own.subnet, (level, message) => this.logEntry(level, message));
    this.#network = {
      name: cfg.name,
      networkId: this.#link?.ID,
      managementIp: this.#link?.ManagementIP ?? '',
      vni: cfg.vni,
      mtu: this.mtu,
      lease: own.lease,
    };
    return this.#network;
  }

  /** `ensureNetwork(expectedNetwork, VSID, prefix, S+1)` with hcsshim v1 and juju errors. */
  async #ensureNetwork(cfg: VxlanConfig, own: ParsedLease): Promise<HNSNetwork | undefined> {
    const hns = this.host.hns;
    const prefix = subnetText(own.subnet);
    const gateway = fmt(own.subnet.addr + 1);
    let existing: HNSNetwork | undefined;
    try {
      existing = await hns.getNetworkByName(cfg.name);
    } catch {
      existing = undefined;
    }
    if (
      existing &&
      existing.Type === 'Overlay' &&
      (existing.Subnets ?? []).some(
        (s) => (s.AddressPrefix ?? '') === prefix && (s.GatewayAddress ?? '') === gateway,
      )
    ) {
      this.logEntry('I', `Found existing HNSNetwork ${cfg.name}`);
      return existing;
    }
    if (existing) {
      try {
        await hns.deleteNetwork(existing.ID ?? '');
      } catch (e) {
        throw wrap(`failed to delete existing HNSNetwork ${cfg.name}`, e);
      }
      this.logEntry('I', `Deleted stale HNSNetwork ${cfg.name}`);
    }
    const body = JSON.stringify(
      marshalNetwork({
        Name: cfg.name,
        Type: 'Overlay',
        Subnets: [
          { AddressPrefix: prefix, GatewayAddress: gateway, Policies: [{ Type: 'VSID', VSID: cfg.vni }] },
        ],
      }),
    );
    this.logEntry('I', `Attempting to create HNSNetwork ${body}`);
    let network: HNSNetwork | undefined;
    try {
      network = await hns.hnsNetworkRequest('POST', '', body);
    } catch (e) {
      throw wrap(`failed to create HNSNetwork ${cfg.name}`, e);
    }

    // wait.Poll waits an interval before each try; a failed GET leaves the network nil and the
    // next try dereferences it
    this.logEntry('I', `Waiting to get ManagementIP from HNSNetwork ${cfg.name}`);
    let lastErr: unknown;
    const gotIp = await this.#poll(async () => {
      if (!network) throw nilDereference();
      try {
        network = await hns.hnsNetworkRequest('GET', network.ID ?? '', '');
        lastErr = undefined;
      } catch (e) {
        network = undefined;
        lastErr = e;
      }
      return network !== undefined && (network.ManagementIP ?? '') !== '';
    });
    if (!gotIp) {
      // errors.Annotatef(nil, …) is nil: the device gets no network and RegisterNetwork succeeds
      if (lastErr === undefined) return undefined;
      throw wrap(`timeout, failed to get management IP from HNSNetwork ${cfg.name}`, lastErr);
    }
    const managementIp = network!.ManagementIP ?? '';
    this.logEntry('I', `Waiting to get net interface for HNSNetwork ${cfg.name} (${managementIp})`);
    // netsh GetInterfaceByIP: the text of the interface address must equal the management IP
    let ifErr: unknown;
    const gotIf = await this.#poll(() => {
      const found = this.host.adapters().some((a) => a['IPv4Address'] === managementIp);
      ifErr = found ? undefined : new Error(`Interface not found: ${managementIp}`);
      return Promise.resolve(found);
    });
    if (!gotIf)
      throw wrap(`timeout, failed to get net interface for HNSNetwork ${cfg.name} (${managementIp})`, ifErr);
    this.logEntry('I', `Created HNSNetwork ${cfg.name}`);
    return network;
  }

  /** `wait.Poll(500ms, 5s, cond)`: first try after one interval, tries while the timeout is ahead. */
  async #poll(condition: () => Promise<boolean>): Promise<boolean> {
    const clock = this.host.clock;
    const start = clock.now();
    while (clock.now() - start + WAIT_INTERVAL <= WAIT_TIMEOUT) {
      await this.sleep(WAIT_INTERVAL);
      if (await condition()) return true;
    }
    return false;
  }

  /** `handleSubnetEvents` (2018): every address S+2 … broadcast−1 of the remote subnet. */
  protected async handle(batch: LeaseBatch): Promise<void> {
    const cfg = this.#cfg!;
    for (const event of batch) {
      const l = event.lease;
      const type = l.lease.backendType ?? FlanneldVxlanLegacy.backendType;
      if (type.toLowerCase() !== FlanneldVxlanLegacy.backendType) {
        this.logEntry('W', `ignoring non-vxlan subnet(${subnetText(l.subnet)}): type=${type}`);
        continue;
      }
      const publicIp = fmt(l.publicIp);
      const last = (l.subnet.addr + 2 ** (32 - l.subnet.len) - 1) >>> 0;
      for (let ip = l.subnet.addr + 2; ip < last; ip++) {
        const mac = conjureMac(cfg.macPrefix, ip);
        try {
          if (event.type === 'added') await this.#addEndpoint(ip, mac, publicIp);
          else await this.#delEndpoint(ip, publicIp);
        } catch (e) {
          if (e instanceof GoPanic) throw e;
          this.logEntry('E', (e as Error).message);
        }
      }
    }
  }

  /** `AddEndpoint`: keep a matching `remote_<ip>`, else (re)create it. */
  async #addEndpoint(ip: number, mac: string, pa: string): Promise<void> {
    const hns = this.host.hns;
    const link = this.#link;
    if (!link) throw nilDereference();
    const name = remoteEndpointName(ip);
    let existing: HNSEndpoint | undefined;
    try {
      existing = await hns.getEndpointByName(name);
    } catch {
      existing = undefined;
    }
    if (existing && existing.VirtualNetwork === link.ID && hasPa(existing, pa)) {
      this.logEntry('I', `Found existing remote HNSEndpoint ${name}`);
      return;
    }
    if (existing) {
      try {
        await hns.deleteEndpoint(existing.ID ?? '');
      } catch (e) {
        throw wrap(`failed to delete existing remote HNSEndpoint ${name}`, e);
      }
    }
    try {
      await hns.createEndpoint({
        Name: name,
        IPAddress: fmt(ip),
        MacAddress: mac,
        VirtualNetwork: link.ID ?? '',
        IsRemoteEndpoint: true,
        Policies: [{ Type: 'PA', PA: pa }],
      });
    } catch (e) {
      throw wrap(`failed to create remote HNSEndpoint ${name}`, e);
    }
  }

  /** `DelEndpoint`: delete `remote_<ip>` only when it is on this network with this PA. */
  async #delEndpoint(ip: number, pa: string): Promise<void> {
    const hns = this.host.hns;
    const link = this.#link;
    if (!link) throw nilDereference();
    const name = remoteEndpointName(ip);
    let existing: HNSEndpoint | undefined;
    try {
      existing = await hns.getEndpointByName(name);
    } catch {
      return;
    }
    if (existing.VirtualNetwork !== link.ID || !hasPa(existing, pa)) return;
    try {
      await hns.deleteEndpoint(existing.ID ?? '');
    } catch (e) {
      throw wrap(`failed to delete remote HNSEndpoint ${name}`, e);
    }
  }
}
