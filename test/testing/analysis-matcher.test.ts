/**
 * `toHaveNoShadowedRules()` (src/testing/analysis.ts): passes on a port whose every rule decides
 * something; fails on one with a shadowed rule, naming it, what it was meant for and what decides
 * its packets instead; refuses a subject that is not an analysis.
 */
import { describe, expect, it } from 'vitest';
import { analyzePort } from '../../src/analysis/port.js';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { addL2Bridge, hnsimMatchers } from '../../src/testing/index.js';
import { endpointJson, ok } from '../dataplane/prop-kit.js';

declare module 'vitest' {
  interface Assertion<T> {
    toHaveNoShadowedRules(): T;
  }
}
expect.extend(hnsimMatchers);

function port(policies: readonly JsonObject[]) {
  const host = createHost({ seed: 5 });
  const net = addL2Bridge(host);
  ok(
    host.api.HcnCreateEndpoint(net, null, endpointJson(net, 'web', { ip: '10.244.1.9', policies })),
    'HcnCreateEndpoint',
  );
  return analyzePort(host, 'web');
}

const acl = (Id: string, Action: string, Priority: number, more: JsonObject = {}): JsonObject => ({
  Type: 'ACL',
  Settings: { Id, Action, Direction: 'In', Priority, ...more },
});

describe('toHaveNoShadowedRules', () => {
  it('passes when every rule decides a packet', () => {
    expect(
      port([acl('block-22', 'Block', 100, { Protocols: '6', LocalPorts: '22' }), acl('all', 'Allow', 200)]),
    ).toHaveNoShadowedRules();
  });

  it('fails on a rule a broader one before it takes, with what it was meant for', () => {
    const a = port([
      acl('all', 'Allow', 100),
      acl('block-22', 'Block', 200, { Protocols: '6', LocalPorts: '22' }),
    ]);
    expect(() => expect(a).toHaveNoShadowedRules()).toThrow(
      'expected no shadowed rule; 1 decide(s) nothing:\n  block-22 (Block VFP priority 200), meant for TCP to 10.244.1.9 port 22: decided by all',
    );
    expect(() => expect(a).not.toHaveNoShadowedRules()).not.toThrow();
  });

  it('refuses a subject that is not an analysis', () => {
    expect(() => expect({ In: {} }).toHaveNoShadowedRules()).toThrow(/expected an ACL analysis/);
  });
});
