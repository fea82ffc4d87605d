/**
 * The physical network between nodes (DESIGN: cluster/; kubernetes-windows.md §1.8: "upstream L3
 * routing", "host-gateway"): L2 segments (one IPv4 prefix each) that nodes and routers attach to,
 * routers with connected, static ("ToR") and default routes, and the outside world behind a router
 * that has `internet`. A frame reaches the owner of its next-hop address on a segment the sender is
 * on (no owner: the neighbour is unreachable); a frame is never sent back out to its sender (a
 * physical switch does not hairpin). VXLAN packets are carried by their outer header.
 *
 * A segment can be an Azure VNet subnet (`attachVm`): the VNet fabric routes every IP
 * configuration of a VM's NIC — the primary address and each secondary one azure-vnet hands to a
 * pod — to that VM; the VM's virtualization host answers the platform addresses (wireserver, IMDS),
 * applies the NIC's NSG to what leaves and enters the VM, and sends a packet for the VM's own
 * addresses back to it (L2Tunnel's hairpin). Azure's host is the VM's neighbour: frames it hands a
 * VM come from its virtual gateway MAC `12-34-56-78-9A-BC` (reference azure-cni.md §5, the
 * `SDNRemoteArpMacAddress` ACN sets).
 *
 *   const u = new Fabric(); u.addSegment('nodes', '10.0.0.0/24');
 *   u.addRouter({ name: 'tor', interfaces: [{ segment: 'nodes', ip: '10.0.0.1' }], internet: true });
 */
import { hnsError } from '../core/errors.js';
import { withPacket, type Packet } from '../vswitch/contracts.js';
import { contains, fmt, fmtPrefix, ip4, parsePrefix4, prefixArg, type Prefix4 } from '../vswitch/v4.js';
import type { NetNode, Underlay, Walk } from '../dataplane/walk.js';
import { hairpinToVm, leavesVm, nsgPasses, type AzureEdge } from '../dataplane/host-scope.js';

/** The MAC Azure's virtualization host answers ARP with and sends from (`SDNRemoteArpMacAddress`). */
export const AZURE_HOST_MAC = 0x123456789abc;

export interface RouterSpec {
  readonly name: string;
  readonly interfaces: readonly { readonly segment: string; readonly ip: string; readonly mac?: number }[];
  /** Static routes (ToR routes to pod subnets: "upstream L3 routing"). */
  readonly routes?: readonly { readonly destinationPrefix: string; readonly nextHop: string }[];
  /** Whether addresses no route covers go to the outside world (the default route). */
  readonly internet?: boolean;
}

interface Attachment {
  readonly node: NetNode | Router;
  readonly ip: number;
  readonly mac: number;
}

interface Segment {
  readonly name: string;
  readonly prefix: Prefix4;
  readonly members: Map<number, Attachment>;
  /** An Azure VNet subnet: the VMs' secondary IP configurations, each routed to its VM. */
  readonly secondary: Map<number, Attachment>;
}

/** An Azure VM on a VNet subnet: its host's edge (platform, NSG) and the prefixes routed to it. */
interface VmRec {
  readonly edge: AzureEdge;
  readonly segment: string;
  /** Address ranges the VNet routes to the VM beyond its IP configurations (an Overlay node's pod CIDR). */
  readonly routed: readonly Prefix4[];
  readonly attachment: Attachment;
}

export interface StaticRoute {
  readonly dest: Prefix4;
  readonly nextHop: number;
}

export class Router {
  readonly kind = 'Router' as const;
  readonly routes: StaticRoute[] = [];
  constructor(
    readonly name: string,
    readonly interfaces: { readonly segment: string; readonly ip: number; readonly mac: number }[],
    readonly internet: boolean,
  ) {}
}

/** An address outside the cluster (a web server, an upstream DNS server) reachable through the internet. */
export class ExternalHost implements NetNode {
  readonly kind = 'External' as const;
  constructor(
    readonly name: string,
    readonly ip: number,
    private readonly fabric: Fabric,
  ) {}

