/**
 * Bad trace and send requests (src/dataplane/trace.ts: "Errors: E_INVALIDARG (bad request),
 * ERROR_NOT_FOUND (unknown source)"; JSON-RPC callers send anything): a request with junk in a
 * field — a wrong type, an out-of-range port or TTL, an unknown protocol name, a field no request
 * has, a source that is nowhere — is refused with HnsError E_INVALIDARG (0x80070057) or
 * ERROR_NOT_FOUND (0x80070490), never a TypeError or an answer, and changes nothing (the snapshot
 * and every endpoint's HcnQueryEndpointStats, through host.api).
 *
 * Requests are a valid one (A → B on an L2Bridge network built through host.api) with one or two
 * fields replaced by junk, or junk in place of the whole request. "Warm" means the valid request
 * was traced just before, so the flow table holds its answer (a client tracing, then mistyping).
 *
 * The property as a whole once failed; each defect it found has its own property below (all fixed),
 * with the shrunk counterexample in its comment, and one property covers all the junk that is
 * refused correctly. Seed: vitest.setup.ts.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { HnsError } from '../../src/core/errors.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import type { Host } from '../../src/host/host.js';
import {
  endpointJson,
  l2bridgeJson,
  newHost,
  observable,
  ok,
  podIp,
  queryEndpoint,
  type EndpointFacts,
} from './prop-kit.js';
import { runs } from '../runs.js';

const E_INVALIDARG = 0x80070057;
const ERROR_NOT_FOUND = 0x80070490;

// ───────────────────────────── the host and valid requests ─────────────────────────────

interface Built {
  readonly host: Host;
  readonly a: EndpointFacts;
  readonly b: EndpointFacts;
}

function build(seed: number): Built {
  const host = newHost(seed);
  const net = ok(host.api.HcnCreateNetwork(null, l2bridgeJson()), 'HcnCreateNetwork');
  const mk = (name: string, ip: string, policies: JsonObject[] = []) =>
    queryEndpoint(
      host,
      ok(host.api.HcnCreateEndpoint(net.ID, null, endpointJson(net.ID, name, { ip, policies })), name).ID,
    );
  // B with an OutBoundNAT policy, so that a send A → outside would take an SNAT port
  const a = mk('pod-a', podIp(2), [{ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16'] } }]);
  const b = mk('pod-b', podIp(3));
  return { host, a, b };
}

/** A valid request, its endpoints named by index into [ID, Name, IP]. */
interface BaseSpec {
  readonly from: 0 | 1 | 2;
  /** 0..2: B by ID, Name, IP; 3: an outside address. */
  readonly to: 0 | 1 | 2 | 3;
  readonly protocol?: 'TCP' | 'udp' | 'ICMP' | 6 | 17;
  readonly sourcePort?: number;
  readonly destinationPort?: number;
  readonly ttl?: number;
  readonly reply?: boolean;
  readonly allBranches?: boolean;
}

const baseArb: fc.Arbitrary<BaseSpec> = fc.record(
  {
    from: fc.constantFrom<BaseSpec['from']>(0, 1, 2),
    to: fc.constantFrom<BaseSpec['to']>(0, 1, 2, 3),
    protocol: fc.constantFrom<NonNullable<BaseSpec['protocol']>>('TCP', 'udp', 'ICMP', 6, 17),
    sourcePort: fc.constantFrom(80, 50000),
    destinationPort: fc.constantFrom(53, 443),
    ttl: fc.constantFrom(1, 64, 255),
    reply: fc.boolean(),
    allBranches: fc.boolean(),
  },
  { requiredKeys: ['from', 'to'] },
);

function baseRequest(w: Built, s: BaseSpec): Record<string, Json> {
  const pick = (e: EndpointFacts, i: number) => [e.id, e.name, e.ip][i]!;
  const { from, to, ...rest } = s;
  return { from: pick(w.a, from), to: to === 3 ? '8.8.8.8' : pick(w.b, to), ...rest };
}

// ───────────────────────────── junk ─────────────────────────────

/** `{"__proto__": 1}` as JSON.parse makes it: an own field named `__proto__`. */
const PROTO_FIELD = JSON.parse('{"__proto__":1}') as JsonObject;

/** Protocol names that are properties of every object (`PROTOCOLS[p]` finds them). */
const INHERITED_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'] as const;

