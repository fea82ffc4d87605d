/**
 * The vSwitch state of one host, compiled from its HNS store (DESIGN: vswitch/; reference
 * vfp-dataplane.md §1–§6): a port per local endpoint with the VFP layers its policies become, the
 * remote endpoints kube-proxy programs, the networks with their overlay routes, the host's
 * interfaces, and the load-balancer index. Compiled once per HNS change (the `generation`),
 * evaluated by every trace; lookups by IP, MAC and VIP are hash maps.
 */
import type { EndpointRec, LoadBalancerRec, NetworkRec } from '../hns/model.js';
import { subnetsOf } from '../hns/model.js';
import type { HnsStore } from '../hns/store.js';
import { thirdPartyForwarding } from '../hns/extensions.js';
import type { HnsVersion } from '../hns/versions.js';
import type { AclSettings } from '../hns/policy/endpoint/acl.js';
import type { OutboundNatSettings } from '../hns/policy/endpoint/outbound-nat.js';
import type { PortMappingSettings } from '../hns/policy/endpoint/port-mapping.js';
import type { SdnRouteSettings } from '../hns/policy/endpoint/sdn-route.js';
import type { TierAclSettings } from '../hns/policy/endpoint/tier-acl.js';
import type { RemoteSubnetRouteSettings } from '../hns/policy/network/remote-subnet-route.js';
import type { SetPolicySettings } from '../hns/policy/network/set-policy.js';
import type { VxlanPortSettings } from '../hns/policy/network/vxlan-port.js';
import type { ProviderAddressSettings } from '../hns/policy/shared/provider-address.js';
import type { VsidSettings } from '../hns/policy/subnet/vsid.js';
import type { DrMacAddressSettings } from '../hns/policy/network/dr-mac-address.js';
import { parseMac } from '../addr/mac.js';
import { isJsonObject, type JsonObject } from '../core/json.js';
import { compileAcls, type AclOptions, type AclSource, type CompiledAcls, type SetResolver } from './acl.js';
import type { RuleRef } from './contracts.js';
import { LAYER, routeRuleName } from './names.js';
import { contains, fmtPrefix, fromPrefix, ip4, Lpm, parsePrefix4, prefix4, type Prefix4 } from './v4.js';

/** The version whose extension list a view without one uses (the ws2022 profile's HNS). */
const DEFAULT_VERSION: HnsVersion = { major: 15, minor: 0 };

/** The VXLAN port HNS uses unless a VxlanPort policy says otherwise. */
const VXLAN_PORT = 4789;

export interface RouteView {
  readonly dest: Prefix4;
  /** 0 = on-link. */
  readonly nextHop: number;
}

export interface RemoteSubnetView {
  readonly dest: Prefix4;
  readonly vni: number;
  readonly pa: number;
  readonly drMac: number;
  readonly index: number;
}

export interface NetworkView {
  readonly rec: NetworkRec;
  readonly id: string;
  readonly name: string;
  readonly type: NetworkRec['Type'];
  readonly switchId: string | undefined;
  readonly subnets: readonly { readonly prefix: Prefix4; readonly gateway: number; readonly vsid: number }[];
  readonly vxlanPort: number;
  /** The distributed-router MAC (reported or given). */
  readonly drMac: number;
  readonly remoteSubnets: Lpm<RemoteSubnetView>;
  /** HostRoute policy: the host reaches local pods of this overlay network. */
  readonly hostRoute: boolean;
  /** The management IP (external switch) or 0. */
  readonly managementIp: number;
}