  receive(w: Walk, p: Packet): void {
    if (p.dstIp !== this.ip) {
      return w.stop(this.name, 'Underlay', 'Dropped', p, 'NoRoute', `${this.name} is not ${fmt(p.dstIp)}`);
    }
    w.step(this.name, 'Delivery', 'Delivered', p, p, undefined, `to ${this.name} (outside the cluster)`);
    w.finish('Delivered', this.name, p, `external:${fmt(this.ip)}`);
  }

  /** The host sends a packet: it enters the network from the internet side. */
  send(w: Walk, p: Packet): void {
    w.step(this.name, 'Underlay', 'Sent', p, p, undefined, `from ${this.name} on the internet`);
    this.fabric.fromInternet(w, this, p);
  }
}

/**
 * An IPv4 prefix given as text with its length (`10.0.0.0/24`; a bare address is not one), at most
 * `longest` bits long; else E_INVALIDARG naming `what`.
 */

export class Fabric implements Underlay {
  private readonly segments = new Map<string, Segment>();
  /** Router interface MACs given out so far (per fabric, so a cluster's MACs do not depend on others). */
  private nextMac = 0x02_00_5e_00_00_00;
  readonly routers = new Map<string, Router>();
  /** Outside hosts by address. */
  readonly externals = new Map<number, ExternalHost>();
  /** Bumped by every change (the flow table's key). */
  generation = 0;
  /**
   * Private prefixes (a cluster's pod and service CIDRs) that the internet does not route: a router
   * without a route for them drops them instead of sending them out.
   */
  readonly privatePrefixes: Prefix4[] = [];
  /** The Azure VMs attached with `attachVm`. */
  private readonly vms = new Map<NetNode | Router, VmRec>();

  /** Azure's virtualization host sends a VM's frames for its own addresses back to it (L2Tunnel). */
  get hairpins(): boolean {
    return this.vms.size > 0;
  }

  addSegment(name: string, prefix: string): void {
    const p = prefixArg(prefix, 'segment prefix');
    if (this.segments.has(name)) throw hnsError('E_INVALIDARG', `segment "${name}" exists`);
    this.segments.set(name, { name, prefix: p, members: new Map(), secondary: new Map() });
    this.generation++;
  }

  private segment(name: string): Segment {
    const s = this.segments.get(name);
    if (!s) throw hnsError('ERROR_NOT_FOUND', `no segment "${name}"`);
    return s;
  }

  /** Attach a node (or router interface) to a segment with an address and MAC. */
  attach(segment: string, node: NetNode | Router, ip: number, mac: number): void {
    const s = this.segment(segment);
    if (!contains(s.prefix, ip))
      throw hnsError('E_INVALIDARG', `${fmt(ip)} is not in segment ${s.name} (${fmtPrefix(s.prefix)})`);
    if (s.members.has(ip) || s.secondary.has(ip))
      throw hnsError('E_INVALIDARG', `${fmt(ip)} is taken on segment ${s.name}`);
    s.members.set(ip, { node, ip, mac });
    this.generation++;
  }

  /** Take an address off a segment again (a node the cluster could not take after all). */
  detach(segment: string, ip: number): void {
    if (this.segment(segment).members.delete(ip)) this.generation++;
  }