/** Junk per field, refused whatever else the request holds. */
const JUNK = {
  from: [5, true, null, {}, [], '', ['pod-a'], 'no-such-endpoint', '999.1.1.1', 'svc:default/web'],
  to: [5, true, null, {}, [], '', ['pod-b']],
  protocol: ['HTTP', 'tcpx', '', ' TCP', 'TCP6', -1, 256, 1.5, 1e9, true, null, {}, ['TCP']],
  sourcePort: [-1, 65536, 1.5, '80', null, true, [80], 1e10],
  destinationPort: [-1, 65536, 2.5, '443', null, false, [443]],
  ttl: [0, 256, -1, 1.5, '64', true, [64]],
  reply: ['yes', 1, 0, null, 'true', []],
  allBranches: ['no', 1, null, {}],
} as const satisfies Record<string, readonly Json[]>;

/** Fields no request has, with any value. */
const EXTRA_FIELDS: readonly JsonObject[] = [
  { bogus: 1 },
  { Protocol: 6 },
  { From: 'pod-a' },
  { dstPort: 80 },
  { source: '10.244.1.2' },
  PROTO_FIELD,
];

/** Junk for the fields only send reads: refused by send. */
const SEND_JUNK = {
  packets: [0, -1, 1.5, 'x', 2e9],
  bytes: [0, 19, 65536, 'x'],
} as const satisfies Record<string, readonly Json[]>;

type Edit = { readonly set: string; readonly to: Json } | { readonly add: JsonObject };

function fieldJunk(table: Readonly<Record<string, readonly Json[]>>): fc.Arbitrary<Edit> {
  return fc.oneof(
    ...Object.entries(table).map(([set, vs]) => fc.constantFrom(...vs).map((to): Edit => ({ set, to }))),
  );
}

const extraJunk: fc.Arbitrary<Edit> = fc.constantFrom(...EXTRA_FIELDS).map((add): Edit => ({ add }));

function applyEdits(base: Record<string, Json>, edits: readonly Edit[]): Record<string, Json> {
  const out: Record<string, Json> = { ...base };
  for (const e of edits) {
    if ('set' in e) out[e.set] = e.to;
    else
      for (const k of Object.keys(e.add))
        Object.defineProperty(out, k, {
          value: e.add[k],
          enumerable: true,
          writable: true,
          configurable: true,
        });
  }
  return out;
}

/** Not an object at all (null and undefined apart: see the property for them below). */
const WHOLE_JUNK: readonly Json[] = ['x', 5, true, [], ['pod-a', 'pod-b'], '{"from":"pod-a","to":"pod-b"}'];

// ───────────────────────────── running a request ─────────────────────────────

type Mode = 'trace' | 'send';

type Outcome =
  | { readonly refused: number; readonly name: string }
  | { readonly threw: string; readonly message: string }
  | { readonly answered: string };

function attempt(w: Built, mode: Mode, req: unknown): Outcome {
  try {
    const r = mode === 'trace' ? w.host.trace(req as never) : w.host.send(req as never);
    return { answered: r.disposition };
  } catch (e) {
    if (e instanceof HnsError) return { refused: e.hresult, name: e.code };
    const err = e as Error;
    return { threw: err?.name ?? typeof e, message: String(err?.message ?? e) };
  }
}

interface Case {
  readonly seed: number;
  readonly mode: Mode;
  /** The valid request was traced just before (its answer is in the flow table). */
  readonly warm: boolean;
  readonly base: BaseSpec;
  /** Junk fields, or junk for the whole request. */
  readonly junk: readonly Edit[] | { readonly whole: Json | undefined };
}

/** Run one case: the refusal must be a registered HRESULT and the host unchanged. */
function check(c: Case): void {
  const w = build(c.seed);
  const base = baseRequest(w, c.base);
  if (c.warm) w.host.trace(base as never);
  const before = observable(w.host);
  const req = Array.isArray(c.junk)
    ? applyEdits(base, c.junk)
    : (c.junk as { whole: Json | undefined }).whole;
  const outcome = attempt(w, c.mode, req);
  const shown = `${c.mode}(${req === undefined ? 'undefined' : JSON.stringify(req)}) → ${JSON.stringify(outcome)}`;
  expect(outcome, shown).toHaveProperty('refused');
  expect([E_INVALIDARG, ERROR_NOT_FOUND], shown).toContain((outcome as { refused: number }).refused);
  expect(observable(w.host), `${shown}: the host changed`).toBe(before);
}

