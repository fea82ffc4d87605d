/**
 * hcsshim hcn/hcnerrors_test.go against the simulator: missing objects by name and ID, the
 * duplicate port mapping, ERROR_NOT_FOUND on a missing namespace, and the ErrorRecord HNS returns
 * beside a failing HRESULT (reference hns-hcs.md §0.1, §5.2, §5.3, §9.7–9.8).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { expectHcnFailure, filterQuery, HcsshimFlow } from './hcsshim-flow.js';
import {
  overlayNetwork,
  PORT_MAPPING_POLICY,
  RANDOM_GUID,
  testEndpoint,
  ZERO_GUID,
} from './hcsshim-vectors.js';

function flow(): HcsshimFlow {
  return new HcsshimFlow(createHost({ seed: 3, profile: 'ws2022' }));
}

describe('hcsshim hcn/hcnerrors_test.go', () => {
  it('TestMissingNetworkByName: the Name filter matches nothing → []', () => {
    const hcn = flow();
    const before = hcn.host.snapshot();
    expect(hcn.enumerate('Network', filterQuery({ Name: 'Not found name' }))).toEqual([]);
    expect(hcn.host.snapshot()).toEqual(before);
  });

  it('TestMissingNetworkById: the ID filter matches nothing → []', () => {
    const hcn = flow();
    expect(hcn.enumerate('Network', filterQuery({ ID: RANDOM_GUID }))).toEqual([]);
  });

  it('TestMissingNamespaceById: the ID filter matches nothing → []', () => {
    const hcn = flow();
    expect(hcn.enumerate('Namespace', filterQuery({ ID: RANDOM_GUID }))).toEqual([]);
  });

  it('TestEndpointAlreadyExistsError: the same UDP 45678→56789 PortMapping twice → 0x803B0013', () => {
    const hcn = flow();
    const netId = String(hcn.createNetwork(overlayNetwork()).ID);
    const doc = testEndpoint(netId, [PORT_MAPPING_POLICY]);
    expect(JSON.stringify(doc.Policies)).toBe(
      '[{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":45678,"ExternalPort":56789}}]',
    );
    const first = hcn.createEndpoint(netId, doc);
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnCreateEndpoint(netId, ZERO_GUID, JSON.stringify(doc)),
      0x803b0013,
      'HCN_E_PORT_ALREADY_EXISTS',
    );
    // only the first endpoint exists; deleting it frees the port
    expect(hcn.enumerate('Endpoint')).toEqual([first.ID]);
    hcn.delete('Endpoint', String(first.ID));
    const again = hcn.createEndpoint(netId, doc);
    expect(again.Policies).toEqual([PORT_MAPPING_POLICY]);
  });

  it('TestNotFoundError: open/query a namespace by a random GUID → 0x80070490 ERROR_NOT_FOUND', () => {
    const hcn = flow();
    // getNamespace(guid, "") queries with an empty query string
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnQueryNamespaceProperties(RANDOM_GUID, ''),
      0x80070490,
      'ERROR_NOT_FOUND',
    );
  });

  it('HcnOpenNetwork / HcnOpenEndpoint of a missing ID → 0x803B0001 / 0x803B0002 (reference §9.7)', () => {
    const hcn = flow();
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnQueryNetworkProperties(RANDOM_GUID, ''),
      0x803b0001,
      'HCN_E_NETWORK_NOT_FOUND',
    );
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnQueryEndpointProperties(RANDOM_GUID, ''),
      0x803b0002,
      'HCN_E_ENDPOINT_NOT_FOUND',
    );
  });

  it('the ErrorRecord text is the system message with its full stop and a trailing space (reference §0.1 [O])', () => {
    // observed: {"Success":false,"Error":"The specified request is unsupported. ","ErrorCode":2151350293}
    // (microsoft/Windows-Containers#485), "An address provided is invalid or reserved. " (sig-windows-tools#71),
    // and for this code "The specified port already exists. (0x803b0013)" (microsoft/service-fabric-issues#1647)
    const hcn = flow();
    const netId = String(hcn.createNetwork(overlayNetwork()).ID);
    const doc = testEndpoint(netId, [PORT_MAPPING_POLICY]);
    hcn.createEndpoint(netId, doc);
    const f = expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnCreateEndpoint(netId, ZERO_GUID, JSON.stringify(doc)),
      0x803b0013,
      'HCN_E_PORT_ALREADY_EXISTS',
    );
    expect(f.errorRecord).toEqual({
      Success: false,
      Error: 'The specified port already exists. ',
      ErrorCode: 2151350291,
    });
  });
});
