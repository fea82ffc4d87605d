/**
 * Traces on one host (no cluster around it): sources and targets are the host's endpoints (by ID
 * or name), its containers (a v1-attached container ID, a namespace ID), the host itself, and any
 * other address — a packet from an outside address arrives on the uplink; one to it leaves the host
 * and ends `ExitsNetwork`. A cluster (src/cluster) builds its own scope over many hosts.
 */
import { withPacket, type Packet, type RuleRef } from '../vswitch/contracts.js';
import type { PortView } from '../vswitch/view.js';
import { fmt, ip4 } from '../vswitch/v4.js';
import { Conntrack, flowKey, replyOf } from './conntrack.js';
import type { HostPlane } from './plane.js';
import type { Source, Target, TraceScope } from './trace.js';
import type { NetNode, Underlay, Walk, WalkEnd, World } from './walk.js';

/**
 * The MAC of the host's neighbour past its uplink (a locally administered address): frames from
 * outside carry it as their source, frames leaving for outside as their destination.
 */
const OUTSIDE_MAC = 0x02000000fe01;

/** Counts traffic on the endpoints a committed walk crossed. */
export type TrafficCounter = (
  host: string,
  endpoint: string,
  field: 'sent' | 'received' | 'droppedIn' | 'droppedOut',
  packets: number,
  bytes: number,
) => void;

/**
 * The virtualization host of an Azure VM, as the edge of the host's network sees it
 * (src/host/azure.ts `azureEdge`): the platform addresses it answers, the NSG on the NIC a packet
 * crosses, and the addresses the VM's NICs hold (a packet to one of them comes back to the VM:
 * L2Tunnel's hairpin).
 */
export interface AzureEdge {
  platform(p: Packet): PlatformAnswer | undefined;
  /** The NSG verdict for a packet leaving (`Outbound`) or entering (`Inbound`) the VM; undefined: no NSG. */
  nsg(direction: 'Inbound' | 'Outbound', p: Packet): NsgStep | undefined;
  owns(ip: number): boolean;
}

/** An NSG's verdict as a trace step shows it. */
export interface NsgStep {
  readonly allowed: boolean;
  readonly rule: RuleRef;
  readonly detail: string;
}

export interface PlatformAnswer {
  /** Where a delivered packet ends: `platform:<name>` (`wireserver`, `imds`). */
  readonly name: string;
  /** The platform address, as text. */
  readonly address: string;
  readonly delivered: boolean;
  /** The service that answers, or why nothing does. */
  readonly detail: string;
}

/**
 * Everything off the host is outside the model: the packet leaves it, its frame addressed to the
 * outside neighbour (as a cluster's underlay addresses a frame to the next hop it switches it to).
 * On a host whose platform answers some addresses (an Azure VM's wireserver and IMDS) the packet
 * is delivered there (`platform:<name>`) or refused (DeniedIn).
 */
class EdgeUnderlay implements Underlay {
  readonly hairpins: boolean;

  constructor(private readonly azure?: AzureEdge) {
    this.hairpins = azure !== undefined;
  }

  send(w: Walk, from: NetNode, p: Packet, nextHop: number): void {
    const azure = this.azure;
    if (azure && leavesVm(w, azure, from, p)) return;
    // an address of this VM's NICs: the host sends it back (L2Tunnel's hairpin; a secondary IP)
    if (azure && !p.outer && azure.owns(p.dstIp)) return hairpinToVm(w, azure, from, p, OUTSIDE_MAC);
    const out = p.outer
      ? withPacket(p, { outer: { ...p.outer, dstMac: OUTSIDE_MAC } })
      : withPacket(p, { dstMac: OUTSIDE_MAC });
    w.step(
      from.name,
      'Underlay',
      'ExitsNetwork',
      p,
      out,
      undefined,
      `towards ${fmt(nextHop)}: outside the modelled network`,
    );
    w.finish('ExitsNetwork', from.name, out, `external:${fmt(p.outer ? p.outer.dstIp : p.dstIp)}`);
  }
}

/**
 * A packet leaves an Azure VM (`from`) for the virtualization host: a platform address answers
 * or refuses it there (NSGs do not filter the platform: Azure's platform rule), else the NIC's NSG
 * judges it outbound. True when the walk ended there (answered, refused or denied); a cluster's
 * VNet fabric (src/cluster/underlay.ts) and a lone VM's edge both start with it.
 */
export function leavesVm(w: Walk, azure: AzureEdge, from: NetNode, p: Packet): boolean {
  if (p.outer) return false;
  const answer = azure.platform(p);
  if (!answer) return !nsgPasses(w, azure, from.name, 'Outbound', p);
  const out = withPacket(p, { dstMac: OUTSIDE_MAC });
  const rule = {
    kind: 'AzureHost',
    id: from.name,
    name: answer.name,
    policy: 'Platform',
    rule: `${answer.address} ${answer.delivered ? 'answers' : 'refuses'}`,
  };
  w.step(from.name, 'Underlay', answer.delivered ? 'Delivered' : 'Refused', p, out, rule, answer.detail);
  w.finish(answer.delivered ? 'Delivered' : 'DeniedIn', from.name, out, `platform:${answer.name}`);
  return true;
}

/**
 * The virtualization host sends a packet for an address of the sending VM's own NICs back to it
 * (L2Tunnel's hairpin), through the NIC's NSG inbound; `srcMac` is the host's side of the wire.
 */
export function hairpinToVm(w: Walk, azure: AzureEdge, vm: NetNode, p: Packet, srcMac: number): void {
  if (!nsgPasses(w, azure, vm.name, 'Inbound', p)) return;
  const back = withPacket(p, { srcMac });
  w.step(
    vm.name,
    'Underlay',
    'Forwarded',
    p,
    back,
    { kind: 'AzureHost', id: vm.name, policy: 'VNet', rule: `${fmt(p.dstIp)} → this VM` },
    'the virtualization host sends it back to the VM whose NIC holds the address',
  );
  vm.receive(w, back);
}

