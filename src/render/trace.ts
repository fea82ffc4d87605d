/**
 * Traces as text at ovn-trace's three levels (anchors.md A1; observations after Antrea's component ×
 * action, A2): `detailed` shows every observation with its rule, detail and the packet fields it
 * changed; `summary` one line per observation under a heading per host; `minimal` only the steps
 * that change the packet (DNAT, SNAT, un-NAT, VXLAN encapsulation, MAC rewrite) and the disposition,
 * with no GUIDs — the form meant for regression tests. Rendering is pure: the same result gives the
 * same text. JSON is `traceJson` (src/dataplane/trace.ts).
 *
 *   const r = host.trace({ from: 'web', to: '8.8.8.8' });
 *   console.log(renderTrace(r, 'summary', { names: traceNames(host) }));
 */
import { formatMac } from '../addr/mac.js';
import type { DnsOutcome, TraceResult } from '../dataplane/trace.js';
import type { Host } from '../host/host.js';
import {
  tunnelName,
  type Observation,
  type OuterHeader,
  type Packet,
  type RuleRef,
} from '../vswitch/contracts.js';
import { fmt } from '../vswitch/v4.js';

export const TRACE_LEVELS = ['detailed', 'summary', 'minimal'] as const;
export type TraceLevel = (typeof TRACE_LEVELS)[number];

/** Names of HNS objects by ID (any case, with or without braces); undefined when unknown. */
export type NameLookup = (id: string) => string | undefined;

export interface TraceRenderOptions {
  /**
   * Names of endpoints and networks by ID (`traceNames(host)`), so a trace that ends at an endpoint
   * names it. Names a trace's own rules carry are used in any case.
   */
  readonly names?: NameLookup;
}

function key(id: string): string {
  return id.replace(/[{}]/g, '').toUpperCase();
}

/** The names of the endpoints and networks of some hosts (a cluster's Windows nodes, say). */
export function traceNames(...hosts: readonly Host[]): NameLookup {
  const names = new Map<string, string>();
  for (const h of hosts) {
    const s = h.hns.store;
    for (const [id, n] of s.networks) if (n.Name) names.set(key(id), n.Name);
    for (const [id, e] of s.endpoints) if (e.Name) names.set(key(id), e.Name);
  }
  return (id) => names.get(key(id));
}

/** Render a trace at a level: lines joined by `\n`, no trailing newline. */
export function renderTrace(
  result: TraceResult,
  level: TraceLevel,
  options: TraceRenderOptions = {},
): string {
  const ctx = new Ctx(result, options.names);
  const lines =
    level === 'detailed'
      ? detailed(ctx, result)
      : level === 'summary'
        ? summary(ctx, result)
        : minimal(ctx, result);
  return lines.join('\n');
}

// ───────────────────────────── naming and formatting ─────────────────────────────

/** Names from the caller and from the rules of every observation in the result (branches included). */
class Ctx {
  private readonly own = new Map<string, string>();

  constructor(
    result: TraceResult,
    private readonly lookup: NameLookup | undefined,
  ) {
    this.collect(result);
  }

  private collect(r: TraceResult): void {
    for (const o of r.observations) if (o.rule?.name) this.own.set(key(o.rule.id), o.rule.name);
    if (r.dns?.query) this.collect(r.dns.query);
    for (const b of r.branches ?? []) this.collect(b);
    if (r.reply) this.collect(r.reply);
  }

  name(id: string): string | undefined {
    return this.lookup?.(id) ?? this.own.get(key(id));
  }
}

const PROTOCOL_NAMES: Readonly<Record<number, string>> = { 1: 'ICMP', 6: 'TCP', 17: 'UDP' };

function protoName(p: number): string {
  return PROTOCOL_NAMES[p] ?? `protocol ${p}`;
}

function ported(p: number): boolean {
  return p === 6 || p === 17;
}

function mac(n: number): string {
  return n ? formatMac(n) : 'none';
}

function addr(ip: number, port: number, proto: number): string {
  return ported(proto) ? `${fmt(ip)}:${port}` : fmt(ip);
}

/** `TCP 10.0.0.4:50000 → 10.0.0.5:80`. */
function flow(p: Packet): string {
  return `${protoName(p.proto)} ${addr(p.srcIp, p.srcPort, p.proto)} → ${addr(p.dstIp, p.dstPort, p.proto)}`;
}