  /**
   * Attach an Azure VM to a VNet subnet: its NIC's primary address and MAC, the secondary IP
   * configurations the VNet also routes to it, and its host's edge (platform addresses, the NIC's
   * NSG). Every address is checked before any is taken.
   */
  attachVm(
    segment: string,
    node: NetNode,
    vm: {
      readonly ip: number;
      readonly mac: number;
      readonly secondaryIps: readonly number[];
      readonly edge: AzureEdge;
      /** Prefixes the VNet routes to the VM (Azure CNI Overlay: the node's pod CIDR). */
      readonly routed?: readonly Prefix4[];
    },
  ): void {
    const s = this.segment(segment);
    for (const ip of [vm.ip, ...vm.secondaryIps]) {
      if (!contains(s.prefix, ip))
        throw hnsError('E_INVALIDARG', `${fmt(ip)} is not in segment ${s.name} (${fmtPrefix(s.prefix)})`);
      if (s.members.has(ip) || s.secondary.has(ip))
        throw hnsError('E_INVALIDARG', `${fmt(ip)} is taken on segment ${s.name}`);
    }
    if (new Set(vm.secondaryIps).size !== vm.secondaryIps.length || vm.secondaryIps.includes(vm.ip))
      throw hnsError('E_INVALIDARG', `a VM's IP configurations must differ`);
    for (const p of vm.routed ?? [])
      for (const other of this.vms.values())
        if (other.routed.some((q) => contains(q, p.addr) || contains(p, q.addr)))
          throw hnsError('E_INVALIDARG', `${fmtPrefix(p)} is routed to another VM already`);
    this.attach(segment, node, vm.ip, vm.mac);
    for (const ip of vm.secondaryIps) s.secondary.set(ip, { node, ip, mac: vm.mac });
    this.vms.set(node, {
      edge: vm.edge,
      segment,
      routed: vm.routed ?? [],
      attachment: { node, ip: vm.ip, mac: vm.mac },
    });
  }

  /** The VM a VNet subnet routes `ip` to by a routed prefix (an Overlay pod CIDR). */
  private routedOwner(seg: Segment, ip: number): Attachment | undefined {
    for (const vm of this.vms.values())
      if (vm.segment === seg.name && vm.routed.some((p) => contains(p, ip))) return vm.attachment;
    return undefined;
  }

  addRouter(spec: RouterSpec): Router {
    if (this.routers.has(spec.name)) throw hnsError('E_INVALIDARG', `router "${spec.name}" exists`);
    const ifs = spec.interfaces.map((i) => {
      const ip = ip4(i.ip);
      if (ip === undefined) throw hnsError('E_INVALIDARG', `router interface address "${i.ip}"`);
      this.segment(i.segment);
      return { segment: i.segment, ip, mac: i.mac ?? this.nextMac++ };
    });
    // every route checked before anything is attached: a bad one leaves the underlay as it was
    const routes = (spec.routes ?? []).map((rt) => this.staticRoute(rt.destinationPrefix, rt.nextHop));
    const r = new Router(spec.name, ifs, spec.internet ?? false);
    for (const i of ifs) this.attach(i.segment, r, i.ip, i.mac);
    r.routes.push(...routes);
    this.routers.set(spec.name, r);
    return r;
  }

  /** Give a router an interface on another segment (it then routes between them). */
  addRouterInterface(router: string, segment: string, ip: string): void {
    const r = this.routers.get(router);
    if (!r) throw hnsError('ERROR_NOT_FOUND', `no router "${router}"`);
    const addr = ip4(ip);
    if (addr === undefined) throw hnsError('E_INVALIDARG', `router interface address "${ip}"`);
    const mac = this.nextMac++;
    this.attach(segment, r, addr, mac);
    r.interfaces.push({ segment, ip: addr, mac });
  }

  /** Whether a router already has a route to exactly this prefix. */
  hasRoute(router: string, dest: Prefix4): boolean {
    return (
      this.routers.get(router)?.routes.some((r) => r.dest.addr === dest.addr && r.dest.len === dest.len) ??
      false
    );
  }

  /** A static route on a router (a ToR route to a node's pod subnet). */
  addRoute(router: string, destinationPrefix: string, nextHop: string): void {
    const r = this.routers.get(router);
    const route = this.staticRoute(destinationPrefix, nextHop);
    if (!r) throw hnsError('ERROR_NOT_FOUND', `no router "${router}"`);
    r.routes.push(route);
    this.generation++;
  }