const seedArb = fc.integer({ min: 1, max: 1000 });
const modeArb = fc.constantFrom<Mode>('trace', 'send');

/** Any junk edit: every field's, extra fields, send's own fields, and the defects' junk below. */
const anyEdit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 8, arbitrary: fieldJunk(JUNK) },
  { weight: 2, arbitrary: extraJunk },
  { weight: 2, arbitrary: fieldJunk(SEND_JUNK) },
  { weight: 1, arbitrary: fc.constantFrom(...INHERITED_NAMES).map((to): Edit => ({ set: 'protocol', to })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('ttl', 'packets', 'bytes').map((set): Edit => ({ set, to: null })),
  },
);

/** Junk edits (one or two), or junk for the whole request. */
function junkArb(edit: fc.Arbitrary<Edit>, whole: readonly (Json | undefined)[]): fc.Arbitrary<Case['junk']> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(edit, { minLength: 1, maxLength: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(...whole).map((w) => ({ whole: w })) },
  );
}

const fullCaseArb: fc.Arbitrary<Case> = fc.record({
  seed: seedArb,
  mode: modeArb,
  warm: fc.boolean(),
  base: baseArb,
  junk: junkArb(anyEdit, [...WHOLE_JUNK, null, undefined]),
});

/** Whether a case holds junk in a field its call does not read (defect 4 below). */
function unreadOnly(c: Case): boolean {
  if (!Array.isArray(c.junk)) return false;
  const unread = c.mode === 'send' ? ['allBranches'] : Object.keys(SEND_JUNK);
  return c.junk.some((e) => 'set' in e && unread.includes(e.set));
}

