/**
 * The dataplane matchers (src/testing/flows.ts) and the fixtures (src/testing/fixtures.ts):
 * `toReach` and `toBeDeniedBy` pass and fail as the trace says, with messages that name the rule;
 * `withHost` / `withCluster` set up, tear down and audit.
 */
import { describe, expect, it, test as base } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import {
  hnsimMatchers,
  packetsFrom,
  TeardownAuditError,
  withCluster,
  withHost,
  type HnsimMatchers,
} from '../../src/testing/index.js';
import { addL2Bridge } from '../../src/testing/commands.js';

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Assertion<T> extends HnsimMatchers<T> {}
}
expect.extend(hnsimMatchers);

const V2 = { Major: 2, Minor: 0 };

/** A node with an L2Bridge network and endpoints `client` and `web` in namespaces. */
function node(webPolicies: JsonObject[] = []): { host: Host; web: string } {
  const host = createHost({ seed: 1 });
  const netId = addL2Bridge(host);
  const ids: string[] = [];
  for (const [name, policies] of [
    ['client', []],
    ['web', webPolicies],
  ] as const) {
    const ep = host.api.HcnCreateEndpoint(netId, null, {
      Name: name,
      Policies: policies,
      SchemaVersion: V2,
    });
    if (!ep.ok) throw new Error(ep.message);
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
    if (!ns.ok) throw new Error(ns.message);
    host.api.HcnModifyNamespace(ns.result.ID as string, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: ep.result.ID },
    });
    ids.push(ep.result.ID as string);
  }
  return { host, web: ids[1]! };
}

const ACLS: JsonObject[] = [
  {
    Type: 'ACL',
    Settings: {
      Id: 'deny-80',
      Action: 'Block',
      Direction: 'In',
      Protocols: '6',
      LocalPorts: '80',
      Priority: 200,
    },
  },
  {
    Type: 'ACL',
    Settings: { Id: 'allow-dns', Action: 'Allow', Direction: 'In', Protocols: '17', Priority: 300 },
  },
  { Type: 'ACL', Settings: { Id: 'allow-out', Action: 'Allow', Direction: 'Out', Priority: 300 } },
];

describe('toReach', () => {
  it('on a host: delivered flows reach, denied ones do not, with the rule in the message', () => {
    const { host } = node(ACLS);
    expect(packetsFrom(host, 'client')).toReach('web', { protocol: 'UDP', port: 53 });
    expect(packetsFrom(host, 'client')).not.toReach('web', { port: 80 });
    expect(() => expect(packetsFrom(host, 'client')).toReach('web', { port: 80 })).toThrow(
      /expected client → web:80\/TCP to get there; it ended DeniedIn at endpoint:[0-9A-F-]+, denied by ACL deny-80 on Endpoint web \(ACL_ENDPOINT_LAYER\)/,
    );
    // an outside address is reached by leaving the node (ExitsNetwork), unless told otherwise
    expect(packetsFrom(host, 'client')).toReach('8.8.8.8');
    expect(packetsFrom(host, 'client').to('8.8.8.8', { exits: false })).not.toReach();
  });

  it('a trace result as the subject: its own target, and a wrong one is an error', () => {
    const { host } = node();
    const t = host.trace({ from: 'client', to: 'web' });
    expect(t).toReach();
    expect(t).toReach('web');
    expect(() => expect(t).toReach('other')).toThrow(/the trace went to web, not other/);
    expect(() => expect({}).toReach('web')).toThrow(/expected a trace result, packetsFrom/);
    expect(() => expect(packetsFrom(host, 'client')).toReach()).toThrow(/needs a target/);
  });

  it('on a cluster: pods, services and the reply', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'win-1', network: 'overlay' });
    c.addWindowsNode({ name: 'win-2', network: 'overlay' });
    c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
    c.addPod({ namespace: 'default', name: 'web-0', node: 'win-2', labels: { app: 'web' } });
    c.addService({
      namespace: 'default',
      name: 'web',
      ports: [{ port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
    });
    const client = packetsFrom(c, 'default/client');
    expect(client).toReach('default/web-0', { port: 8080, reply: true });
    expect(client).toReach('svc:default/web', { reply: true });
    // a service nobody selects: kube-proxy programs nothing, the VIP is routed nowhere
    c.addService({ namespace: 'default', name: 'empty', ports: [{ port: 80 }], selector: { app: 'none' } });
    expect(client).not.toReach('svc:default/empty');
  });
});