/**
 * The NSG on the VM's NIC, statefully: the reply of a flow it allowed passes without a rule. True
 * when the packet goes on; otherwise the walk ends (DeniedOut leaving the VM, DeniedIn entering).
 */
export function nsgPasses(
  w: Walk,
  azure: AzureEdge,
  host: string,
  direction: 'Inbound' | 'Outbound',
  p: Packet,
): boolean {
  const dir = direction === 'Outbound' ? 'Out' : 'In';
  if (w.ct.isEstablished(flowKey(host, 'nsg', dir, p))) return true;
  const v = azure.nsg(direction, p);
  if (!v) return true;
  if (!v.allowed) {
    w.stop(host, 'NSG', 'Denied', p, direction === 'Outbound' ? 'DeniedOut' : 'DeniedIn', v.detail, v.rule);
    return false;
  }
  w.step(host, 'NSG', 'Allowed', p, p, v.rule, v.detail);
  w.ct.establish(flowKey(host, 'nsg', dir === 'Out' ? 'In' : 'Out', replyOf(p)));
  return true;
}

function lower(s: string): string {
  return s.toLowerCase().replace(/[{}]/g, '');
}

/** Find a local endpoint port by ID, name, container (v1 attachment) or namespace ID. */
export function findPort(plane: HostPlane, ref: string): PortView | undefined {
  return plane.view().portByRef.get(lower(ref));
}

export function portSource(plane: HostPlane, port: PortView): Source {
  if (port.compartment === 1) return hostSource(plane, port.ip);
  const dns = port.rec.Dns;
  return {
    label: port.name || port.id,
    node: plane.name,
    ip: port.ip,
    send: (w, p) => plane.sendFromPort(w, port, p),
    dns: {
      ...(dns.Domain ? { domain: dns.Domain } : {}),
      search: dns.Search.length ? dns.Search : (port.network.rec.Dns.Search ?? []),
      servers: dns.ServerList.length ? dns.ServerList : port.network.rec.Dns.ServerList,
    },
  };
}

export function hostSource(plane: HostPlane, ip?: number): Source {
  return {
    label: plane.name,
    node: plane.name,
    ip: ip ?? plane.primaryIp(),
    // the host sends from the address of the interface its route to the destination leaves by
    ...(ip === undefined ? { ipFor: (dst: number) => plane.sourceFor(dst) } : {}),
    send: (w, p) => plane.sendFromHost(w, p),
  };
}

/** An outside sender whose packets arrive on `plane`'s uplink (through the VM's NSG on Azure). */
export function outsideSource(plane: HostPlane, ip: number, azure?: AzureEdge): Source {
  return {
    label: fmt(ip),
    node: plane.name,
    ip,
    send: (w, p) => {
      const at = withPacket(p, { srcMac: OUTSIDE_MAC, dstMac: plane.hostMac() });
      w.step(
        plane.name,
        'Underlay',
        'Arrived',
        p,
        at,
        undefined,
        `from ${fmt(ip)}, outside the modelled network`,
      );
      if (azure && !nsgPasses(w, azure, plane.name, 'Inbound', at)) return;
      plane.receive(w, at);
    },
  };
}

export class HostScope implements TraceScope {
  readonly world: World;

  constructor(
    private readonly plane: HostPlane,
    seed: number,
    private readonly counter: TrafficCounter,
    /** The virtualization host of an Azure VM (platform addresses, NSGs, hairpin), if it is one. */
    private readonly azure?: AzureEdge,
  ) {
    this.world = {
      underlay: new EdgeUnderlay(azure),
      conntrack: new Conntrack(),
      seed,
      generation: () => plane.generation(),
    };
  }

  /** `host` or the host's name. */
  private isHost(ref: string): boolean {
    return ref === 'host' || ref.toLowerCase() === this.plane.name.toLowerCase();
  }

  source(ref: string): Source | undefined {
    const plane = this.plane;
    if (this.isHost(ref)) return hostSource(plane);
    const ip = ip4(ref);
    if (ip !== undefined) {
      const local = plane.view().localByIp.get(ip);
      if (local) return portSource(plane, local);
      if (plane.ownsIp(ip)) return hostSource(plane, ip);
      return outsideSource(plane, ip, this.azure);
    }
    const port = findPort(plane, ref);
    return port ? portSource(plane, port) : undefined;
  }

  target(ref: string): Target | undefined {
    const plane = this.plane;
    if (this.isHost(ref)) return { label: plane.name, ip: plane.primaryIp() };
    const port = findPort(plane, ref);
    return port && port.ip ? { label: port.name || port.id, ip: port.ip } : undefined;
  }

  replier(end: WalkEnd): Source | undefined {
    const plane = this.plane;
    if (end.at === 'host') return hostSource(plane, end.packet.dstIp);
    if (end.at?.startsWith('endpoint:')) {
      const port = plane.view().ports.get(end.at.slice('endpoint:'.length));
      return port ? portSource(plane, port) : undefined;
    }
    if (end.at?.startsWith('external:')) return outsideSource(plane, end.packet.dstIp, this.azure);
    // the Azure host answers from the platform's address (no NSG filters the platform)
    if (end.at?.startsWith('platform:')) return outsideSource(plane, end.packet.dstIp);
    return undefined;
  }

  count(w: Walk, packets: number, bytes: number): void {
    for (const c of w.counters) this.counter(c.host, c.endpoint, c.field, packets, bytes);
  }
}
