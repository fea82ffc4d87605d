/**
 * Properties: for any policy document (arbitrary JSON settings, field names HNS uses, mutated valid
 * samples, any scope, host version and network type), parsePolicy either returns a policy that
 * round-trips (same record, same JSON, same key) or throws an HnsError with a registered HRESULT;
 * and parsePolicies of a list is the documents parsed one by one, refused at the first refused one
 * or at the first second instance of a single-instance type (docs/model.md).
 */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { HnsError, isRegisteredHResult } from '../../../src/core/errors.js';
import { isJsonObject, type Json, type JsonObject } from '../../../src/core/json.js';
import type {
  NetworkType,
  ParsedPolicy,
  PolicyContext,
  PolicyScope,
} from '../../../src/hns/policy/contracts.js';
import {
  parsePolicies,
  parsePolicy,
  POLICY_MODULES,
  policyClaims,
  policyKey,
  serializePolicy,
} from '../../../src/hns/policy/index.js';
import { SAMPLES } from './samples.js';
import { runs } from '../../runs.js';

function keysOf(v: Json, into: Set<string>): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => keysOf(x, into));
  else if (isJsonObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      into.add(k);
      keysOf(x, into);
    }
  }
  return into;
}

const FIELD_NAMES = [
  ...keysOf(
    Object.values(SAMPLES).flatMap((s) => [...s.valid, ...s.bad]),
    new Set(['ExceptionList', 'OutboundNat', 'Id']),
  ),
];
const TYPES = POLICY_MODULES.map((m) => m.type);
const VALID = Object.entries(SAMPLES).flatMap(([type, s]) =>
  s.valid.map((v): [string, JsonObject] => [type, v]),
);

const interestingString = fc.constantFrom(
  '',
  '6',
  '17',
  '256',
  '252',
  'Allow',
  'Pass',
  'In',
  'Switch',
  'IPSET',
  'NESTEDIPSET',
  '10.0.0.1',
  '10.0.0.0/8',
  'fd00::1',
  'fd00::/64',
  '10.0.0.1,10.0.0.0/24',
  'azure-npm-1',
  'Any',
  '80,8080',
  '1000-2000',
  '2000-1000',
  '127.0.0.1:15001',
  '[::1]:80',
  '00-15-5D-00-00-01',
  '5f0b1190-63be-4e0c-b974-bd0f55675a42',
  'S-1-5-18',
  'IovInterruptModerationLow',
);
const interestingNumber = fc.constantFrom(
  0,
  -0,
  1,
  2,
  6,
  17,
  58,
  100,
  576,
  4095,
  4096,
  5000,
  65535,
  65536,
  16777214,
  2 ** 53,
  -1,
  0.5,
);
const value: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: interestingString },
  { weight: 3, arbitrary: interestingNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.array(interestingString, { maxLength: 3 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
);
const fieldName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 1, arbitrary: fc.string() },
);

const randomSettings = fc.dictionary(fieldName, value, { maxKeys: 6 }) as fc.Arbitrary<JsonObject>;
const mutatedSample = fc
  .tuple(
    fc.constantFrom(...VALID),
    fc.array(fc.tuple(fieldName, fc.option(value)), { minLength: 1, maxLength: 3 }),
  )
  .map(([[type, s], edits]): [string, JsonObject] => {
    const out: JsonObject = { ...s };
    for (const [k, v] of edits) {
      if (v === null) delete out[k];
      else Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return [type, out];
  });

const typeName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...TYPES) },
  { weight: 1, arbitrary: fc.constantFrom(...TYPES).map((t) => t.toLowerCase()) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

const policyDoc: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(typeName, randomSettings).map(([Type, Settings]): Json => ({ Type, Settings })),
  },
  { weight: 6, arbitrary: mutatedSample.map(([Type, Settings]): Json => ({ Type, Settings })) },
  { weight: 1, arbitrary: typeName.map((Type): Json => ({ Type })) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
);

const SCOPES: readonly PolicyScope[] = ['network', 'endpoint', 'subnet'];

/** A document and a context; most of the time the scope is one the document's Type allows. */
const docInContext: fc.Arbitrary<[Json, PolicyContext]> = fc
  .tuple(
    policyDoc,
    fc.nat(),
    fc.boolean(),
    fc.record({
      major: fc.oneof(
        { weight: 3, arbitrary: fc.constant(15) },
        { weight: 2, arbitrary: fc.integer({ min: 7, max: 16 }) },
      ),
      minor: fc.constantFrom(0, 1, 2, 3, 4, 5, 10, 11, 0x7fffffff),
    }),
    fc.constantFrom<NetworkType>('NAT', 'Overlay', 'L2Bridge', 'Transparent', 'ICS'),
  )
  .map(([raw, pick, anyScope, version, networkType]): [Json, PolicyContext] => {
    const type = isJsonObject(raw) && typeof raw['Type'] === 'string' ? raw['Type'].toLowerCase() : '';
    const m = POLICY_MODULES.find((x) => x.type.toLowerCase() === type);
    const scopes = m && !anyScope ? m.scopes : SCOPES;
    return [raw, { version, scope: scopes[pick % scopes.length]!, networkType }];
  });

function expectRegisteredHnsError(e: unknown): void {
  expect(e).toBeInstanceOf(HnsError);
  expect(isRegisteredHResult((e as HnsError).hresult)).toBe(true);
}

