/**
 * Open vSwitch as a switch's forwarding extension (reference ovs-windows.md §1.2, §1.4, §2.4;
 * docs/ovs.md "On the node"): the datapath bound to a switch whose Open vSwitch Extension is
 * enabled. Every packet entering the switch is matched to the OVS interface bound to its Hyper-V
 * port **by name** — a pod's endpoint vNIC by the HNS endpoint name, a host vNIC by its adapter name
 * (the bridge's own interface is LOCAL), the physical NIC by its alias — and run through that
 * bridge's OpenFlow tables as a real packet. Its outputs decide where it goes, with no VFP layer on
 * the way: into a container, into the host's stack through a host vNIC, onto the wire, or into a
 * tunnel vport.
 *
 * The Windows datapath's tunnels (datapath-windows/ovsext/Actions.c, §2.4): output to a
 * flow-based Geneve/VXLAN/STT vport encapsulates towards `tun_dst` from the vport's `local_ip` and
 * re-injects the outer packet from the internal port holding `local_ip` (Antrea: LOCAL, then
 * `LOCAL → uplink`); a packet from the external port output to an internal port whose UDP (STT:
 * TCP) destination port is a tunnel vport's is decapsulated and looked up afresh from that vport
 * with `tun_id`/`tun_src`/`tun_dst` set — two OpenFlow passes per direction.
 *
 * A trace changes nothing: the bridge's conntrack is read through an overlay and its counters,
 * learned flows and MACs wait in the walk (`Walk.deferred`) until `send` commits it.
 *
 *   host.dataplane.bindSwitchDatapath(switchId, new OvsDatapath(db));
 */
import type { Bridge, BoundInterface, Effects, Flow, Lookup, Ovsdb, TraceResult } from '../ovs/index.js';
import { receive } from '../ovs/index.js';
import { CS, ETH_TYPE, OFPP, W, newFlow } from '../ovs/fields.js';
import {
  withPacket,
  type Disposition,
  type OuterHeader,
  type Packet,
  type RuleRef,
} from '../vswitch/contracts.js';
import type { HostInterfaceView, PortView, SwitchView } from '../vswitch/view.js';
import { contains, fmt, ip4 } from '../vswitch/v4.js';
import type { SwitchDatapath, SwitchIngress } from './extension.js';
import type { HostPlane } from './plane.js';
import { mix } from './lb.js';
import { wire } from './uplink.js';
import type { Walk } from './walk.js';

/** The tunnel vport types of the Windows datapath and their default destination ports (§2.4). */
const TUNNEL_PORTS: ReadonlyMap<string, number> = new Map([
  ['geneve', 6081],
  ['vxlan', 4789],
  ['stt', 7471],
]);

export interface OvsDatapathOptions {
  /**
   * The name an agent gave a table (Antrea's `Classifier`, `EgressRule` …): shown in the steps; a
   * drop in an `…Egress…` table is `DeniedOut`, in an `…Ingress…` one `DeniedIn`, a packet sent
   * to the controller from `EndpointDNAT` (a Service without endpoints) `NoBackend`, else `NoRoute`.
   */
  readonly tableName?: (bridge: string, table: number) => string | undefined;
  /** Moves when the table names do. */
  readonly namesGeneration?: () => number;
  /** Called before each packet (ovs-vswitchd catching up with the host's Hyper-V ports). */
  readonly sync?: () => void;
}

/** Where an OVS output goes on the host. */
type Target =
  | { readonly kind: 'tunnel'; readonly iface: BoundInterface }
  | { readonly kind: 'endpoint'; readonly port: PortView }
  | { readonly kind: 'hostIf'; readonly hostIf: HostInterfaceView }
  | { readonly kind: 'uplink' }
  | { readonly kind: 'none'; readonly why: string };

/**
 * The side effects of one bridge per scratch flow state (`w.ct`): a walk and the reply walked after
 * it share it, so the reply sees the connection the request committed (un-DNAT, +est), as the
 * dataplane's own scratch conntrack does; the first walk to touch the bridge applies them on `send`.
 */
const walkEffects = new WeakMap<object, Map<Bridge, Effects>>();

