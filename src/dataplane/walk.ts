/**
 * One packet's walk through the modelled network (DESIGN: dataplane/): the nodes it can reach
 * (Windows hosts, Linux nodes, external hosts), the underlay between them, and the record of every
 * step — host, component, action, the rule that decided, the packet before and after — ending in a
 * disposition. The forwarding logic lives in the nodes (src/dataplane/plane.ts for a Windows host,
 * src/cluster for the others); the walk only records, guards against loops and carries the state a
 * trace needs (scratch conntrack, load-balancer choices, counters to commit).
 */
import type { Component, Disposition, Observation, Packet, RuleRef } from '../vswitch/contracts.js';
import type { Conntrack } from './conntrack.js';
import type { PortView } from '../vswitch/view.js';

/** A node of the modelled network: something a packet on the underlay can be handed to. */
export interface NetNode {
  readonly name: string;
  /** `Windows`, `Linux` or `External`. */
  readonly kind: 'Windows' | 'Linux' | 'External';
  /** A frame for this node arrives on its uplink. */
  receive(w: Walk, p: Packet): void;
}

/** The physical network between nodes. */
export interface Underlay {
  /**
   * Carry a packet that `from` puts on the wire towards the underlay address `nextHop` (the
   * destination itself when on-link, else a gateway) to the node that owns it, recording the
   * routers on the way; ends the walk when nothing owns the address.
   */
  send(w: Walk, from: NetNode, p: Packet, nextHop: number): void;
  /**
   * Whether a frame can come back to its sender through it (an Azure VM's virtualization host
   * does: L2Tunnel sends same-node traffic there). Absent: it cannot.
   */
  readonly hairpins?: boolean;
}

/** What the dataplane sees: the nodes, the underlay, the committed flow state and the seed. */
export interface World {
  readonly underlay: Underlay;
  readonly conntrack: Conntrack;
  /** Seed of load-balancer choices. */
  readonly seed: number;
  /**
   * A number that moves with every node's state (HNS, routes, the fabric): with the conntrack's own
   * generation, the flow table's key.
   */
  generation(): number;
}

/** Where a walk ended. */
export interface WalkEnd {
  readonly disposition: Disposition;
  readonly host: string;
  /** What received it: `endpoint:<id>`, `host`, `node`, `external:<ip>`, `pod:<ns>/<name>` … */
  readonly at?: string;
  readonly packet: Packet;
  readonly detail?: string;
}

/** A load balancer's choice made during a walk (for `allBranches`). */
export interface LbChoice {
  readonly host: string;
  readonly lb: string;
  readonly count: number;
  readonly chosen: number;
}

/** Counter updates a walk makes if it is committed as traffic. */
export interface CounterUpdate {
  readonly host: string;
  readonly endpoint: string;
  readonly field: 'sent' | 'received' | 'droppedIn' | 'droppedOut';
}

/**
 * An HNS ACL stage a probe walk passed (src/analysis reachability): the port, the direction and
 * the packet as the stage saw it; `at` is how many observations came before it.
 */
export interface AclCheck {
  readonly host: string;
  readonly port: PortView;
  readonly dir: 'In' | 'Out';
  readonly packet: Packet;
  readonly at: number;
}

const MAX_STEPS = 512;
const NONE_FORCED: ReadonlyMap<string, number> = new Map();

export class Walk {
  readonly observations: Observation[] = [];
  readonly lbChoices: LbChoice[] = [];
  readonly counters: CounterUpdate[] = [];
  end: WalkEnd | undefined;
  private visitsMap: Map<string, number> | undefined;

  constructor(
    readonly world: World,
    /** Scratch flow state (a child of the world's). */
    readonly ct: Conntrack,
    /** Forced backend index per `host|lb` (allBranches re-runs). */
    readonly forced: ReadonlyMap<string, number> = NONE_FORCED,
    /**
     * A probe (the analysis' path finding): every HNS ACL stage is recorded here and lets the
     * packet on, whatever its rules say — the analysis works out their verdicts for all packets.
     */
    readonly checks?: AclCheck[],
  ) {}

  /**
   * A probe's flow state made on a port (`probe` walks only): packets equal to `matches` arriving
   * at that port in direction `dir` are a reply of an allowed flow — the stateful layers let them
   * through without their rules. The analysis works out which packets of a class those are; the
   * probe itself never short-cuts a port's rules.
   */
  readonly established: {
    host: string;
    portId: string;
    dir: 'In' | 'Out';
    matches: Pick<Packet, 'proto' | 'srcIp' | 'srcPort' | 'dstIp' | 'dstPort'>;
    at: number;
  }[] = [];

  step(
    host: string,
    component: Component,
    action: string,
    before: Packet,
    after: Packet = before,
    rule?: RuleRef,
    detail?: string,
  ): void {
    if (this.end) return;
    // literal shapes, not spreads of conditional objects (V8's slow clone path)
    const o: Observation = rule
      ? detail
        ? { host, component, action, rule, detail, packetBefore: before, packetAfter: after }
        : { host, component, action, rule, packetBefore: before, packetAfter: after }
      : detail
        ? { host, component, action, detail, packetBefore: before, packetAfter: after }
        : { host, component, action, packetBefore: before, packetAfter: after };
    this.observations.push(o);
    if (this.observations.length > MAX_STEPS) {
      this.finish('Loop', host, after, undefined, `more than ${MAX_STEPS} steps`);
    }
  }

  /** Record a last step that leaves the packet as it is, and end the walk with `disposition`. */
  stop(
    host: string,
    component: Component,
    action: string,
    p: Packet,
    disposition: Disposition,
    detail?: string,
    rule?: RuleRef,
  ): void {
    this.step(host, component, action, p, p, rule, detail);
    this.finish(disposition, host, p);
  }

  finish(disposition: Disposition, host: string, packet: Packet, at?: string, detail?: string): void {
    if (this.end) return;
    this.end = { disposition, host, packet, ...(at ? { at } : {}), ...(detail ? { detail } : {}) };
  }

  /**
   * Note a visit of `where` with this packet; true when it is the third (the packet goes round in
   * circles: Batfish's LOOP). Routers and hosts call it once per forwarding decision.
   */
  looping(where: string, p: Packet): boolean {
    const k = `${where}|${p.proto}|${p.srcIp}:${p.srcPort}>${p.dstIp}:${p.dstPort}|${p.outer ? p.outer.dstIp : 0}`;
    const visits = (this.visitsMap ??= new Map());
    const n = (visits.get(k) ?? 0) + 1;
    visits.set(k, n);
    return n > 2;
  }

  count(host: string, endpoint: string, field: CounterUpdate['field']): void {
    this.counters.push({ host, endpoint, field });
  }

  /** Side effects a committed walk applies after its flow state (an OVS bridge's conntrack, counters, learn). */
  readonly deferred: (() => void)[] = [];
}