test.prop([docInContext], { numRuns: runs(1_000, 30_000) })(
  'parsePolicy round-trips or throws a registered HRESULT',
  ([raw, ctx]) => {
    let p;
    try {
      p = parsePolicy(raw, ctx);
    } catch (e) {
      expectRegisteredHnsError(e);
      return;
    }
    const j = serializePolicy(p);
    expect(JSON.parse(JSON.stringify(j))).toEqual(j);
    const p2 = parsePolicy(j, ctx);
    expect(p2).toEqual(p);
    expect(JSON.stringify(serializePolicy(p2))).toBe(JSON.stringify(j));
    expect(policyKey(p2)).toBe(policyKey(p));
    expect(policyClaims(p2)).toEqual(policyClaims(p));
  },
);

/**
 * Types that may appear once per object, and the HRESULT of a second one: docs/model.md
 * "Single instance" (InterfaceParameters: HCN_INTERFACEPARAMETERS_ALREADY_APPLIED 0x803B0036,
 * the others HCN_E_POLICY_ALREADY_EXISTS 0x803B0012, values from HCNHResult.md).
 */
const SINGLE_INSTANCE = [
  'SourceMacAddress',
  'NetAdapterName',
  'DrMacAddress',
  'AutomaticDNS',
  'VxlanPort',
  'HostRoute',
  'LayerConstraint',
  'InterfaceConstraint',
  'ProviderAddress',
  'QOS',
  'PortName',
  'EncapOverhead',
  'Iov',
  'InterfaceParameters',
  'VLAN',
  'VSID',
];
const POLICY_ALREADY_EXISTS = 0x803b0012;
const INTERFACEPARAMETERS_ALREADY_APPLIED = 0x803b0036;

/**
 * Lists of valid samples of one scope on a host that has every feature; half of them get a second
 * sample of a Type already in the list, so every single-instance Type meets its own duplicate.
 */
const validList: fc.Arbitrary<[Json[], PolicyContext]> = fc.constantFrom(...SCOPES).chain((scope) => {
  const inScope = VALID.filter(([type]) =>
    POLICY_MODULES.find((m) => m.type === type)!.scopes.includes(scope),
  );
  const doc = ([Type, Settings]: [string, JsonObject]): Json => ({ Type, Settings });
  return fc.tuple(
    fc
      .tuple(
        fc.array(fc.constantFrom(...inScope), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.nat(),
        fc.nat(),
      )
      .map(([list, again, which, where]) => {
        if (!again) return list.map(doc);
        const type = list[which % list.length]![0];
        const samples = inScope.filter(([t]) => t === type);
        const out = [...list];
        out.splice(where % (out.length + 1), 0, samples[which % samples.length]!);
        return out.map(doc);
      }),
    fc.constant<PolicyContext>({ version: { major: 15, minor: 4 }, scope, networkType: 'Overlay' }),
  );
});

/** Lists of arbitrary documents (mostly refused somewhere), all read in the first one's context. */
const anyList: fc.Arbitrary<[Json[], PolicyContext]> = fc
  .array(docInContext, { minLength: 1, maxLength: 5 })
  .map((docs): [Json[], PolicyContext] => [docs.map(([raw]) => raw), docs[0]![1]]);

type Outcome = { readonly policy: ParsedPolicy } | { readonly hresult: number };

/** What a single document gives on its own: the parsed policy, or the HRESULT it is refused with. */
function alone(raw: Json, ctx: PolicyContext): Outcome {
  try {
    return { policy: parsePolicy(raw, ctx) };
  } catch (e) {
    expectRegisteredHnsError(e);
    return { hresult: (e as HnsError).hresult };
  }
}

/** The oracle for a list: the first refused document's HRESULT, else the first second instance's. */
function expectedRefusal(singles: readonly Outcome[]): number | undefined {
  const seen = new Set<string>();
  for (const x of singles) if ('hresult' in x) return x.hresult;
  for (const x of singles) {
    if (!('policy' in x) || !SINGLE_INSTANCE.includes(x.policy.type)) continue;
    if (seen.has(x.policy.type))
      return x.policy.type === 'InterfaceParameters'
        ? INTERFACEPARAMETERS_ALREADY_APPLIED
        : POLICY_ALREADY_EXISTS;
    seen.add(x.policy.type);
  }
  return undefined;
}

// Checked against an oracle that does not use the code under test for the list rule: the literal
// single-instance table above. Catches a no-op or inverted single-instance check, a module that
// lost (or gained) `multiple: false`, the wrong HRESULT for a second InterfaceParameters, a list
// error other than the first element's, and a parse that drops, merges or reorders policies.
test.prop([fc.oneof(validList, anyList)], { numRuns: runs(300, 10_000) })(
  'parsePolicies = each document parsed alone, in order, refused at the first bad one or the first second instance',
  ([raws, ctx]) => {
    const singles = raws.map((raw) => alone(raw, ctx));
    const refusal = expectedRefusal(singles);
    let got: Outcome | ParsedPolicy[];
    try {
      got = parsePolicies(raws, ctx);
    } catch (e) {
      expectRegisteredHnsError(e);
      got = { hresult: (e as HnsError).hresult };
    }
    if (refusal !== undefined) expect(got).toEqual({ hresult: refusal });
    else expect(got).toEqual(singles.map((x) => ('policy' in x ? x.policy : x)));
  },
);
