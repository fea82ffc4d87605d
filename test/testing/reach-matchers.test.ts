/**
 * `toReachExactly(spec)` and `toKeepReachability(before, pairs?)` (src/testing/analysis.ts), each
 * passing and failing with its message written out. The cluster: client on win-1; api-0 on win-2,
 * whose ACL opens TCP 8080 inbound only; the service api (10.96.0.50) TCP 80 → 8080. Its "sync"
 * re-creates api with targetPort 9090, which api-0 refuses. A second backend that opens 9090 only
 * makes TCP 80 a load balancer's choice: delivered on one branch, denied on the other.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import '../../src/analysis/analyze.js';
import { analyzeReachAll } from '../../src/analysis/reach.js';
import type { JsonObject } from '../../src/core/json.js';
import { hnsimMatchers } from '../../src/testing/index.js';
import { analysisNode } from '../cli/state-file.js';

declare module 'vitest' {
  interface Assertion<T> {
    toReachExactly(spec: string): T;
    toKeepReachability(before: unknown, pairs?: { from: readonly string[]; to: readonly string[] }): T;
  }
}
expect.extend(hnsimMatchers);

const acl = (Id: string, Action: string, Direction: string, more: JsonObject = {}): JsonObject => ({
  Type: 'ACL',
  Settings: { Id, Action, Direction, Priority: 100, ...more },
});

const api = (targetPort: number) => ({
  namespace: 'default',
  name: 'api',
  clusterIP: '10.96.0.50',
  ports: [{ port: 80, targetPort }],
  selector: { app: 'api' },
});

function cluster(): Cluster {
  const c = new Cluster({ seed: 1 });
  c.addWindowsNode({ name: 'win-1', network: 'overlay' });
  c.addWindowsNode({ name: 'win-2', network: 'overlay' });
  c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
  c.addPod({
    namespace: 'default',
    name: 'api-0',
    node: 'win-2',
    labels: { app: 'api' },
    policies: [
      acl('api-in', 'Allow', 'In', { Protocols: '6', LocalPorts: '8080' }),
      acl('api-out', 'Allow', 'Out'),
    ],
  });
  c.addService(api(8080));
  return c;
}

/** kube-proxy syncs api re-created with targetPort 9090. */
function sync(c: Cluster): void {
  c.removeService('default', 'api');
  c.addService(api(9090));
}

describe('toReachExactly', () => {
  it('passes when the delivered packets are the spec, and .not fails saying so', () => {
    const r = cluster().analyze({ from: 'default/client', to: 'svc:default/api' });
    expect(r).toReachExactly('TCP port 80');
    expect(cluster().analyze({ from: 'default/client', to: 'default/api-0' })).toReachExactly(
      'TCP port 8080',
    );
    expect(() => expect(r).not.toReachExactly('TCP port 80')).toThrow(
      'expected default/client → svc:default/api not to deliver exactly TCP port 80, and it does: TCP to port 80',
    );
  });

  it('fails on packets the spec names that are not delivered: what they get instead, with a trace', () => {
    const r = cluster().analyze({ from: 'default/client', to: 'svc:default/api' });
    expect(() => expect(r).toReachExactly('TCP port 80, 443; UDP port 53')).toThrow(
      [
        'expected default/client → svc:default/api to deliver exactly TCP port 80, 443; UDP port 53 (whatever a load balancer picks):',
        '  not delivered (NoRoute): TCP to port 443; UDP to port 53',
        '    e.g. --from default/client --to 10.96.0.50 --protocol TCP --sport 50000 --dport 443',
      ].join('\n'),
    );
    expect(() => expect(r).not.toReachExactly('TCP port 80, 443')).not.toThrow();
  });

  it('fails on packets delivered beyond the spec, and after the sync on the port it lost', () => {
    const c = cluster();
    expect(() =>
      expect(c.analyze({ from: 'default/client', to: 'svc:default/api' })).toReachExactly('nothing'),
    ).toThrow(
      [
        'expected default/client → svc:default/api to deliver exactly nothing (whatever a load balancer picks):',
        '  also delivered: TCP to port 80',
        '    e.g. --from default/client --to 10.96.0.50 --protocol TCP --sport 50000 --dport 80',
      ].join('\n'),
    );
    sync(c);
    expect(() =>
      expect(c.analyze({ from: 'default/client', to: 'svc:default/api' })).toReachExactly('TCP port 80'),
    ).toThrow('  not delivered (DeniedIn): TCP to port 80\n');
  });

  it('counts only what is delivered whatever the load balancer picks: a second backend that refuses 8080', () => {
    const c = cluster();
    c.addPod({
      namespace: 'default',
      name: 'api-1',
      node: 'win-2',
      labels: { app: 'api' },
      policies: [
        acl('api-out', 'Allow', 'Out'),
        acl('api-in', 'Allow', 'In', { Protocols: '6', LocalPorts: '9090' }),
      ],
    });
    const r = c.analyze({ from: 'default/client', to: 'svc:default/api' });
    expect(r).toReachExactly('nothing');
    expect(() => expect(r).toReachExactly('TCP port 80')).toThrow(
      [
        'expected default/client → svc:default/api to deliver exactly TCP port 80 (whatever a load balancer picks):',
        '  not delivered whatever the load balancer picks (Delivered or DeniedIn): TCP to port 80',
        '    e.g. --from default/client --to 10.96.0.50 --protocol TCP --sport 50000 --dport 80',
      ].join('\n'),
    );
  });

  it('refuses what is not an answer, or a spec that does not read', () => {
    expect(() => expect({ outcomes: {} }).toReachExactly('TCP port 80')).toThrow(
      /expected a reachability answer/,
    );
    const r = cluster().analyze({ from: 'default/client', to: 'default/api-0' });
    expect(() => expect(r).toReachExactly('ICMP port 7')).toThrow(/only TCP and UDP have ports/);
  });
});

