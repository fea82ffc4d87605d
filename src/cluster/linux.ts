/**
 * A plain Linux node, enough for mixed clusters (DESIGN: cluster/): a bridge (`cni0`) with its pods,
 * the routes flannel programs (host-gw: a route per remote pod subnet via the remote node; vxlan: a
 * route per remote pod subnet over `flannel.<VNI>` with the remote VTEP's address and MAC), IP
 * forwarding, and flannel's masquerade (pod traffic leaving the cluster network is SNATed to the
 * node's address). Linux flannel's VXLAN defaults are VNI 1 and UDP 8472; a mixed cluster needs
 * them set to Windows' 4096 and 4789 (reference vfp-dataplane.md §5) — the cluster check says so.
 */
import { hnsError } from '../core/errors.js';
import { withPacket, type Packet } from '../vswitch/contracts.js';
import { contains, fmt, fmtPrefix, type Prefix4 } from '../vswitch/v4.js';
import { mix } from '../dataplane/plane.js';
import { replyOf, tupleKey } from '../dataplane/conntrack.js';
import type { NetNode, Walk } from '../dataplane/walk.js';

export interface LinuxPod {
  readonly namespace: string;
  readonly name: string;
  readonly ip: number;
  readonly mac: number;
}

/** A route flannel programs towards another node's pod subnet. */
export interface LinuxPeerRoute {
  readonly dest: Prefix4;
  /** The remote node's underlay address (host-gw next hop, or VXLAN destination). */
  readonly via: number;
  /** VXLAN: the remote VTEP's MAC (a Windows peer's DR MAC), else undefined (host-gw). */
  readonly vtepMac?: number;
}

export interface LinuxVxlan {
  readonly vni: number;
  readonly port: number;
  readonly mac: number;
  readonly mtu: number;
  /** The VXLAN device's name (default `flannel.<VNI>`; ovn-kubernetes' hybrid overlay: `ext-vxlan`). */
  readonly dev?: string;
}

/** The name a node's VXLAN device goes by in traces. */
function vxlanDev(v: LinuxVxlan): string {
  return v.dev ?? `flannel.${v.vni}`;
}

/** A service as kube-proxy (iptables) programs it on a Linux node: `proto/vip/port` → backends. */
export interface LinuxService {
  readonly name: string;
  readonly targets: readonly { readonly ip: number; readonly port: number }[];
}

/** The key of `LinuxNode.services`: IP protocol number, VIP and port (`6/174063627/80`). */
export function serviceKey(proto: number, vip: number, port: number): string {
  return `${proto}/${vip}/${port}`;
}

export class LinuxNode implements NetNode {
  readonly kind = 'Linux' as const;
  readonly pods = new Map<number, LinuxPod>();
  routes: LinuxPeerRoute[] = [];
  /** kube-proxy's iptables services, keyed `proto/vip/port`. */
  services = new Map<string, LinuxService>();
  private nextPod: number;

  constructor(
    readonly name: string,
    readonly ip: number,
    readonly mac: number,
    readonly gateway: number,
    readonly podSubnet: Prefix4,
    /** Cluster addresses that are not masqueraded (the pod CIDR). */
    readonly clusterCidr: Prefix4,
    readonly vxlan: LinuxVxlan | undefined,
    /** The underlay: how this node puts packets on the wire. */
    private readonly wire: (w: Walk, from: NetNode, p: Packet, nextHop: number) => void,
    /** The pod subnet's first pod address (host part): flannel's .2, OVN's .4. */
    firstPod = 2,
  ) {
    this.nextPod = firstPod;
  }

  addPod(namespace: string, name: string): LinuxPod {
    const ip = (this.podSubnet.addr + this.nextPod++) >>> 0;
    if (!contains(this.podSubnet, ip) || ip === (this.podSubnet.addr | ~this.podSubnet.mask) >>> 0)
      throw hnsError('E_INVALIDARG', `pod subnet ${fmtPrefix(this.podSubnet)} of ${this.name} is full`);
    // veth MACs on Linux are random; a deterministic locally administered one here
    const pod: LinuxPod = { namespace, name, ip, mac: 0x0a5800000000 + (ip & 0xffffff) };
    this.pods.set(ip, pod);
    return pod;
  }

  removePod(ip: number): boolean {
    return this.pods.delete(ip);
  }

  private label(pod: LinuxPod): string {
    return `pod:${pod.namespace}/${pod.name}`;
  }

