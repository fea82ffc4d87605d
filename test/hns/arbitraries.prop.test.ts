/**
 * The test kit's arbitraries keep their promises (src/testing/arbitraries.ts): valid documents are
 * accepted by a host of the version they were made for, valid policies parse in their scope, and
 * `invalidDoc({kind})` documents are always refused, leaving the host as it was (DESIGN contract 2).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isFailure, type HcnResult } from '../../src/api/flat.js';
import { isRegisteredHResult } from '../../src/core/errors.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import type { NetworkType, PolicyScope } from '../../src/hns/policy/contracts.js';
import { parsePolicy } from '../../src/hns/policy/registry.js';
import { PROFILES } from '../../src/hns/versions.js';
import {
  addressIn,
  checkInvariants,
  DOC_FIELDS,
  endpointDoc,
  generatedPolicyTypes,
  invalidDoc,
  loadBalancerDoc,
  namespaceDoc,
  networkDoc,
  policy,
  sdnRouteDoc,
  type DocKind,
} from '../../src/testing/index.js';
import { runs } from '../runs.js';

const PROFILE_NAMES = ['ws2019', 'ws2022', 'ws2025'] as const;

function ok<T>(r: HcnResult<T>, what: string): T {
  if (isFailure(r)) expect.fail(`${what}: ${r.name} ${r.message}`);
  return r.result;
}

/** A host with a network made from `doc`. */
function withNetwork(profile: string, doc: JsonObject): { host: Host; id: string } {
  const host = createHost({ seed: 5, profile });
  const net = ok(host.api.HcnCreateNetwork(null, doc), `HcnCreateNetwork(${JSON.stringify(doc)})`);
  return { host, id: net.ID as string };
}