describe('toKeepReachability', () => {
  it('against answers taken before: passes while nothing changed, fails with the differential after the sync', () => {
    const c = cluster();
    const before = analyzeReachAll(
      c,
      ['default/client', 'default/api-0'],
      ['default/api-0', 'svc:default/api'],
    );
    expect(before).toHaveLength(3);
    expect(c).toKeepReachability(before);
    sync(c);
    expect(() => expect(c).toKeepReachability(before)).toThrow(
      [
        'expected reachability unchanged; 3 pairs compared, 2 changed:',
        '  default/client → svc:default/api',
        '    Delivered → DeniedIn: 65536 packets',
        '        TCP to 10.96.0.50 port 80 from 10.244.1.3',
        '        e.g. --from default/client --to 10.96.0.50 --protocol TCP --sport 50000 --dport 80',
        '  default/api-0 → svc:default/api',
        '    Delivered → DeniedIn: 65536 packets',
        '        TCP to 10.96.0.50 port 80 from 10.244.2.3',
        '        e.g. --from default/api-0 --to 10.96.0.50 --protocol TCP --sport 50000 --dport 80',
      ].join('\n'),
    );
    // one answer alone; the pair client → api-0 did not change
    expect(c).toKeepReachability(before[0]!);
    expect(() => expect(c).not.toKeepReachability(before[0]!)).toThrow(
      'expected reachability to change, and the 1 pair(s) are unchanged',
    );
  });

  it('against another network with the pairs: a closed port, and a pod that is gone', () => {
    const web = (ports: string) => [
      acl('web-in', 'Allow', 'In', { Protocols: '6', LocalPorts: ports }),
      acl('web-out', 'Allow', 'Out'),
    ];
    const open = analysisNode([
      ['client', '10.244.1.5', []],
      ['web', '10.244.1.6', web('80,443')],
      ['db', '10.244.1.7', []],
    ]);
    const closed = analysisNode([
      ['client', '10.244.1.5', []],
      ['web', '10.244.1.6', web('80')],
    ]);
    // web → client: web's outbound ACL allows everything in both
    expect(closed).toKeepReachability(open, { from: ['web'], to: ['client'] });
    expect(() => expect(closed).toKeepReachability(open, { from: ['client', 'db'], to: ['web'] })).toThrow(
      [
        'expected reachability unchanged; 2 pairs compared, 2 changed:',
        '  client → web',
        '    Delivered → DeniedIn: 65536 packets',
        '        TCP to 10.244.1.6 port 443 from 10.244.1.5',
        '        e.g. --from client --to 10.244.1.6 --protocol TCP --sport 50000 --dport 443',
        '  db → web (exists before only)',
      ].join('\n'),
    );
    expect(() => expect(closed).toKeepReachability(open)).toThrow(
      /give the pairs to compare with another network/,
    );
  });
});
