/**
 * azure-vnet-ipam's address manager (ACN v1.8.12 `ipam/manager.go`, `ipam/pool.go`,
 * `ipam/azure.go`; reference azure-cni.md §5): address spaces hold pools keyed by subnet, pools
 * hold address records keyed by address text. The Azure source fills the `local` space from the
 * wireserver's interface document — one pool per `IPSubnet` of an interface matched to a host
 * interface by MAC, one record per non-primary address — and merges each refresh into the stored
 * space by epoch (new records added; vanished ones dropped, or kept as unhealthy while in use and
 * dropped on release). A pool's gateway is its subnet's host 1; its DNS is 168.63.129.16.
 *
 * Go ranges over maps in random order where the code picks "any" pool or address; here every map
 * keeps insertion order (the document's order, then records added later), so a choice is the
 * first that qualifies (docs/model.md, "azure-vnet-ipam"). What upstream only logs (an interface
 * no host interface matches, a subnet or address it cannot use) is skipped silently, and a failed
 * refresh goes only to the manager's `log` (the plugin's log file is not modelled).
 */
import {
  formatIp,
  formatPrefix,
  parseIp,
  parsePrefix,
  prefixContains,
  type IpAddr,
  type Prefix,
} from '../../addr/ip.js';
import type { NetInterface } from '../../cni/contracts.js';
import { decodeInterfaceDocument } from './xml.js';
import { checkServerVersion, IPV6_SUBNET_SIZE_LIMIT, retrieveKubernetesPodIps } from './ipv6.js';
import type { KubeClient } from './kube.js';

export const LOCAL_ADDRESS_SPACE = 'local';

/** One interface of the wireserver document, its prefixes and secondary addresses parsed. */
interface ParsedInterface {
  readonly mac: string;
  /** The file source matches MACs exactly (no `*`). */
  readonly exact?: boolean;
  readonly isPrimary: boolean;
  readonly subnets: readonly { readonly subnet: Prefix | undefined; readonly addrs: readonly Addressed[] }[];
}

/** A secondary address of a document, with its text (the record's key). */
interface Addressed {
  readonly addr: IpAddr;
  readonly text: string;
}

/** The non-primary addresses of a subnet, parsed (one that does not parse is skipped). */
function addressesOf<T>(list: readonly T[], primary: (a: T) => boolean, text: (a: T) => string): Addressed[] {
  const out: Addressed[] = [];
  for (const a of list) {
    if (primary(a)) continue;
    const addr = parseIp(text(a));
    if (addr) out.push({ addr, text: formatIp(addr) });
  }
  return out;
}

/** The last wireserver document decoded, by its text (a node answers the same one until it changes). */
let lastDocument: { readonly text: string; readonly interfaces: readonly ParsedInterface[] } | undefined;

/**
 * `decodeInterfaceDocument` with each subnet's prefix and each non-primary address parsed; the
 * last text's result is reused (it is only read, and addresses are values).
 */
function interfaceDocument(text: string): readonly ParsedInterface[] {
  if (lastDocument?.text !== text) {
    const interfaces = decodeInterfaceDocument(text).map((i) => ({
      mac: i.macAddress.toLowerCase(),
      isPrimary: i.isPrimary,
      subnets: i.subnets.map((s) => ({
        subnet: parsePrefix(s.prefix),
        addrs: addressesOf(
          s.addresses,
          (a) => a.isPrimary,
          (a) => a.address,
        ),
      })),
    }));
    lastDocument = { text, interfaces };
  }
  return lastDocument.interfaces;
}
/** `ipam.LocalScope`: the scope of the `local` space. */
const LOCAL_SCOPE = 0;
/** The Azure DNS host proxy every pool answers as its DNS server. */
export const DNS_HOST_PROXY = '168.63.129.16';

/** ACN `ipam/api.go`'s errors that reach the plugin's output, by their texts. */
export const IPAM_ERRORS = {
  invalidAddressSpace: 'Invalid address space',
  invalidPoolId: 'Invalid address pool',
  invalidConfiguration: 'Invalid configuration',
  poolNotFound: 'Address pool not found',
  addressNotFound: 'Address not found',
  addressInUse: 'Address already in use',
  noAvailableAddresses: 'No available addresses',
  noAvailablePools: 'no available address pools',
} as const;

