/**
 * hcsshim hcn/hcnendpoint_test.go against the simulator: endpoint create/lookup/list, namespace
 * attach/detach, ACL / TierAcl updates and the L4WFPPROXY policy (reference hns-hcs.md §1.2, §2.2,
 * §2.3, §6.4, §6.5, §6.10, §6.11).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import {
  anyGuid,
  expectHcnFailure,
  filterQuery,
  goView,
  HcsshimFlow,
  isHostOf24,
  sameGuid,
} from './hcsshim-flow.js';
import {
  aclRequest,
  l2BridgeNetwork,
  natNetwork,
  NAT_TEST_ENDPOINT_NAME,
  namespaceEndpointModify,
  overlayNetwork,
  policyModify,
  PORT_MAPPING_POLICY,
  testEndpoint,
  testNamespace,
  tierAclRequest,
  wfpProxyRequest,
} from './hcsshim-vectors.js';

function setup(profile = 'ws2022', network: JsonObject = natNetwork()) {
  const hcn = new HcsshimFlow(createHost({ seed: 11, profile }));
  const net = hcn.createNetwork(network);
  const netId = String(net.ID);
  return { hcn, net, netId };
}

/**
 * The endpoint as hcsshim sees it, minus what HNS decides and the reference leaves open (Routes,
 * Health): an address from the default subnet other than the gateway, PrefixLength 24 (§6.4), a MAC
 * from the network's pool in dash format (§6.5).
 */
function endpointView(ep: JsonObject): JsonObject {
  const { Routes: _r, Health: _h, IpConfigurations, MacAddress, ...rest } = goView('HostComputeEndpoint', ep);
  const ips = IpConfigurations as JsonObject[];
  expect(ips).toHaveLength(1);
  expect(isHostOf24(ips[0]!.IpAddress, '192.168.100'), String(ips[0]!.IpAddress)).toBe(true);
  expect(ips[0]!.PrefixLength).toBe(24);
  expect(MacAddress).toMatch(/^00-15-5D-52-C[0-9A-F]-[0-9A-F]{2}$/);
  return rest;
}

