/**
 * hcsshim hcn/hcnnamespace_test.go against the simulator: namespaces of the four types, lookups,
 * endpoint add/remove through ModifyNamespaceSettingRequest, upper-case endpoint IDs in Resources
 * (reference hns-hcs.md §1.3, §2.3, §6.10).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { anyGuid, expectHcnFailure, goView, HcsshimFlow, sameGuid } from './hcsshim-flow.js';
import {
  natNetwork,
  namespaceEndpointModify,
  newNamespace,
  testEndpoint,
  testNamespace,
} from './hcsshim-vectors.js';

const NAMESPACE_TYPES = ['Host', 'HostDefault', 'Guest', 'GuestDefault'] as const;

function flow(): HcsshimFlow {
  return new HcsshimFlow(createHost({ seed: 5, profile: 'ws2022' }));
}

function withEndpoint(hcn: HcsshimFlow): { netId: string; epId: string } {
  const netId = String(hcn.createNetwork(natNetwork()).ID);
  const epId = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);
  return { netId, epId };
}

/** The namespace as hcsshim sees it; NamespaceId is the compartment HNS chose (a positive number). */
function namespaceView(ns: JsonObject): JsonObject {
  const { NamespaceId, ...rest } = goView('HostComputeNamespace', ns);
  expect(NamespaceId).toEqual(expect.any(Number));
  expect(Number(NamespaceId)).toBeGreaterThan(0);
  return rest;
}

