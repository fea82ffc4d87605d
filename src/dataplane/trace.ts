/**
 * Traces and traffic (DESIGN: dataplane/; anchors.md A1/A2): a request names where a packet starts
 * and where it goes — an endpoint, a container, a pod, a node, a service, a DNS name or an IP — and
 * the answer is the ordered observations of its walk with the rule behind each, and a disposition.
 * A trace changes nothing (its flow state is scratch); `send` is traffic: it commits the flow state
 * and moves the endpoint counters HNS reports. Results of traces are cached per request in a flow
 * table keyed by the world's generation, so a repeated trace on an unchanged world is a lookup.
 *
 *   runTrace(scope, { from: 'web-1', to: '10.96.0.10', protocol: 'TCP', destinationPort: 80 })
 */
import { hnsError } from '../core/errors.js';
import {
  ICMP,
  packet,
  reversed,
  TCP,
  UDP,
  withPacket,
  type Disposition,
  type Observation,
  type Packet,
} from '../vswitch/contracts.js';
import { fmt, ip4 } from '../vswitch/v4.js';
import { formatMac } from '../addr/mac.js';
import type { JsonObject } from '../core/json.js';
import { Conntrack } from './conntrack.js';
import { Walk, type AclCheck, type LbChoice, type WalkEnd, type World } from './walk.js';

/** What a trace or send is asked. */
export interface TraceRequest {
  /** An endpoint (ID or name), a container, a pod (`ns/name`), a node, `host`, or an IP. */
  readonly from: string;
  /** As `from`, or a service (`svc:ns/name`), or a DNS name. */
  readonly to: string;
  /** `TCP` (default), `UDP`, `ICMP`, or a protocol number. */
  readonly protocol?: string | number;
  readonly sourcePort?: number;
  /** Default: the service's port when `to` is a service, else 80. */
  readonly destinationPort?: number;
  readonly ttl?: number;
  /** Return one branch per backend of the first load balancer with a choice (ovn-trace forks). */
  readonly allBranches?: boolean;
  /** Also trace the reply of a delivered packet. */
  readonly reply?: boolean;
}

/** Name resolution done for a trace whose `to` is a DNS name. */
export interface DnsOutcome {
  readonly name: string;
  /** Every name queried, in order (Windows suffix rules). */
  readonly tried: readonly string[];
  readonly fqdn?: string;
  readonly address?: number;
  /** The trace of the DNS query itself (UDP 53 to the container's DNS server). */
  readonly query?: TraceResult;
  readonly reason?: string;
}

export interface TraceResult {
  readonly request: {
    readonly from: string;
    readonly to: string;
    readonly protocol: number;
    readonly sourcePort: number;
    readonly destinationPort: number;
  };
  readonly disposition: Disposition;
  readonly observations: readonly Observation[];
  /** The packet as it first left and as it ended. */
  readonly packet: Packet;
  readonly final: Packet;
  readonly host: string;
  /** What received it: `endpoint:<id>`, `host`, `external:<ip>`, … */
  readonly at?: string;
  readonly detail?: string;
  readonly lbChoices: readonly LbChoice[];
  readonly dns?: DnsOutcome;
  readonly branches?: readonly TraceResult[];
  readonly reply?: TraceResult;
}

/** Where a packet can start. */
export interface Source {
  readonly label: string;
  readonly node: string;
  readonly ip: number;
  /** The source address for a destination, when it depends on it (a host picks its route's). */
  ipFor?(dst: number): number;
  /** Put the packet on its way (the walk records everything). */
  send(w: Walk, p: Packet): void;
  /** The source's DNS settings (an endpoint's `Dns`), for names. */
  readonly dns?: {
    readonly domain?: string;
    readonly search: readonly string[];
    readonly servers: readonly string[];
  };
}

/** Where a packet can go: an address, maybe a default port (a service). */
export interface Target {
  readonly label: string;
  readonly ip: number;
  readonly port?: number;
}

/** What a trace needs of a host or a cluster. */
export interface TraceScope {
  readonly world: World;
  source(ref: string): Source | undefined;
  /** A target by name (not an IP literal); undefined = not an object here (try DNS). */
  target(ref: string): Target | undefined;
  /** Resolve a DNS name as `from` would; undefined when the scope has no DNS. */
  resolve?(from: Source, name: string): DnsOutcome;
  /** Who answers a packet that ended here (for `reply`). */
  replier(end: WalkEnd): Source | undefined;
  /** Apply a committed walk's counters. */
  count(w: Walk, packets: number, bytes: number): void;
}