/** One endpoint: a local one is a vSwitch port; a remote one (Flags 1) a forwarding entry. */
export interface PortView {
  readonly rec: EndpointRec;
  readonly id: string;
  readonly name: string;
  readonly network: NetworkView;
  readonly remote: boolean;
  readonly mac: number;
  /** IPv4 address (0 = none) and its prefix length. */
  readonly ip: number;
  readonly prefixLen: number;
  readonly routes: readonly RouteView[];
  readonly outboundNat: readonly {
    readonly s: OutboundNatSettings;
    readonly index: number;
    /** The IPv4 Destinations and Exceptions, as prefixes. */
    readonly dests: readonly Prefix4[];
    readonly exceptions: readonly Prefix4[];
  }[];
  readonly portMappings: readonly { readonly s: PortMappingSettings; readonly index: number }[];
  /** SDNRoute / v1 ROUTE policies, HCN route objects and v1 ROUTE policy lists applying to the port. */
  readonly sdnRoutes: readonly SdnRouteView[];
  /** ProviderAddress policy (remote endpoints: the node behind them). */
  readonly pa: number;
  /** Namespace (compartment) the endpoint is in, or 0. */
  readonly compartment: number;
  /** Compiled lazily (most traces of a large host touch few ports). */
  acls(): CompiledAcls;
}

export interface SdnRouteView {
  readonly dest: Prefix4;
  readonly needEncap: boolean;
  /** 0 = none given. */
  readonly nextHop: number;
  readonly ref: RuleRef;
}

export interface LbView {
  /** The HCN load balancer, or undefined for a v1 ELB policy list. */
  readonly rec: LoadBalancerRec | undefined;
  readonly id: string;
  /** `LoadBalancer` or `PolicyList` (v1 ELB). */
  readonly ref: RuleRef;
  readonly dsr: boolean;
  readonly protocol: number;
  readonly internalPort: number;
  readonly externalPort: number;
  readonly distribution: number;
  readonly pmFlags: number;
  /** PortMapping flags: ILB 1, LocalRoutedVIP 2, UseMux 4, PreserveDIP 8 (hcsshim). */
  readonly ilb: boolean;
  readonly localRoutedVip: boolean;
  readonly preserveDip: boolean;
  readonly sourceVip: number;
  /** Backends in the load balancer's order, deleted ones included (they keep their address). */
  readonly backends: readonly LbBackend[];
  /** FrontendVIPs (IPv4), empty for a NodePort-style LB that answers on the host's addresses. */
  readonly vips: readonly number[];
}

/**
 * A backend of a load balancer: the endpoint it names and the address its rule holds, the DIP the
 * backend had when the load balancer was created or modified (docs/model.md, "Load balancers").
 * The endpoint may be gone since: the rule still redirects to that address.
 */
export interface LbBackend {
  /** The endpoint ID the load balancer names. */
  readonly id: string;
  /** The IPv4 DIP (0: the backend had none). */
  readonly ip: number;
  /** The named endpoint's port while it exists and holds that address; else undefined. */
  readonly port: PortView | undefined;
  /** Whether the named endpoint still exists (false: a stale backend, deleted since). */
  readonly live: boolean;
  /** A remote endpoint (Flags 1); a gone one is not known to be. */
  readonly remote: boolean;
}

/** A host-side interface: the host vNIC of a switch or an endpoint attached to compartment 1. */
export interface HostInterfaceView {
  readonly name: string;
  readonly mac: number;
  readonly ip: number;
  readonly prefix: Prefix4;
  readonly gateway: number;
  readonly switchId: string | undefined;
  /** The endpoint behind it (a host-attached endpoint), if any. */
  readonly endpoint?: PortView;
  readonly kind: 'HostVNic' | 'EndpointVNic' | 'Physical';
}

export interface SwitchView {
  readonly id: string;
  readonly type: 'External' | 'Internal' | 'Private';
  readonly uplinkName: string | undefined;
  /** Whether the uplink NIC lets frames with other source MACs out. */
  readonly macSpoofing: boolean;
  readonly hostVnic: HostInterfaceView | undefined;
  readonly networks: readonly NetworkView[];
  /**
   * The forwarding extension enabled on the switch in VFP's place (the Open vSwitch Extension), if
   * any: the switch's packets go to it, not through VFP (src/dataplane/extension.ts).
   */
  readonly forwardingExtension?: { readonly id: string; readonly name: string };
}