describe('hcsshim hcn/hcnendpoint_test.go', () => {
  it('TestCreateDeleteEndpoint', () => {
    const { hcn, netId } = setup();
    const doc = testEndpoint(netId);
    expect(JSON.stringify(doc)).toBe(
      `{"Name":"GoTestNatEndpoint","HostComputeNetwork":"${netId}","Dns":{},"Health":{"Extra":{}},` +
        '"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    const ep = hcn.createEndpoint(netId, doc);
    expect(endpointView(ep)).toEqual({
      ID: anyGuid(),
      Name: NAT_TEST_ENDPOINT_NAME,
      HostComputeNetwork: sameGuid(netId),
      Dns: {},
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(ep).not.toHaveProperty('HostComputeNamespace');
    expect(ep).not.toHaveProperty('Flags');
    hcn.delete('Endpoint', String(ep.ID));
    expect(hcn.byId('Endpoint', String(ep.ID))).toEqual([]);
    hcn.delete('Network', netId);
  });

  it('HcnCreateTestEndpointWithPolicies: the PortMapping policy is kept', () => {
    const { hcn, netId } = setup('ws2022', overlayNetwork());
    const ep = hcn.createEndpoint(netId, testEndpoint(netId, [PORT_MAPPING_POLICY]));
    expect(endpointView(ep)).toEqual({
      ID: anyGuid(),
      Name: NAT_TEST_ENDPOINT_NAME,
      HostComputeNetwork: sameGuid(netId),
      Policies: [PORT_MAPPING_POLICY],
      Dns: {},
      SchemaVersion: { Major: 2, Minor: 0 },
    });
  });

  it('TestGetEndpointById', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    expect(hcn.byId('Endpoint', String(ep.ID))).toEqual([ep]);
    hcn.delete('Endpoint', String(ep.ID));
    hcn.delete('Network', netId);
  });

  it('TestGetEndpointByName', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    expect(hcn.byName('Endpoint', NAT_TEST_ENDPOINT_NAME)).toEqual([ep]);
    hcn.delete('Endpoint', String(ep.ID));
    hcn.delete('Network', netId);
  });

  it('TestListEndpoints', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    expect(hcn.list('Endpoint')).toEqual([ep]);
    hcn.delete('Endpoint', String(ep.ID));
    hcn.delete('Network', netId);
  });

  it('TestListEndpointsOfNetwork: the filter key is VirtualNetwork (reference §0.2)', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    // a second network on a subnet HNS chooses (no overlap with the first)
    const other = hcn.createNetwork({ ...natNetwork(null), Name: 'GoTestNat2' });
    const otherEp = hcn.createEndpoint(String(other.ID), testEndpoint(String(other.ID)));
    expect(hcn.list('Endpoint', filterQuery({ VirtualNetwork: netId }))).toEqual([ep]);
    expect(hcn.list('Endpoint', filterQuery({ VirtualNetwork: String(other.ID) }))).toEqual([otherEp]);
    hcn.delete('Endpoint', String(ep.ID));
    hcn.delete('Network', netId);
  });

  it('TestEndpointNamespaceAttachDetach: HostComputeNamespace reflects membership', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    const epId = String(ep.ID);
    const ns = hcn.createNamespace(testNamespace());
    const nsId = String(ns.ID);

    hcn.modifyNamespace(nsId, namespaceEndpointModify('Add', epId));
    expect(hcn.get('Endpoint', epId).HostComputeNamespace).toEqual(sameGuid(nsId));
    hcn.modifyNamespace(nsId, namespaceEndpointModify('Remove', epId));
    expect(hcn.get('Endpoint', epId)).not.toHaveProperty('HostComputeNamespace');

    hcn.delete('Namespace', nsId);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  it('TestAddL4WfpProxyPolicyOnEndpoint: ApplyPolicy(Add, L4WFPPROXY)', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    const epId = String(ep.ID);
    const request = wfpProxyRequest();
    expect(JSON.stringify(request)).toBe(
      '{"Policies":[{"Type":"L4WFPPROXY","Settings":{"InboundProxyPort":"80","OutboundProxyPort":"81",' +
        '"FilterTuple":{"Protocols":"6","RemoteAddresses":"10.0.0.4","Priority":8},' +
        '"InboundExceptions":{"IpAddressExceptions":["12.0.1.12"],"PortExceptions":["8181"]},' +
        '"OutboundExceptions":{"IpAddressExceptions":["10.0.1.12"],"PortExceptions":["81"]}}}]}',
    );
    hcn.modifyEndpoint(epId, policyModify('Add', request));
    expect(hcn.get('Endpoint', epId).Policies).toEqual(request.Policies);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  it('TestApplyPolicyOnEndpoint: ApplyPolicy(Update, HcnCreateAcls()), re-read by name', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    const request = aclRequest();
    hcn.modifyEndpoint(String(ep.ID), policyModify('Update', request));
    const [found] = hcn.byName('Endpoint', String(ep.Name));
    expect(found!.Policies).toEqual(request.Policies);
    hcn.delete('Endpoint', String(ep.ID));
    hcn.delete('Network', netId);
  });

  it('TestModifyEndpointSettings: ModifyEndpointSettingRequest Update with the reference §2.3 body', () => {
    const { hcn, netId } = setup();
    const ep = hcn.createEndpoint(netId, testEndpoint(netId));
    const request = policyModify('Update', aclRequest());
    const acl = (dir: string) =>
      `{"Type":"ACL","Settings":{"Protocols":"6","Action":"Allow","Direction":"${dir}",` +
      '"LocalAddresses":"192.168.100.0/24,10.0.0.21","RemoteAddresses":"192.168.100.0/24,10.0.0.21",' +
      '"LocalPorts":"80,8080","RemotePorts":"80,8080","RuleType":"Switch","Priority":200}}';
    expect(JSON.stringify(request)).toBe(
      `{"ResourceType":"Policy","RequestType":"Update","Settings":{"Policies":[${acl('In')},${acl('Out')}]}}`,
    );
    hcn.modifyEndpoint(String(ep.ID), request);
    const [found] = hcn.byName('Endpoint', String(ep.Name));
    expect(found!.Policies).toEqual(aclRequest().Policies);
    hcn.delete('Endpoint', String(ep.ID));
    hcn.delete('Network', netId);
  });

  it.each(['ws2022', 'ws2025'])(
    'TestApplyTierAclPolicyOnEndpoint on %s (L2Bridge, TierAcl needs HNS 14.0)',
    (profile) => {
      const { hcn, netId } = setup(profile, l2BridgeNetwork());
      const ep = hcn.createEndpoint(netId, testEndpoint(netId));
      const request = tierAclRequest();
      hcn.modifyEndpoint(String(ep.ID), policyModify('Update', request));
      const [found] = hcn.byName('Endpoint', String(ep.Name));
      expect(found!.Policies).toEqual(request.Policies);
      expect(found!.Policies).toHaveLength(6);
      hcn.delete('Endpoint', String(ep.ID));
      hcn.delete('Network', netId);
    },
  );

  it('endpoint names are not unique (reference §6.7): two GoTestNatEndpoint on one network', () => {
    const { hcn, netId } = setup('ws2022', overlayNetwork());
    const a = hcn.createEndpoint(netId, testEndpoint(netId));
    const b = hcn.createEndpoint(netId, testEndpoint(netId));
    expect(String(a.ID).toLowerCase()).not.toBe(String(b.ID).toLowerCase());
    expect(hcn.byName('Endpoint', NAT_TEST_ENDPOINT_NAME)).toHaveLength(2);
    const ips = [a, b].map((e) => (e.IpConfigurations as JsonObject[])[0]!.IpAddress);
    expect(new Set(ips).size).toBe(2);
  });

  it('a second namespace for an attached endpoint → 0x803B002B HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS', () => {
    const { hcn, netId } = setup();
    const epId = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);
    const ns1 = String(hcn.createNamespace(testNamespace('Host')).ID);
    const ns2 = String(hcn.createNamespace(testNamespace('Host')).ID);
    hcn.modifyNamespace(ns1, namespaceEndpointModify('Add', epId));
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnModifyNamespace(ns2, JSON.stringify(namespaceEndpointModify('Add', epId))),
      0x803b002b,
      'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS',
    );
    expect(hcn.namespaceResourceIds(ns2, 'Endpoint')).toEqual([]);
    expect(hcn.get('Endpoint', epId).HostComputeNamespace).toEqual(sameGuid(ns1));
  });
});