function effectsOf(w: Walk, br: Bridge): Effects {
  let m = walkEffects.get(w.ct);
  if (!m) walkEffects.set(w.ct, (m = new Map()));
  let e = m.get(br);
  if (!e) {
    const fx: Effects = { conntrack: br.conntrack.child(), later: [] };
    m.set(br, fx);
    w.deferred.push(() => {
      br.conntrack.commit(fx.conntrack);
      for (const f of fx.later) f();
    });
    e = fx;
  }
  return e;
}

/** Packet → OVS flow (IPv4; an encapsulated packet is seen by its outer header). */
function flowOfPacket(p: Packet, inPort: number): Flow {
  const f = newFlow();
  f[W.IN_PORT] = inPort;
  const o = p.outer;
  const srcMac = o ? o.srcMac : p.srcMac;
  const dstMac = o ? o.dstMac : p.dstMac;
  f[W.DL_SRC] = Math.floor(srcMac / 0x100000000);
  f[W.DL_SRC + 1] = srcMac >>> 0;
  f[W.DL_DST] = Math.floor(dstMac / 0x100000000);
  f[W.DL_DST + 1] = dstMac >>> 0;
  f[W.DL_TYPE] = ETH_TYPE.IP;
  f[W.NW_SRC] = (o ? o.srcIp : p.srcIp) >>> 0;
  f[W.NW_DST] = (o ? o.dstIp : p.dstIp) >>> 0;
  f[W.NW_PROTO] = o ? (o.proto ?? 17) : p.proto;
  f[W.NW_TTL] = o ? 64 : p.ttl;
  f[W.TP_SRC] = o ? o.srcPort : p.srcPort;
  f[W.TP_DST] = o ? o.dstPort : p.dstPort;
  return f;
}

const macOf = (f: Flow, w: number): number => f[w]! * 0x100000000 + f[w + 1]!;

/** OVS flow → packet (`p` gives what the flow does not carry: the outer header). */
function packetOfFlow(f: Flow, p: Packet): Packet {
  const h = {
    srcMac: macOf(f, W.DL_SRC),
    dstMac: macOf(f, W.DL_DST),
    srcIp: f[W.NW_SRC]!,
    dstIp: f[W.NW_DST]!,
    srcPort: f[W.TP_SRC]!,
    dstPort: f[W.TP_DST]!,
  };
  return p.outer
    ? withPacket(p, { outer: { ...p.outer, ...h } })
    : withPacket(p, { ...h, ttl: f[W.NW_TTL]! });
}

/**
 * A lookup as a trace step's rule: the bridge, table, priority, cookie and the flow as dump-flows
 * shows it — that text formatted only when read (a walk makes one per lookup; few are printed).
 */
function lookupRef(bridge: string, l: Lookup, tableName: string | undefined): RuleRef {
  const ref = {
    kind: 'OpenFlow',
    id: bridge,
    ...(tableName ? { policy: tableName } : {}),
    layer: `table=${l.table}`,
  };
  if (l.miss) return { ...ref, rule: 'table miss' };
  let text: string | undefined;
  return {
    ...ref,
    priority: l.priority!,
    ruleId: `0x${(l.cookie ?? 0n).toString(16)}`,
    get rule(): string {
      return (text ??= `${l.match ? `${l.match},` : ''}actions=${l.actions}`.replace(/^,/, ''));
    },
  };
}

export class OvsDatapath implements SwitchDatapath {
  readonly name: string;

  constructor(
    readonly db: Ovsdb,
    private readonly opts: OvsDatapathOptions = {},
  ) {
    this.name = 'ovs-vswitchd';
  }

  generation(): number {
    let g = this.db.changes + (this.opts.namesGeneration?.() ?? 0);
    for (const b of this.db.bridgeNames()) g += this.db.bridge(b)!.generation;
    return g;
  }