export interface HostView {
  readonly generation: number;
  readonly networks: ReadonlyMap<string, NetworkView>;
  readonly switches: ReadonlyMap<string, SwitchView>;
  readonly ports: ReadonlyMap<string, PortView>;
  /** Local endpoints by IPv4 address (the first created wins on a duplicate). */
  readonly localByIp: ReadonlyMap<number, PortView>;
  /** Remote endpoints by IPv4 address. */
  readonly remoteByIp: ReadonlyMap<number, PortView>;
  readonly portByMac: ReadonlyMap<number, PortView>;
  /** Ports by lower-case ID (any port), then name, container and namespace ID (local ports). */
  readonly portByRef: ReadonlyMap<string, PortView>;
  /** `proto/vip/port` → LB; NodePort-style LBs (no VIP) under `proto/*\/port`. */
  readonly lbs: ReadonlyMap<string, LbView>;
  readonly lbCount: number;
  /** Load balancers (and v1 ELB lists) without DSR: each holds SNAT port blocks (docs/model.md). */
  readonly nonDsrLbs: number;
  /** Interfaces of the host's default compartment, by IPv4 address. */
  readonly hostIfByIp: ReadonlyMap<number, HostInterfaceView>;
  readonly hostIfs: readonly HostInterfaceView[];
  /**
   * The host's interface on the wire: the external switch's host vNIC, else the physical adapter no
   * switch is bound to (a bound adapter's address moved to its vNIC). Its address is the host's
   * primary one, its MAC the one the host's frames carry.
   */
  readonly uplink: HostInterfaceView | undefined;
}

export function lbKey(proto: number, vip: number | '*', port: number): string {
  return `${proto}/${vip}/${port}`;
}

/** The VNI of `ip` on a network: the VSID of the subnet holding it, else the network's first. */
export function vniOf(net: NetworkView, ip: number): number {
  for (const s of net.subnets) if (contains(s.prefix, ip)) return s.vsid;
  return net.subnets[0]?.vsid ?? 0;
}

function first<T>(policies: EndpointRec['Policies'] | NetworkRec['Policies'], type: string): T | undefined {
  const p = policies.find((x) => x.type === type);
  return p?.settings as T | undefined;
}

function macNum(text: string | undefined): number {
  if (!text) return 0;
  return parseMac(text) ?? 0;
}

/** The IP-set resolver of a network: IPSET prefixes, NESTEDIPSET members flattened (cycles cut). */
function setResolver(net: NetworkRec): SetResolver {
  const sets = new Map<string, SetPolicySettings>();
  for (const p of net.Policies)
    if (p.type === 'SetPolicy')
      sets.set((p.settings as SetPolicySettings).id, p.settings as SetPolicySettings);
  const resolve = (id: string, seen: Set<string>): Prefix4[] | undefined => {
    const s = sets.get(id);
    if (!s || seen.has(id)) return s ? [] : undefined;
    seen.add(id);
    if (s.policyType === 'IPSET')
      return s.prefixes.map(fromPrefix).filter((x): x is Prefix4 => x !== undefined);
    return s.memberSetIds.flatMap((m) => resolve(m, seen) ?? []);
  };
  return (id) => resolve(id, new Set());
}

/** An SDNRoute policy, an HCN route object's setting or a v1 ROUTE policy, as VNET_PA_ROUTE's rule. */
function sdnRouteView(
  dest: Prefix4,
  needEncap: boolean,
  nextHop: number,
  ref: Omit<RuleRef, 'layer' | 'rule'>,
): SdnRouteView {
  return {
    dest,
    needEncap,
    nextHop,
    ref: { ...ref, layer: LAYER.ROUTE, rule: routeRuleName(fmtPrefix(dest), needEncap) },
  };
}

/** An address given as text (a next hop, a gateway, a VIP): its value, or 0 when absent or not IPv4. */
function ip4Or0(text: string | undefined): number {
  return text ? (ip4(text) ?? 0) : 0;
}

