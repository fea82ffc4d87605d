/**
 * The labelled-invalid arbitraries (src/testing/rejected.ts) keep their promise: every document and
 * policy they draw is refused by a host with exactly the HRESULT it is labelled with, and the host
 * is left as it was. The HRESULT numbers below are the reference's table (hns-hcs.md §5.2, HCN's
 * HCNHResult.md; Win32 codes from winerror.h), not the simulator's registry, so a label naming a
 * code the simulator spells differently fails here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { NetworkType } from '../../src/hns/policy/contracts.js';
import { PROFILES } from '../../src/hns/versions.js';
import { createHost, type Host } from '../../src/host/host.js';
import {
  BAD_POLICY_SETTINGS,
  canonicalState,
  checkInvariants,
  generatedPolicyTypes,
  rejectedDoc,
  rejectedPolicies,
  rejectedPolicy,
  type RejectedDoc,
} from '../../src/testing/index.js';
import { runs } from '../runs.js';

/** Reference hns-hcs.md §5.2 (and winerror.h for E_INVALIDARG). */
const HR: Readonly<Record<string, number>> = {
  HCN_E_ENDPOINT_NOT_FOUND: 0x803b0002,
  HCN_E_INVALID_NETWORK: 0x803b000a,
  HCN_E_INVALID_NETWORK_TYPE: 0x803b000b,
  HCN_E_INVALID_ENDPOINT: 0x803b000c,
  HCN_E_INVALID_POLICY: 0x803b000d,
  HCN_E_INVALID_POLICY_TYPE: 0x803b000e,
  HCN_E_POLICY_ALREADY_EXISTS: 0x803b0012,
  HCN_E_PORT_ALREADY_EXISTS: 0x803b0013,
  HCN_E_MAPPING_NOT_SUPPORTED: 0x803b0016,
  HCN_E_GUID_CONVERSION_FAILURE: 0x803b0019,
  HCN_E_INVALID_JSON: 0x803b001b,
  HCN_E_INVALID_IP: 0x803b001e,
  HCN_E_INVALID_INTERNAL_PORT: 0x803b002d,
  HCN_E_ADDR_INVALID_OR_RESERVED: 0x803b002f,
  HCN_E_INVALID_PREFIX: 0x803b0030,
  HCN_E_INVALID_SUBNET: 0x803b0032,
  HCN_INTERFACEPARAMETERS_ALREADY_APPLIED: 0x803b0036,
  E_INVALIDARG: 0x80070057,
};

const SUBNET = '10.0.0.0/24';

function network(host: Host, Type: NetworkType): string {
  const r = host.api.HcnCreateNetwork(null, {
    Name: `net-${Type}`,
    Type,
    SchemaVersion: { Major: 2, Minor: 0 },
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: SUBNET,
            Routes: [{ NextHop: '10.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
            ...(Type === 'Overlay' ? { Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }] } : {}),
          },
        ],
      },
    ],
  });
  if (!r.ok) throw new Error(r.message);
  return r.result.ID as string;
}

function endpoint(host: Host, net: string): string {
  const r = host.api.HcnCreateEndpoint(net, null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!r.ok) throw new Error(r.message);
  return r.result.ID as string;
}

/** Refused with the label's code and name, and nothing changed. */
function expectRefused(
  host: Host,
  call: () => { ok: boolean; hr: number; name?: string },
  r: RejectedDoc | { value: unknown; hresult: string; why: string },
): void {
  const before = canonicalState(host);
  const out = call();
  const what = `${r.why}: ${JSON.stringify(r.value)}`;
  expect(out.ok, what).toBe(false);
  expect(out.name, what).toBe(r.hresult);
  expect(out.hr >>> 0, what).toBe(HR[r.hresult]);
  expect(canonicalState(host), what).toEqual(before);
}

const RUNS = { numRuns: runs(70, 2_000) };

