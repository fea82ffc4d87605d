// Azure CNS in the host snapshot (issue 16; src/plugins/cns, src/host/agents.ts), as a property:
// whatever NCs, multitenant NCs and port CNS was started with, and whatever requests, releases,
// stops, starts and async-delete files came before, snapshot → JSON text → restore on another node
// gives a node whose snapshot is the same, whose CnsState is the same, and which answers every
// later request — CNS's HTTP API on the loopback, byte for byte — as the original does. The
// request and response shapes are CNS's contract (ACN v1.8.12 `cns/NetworkContainerContract.go`
// IPConfigsRequest / IPConfigRequest tags, `cns/restserver/ipam.go` paths); the property is
// differential: the original node is the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/host/host.js';
import {
  ASYNC_DELETE_DIR,
  cnsOf,
  overlayNc,
  startCns,
  type CnsMultitenantSpec,
  type CnsNetworkContainerSpec,
  type CnsOptions,
} from '../../../src/plugins/cns/index.js';
import { cniRpcMethods } from '../../../src/plugins/index.js';
import { runs } from '../../runs.js';

type Op =
  | { kind: 'request'; single: boolean; pod: number }
  | { kind: 'release'; single: boolean; pod: number }
  | { kind: 'nc'; all: boolean; pod: number }
  | { kind: 'stop' }
  | { kind: 'start' }
  | { kind: 'orphan'; pod: number }
  | { kind: 'garbage' };

/** An Azure VM node, built the same way for the original and the restored one. */
const node = (): Host =>
  createHost({
    adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
    azure: { nics: [{ adapter: 'Ethernet' }] },
  });

const range = (base: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${base}${from + i}`);

/** A Swift-like v4 NC: its pod IPs any subset of six, in any order; gateway and SkipDefaultRoutes optional. */
const v4Nc = (id: string, primaryIp: string, base: string): fc.Arbitrary<CnsNetworkContainerSpec> =>
  fc
    .record(
      {
        secondaryIps: fc.shuffledSubarray(range(base, 5, 6)),
        gateway: fc.constantFrom(`${base}1`, ''),
        skipDefaultRoutes: fc.boolean(),
      },
      { requiredKeys: ['secondaryIps'] },
    )
    .map((r) => ({ id, primaryIp, ...r }));

const ncs: fc.Arbitrary<readonly CnsNetworkContainerSpec[]> = fc.oneof(
  fc.constant([]),
  v4Nc('swift-nc', '10.241.0.4/16', '10.241.0.').map((n) => [n]),
  fc
    .tuple(v4Nc('nc-a', '10.242.0.4/24', '10.242.0.'), v4Nc('nc-b', '10.243.0.4/24', '10.243.0.'))
    .map((t) => [...t]),
  // dual-stack Overlay: a v4 block and a v6 one (13 pod IPs)
  fc.constant([
    overlayNc('overlay-v4', '10.244.1.0/28', '10.244.0.0/16'),
    overlayNc('overlay-v6', 'fd00:10:244:1::/124', 'fd00:10:244::/56'),
  ]),
);

const multitenant = (i: number): CnsMultitenantSpec => ({
  pod: `default/web${i}`,
  id: `mt-nc-${i}`,
  vlan: 100 + i,
  ip: `192.168.${i}.4/24`,
  gateway: `192.168.${i}.1`,
  ...(i === 0 ? { cnetAddressSpace: ['192.168.0.0/24'], localIp: '169.254.0.4/17' } : {}),
});

const options: fc.Arbitrary<CnsOptions> = fc.record({
  ncs,
  multitenancy: fc.subarray([0, 1].map(multitenant)),
  port: fc.constantFrom(10090, 10095),
});

const PODS = 5;
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('request' as const),
      single: fc.boolean(),
      pod: fc.nat(PODS - 1),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      single: fc.boolean(),
      pod: fc.nat(PODS - 1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('nc' as const), all: fc.boolean(), pod: fc.nat(2) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'stop' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'start' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('orphan' as const), pod: fc.nat(PODS - 1) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'garbage' as const }) },
);

/** The request body azure-vnet sends (IPConfigsRequest's lower-camel tags; IPConfigRequest's Go names). */
function ipBody(single: boolean, pod: number): string {
  const ctx = { PodName: `web${pod}`, PodNamespace: 'default' };
  const id = `p${pod}-eth0`;
  return JSON.stringify(
    single
      ? { PodInterfaceID: id, InfraContainerID: `c${pod}`, OrchestratorContext: ctx }
      : { podInterfaceID: id, infraContainerID: `c${pod}`, orchestratorContext: ctx },
  );
}

/** Run one op on a node; what a client saw (an HTTP reply, or the refused connection's text). */
function apply(host: Host, port: number, o: Op): unknown {
  const post = (path: string, body: string) => {
    try {
      return host.http.request('POST', `http://localhost:${port}${path}`, body);
    } catch (e) {
      return { refused: (e as Error).message };
    }
  };
  switch (o.kind) {
    case 'request':
      return post(`/network/requestipconfig${o.single ? '' : 's'}`, ipBody(o.single, o.pod));
    case 'release':
      return post(`/network/releaseipconfig${o.single ? '' : 's'}`, ipBody(o.single, o.pod));
    case 'nc':
      return post(
        o.all ? '/network/getAllNetworkContainers' : '/network/getnetworkcontainerbyorchestratorcontext',
        JSON.stringify({ OrchestratorContext: { podName: `web${o.pod}`, podNamespace: 'default' } }),
      );
    case 'stop':
      cnsOf(host)!.stop();
      return null;
    case 'start':
      cnsOf(host)!.start();
      return null;
    case 'orphan':
      // what azure-vnet's DEL leaves when CNS does not answer (cni/network/invoker_cns.go)
      host.files.write(`${ASYNC_DELETE_DIR}/c${o.pod}`, `p${o.pod}-eth0`);
      return null;
    case 'garbage':
      return post('/network/requestipconfigs', '{"podInterfaceID":');
  }
}

const cnsState = async (host: Host) => cniRpcMethods(host).CnsState!.run([]);

describe('Azure CNS in the host snapshot (property)', () => {
  it('snapshot → restore elsewhere: the same snapshot, the same CnsState, the same answers to every later request', async () => {
    await fc.assert(
      fc.asyncProperty(
        options,
        fc.array(op, { maxLength: 16 }),
        fc.array(op, { maxLength: 12 }),
        fc.option(options, { nil: undefined }),
        async (opts, before, after, previous) => {
          const original = node();
          const port = startCns(original, opts).port;
          for (const o of before) apply(original, port, o);
          const snap = original.snapshot();
          // the restored node may run a CNS of its own first: the restore replaces it
          const restored = node();
          if (previous) startCns(restored, previous);
          restored.restore(JSON.parse(JSON.stringify(snap)));
          expect(restored.snapshot()).toEqual(snap);
          expect(await cnsState(restored)).toEqual(await cnsState(original));
          for (const o of after) expect(apply(restored, port, o)).toEqual(apply(original, port, o));
          expect(await cnsState(restored)).toEqual(await cnsState(original));
          expect(restored.snapshot()).toEqual(original.snapshot());
        },
      ),
      { numRuns: runs(60, 600) },
    );
  });
});