function outerText(o: OuterHeader): string {
  return `${tunnelName(o)} VNI ${o.vni} ${fmt(o.srcIp)}:${o.srcPort} → ${fmt(o.dstIp)}:${o.dstPort} (${mac(o.srcMac)} → ${mac(o.dstMac)})`;
}

/** A packet in full: the flow, MACs, TTL and the outer header. */
function packetText(p: Packet): string {
  const parts = [flow(p), `TTL ${p.ttl}`];
  if (p.srcMac || p.dstMac) parts.push(`MAC ${mac(p.srcMac)} → ${mac(p.dstMac)}`);
  if (p.outer) parts.push(`in ${outerText(p.outer)}`);
  return parts.join(', ');
}

function sameOuter(a: OuterHeader | undefined, b: OuterHeader | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.srcMac === b.srcMac &&
    a.dstMac === b.dstMac &&
    a.srcIp === b.srcIp &&
    a.dstIp === b.dstIp &&
    a.srcPort === b.srcPort &&
    a.dstPort === b.dstPort &&
    a.vni === b.vni
  );
}

/** `side 1.2.3.4:5 → 6.7.8.9:10`, `sideIp …` or `sidePort …`: whichever changed. */
function endChange(side: string, bi: number, bp: number, ai: number, ap: number, out: string[]): void {
  if (bi !== ai && bp !== ap) out.push(`${side} ${fmt(bi)}:${bp} → ${fmt(ai)}:${ap}`);
  else if (bi !== ai) out.push(`${side}Ip ${fmt(bi)} → ${fmt(ai)}`);
  else if (bp !== ap) out.push(`${side}Port ${bp} → ${ap}`);
}

/** `srcMac …`, `dstMac …`: whichever MAC changed. */
function macChanges(b: Packet, a: Packet, out: string[]): void {
  if (b.srcMac !== a.srcMac) out.push(`srcMac ${mac(b.srcMac)} → ${mac(a.srcMac)}`);
  if (b.dstMac !== a.dstMac) out.push(`dstMac ${mac(b.dstMac)} → ${mac(a.dstMac)}`);
}

/**
 * The fields one step changed, `before → after`; an address and port that both changed read as one.
 * (src/cluster/flows.ts `packetChanges` is another thing: a whole walk's changes as one summary.)
 */
export function packetFieldChanges(b: Packet, a: Packet): string[] {
  const out: string[] = [];
  macChanges(b, a, out);
  endChange('src', b.srcIp, b.srcPort, a.srcIp, a.srcPort, out);
  endChange('dst', b.dstIp, b.dstPort, a.dstIp, a.dstPort, out);
  if (b.proto !== a.proto) out.push(`protocol ${protoName(b.proto)} → ${protoName(a.proto)}`);
  if (b.ttl !== a.ttl) out.push(`TTL ${b.ttl} → ${a.ttl}`);
  const bo = b.outer;
  const ao = a.outer;
  if (!bo && ao) out.push(`+outer ${outerText(ao)}`);
  else if (bo && !ao) out.push(`-outer ${tunnelName(bo)} VNI ${bo.vni}`);
  else if (bo && ao && !sameOuter(bo, ao)) {
    if (bo.srcMac !== ao.srcMac) out.push(`outer srcMac ${mac(bo.srcMac)} → ${mac(ao.srcMac)}`);
    if (bo.dstMac !== ao.dstMac) out.push(`outer dstMac ${mac(bo.dstMac)} → ${mac(ao.dstMac)}`);
    endChange('outer src', bo.srcIp, bo.srcPort, ao.srcIp, ao.srcPort, out);
    endChange('outer dst', bo.dstIp, bo.dstPort, ao.dstIp, ao.dstPort, out);
    if (bo.vni !== ao.vni) out.push(`VNI ${bo.vni} → ${ao.vni}`);
  }
  return out;
}

/**
 * What minimal shows of a step: the addresses and ports a translation changed, the tunnel a packet
 * entered or left (VNI and underlay addresses), the MAC a rewrite set — not the MACs and hashed
 * outer source ports that go with every encapsulation.
 */