/** A Go `error` of the manager: its text is what the plugin prints after its own prefix. */
export class IpamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IpamError';
  }
}

export interface AddressRecord {
  ID: string;
  readonly addr: IpAddr;
  /** `addr` as text (`formatIp`): the record's key and its `Addr` in the state file. */
  readonly text: string;
  InUse: boolean;
  unhealthy: boolean;
  epoch: number;
}

export interface AddressPool {
  space: AddressSpace | undefined;
  readonly Id: string;
  readonly IfName: string;
  readonly subnet: Prefix;
  readonly gateway: IpAddr;
  readonly addresses: Map<string, AddressRecord>;
  readonly byId: Map<string, AddressRecord>;
  readonly IsIPv6: boolean;
  readonly Priority: number;
  RefCount: number;
  epoch: number;
}

export interface AddressSpace {
  readonly Id: string;
  readonly Scope: number;
  readonly pools: Map<string, AddressPool>;
  epoch: number;
}

/** What `GetPoolInfo` answers. */
export interface PoolInfo {
  readonly subnet: Prefix;
  readonly gateway: IpAddr;
  readonly dnsServers: readonly string[];
  readonly unhealthy: readonly string[];
  readonly isIPv6: boolean;
  readonly available: number;
  readonly capacity: number;
}

/** `platform.GenerateAddress(subnet, ::1)`: the subnet's host 1. */
function hostOne(p: Prefix): IpAddr {
  return p.family === 4 ? { family: 4, value: (p.addr + 1) >>> 0 } : { family: 6, value: p.addr + 1n };
}

/**
 * `as.newAddressPool` for a subnet not in the space yet (undefined when it is: "Address pool
 * already exists", which the source only logs).
 */
function newAddressPool(
  as: AddressSpace,
  ifName: string,
  priority: number,
  subnet: Prefix,
): AddressPool | undefined {
  const id = formatPrefix(subnet);
  if (as.pools.has(id)) return undefined;
  const pool: AddressPool = {
    space: as,
    Id: id,
    IfName: ifName,
    subnet,
    gateway: hostOne(subnet),
    addresses: new Map(),
    byId: new Map(),
    IsIPv6: subnet.family === 6,
    Priority: priority,
    RefCount: 0,
    epoch: as.epoch,
  };
  as.pools.set(id, pool);
  return pool;
}

/**
 * `ap.newAddressRecord`: a record for an address of the pool's subnet not in it yet (upstream's
 * "Invalid address" and "Address already exists" are only logged: the address is skipped).
 */
function newAddressRecord(ap: AddressPool, { addr, text }: Addressed): void {
  if (!prefixContains(ap.subnet, addr) || ap.addresses.has(text)) return;
  ap.addresses.set(text, { ID: '', addr, text, InUse: false, unhealthy: false, epoch: ap.epoch });
}

const isInUse = (ap: AddressPool): boolean => ap.RefCount > 0;
const anyRecordInUse = (ap: AddressPool): boolean =>
  [...ap.addresses.values()].some((r) => r.InUse || r.ID !== '');

/** `as.merge`: fold a refreshed space into the stored one. */
function merge(as: AddressSpace, fresh: AddressSpace): void {
  as.epoch++;
  for (const [pk, pv] of fresh.pools) {
    const ap = as.pools.get(pk);
    if (!ap) {
      as.pools.set(pk, pv);
      pv.space = as;
      pv.epoch = as.epoch;
    } else {
      for (const [ak, av] of pv.addresses) {
        const ar = ap.addresses.get(ak);
        if (!ar) {
          ap.addresses.set(ak, av);
          av.epoch = as.epoch;
        } else {
          ar.epoch = as.epoch;
          ar.unhealthy = false;
        }
      }
      pv.addresses.clear();
      pv.space = undefined;
    }
  }
  fresh.pools.clear();
  for (const [pk, pv] of as.pools) {
    if (pv.epoch >= as.epoch) continue;
    for (const [ak, av] of pv.addresses) {
      if (av.epoch === as.epoch) pv.epoch = as.epoch;
      else if (av.InUse) {
        pv.epoch = as.epoch;
        av.unhealthy = true;
      } else pv.addresses.delete(ak);
    }
    if (pv.epoch < as.epoch && !isInUse(pv)) {
      pv.space = undefined;
      as.pools.delete(pk);
    }
  }
}