describe('toBeDeniedBy', () => {
  it('names the rule by ACL Id, VFP rule name, policy Type, RegExp or RuleRef fields', () => {
    const { host, web } = node(ACLS);
    const to80 = packetsFrom(host, 'client').to('web', { port: 80 });
    expect(to80).toBeDeniedBy('deny-80');
    expect(to80).toBeDeniedBy('ACL');
    expect(to80).toBeDeniedBy(/^deny-/);
    expect(to80).toBeDeniedBy({ policy: 'ACL', id: web.toLowerCase(), ruleId: 'deny-80', priority: 200 });
    expect(to80).not.toBeDeniedBy('allow-dns');
    expect(to80).not.toBeDeniedBy({ name: 'client' });
    // no rule matches TCP 81: the endpoint has ACLs, so the default deny takes it
    const to81 = packetsFrom(host, 'client').to('web', { port: 81 });
    expect(to81).toBeDeniedBy('default-deny');
    expect(() => expect(to81).toBeDeniedBy('deny-80')).toThrow(
      /expected client → web:81\/TCP to be denied by deny-80; it was denied by ACL default-deny on Endpoint [0-9A-F-]+/,
    );
    // a flow that is delivered is denied by nothing
    const dns = host.trace({ from: 'client', to: 'web', protocol: 'UDP', destinationPort: 53 });
    expect(dns).not.toBeDeniedBy('ACL');
    expect(() => expect(dns).toBeDeniedBy('ACL')).toThrow(/it ended Delivered at endpoint:/);
  });
});

describe('withHost / withCluster', () => {
  const test = base.extend<{ host: Host }>({
    host: withHost({
      seed: 2,
      audit: true,
      setup: (h) => {
        h.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' });
      },
    }),
  });

  test('a vitest fixture: a fresh host with its setup, clean at teardown', ({ host }) => {
    expect(host.hns.store.networks.size).toBe(1);
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
    expect(ns.ok).toBe(true);
    if (ns.ok) host.api.HcnDeleteNamespace(ns.result.ID as string);
  });

  it('the audit at teardown fails a test that leaks, listing the findings', async () => {
    const fixture = withHost({ seed: 2, audit: true });
    const leaky = fixture.run((host) => {
      const net = host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' });
      if (net.ok) host.api.HcnCreateEndpoint(net.result.ID as string, null, { Name: 'lost' });
    });
    await expect(leaky).rejects.toThrow(TeardownAuditError);
    await expect(
      withHost({ audit: true }).run((host) => {
        const net = host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' });
        if (net.ok) host.api.HcnCreateEndpoint(net.result.ID as string, null, { Name: 'lost' });
      }),
    ).rejects.toThrow(/host node-1 is not clean at teardown \(1\):\n {2}endpoint-unused .*endpoint lost/);
    // the same through the fixture function vitest calls
    await expect(
      fixture({}, async (host) => {
        host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
      }),
    ).rejects.toThrow(/namespace-without-container/);
    // ignored kinds do not count; without audit nothing is checked
    await expect(
      withHost({ audit: { ignore: ['namespace-without-container'] } }).run((host) => {
        host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
        return 'ok';
      }),
    ).resolves.toBe('ok');
    await expect(withHost().run((host) => host.api.HcnCreateNamespace(null, {}).ok)).resolves.toBe(true);
  });

  it('teardown lets held calls go and removes fault rules; the test’s own error wins over the audit', async () => {
    let seen: Host | undefined;
    await withHost().run(async (host) => {
      seen = host;
      host.faults.hang({ method: 'HcnCreateNamespace' });
      void host.transport.call({ method: 'HcnCreateNamespace', args: [null, {}] });
      await Promise.resolve();
      expect(host.faults.held()).toHaveLength(1);
    });
    expect(seen!.faults.list()).toEqual([]);
    await expect(
      withHost({ audit: true }).run((host) => {
        host.api.HcnCreateNamespace(null, {});
        throw new Error('the test failed');
      }),
    ).rejects.toThrow('the test failed');
  });

  it('withCluster: built by a function or from a spec; audited nodes and cluster check', async () => {
    const build = () => {
      const c = new Cluster({ seed: 1 });
      c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
      c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
      return c;
    };
    await expect(withCluster(build, { audit: true }).run((c) => c.pod('default/a')?.ip)).resolves.toBe(
      '10.244.1.3',
    );
    // a Windows overlay node beside an l2bridge one: no route between their pods (cluster.check)
    await expect(
      withCluster(
        () => {
          const c = build();
          c.addWindowsNode({ name: 'win-2', network: 'overlay' });
          return c;
        },
        { audit: true },
      ).run(() => undefined),
    ).rejects.toThrow(
      /the cluster is not clean at teardown \(1\):\n {2}cluster: overlay nodes \(win-2\) and host-gw nodes \(win-1\)/,
    );
    // an endpoint left on a node by the test
    await expect(
      withCluster(build, { audit: true }).run((c) => {
        const h = c.host('win-1');
        const net = [...h.hns.store.networks.keys()][0]!;
        h.api.HcnCreateEndpoint(net, null, { Name: 'stray' });
      }),
    ).rejects.toThrow(/win-1: endpoint-unused .*endpoint stray/);
    const spec = {
      seed: 4,
      network: 'overlay' as const,
      dsr: false,
      nodes: [{ name: 'win-1', os: 'windows' as const }],
      pods: [],
      services: [],
    };
    await expect(withCluster(spec, { audit: true }).run((c) => c.nodeNames())).resolves.toEqual(['win-1']);
  });
});