interface Normalized {
  readonly from: string;
  readonly to: string;
  readonly protocol: number;
  readonly sourcePort: number;
  readonly destinationPort: number;
  readonly ttl: number;
  readonly allBranches: boolean;
  readonly reply: boolean;
}

const PROTOCOLS: Readonly<Record<string, number>> = { TCP, UDP, ICMP };
/** The source port a trace uses when none is given (a fixed ephemeral port: deterministic). */
export const DEFAULT_SOURCE_PORT = 50000;

function bad(message: string): never {
  throw hnsError('E_INVALIDARG', message);
}

const TRACE_KEYS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'protocol',
  'sourcePort',
  'destinationPort',
  'ttl',
  'allBranches',
  'reply',
]);
const SEND_KEYS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'protocol',
  'sourcePort',
  'destinationPort',
  'ttl',
  'reply',
  'packets',
  'bytes',
]);

function intIn(v: unknown, name: string, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
    bad(`${name} must be an integer ${lo}..${hi}, got ${describe(v)}`);
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  try {
    return JSON.stringify(v) ?? typeof v;
  } catch {
    return typeof v;
  }
}

/**
 * Check a request's shape (JSON-RPC callers send anything): every field present — `null`
 * included — must have its type and range, unknown fields are refused, all with E_INVALIDARG naming
 * the field. `kind` says which call reads it (`send` has `packets`/`bytes`, not `allBranches`).
 */
export function checkRequest(req: unknown, kind: 'trace' | 'send' = 'trace'): TraceRequest {
  if (typeof req !== 'object' || req === null || Array.isArray(req))
    bad(`a ${kind} request must be an object`);
  const r = req as Record<string, unknown>;
  const allowed = kind === 'send' ? SEND_KEYS : TRACE_KEYS;
  for (const k of Object.keys(r)) if (!allowed.has(k)) bad(`unknown ${kind} request field "${k}"`);
  const has = (k: string) => Object.prototype.hasOwnProperty.call(r, k);
  if (typeof r['from'] !== 'string' || !r['from']) bad('from must be a non-empty string');
  if (typeof r['to'] !== 'string' || !r['to']) bad('to must be a non-empty string');
  if (has('protocol')) protocolOf(r['protocol']);
  if (has('sourcePort')) intIn(r['sourcePort'], 'sourcePort', 0, 65535);
  if (has('destinationPort')) intIn(r['destinationPort'], 'destinationPort', 0, 65535);
  if (has('ttl')) intIn(r['ttl'], 'ttl', 1, 255);
  if (has('packets')) intIn(r['packets'], 'packets', 1, 1e9);
  if (has('bytes')) intIn(r['bytes'], 'bytes', 20, 65535);
  for (const k of ['allBranches', 'reply'])
    if (has(k) && typeof r[k] !== 'boolean') bad(`${k} must be a boolean, got ${describe(r[k])}`);
  return r as unknown as TraceRequest;
}

function protocolOf(p: unknown): number {
  if (p === undefined) return TCP;
  if (typeof p === 'number') return intIn(p, 'protocol', 0, 255);
  if (typeof p !== 'string') bad(`protocol must be TCP, UDP, ICMP or a number, got ${describe(p)}`);
  const name = p.toUpperCase();
  if (!Object.prototype.hasOwnProperty.call(PROTOCOLS, name))
    bad(`protocol "${p}" is not TCP, UDP, ICMP or a number`);
  return PROTOCOLS[name]!;
}

function normalize(req: TraceRequest, target: Target | undefined): Normalized {
  const protocol = protocolOf(req.protocol);
  const ported = protocol === TCP || protocol === UDP;
  const sp = req.sourcePort;
  const dp = req.destinationPort;
  const ttl = req.ttl ?? 128;
  return {
    from: req.from,
    to: req.to,
    protocol,
    sourcePort: ported ? (sp ?? DEFAULT_SOURCE_PORT) : 0,
    destinationPort: ported ? (dp ?? target?.port ?? 80) : 0,
    ttl,
    allBranches: req.allBranches === true,
    reply: req.reply === true,
  };
}

