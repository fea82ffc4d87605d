/**
 * The kit's arbitraries as fast-check's own are tested: they cover what they claim (every policy
 * Type of every scope), give the same values under the same seed, and shrink a failing property to
 * a small counterexample (optional fields gone, lists down to the one element that matters).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { POLICY_MODULES } from '../../src/hns/policy/registry.js';
import {
  aclSet,
  clusterSpec,
  endpointDoc,
  faultSchedule,
  generatedPolicyTypes,
  loadBalancerDoc,
  namespaceDoc,
  networkDoc,
  packetArb,
  policies,
  policyOfType,
  rejectedDoc,
  rejectedPolicy,
  sdnRouteDoc,
} from '../../src/testing/index.js';

const EP = ['5F0B1190-63BE-4E0C-B974-BD0F55675A42', '6A0FA9F7-7717-4B21-B5DC-51B1AAC84BAE'];

describe('coverage', () => {
  it('every policy Type HCN v2 has is generated, in each of its scopes (v1-only VNET and Isolation excepted)', () => {
    for (const m of POLICY_MODULES) {
      if (m.v1Only) {
        expect(() => policyOfType(m.type)).toThrow(/no generator/);
        continue;
      }
      for (const scope of m.scopes)
        expect(generatedPolicyTypes(scope), `${scope} ${m.type}`).toContain(m.type);
      // and each is drawn: `policy(scope)` reaches it
      const drawn = fc.sample(policyOfType(m.type.toLowerCase()), { numRuns: 3, seed: 1 });
      for (const p of drawn) expect(p.Type).toBe(m.type);
    }
  });
});

describe('deterministic under a seed', () => {
  const arbs: [string, fc.Arbitrary<unknown>][] = [
    ['networkDoc', networkDoc()],
    ['endpointDoc', endpointDoc()],
    ['namespaceDoc', namespaceDoc(EP)],
    ['loadBalancerDoc', loadBalancerDoc(EP)],
    ['sdnRouteDoc', sdnRouteDoc(EP)],
    ['policies', policies('endpoint', {}, 3, { portClashes: true })],
    ['rejectedDoc', rejectedDoc('Network')],
    ['rejectedPolicy', rejectedPolicy('endpoint')],
    ['packetArb', packetArb()],
    ['aclSet', aclSet()],
    ['clusterSpec', clusterSpec({ linux: true })],
    ['faultSchedule', faultSchedule({ restarts: true })],
  ];
  for (const [name, arb] of arbs) {
    it(name, () => {
      const a = fc.sample(arb, { numRuns: 30, seed: 123 });
      expect(fc.sample(arb, { numRuns: 30, seed: 123 })).toEqual(a);
      expect(fc.sample(arb, { numRuns: 30, seed: 124 })).not.toEqual(a);
    });
  }
});

/** The counterexample of a property that must fail. */
function shrunk<T>(arb: fc.Arbitrary<T>, predicate: (v: T) => boolean, seed = 1): T {
  const out = fc.check(fc.property(arb, predicate), { numRuns: 1000, seed });
  expect(out.failed, 'the property should fail').toBe(true);
  return out.counterexample![0];
}

describe('shrinking', () => {
  it('networkDoc: to the fields the property needs and the required ones', () => {
    const doc = shrunk(networkDoc(), (d) => d.Dns === undefined);
    expect(Object.keys(doc).sort()).toEqual(
      ['Dns', 'Name', 'SchemaVersion', 'Type'].concat(doc.Ipams ? ['Ipams'] : []).sort(),
    );
    expect(doc.Dns).toEqual({ ServerList: [expect.any(String)] });
  });

  it('endpointDoc: one policy, no optional settings, a local endpoint', () => {
    const doc = shrunk(
      endpointDoc(),
      (d) => !((d.Policies as JsonObject[] | undefined) ?? []).some((p) => p.Type === 'ACL'),
    );
    expect(doc).toEqual({
      Name: 'eth0',
      Policies: [{ Type: 'ACL', Settings: { Action: 'Allow', Direction: 'In' } }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
  });

  it('policies with port clashes: to the two PortMappings that clash', () => {
    const list = shrunk(
      policies('endpoint', {}, 3, { portClashes: true }),
      (ps) => ps.filter((p) => p.Type === 'PortMapping').length < 2,
    );
    expect(list.map((p) => p.Type)).toEqual(['PortMapping', 'PortMapping']);
  });

  it('rejectedDoc: to a single spoilt field of a small document', () => {
    const r = shrunk(rejectedDoc('Endpoint'), (x) => x.hresult !== 'HCN_E_ADDR_INVALID_OR_RESERVED');
    expect(r.value).toEqual({
      Name: 'eth0',
      MacAddress: '01-00-5E-00-00-01',
      SchemaVersion: { Major: 2, Minor: 0 },
    });
  });

  it('aclSet: to the one rule that matters', () => {
    const set = shrunk(aclSet(), (s) => !s.some((a) => (a.Settings as JsonObject).RemotePorts !== undefined));
    expect(set).toHaveLength(1);
    expect(set[0]).toEqual({
      Type: 'ACL',
      Settings: {
        Id: 'rule-1',
        Action: 'Block',
        Direction: 'In',
        Protocols: '6',
        RemotePorts: '80',
        Priority: 100,
      },
    });
  });
});