/** `as.releasePool`: the pool's RefCount drops to 0 unless some record is in use or tagged. */
function releasePool(as: AddressSpace, poolId: string): void {
  const ap = as.pools.get(poolId);
  if (!ap) throw new IpamError(IPAM_ERRORS.poolNotFound);
  if (!anyRecordInUse(ap)) ap.RefCount = 0;
}

/** `as.requestPool`. */
function requestPool(as: AddressSpace, poolId: string, ifName: string, v6: boolean): AddressPool {
  let ap: AddressPool | undefined;
  if (poolId !== '') {
    ap = as.pools.get(poolId);
    if (!ap) throw new IpamError(IPAM_ERRORS.poolNotFound);
  } else {
    for (const pool of as.pools.values()) {
      if (isInUse(pool)) {
        // in case the pool is not really in use, try to release it
        releasePool(as, pool.Id);
        if (isInUse(pool)) continue;
      }
      if (pool.IsIPv6 !== v6) continue;
      if (ifName !== '' && ifName !== pool.IfName) continue;
      if (!ap) {
        ap = pool;
        continue;
      }
      if (pool.Priority > ap.Priority) ap = pool;
      if (pool.addresses.size > ap.addresses.size) ap = pool;
    }
    if (!ap) throw new IpamError(IPAM_ERRORS.noAvailablePools);
  }
  if (ap.RefCount === 0) ap.RefCount = 1;
  return ap;
}

/** `ap.requestAddress`: the address in CIDR form (`10.240.0.5/16`). */
function requestAddress(ap: AddressPool, address: string, id: string, gateway: boolean): string {
  let ar: AddressRecord | undefined;
  if (address !== '') {
    ar = ap.addresses.get(address);
    if (!ar) throw new IpamError(IPAM_ERRORS.addressNotFound);
    if (ar.InUse && (id === '' || id !== ar.ID)) throw new IpamError(IPAM_ERRORS.addressInUse);
  } else if (gateway) {
    ar = { ID: '', addr: ap.gateway, text: formatIp(ap.gateway), InUse: false, unhealthy: false, epoch: 0 };
    id = '';
  } else if (id !== '') {
    ar = ap.byId.get(id);
  }
  if (!ar) {
    for (const r of ap.addresses.values()) {
      if (!r.InUse && r.ID === '') {
        ar = r;
        break;
      }
    }
    if (!ar) throw new IpamError(IPAM_ERRORS.noAvailableAddresses);
  }
  if (id !== '') {
    ap.byId.set(id, ar);
    ar.ID = id;
  }
  ar.InUse = true;
  return `${ar.text}/${ap.subnet.len}`;
}

/** `ap.releaseAddress`: a missing, differently tagged or free record is released silently. */
function releaseAddress(ap: AddressPool, address: string, id: string): void {
  let ar: AddressRecord | undefined;
  if (address !== '') {
    ar = ap.addresses.get(address);
    if (!ar && address === formatIp(ap.gateway)) return;
  } else if (id !== '') {
    ar = ap.byId.get(id);
    if (ar) address = ar.text;
  }
  if (!ar || (id !== '' && id !== ar.ID)) return;
  if (!ar.InUse) return;
  ar.InUse = false;
  if (id !== '' && ar.ID === id) {
    ap.byId.delete(ar.ID);
    ar.ID = '';
  }
  if (ar.epoch < (ap.space?.epoch ?? 0)) ap.addresses.delete(address);
}

/** Where the Azure source asks (the node's HTTP client) and what it matches the answer against. */
export interface IpamSource {
  /** The interface document's text, or a thrown error (the stored state is then used). */
  fetch(): string;
  /** The node's interfaces, to match the document's MACs against. */
  interfaces(): readonly NetInterface[];
  /**
   * The `mas` / `fileIpam` source's file (`c:\k\interfaces.json`, ACN `ipam/fileIpam.go`): its
   * text, or undefined when it is missing.
   */
  readFile?(): string | undefined;
  /**
   * The `ipv6NodeIpam` source (ACN `ipam/ipv6Ipam.go`): the node's host name (`os.Hostname()`)
   * and client-go built from the node's kubeconfig (throws client-go's error when it cannot be).
   */
  readonly kubernetes?: {
    hostname(): string;
    client(): KubeClient;
  };
}