/** HCN route objects (HostComputeRoute) and v1 ROUTE policy lists, per endpoint they apply to. */
function collectRouteObjects(store: HnsStore): Map<string, SdnRouteView[]> {
  const out = new Map<string, SdnRouteView[]>();
  const add = (epId: string, r: SdnRouteView) => {
    let list = out.get(epId);
    if (!list) out.set(epId, (list = []));
    list.push(r);
  };
  for (const rt of store.routes.values()) {
    rt.Setting.forEach((st, index) => {
      const dest = parsePrefix4(st.DestinationPrefix);
      if (!dest) return;
      const view = sdnRouteView(dest, st.NeedEncap, ip4Or0(st.NextHop), {
        kind: 'SdnRoute',
        id: rt.ID,
        policy: 'Setting',
        index,
      });
      for (const ep of rt.HostComputeEndpoints) add(ep, view);
    });
  }
  for (const pl of store.policyLists.values()) {
    pl.Policies.forEach((p: JsonObject, index) => {
      if (!isJsonObject(p) || String(p['Type']).toUpperCase() !== 'ROUTE') return;
      const dest =
        typeof p['DestinationPrefix'] === 'string' ? parsePrefix4(p['DestinationPrefix']) : undefined;
      if (!dest) return;
      const nh = typeof p['NextHop'] === 'string' ? p['NextHop'] : undefined;
      const view = sdnRouteView(dest, p['NeedEncap'] === true, ip4Or0(nh), {
        kind: 'PolicyList',
        id: pl.ID,
        policy: 'ROUTE',
        index,
      });
      for (const r of pl.References) add(r.slice(r.lastIndexOf('/') + 1), view);
    });
  }
  return out;
}

export interface ViewInputs {
  readonly store: HnsStore;
  readonly generation: number;
  readonly acl?: AclOptions;
  /** The HNS version (which extensions the host lists); default: the 2022 builds'. */
  readonly version?: HnsVersion;
}

