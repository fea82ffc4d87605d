/**
 * PortMapping host-port claims inside one request (docs/model.md "Port mappings", reference
 * hns-hcs.md §5.3): a (protocol, external port, VIP, address family) may be claimed once per
 * network, and that includes two mappings of the same create, a modify that adds a second mapping
 * beside one the endpoint already holds, and a v1 endpoint update. Every refusal is
 * HCN_E_PORT_ALREADY_EXISTS (0x803B0013, HCNHResult.md) and leaves the host exactly as it was.
 * IPv6 twins (NatFlags bit 2 set on one, clear on the other) are two claims, not a duplicate:
 * Azure CNI sends Flags 1 + 2, WCN sends Flags 0 + 2 or 1 + 3.
 */
import { describe, expect, it } from 'vitest';
import { isFailure, type HcnResult } from '../../src/api/flat.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';

/** HCN_E_PORT_ALREADY_EXISTS, from HCNHResult.md (not from the registry under test). */
const PORT_ALREADY_EXISTS = 0x803b0013;
/** The same code as HNS v1 writes it: a signed int32 (hcsshim TestHNSErrorPreservation). */
const PORT_ALREADY_EXISTS_V1 = -2143617005;

function ok<T>(r: HcnResult<T>): T {
  if (isFailure(r)) throw new Error(`expected success, got ${r.name}: ${r.message}`);
  return r.result;
}

/** Run `call`, expect HCN_E_PORT_ALREADY_EXISTS, and that the host did not change at all. */
function refusedUnchanged(host: Host, call: () => HcnResult<unknown>): void {
  const before = JSON.stringify(host.snapshot());
  const r = call();
  expect(isFailure(r) ? r.hr : 'success').toBe(PORT_ALREADY_EXISTS);
  expect(JSON.stringify(host.snapshot())).toBe(before);
}

function setup(): { host: Host; netId: string } {
  const host = createHost({ seed: 11, profile: 'ws2022' });
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'nat',
      Type: 'NAT',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '192.168.100.0/24',
              Routes: [{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
    }),
  );
  return { host, netId: net.ID as string };
}

const pm = (settings: JsonObject): JsonObject => ({ Type: 'PortMapping', Settings: settings });
const endpoint = (...policies: JsonObject[]): Json => ({ Name: 'pod', Policies: policies });

describe('two PortMappings on one host port in a single create', () => {
  it('same protocol and external port, different internal ports → 0x803B0013, nothing created', () => {
    const { host, netId } = setup();
    refusedUnchanged(host, () =>
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(
          pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080 }),
          pm({ Protocol: 6, InternalPort: 81, ExternalPort: 8080 }),
        ),
      ),
    );
    // the port is still free: one mapping alone is accepted afterwards
    ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080 })),
      ),
    );
  });

  it('the same VIP twice, spelt two ways → 0x803B0013: the VIP is compared as an address, not as text', () => {
    const { host, netId } = setup();
    refusedUnchanged(host, () =>
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(
          pm({ Protocol: 17, InternalPort: 53, ExternalPort: 53, VIP: 'fd00::a', Flags: 2 }),
          pm({ Protocol: 17, InternalPort: 5353, ExternalPort: 53, VIP: 'FD00:0:0::A', Flags: 2 }),
        ),
      ),
    );
  });

  // a claim key without the protocol or the VIP would refuse these; they are distinct claims
  it('another protocol, another port or another VIP on the same port is accepted', () => {
    const { host, netId } = setup();
    const ep = ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(
          pm({ Protocol: 6, InternalPort: 53, ExternalPort: 53 }),
          pm({ Protocol: 17, InternalPort: 53, ExternalPort: 53 }),
          pm({ Protocol: 6, InternalPort: 53, ExternalPort: 54 }),
          pm({ Protocol: 6, InternalPort: 53, ExternalPort: 53, VIP: '10.96.0.10' }),
          pm({ Protocol: 6, InternalPort: 53, ExternalPort: 53, VIP: '10.96.0.11' }),
        ),
      ),
    );
    expect(ep.Policies).toHaveLength(5);
  });

  it('mappings without an ExternalPort claim nothing, however many there are', () => {
    const { host, netId } = setup();
    ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(pm({ Protocol: 6, InternalPort: 80 }), pm({ Protocol: 6, InternalPort: 81 })),
      ),
    );
  });
});