function minimalChanges(o: Observation): string[] {
  const b = o.packetBefore;
  const a = o.packetAfter;
  const out: string[] = [];
  if (o.component === 'MacRewrite') macChanges(b, a, out);
  endChange('src', b.srcIp, b.srcPort, a.srcIp, a.srcPort, out);
  endChange('dst', b.dstIp, b.dstPort, a.dstIp, a.dstPort, out);
  if (!b.outer && a.outer)
    out.push(
      `${tunnelName(a.outer)} VNI ${a.outer.vni} ${fmt(a.outer.srcIp)} → ${fmt(a.outer.dstIp)}:${a.outer.dstPort}`,
    );
  else if (b.outer && !a.outer) out.push(`${tunnelName(b.outer)} VNI ${b.outer.vni}`);
  return out;
}

function shortId(id: string): string {
  return /^[0-9A-Fa-f]{8}-/.test(id) ? id.slice(0, 8) : id;
}

/** The object a rule belongs to: in full (`Endpoint web 7D01…`), short (`web`, `Endpoint 7D018FE0`), or by name. */
function owner(ctx: Ctx, r: RuleRef, form: 'full' | 'short' | 'name'): string | undefined {
  const name = r.name ?? ctx.name(r.id);
  const plain = r.kind === 'Host' || r.kind === 'Router' || !/^[0-9A-Fa-f]{8}-/.test(r.id);
  if (form === 'name') return name ?? (plain ? r.id : undefined);
  if (form === 'short') return name ?? (plain ? r.id : `${r.kind} ${shortId(r.id)}`);
  if (plain) return `${r.kind} ${name && name !== r.id ? `${name} (${r.id})` : r.id}`;
  return `${r.kind} ${name ? `${name} ` : ''}${r.id}`;
}

function policyText(r: RuleRef): string | undefined {
  if (!r.policy) return undefined;
  return r.index !== undefined ? `${r.policy}#${r.index}` : r.policy;
}

/** Every part of a rule reference (detailed). */
function ruleFull(ctx: Ctx, r: RuleRef): string {
  const parts = [owner(ctx, r, 'full')!];
  if (r.policy) parts.push(`policy ${r.policy}${r.index !== undefined ? ` [${r.index}]` : ''}`);
  if (r.ruleId !== undefined) parts.push(`Id ${r.ruleId}`);
  if (r.priority !== undefined) parts.push(`priority ${r.priority}`);
  if (r.layer) parts.push(`layer ${r.layer}`);
  if (r.rule) parts.push(`rule ${r.rule}`);
  return parts.join(', ');
}

/** `[web ACL#1 allow-in-80]` (summary). */
function ruleShort(ctx: Ctx, r: RuleRef): string {
  const parts = [owner(ctx, r, 'short')!];
  const pol = policyText(r);
  if (pol) parts.push(pol);
  const which = r.ruleId ?? r.rule;
  if (which && which !== r.policy) parts.push(which);
  return `[${parts.join(' ')}]`;
}

/** `OutBoundNAT a_cbr0`, `LoadBalancer`, `WinNAT nat` (minimal: no GUIDs). */
function ruleMinimal(ctx: Ctx, r: RuleRef): string {
  const what = r.layer === 'WinNAT' ? 'WinNAT' : r.kind === 'LoadBalancer' || !r.policy ? r.kind : r.policy;
  const who = owner(ctx, r, 'name');
  const parts = [what];
  if (who && who !== what) parts.push(who);
  if (r.ruleId !== undefined && !/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-/.test(r.ruleId)) parts.push(r.ruleId);
  return parts.join(' ');
}

/** Where the trace ended, in words: `endpoint web (7D01…)`, `the host`, `external 8.8.8.8`. */
function atText(ctx: Ctx, r: TraceResult, form: 'full' | 'short' | 'name'): string | undefined {
  const at = r.at;
  if (!at) return undefined;
  if (at.startsWith('endpoint:')) {
    const id = at.slice('endpoint:'.length);
    const name = ctx.name(id);
    if (form === 'full') return name ? `endpoint ${name} (${id})` : `endpoint ${id}`;
    if (form === 'short') return `endpoint ${name ?? shortId(id)}`;
    return `endpoint ${name ?? fmt(r.final.dstIp)}`;
  }
  if (at === 'host') return 'the host';
  if (at === 'node') return 'the node';
  if (at.startsWith('external:')) return `external ${at.slice('external:'.length)}`;
  if (at.startsWith('pod:')) return `pod ${at.slice('pod:'.length)}`;
  return at;
}

