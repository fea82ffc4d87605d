/**
 * `toBeDeniedBy` on an egress denial (docs/testing.md: "it ends `DeniedIn`/`DeniedOut` and the
 * denying rule matches `rule`"): a `Block` `Out` ACL on the source endpoint stops the packet before
 * it leaves (reference vfp-dataplane.md §1.3: egress from the pod starts with ACL_ENDPOINT_LAYER;
 * §2: a direction's rules are evaluated on the packet going that way). The matcher passes naming
 * that rule (by Id, RegExp, RuleRef on the source endpoint) and fails — with the denying rule in
 * its message — naming another rule of the source, or the destination's ingress rule that would
 * have denied the same packet had it arrived.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost } from '../../src/host/host.js';
import { hnsimMatchers, packetsFrom, type HnsimMatchers } from '../../src/testing/index.js';
import { addL2Bridge } from '../../src/testing/commands.js';

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Assertion<T> extends HnsimMatchers<T> {}
}
expect.extend(hnsimMatchers);

const V2 = { Major: 2, Minor: 0 };

const acl = (settings: JsonObject): JsonObject => ({ Type: 'ACL', Settings: settings });

/**
 * client: blocks TCP 80 out (@100), allows the rest out (@200); web: blocks TCP 80 in (@100),
 * allows the rest in; other: no ACLs.
 */
function node() {
  const host = createHost({ seed: 4 });
  const net = addL2Bridge(host);
  const make = (Name: string, Policies: JsonObject[]): string => {
    const ep = host.api.HcnCreateEndpoint(net, null, { Name, Policies, SchemaVersion: V2 });
    if (!ep.ok) throw new Error(ep.message);
    return ep.result.ID as string;
  };
  const client = make('client', [
    acl({
      Id: 'block-out-80',
      Action: 'Block',
      Direction: 'Out',
      Protocols: '6',
      RemotePorts: '80',
      Priority: 100,
    }),
    acl({ Id: 'allow-out', Action: 'Allow', Direction: 'Out', Priority: 200 }),
    acl({ Id: 'client-allow-in', Action: 'Allow', Direction: 'In', Priority: 200 }),
  ]);
  const web = make('web', [
    acl({
      Id: 'block-in-80',
      Action: 'Block',
      Direction: 'In',
      Protocols: '6',
      LocalPorts: '80',
      Priority: 100,
    }),
    acl({ Id: 'allow-in', Action: 'Allow', Direction: 'In', Priority: 200 }),
    acl({ Id: 'web-allow-out', Action: 'Allow', Direction: 'Out', Priority: 200 }),
  ]);
  make('other', []);
  return { host, client, web };
}

describe('toBeDeniedBy with an egress rule (DeniedOut)', () => {
  it('the trace ends DeniedOut at the source, by its Block Out rule', () => {
    const { host, client } = node();
    const t = host.trace({ from: 'client', to: 'web', destinationPort: 80 });
    expect(t.disposition).toBe('DeniedOut');
    const denied = t.observations.filter((o) => o.action === 'Denied');
    expect(denied).toHaveLength(1);
    expect(denied[0]!.rule).toMatchObject({
      kind: 'Endpoint',
      id: client,
      policy: 'ACL',
      ruleId: 'block-out-80',
    });
  });

  it('passes naming the egress rule', () => {
    const { host, client } = node();
    const to80 = packetsFrom(host, 'client').to('web', { port: 80 });
    expect(to80).toBeDeniedBy('block-out-80');
    expect(to80).toBeDeniedBy(/^block-out-/);
    expect(to80).toBeDeniedBy('ACL');
    expect(to80).toBeDeniedBy({
      policy: 'ACL',
      id: client.toLowerCase(),
      ruleId: 'block-out-80',
      priority: 100,
    });
    expect(host.trace({ from: 'client', to: 'web', destinationPort: 80 })).toBeDeniedBy('block-out-80');
  });

  it('fails naming another rule of the source, with the denying rule in the message', () => {
    const { host } = node();
    const to80 = packetsFrom(host, 'client').to('web', { port: 80 });
    expect(to80).not.toBeDeniedBy('allow-out');
    expect(() => expect(to80).toBeDeniedBy('allow-out')).toThrow(
      'expected client → web:80/TCP to be denied by allow-out; it was denied by ACL block-out-80 on Endpoint client (ACL_ENDPOINT_LAYER)',
    );
  });

  it('fails naming the destination’s ingress rule, which the packet never reached', () => {
    const { host, web } = node();
    const to80 = packetsFrom(host, 'client').to('web', { port: 80 });
    expect(to80).not.toBeDeniedBy('block-in-80');
    expect(to80).not.toBeDeniedBy({ id: web });
    expect(() => expect(to80).toBeDeniedBy('block-in-80')).toThrow(
      'expected client → web:80/TCP to be denied by block-in-80; it was denied by ACL block-out-80 on Endpoint client (ACL_ENDPOINT_LAYER)',
    );
    // the ingress rule does deny the same packet from a source without the egress block
    expect(packetsFrom(host, 'other').to('web', { port: 80 })).toBeDeniedBy({
      id: web,
      ruleId: 'block-in-80',
    });
  });

  it('.not passes on a delivered flow; the positive form says how it ended', () => {
    const { host } = node();
    const to81 = packetsFrom(host, 'client').to('web', { port: 81 });
    expect(to81).not.toBeDeniedBy('block-out-80');
    expect(() => expect(to81).toBeDeniedBy('block-out-80')).toThrow(
      /expected client → web:81\/TCP to be denied by block-out-80; it ended Delivered at endpoint:/,
    );
  });
});