describe('IPv6 twins (NatFlags bit 2) are not duplicates', () => {
  // the pairs Azure CNI (1 + 2) and WCN (0 + 2, 1 + 3) send for a dual-stack host port
  it.each([
    [1, 2],
    [0, 2],
    [1, 3],
  ])('Flags %i beside Flags %i on the same port is accepted', (a, b) => {
    const { host, netId } = setup();
    const ep = ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(
          pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: a }),
          pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: b }),
        ),
      ),
    );
    expect(ep.Policies).toHaveLength(2);
  });

  // same family on both sides: the IPv6 bit does not tell them apart, other bits do not count
  it.each([
    [0, 1],
    [2, 3],
    [2, 2],
  ])('Flags %i beside Flags %i on the same port → 0x803B0013', (a, b) => {
    const { host, netId } = setup();
    refusedUnchanged(host, () =>
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(
          pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: a }),
          pm({ Protocol: 6, InternalPort: 81, ExternalPort: 8080, Flags: b }),
        ),
      ),
    );
  });

  it('an IPv6 mapping on a port another endpoint maps for IPv4 is accepted; a second IPv6 one is not', () => {
    const { host, netId } = setup();
    ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080 })),
      ),
    );
    ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: 2 })),
      ),
    );
    refusedUnchanged(host, () =>
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(pm({ Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: 3 })),
      ),
    );
  });
});

describe('a modify that maps a port the endpoint already holds', () => {
  function withMapped(): { host: Host; epId: string } {
    const { host, netId } = setup();
    const ep = ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        endpoint(pm({ Protocol: 17, InternalPort: 45678, ExternalPort: 56789 })),
      ),
    );
    return { host, epId: ep.ID as string };
  }

  // a check that skips the endpoint's own claims ("owner === self is fine") would let this through
  it('Policy Add of a second mapping on the same (protocol, port, VIP) → 0x803B0013, policies unchanged', () => {
    const { host, epId } = withMapped();
    refusedUnchanged(host, () =>
      host.api.HcnModifyEndpoint(epId, {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: { Policies: [pm({ Protocol: 17, InternalPort: 45679, ExternalPort: 56789 })] },
      }),
    );
    expect(ok(host.api.HcnQueryEndpointProperties(epId, '')).Policies).toEqual([
      pm({ Protocol: 17, InternalPort: 45678, ExternalPort: 56789 }),
    ]);
  });

  it('Policy Add of two new mappings on one port in the same request → 0x803B0013', () => {
    const { host, epId } = withMapped();
    refusedUnchanged(host, () =>
      host.api.HcnModifyEndpoint(epId, {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [
            pm({ Protocol: 6, InternalPort: 80, ExternalPort: 80 }),
            pm({ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }),
          ],
        },
      }),
    );
  });

  it('Policy Update that replaces the mapping moves the claim (control: not every change is refused)', () => {
    const { host, epId } = withMapped();
    ok(
      host.api.HcnModifyEndpoint(epId, {
        ResourceType: 'Policy',
        RequestType: 'Update',
        Settings: { Policies: [pm({ Protocol: 17, InternalPort: 45679, ExternalPort: 56789 })] },
      }),
    );
    expect(ok(host.api.HcnQueryEndpointProperties(epId, '')).Policies).toEqual([
      pm({ Protocol: 17, InternalPort: 45679, ExternalPort: 56789 }),
    ]);
  });

  it('v1 POST /endpoints/<id> with the held NAT mapping plus a second on its port → ErrorCode 0x803B0013', () => {
    const { host, netId } = setup();
    // hcsshim HNSEndpoint.Update posts the whole endpoint back with its policies
    const nat = { Type: 'NAT', Protocol: 'UDP', InternalPort: 45678, ExternalPort: 56789 };
    const created = ok(
      host.api.HNSCall('POST', '/endpoints/', JSON.stringify({ VirtualNetwork: netId, Policies: [nat] })),
    );
    expect(created.Success).toBe(true);
    const id = String((created.Output as JsonObject).ID);
    const before = JSON.stringify(host.snapshot());
    const r = ok(
      host.api.HNSCall(
        'POST',
        `/endpoints/${id}`,
        JSON.stringify({ ID: id, Policies: [nat, { ...nat, InternalPort: 45679 }] }),
      ),
    );
    expect(r).toEqual({
      Success: false,
      Error: 'The specified port already exists. ',
      ErrorCode: PORT_ALREADY_EXISTS_V1,
    });
    expect(JSON.stringify(host.snapshot())).toBe(before);
  });
});