  /** A pod sends a packet: the bridge hands it to the node, which routes it. */
  sendFromPod(w: Walk, pod: LinuxPod, p0: Packet): void {
    const p = withPacket(p0, { srcMac: pod.mac });
    w.step(this.name, 'Container', 'Sent', p0, p, undefined, `${pod.namespace}/${pod.name} on cni0`);
    const q = this.kubeProxy(w, p);
    const local = this.pods.get(q.dstIp);
    if (local) return this.deliver(w, local, q);
    this.forward(w, q, true);
  }

  /** kube-proxy (iptables mode): a ClusterIP is DNATed to a backend chosen by the flow's hash. */
  private kubeProxy(w: Walk, p: Packet): Packet {
    const svc = this.services.get(serviceKey(p.proto, p.dstIp, p.dstPort));
    if (!svc || !svc.targets.length) return p;
    // (a trace's allBranches and the analysis force each backend by `node|service`)
    const forced = w.forced.get(`${this.name}|${svc.name}`);
    const n = svc.targets.length;
    const i =
      forced !== undefined
        ? forced % n
        : mix(w.world.seed, p.srcIp, p.srcPort, p.dstIp, p.dstPort, p.proto) % n;
    w.lbChoices.push({ host: this.name, lb: svc.name, count: n, chosen: i });
    const t = svc.targets[i]!;
    const after = withPacket(p, { dstIp: t.ip, dstPort: t.port });
    const rule = {
      kind: 'Node',
      id: this.name,
      policy: 'KUBE-SERVICES',
      layer: 'iptables nat',
      rule: `${svc.name} → ${fmt(t.ip)}:${t.port}`,
    };
    w.step(this.name, 'LB', 'DNAT', p, after, rule, `kube-proxy: ${svc.name}`);
    w.ct.setNat(tupleKey(this.name, replyOf(after)), { ...replyOf(p), kind: 'DNAT', rule });
    return after;
  }

  /** The node itself sends a packet. */
  sendFromNode(w: Walk, p0: Packet): void {
    const sent = p0.srcIp ? p0 : withPacket(p0, { srcIp: this.ip });
    w.step(this.name, 'HostStack', 'Sent', p0, sent, undefined, `from ${fmt(sent.srcIp)}`);
    const p = this.kubeProxy(w, sent);
    const local = this.pods.get(p.dstIp);
    if (local) return this.deliver(w, local, p);
    if (p.dstIp === this.ip) {
      w.step(this.name, 'HostStack', 'Delivered', p, p);
      return w.finish('Delivered', this.name, p, 'node');
    }
    this.forward(w, p, false);
  }

  private deliver(w: Walk, pod: LinuxPod, p: Packet): void {
    const after = withPacket(p, { dstMac: pod.mac });
    w.step(
      this.name,
      'Delivery',
      'Delivered',
      p,
      after,
      undefined,
      `to ${pod.namespace}/${pod.name} on cni0`,
    );
    w.finish('Delivered', this.name, after, this.label(pod));
  }

  receive(w: Walk, p0: Packet): void {
    let p = p0;
    w.step(this.name, 'Port', 'Received', p0, p0, undefined, 'on eth0');
    if (p.outer) {
      const o = p.outer;
      if (!this.vxlan || o.dstPort !== this.vxlan.port) {
        return w.stop(
          this.name,
          'Decap',
          'Dropped',
          p,
          'NoRoute',
          this.vxlan
            ? `${vxlanDev(this.vxlan)} listens on UDP ${this.vxlan.port}, not ${o.dstPort}`
            : 'no VXLAN device on this node',
        );
      }
      if (o.vni !== this.vxlan.vni) {
        return w.stop(
          this.name,
          'Decap',
          'Dropped',
          p,
          'NoRoute',
          `VNI ${o.vni} is not ${vxlanDev(this.vxlan)}'s`,
        );
      }
      const inner = withPacket(p, { outer: undefined });
      w.step(
        this.name,
        'Decap',
        'Decapsulated',
        p,
        inner,
        { kind: 'Node', id: this.name, layer: vxlanDev(this.vxlan) },
        `VXLAN VNI ${o.vni}`,
      );
      p = inner;
    }
    // masquerade replies
    const r = w.ct.getNat(tupleKey(this.name, p));
    if (r) {
      const after = withPacket(p, { srcIp: r.srcIp, srcPort: r.srcPort, dstIp: r.dstIp, dstPort: r.dstPort });
      w.step(this.name, 'NAT', 'UnSNAT', p, after, r.rule, 'reply of a masqueraded connection');
      p = after;
    }
    const pod = this.pods.get(p.dstIp);
    if (pod) return this.deliver(w, pod, p);
    if (p.dstIp === this.ip) {
      w.step(this.name, 'HostStack', 'Delivered', p, p, undefined, `${fmt(p.dstIp)} is this node's address`);
      return w.finish('Delivered', this.name, p, 'node');
    }
    if (p.ttl <= 1) {
      return w.stop(this.name, 'HostStack', 'TtlExceeded', p, 'TtlExceeded');
    }
    this.forward(w, withPacket(p, { ttl: p.ttl - 1 }), false);
  }