  ingress(w: Walk, plane: HostPlane, sw: SwitchView, at: SwitchIngress, p: Packet): void {
    this.opts.sync?.();
    const portName =
      at.kind === 'port'
        ? at.port.name || at.port.id
        : at.kind === 'hostVnic'
          ? (at.vnic ?? sw.hostVnic)?.name
          : sw.uplinkName;
    // a pod's own address: its TCP/IP stack loops it back; the frame never reaches the vNIC
    if (at.kind === 'port' && p.dstIp === at.port.ip && !p.outer) {
      w.step(
        plane.name,
        'Container',
        'Loopback',
        p,
        p,
        undefined,
        'its own address: looped back in the container',
      );
      return w.finish('Delivered', plane.name, p, `endpoint:${at.port.id}`);
    }
    const iface = portName === undefined ? undefined : this.db.boundInterface(portName);
    if (!iface) {
      if (at.kind === 'port') w.count(plane.name, at.port.id, 'droppedOut');
      return w.stop(
        plane.name,
        'OVS',
        'Dropped',
        p,
        'NoRoute',
        `the Hyper-V port "${portName ?? '?'}" is not an interface ovs-vswitchd has bound: the Open vSwitch Extension drops what enters there`,
      );
    }
    this.run(w, plane, sw, iface, p, at.kind === 'uplink');
  }

  /** One OpenFlow pass (and its recirculations) of `p` entering `iface`; then where its outputs go. */
  private run(
    w: Walk,
    plane: HostPlane,
    sw: SwitchView,
    iface: BoundInterface,
    p: Packet,
    fromExternal: boolean,
    tunnel?: { readonly id: number; readonly src: number; readonly dst: number },
  ): void {
    const host = plane.name;
    if (w.looping(`${host}:ovs:${iface.name}`, p)) {
      return w.stop(host, 'OVS', 'Loop', p, 'Loop', 'the packet came this way before');
    }
    const br = iface.engine;
    const flow = flowOfPacket(p, iface.ofport);
    if (tunnel) {
      flow[W.TUN_ID + 1] = tunnel.id;
      flow[W.TUN_SRC] = tunnel.src;
      flow[W.TUN_DST] = tunnel.dst;
    }
    const r: TraceResult = receive(br, flow, {
      text: false,
      effects: effectsOf(w, br),
      selectBuckets: 'pick',
    });
    let cur = p;
    let lastRef: RuleRef | undefined;
    for (const pass of r.passes) {
      // a recirculation after ct(nat): conntrack rewrote the packet between the passes
      if (pass.recircId && !cur.outer) {
        const next = packetOfFlow(pass.flow, cur);
        const src = next.srcIp !== cur.srcIp || next.srcPort !== cur.srcPort;
        const dst = next.dstIp !== cur.dstIp || next.dstPort !== cur.dstPort;
        if (src || dst) {
          const reply = (pass.flow[W.CT_STATE]! & CS.REPLY_DIR) !== 0;
          const action = reply
            ? src
              ? 'UnDNAT'
              : 'UnSNAT'
            : src && dst
              ? 'DNAT+SNAT'
              : dst
                ? 'DNAT'
                : 'SNAT';
          w.step(
            host,
            'NAT',
            action,
            cur,
            next,
            lastRef,
            `conntrack zone ${pass.flow[W.CT_ZONE]} (${iface.bridge})`,
          );
          cur = next;
        }
      }
      for (const l of pass.lookups) {
        const tname = this.opts.tableName?.(iface.bridge, l.table);
        const ref = lookupRef(iface.bridge, l, tname);
        lastRef = ref;
        w.step(
          host,
          'OVS',
          l.miss ? 'TableMiss' : 'Matched',
          cur,
          cur,
          ref,
          `${iface.bridge} table ${l.table}${tname ? ` (${tname})` : ''}${pass.recircId ? ` (recirc 0x${pass.recircId.toString(16)})` : ''}`,
        );
      }
      cur = packetOfFlow(pass.finalFlow, cur);
    }
    const outs = r.outputs;
    if (!outs.length) {
      const last = r.passes[r.passes.length - 1]!;
      const table = last.lookups.length ? last.lookups[last.lookups.length - 1]!.table : 0;
      const why = last.error ?? `datapath actions: ${last.datapathActions}`;
      const name = this.opts.tableName?.(iface.bridge, table);
      const disposition: Disposition = name?.includes('Egress')
        ? 'DeniedOut'
        : name?.includes('Ingress')
          ? 'DeniedIn'
          : name === 'EndpointDNAT' && r.packetIns.length
            ? 'NoBackend'
            : 'NoRoute';
      return w.stop(
        host,
        'OVS',
        'Dropped',
        cur,
        disposition,
        `${iface.bridge} dropped it in table ${table}${name ? ` (${name})` : ''} (${why})`,
      );
    }
    // a walk follows one packet: the output towards its destination, else the first
    const targets = outs.map((o) => ({ o, t: this.target(plane, sw, br, o.port) }));
    const wanted =
      targets.find(({ t }) => holds(t, cur.dstIp)) ??
      targets.find(({ t }) => t.kind !== 'none') ??
      targets[0]!;
    const out = packetOfFlow(wanted.o.packet, cur);
    const also =
      targets.length > 1
        ? ` (also to ${targets
            .filter((x) => x !== wanted)
            .map((x) => portLabel(br, x.o.port))
            .join(', ')})`
        : '';
    const t = wanted.t;
    const portText = portLabel(br, wanted.o.port);
    const output = (detail: string) =>
      w.step(
        host,
        'OVS',
        'Output',
        cur,
        out,
        { kind: 'OpenFlow', id: iface.bridge, rule: `output:${portText}` },
        detail,
      );
    switch (t.kind) {
      case 'none':
        return w.stop(host, 'OVS', 'Dropped', out, 'NoRoute', `output:${portText}: ${t.why}${also}`);
      case 'tunnel':
        output(`to ${portText}${also}`);
        return this.encap(w, plane, sw, t.iface, wanted.o.packet, out);
      case 'endpoint': {
        output(`to ${portText}${also}`);
        const port = t.port;
        if (port.compartment === 1) {
          const hi = plane.view().hostIfs.find((h) => h.endpoint === port);
          return plane.hostStack(w, out, hi);
        }
        w.step(host, 'Delivery', 'Delivered', out, out, undefined, `to ${port.name || port.id}`);
        w.count(host, port.id, 'received');
        return w.finish('Delivered', host, out, `endpoint:${port.id}`);
      }
      case 'hostIf': {
        // the Windows datapath decapsulates on output to an internal port (OvsDetectTunnelPkt)
        const vport = fromExternal && out.outer ? this.tunnelFor(br, out) : undefined;
        if (vport && out.outer) {
          const inner = withPacket(out, { outer: undefined });
          w.step(
            host,
            'Decap',
            'Decapsulated',
            out,
            inner,
            { kind: 'OpenFlow', id: iface.bridge, rule: `${vport.name} (${vport.type})` },
            `${vport.type.toUpperCase()} VNI ${out.outer.vni} from ${fmt(out.outer.srcIp)}: looked up again from ${vport.name}`,
          );
          return this.run(w, plane, sw, vport, inner, false, {
            id: out.outer.vni,
            src: out.outer.srcIp,
            dst: out.outer.dstIp,
          });
        }
        output(`to ${portText}: the host vNIC ${t.hostIf.name}${also}`);
        return plane.hostStack(w, out, t.hostIf, false, fromExternal);
      }
      case 'uplink': {
        output(`to ${portText}: the physical NIC${also}`);
        const dst = out.outer ? out.outer.dstIp : out.dstIp;
        const up = plane.view().uplink;
        const hop = up && !contains(up.prefix, dst) && up.gateway ? up.gateway : dst;
        return wire(plane, w, out, hop);
      }
    }
  }