describe('bad trace/send requests are refused with E_INVALIDARG or ERROR_NOT_FOUND and change nothing', () => {
  // The whole property. It failed for the four defects isolated below (now fixed); with the fixed
  // seed it shrank to defect 4 on a cold host:
  //   {"seed":1,"mode":"trace","warm":false,"base":{"from":0,"to":0},"junk":[{"set":"ttl","to":null}]}
  //   trace({"from":"<A's ID>","to":"<B's ID>","ttl":null}) → answered "Delivered"
  test.prop([fullCaseArb], { numRuns: runs(100, 3_000) })(
    'any junk request (the property as specified)',
    (c) => check(c),
  );

  // What is refused correctly today: junk in the fields both calls read, unknown fields, send's
  // own fields on send, junk for the whole request (other than null/undefined), on a cold flow table.
  const refusedCaseArb: fc.Arbitrary<Case> = fc
    .record({
      seed: seedArb,
      mode: modeArb,
      warm: fc.constant(false),
      base: baseArb,
      junk: junkArb(
        fc.oneof(
          { weight: 8, arbitrary: fieldJunk(JUNK) },
          { weight: 2, arbitrary: extraJunk },
          { weight: 2, arbitrary: fieldJunk(SEND_JUNK) },
        ),
        WHOLE_JUNK,
      ),
    })
    .filter((c) => !unreadOnly(c));

  test.prop([refusedCaseArb], { numRuns: runs(100, 3_000) })(
    'junk in the fields a call reads, unknown fields, or a non-object request, on a cold flow table',
    (c) => check(c),
  );

  // Defect 1 (fixed): host.trace / host.send with null or undefined throw a TypeError. runTrace computes the
  // flow-table key (`${req.from}`…) before checkRequest looks at the request; runSend destructures
  // `req.packets` first. Counterexample: trace(null) → TypeError "Cannot read properties of null
  // (reading 'from')"; send(null) → TypeError "… (reading 'packets')". (The same ordering makes a
  // field holding an object without a prototype, `{from: Object.create(null)}`, a TypeError
  // "Cannot convert object to primitive value".)
  test.prop([seedArb, modeArb, fc.constantFrom(null, undefined)], { numRuns: runs(35, 1_000) })(
    'a request that is null or undefined is refused (E_INVALIDARG), not a TypeError',
    (seed, mode, whole) => check({ seed, mode, warm: false, base: { from: 0, to: 0 }, junk: { whole } }),
  );

  // Defect 2 (fixed): protocol names inherited from Object.prototype are taken for protocols:
  // protocolOf() looks names up with `PROTOCOLS[p]` on a plain object, so "constructor",
  // "toString", "valueOf", "hasOwnProperty" and "__proto__" yield a function or an object as the
  // protocol, and the trace/send is answered. Counterexample:
  //   trace({"from":"<A>","to":"<B>","protocol":"constructor"}) → Delivered, request.protocol = Object
  test.prop([seedArb, modeArb, baseArb, fc.constantFrom(...INHERITED_NAMES)], { numRuns: runs(35, 1_000) })(
    'a protocol name that only the object prototype knows is refused',
    (seed, mode, base, name) =>
      check({ seed, mode, warm: false, base, junk: [{ set: 'protocol', to: name }] }),
  );

  // Defect 3 (fixed): the flow table answers junk. runTrace looks the request up in the flow table before
  // checkRequest, and the key is lossy — `${v ?? ''}` per known field (80 and "80" and [80] agree,
  // null and absent agree), `reply ? 1 : 0` (any truthy junk is `true`), and unknown fields are not
  // in it — so once a valid request was traced, a junk variant of it gets the cached answer.
  // Shrunk counterexample: trace({from:A,to:B}) then trace({from:A,to:B,"sourcePort":null}) → the
  // cached Delivered (on a cold flow table: E_INVALIDARG). Likewise {"bogus":1} added, sourcePort
  // "80" or [80] after 80, protocol ["TCP"] after "TCP", ttl "64" after 64, reply "yes" after true.
  const collidingJunk = (base: BaseSpec): fc.Arbitrary<Edit> =>
    fc.oneof(
      extraJunk,
      ...(base.sourcePort !== undefined
        ? [
            fc
              .constantFrom<Json>(String(base.sourcePort), [base.sourcePort])
              .map((to): Edit => ({ set: 'sourcePort', to })),
          ]
        : [fc.constant<Edit>({ set: 'sourcePort', to: null })]),
      ...(base.protocol !== undefined ? [fc.constant<Edit>({ set: 'protocol', to: [base.protocol] })] : []),
      ...(base.ttl !== undefined ? [fc.constant<Edit>({ set: 'ttl', to: String(base.ttl) })] : []),
      ...(base.reply
        ? [fc.constantFrom<Json>('yes', 1, [], {}).map((to): Edit => ({ set: 'reply', to }))]
        : []),
    );
  test.prop([seedArb, baseArb.chain((base) => fc.tuple(fc.constant(base), collidingJunk(base)))], {
    numRuns: runs(35, 1_000),
  })(
    'after a valid trace, a junk variant of it is still refused (not answered from the flow table)',
    (seed, [base, edit]) => check({ seed, mode: 'trace', warm: true, base, junk: [edit] }),
  );

  // Defect 4 (fixed): fields a call does not read are not checked, and null is taken for absent. A trace
  // accepts junk `packets`/`bytes` (REQUEST_KEYS admits them for send's sake; only runSend
  // validates them), a send accepts any `allBranches` (runSend drops it before checkRequest), and
  // `ttl`, `packets`, `bytes` null are taken for their defaults (`?? 128`, `?? 1`, `?? 100`) while
  // `sourcePort: null` is refused. Counterexamples:
  //   trace({from:A,to:B,"packets":"x"}) → Delivered; send({from:A,to:B,"allBranches":"no"}) →
  //   Delivered (and counted); trace({from:A,to:B,"ttl":null}) → Delivered;
  //   send({from:A,to:B,"bytes":null}) → Delivered, 100 bytes counted.
  const unreadJunk = fc.oneof(
    fieldJunk(SEND_JUNK).map((e) => ({ mode: 'trace' as Mode, e })),
    fieldJunk({ allBranches: JUNK.allBranches }).map((e) => ({ mode: 'send' as Mode, e })),
    modeArb.map((mode) => ({ mode, e: { set: 'ttl', to: null } as Edit })),
    fc
      .constantFrom('packets', 'bytes')
      .map((set) => ({ mode: 'send' as Mode, e: { set, to: null } as Edit })),
  );
  test.prop([seedArb, baseArb, unreadJunk], { numRuns: runs(35, 1_000) })(
    'junk in a field the call does not read (trace: packets/bytes; send: allBranches) and null ttl/packets/bytes are refused',
    (seed, base, { mode, e }) => check({ seed, mode, warm: false, base, junk: [e] }),
  );
});
