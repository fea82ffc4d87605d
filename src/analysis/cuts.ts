/**
 * Where forwarding can treat two ports differently (reachability's classes): the values and ranges
 * that anything on a path compares a TCP or UDP port with, ACLs aside (they are analysed as sets).
 * Ports that no value equals and that every range holds or misses alike are forwarded alike, so
 * one walk answers for all of them (`portGroups`).
 *
 * The sources, each read from the model's own state: load balancers' frontend ports (VFP's
 * `lbKey(proto, VIP or *, port)`: per VIP, or for every address when VIP-less), PortMapping
 * policies and NetNat static mappings (external ports), a Linux node's kube-proxy services (per
 * ClusterIP), Azure's platform endpoints (wireserver DNS 53, TCP 80 and 32526; IMDS TCP 80), NSG
 * port ranges (both sides), NetworkPolicy ports and port ranges. Extra values cost walks, never
 * exactness; a missing one would merge ports that forwarding separates (docs/analysis.md lists
 * what is covered, the property tests check it against traces).
 */
import type { Cluster } from '../cluster/cluster.js';
import type { Host } from '../host/host.js';
import { IMDS_V4, WIRESERVER_V4 } from '../host/azure.js';

/**
 * What forwarding compares one side's port with: single values (a load balancer's frontend port)
 * and ranges (an NSG rule's). Ports that no value equals and that every range holds or misses
 * alike are forwarded alike.
 */
export interface Side {
  readonly values: ReadonlySet<number>;
  readonly ranges: readonly (readonly [number, number])[];
}

/** One protocol's cuts: its source and destination ports. */
export interface Cuts {
  readonly src: Side;
  readonly dst: Side;
}

/** Cut points for the packets to one address, per protocol with ports. */
export interface PortCuts {
  readonly tcp: Cuts;
  readonly udp: Cuts;
}

/** The network a question is asked of: one node or a cluster. */
export type Network = Host | Cluster;

const TCP = 6;
const UDP = 17;

interface MutableSide {
  readonly values: Set<number>;
  readonly ranges: [number, number][];
}

interface MutableCuts {
  readonly tcp: { readonly src: MutableSide; readonly dst: MutableSide };
  readonly udp: { readonly src: MutableSide; readonly dst: MutableSide };
}

const side = (): MutableSide => ({ values: new Set(), ranges: [] });

function emptyCuts(): MutableCuts {
  return { tcp: { src: side(), dst: side() }, udp: { src: side(), dst: side() } };
}

/** The protocols a rule with this protocol number cuts (0 or absent: both). */
function protocols(c: MutableCuts, proto: number | undefined): MutableCuts['tcp'][] {
  return proto === TCP
    ? [c.tcp]
    : proto === UDP
      ? [c.udp]
      : proto === undefined || proto === 0
        ? [c.tcp, c.udp]
        : [];
}

function cutValue(s: MutableSide, v: number): void {
  s.values.add(v);
}

function cutRange(s: MutableSide, lo: number, hi: number): void {
  if (lo > 0 || hi < 65535) s.ranges.push([lo, hi]);
}

function hostsOf(net: Network): Host[] {
  if ('allNodes' in net) {
    const out: Host[] = [];
    for (const n of net.allNodes()) if (n.kind === 'Windows') out.push(n.host);
    return out;
  }
  return [net];
}

/**
 * The cuts of a whole network, indexed by destination address: those that apply to one address
 * (a VIP, a platform endpoint, a kube-proxy ClusterIP) and those that apply to every one.
 */
export class CutIndex {
  readonly #byIp = new Map<number, MutableCuts>();
  readonly #any = emptyCuts();
  readonly #memo = new Map<number, PortCuts>();