function resolveSource(scope: TraceScope, ref: string): Source {
  const s = scope.source(ref);
  if (!s)
    throw hnsError(
      'ERROR_NOT_FOUND',
      `trace source "${ref}" is not an endpoint, container, pod, node or address here`,
    );
  return s;
}

/**
 * Run one walk from the source to `dst` and make it a result (the DNS step first when `to` was a
 * name). `ct`: the scratch flow state, a new one by default.
 */
function walkOnce(
  scope: TraceScope,
  r: Resolved,
  dst: number,
  forced?: ReadonlyMap<string, number>,
  ct = scope.world.conntrack.child(),
  checks?: AclCheck[],
): { res: TraceResult; w: Walk } {
  const { src, n, dns } = r;
  const w = new Walk(scope.world, ct, forced, checks);
  const first = packet({
    srcIp: src.ipFor ? src.ipFor(dst) : src.ip,
    dstIp: dst,
    proto: n.protocol,
    srcPort: n.sourcePort,
    dstPort: n.destinationPort,
    ttl: n.ttl,
  });
  src.send(w, first);
  if (!w.end)
    w.finish(
      'NoRoute',
      src.node,
      w.observations.at(-1)?.packetAfter ?? first,
      undefined,
      'the walk stopped without a decision',
    );
  if (dns) w.observations.unshift(dnsStep(src, dns, first));
  return { res: result(n, w, first, dns), w };
}

function requestOf(n: Normalized): TraceResult['request'] {
  return {
    from: n.from,
    to: n.to,
    protocol: n.protocol,
    sourcePort: n.sourcePort,
    destinationPort: n.destinationPort,
  };
}

function result(n: Normalized, w: Walk, first: Packet, dns?: DnsOutcome): TraceResult {
  const end = w.end!;
  return {
    request: requestOf(n),
    disposition: end.disposition,
    observations: w.observations,
    packet: first,
    final: end.packet,
    host: end.host,
    ...(end.at ? { at: end.at } : {}),
    ...(end.detail ? { detail: end.detail } : {}),
    lbChoices: w.lbChoices,
    ...(dns ? { dns } : {}),
  };
}

interface Resolved {
  readonly src: Source;
  readonly n: Normalized;
  readonly dst?: number;
  readonly dns?: DnsOutcome;
}

function resolveRequest(scope: TraceScope, req: TraceRequest): Resolved {
  const src = resolveSource(scope, req.from);
  const literal = ip4(req.to);
  if (literal !== undefined) return { src, n: normalize(req, undefined), dst: literal };
  const t = scope.target(req.to);
  if (t) return { src, n: normalize(req, t), dst: t.ip };
  const n = normalize(req, undefined);
  if (!scope.resolve)
    return {
      src,
      n,
      dns: { name: req.to, tried: [], reason: 'no DNS in this scope (a single host has no cluster DNS)' },
    };
  const dns = scope.resolve(src, req.to);
  return dns.address !== undefined ? { src, n, dst: dns.address, dns } : { src, n, dns };
}

function unresolved(n: Normalized, src: Source, dns: DnsOutcome): TraceResult {
  const p = packet({
    srcIp: src.ip,
    dstIp: 0,
    proto: n.protocol,
    srcPort: n.sourcePort,
    dstPort: n.destinationPort,
    ttl: n.ttl,
  });
  const obs: Observation = {
    host: src.node,
    component: 'DNS',
    action: 'NotResolved',
    detail: dns.reason ?? `tried ${dns.tried.join(', ') || 'nothing'}`,
    packetBefore: p,
    packetAfter: p,
  };
  return {
    request: requestOf(n),
    disposition: 'NameNotResolved',
    observations: [obs],
    packet: p,
    final: p,
    host: src.node,
    lbChoices: [],
    dns,
  };
}

function dnsStep(src: Source, dns: DnsOutcome, first: Packet): Observation {
  return {
    host: src.node,
    component: 'DNS',
    action: 'Resolved',
    detail: `${dns.name} → ${dns.fqdn} = ${fmt(dns.address!)} (tried ${dns.tried.join(', ')})`,
    packetBefore: first,
    packetAfter: first,
  };
}

/**
 * A request's result: its walk (in `ct`, a new scratch table by default), then the branches and the
 * reply it asks for. `w` is the walk, absent when a name did not resolve (nothing walked).
 */
