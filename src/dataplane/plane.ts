/**
 * The packet path of one Windows host (reference vfp-dataplane.md §1–§6, kubernetes-windows.md §1):
 * the container's own routes, the VFP layers of its vSwitch port in their order (ACL → load
 * balancing → OutBoundNAT → routes → encapsulation / MAC rewrite, and the reverse inbound), the
 * vSwitch, the host's TCP/IP stack (routes, forwarding, WinNAT, NodePorts) and the uplink. Every
 * decision comes from the HNS state compiled into a HostView (src/vswitch/view.ts), recompiled when
 * the store's generation moves. The walk (src/dataplane/walk.ts) records each step; the underlay
 * carries what leaves the host.
 *
 * The choices where Windows is undocumented are options (DataplaneOptions) and docs/model.md
 * ("Dataplane") gives each with its evidence.
 */
import { hnsError } from '../core/errors.js';
import type { HnsService } from '../hns/service.js';
import { evaluateAcls, type AclOptions } from '../vswitch/acl.js';
import { ICMP, withPacket, type Packet, type RuleRef } from '../vswitch/contracts.js';
import {
  encapRuleName,
  LAYER,
  lbDsrRuleName,
  lbRuleName,
  MAC_REWRITE_RULE,
  outboundNatExceptionRuleName,
  portMappingRuleName,
  snatRuleName,
} from '../vswitch/names.js';
import {
  compileHostView,
  lbKey,
  vniOf,
  type HostInterfaceView,
  type HostView,
  type LbView,
  type NetworkView,
  type PortView,
} from '../vswitch/view.js';
import { contains, fmt, fmtPrefix, ip4, prefix4, prefixArg, type Prefix4 } from '../vswitch/v4.js';
import { flowKey, replyOf, tupleKey, type CtRewrite } from './conntrack.js';
import type { NetNode, Walk } from './walk.js';

/** Choices where Windows is silent or configurable (docs/model.md, "Dataplane"). */
export interface DataplaneOptions {
  /** ACL tie-break and default-deny scope (reference §2.2, §2.3). */
  readonly acl?: AclOptions;
  /**
   * What an outbound ACL sees of a packet to a load-balanced VIP: the VIP (`vip`, default: the ACL
   * layer comes before the load balancer on the way out, reference §1.3) or the chosen backend
   * (`dip`).
   */
  readonly egressAclSees?: 'vip' | 'dip';
  /** Whether the host stack forwards between its interfaces (default true, as flannel sets it). */
  readonly ipForwarding?: boolean;
  /** Whether the node reaches its own NodePorts (default false: a documented limitation). */
  readonly localNodePort?: boolean;
  /** The dynamic port range SNAT draws from (default 49152–65535). */
  readonly snatPortRange?: readonly [number, number];
  /** Ports each non-DSR load balancer reserves from that range (default 64: one block). */
  readonly lbPortBlock?: number;
}

/** A route of the host's default compartment (`Get-NetRoute`). */
export interface HostRoute {
  readonly dest: Prefix4;
  /** 0 = on-link. */
  readonly nextHop: number;
  readonly iface: string;
  readonly metric: number;
  readonly origin: 'Connected' | 'Default' | 'User' | 'HostRoute';
}

/** A route a user (or flannel host-gw) adds: `New-NetRoute -DestinationPrefix … -NextHop …`. */
export interface RouteSpec {
  readonly destinationPrefix: string;
  readonly nextHop?: string;
  /** The interface; default: the one whose subnet holds the next hop. */
  readonly interfaceAlias?: string;
  readonly metric?: number;
}

const DEFAULT_SNAT_RANGE: readonly [number, number] = [49152, 65535];
/** The on-link prefix of a host without an uplink address: 0.0.0.0/32. */
const NO_UPLINK = prefix4(0, 32);