describe('rejectedDoc: refused with the labelled HRESULT, atomically', () => {
  for (const profile of ['ws2019', 'ws2022', 'ws2025'] as const) {
    const version = PROFILES[profile]!.version;

    it(`${profile}: networks`, () => {
      const host = createHost({ seed: 3, profile });
      fc.assert(
        fc.property(rejectedDoc('Network', { version }), (r) => {
          expectRefused(host, () => host.api.HcnCreateNetwork(null, r.value), r);
        }),
        RUNS,
      );
      expect(checkInvariants(host)).toEqual([]);
    });

    for (const type of ['NAT', 'L2Bridge', 'Overlay', 'Transparent'] as const) {
      it(`${profile}: endpoints on ${type}`, () => {
        const host = createHost({ seed: 3, profile });
        const net = network(host, type);
        fc.assert(
          fc.property(rejectedDoc('endpoint', { version, networkType: type, subnets: [SUBNET] }), (r) => {
            expectRefused(host, () => host.api.HcnCreateEndpoint(net, null, r.value), r);
          }),
          RUNS,
        );
      });
    }

    it(`${profile}: namespaces, load balancers and routes`, () => {
      const host = createHost({ seed: 3, profile });
      const net = network(host, 'NAT');
      const eps = [endpoint(host, net), endpoint(host, net)];
      const kinds = [
        ['Namespace', (d: JsonObject) => host.api.HcnCreateNamespace(null, d)],
        ['LoadBalancer', (d: JsonObject) => host.api.HcnCreateLoadBalancer(null, d)],
        ['SdnRoute', (d: JsonObject) => host.api.HcnCreateSdnRoute(null, d)],
      ] as const;
      for (const [kind, create] of kinds) {
        fc.assert(
          fc.property(rejectedDoc(kind, { version, endpointIds: eps }), (r) => {
            expectRefused(host, () => create(r.value), r);
          }),
          RUNS,
        );
      }
    });
  }

  it('every field case of every kind is drawn (the labels are all exercised)', () => {
    const seen = new Set<string>();
    for (const kind of ['Network', 'Endpoint', 'Namespace'] as const) {
      for (const r of fc.sample(rejectedDoc(kind), { numRuns: 2000, seed: 1 }))
        seen.add(`${kind}/${r.field}/${r.hresult}`);
    }
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'Network/Ipams/HCN_E_INVALID_SUBNET',
        'Network/Ipams/HCN_E_ADDR_INVALID_OR_RESERVED',
        'Network/Policies/HCN_E_INVALID_POLICY_TYPE',
        'Endpoint/Policies/HCN_E_PORT_ALREADY_EXISTS',
        'Endpoint/Policies/HCN_INTERFACEPARAMETERS_ALREADY_APPLIED',
        'Endpoint/Policies/HCN_E_POLICY_ALREADY_EXISTS',
        'Endpoint/MacAddress/HCN_E_ADDR_INVALID_OR_RESERVED',
        'Namespace/Resources/HCN_E_GUID_CONVERSION_FAILURE',
      ]),
    );
  });

  it('a load balancer or route without endpoints to name, or an unknown kind, is a TypeError', () => {
    expect(() => rejectedDoc('LoadBalancer')).toThrow(/needs endpointIds/);
    expect(() => rejectedDoc('Netwrok')).toThrow(/unknown kind "Netwrok"/);
  });
});

describe('rejectedPolicy / rejectedPolicies', () => {
  it('every generated policy Type is drawn spoilt, in each of its scopes', () => {
    for (const scope of ['network', 'endpoint', 'subnet'] as const) {
      for (const type of generatedPolicyTypes(scope)) {
        const drawn = fc
          .sample(rejectedPolicy(scope), { numRuns: 3000, seed: 2 })
          .filter((r) => r.value.Type === type);
        expect(drawn.length, `${scope} ${type}`).toBeGreaterThan(0);
        expect(BAD_POLICY_SETTINGS[type], type).toBeDefined();
      }
    }
  });

  it('endpoint policies on a Transparent network: a PortMapping is HCN_E_MAPPING_NOT_SUPPORTED (on the host too)', () => {
    const host = createHost({ seed: 3 });
    const net = network(host, 'Transparent');
    const drawn = fc.sample(rejectedPolicy('endpoint', { networkType: 'Transparent' }), {
      numRuns: 500,
      seed: 4,
    });
    const mapping = drawn.filter((r) => r.hresult === 'HCN_E_MAPPING_NOT_SUPPORTED');
    expect(mapping.length).toBeGreaterThan(0);
    for (const r of drawn)
      expectRefused(host, () => host.api.HcnCreateEndpoint(net, null, { Policies: [r.value] }), r);
  });

  it('ws2019: a policy Type newer than HNS 9.5 is HCN_E_INVALID_POLICY_TYPE, and the host agrees', () => {
    const version = PROFILES.ws2019!.version;
    const host = createHost({ seed: 3, profile: 'ws2019' });
    const net = network(host, 'L2Bridge');
    const drawn = fc.sample(rejectedPolicy('endpoint', { version, networkType: 'L2Bridge' }), {
      numRuns: 800,
      seed: 5,
    });
    // TierAcl (HNS 14.0) is one of them: the reference's version table, not the registry's
    expect(drawn.some((r) => r.value.Type === 'TierAcl' && r.hresult === 'HCN_E_INVALID_POLICY_TYPE')).toBe(
      true,
    );
    for (const r of drawn)
      expectRefused(host, () => host.api.HcnCreateEndpoint(net, null, { Policies: [r.value] }), r);
  });

  it('network-scope lists are refused on a network as labelled', () => {
    const host = createHost({ seed: 3 });
    fc.assert(
      fc.property(rejectedPolicies('network', { networkType: 'L2Bridge' }), (r) => {
        expectRefused(
          host,
          () => host.api.HcnCreateNetwork(null, { Name: 'n', Type: 'L2Bridge', Policies: r.value }),
          r,
        );
      }),
      RUNS,
    );
  });

  it('subnet policies are refused in a subnet as labelled', () => {
    const host = createHost({ seed: 3 });
    fc.assert(
      fc.property(rejectedPolicy('subnet', { networkType: 'Overlay' }), (r) => {
        const doc = {
          Name: 'o',
          Type: 'Overlay',
          Ipams: [
            {
              Type: 'Static',
              Subnets: [
                {
                  IpAddressPrefix: SUBNET,
                  Routes: [{ NextHop: '10.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
                  Policies: [r.value],
                },
              ],
            },
          ],
        };
        expectRefused(host, () => host.api.HcnCreateNetwork(null, doc), r);
      }),
      RUNS,
    );
  });

  it('shrinks to one bad policy in an otherwise empty list', () => {
    const out = fc.check(
      fc.property(rejectedPolicies('endpoint'), (r) => r.hresult !== 'HCN_E_INVALID_POLICY'),
      { numRuns: 500, seed: 6 },
    );
    expect(out.failed).toBe(true);
    const [r] = out.counterexample!;
    expect(r.value).toHaveLength(1);
    expect(r.hresult).toBe('HCN_E_INVALID_POLICY');
  });
});