  constructor(net: Network) {
    const any = this.#any;
    const at = (ip: number) => {
      let e = this.#byIp.get(ip);
      if (!e) this.#byIp.set(ip, (e = emptyCuts()));
      return e;
    };
    const value = (c: MutableCuts, proto: number | undefined, v: number) => {
      for (const p of protocols(c, proto)) cutValue(p.dst, v);
    };
    for (const host of hostsOf(net)) {
      const plane = host.dataplane;
      const view = plane.view();
      for (const lb of view.lbs.values()) {
        if (!lb.vips.length) value(any, lb.protocol, lb.externalPort);
        for (const vip of lb.vips) value(at(vip), lb.protocol, lb.externalPort);
      }
      for (const port of view.ports.values())
        for (const { s } of port.portMappings) value(any, s.protocol, s.externalPort);
      for (const m of plane.staticMappings()) value(any, m.protocol === 'UDP' ? UDP : TCP, m.externalPort);
      const vm = host.azure;
      if (vm) {
        value(at(WIRESERVER_V4), undefined, 53);
        for (const v of [80, 32526]) value(at(WIRESERVER_V4), TCP, v);
        value(at(IMDS_V4), TCP, 80);
        for (const nic of vm.nics)
          for (const r of nic.nsg?.rules ?? [])
            for (const p of protocols(any, r.protocol)) {
              for (const [lo, hi] of r.sourcePorts) cutRange(p.src, lo, hi);
              for (const [lo, hi] of r.destinationPorts) cutRange(p.dst, lo, hi);
            }
      }
    }
    if ('allNodes' in net) {
      for (const n of net.allNodes()) {
        if (n.kind !== 'Linux') continue;
        for (const key of n.node.services.keys()) {
          const [proto, vip, port] = key.split('/').map(Number);
          value(at(vip!), proto, port!);
        }
      }
      for (const np of net.networkPolicyList())
        for (const r of [...(np.ingress ?? []), ...(np.egress ?? [])])
          for (const p of r.ports ?? [])
            if (p.port !== undefined)
              for (const c of protocols(any, p.protocol === 'UDP' ? UDP : TCP))
                cutRange(c.dst, p.port, p.endPort ?? p.port);
    }
  }

  /** The cuts for packets to `dstIp`. */
  for(dstIp: number): PortCuts {
    let c = this.#memo.get(dstIp);
    if (!c) {
      const own = this.#byIp.get(dstIp);
      const any = this.#any;
      const join = (x: MutableSide, y: MutableSide): Side => ({
        values: new Set([...x.values, ...y.values]),
        ranges: [...x.ranges, ...y.ranges],
      });
      c = own
        ? {
            tcp: { src: join(any.tcp.src, own.tcp.src), dst: join(any.tcp.dst, own.tcp.dst) },
            udp: { src: join(any.udp.src, own.udp.src), dst: join(any.udp.dst, own.udp.dst) },
          }
        : any;
      this.#memo.set(dstIp, c);
    }
    return c;
  }
}

/** The cuts for packets to `dstIp` anywhere in `net`. */
export function portCuts(net: Network, dstIp: number): PortCuts {
  return new CutIndex(net).for(dstIp);
}

/**
 * The ports of one side as groups forwarded alike: each value on its own, and the other ports
 * grouped by which ranges hold them — each group a list of intervals [lo, hi], in order.
 */
export function portGroups(s: Side): [number, number][][] {
  const points = new Set<number>();
  for (const v of s.values) {
    points.add(v);
    points.add(v + 1);
  }
  for (const [lo, hi] of s.ranges) {
    points.add(lo);
    points.add(hi + 1);
  }
  const sorted = [...points].filter((v) => v > 0 && v <= 65535).sort((a, b) => a - b);
  const groups = new Map<string, [number, number][]>();
  let lo = 0;
  for (const c of [...sorted, 65536]) {
    if (c <= lo) continue;
    const hi = c - 1;
    // (an interval lies wholly inside or outside each range: the ranges' bounds are cut points)
    const key =
      lo === hi && s.values.has(lo)
        ? `=${lo}`
        : s.ranges.map(([a, b]) => (a <= lo && hi <= b ? '1' : '0')).join('');
    const g = groups.get(key);
    if (g) g.push([lo, hi]);
    else groups.set(key, [[lo, hi]]);
    lo = c;
  }
  return [...groups.values()];
}
