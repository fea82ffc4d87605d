// The public test kit's argument handling: scopes and document kinds in either case, a helpful
// TypeError for a wrong one (never a silently empty arbitrary), and the local-only endpoint option.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { endpointDoc, invalidDoc, policies, policy } from '../../src/testing/index.js';

const runs = { numRuns: 60, seed: 42 };

describe('document kinds and policy scopes', () => {
  it('invalidDoc takes the kind in any case, and every document it draws is refused', () => {
    const host = createHost({ seed: 1 });
    for (const kind of ['network', 'NETWORK', 'Network']) {
      fc.assert(
        fc.property(invalidDoc({ kind }), (doc) => {
          const r = host.api.HcnCreateNetwork(null, doc);
          expect(r.ok, JSON.stringify(doc)).toBe(false);
        }),
        runs,
      );
    }
  });

  it('an unknown kind or scope is a TypeError naming the valid ones', () => {
    expect(() => invalidDoc({ kind: 'Netwrok' })).toThrow(
      /unknown kind "Netwrok": use Network, Endpoint, Namespace, LoadBalancer, SdnRoute/,
    );
    expect(() => policy('endpoints')).toThrow(
      /unknown policy scope "endpoints": use network, endpoint or subnet/,
    );
    expect(() => policies('Subnets')).toThrow(TypeError);
  });

  it('policy() and policies() take the scope in any case and draw the same policies', () => {
    const a = fc.sample(policy('Endpoint'), { numRuns: 20, seed: 7 });
    const b = fc.sample(policy('endpoint'), { numRuns: 20, seed: 7 });
    expect(a).toEqual(b);
    expect(a.length).toBe(20);
    expect(fc.sample(policies('NETWORK', {}, 2), { numRuns: 5, seed: 7 })).toHaveLength(5);
  });
});

describe('endpointDoc remote option', () => {
  const flagsOf = (docs: { Flags?: unknown }[]) =>
    docs.map((d) => (typeof d.Flags === 'number' ? d.Flags : 0));

  it("remote: 'never' gives local endpoints only (Flags bit 1 clear), which can all join a namespace", () => {
    const docs = fc.sample(endpointDoc(undefined, { remote: 'never' }), { numRuns: 300, seed: 3 });
    expect(flagsOf(docs).every((f) => (f & 1) === 0)).toBe(true);
    // the default draws some remote ones: the option is what removes them
    const mixed = fc.sample(endpointDoc(), { numRuns: 300, seed: 3 });
    expect(flagsOf(mixed).some((f) => (f & 1) === 1)).toBe(true);
  });

  it("remote: 'always' gives remote endpoints with a ProviderAddress policy", () => {
    const docs = fc.sample(endpointDoc(undefined, { remote: 'always' }), { numRuns: 50, seed: 3 });
    for (const d of docs) {
      expect(((d.Flags as number) & 1) === 1).toBe(true);
      expect((d.Policies as { Type: string }[]).map((p) => p.Type)).toContain('ProviderAddress');
    }
  });

  it('a bad remote option is a TypeError', () => {
    expect(() => endpointDoc(undefined, { remote: 'no' as never })).toThrow(/remote must be/);
  });
});