/** A 32-bit mix (murmur3's finaliser) of a seed and some integers: deterministic LB choices. */
export function mix(seed: number, ...values: number[]): number {
  let h = seed >>> 0;
  for (const v of values) {
    h ^= v >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h >>> 0;
}

/** A route a user added, validated: the route, and its next hop as given (RemoveRoute matches the text). */
interface UserRoute {
  readonly route: HostRoute;
  readonly nextHopText: string | undefined;
}

/** A Network's rule reference (its name when it has one), with the step's policy, layer and rule. */
function networkRef(net: NetworkView, rest: Omit<RuleRef, 'kind' | 'id' | 'name'>): RuleRef {
  return net.name
    ? { kind: 'Network', id: net.id, name: net.name, ...rest }
    : { kind: 'Network', id: net.id, ...rest };
}

export class HostPlane implements NetNode {
  readonly kind = 'Windows' as const;
  private cached: HostView | undefined;
  private routeTable: HostRoute[] | undefined;
  private routeGen = -1;
  private readonly userRoutes: UserRoute[] = [];
  private userGen = 0;

  constructor(
    readonly name: string,
    private readonly hns: HnsService,
    readonly options: DataplaneOptions = {},
  ) {}

  /** The compiled vSwitch state, recompiled after any HNS change. */
  view(): HostView {
    const gen = this.hns.store.generation;
    if (!this.cached || this.cached.generation !== gen) {
      this.cached = compileHostView({
        store: this.hns.store,
        generation: gen,
        ...(this.options.acl ? { acl: this.options.acl } : {}),
      });
    }
    return this.cached;
  }

  /** A number that moves whenever the answer of a trace through this host could. */
  generation(): number {
    return this.hns.store.generation * 1024 + this.userGen;
  }

  // ───────────────────────────── host routes ─────────────────────────────

  /** Add a route to the host's default compartment; errors: bad prefix/next hop, no interface. */
  addRoute(spec: RouteSpec): HostRoute {
    const dest = prefixArg(spec.destinationPrefix, 'DestinationPrefix');
    const nh = spec.nextHop === undefined ? 0 : ip4(spec.nextHop);
    if (nh === undefined) throw hnsError('E_INVALIDARG', `NextHop "${spec.nextHop}" is not an IPv4 address`);
    if (spec.metric !== undefined && (!Number.isInteger(spec.metric) || spec.metric < 0))
      throw hnsError('E_INVALIDARG', `RouteMetric must be an integer ≥ 0`);
    const iface = this.routeInterface(spec.interfaceAlias, nh);
    if (!iface) {
      throw hnsError(
        'ERROR_NOT_FOUND',
        spec.interfaceAlias
          ? `no interface "${spec.interfaceAlias}"`
          : `no interface reaches next hop ${spec.nextHop ?? '(on-link)'}`,
      );
    }
    const route: HostRoute = {
      dest,
      nextHop: nh,
      iface: iface.name,
      metric: spec.metric ?? 256,
      origin: 'User',
    };
    const dup = this.routes().some(
      (r) =>
        r.origin === 'User' &&
        r.dest.addr === dest.addr &&
        r.dest.len === dest.len &&
        r.nextHop === nh &&
        r.iface === iface.name &&
        r.metric === route.metric,
    );
    // New-NetRoute: "Instance MSFT_NetRoute already exists"
    if (dup)
      throw hnsError(
        'ERROR_OBJECT_ALREADY_EXISTS',
        `route ${spec.destinationPrefix} via ${spec.nextHop ?? 'on-link'} on ${iface.name}`,
      );
    this.userRoutes.push({ route, nextHopText: spec.nextHop });
    this.userGen++;
    return { ...route };
  }

  /** Remove the user routes to a prefix (and via a next hop, when given); how many went. */
  removeRoute(destinationPrefix: string, nextHop?: string): number {
    const dest = prefixArg(destinationPrefix, 'DestinationPrefix');
    const before = this.userRoutes.length;
    for (let i = this.userRoutes.length - 1; i >= 0; i--) {
      const { route: r, nextHopText } = this.userRoutes[i]!;
      if (
        r.dest.addr === dest.addr &&
        r.dest.len === dest.len &&
        (nextHop === undefined || nextHopText === nextHop)
      )
        this.userRoutes.splice(i, 1);
    }
    if (this.userRoutes.length !== before) this.userGen++;
    return before - this.userRoutes.length;
  }

  private routeInterface(alias: string | undefined, nh: number): HostInterfaceView | undefined {
    const ifs = this.view().hostIfs;
    if (alias) return ifs.find((i) => i.name.toLowerCase() === alias.toLowerCase());
    if (nh === 0) return undefined;
    return ifs.find((i) => contains(i.prefix, nh));
  }

  /** The host's route table: connected subnets, default routes, user routes (Get-NetRoute). */
  routes(): readonly HostRoute[] {
    const view = this.view();
    const gen = this.generation();
    if (this.routeTable && this.routeGen === gen) return this.routeTable;
    const out: HostRoute[] = [];
    for (const i of view.hostIfs) {
      if (i.kind === 'Physical' && i.switchId) continue; // bound to a switch: the vNIC holds the address
      out.push({ dest: i.prefix, nextHop: 0, iface: i.name, metric: 256, origin: 'Connected' });
    }
    for (const i of view.hostIfs) {
      if (i.kind === 'Physical' && i.switchId) continue;
      if (i.gateway && i.kind !== 'EndpointVNic')
        out.push({ dest: prefix4(0, 0), nextHop: i.gateway, iface: i.name, metric: 256, origin: 'Default' });
    }
    // HostRoute (flannel, Calico): the host reaches the pods of its overlay networks through the
    // switch's host vNIC
    for (const n of view.networks.values()) {
      if (n.type !== 'Overlay' || !n.hostRoute || !n.switchId) continue;
      const vnic = view.switches.get(n.switchId)?.hostVnic;
      if (!vnic) continue;
      for (const s of n.subnets)
        out.push({ dest: s.prefix, nextHop: 0, iface: vnic.name, metric: 256, origin: 'HostRoute' });
    }
    for (const { route } of this.userRoutes) {
      const iface = view.hostIfs.find((i) => i.name.toLowerCase() === route.iface.toLowerCase());
      if (!iface) continue; // the interface went with its network: Windows drops its routes
      out.push({ ...route, iface: iface.name });
    }
    this.routeTable = out;
    this.routeGen = gen;
    return out;
  }

  /** Longest prefix, then lowest metric. */
  lookupRoute(dst: number, exclude?: (r: HostRoute) => boolean): HostRoute | undefined {
    let best: HostRoute | undefined;
    for (const r of this.routes()) {
      if (!contains(r.dest, dst) || exclude?.(r)) continue;
      if (!best || r.dest.len > best.dest.len || (r.dest.len === best.dest.len && r.metric < best.metric))
        best = r;
    }
    return best;
  }

  private iface(name: string): HostInterfaceView | undefined {
    return this.view().hostIfs.find((i) => i.name === name);
  }

  // ───────────────────────────── addresses ─────────────────────────────

  /** The host's primary address: its uplink's (HostView.uplink), else its first interface's. */
  primaryIp(): number {
    const v = this.view();
    return v.uplink?.ip ?? v.hostIfs[0]?.ip ?? 0;
  }

  /** The host's MAC on the wire (the uplink's). */
  hostMac(): number {
    return this.view().uplink?.mac ?? 0;
  }

  /** Whether an address is the host's own (any interface of compartment 1). */
  ownsIp(ip: number): boolean {
    return this.view().hostIfByIp.has(ip);
  }

  // ───────────────────────────── helpers ─────────────────────────────

  private unNat(w: Walk, p: Packet, component: 'NAT' | 'LB' | 'Conntrack' = 'Conntrack'): Packet {
    const r = w.ct.getNat(tupleKey(this.name, p));
    if (!r) return p;
    const after = withPacket(p, { srcIp: r.srcIp, srcPort: r.srcPort, dstIp: r.dstIp, dstPort: r.dstPort });
    w.step(
      this.name,
      component,
      r.kind === 'SNAT' ? 'UnSNAT' : r.kind === 'DNAT' ? 'UnDNAT' : 'UnNAT',
      p,
      after,
      r.rule,
      'reply of a tracked connection: its translation is undone',
    );
    return after;
  }

  private track(w: Walk, after: Packet, back: Packet, kind: CtRewrite['kind'], rule: RuleRef): void {
    // the reply of `after` must come back as the reply of `back`
    const reply = replyOf(after);
    const want = replyOf(back);
    w.ct.setNat(tupleKey(this.name, reply), {
      srcIp: want.srcIp,
      srcPort: want.srcPort,
      dstIp: want.dstIp,
      dstPort: want.dstPort,
      kind,
      rule,
    });
    // and the next packet of the same flow gets the same translation (the flow, not the rules)
    w.ct.setNat(this.flowNatKey(back, kind), {
      srcIp: after.srcIp,
      srcPort: after.srcPort,
      dstIp: after.dstIp,
      dstPort: after.dstPort,
      kind,
      rule,
    });
  }

  private flowNatKey(p: Packet, kind: CtRewrite['kind']): string {
    return `flow|${kind}|${tupleKey(this.name, p)}`;
  }

  /** The translation an earlier packet of this flow got, if any (its SNAT port is kept). */
  private flowNat(w: Walk, p: Packet, kind: CtRewrite['kind']): CtRewrite | undefined {
    return w.ct.getNat(this.flowNatKey(p, kind));
  }

  /** Draw an SNAT port for `ip`/`proto`; undefined when the pool is exhausted. */
  private snatPort(w: Walk, ip: number, proto: number, endpoint?: string, max = 0): number | undefined {
    const [lo, hi] = this.options.snatPortRange ?? DEFAULT_SNAT_RANGE;
    const reserved = this.view().nonDsrLbs * (this.options.lbPortBlock ?? 64);
    const pool = `${this.name}|${ip}|${proto}`;
    if (endpoint && max > 0 && w.ct.portsInUse(`${pool}|${endpoint}`) >= max) return undefined;
    for (let port = lo + reserved; port <= hi; port++) {
      if (w.ct.portUsed(pool, port)) continue;
      w.ct.takePort(pool, port);
      if (endpoint) w.ct.takePort(`${pool}|${endpoint}`, port);
      return port;
    }
    return undefined;
  }

  private chooseBackend(w: Walk, lb: LbView, p: Packet): number {
    const n = lb.backends.length;
    const key = `${this.name}|${lb.id}`;
    const forced = w.forced.get(key);
    let i: number;
    if (forced !== undefined) i = forced % n;
    else {
      const seed = w.world.seed;
      const h =
        lb.distribution === 2
          ? mix(seed, p.srcIp)
          : lb.distribution === 1
            ? mix(seed, p.srcIp, p.proto)
            : mix(seed, p.srcIp, p.srcPort, p.dstIp, p.dstPort, p.proto);
      i = h % n;
    }
    w.lbChoices.push({ host: this.name, lb: lb.id, count: n, chosen: i });
    return i;
  }

  private portRef(
    port: PortView,
    policy: string,
    index: number | undefined,
    layer: string,
    rule: string,
  ): RuleRef {
    return {
      kind: 'Endpoint',
      id: port.id,
      ...(port.name ? { name: port.name } : {}),
      policy,
      ...(index !== undefined ? { index } : {}),
      layer,
      rule,
    };
  }

  /** Rule refs per load balancer, side and VIP; an LbView belongs to one compiled view, so none goes stale. */
  private readonly lbRefs = new WeakMap<LbView, Map<number, RuleRef>>();

  /**
   * The rule a load balancer's step names: on a container port LB_DSR (DSR) or SLB_NAT_LAYER; on
   * the host side (NodePorts, external IPs, host-originated service traffic) SLB_LB_LAYER, with the
   * management IP in the VIP slot of a NodePort (SDN-health).
   */
  private lbRef(lb: LbView, vip: number, side: 'port' | 'host' = 'port'): RuleRef {
    let memo = this.lbRefs.get(lb);
    if (!memo) this.lbRefs.set(lb, (memo = new Map()));
    const key = side === 'host' ? -1 - vip : vip;
    let ref = memo.get(key);
    if (!ref) memo.set(key, (ref = this.computeLbRef(lb, vip, side)));
    return ref;
  }

  private computeLbRef(lb: LbView, vip: number, side: 'port' | 'host'): RuleRef {
    const slot = lb.vips.length ? vip : this.primaryIp();
    return {
      ...lb.ref,
      layer: side === 'host' ? LAYER.SLB_LB : lb.dsr ? LAYER.LB_DSR : LAYER.SLB_NAT,
      rule: lb.dsr
        ? lbDsrRuleName(lb.id, this.primaryIp(), slot, lb.externalPort, lb.internalPort, lb.protocol)
        : lbRuleName(lb.id, slot, lb.externalPort, lb.protocol),
    };
  }

  private findLb(p: Packet, wildcard: boolean): LbView | undefined {
    if (p.proto !== 6 && p.proto !== 17) return undefined;
    const lbs = this.view().lbs;
    return (
      lbs.get(lbKey(p.proto, p.dstIp, p.dstPort)) ??
      (wildcard ? lbs.get(lbKey(p.proto, '*', p.dstPort)) : undefined)
    );
  }

  // ───────────────────────────── container egress ─────────────────────────────

  /**
   * A container (or the host, for a packet it originates towards a local port) sends `p` from
   * `port`. `p` carries addresses and ports; MACs are filled in here.
   */
  sendFromPort(w: Walk, port: PortView, p0: Packet): void {
    const host = this.name;
    // the container's routing: connected subnet, its Routes, its gateway
    const hop = this.containerNextHop(port, p0.dstIp);
    if (!hop) {
      w.count(host, port.id, 'droppedOut');
      return w.stop(
        host,
        'Container',
        'NoRoute',
        p0,
        'NoRoute',
        `no route to ${fmt(p0.dstIp)} in the container`,
      );
    }
    const p = withPacket(p0, {
      srcMac: port.mac,
      dstMac: this.nextHopMac(port, hop.onLink ? p0.dstIp : hop.nextHop),
    });
    w.step(
      host,
      'Container',
      'Sent',
      p0,
      p,
      undefined,
      hop.onLink ? `${fmt(p0.dstIp)} is on-link` : `via gateway ${fmt(hop.nextHop)}`,
    );
    w.count(host, port.id, 'sent');
    this.portEgress(w, port, p, hop.onLink ? p.dstIp : hop.nextHop, false);
  }

  /** The container's next hop for `dst`: on its subnet, by its Routes, or by its gateway. */
  containerNextHop(port: PortView, dst: number): { nextHop: number; onLink: boolean } | undefined {
    if (port.ip && contains(prefix4(port.ip, port.prefixLen), dst)) return { nextHop: dst, onLink: true };
    let best: { len: number; nextHop: number } | undefined;
    for (const r of port.routes) {
      if (contains(r.dest, dst) && (!best || r.dest.len > best.len))
        best = { len: r.dest.len, nextHop: r.nextHop };
    }
    if (best) return best.nextHop ? { nextHop: best.nextHop, onLink: false } : { nextHop: dst, onLink: true };
    const gw = this.subnetGateway(port);
    return gw ? { nextHop: gw, onLink: false } : undefined;
  }

  private subnetGateway(port: PortView): number {
    for (const s of port.network.subnets) if (contains(s.prefix, port.ip)) return s.gateway;
    return 0;
  }

  /** The MAC a container's frame to `hop` carries: a local port's, a host interface's, the DR MAC. */
  private nextHopMac(port: PortView, hop: number): number {
    const v = this.view();
    const local = v.localByIp.get(hop);
    if (local) return local.mac;
    const hi = v.hostIfByIp.get(hop);
    if (hi) return hi.mac;
    if (port.network.type === 'Overlay' && port.network.drMac) return port.network.drMac;
    return this.hostMac();
  }

  /**
   * The VFP pipeline of a port, outbound (container → switch): ACL, load balancing, OutBoundNAT,
   * routes, then forwarding (vSwitch, encapsulation, MAC rewrite, uplink or host stack). A reply of
   * an allowed flow skips the rules (stateful layers).
   */
  portEgress(w: Walk, port: PortView, p: Packet, nextHop: number, fromHost: boolean): void {
    const host = this.name;
    if (w.ct.isEstablished(flowKey(host, port.id, 'Out', p))) {
      w.step(
        host,
        'Conntrack',
        'Established',
        p,
        p,
        undefined,
        'reply of an allowed flow: the port rules are skipped',
      );
      const un = this.unNat(w, p);
      return this.forward(w, port, un, this.hopAfter(port, p, un, nextHop), fromHost, undefined);
    }
    const dipFirst = this.options.egressAclSees === 'dip';
    if (!dipFirst && !this.aclStage(w, port, 'Out', p)) return;
    // load balancing (LB_DSR on every local pod port; SLB for non-DSR)
    const lb = this.findLb(p, false);
    let balanced: { packet: Packet; target: PortView } | undefined;
    if (lb) {
      balanced = this.applyLb(w, lb, p, 'port');
      if (!balanced) return;
      if (dipFirst) w.ct.establish(flowKey(host, port.id, 'In', replyOf(p)));
    }
    const cur = balanced?.packet ?? p;
    if (dipFirst && !this.aclStage(w, port, 'Out', cur)) return;
    // OutBoundNAT (and loopback DSR)
    const natted = this.outboundNat(w, port, cur, lb ? { lb, vip: p.dstIp } : undefined);
    if (!natted) return;
    this.forward(w, port, natted, this.hopAfter(port, p, natted, nextHop), fromHost, balanced?.target);
  }

  /** The next hop once a layer rewrote `before` into `after`: a new destination is routed anew. */
  private hopAfter(port: PortView, before: Packet, after: Packet, nextHop: number): number {
    if (after.dstIp === before.dstIp) return nextHop;
    const h = this.containerNextHop(port, after.dstIp);
    return h ? (h.onLink ? after.dstIp : h.nextHop) : after.dstIp;
  }

  /**
   * A port's ACL layer (and WFP) in one direction: records the verdict and its rule, ends the walk
   * on a denial, and on an allow records the flow its replies will belong to.
   */
  private aclStage(w: Walk, port: PortView, dir: 'In' | 'Out', p: Packet): boolean {
    const host = this.name;
    const acls = port.acls();
    const v = evaluateAcls(acls, dir, p.proto, p.srcIp, p.srcPort, p.dstIp, p.dstPort);
    if (acls.any) {
      // no ACL at all: VFP has no rule to show
      const rule = v.rule ?? {
        kind: 'Endpoint',
        id: port.id,
        policy: 'ACL',
        layer: v.stage === 'WFP' ? LAYER.WFP : LAYER.ACL,
        rule: v.by,
      };
      const detail =
        v.by === 'rule' ? `${v.stage} ${dir}` : `${v.stage} ${dir}: ${v.by} (the endpoint has ACL policies)`;
      w.step(host, 'ACL', v.allowed ? 'Allowed' : 'Denied', p, p, rule, detail);
    }
    if (!v.allowed) {
      w.count(host, port.id, dir === 'In' ? 'droppedIn' : 'droppedOut');
      w.finish(
        dir === 'In' ? 'DeniedIn' : 'DeniedOut',
        host,
        p,
        dir === 'In' ? `endpoint:${port.id}` : undefined,
      );
      return false;
    }
    w.ct.establish(flowKey(host, port.id, dir === 'In' ? 'Out' : 'In', replyOf(p)));
    return true;
  }

  /** DNAT to a backend (DSR: at the client's port; otherwise also SNAT to the source VIP). */
  private applyLb(
    w: Walk,
    lb: LbView,
    p: Packet,
    side: 'port' | 'host',
  ): { packet: Packet; target: PortView } | undefined {
    const host = this.name;
    const ref = this.lbRef(lb, p.dstIp, side);
    if (lb.backends.length === 0) {
      w.stop(host, 'LB', 'NoBackend', p, 'NoBackend', 'the load balancer has no endpoints', ref);
      return undefined;
    }
    const i = this.chooseBackend(w, lb, p);
    const b = lb.backends[i]!;
    let after = withPacket(p, { dstIp: lb.preserveDip ? p.dstIp : b.ip, dstPort: lb.internalPort });
    let kind: CtRewrite['kind'] = 'DNAT';
    let detail = `backend ${i + 1} of ${lb.backends.length}: ${fmt(b.ip)}:${lb.internalPort}${b.remote ? ' (remote endpoint)' : ''}`;
    if (lb.preserveDip) detail += ', destination kept as the VIP (PreserveDIP)';
    if (!lb.dsr) {
      const svip = lb.sourceVip || this.primaryIp();
      const prior = this.flowNat(w, p, 'DNAT+SNAT');
      const port = prior && prior.srcIp === svip ? prior.srcPort : this.snatPort(w, svip, p.proto);
      if (port === undefined) {
        w.stop(host, 'LB', 'PortExhausted', p, 'PortExhausted', `no free SNAT port on ${fmt(svip)}`, ref);
        return undefined;
      }
      after = withPacket(after, { srcIp: svip, srcPort: port });
      kind = 'DNAT+SNAT';
      detail += `; source → ${fmt(svip)}:${port} (non-DSR: SourceVIP)`;
    }
    w.step(host, 'LB', kind === 'DNAT' ? 'DNAT' : 'DNAT+SNAT', p, after, ref, detail);
    this.track(w, after, p, kind, ref);
    return { packet: after, target: b };
  }

  /** OutBoundNAT: SNAT to the host (or VirtualIP) unless the destination is an exception. */
  private outboundNat(
    w: Walk,
    port: PortView,
    p: Packet,
    viaLb: { readonly lb: LbView; readonly vip: number } | undefined,
  ): Packet | undefined {
    const host = this.name;
    for (const { s, index, dests, exceptions } of port.outboundNat) {
      if (s.ipv6) continue;
      const inList = (list: readonly Prefix4[]) => list.some((x) => contains(x, p.dstIp));
      if (dests.length && !inList(dests)) continue;
      if (!dests.length && inList(exceptions)) {
        w.step(
          host,
          'NAT',
          'Excepted',
          p,
          p,
          this.portRef(port, 'OutBoundNAT', index, LAYER.SLB_NAT, outboundNatExceptionRuleName()),
          `${fmt(p.dstIp)} is in the OutBoundNAT exceptions: no SNAT`,
        );
        continue;
      }
      const natIp =
        s.virtualIpAddr?.family === 4 ? s.virtualIpAddr.value : port.network.managementIp || this.primaryIp();
      const ref = this.portRef(
        port,
        'OutBoundNAT',
        index,
        LAYER.SLB_NAT,
        snatRuleName(p.proto, port.ip, natIp),
      );
      if (p.proto !== 6 && p.proto !== 17) {
        const { rule: _none, ...policyOnly } = ref;
        w.count(host, port.id, 'droppedOut');
        w.stop(
          host,
          'NAT',
          'Unsupported',
          p,
          'Unsupported',
          `VFP does not transpose ${p.proto === ICMP ? 'ICMP' : `protocol ${p.proto}`} through OutBoundNAT`,
          policyOnly,
        );
        return undefined;
      }
      const prior = this.flowNat(w, p, 'SNAT');
      const sp =
        prior && prior.srcIp === natIp
          ? prior.srcPort
          : this.snatPort(w, natIp, p.proto, port.id, s.maxPortPoolUsage);
      if (sp === undefined) {
        w.count(host, port.id, 'droppedOut');
        w.stop(
          host,
          'NAT',
          'PortExhausted',
          p,
          'PortExhausted',
          s.maxPortPoolUsage
            ? `MaxPortPoolUsage ${s.maxPortPoolUsage} reached or pool empty`
            : `no free SNAT port on ${fmt(natIp)}`,
          ref,
        );
        return undefined;
      }
      const after = withPacket(p, { srcIp: natIp, srcPort: sp });
      w.step(
        host,
        'NAT',
        'SNAT',
        p,
        after,
        ref,
        dests.length ? `${fmt(p.dstIp)} is in Destinations` : undefined,
      );
      this.track(w, after, p, 'SNAT', ref);
      return after;
    }
    if (viaLb && viaLb.lb.dsr && p.dstIp === port.ip) {
      w.count(host, port.id, 'droppedOut');
      w.stop(
        host,
        'LB',
        'Unsupported',
        p,
        'Unsupported',
        'a pod reaching itself through a DSR VIP needs loopback DSR (an OutBoundNAT policy with Destinations = its own IP)',
        this.lbRef(viaLb.lb, viaLb.vip),
      );
      return undefined;
    }
    return p;
  }

  /** After the port's layers: where the packet goes (vSwitch, encapsulation, uplink, host stack). */
  private forward(
    w: Walk,
    port: PortView,
    p: Packet,
    nextHop: number,
    fromHost: boolean,
    target: PortView | undefined,
  ): void {
    const host = this.name;
    const v = this.view();
    const net = port.network;
    const local = target && !target.remote ? target : target ? undefined : v.localByIp.get(p.dstIp);
    if (local) return this.switchTo(w, port, local, p, fromHost);
    // overlay: remote endpoints (kube-proxy) and remote subnets (flannel, Calico)
    if (net.type === 'Overlay') {
      const remote = target?.remote ? target : v.remoteByIp.get(p.dstIp);
      const rs = net.remoteSubnets.lookup(p.dstIp);
      if (remote && remote.pa && remote.network.type === 'Overlay') {
        const vni = vniOf(remote.network, remote.ip) || vniOf(net, port.ip);
        return this.encap(w, net, p, remote.pa, vni, rs?.drMac ?? net.drMac, {
          kind: 'Endpoint',
          id: remote.id,
          ...(remote.name ? { name: remote.name } : {}),
          policy: 'ProviderAddress',
          layer: LAYER.ENCAP,
          rule: encapRuleName(`${fmt(remote.ip)}/32`, remote.pa, vni),
        });
      }
      if (rs) {
        return this.encap(
          w,
          net,
          p,
          rs.pa,
          rs.vni,
          rs.drMac,
          networkRef(net, {
            policy: 'RemoteSubnetRoute',
            index: rs.index,
            layer: LAYER.ENCAP,
            rule: encapRuleName(fmtPrefix(rs.dest), rs.pa, rs.vni),
          }),
        );
      }
    }
    const sw = net.switchId ? v.switches.get(net.switchId) : undefined;
    const toHost = !fromHost && this.ownsIp(p.dstIp);
    // a NeedEncap route: on Overlay the destination must be a remote subnet or endpoint; on the
    // other external types VFP sends it out of the uplink itself, not through the gateway; to one of
    // the host's own addresses (win-bridge's management-IP /32 route) it goes to the host
    const need = fromHost ? undefined : port.sdnRoutes.find((r) => r.needEncap && contains(r.dest, p.dstIp));
    if (need && !toHost) {
      if (net.type !== 'Overlay' && sw?.type === 'External') {
        w.step(
          host,
          'Routing',
          'ToUplink',
          p,
          p,
          need.ref,
          `NeedEncap route to ${fmtPrefix(need.dest)}: out of the uplink`,
        );
        return this.uplinkOut(w, net, p, p.dstIp);
      }
      w.count(host, port.id, 'droppedOut');
      return w.stop(
        host,
        'Routing',
        'NoRoute',
        p,
        'NoRoute',
        `NeedEncap route to ${fmtPrefix(need.dest)}, but no remote subnet or remote endpoint holds ${fmt(p.dstIp)}`,
        need.ref,
      );
    }
    if (need) {
      w.step(
        host,
        'Routing',
        'ToHost',
        p,
        p,
        need.ref,
        `NeedEncap route ${fmtPrefix(need.dest)}: to the host`,
      );
      return this.hostStack(w, p, v.hostIfByIp.get(p.dstIp));
    }
    // an overlay network's HostRoute policy: local pod → local host
    if (toHost && net.type === 'Overlay' && net.hostRoute) {
      const i = net.rec.Policies.findIndex((x) => x.type === 'HostRoute');
      w.step(
        host,
        'Routing',
        'ToHost',
        p,
        p,
        networkRef(net, { policy: 'HostRoute', index: i, layer: LAYER.ROUTE }),
        'HostRoute: a local pod reaches its host',
      );
      return this.hostStack(w, p, v.hostIfByIp.get(p.dstIp));
    }
    const viaRoute = port.sdnRoutes.find((r) => !r.needEncap && r.nextHop && contains(r.dest, p.dstIp));
    if (viaRoute) nextHop = viaRoute.nextHop;
    if (fromHost) {
      return w.stop(host, 'vSwitch', 'NoRoute', p, 'NoRoute', `no port of the switch holds ${fmt(p.dstIp)}`);
    }
    // to a host interface (a host endpoint such as cbr0's .2, or the switch's host vNIC)
    const hi = v.hostIfByIp.get(nextHop);
    if (hi && (hi.switchId === net.switchId || hi.kind === 'EndpointVNic')) {
      w.step(host, 'vSwitch', 'ToHost', p, p, undefined, `to the host through ${hi.name}`);
      return this.hostStack(w, p, hi);
    }
    if (!sw || sw.type !== 'External') {
      w.count(host, port.id, 'droppedOut');
      return w.stop(
        host,
        'vSwitch',
        'NoRoute',
        p,
        'NoRoute',
        sw ? `${sw.type} switch: ${fmt(nextHop)} is not on it` : 'the network has no switch',
      );
    }
    this.uplinkOut(w, net, p, nextHop);
  }

  /** A packet from a container port to another port of this host. */
  private switchTo(w: Walk, from: PortView, to: PortView, p: Packet, fromHost: boolean): void {
    const host = this.name;
    if (to.id === from.id && !fromHost) {
      const back = withPacket(p, { dstMac: to.mac });
      w.step(host, 'vSwitch', 'Hairpin', p, back, undefined, 'back into the sending port');
      return this.portIngress(w, to, back);
    }
    if (from.network.type === 'L2Tunnel' && !fromHost) {
      w.step(
        host,
        'Underlay',
        'Hairpinned',
        p,
        p,
        undefined,
        'L2Tunnel: every packet goes through the virtualization host, where its SDN policy applies',
      );
    }
    const sameNet = to.network.id === from.network.id;
    const sameSubnet = sameNet && contains(prefix4(from.ip, from.prefixLen), to.ip);
    if (sameSubnet || fromHost) {
      const after = withPacket(p, { dstMac: to.mac });
      w.step(host, 'vSwitch', 'Switched', p, after, undefined, `to port ${to.name || to.id}`);
      return this.portIngress(w, to, after);
    }
    if (from.network.switchId && from.network.switchId === to.network.switchId) {
      const after = withPacket(p, { srcMac: this.gatewayMac(from), dstMac: to.mac });
      w.step(
        host,
        'vSwitch',
        'Routed',
        p,
        after,
        undefined,
        `to ${to.network.name || to.network.id}, port ${to.name || to.id}`,
      );
      return this.portIngress(w, to, after);
    }
    // another switch: through the host stack, if the container's gateway leads there
    const hop = this.containerNextHop(from, p.dstIp);
    const hi = hop ? this.view().hostIfByIp.get(hop.nextHop) : undefined;
    if (hi) {
      w.step(host, 'vSwitch', 'ToHost', p, p, undefined, `to the host through ${hi.name}`);
      return this.hostStack(w, p, hi);
    }
    w.count(host, from.id, 'droppedOut');
    w.stop(
      host,
      'vSwitch',
      'NoRoute',
      p,
      'NoRoute',
      `${fmt(p.dstIp)} is on another switch and the container's gateway is not a host interface`,
    );
  }

  private gatewayMac(port: PortView): number {
    return port.network.type === 'Overlay' && port.network.drMac ? port.network.drMac : this.hostMac();
  }

  /** VXLAN encapsulation towards a provider address, then the uplink. */
  private encap(
    w: Walk,
    net: NetworkView,
    p: Packet,
    pa: number,
    vni: number,
    drMac: number,
    rule: RuleRef,
  ): void {
    const host = this.name;
    const src = net.managementIp || this.primaryIp();
    const inner = withPacket(p, { srcMac: net.drMac || p.srcMac, dstMac: drMac || p.dstMac });
    const after = withPacket(inner, {
      outer: {
        srcMac: this.hostMac(),
        dstMac: 0,
        srcIp: src,
        dstIp: pa,
        // the source port hashes the inner flow (RFC 7348 §5), here deterministically
        srcPort:
          49152 + (mix(0, inner.srcIp, inner.dstIp, inner.srcPort, inner.dstPort, inner.proto) % 16384),
        dstPort: net.vxlanPort,
        vni,
      },
    });
    w.step(host, 'Encap', 'Encapsulated', p, after, rule, `VXLAN VNI ${vni} to ${fmt(pa)}:${net.vxlanPort}`);
    if (pa === src) {
      return w.stop(host, 'Encap', 'Loop', after, 'Loop', 'the provider address is this host', rule);
    }
    this.wire(w, after, this.underlayNextHop(pa));
  }

  /** The uplink: L2Bridge/L2Tunnel/Overlay rewrite the source MAC to the host's; Transparent needs spoofing. */
  private uplinkOut(w: Walk, net: NetworkView, p: Packet, nextHop: number): void {
    const host = this.name;
    const v = this.view();
    const sw = net.switchId ? v.switches.get(net.switchId) : undefined;
    let cur = p;
    if (net.type === 'L2Bridge' || net.type === 'L2Tunnel' || net.type === 'Overlay') {
      const after = withPacket(p, { srcMac: this.hostMac() });
      w.step(
        host,
        'MacRewrite',
        'Rewritten',
        p,
        after,
        networkRef(net, { layer: LAYER.MAC_REWRITE, rule: MAC_REWRITE_RULE }),
        'container MAC → host MAC',
      );
      cur = after;
    } else if (cur.srcMac !== this.hostMac() && sw && !sw.macSpoofing) {
      return w.stop(
        host,
        'Port',
        'Dropped',
        cur,
        'DroppedMacSpoofing',
        `${sw.uplinkName ?? 'the uplink'} does not allow MAC spoofing: a frame from container MAC leaves with a foreign source MAC`,
      );
    }
    // the underlay next hop: on the host's subnet directly, else the host's route for it
    const hop = contains(v.uplink?.prefix ?? NO_UPLINK, nextHop) ? nextHop : this.underlayNextHop(cur.dstIp);
    this.wire(w, cur, hop);
  }

  /** The next hop on the underlay for `dst`, by the host's routes through its uplink. */
  private underlayNextHop(dst: number): number {
    const r = this.lookupRoute(dst, (r) => this.iface(r.iface)?.kind === 'EndpointVNic');
    if (!r) return dst;
    return r.nextHop || dst;
  }

  private wire(w: Walk, p: Packet, nextHop: number): void {
    if (w.looping(`${this.name}:uplink`, p)) {
      return w.stop(this.name, 'Underlay', 'Loop', p, 'Loop', 'the packet came this way before');
    }
    w.step(this.name, 'Port', 'Transmitted', p, p, undefined, `on the uplink towards ${fmt(nextHop)}`);
    w.world.underlay.send(w, this, p, nextHop);
  }

  // ───────────────────────────── ingress ─────────────────────────────

  /** The VFP pipeline of a port, inbound: un-NAT, ACL In (unless established), delivery. */
  portIngress(w: Walk, port: PortView, p0: Packet): void {
    const host = this.name;
    const p = this.unNat(w, p0, 'LB');
    if (w.ct.isEstablished(flowKey(host, port.id, 'In', p))) {
      w.step(
        host,
        'Conntrack',
        'Established',
        p,
        p,
        undefined,
        port.acls().any
          ? 'reply of an allowed flow: the ACL rules are skipped'
          : 'reply of a tracked flow (the port has no ACL)',
      );
    } else if (!this.aclStage(w, port, 'In', p)) {
      return;
    }
    const after = withPacket(p, { dstMac: port.mac });
    w.step(
      host,
      'Delivery',
      'Delivered',
      p,
      after,
      undefined,
      port.compartment === 1 ? `to the host through ${port.name || port.id}` : `to ${port.name || port.id}`,
    );
    w.count(host, port.id, 'received');
    w.finish('Delivered', host, after, port.compartment === 1 ? 'host' : `endpoint:${port.id}`);
  }

  /** A frame arrives on the host's uplink from the underlay. */
  receive(w: Walk, p0: Packet): void {
    const host = this.name;
    const v = this.view();
    w.step(host, 'Port', 'Received', p0, p0, undefined, 'on the uplink');
    if (p0.outer) return this.decap(w, p0);
    const p = this.unNat(w, p0, 'NAT');
    // a port of an external switch addressed on the wire (L2Bridge with ToR routes, Transparent)
    const local = v.localByIp.get(p.dstIp);
    if (
      local &&
      local.compartment !== 1 &&
      local.network.switchId &&
      v.switches.get(local.network.switchId)?.type === 'External'
    ) {
      let cur = p;
      if (local.network.type !== 'Transparent') {
        cur = withPacket(p, { dstMac: local.mac });
        w.step(
          host,
          'MacRewrite',
          'Rewritten',
          p,
          cur,
          { kind: 'Network', id: local.network.id, layer: LAYER.MAC_REWRITE, rule: MAC_REWRITE_RULE },
          'host MAC → container MAC',
        );
      }
      return this.portIngress(w, local, cur);
    }
    this.hostStack(w, p, v.uplink, p !== p0, true);
  }

  private decap(w: Walk, p: Packet): void {
    const host = this.name;
    const outer = p.outer!;
    const v = this.view();
    const overlays = [...v.networks.values()].filter((n) => n.type === 'Overlay');
    const byPort = overlays.filter((n) => n.vxlanPort === outer.dstPort);
    if (!byPort.length) {
      return w.stop(
        host,
        'Decap',
        'Dropped',
        p,
        'NoRoute',
        overlays.length
          ? `no overlay network listens on UDP ${outer.dstPort} (this host uses ${[...new Set(overlays.map((n) => n.vxlanPort))].join(', ')})`
          : 'no overlay network on this host',
      );
    }
    const net = byPort.find((n) => n.subnets.some((s) => s.vsid === outer.vni));
    if (!net) {
      return w.stop(
        host,
        'Decap',
        'Dropped',
        p,
        'NoRoute',
        `VNI ${outer.vni} is not an overlay subnet's VSID here (${byPort.flatMap((n) => n.subnets.map((s) => s.vsid)).join(', ')})`,
      );
    }
    const inner = withPacket(p, { outer: undefined });
    w.step(
      host,
      'Decap',
      'Decapsulated',
      p,
      inner,
      networkRef(net, { layer: LAYER.ENCAP }),
      `VXLAN VNI ${outer.vni}`,
    );
    if (net.drMac && inner.dstMac && inner.dstMac !== net.drMac) {
      return w.stop(
        host,
        'Decap',
        'Dropped',
        inner,
        'NoRoute',
        `inner destination MAC is not the network's DR MAC: the sender's RemoteSubnetRoute has the wrong DistributedRouterMacAddress`,
      );
    }
    const p2 = this.unNat(w, inner, 'NAT');
    const local = v.localByIp.get(p2.dstIp);
    if (local) return this.portIngress(w, local, p2);
    if (p2 !== inner || this.ownsIp(p2.dstIp)) return this.hostStack(w, p2, v.uplink, p2 !== inner);
    w.stop(host, 'Decap', 'NoRoute', p2, 'NoRoute', `no local endpoint holds ${fmt(p2.dstIp)}`);
  }

  // ───────────────────────────── host stack ─────────────────────────────

  /**
   * The host's TCP/IP stack (compartment 1): a packet the host sends (`inIf` undefined) or one
   * arriving on one of its interfaces. Delivers what is for the host (after NodePorts, external
   * IPs and port mappings), else routes it (forwarding, WinNAT).
   */
  hostStack(w: Walk, p0: Packet, inIf: HostInterfaceView | undefined, reply = false, fromWire = false): void {
    const host = this.name;
    const p = this.unNat(w, p0, 'NAT');
    if (w.looping(`${host}:stack`, p)) {
      return w.stop(host, 'HostStack', 'Loop', p, 'Loop', 'the packet came this way before');
    }
    // service traffic the host originates: the host vNIC's SLB layer (LocalRoutedVIP)
    if (!inIf) {
      const lb = this.findLb(p, false);
      if (lb && lb.localRoutedVip) {
        const r = this.applyLb(w, lb, p, 'host');
        if (!r) return;
        return this.toBackend(w, r.target, r.packet, false);
      }
    }
    const own = this.ownsIp(p.dstIp);
    // an external IP (a VIP the underlay routes to this node) arriving from the wire
    if (inIf && !own) {
      const ext = this.findLb(p, false);
      if (ext && !(ext.ilb && fromWire)) {
        const r = this.applyLb(w, ext, p, 'host');
        if (!r) return;
        return this.toBackend(w, r.target, r.packet, true);
      }
    }
    if (own) {
      // NodePort / external IP load balancers and port mappings answer on the host's addresses
      const found = this.findLb(p, true);
      // an ILB port mapping serves only traffic from inside (pods), not from the wire
      const lb = found && !(found.ilb && fromWire) ? found : undefined;
      if (lb) {
        if (!inIf && !this.options.localNodePort) {
          return w.stop(
            host,
            'HostStack',
            'Unsupported',
            p,
            'Unsupported',
            'a node cannot reach its own NodePort (documented limitation; option localNodePort)',
            this.lbRef(lb, p.dstIp, 'host'),
          );
        }
        const r = this.applyLb(w, lb, p, 'host');
        if (!r) return;
        return this.toBackend(w, r.target, r.packet, true);
      }
      const pm = this.findPortMapping(p);
      if (pm) {
        const { port, index, s } = pm;
        const after = withPacket(p, { dstIp: port.ip, dstPort: s.internalPort });
        const ref = this.portRef(
          port,
          'PortMapping',
          index,
          LAYER.SLB_NAT,
          portMappingRuleName(p.proto, s.externalPort, s.internalPort),
        );
        w.step(
          host,
          'NAT',
          'DNAT',
          p,
          after,
          ref,
          `host port ${s.externalPort} → ${fmt(port.ip)}:${s.internalPort}`,
        );
        this.track(w, after, p, 'DNAT', ref);
        return this.hostToPort(w, port, after);
      }
      w.step(host, 'HostStack', 'Delivered', p, p, undefined, `${fmt(p.dstIp)} is this host's address`);
      return w.finish('Delivered', host, p, 'host');
    }
    if (inIf && this.options.ipForwarding === false) {
      return w.stop(host, 'HostStack', 'Dropped', p, 'NoRoute', `IP forwarding is disabled on ${inIf.name}`);
    }
    // an Internal network is host-only: the host does not route its containers' traffic elsewhere
    const internal = inIf?.switchId ? this.view().switches.get(inIf.switchId) : undefined;
    if (internal && internal.networks.some((n) => n.type === 'Internal')) {
      return w.stop(
        host,
        'HostStack',
        'Dropped',
        p,
        'NoRoute',
        `${inIf!.name} is the host vNIC of an Internal (host-only) network: not forwarded`,
      );
    }
    this.routeOut(w, p, inIf !== undefined, reply || p !== p0);
  }

  /**
   * The host stack hands a load-balanced packet to its backend: a local port through the switch; a
   * remote endpoint of an overlay network encapsulated to its provider address (node-to-node
   * forwarding); any other remote one by the host's routes.
   */
  private toBackend(w: Walk, t: PortView, p: Packet, forwarded: boolean): void {
    if (!t.remote) return this.hostToPort(w, t, p);
    const net = t.network;
    if (net.type === 'Overlay') {
      const rs = net.remoteSubnets.lookup(p.dstIp);
      const pa = t.pa || rs?.pa || 0;
      if (pa) {
        const vni = vniOf(net, t.ip) || rs?.vni || 0;
        return this.encap(w, net, p, pa, vni, rs?.drMac ?? net.drMac, {
          kind: 'Endpoint',
          id: t.id,
          policy: 'ProviderAddress',
          layer: LAYER.ENCAP,
          rule: encapRuleName(`${fmt(t.ip)}/32`, pa, vni),
        });
      }
    }
    this.routeOut(w, p, forwarded);
  }

  private findPortMapping(
    p: Packet,
  ): { port: PortView; index: number; s: PortView['portMappings'][number]['s'] } | undefined {
    if (p.proto !== 6 && p.proto !== 17) return undefined;
    for (const port of this.view().ports.values()) {
      if (port.remote) continue;
      for (const { s, index } of port.portMappings) {
        if (s.ipv6 || s.protocol !== p.proto || s.externalPort !== p.dstPort) continue;
        if (s.vipAddr && s.vipAddr.family === 4 && s.vipAddr.value !== p.dstIp) continue;
        return { port, index, s };
      }
    }
    return undefined;
  }

  /** The host hands a packet to a local port (through its host vNIC and the switch). */
  private hostToPort(w: Walk, port: PortView, p: Packet, through?: HostInterfaceView): void {
    const v = this.view();
    const viaIf =
      through ??
      v.hostIfs.find(
        (i) => i.switchId === port.network.switchId && (i.kind === 'EndpointVNic' || i.kind === 'HostVNic'),
      );
    if (port.network.type === 'Overlay' && viaIf?.kind === 'EndpointVNic' && !port.network.hostRoute) {
      return w.stop(
        this.name,
        'HostStack',
        'NoRoute',
        p,
        'NoRoute',
        `the overlay network has no HostRoute policy: the host does not reach its pods`,
      );
    }
    const after = withPacket(p, { srcMac: viaIf?.mac ?? this.hostMac(), dstMac: port.mac });
    w.step(
      this.name,
      'vSwitch',
      'Switched',
      p,
      after,
      undefined,
      `from the host to port ${port.name || port.id}`,
    );
    this.portIngress(w, port, after);
  }

  /** Route a packet out of the host stack (forwarded when `forwarded`). */
  private routeOut(w: Walk, p0: Packet, forwarded: boolean, reply = false): void {
    const host = this.name;
    let p = p0;
    if (forwarded && p.ttl <= 1) {
      return w.stop(host, 'HostStack', 'TtlExceeded', p, 'TtlExceeded');
    }
    const r = this.lookupRoute(p.dstIp);
    if (!r) {
      return w.stop(host, 'HostStack', 'NoRoute', p, 'NoRoute', `no route to ${fmt(p.dstIp)}`);
    }
    const out = this.iface(r.iface)!;
    const hop = r.nextHop || p.dstIp;
    const v = this.view();
    // WinNAT: inbound only through port mappings; the internal prefix is not routed to from outside
    const outSwitch = out.switchId ? v.switches.get(out.switchId) : undefined;
    const intoNat = outSwitch?.networks.find((n) => n.type === 'NAT' || n.type === 'ICS');
    if (forwarded && !reply && intoNat && !intoNat.subnets.some((s) => contains(s.prefix, p.srcIp))) {
      return w.stop(
        host,
        'NAT',
        'Dropped',
        p,
        'NoRoute',
        `${intoNat.name || intoNat.id} is behind WinNAT: reachable from outside only through a port mapping`,
        networkRef(intoNat, { layer: 'WinNAT' }),
      );
    }
    // WinNAT: an internal NAT network's traffic leaving through another interface
    const natNet = [...v.networks.values()].find(
      (n) =>
        (n.type === 'NAT' || n.type === 'ICS') &&
        n.subnets.some((s) => contains(s.prefix, p.srcIp)) &&
        n.switchId !== out.switchId,
    );
    if (natNet && !reply) {
      if (p.proto !== 6 && p.proto !== 17 && p.proto !== ICMP) {
        return w.stop(
          host,
          'NAT',
          'Unsupported',
          p,
          'Unsupported',
          `WinNAT does not translate protocol ${p.proto}`,
        );
      }
      const prior = this.flowNat(w, p, 'SNAT');
      const sp =
        p.proto === ICMP
          ? p.srcPort
          : prior && prior.srcIp === out.ip
            ? prior.srcPort
            : this.snatPort(w, out.ip, p.proto);
      const ref = networkRef(natNet, {
        layer: 'WinNAT',
        rule: `NetNat ${fmtPrefix(natNet.subnets[0]!.prefix)}`,
      });
      if (sp === undefined) {
        return w.stop(host, 'NAT', 'PortExhausted', p, 'PortExhausted', undefined, ref);
      }
      const after = withPacket(p, { srcIp: out.ip, srcPort: sp });
      w.step(host, 'NAT', 'SNAT', p, after, ref, `WinNAT: ${natNet.name || natNet.id} → ${fmt(out.ip)}`);
      this.track(w, after, p, 'SNAT', ref);
      p = after;
    }
    // the frame leaves through `out`: its MAC, and one TTL less when forwarded
    const sent = withPacket(p, {
      srcMac: out.mac || this.hostMac(),
      ...(forwarded ? { ttl: p.ttl - 1 } : {}),
    });
    w.step(
      host,
      'HostStack',
      forwarded ? 'Forwarded' : 'Routed',
      p,
      sent,
      {
        kind: 'Host',
        id: host,
        policy: 'Route',
        layer: 'HostStack',
        rule: `${fmtPrefix(r.dest)} via ${r.nextHop ? fmt(r.nextHop) : 'on-link'} dev ${r.iface}`,
      },
      `${fmtPrefix(r.dest)} → ${r.nextHop ? fmt(r.nextHop) : 'on-link'} on ${r.iface}`,
    );
    if (out.kind === 'EndpointVNic' || out.kind === 'HostVNic') {
      const target = v.localByIp.get(hop);
      if (target && target.network.switchId === out.switchId && target.compartment !== 1)
        return this.hostToPort(w, target, sent, out);
      if (out.kind === 'EndpointVNic') {
        return w.stop(
          host,
          'vSwitch',
          'NoRoute',
          sent,
          'NoRoute',
          `no port of ${out.name}'s switch holds ${fmt(hop)}`,
        );
      }
      if (!outSwitch || outSwitch.type !== 'External') {
        return w.stop(
          host,
          'vSwitch',
          'NoRoute',
          sent,
          'NoRoute',
          `${out.name} is on an ${outSwitch?.type ?? 'unknown'} switch and no port holds ${fmt(hop)}`,
        );
      }
    }
    this.wire(w, sent, hop);
  }

  /** The host sends a packet (node → pod, node → outside). */
  sendFromHost(w: Walk, p0: Packet): void {
    const host = this.name;
    const src = p0.srcIp || this.sourceFor(p0.dstIp);
    const p = withPacket(p0, { srcIp: src });
    w.step(host, 'HostStack', 'Sent', p0, p, undefined, `from ${fmt(src)}`);
    this.hostStack(w, p, undefined);
  }

  /** The source address the host picks for `dst`: its outgoing interface's. */
  sourceFor(dst: number): number {
    const r = this.lookupRoute(dst);
    return (r && this.iface(r.iface)?.ip) || this.primaryIp();
  }
}
