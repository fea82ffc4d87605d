/**
 * Connection tracking (reference vfp-dataplane.md §1.1, §1.4: VFP's stateful layers create a flow
 * and its reverse on the first packet, so replies are handled by the flow, not by the rules). Two
 * tables, both keyed by host and by the tuple a packet carries when it reaches that host:
 *
 * - `nat`: a packet with this tuple gets these addresses back (the reply of a DNAT, SNAT or LB);
 * - `established`: the flows whose replies skip a port's ACL, load-balancing and NAT rules.
 *
 * A trace records into a scratch table layered on the committed one, so it sees earlier traffic
 * and changes nothing; traffic sent through the dataplane commits its scratch table.
 */
import type { Packet, RuleRef } from '../vswitch/contracts.js';

type Tuple = Pick<Packet, 'proto' | 'srcIp' | 'srcPort' | 'dstIp' | 'dstPort'>;

/** The addresses a tracked reply is given back, and the rule whose translation it undoes. */
export interface CtRewrite {
  readonly srcIp: number;
  readonly srcPort: number;
  readonly dstIp: number;
  readonly dstPort: number;
  readonly rule?: RuleRef;
  /** What was translated: `DNAT` (a VIP or host port), `SNAT` (OutBoundNAT, WinNAT, LB source VIP). */
  readonly kind: 'DNAT' | 'SNAT' | 'DNAT+SNAT';
}

export function tupleKey(host: string, t: Tuple): string {
  return `${host}|${t.proto}|${t.srcIp}:${t.srcPort}>${t.dstIp}:${t.dstPort}`;
}

/** The tuple a reply to `t` carries. */
export function replyOf(t: Tuple): Tuple {
  return { proto: t.proto, srcIp: t.dstIp, srcPort: t.dstPort, dstIp: t.srcIp, dstPort: t.srcPort };
}

/** `host|port|dir|tuple`: the flow a port has allowed, as its next packet in `dir` will carry it. */
export function flowKey(host: string, port: string, dir: 'In' | 'Out', t: Tuple): string {
  return tupleKey(`${host}|${port}|${dir}`, t);
}

export class Conntrack {
  private readonly nat = new Map<string, CtRewrite>();
  private readonly established = new Set<string>();
  /**
   * SNAT ports in use per `host|ip|proto`; and per `host|ip|proto|endpoint` for MaxPortPoolUsage.
   * Made by the first port taken: most scratch tables take none.
   */
  private portsMap: Map<string, Set<number>> | undefined;
  /** Bumped by every commit or clear: cached trace results of an older generation are stale. */
  generation = 0;

  constructor(private readonly parent?: Conntrack) {}

  /** A scratch table over this one. */
  child(): Conntrack {
    return new Conntrack(this);
  }

  getNat(key: string): CtRewrite | undefined {
    return this.nat.get(key) ?? this.parent?.getNat(key);
  }

  setNat(key: string, r: CtRewrite): void {
    this.nat.set(key, r);
  }

  isEstablished(key: string): boolean {
    return this.established.has(key) || (this.parent?.isEstablished(key) ?? false);
  }

  establish(key: string): void {
    this.established.add(key);
  }

  portsInUse(pool: string): number {
    return (this.portsMap?.get(pool)?.size ?? 0) + (this.parent?.portsInUse(pool) ?? 0);
  }

  portUsed(pool: string, port: number): boolean {
    return (this.portsMap?.get(pool)?.has(port) ?? false) || (this.parent?.portUsed(pool, port) ?? false);
  }

  takePort(pool: string, port: number): void {
    const ports = (this.portsMap ??= new Map());
    let s = ports.get(pool);
    if (!s) ports.set(pool, (s = new Set()));
    s.add(port);
  }

  /** Whether the scratch table recorded anything. */
  get empty(): boolean {
    return this.nat.size === 0 && this.established.size === 0 && !this.portsMap?.size;
  }

  /** Move a scratch table's entries into this one (traffic commits what its walk recorded). */
  commit(scratch: Conntrack): void {
    for (const [k, v] of scratch.nat) this.nat.set(k, v);
    for (const k of scratch.established) this.established.add(k);
    for (const [k, ports] of scratch.portsMap ?? []) for (const p of ports) this.takePort(k, p);
    this.generation++;
  }

  /** Forget every flow (an HNS restart or a reboot drops VFP's flow state). */
  clear(): void {
    this.nat.clear();
    this.established.clear();
    this.portsMap?.clear();
    this.generation++;
  }

  get size(): { nat: number; established: number } {
    return { nat: this.nat.size, established: this.established.size };
  }
}