  /** What an ofport of `br` is on the host. */
  private target(plane: HostPlane, sw: SwitchView, br: Bridge, ofport: number): Target {
    const name = br.nameOfPort(ofport);
    if (name === undefined) return { kind: 'none', why: `no port ${ofport} on ${br.name}` };
    const iface = this.db.boundInterface(name);
    if (iface && TUNNEL_PORTS.has(iface.type)) return { kind: 'tunnel', iface };
    if (sw.uplinkName !== undefined && name.toLowerCase() === sw.uplinkName.toLowerCase())
      return { kind: 'uplink' };
    const v = plane.view();
    const ep = v.portByRef.get(name.toLowerCase());
    if (ep && !ep.remote && ep.network.switchId === sw.id) return { kind: 'endpoint', port: ep };
    const hostIf = v.hostIfs.find(
      (h) => h.kind === 'HostVNic' && h.switchId === sw.id && h.name.toLowerCase() === name.toLowerCase(),
    );
    if (hostIf) return { kind: 'hostIf', hostIf };
    if (ofport === OFPP.LOCAL || iface?.type === 'internal')
      return { kind: 'none', why: `${name} is an internal port with no host vNIC on the switch` };
    return { kind: 'none', why: `no Hyper-V port named "${name}" on the switch` };
  }