  private staticRoute(destinationPrefix: string, nextHop: string): StaticRoute {
    const dest = parsePrefix4(destinationPrefix);
    const nh = ip4(nextHop);
    if (!dest) throw hnsError('E_INVALIDARG', `route prefix "${destinationPrefix}"`);
    if (nh === undefined) throw hnsError('E_INVALIDARG', `route next hop "${nextHop}"`);
    return { dest, nextHop: nh };
  }

  addExternal(name: string, ip: number): ExternalHost {
    const h = new ExternalHost(name, ip, this);
    this.externals.set(ip, h);
    this.generation++;
    return h;
  }

  /** The segments a node is on, with its address there. */
  attachments(node: NetNode | Router): { segment: Segment; ip: number; mac: number }[] {
    const out: { segment: Segment; ip: number; mac: number }[] = [];
    for (const s of this.segments.values())
      for (const a of s.members.values()) if (a.node === node) out.push({ segment: s, ip: a.ip, mac: a.mac });
    return out;
  }

  send(w: Walk, from: NetNode, p: Packet, nextHop: number): void {
    // an Azure VM's packet meets its virtualization host first: platform addresses, the NIC's NSG
    const vm = this.vms.get(from);
    if (vm && leavesVm(w, vm.edge, from, p)) return;
    // the VNet delivers by destination: an address it routes to a VM goes there, whatever the hop
    if (vm && !p.outer) {
      const vnet = this.segments.get(vm.segment)!;
      if (this.routedOwner(vnet, p.dstIp)) return this.onSegment(w, from.name, from, vnet, p, p.dstIp);
    }
    const seg = this.attachments(from).find((a) => contains(a.segment.prefix, nextHop));
    if (!seg) {
      return w.stop(
        from.name,
        'Underlay',
        'NoRoute',
        p,
        'NoRoute',
        `${fmt(nextHop)} is on no segment ${from.name} is attached to`,
      );
    }
    this.onSegment(w, from.name, from, seg.segment, p, nextHop);
  }

  /** Deliver a frame on a segment to the owner of `hop`. */
  private onSegment(
    w: Walk,
    at: string,
    sender: NetNode | Router,
    seg: Segment,
    p: Packet,
    hop: number,
  ): void {
    const a = seg.members.get(hop) ?? seg.secondary.get(hop) ?? this.routedOwner(seg, hop);
    if (!a) {
      return w.stop(
        at,
        'Underlay',
        'NoRoute',
        p,
        'NoRoute',
        `no one holds ${fmt(hop)} on segment ${seg.name} (${fmtPrefix(seg.prefix)}): the neighbour is unreachable`,
      );
    }
    const vm = p.outer ? undefined : this.vms.get(a.node);
    // the VNet sends a VM's packet for its own addresses back to it (L2Tunnel's hairpin)
    if (a.node === sender && vm && !(a.node instanceof Router))
      return hairpinToVm(w, vm.edge, a.node, withPacket(p, { dstMac: a.mac }), AZURE_HOST_MAC);
    if (a.node === sender) {
      return w.stop(
        at,
        'Underlay',
        'NoRoute',
        p,
        'NoRoute',
        `${fmt(hop)} is the sender itself: a frame is not switched back out of the port it came in on`,
      );
    }
    // a router forwards with its own MAC on that segment as the source
    // (on a VNet the host delivers with its gateway MAC as the source)
    const srcMac = vm
      ? AZURE_HOST_MAC
      : sender instanceof Router
        ? sender.interfaces.find((i) => i.segment === seg.name)?.mac
        : undefined;
    const macs = srcMac !== undefined ? { srcMac, dstMac: a.mac } : { dstMac: a.mac };
    const arrived = p.outer ? withPacket(p, { outer: { ...p.outer, ...macs } }) : withPacket(p, macs);
    if (vm) {
      const how = seg.secondary.has(hop)
        ? ', a secondary IP of its NIC'
        : seg.members.has(hop)
          ? ''
          : ', in a prefix the VNet routes to it';
      w.step(
        at,
        'Underlay',
        'Switched',
        p,
        arrived,
        { kind: 'AzureHost', id: a.node.name, policy: 'VNet', rule: `${fmt(hop)} → ${a.node.name}` },
        `VNet subnet ${seg.name} to ${a.node.name} (${fmt(hop)}${how})`,
      );
      if (!nsgPasses(w, vm.edge, a.node.name, 'Inbound', arrived)) return;
    } else {
      w.step(
        at,
        'Underlay',
        'Switched',
        p,
        arrived,
        undefined,
        `segment ${seg.name} to ${a.node.name} (${fmt(hop)})`,
      );
    }
    if (a.node instanceof Router) return this.route(w, a.node, arrived);
    a.node.receive(w, arrived);
  }