/** Compile the host's HNS state into its vSwitch view. */
export function compileHostView({ store, generation, acl, version }: ViewInputs): HostView {
  const nics = store.nics;
  const networks = new Map<string, NetworkView>();
  /** What every port of a network shares for its ACLs: the IP-set resolver and the NetworkACL policies. */
  const networkAcls = new Map<
    string,
    { readonly sets: SetResolver; readonly sources: readonly AclSource[] }
  >();
  for (const n of store.networks.values()) {
    const sw = nics.switchOf(n.ID);
    const remoteSubnets = new Lpm<RemoteSubnetView>();
    n.Policies.forEach((p, index) => {
      if (p.type !== 'RemoteSubnetRoute') return;
      const s = p.settings as RemoteSubnetRouteSettings;
      const dest = fromPrefix(s.destination);
      if (!dest || s.provider.family !== 4) return;
      remoteSubnets.add(dest, {
        dest,
        vni: s.isolationId,
        pa: s.provider.value,
        drMac: macNum(s.distributedRouterMacAddress),
        index,
      });
    });
    const dr = first<DrMacAddressSettings>(n.Policies, 'DrMacAddress');
    const subnets = subnetsOf(n).flatMap((s) => {
      const prefix = fromPrefix(s.prefix);
      if (!prefix) return [];
      const vsid = s.Policies.find((p) => p.type === 'VSID');
      return [
        {
          prefix,
          gateway: s.gateway?.family === 4 ? s.gateway.value : 0,
          vsid: vsid ? (vsid.settings as VsidSettings).isolationId : 0,
        },
      ];
    });
    networks.set(n.ID, {
      rec: n,
      id: n.ID,
      name: n.Name,
      type: n.Type,
      switchId: sw?.ID,
      subnets,
      vxlanPort: first<VxlanPortSettings>(n.Policies, 'VxlanPort')?.port ?? VXLAN_PORT,
      drMac: macNum(dr?.address ?? n.DrMacAddress),
      remoteSubnets,
      hostRoute: n.Policies.some((p) => p.type === 'HostRoute'),
      managementIp: ip4Or0(nics.managementIp(n.ID)),
    });
    const owner = { kind: 'Network' as const, id: n.ID, ...(n.Name ? { name: n.Name } : {}) };
    const sources: AclSource[] = [];
    n.Policies.forEach((p, index) => {
      if (p.type === 'NetworkACL')
        sources.push({ type: 'NetworkACL', settings: p.settings as AclSettings, owner, index });
    });
    networkAcls.set(n.ID, { sets: setResolver(n), sources });
  }
  const routeObjects = collectRouteObjects(store);
  const ports = new Map<string, PortView>();
  const localByIp = new Map<number, PortView>();
  const remoteByIp = new Map<number, PortView>();
  const portByMac = new Map<number, PortView>();
  const compartmentOf = new Map<string, number>();
  for (const ns of store.namespaces.values()) {
    for (const r of ns.Resources) if (r.Type === 'Endpoint') compartmentOf.set(r.ID, ns.NamespaceId);
  }
  for (const e of store.endpoints.values()) {
    const network = networks.get(e.HostComputeNetwork);
    if (!network) continue;
    const v4 = e.IpConfigurations.find((c) => c.addr.family === 4);
    const remote = (e.Flags & 1) !== 0;
    const routes: RouteView[] = [];
    for (const r of e.Routes) {
      const dest = fromPrefix(r.dest);
      if (!dest) continue;
      routes.push({ dest, nextHop: r.nextHop?.family === 4 ? r.nextHop.value : 0 });
    }
    const outboundNat: PortView['outboundNat'][number][] = [];
    const portMappings: { s: PortMappingSettings; index: number }[] = [];
    const sdnRoutes: SdnRouteView[] = [];
    const aclSources: AclSource[] = [];
    const owner = { kind: 'Endpoint' as const, id: e.ID, ...(e.Name ? { name: e.Name } : {}) };
    e.Policies.forEach((p, index) => {
      if (p.type === 'OutBoundNAT') {
        const s = p.settings as OutboundNatSettings;
        const v4 = (list: OutboundNatSettings['exceptionPrefixes']) =>
          list.map(fromPrefix).filter((x): x is Prefix4 => x !== undefined);
        outboundNat.push({ s, index, dests: v4(s.destinationPrefixes), exceptions: v4(s.exceptionPrefixes) });
      } else if (p.type === 'PortMapping') portMappings.push({ s: p.settings as PortMappingSettings, index });
      else if (p.type === 'SDNRoute') {
        const s = p.settings as SdnRouteSettings;
        // a template placeholder as DestinationPrefix routes nothing
        const dest = s.destination ? fromPrefix(s.destination) : undefined;
        const nextHop = s.nextHopAddr?.family === 4 ? s.nextHopAddr.value : 0;
        if (dest)
          sdnRoutes.push(sdnRouteView(dest, s.needEncap, nextHop, { ...owner, policy: 'SDNRoute', index }));
      } else if (p.type === 'ACL')
        aclSources.push({ type: 'ACL', settings: p.settings as AclSettings, owner, index });
      else if (p.type === 'TierAcl')
        aclSources.push({ type: 'TierAcl', settings: p.settings as TierAclSettings, owner, index });
    });
    const shared = networkAcls.get(network.id)!;
    aclSources.push(...shared.sources);
    const extra = routeObjects.get(e.ID);
    if (extra) sdnRoutes.push(...extra);
    let compiled: CompiledAcls | undefined;
    const pa = first<ProviderAddressSettings>(e.Policies, 'ProviderAddress');
    const view: PortView = {
      rec: e,
      id: e.ID,
      name: e.Name,
      network,
      remote,
      mac: e.mac >= 0 ? e.mac : macNum(e.MacAddress),
      ip: v4 && v4.addr.family === 4 ? v4.addr.value : 0,
      prefixLen: v4?.PrefixLength ?? 32,
      routes,
      outboundNat,
      portMappings,
      sdnRoutes,
      pa: pa && pa.address.family === 4 ? pa.address.value : 0,
      compartment: compartmentOf.get(e.ID) ?? 0,
      acls: () => (compiled ??= compileAcls(aclSources, shared.sets, acl)),
    };
    ports.set(e.ID, view);
    if (view.ip) {
      const table = remote ? remoteByIp : localByIp;
      if (!table.has(view.ip)) table.set(view.ip, view);
    }
    if (!remote && view.mac) portByMac.set(view.mac, view);
  }
  const portByRef = new Map<string, PortView>();
  const ref = (k: string, p: PortView) => {
    if (!k.includes('{') && !k.includes('}') && !portByRef.has(k)) portByRef.set(k, p);
  };
  for (const p of ports.values()) ref(p.id.toLowerCase(), p);
  for (const p of ports.values()) if (!p.remote && p.name) ref(p.name.toLowerCase(), p);
  for (const p of ports.values()) {
    if (p.remote) continue;
    for (const c of p.rec.SharedContainers) ref(c.toLowerCase(), p);
    if (p.rec.HostComputeNamespace) ref(p.rec.HostComputeNamespace.toLowerCase(), p);
  }
  // host interfaces of compartment 1: switch host vNICs, then endpoints attached to the host
  const hostIfs: HostInterfaceView[] = [];
  for (const a of nics.list()) {
    if (!a.IPv4) continue;
    const sw = a.SwitchId ? nics.switches.get(a.SwitchId) : undefined;
    hostIfs.push({
      name: a.Name,
      mac: macNum(a.MacAddress),
      ip: a.IPv4.addr,
      prefix: prefix4(a.IPv4.addr, a.IPv4.PrefixLength),
      gateway: ip4Or0(a.IPv4.DefaultGateway),
      switchId: sw?.ID,
      kind: a.Kind === 'Physical' ? 'Physical' : 'HostVNic',
    });
  }
  for (const p of ports.values()) {
    if (p.remote || p.compartment !== 1 || !p.ip) continue;
    const net = p.network;
    const gw = p.routes.find((r) => r.dest.len === 0)?.nextHop ?? 0;
    hostIfs.push({
      name: `vEthernet (${p.name || p.id})`,
      mac: p.mac,
      ip: p.ip,
      prefix: prefix4(p.ip, p.prefixLen),
      gateway: gw,
      switchId: net.switchId,
      endpoint: p,
      kind: 'EndpointVNic',
    });
  }
  const hostIfByIp = new Map<number, HostInterfaceView>();
  for (const h of hostIfs) if (!hostIfByIp.has(h.ip)) hostIfByIp.set(h.ip, h);
  const switches = new Map<string, SwitchView>();
  for (const s of nics.switches.values()) {
    const uplink = s.NetAdapterName ? nics.adapters.get(s.NetAdapterName.toLowerCase()) : undefined;
    const fwd = thirdPartyForwarding(s, version ?? DEFAULT_VERSION);
    switches.set(s.ID, {
      id: s.ID,
      type: s.SwitchType,
      uplinkName: s.NetAdapterName,
      macSpoofing: uplink?.MacAddressSpoofing ?? false,
      hostVnic: hostIfs.find((h) => h.kind === 'HostVNic' && h.switchId === s.ID),
      networks: s.Networks.map((id) => networks.get(id)).filter((n): n is NetworkView => n !== undefined),
      ...(fwd ? { forwardingExtension: { id: fwd.Id, name: fwd.Name } } : {}),
    });
  }
  const lbs = new Map<string, LbView>();
  let nonDsr = 0;
  const addLb = (view: LbView) => {
    // protocol 0 (a v1 ELB without Protocol) answers TCP and UDP
    const protos = view.protocol === 0 ? [6, 17] : [view.protocol];
    for (const proto of protos) {
      const targets: (number | '*')[] = view.vips.length ? [...view.vips] : ['*'];
      for (const v of targets) {
        const k = lbKey(proto, v, view.externalPort);
        if (!lbs.has(k)) lbs.set(k, view.protocol === proto ? view : { ...view, protocol: proto });
      }
    }
  };
  // a backend with no IPv4 address (neither remembered nor on a port) is no IPv4 backend: left out,
  // as an endpoint without a port was before load balancers kept their dead backends
  const backendsOf = (ids: readonly string[], dips: readonly (readonly string[])[]): LbBackend[] => {
    const out: LbBackend[] = [];
    ids.forEach((id, i) => {
      const p = ports.get(id);
      const dip = (dips[i] ?? []).map((a) => ip4(a)).find((v) => v !== undefined);
      const ip = dip ?? p?.ip;
      if (ip === undefined || ip === 0) return;
      const port = p && p.ip === ip ? p : undefined;
      out.push({ id, ip, port, live: store.endpoints.has(id), remote: port?.remote ?? false });
    });
    return out;
  };
  for (const lb of store.loadBalancers.values()) {
    const backends = backendsOf(lb.HostComputeEndpoints, lb.dips);
    const vips = lb.FrontendVIPs.map((v) => ip4(v)).filter((v): v is number => v !== undefined);
    const dsr = (lb.Flags & 1) !== 0;
    if (!dsr) nonDsr++;
    lb.PortMappings.forEach((pm, index) => {
      addLb({
        rec: lb,
        id: lb.ID,
        ref: { kind: 'LoadBalancer', id: lb.ID, policy: 'PortMappings', index },
        dsr,
        protocol: pm.Protocol,
        internalPort: pm.InternalPort,
        externalPort: pm.ExternalPort,
        distribution: pm.DistributionType,
        pmFlags: pm.Flags,
        ilb: (pm.Flags & 1) !== 0,
        localRoutedVip: (pm.Flags & 2) !== 0,
        preserveDip: (pm.Flags & 8) !== 0,
        sourceVip: ip4Or0(lb.SourceVIP),
        backends,
        vips,
      });
    });
  }
  for (const pl of store.policyLists.values()) {
    const ids = pl.References.map((r) => r.slice(r.lastIndexOf('/') + 1));
    const backends = backendsOf(ids, pl.dips);
    pl.Policies.forEach((p, index) => {
      if (String(p['Type']).toUpperCase() !== 'ELB') return;
      const num = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : 0);
      const vips = (Array.isArray(p['VIPs']) ? p['VIPs'] : [])
        .map((v) => (typeof v === 'string' ? ip4(v) : undefined))
        .filter((v): v is number => v !== undefined);
      const dsr = p['IsDSR'] === true;
      if (!dsr) nonDsr++;
      addLb({
        rec: undefined,
        id: pl.ID,
        ref: { kind: 'PolicyList', id: pl.ID, policy: 'ELB', index },
        dsr,
        protocol: num('Protocol'),
        internalPort: num('InternalPort'),
        externalPort: num('ExternalPort'),
        distribution: 0,
        pmFlags: p['ILB'] === true ? 1 : 0,
        ilb: p['ILB'] === true,
        localRoutedVip: false,
        preserveDip: false,
        sourceVip: ip4Or0(typeof p['SourceVIP'] === 'string' ? p['SourceVIP'] : undefined),
        backends,
        vips,
      });
    });
  }
  return {
    generation,
    networks,
    switches,
    ports,
    localByIp,
    remoteByIp,
    portByMac,
    portByRef,
    lbs,
    lbCount: store.loadBalancers.size,
    nonDsrLbs: nonDsr,
    hostIfByIp,
    hostIfs,
    uplink:
      hostIfs.find(
        (h) => h.kind === 'HostVNic' && h.switchId && switches.get(h.switchId)?.type === 'External',
      ) ?? hostIfs.find((h) => h.kind === 'Physical' && !h.switchId),
  };
}