  /**
   * Route by the pod subnet, flannel's routes, then the default gateway (with masquerade). A pod's
   * packet is routed by the node: its `Forwarded` step takes one off the TTL (a received packet's
   * hop was counted on arrival) and puts the node's MAC on the frame.
   */
  private forward(w: Walk, p0: Packet, fromPod: boolean): void {
    let p = p0;
    if (fromPod && p.ttl <= 1) {
      return w.stop(this.name, 'HostStack', 'TtlExceeded', p, 'TtlExceeded');
    }
    const hop = (q: Packet, mac: number) =>
      withPacket(q, { srcMac: mac, ...(fromPod ? { ttl: q.ttl - 1 } : {}) });
    if (w.looping(`linux:${this.name}`, p)) {
      return w.stop(this.name, 'HostStack', 'Loop', p, 'Loop');
    }
    if (contains(this.podSubnet, p.dstIp)) {
      return w.stop(this.name, 'HostStack', 'NoRoute', p, 'NoRoute', `no pod holds ${fmt(p.dstIp)} on cni0`);
    }
    const peer = this.routes.find((r) => contains(r.dest, p.dstIp));
    if (peer) {
      const vxlan = peer.vtepMac !== undefined ? this.vxlan : undefined;
      const rule = `${fmtPrefix(peer.dest)} via ${fmt(peer.via)}${vxlan ? ` dev ${vxlanDev(vxlan)} onlink` : ''}`;
      const ref = { kind: 'Node', id: this.name, policy: 'Route', layer: 'Linux', rule };
      if (vxlan) {
        const inner = hop(p, vxlan.mac);
        w.step(this.name, 'Routing', 'Forwarded', p, inner, ref, rule);
        const after = withPacket(withPacket(inner, { dstMac: peer.vtepMac! }), {
          outer: {
            srcMac: this.mac,
            dstMac: 0,
            srcIp: this.ip,
            dstIp: peer.via,
            srcPort: 32768 + (mix(1, p.srcIp, p.dstIp, p.srcPort, p.dstPort) % 28000),
            dstPort: vxlan.port,
            vni: vxlan.vni,
          },
        });
        w.step(
          this.name,
          'Encap',
          'Encapsulated',
          inner,
          after,
          { kind: 'Node', id: this.name, layer: vxlanDev(vxlan) },
          `VXLAN VNI ${vxlan.vni} to ${fmt(peer.via)}:${vxlan.port}`,
        );
        return this.wire(w, this, after, peer.via);
      }
      const routed = hop(p, this.mac);
      w.step(this.name, 'Routing', 'Forwarded', p, routed, ref, rule);
      return this.wire(w, this, routed, peer.via);
    }
    if (
      fromPod &&
      !contains(this.clusterCidr, p.dstIp) &&
      (p.proto === 6 || p.proto === 17 || p.proto === 1)
    ) {
      // flannel's ip-masq: SNAT pod traffic leaving the cluster network to the node's address
      const after = withPacket(p, { srcIp: this.ip });
      const rule = {
        kind: 'Node',
        id: this.name,
        policy: 'MASQUERADE',
        layer: 'iptables nat POSTROUTING',
        rule: `! -d ${fmtPrefix(this.clusterCidr)} -j MASQUERADE`,
      };
      w.step(this.name, 'NAT', 'SNAT', p, after, rule, `masquerade to ${fmt(this.ip)}`);
      w.ct.setNat(tupleKey(this.name, replyOf(after)), { ...replyOf(p), kind: 'SNAT', rule });
      p = after;
    }
    if (!this.gateway) {
      return w.stop(this.name, 'HostStack', 'NoRoute', p, 'NoRoute', `no route to ${fmt(p.dstIp)}`);
    }
    const out = hop(p, this.mac);
    w.step(this.name, 'Routing', 'Forwarded', p, out, {
      kind: 'Node',
      id: this.name,
      policy: 'Route',
      layer: 'Linux',
      rule: `default via ${fmt(this.gateway)}`,
    });
    this.wire(w, this, out, this.gateway);
  }
}