describe('test kit arbitraries', () => {
  it('addressIn gives the n-th host address and stays inside the prefix', () => {
    expect(addressIn('10.0.1.0/29', 2)).toBe('10.0.1.2');
    expect(addressIn('10.0.1.0/29', 6)).toBe('10.0.1.6');
    expect(addressIn('10.0.1.0/29', 7)).toBe('10.0.1.1'); // wraps past the broadcast address
    expect(addressIn('fd00::100/120', 5)).toBe('fd00::105');
    expect(addressIn('192.168.1.4/31', 1)).toBe('192.168.1.5');
    expect(() => addressIn('nope', 1)).toThrow(RangeError);
  });

  for (const profile of PROFILE_NAMES) {
    const version = PROFILES[profile]!.version;

    it(`${profile}: every networkDoc() is accepted by a fresh host`, () => {
      fc.assert(
        fc.property(networkDoc({ version }), (doc) => {
          withNetwork(profile, doc);
        }),
        { numRuns: runs(50, 1_500) },
      );
    });

    it(`${profile}: endpointDoc(), namespaceDoc(), loadBalancerDoc(), sdnRouteDoc() are accepted on that network`, () => {
      // the endpoints are drawn for the network the document describes: its type, subnets, MAC ranges
      const scenario = networkDoc({ version }).chain((net) => {
        const subnets = ((net.Ipams as JsonObject[] | undefined) ?? []).flatMap((i) =>
          ((i.Subnets as JsonObject[] | undefined) ?? []).map((s) => s.IpAddressPrefix as string),
        );
        const ranges = (
          ((net.MacPool as JsonObject | undefined)?.Ranges as JsonObject[] | undefined) ?? []
        ).map((r) => ({ start: r.StartMacAddress as string, end: r.EndMacAddress as string }));
        const networkType = (net.Type as NetworkType | undefined) ?? 'NAT';
        return fc.tuple(
          fc.constant(net),
          fc.array(
            endpointDoc(undefined, {
              version,
              networkType,
              subnets,
              ...(ranges.length ? { macRanges: ranges } : {}),
            }),
            {
              minLength: 1,
              maxLength: 3,
            },
          ),
        );
      });
      fc.assert(
        fc.property(scenario, ([net, eps]) => {
          const { host, id } = withNetwork(profile, net);
          const ids: string[] = [];
          const local: string[] = [];
          for (const doc of eps) {
            const r = host.api.HcnCreateEndpoint(id, null, doc);
            // endpoints of one network may collide (same host port, same address): only those may fail
            if (isFailure(r)) {
              expect([
                'HCN_E_PORT_ALREADY_EXISTS',
                'HCN_E_ADDR_INVALID_OR_RESERVED',
                'ERROR_OBJECT_ALREADY_EXISTS',
              ]).toContain(r.name);
              expect(ids.length, `the first endpoint ${JSON.stringify(doc)} was refused`).toBeGreaterThan(0);
              continue;
            }
            ids.push(r.result.ID as string);
            if ((((r.result.Flags as number | undefined) ?? 0) & 1) === 0) local.push(r.result.ID as string);
          }
          const [nsDoc] = fc.sample(namespaceDoc(local), { seed: ids.length, numRuns: 1 });
          ok(host.api.HcnCreateNamespace(null, nsDoc!), `HcnCreateNamespace(${JSON.stringify(nsDoc)})`);
          const [lbDoc] = fc.sample(loadBalancerDoc(ids, { version }), { seed: ids.length, numRuns: 1 });
          ok(host.api.HcnCreateLoadBalancer(null, lbDoc!), `HcnCreateLoadBalancer(${JSON.stringify(lbDoc)})`);
          const [rtDoc] = fc.sample(sdnRouteDoc(ids), { seed: ids.length, numRuns: 1 });
          ok(host.api.HcnCreateSdnRoute(null, rtDoc!), `HcnCreateSdnRoute(${JSON.stringify(rtDoc)})`);
          expect(checkInvariants(host)).toEqual([]);
        }),
        { numRuns: runs(35, 1_000) },
      );
    });

    it(`${profile}: policy(scope) parses in its scope`, () => {
      const scopes: PolicyScope[] = ['network', 'endpoint', 'subnet'];
      for (const scope of scopes) {
        expect(generatedPolicyTypes(scope, { version }).length, `${scope} policy types`).toBeGreaterThan(0);
        fc.assert(
          fc.property(policy(scope, { version }), (p) => {
            const parsed = parsePolicy(p, { version, scope, networkType: 'Overlay' });
            expect(parsed.type).toBe(p.Type);
          }),
          { numRuns: runs(70, 2_000) },
        );
      }
    });
  }

  it('every BAD_FIELDS value in a field a document reads makes it refused, atomically', () => {
    const kinds: DocKind[] = ['Network', 'Endpoint', 'Namespace', 'LoadBalancer', 'SdnRoute'];
    const host: Host = createHost({ seed: 9, profile: 'ws2025' });
    const net = ok(host.api.HcnCreateNetwork(null, { Name: 'base', Type: 'NAT' }), 'network');
    const ep = ok(host.api.HcnCreateEndpoint(net.ID, null, { Name: 'eth0' }), 'endpoint');
    const before = host.snapshot();
    for (const kind of kinds) {
      expect(DOC_FIELDS[kind].length).toBeGreaterThan(0);
      fc.assert(
        fc.property(
          invalidDoc({ kind, endpointIds: [ep.ID as string] }),
          fc.boolean(),
          (doc: Json, asText) => {
            const arg = asText ? JSON.stringify(doc) : doc;
            const api = host.api;
            const r =
              kind === 'Network'
                ? api.HcnCreateNetwork(null, arg)
                : kind === 'Endpoint'
                  ? api.HcnCreateEndpoint(net.ID, null, arg)
                  : kind === 'Namespace'
                    ? api.HcnCreateNamespace(null, arg)
                    : kind === 'LoadBalancer'
                      ? api.HcnCreateLoadBalancer(null, arg)
                      : api.HcnCreateSdnRoute(null, arg);
            expect(isFailure(r), `${kind} ${JSON.stringify(doc)} was accepted`).toBe(true);
            expect(isRegisteredHResult(r.hr)).toBe(true);
            const after = host.snapshot();
            if (!isDeepStrictEqual(after, before)) expect(after).toEqual(before);
          },
        ),
        { numRuns: runs(100, 3_000) },
      );
    }
  });
});