/** `fileIpam.go`'s `NetworkInterfaces` JSON, decoded as Go's `encoding/json` would (keys case-insensitive). */
function fileDocument(text: string): readonly ParsedInterface[] {
  const doc = JSON.parse(text) as unknown;
  const get = (o: unknown, k: string): unknown => {
    if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
    const key = Object.keys(o).find((x) => x.toLowerCase() === k.toLowerCase());
    return key === undefined ? undefined : (o as Record<string, unknown>)[key];
  };
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return list(get(doc, 'Interfaces')).map((i) => ({
    // macAddressesEqual: lower case, ':' removed (no wildcard here)
    mac: str(get(i, 'MacAddress')).replaceAll(':', '').toLowerCase(),
    exact: true,
    isPrimary: get(i, 'IsPrimary') === true,
    subnets: list(get(i, 'IPSubnets')).map((sn) => ({
      subnet: parsePrefix(str(get(sn, 'Prefix'))),
      addrs: addressesOf(
        list(get(sn, 'IPAddresses')),
        (a) => get(a, 'IsPrimary') === true,
        (a) => str(get(a, 'Address')),
      ),
    })),
  }));
}

/**
 * The address manager of one plugin process: the stored state, the source (started by
 * `startSource` with the environment the configuration names) and the refresh that runs before
 * each operation — once per process, as the in-memory 10-second interval never passes within one
 * invocation. `save` is called after every change (the plugin writes the state file).
 */
export class AddressManager {
  Version = '';
  TimeStamp = '';
  readonly spaces = new Map<string, AddressSpace>();
  private source: IpamSource | undefined;
  private refreshed = false;

  /**
   * `save`: called after every change (the plugin writes the state file). `log`: the plugin's
   * logger, given what upstream logs and goes on from — a failed refresh is `("Source refresh
   * failed", <the error's text>)`, as `refreshSource`'s `logger.Error(…, zap.Error(err))` — or
   * nothing (the plugin's log file is not modelled).
   */
  constructor(
    private readonly save: () => void,
    private readonly log?: (message: string, error: string) => void,
  ) {}

  /**
   * `StartSource`: `azure` (the wireserver), `mas` and `fileIpam` (`c:\k\interfaces.json`),
   * `ipv6NodeIpam` (the node's IPv6 pod CIDR from the Kubernetes API; `isLoaded` when the stored
   * `local` space has a pool), `null` or '' (none); anything else is refused.
   */
  startSource(environment: string, source: IpamSource): void {
    this.kind = environment;
    switch (environment) {
      case 'azure':
        this.source = source;
        this.fromFile = false;
        return;
      case 'mas':
      case 'fileIpam':
        this.source = source;
        this.fromFile = true;
        return;
      case 'ipv6NodeIpam':
        this.source = source;
        this.v6Loaded = (this.spaces.get(LOCAL_ADDRESS_SPACE)?.pools.size ?? 0) > 0;
        return;
      case 'null':
      case '':
        this.source = undefined;
        return;
      default:
        throw new IpamError(IPAM_ERRORS.invalidConfiguration);
    }
  }

  private fromFile = false;
  private kind = '';
  /** The IPv6 source's `isLoaded`: it asks the Kubernetes API only while false. */
  private v6Loaded = false;

  /** `refreshSource`: a failed refresh is only logged upstream, not returned. */
  private refresh(): void {
    if (!this.source || this.refreshed) return;
    this.refreshed = true;
    try {
      if (this.kind === 'ipv6NodeIpam') this.refreshV6(this.source);
      else this.refreshFrom(this.source);
    } catch (e) {
      // the operation goes on with the stored state
      this.log?.('Source refresh failed', e instanceof Error ? e.message : String(e));
    }
  }

  /** `azureSource.refresh`: the document's pools and records, merged into the `local` space. */
  private refreshFrom(source: IpamSource): void {
    const interfaces = source.interfaces();
    const local: AddressSpace = { Id: LOCAL_ADDRESS_SPACE, Scope: LOCAL_SCOPE, pools: new Map(), epoch: 0 };
    let doc: readonly ParsedInterface[];
    if (this.fromFile) {
      const text = source.readFile?.();
      if (text === undefined)
        throw new Error('open c:\\k\\interfaces.json: The system cannot find the file specified.');
      doc = fileDocument(text);
    } else doc = interfaceDocument(source.fetch());
    for (const i of doc) {
      const mac = i.mac;
      // the first host interface with that MAC ('*': any, wireserver only); a secondary NIC's pools come first
      const iface = interfaces.find(
        (x) => (mac === '*' && !i.exact) || x.mac.replaceAll(':', '').toLowerCase() === mac,
      );
      if (!iface) continue;
      const priority = i.isPrimary ? 0 : 1;
      for (const s of i.subnets) {
        const pool = s.subnet && newAddressPool(local, iface.name, priority, s.subnet);
        if (!pool) continue;
        for (const addr of s.addrs) newAddressRecord(pool, addr);
      }
    }
    this.setAddressSpace(local);
  }