function full(
  scope: TraceScope,
  r: Resolved,
  ct = scope.world.conntrack.child(),
): { res: TraceResult; w?: Walk } {
  const { src, n, dst } = r;
  if (dst === undefined) return { res: unresolved(n, src, r.dns!) };
  const walked = walkOnce(scope, r, dst, undefined, ct);
  const w = walked.w;
  let res = walked.res;
  if (n.allBranches) {
    const fork = w.lbChoices.find((c) => c.count > 1);
    if (fork) {
      const branches: TraceResult[] = [];
      for (let i = 0; i < fork.count; i++)
        branches.push(walkOnce(scope, r, dst, new Map([[`${fork.host}|${fork.lb}`, i]])).res);
      res = { ...res, branches };
    }
  }
  if (n.reply && (w.end?.disposition === 'Delivered' || w.end?.disposition === 'ExitsNetwork')) {
    const back = scope.replier(w.end);
    if (back) {
      const rw = new Walk(scope.world, ct);
      const rp = withPacket(reversed(w.end.packet), { ttl: n.ttl });
      back.send(rw, rp);
      if (!rw.end) rw.finish('NoRoute', back.node, rp);
      const rn: Normalized = {
        ...n,
        from: back.label,
        to: n.from,
        sourcePort: rp.srcPort,
        destinationPort: rp.dstPort,
        allBranches: false,
        reply: false,
      };
      res = { ...res, reply: result(rn, rw, rp) };
    }
  }
  return { res, w };
}

/** A bounded cache of trace results (VFP's unified flow table, for traces). */
export class FlowTable {
  private readonly map = new Map<string, TraceResult>();
  constructor(private readonly capacity = 65536) {}
  hits = 0;
  misses = 0;

  get(key: string): TraceResult | undefined {
    const r = this.map.get(key);
    if (r) this.hits++;
    else this.misses++;
    return r;
  }