  /** A router forwards by its routes (connected segments, static, internet). */
  private route(w: Walk, r: Router, p0: Packet): void {
    const dst = p0.outer ? p0.outer.dstIp : p0.dstIp;
    if (w.looping(`router:${r.name}`, p0)) {
      return w.stop(r.name, 'Routing', 'Loop', p0, 'Loop', 'the packet came this way before');
    }
    if (p0.ttl <= 1) {
      return w.stop(r.name, 'Routing', 'TtlExceeded', p0, 'TtlExceeded');
    }
    const p = withPacket(p0, { ttl: p0.ttl - 1 });
    let best: { len: number; seg: Segment; hop: number; how: string } | undefined;
    for (const i of r.interfaces) {
      const seg = this.segments.get(i.segment)!;
      if (contains(seg.prefix, dst) && (!best || seg.prefix.len > best.len))
        best = { len: seg.prefix.len, seg, hop: dst, how: `connected ${fmtPrefix(seg.prefix)}` };
    }
    for (const rt of r.routes) {
      if (!contains(rt.dest, dst) || (best && best.len >= rt.dest.len)) continue;
      const seg = r.interfaces
        .map((i) => this.segments.get(i.segment)!)
        .find((s) => contains(s.prefix, rt.nextHop));
      if (seg)
        best = {
          len: rt.dest.len,
          seg,
          hop: rt.nextHop,
          how: `${fmtPrefix(rt.dest)} via ${fmt(rt.nextHop)}`,
        };
    }
    const ref = { kind: 'Router', id: r.name, policy: 'Route', layer: 'Router' };
    if (best) {
      w.step(r.name, 'Routing', 'Forwarded', p0, p, { ...ref, rule: best.how }, best.how);
      return this.onSegment(w, r.name, r, best.seg, p, best.hop);
    }
    const priv = this.privatePrefixes.find((x) => contains(x, dst));
    if (priv) {
      return w.stop(
        r.name,
        'Routing',
        'NoRoute',
        p0,
        'NoRoute',
        `no route to ${fmt(dst)}: ${fmtPrefix(priv)} is a cluster prefix the underlay does not route`,
      );
    }
    if (r.internet) {
      const ext = this.externals.get(dst);
      w.step(
        r.name,
        'Routing',
        'Forwarded',
        p0,
        p,
        { ...ref, rule: '0.0.0.0/0 via internet' },
        'to the internet',
      );
      if (ext) return ext.receive(w, p);
      w.step(
        r.name,
        'Underlay',
        'ExitsNetwork',
        p,
        p,
        undefined,
        `${fmt(dst)} is outside the modelled network`,
      );
      return w.finish('ExitsNetwork', r.name, p, `external:${fmt(dst)}`);
    }
    w.stop(r.name, 'Routing', 'NoRoute', p0, 'NoRoute', `no route to ${fmt(dst)}`);
  }

  /** A packet from the internet enters through the first router that has `internet`. */
  fromInternet(w: Walk, from: ExternalHost, p: Packet): void {
    const r = [...this.routers.values()].find((x) => x.internet);
    if (!r) {
      return w.stop(
        from.name,
        'Underlay',
        'NoRoute',
        p,
        'NoRoute',
        'no router connects the cluster to the internet',
      );
    }
    this.route(w, r, p);
  }
}