function dispositionText(ctx: Ctx, r: TraceResult, form: 'full' | 'short' | 'name'): string {
  const at = atText(ctx, r, form);
  let s = `${r.disposition}${at ? ` at ${at}` : ''} on ${r.host}`;
  if (r.detail) s += `: ${r.detail}`;
  return s;
}

const GUID = /^\{?[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}?$/;

function requestText(r: TraceResult, label: (ref: string, ip: number) => string = (ref) => ref): string {
  const q = r.request;
  const ports = ported(q.protocol) ? ` ${q.sourcePort} → ${q.destinationPort}` : '';
  return `${label(q.from, r.packet.srcIp)} → ${label(q.to, r.packet.dstIp)}, ${protoName(q.protocol)}${ports}`;
}

function indent(lines: readonly string[], by: string): string[] {
  return lines.map((l) => (l ? by + l : l));
}

/** The observations of the walk itself: those of a DNS query shown in its own block are left out. */
function ownObservations(r: TraceResult): readonly Observation[] {
  const q = r.dns?.query;
  if (!q) return r.observations;
  const inQuery = new Set(q.observations);
  return r.observations.filter((o) => !inQuery.has(o));
}

function dnsAnswer(d: DnsOutcome): string {
  return d.address !== undefined
    ? `${d.name} → ${d.fqdn ?? d.name} = ${fmt(d.address)}`
    : `${d.name}: not resolved${d.reason ? ` (${d.reason})` : ''}`;
}

/** The LB fork the branches follow (the first load balancer with a choice). */
function forkOf(r: TraceResult): TraceResult['lbChoices'][number] | undefined {
  return r.lbChoices.find((c) => c.count > 1);
}

function lbText(ctx: Ctx, c: TraceResult['lbChoices'][number], form: 'full' | 'short'): string {
  const name = ctx.name(c.lb);
  const id = form === 'full' ? c.lb : shortId(c.lb);
  return `LoadBalancer ${name ? `${name} (${id})` : id} on ${c.host}`;
}

// ───────────────────────────── detailed ─────────────────────────────

function detailed(ctx: Ctx, r: TraceResult, nested = false): string[] {
  const out: string[] = [];
  if (!nested) out.push(`Trace ${requestText(r)}`);
  if (r.dns && !nested) {
    out.push('', `DNS ${dnsAnswer(r.dns)}`);
    out.push(`  names tried: ${r.dns.tried.length ? r.dns.tried.join(', ') : '(none)'}`);
    if (r.dns.query) {
      out.push(`  query ${requestText(r.dns.query)}: ${dispositionText(ctx, r.dns.query, 'full')}`);
      out.push(...indent(detailed(ctx, r.dns.query, true), '    '));
    }
  }
  out.push('', `Packet ${packetText(r.packet)}`);
  let host: string | undefined;
  let n = 0;
  for (const o of ownObservations(r)) {
    if (o.host !== host) {
      host = o.host;
      out.push('', host);
    }
    n++;
    out.push(`  ${n}. ${o.component} ${o.action}${o.detail ? `: ${o.detail}` : ''}`);
    if (o.rule) out.push(`       rule: ${ruleFull(ctx, o.rule)}`);
    const ch = packetFieldChanges(o.packetBefore, o.packetAfter);
    if (ch.length) out.push(`       packet: ${ch.join(', ')}`);
  }
  out.push('');
  for (const c of r.lbChoices)
    out.push(`Load balancing: ${lbText(ctx, c, 'full')} chose backend ${c.chosen + 1} of ${c.count}`);
  out.push(`Disposition: ${dispositionText(ctx, r, 'full')}`);
  out.push(`Final packet ${packetText(r.final)}`);
  if (r.reply) {
    out.push('', `Reply ${requestText(r.reply)}`);
    out.push(...indent(detailed(ctx, r.reply, true), '  '));
  }
  branches(ctx, r, out, (b) => detailed(ctx, b, true));
  return out;
}

function branches(ctx: Ctx, r: TraceResult, out: string[], render: (b: TraceResult) => string[]): void {
  if (!r.branches?.length) return;
  const fork = forkOf(r);
  out.push(
    '',
    `Branches: ${r.branches.length}, one per backend of ${fork ? lbText(ctx, fork, 'short') : 'the load balancer'}`,
  );
  r.branches.forEach((b, i) => {
    out.push(`  Branch ${i + 1} of ${r.branches!.length}:`);
    out.push(...indent(render(b), '    '));
  });
}

// ───────────────────────────── summary ─────────────────────────────

function summary(ctx: Ctx, r: TraceResult, nested = false): string[] {
  const out: string[] = [];
  if (!nested)
    out.push(`Trace ${requestText(r)}${r.disposition === 'NameNotResolved' ? '' : `: ${flow(r.packet)}`}`);
  if (r.dns && !nested) {
    let line = `DNS ${dnsAnswer(r.dns)}`;
    if (r.dns.tried.length) line += ` (tried ${r.dns.tried.join(', ')})`;
    out.push(line);
    if (r.dns.query) out.push(`  query: ${dispositionText(ctx, r.dns.query, 'short')}`);
  }
  let host: string | undefined;
  for (const o of ownObservations(r)) {
    if (o.host !== host) {
      host = o.host;
      out.push(host);
    }
    const rule = o.rule ? ` ${ruleShort(ctx, o.rule)}` : '';
    out.push(`  ${o.component} ${o.action}${rule}${o.detail ? `  ${o.detail}` : ''}`);
  }
  out.push(`→ ${dispositionText(ctx, r, 'short')}`);
  if (r.reply) {
    out.push(`Reply ${requestText(r.reply)}`);
    out.push(...indent(summary(ctx, r.reply, true), '  '));
  }
  branches(ctx, r, out, (b) => summary(ctx, b, true));
  return out;
}

// ───────────────────────────── minimal ─────────────────────────────

/** The components whose packet changes minimal shows (translations, tunnels, MAC rewrite). */
const MINIMAL_COMPONENTS: ReadonlySet<string> = new Set([
  'LB',
  'NAT',
  'Conntrack',
  'Encap',
  'Decap',
  'MacRewrite',
]);

/** The observation that ended a failed walk, if it names a rule (an ACL deny, say). */
function decidingRule(r: TraceResult): RuleRef | undefined {
  if (r.disposition === 'Delivered' || r.disposition === 'ExitsNetwork') return undefined;
  return r.observations.at(-1)?.rule;
}

function minimal(ctx: Ctx, r: TraceResult, nested = false): string[] {
  const out: string[] = [];
  // an object given by GUID reads as its name, else its address
  const label = (ref: string, ip: number) => (GUID.test(ref) ? (ctx.name(ref) ?? fmt(ip)) : ref);
  if (!nested) out.push(`trace ${requestText(r, label)}`);
  if (r.dns && !nested) {
    const q = r.dns.query ? ` (query ${r.dns.query.disposition} on ${r.dns.query.host})` : '';
    out.push(`dns ${r.dns.address !== undefined ? dnsAnswer(r.dns) : `${r.dns.name}: not resolved`}${q}`);
  }
  for (const o of ownObservations(r)) {
    if (!MINIMAL_COMPONENTS.has(o.component)) continue;
    const ch = minimalChanges(o);
    if (!ch.length) continue;
    const by = o.rule ? ` (${ruleMinimal(ctx, o.rule)})` : '';
    out.push(`${o.host}: ${o.action} ${ch.join(', ')}${by}`);
  }
  const deciding = decidingRule(r);
  const at = atText(ctx, r, 'name');
  out.push(
    `${r.disposition}${at ? ` at ${at}` : ''} on ${r.host}${deciding ? ` by ${ruleMinimal(ctx, deciding)}` : ''}`,
  );
  if (r.reply) {
    out.push(`reply ${flow(r.reply.packet)}`);
    out.push(...indent(minimal(ctx, r.reply, true), '  '));
  }
  if (r.branches?.length) {
    r.branches.forEach((b, i) => {
      out.push(`branch ${i + 1} of ${r.branches!.length}`);
      out.push(...indent(minimal(ctx, b, true), '  '));
    });
  }
  return out;
}