  set(key: string, r: TraceResult): void {
    if (this.map.size >= this.capacity) this.map.clear();
    this.map.set(key, r);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}

/** The flow-table key of a checked request: every field in a form that keeps it distinct. */
function cacheKey(scope: TraceScope, req: TraceRequest): string {
  const w = scope.world;
  const { from, to, sourcePort: sp, destinationPort: dp, ttl } = req;
  // lengths before the names: no text in them can make two requests share a key
  return `${w.generation()}|${w.conntrack.generation}|${from.length}:${from}${to.length}:${to}|${protocolOf(req.protocol)}|${sp ?? '-'}|${dp ?? '-'}|${ttl ?? '-'}|${req.allBranches === true ? 1 : 0}${req.reply === true ? 1 : 0}`;
}

/** Trace a packet: nothing changes. Errors: E_INVALIDARG (bad request), ERROR_NOT_FOUND (unknown source). */
export function runTrace(scope: TraceScope, req: TraceRequest, table?: FlowTable): TraceResult {
  checkRequest(req, 'trace');
  const key = table ? cacheKey(scope, req) : '';
  if (table) {
    const hit = table.get(key);
    if (hit) return hit;
  }
  const { res } = full(scope, resolveRequest(scope, req));
  table?.set(key, res);
  return res;
}

/** A probe walk: its result and the HNS ACL stages it passed (each let the packet on). */
export interface Probe {
  readonly result: TraceResult;
  readonly checks: readonly AclCheck[];
  /** Flows the world has committed (its traces would see them; a probe does not). */
  readonly committed: number;
  /** The flow state the walk made on ports (`Walk.established`): which later packets are replies. */
  readonly established: Walk['established'];
}

/**
 * Walk a packet as a new connection (an empty flow state: no committed flow makes it a reply)
 * with every HNS ACL stage recorded and passed, not evaluated (src/analysis/reach.ts works out the
 * verdicts for every packet). `forced`: a backend index per `host|lb`. Errors as `runTrace`.
 */
export function runProbe(scope: TraceScope, req: TraceRequest, forced?: ReadonlyMap<string, number>): Probe {
  checkRequest(req, 'trace');
  const r = resolveRequest(scope, req);
  const size = scope.world.conntrack.size;
  const committed = size.nat + size.established;
  if (r.dst === undefined)
    return { result: unresolved(r.n, r.src, r.dns!), checks: [], committed, established: [] };
  const checks: AclCheck[] = [];
  const { res, w } = walkOnce(scope, r, r.dst, forced, new Conntrack(), checks);
  return { result: res, checks, committed, established: w.established };
}

/** Where a request's packet would start and go, without walking it (names resolved as a trace does). */
export interface ProbeAddresses {
  readonly source: number;
  /** Undefined when `to` is a name that did not resolve (`dns` says why). */
  readonly destination?: number;
  readonly dns?: DnsOutcome;
}

/** The addresses of a request (`runProbe`'s first packet), nothing walked. Errors as `runTrace`. */
export function resolveProbe(scope: TraceScope, req: TraceRequest): ProbeAddresses {
  checkRequest(req, 'trace');
  const r = resolveRequest(scope, req);
  if (r.dst === undefined) return { source: r.src.ip, ...(r.dns ? { dns: r.dns } : {}) };
  const source = r.src.ipFor ? r.src.ipFor(r.dst) : r.src.ip;
  return { source, destination: r.dst, ...(r.dns ? { dns: r.dns } : {}) };
}

export interface SendRequest extends TraceRequest {
  /** Packets of the flow (default 1); each counts on the endpoints it crosses. */
  readonly packets?: number;
  /** Bytes per packet (default 100). */
  readonly bytes?: number;
}

/**
 * Send traffic: the walk's flow state is committed (so replies are un-NATed and allowed as
 * established), and the endpoint counters move (HNS v1 `/endpointstats`, HcnQueryEndpointStats).
 */
export function runSend(scope: TraceScope, req: SendRequest): TraceResult {
  checkRequest(req, 'send');
  const scratch = scope.world.conntrack.child();
  const { res, w } = full(scope, resolveRequest(scope, req), scratch);
  if (!w) return res;
  scope.world.conntrack.commit(scratch);
  for (const effect of w.deferred) effect();
  scope.count(w, req.packets ?? 1, req.bytes ?? 100);
  return res;
}

// ───────────────────────────── JSON ─────────────────────────────

function packetJson(p: Packet): JsonObject {
  const o: JsonObject = {
    srcMac: p.srcMac ? formatMac(p.srcMac) : '',
    dstMac: p.dstMac ? formatMac(p.dstMac) : '',
    srcIp: fmt(p.srcIp),
    dstIp: fmt(p.dstIp),
    protocol: p.proto,
    srcPort: p.srcPort,
    dstPort: p.dstPort,
    ttl: p.ttl,
  };
  if (p.outer) {
    o['outer'] = {
      srcMac: p.outer.srcMac ? formatMac(p.outer.srcMac) : '',
      dstMac: p.outer.dstMac ? formatMac(p.outer.dstMac) : '',
      srcIp: fmt(p.outer.srcIp),
      dstIp: fmt(p.outer.dstIp),
      srcPort: p.outer.srcPort,
      dstPort: p.outer.dstPort,
      vni: p.outer.vni,
    };
  }
  return o;
}

/** A trace result as JSON (addresses as text): what `Trace` answers over JSON-RPC. */
export function traceJson(r: TraceResult): JsonObject {
  const o: JsonObject = {
    request: { ...r.request },
    disposition: r.disposition,
    host: r.host,
  };
  if (r.at) o['at'] = r.at;
  if (r.detail) o['detail'] = r.detail;
  o['packet'] = packetJson(r.packet);
  o['final'] = packetJson(r.final);
  o['observations'] = r.observations.map((ob) => {
    const x: JsonObject = { host: ob.host, component: ob.component, action: ob.action };
    if (ob.rule) x['rule'] = { ...ob.rule } as JsonObject;
    if (ob.detail) x['detail'] = ob.detail;
    x['packetBefore'] = packetJson(ob.packetBefore);
    x['packetAfter'] = packetJson(ob.packetAfter);
    return x;
  });
  if (r.lbChoices.length) o['lbChoices'] = r.lbChoices.map((c) => ({ ...c }));
  if (r.dns) {
    const d: JsonObject = { name: r.dns.name, tried: [...r.dns.tried] };
    if (r.dns.fqdn) d['fqdn'] = r.dns.fqdn;
    if (r.dns.address !== undefined) d['address'] = fmt(r.dns.address);
    if (r.dns.reason) d['reason'] = r.dns.reason;
    if (r.dns.query) d['query'] = traceJson(r.dns.query);
    o['dns'] = d;
  }
  if (r.branches) o['branches'] = r.branches.map(traceJson);
  if (r.reply) o['reply'] = traceJson(r.reply);
  return o;
}