describe('hcsshim hcn/hcnnamespace_test.go', () => {
  it.each(NAMESPACE_TYPES)('TestNewNamespace: NewNamespace(%s) creates that type', (type) => {
    const hcn = flow();
    const doc = newNamespace(type);
    expect(JSON.stringify(doc)).toBe(`{"Type":"${type}","SchemaVersion":{"Major":2,"Minor":0}}`);
    const ns = hcn.createNamespace(doc);
    expect(namespaceView(ns)).toEqual({ ID: anyGuid(), Type: type, SchemaVersion: { Major: 2, Minor: 0 } });
    hcn.delete('Namespace', String(ns.ID));
  });

  it('TestCreateDeleteNamespace: HcnCreateTestNamespace (HostDefault, NamespaceId 5)', () => {
    const hcn = flow();
    const doc = testNamespace();
    expect(JSON.stringify(doc)).toBe(
      '{"NamespaceId":5,"Type":"HostDefault","SchemaVersion":{"Major":2,"Minor":0}}',
    );
    const ns = hcn.createNamespace(doc);
    expect(namespaceView(ns)).toEqual({
      ID: anyGuid(),
      Type: 'HostDefault',
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    hcn.delete('Namespace', String(ns.ID));
    expect(hcn.byId('Namespace', String(ns.ID))).toEqual([]);
  });

  it('TestCreateDeleteNamespaceGuest: GuestDefault', () => {
    const hcn = flow();
    const ns = hcn.createNamespace(newNamespace('GuestDefault'));
    expect(ns.Type).toBe('GuestDefault');
    hcn.delete('Namespace', String(ns.ID));
    expect(hcn.byId('Namespace', String(ns.ID))).toEqual([]);
  });

  it('TestGetNamespaceById', () => {
    const hcn = flow();
    const ns = hcn.createNamespace(testNamespace());
    expect(hcn.byId('Namespace', String(ns.ID))).toEqual([ns]);
    hcn.delete('Namespace', String(ns.ID));
  });

  it('TestListNamespaces', () => {
    const hcn = flow();
    const ns = hcn.createNamespace(testNamespace());
    const listed = hcn.list('Namespace');
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).toContainEqual(ns);
    hcn.delete('Namespace', String(ns.ID));
  });

  it('TestGetNamespaceEndpointIds: endpoint IDs come back upper-case (reference §1.3)', () => {
    const hcn = flow();
    const { netId, epId } = withEndpoint(hcn);
    const nsId = String(hcn.createNamespace(testNamespace()).ID);
    // hcsshim passes the endpoint ID as HNS gave it; send it lower-case so the upper-casing is HNS's
    hcn.modifyNamespace(nsId, namespaceEndpointModify('Add', epId.toLowerCase()));
    expect(hcn.namespaceResourceIds(nsId, 'Endpoint')).toEqual([epId.toUpperCase()]);
    expect(goView('HostComputeNamespace', hcn.get('Namespace', nsId)).Resources).toEqual([
      { Type: 'Endpoint', Data: { ID: epId.toUpperCase() } },
    ]);
    hcn.modifyNamespace(nsId, namespaceEndpointModify('Remove', epId));
    expect(hcn.namespaceResourceIds(nsId, 'Endpoint')).toEqual([]);
    hcn.delete('Namespace', nsId);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  it('TestGetNamespaceContainers: a new namespace has no containers', () => {
    const hcn = flow();
    const nsId = String(hcn.createNamespace(testNamespace()).ID);
    expect(hcn.namespaceResourceIds(nsId, 'Container')).toEqual([]);
    hcn.delete('Namespace', nsId);
  });

  it.each(NAMESPACE_TYPES)('TestAddRemoveNamespaceEndpoint on a %s namespace', (type) => {
    const hcn = flow();
    const { netId, epId } = withEndpoint(hcn);
    const nsId = String(hcn.createNamespace(testNamespace(type)).ID);

    hcn.modifyNamespace(nsId, namespaceEndpointModify('Add', epId));
    expect(hcn.namespaceResourceIds(nsId, 'Endpoint')).toEqual([epId.toUpperCase()]);
    expect(hcn.get('Endpoint', epId).HostComputeNamespace).toEqual(sameGuid(nsId));

    hcn.modifyNamespace(nsId, namespaceEndpointModify('Remove', epId));
    expect(hcn.namespaceResourceIds(nsId, 'Endpoint')).toEqual([]);
    expect(hcn.get('Endpoint', epId)).not.toHaveProperty('HostComputeNamespace');

    hcn.delete('Namespace', nsId);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  it.each(NAMESPACE_TYPES)(
    'a %s namespace refuses an endpoint already in another namespace → 0x803B002B',
    (type) => {
      const hcn = flow();
      const { epId } = withEndpoint(hcn);
      const first = String(hcn.createNamespace(testNamespace('Host')).ID);
      const second = String(hcn.createNamespace(testNamespace(type)).ID);
      hcn.modifyNamespace(first, namespaceEndpointModify('Add', epId));
      expectHcnFailure(
        hcn.host,
        () => hcn.host.api.HcnModifyNamespace(second, JSON.stringify(namespaceEndpointModify('Add', epId))),
        0x803b002b,
        'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS',
      );
    },
  );

  it('TestModifyNamespaceSettings: ModifyNamespaceSettingRequest with {"EndpointId"} (reference §2.3)', () => {
    const hcn = flow();
    const { netId, epId } = withEndpoint(hcn);
    const nsId = String(hcn.createNamespace(testNamespace()).ID);
    const request = namespaceEndpointModify('Add', epId);
    expect(JSON.stringify(request)).toBe(
      `{"ResourceType":"Endpoint","RequestType":"Add","Settings":{"EndpointId":"${epId}"}}`,
    );
    hcn.modifyNamespace(nsId, request);
    expect(hcn.namespaceResourceIds(nsId, 'Endpoint')).toEqual([epId.toUpperCase()]);
    hcn.modifyNamespace(nsId, namespaceEndpointModify('Remove', epId));
    hcn.delete('Namespace', nsId);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  // TestSyncNamespace*: Sync itself is client-side (README); the HNS part is create + delete with NamespaceId 5.
  it.each([
    ['TestSyncNamespaceHostDefault', 'HostDefault'],
    ['TestSyncNamespaceHost', 'Host'],
    ['TestSyncNamespaceGuestNoReg', 'Guest'],
    ['TestSyncNamespaceGuestDefaultNoReg', 'GuestDefault'],
  ])('%s: create (NamespaceId 5) and delete a %s namespace', (_name, type) => {
    const hcn = flow();
    const ns = hcn.createNamespace(testNamespace(type));
    expect(ns.Type).toBe(type);
    hcn.delete('Namespace', String(ns.ID));
    expect(hcn.byId('Namespace', String(ns.ID))).toEqual([]);
  });
});