  /**
   * `ipv6IpamSource.refresh`: unless loaded, client-go (kubeconfig, server version > 1.16), the
   * node named as the host in lower case, its IPv6 pod CIDR's first /120 as a pool of the `local`
   * space with a record per address from the third.
   */
  private refreshV6(source: IpamSource): void {
    if (this.v6Loaded) return;
    const kube = source.kubernetes;
    if (!kube) throw new Error('ipv6ipam is nil');
    const client = kube.client();
    checkServerVersion(client.serverVersion());
    const cidrs = client.nodePodCidrs(kube.hostname().toLowerCase());
    const ips = retrieveKubernetesPodIps(cidrs, IPV6_SUBNET_SIZE_LIMIT);
    const local: AddressSpace = { Id: LOCAL_ADDRESS_SPACE, Scope: LOCAL_SCOPE, pools: new Map(), epoch: 0 };
    const subnet = parsePrefix(ips.prefix)!;
    const pool = newAddressPool(local, '', 0, subnet);
    // (`newAddressPool` on a new space always makes the pool)
    for (const a of ips.addresses) {
      const addr = parseIp(a)!;
      newAddressRecord(pool!, { addr, text: formatIp(addr) });
    }
    this.setAddressSpace(local);
    this.v6Loaded = true;
  }

  /** `setAddressSpace`: a new space, or merged into the stored one; then saved. */
  setAddressSpace(as: AddressSpace): void {
    const have = this.spaces.get(as.Id);
    if (!have) this.spaces.set(as.Id, as);
    else merge(have, as);
    this.save();
  }

  private space(asId: string): AddressSpace {
    const as = this.spaces.get(asId);
    if (!as) throw new IpamError(IPAM_ERRORS.invalidAddressSpace);
    return as;
  }

  private pool(as: AddressSpace, poolId: string): AddressPool {
    const ap = as.pools.get(poolId);
    if (!ap) throw new IpamError(`Pool id ${poolId} not found :${IPAM_ERRORS.invalidPoolId}`);
    return ap;
  }

  /** `RequestPool`: the pool's ID and subnet. */
  requestPool(asId: string, poolId: string, ifName: string, v6: boolean): { poolId: string; subnet: string } {
    this.refresh();
    const ap = requestPool(this.space(asId), poolId, ifName, v6);
    this.save();
    return { poolId: ap.Id, subnet: formatPrefix(ap.subnet) };
  }

  releasePool(asId: string, poolId: string): void {
    this.refresh();
    releasePool(this.space(asId), poolId);
    this.save();
  }

  poolInfo(asId: string, poolId: string): PoolInfo {
    const ap = this.pool(this.space(asId), poolId);
    let available = 0;
    const unhealthy: string[] = [];
    for (const r of ap.addresses.values()) {
      if (!r.InUse) available++;
      if (r.unhealthy) unhealthy.push(r.text);
    }
    return {
      subnet: ap.subnet,
      gateway: ap.gateway,
      dnsServers: [DNS_HOST_PROXY],
      unhealthy,
      isIPv6: ap.IsIPv6,
      available,
      capacity: ap.addresses.size,
    };
  }

  /** `RequestAddress`: `address` '' for any; `id` the container ID (the same one again gets the same address). */
  requestAddress(asId: string, poolId: string, address: string, id: string, gateway = false): string {
    this.refresh();
    const ap = this.pool(this.space(asId), poolId);
    const got = requestAddress(ap, address, id, gateway);
    this.save();
    return got;
  }

  releaseAddress(asId: string, poolId: string, address: string, id: string): void {
    this.refresh();
    const ap = this.pool(this.space(asId), poolId);
    releaseAddress(ap, address, id);
    this.save();
  }
}