  /** The tunnel vport of `br` an outer packet is for (its L4 destination port and protocol). */
  private tunnelFor(br: Bridge, p: Packet): BoundInterface | undefined {
    const o = p.outer!;
    for (const port of br.ports.values()) {
      const i = this.db.boundInterface(port.name);
      if (!i || !TUNNEL_PORTS.has(i.type)) continue;
      const dport = Number(i.options.get('dst_port') ?? TUNNEL_PORTS.get(i.type));
      const proto = i.type === 'stt' ? 6 : 17;
      // a port with a fixed remote_ip (OVN's, one per chassis) takes only its peer's packets
      const remote = i.options.get('remote_ip');
      if (remote !== undefined && remote !== 'flow' && ip4(remote) !== o.srcIp) continue;
      if (dport === o.dstPort && proto === (o.proto ?? 17)) return i;
    }
    return undefined;
  }

  /**
   * Output to a tunnel vport (OvsTunnelPortTx): the outer header from `local_ip` to `tun_dst`, then
   * the outer packet re-injected from the internal port holding `local_ip`.
   */
  private encap(w: Walk, plane: HostPlane, sw: SwitchView, vport: BoundInterface, f: Flow, p: Packet): void {
    const host = plane.name;
    const ref: RuleRef = { kind: 'OpenFlow', id: vport.bridge, rule: `${vport.name} (${vport.type})` };
    const localText = vport.options.get('local_ip');
    const local = localText === undefined ? undefined : ip4(localText);
    if (local === undefined) {
      return w.stop(
        host,
        'Encap',
        'Dropped',
        p,
        'NoRoute',
        `${vport.name} has no local_ip: the Windows datapath requires it`,
        ref,
      );
    }
    const remoteOpt = vport.options.get('remote_ip');
    const dst = remoteOpt === undefined || remoteOpt === 'flow' ? f[W.TUN_DST]! : (ip4(remoteOpt) ?? 0);
    if (!dst) return w.stop(host, 'Encap', 'Dropped', p, 'NoRoute', `${vport.name}: no tun_dst set`, ref);
    const keyOpt = vport.options.get('key');
    const vni = keyOpt === undefined || keyOpt === 'flow' ? f[W.TUN_ID + 1]! : Number(keyOpt);
    const dport = Number(vport.options.get('dst_port') ?? TUNNEL_PORTS.get(vport.type));
    const via = plane.view().hostIfByIp.get(local);
    const outer: OuterHeader = {
      srcMac: via?.mac ?? plane.hostMac(),
      dstMac: 0,
      srcIp: local,
      dstIp: dst,
      srcPort: 49152 + (mix(0, p.srcIp, p.dstIp, p.srcPort, p.dstPort, p.proto) % 16384),
      dstPort: dport,
      vni,
      kind: vport.type as 'geneve' | 'vxlan' | 'stt',
      ...(vport.type === 'stt' ? { proto: 6 } : {}),
    };
    const after = withPacket(p, { outer });
    w.step(
      host,
      'Encap',
      'Encapsulated',
      p,
      after,
      ref,
      `${vport.type.toUpperCase()} VNI ${vni} from ${fmt(local)} to ${fmt(dst)}:${dport}`,
    );
    // re-injected from the internal port that holds local_ip (the datapath's "VTEP" port)
    const from = via ? this.db.boundInterface(via.name) : undefined;
    if (!via || !from) {
      return w.stop(
        host,
        'Encap',
        'Dropped',
        after,
        'NoRoute',
        `no internal OVS port holds local_ip ${fmt(local)}`,
        ref,
      );
    }
    this.run(w, plane, sw, from, after, false);
  }
}

function holds(t: Target, ip: number): boolean {
  if (t.kind === 'endpoint') return t.port.ip === ip;
  if (t.kind === 'hostIf') return t.hostIf.ip === ip;
  return false;
}

function portLabel(br: Bridge, ofport: number): string {
  return ofport === OFPP.LOCAL ? 'LOCAL' : `${br.nameOfPort(ofport) ?? '?'}(${ofport})`;
}
