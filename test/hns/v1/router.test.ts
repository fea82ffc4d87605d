/**
 * HNSCall routes (reference hns-hcs.md §3, §0.3, §0.4), with hcsshim's v1 integration tests
 * (`hcn/hnsv1_test.go`: TestNetwork, TestEndpoint, TestEndpointGetAll, TestEndpointStatsAll,
 * TestNetworkGetAll) ported as vectors: the same bodies hcsshim's `internal/hns` marshals, the same
 * paths, and the responses it reads.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { isFailure } from '../../../src/api/flat.js';
import type { JsonObject } from '../../../src/core/json.js';
import {
  asArr,
  asObj,
  GUID_UPPER,
  V1_HEALTH_AT_BOOT,
  ws2022Extensions,
  hcsshimError,
  makeHost,
  snapshot,
  unwrap,
  v1Error,
  type Host,
} from './harness.js';

/** hcn/hnsv1_test.go CreateTestNetwork: json.Marshal(HNSNetwork{Type:"NAT", Name, Subnets}). */
const CREATE_TEST_NETWORK =
  '{"Name":"GoTestNat","Type":"NAT","Subnets":[{"AddressPrefix":"192.168.100.0/24","GatewayAddress":"192.168.100.1"}]}';

function createTestNetwork(h: Host): JsonObject {
  return asObj(h.ok('POST', '/networks/', CREATE_TEST_NETWORK));
}

/** network.CreateEndpoint(&HNSEndpoint{Name}) sets VirtualNetwork, then POSTs /endpoints/. */
function createEndpoint(h: Host, networkId: string, extra: JsonObject = {}): JsonObject {
  return asObj(
    h.ok('POST', '/endpoints/', { Name: 'GoTestNatEndpoint', VirtualNetwork: networkId, ...extra }),
  );
}

let h: Host;
beforeEach(() => {
  h = makeHost();
});

describe('networks', () => {
  it('TestNetwork: create answers the stored v1 network; delete succeeds; the network is gone', () => {
    const net = createTestNetwork(h);
    expect(Object.keys(net)).toEqual([
      'ID',
      'Name',
      'Type',
      'MacPools',
      'Subnets',
      'ActivityId',
      'CurrentEndpointCount',
      'Extensions',
      'Health',
      'LayeredOn',
      'State',
    ]);
    expect(net).toEqual({
      ID: expect.stringMatching(GUID_UPPER),
      Name: 'GoTestNat',
      Type: 'NAT',
      MacPools: [
        {
          StartMacAddress: expect.stringMatching(/^00-15-5D-[0-9A-F]{2}-[0-9A-F]0-00$/),
          EndMacAddress: expect.any(String),
        },
      ],
      Subnets: [
        {
          AddressPrefix: '192.168.100.0/24',
          GatewayAddress: '192.168.100.1',
          ID: expect.stringMatching(GUID_UPPER),
        },
      ],
      ActivityId: expect.stringMatching(GUID_UPPER),
      CurrentEndpointCount: 0,
      // a NAT network's switch lists the host's extensions, VFP off (Get-HnsNetwork of a nat
      // network: projectcalico/calico#6996, microsoft/WSL#6913; OVS as a host with it installed lists it)
      Extensions: ws2022Extensions(false),
      Health: V1_HEALTH_AT_BOOT,
      LayeredOn: expect.stringMatching(GUID_UPPER),
      State: 1,
    });
    expect(h.ok('GET', `/networks/${String(net['ID'])}`)).toEqual(net);
    expect(h.call('DELETE', `/networks/${String(net['ID'])}`)).toEqual({ Success: true });
    const gone = h.call('GET', `/networks/${String(net['ID'])}`);
    expect(gone).toEqual(v1Error('HCN_E_NETWORK_NOT_FOUND'));
    expect(hcsshimError(gone)).toBe('hns failed with error : The network was not found. ');
  });

  it('TestNetworkGetAll: GET /networks/ lists every network in creation order', () => {
    expect(h.ok('GET', '/networks/')).toEqual([]);
    const a = createTestNetwork(h);
    const b = asObj(h.ok('POST', '/networks/', { Name: 'second', Type: 'Transparent' }));
    expect(asArr(h.ok('GET', '/networks/')).map((n) => n['ID'])).toEqual([a['ID'], b['ID']]);
  });

  it('a duplicate name is Success:false with HCN_E_NETWORK_ALREADY_EXISTS and changes nothing', () => {
    createTestNetwork(h);
    const before = snapshot(h);
    expect(h.call('POST', '/networks/', CREATE_TEST_NETWORK)).toEqual(
      v1Error('HCN_E_NETWORK_ALREADY_EXISTS'),
    );
    expect(snapshot(h)).toBe(before);
  });

  it('a bad subnet is the v2 error (HCN_E_INVALID_PREFIX), as Success:false', () => {
    const r = h.call('POST', '/networks/', {
      Type: 'NAT',
      Subnets: [{ AddressPrefix: '192.168.100.1/24', GatewayAddress: '192.168.100.1' }],
    });
    expect(r).toEqual(v1Error('HCN_E_INVALID_PREFIX'));
  });

  it('POST /networks/<id> {"Extensions":[…]} (SDN Set-HnsSwitchExtension) updates the extension', () => {
    const net = createTestNetwork(h);
    const ext = 'E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A';
    const out = asObj(
      h.ok('POST', `/networks/${String(net['ID'])}`, {
        Extensions: [{ Id: ext.toLowerCase(), IsEnabled: true }],
      }),
    );
    expect(asArr(out['Extensions']).find((e) => e['Id'] === ext)).toEqual({
      Id: ext,
      IsEnabled: true,
      Name: 'Microsoft Windows Filtering Platform',
    });
    expect(h.call('POST', `/networks/${String(net['ID'])}`, { Extensions: [{ Id: 'nope' }] })).toEqual(
      v1Error('HCN_E_GUID_CONVERSION_FAILURE'),
    );
  });
});

describe('endpoints', () => {
  it('TestEndpoint: create, HostAttach(1), HostDetach, delete endpoint, delete network', () => {
    const net = createTestNetwork(h);
    const ep = createEndpoint(h, String(net['ID']));
    expect(ep).toEqual({
      ID: expect.stringMatching(GUID_UPPER),
      Name: 'GoTestNatEndpoint',
      VirtualNetwork: net['ID'],
      VirtualNetworkName: 'GoTestNat',
      MacAddress: expect.stringMatching(/^00-15-5D-[0-9A-F]{2}-[0-9A-F]{2}-[0-9A-F]{2}$/),
      IPAddress: '192.168.100.2',
      GatewayAddress: '192.168.100.1',
      PrefixLength: 24,
      State: 1,
      ActivityId: expect.stringMatching(GUID_UPPER),
      Health: V1_HEALTH_AT_BOOT,
    });
    const id = String(ep['ID']);
    // HostAttach(1): {"SystemType":"Host","CompartmentId":1}
    expect(h.call('POST', `/endpoints/${id}/attach`, '{"SystemType":"Host","CompartmentId":1}')).toEqual({
      Success: true,
    });
    const attached = asObj(h.ok('GET', `/endpoints/${id}`));
    expect(attached['State']).toBe(2);
    expect(attached['Namespace']).toEqual({
      ID: expect.stringMatching(GUID_UPPER),
      IsDefault: true,
      CompartmentId: 1,
    });
    // the host's default compartment is now a HostDefault namespace holding the endpoint (v2 view)
    const nsId = String(asObj(attached['Namespace'])['ID']);
    expect(unwrap(h.api.HcnQueryNamespaceProperties(nsId, ''))).toEqual({
      ID: nsId,
      NamespaceId: 1,
      Type: 'HostDefault',
      Resources: [{ Type: 'Endpoint', Data: { ID: id } }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    // HostDetach: {"SystemType":"Host"}
    expect(h.call('POST', `/endpoints/${id}/detach`, '{"SystemType":"Host"}')).toEqual({ Success: true });
    const detached = asObj(h.ok('GET', `/endpoints/${id}`));
    expect(detached['State']).toBe(1);
    expect(detached['Namespace']).toBeUndefined();
    expect(h.call('DELETE', `/endpoints/${id}`)).toEqual({ Success: true });
    expect(h.call('DELETE', `/networks/${String(net['ID'])}`)).toEqual({ Success: true });
  });

  it('TestEndpointGetAll: GET /endpoints/ lists endpoints (empty list on a fresh host)', () => {
    expect(h.ok('GET', '/endpoints/')).toEqual([]);
    const net = createTestNetwork(h);
    const a = createEndpoint(h, String(net['ID']));
    const b = createEndpoint(h, String(net['ID']));
    expect(asArr(h.ok('GET', '/endpoints')).map((e) => e['ID'])).toEqual([a['ID'], b['ID']]);
  });

  it('TestEndpointStatsAll: stats for every endpoint, then the network is deleted with its endpoint', () => {
    const net = createTestNetwork(h);
    createEndpoint(h, String(net['ID']));
    for (const e of asArr(h.ok('GET', '/endpoints/'))) {
      expect(h.ok('GET', `/endpointstats/${String(e['ID'])}`)).toEqual({
        BytesReceived: 0,
        BytesSent: 0,
        DroppedPacketsIncoming: 0,
        DroppedPacketsOutgoing: 0,
        EndpointId: e['ID'],
        InstanceId: e['ID'],
        PacketsReceived: 0,
        PacketsSent: 0,
      });
    }
    expect(h.call('DELETE', `/networks/${String(net['ID'])}`)).toEqual({ Success: true });
    expect(h.ok('GET', '/endpoints/')).toEqual([]);
  });

  it('deleting a missing endpoint: Success:false, "The endpoint was not found" (ACN#715)', () => {
    const r = h.call('DELETE', '/endpoints/6f1a2b3c-0000-4000-8000-000000000001');
    expect(r).toEqual(v1Error('HCN_E_ENDPOINT_NOT_FOUND'));
    expect(r['ErrorCode']).toBe(-2143617022); // 0x803B0002 as hcsshim's int32 ErrorCode
    // ACN#715 logs "hns failed with error : The endpoint was not found. ." (their wrapper adds the last ".")
    expect(hcsshimError(r)).toBe('hns failed with error : The endpoint was not found. ');
  });

  it('a path ID that is not a GUID is Success:false HCN_E_GUID_CONVERSION_FAILURE', () => {
    expect(h.call('GET', '/endpoints/abc123_cbr0')).toEqual(v1Error('HCN_E_GUID_CONVERSION_FAILURE'));
  });

  it('win-bridge v1 ADD (cni-windows W1): explicit IP, gateway .2, DNS, OutBoundNAT/ROUTE/NAT policies', () => {
    const net = asObj(
      h.ok('POST', '/networks/', {
        Name: 'cbr0',
        Type: 'L2Bridge',
        Subnets: [{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }],
      }),
    );
    const body = `{"Name":"abc123_cbr0","VirtualNetwork":"${String(net['ID'])}","Policies":[{"Type":"OutBoundNAT","ExceptionList":["10.96.0.0/12","10.244.0.0/16"]},{"Type":"ROUTE","DestinationPrefix":"10.96.0.0/12","NeedEncap":true},{"Type":"NAT","InternalPort":80,"ExternalPort":8080,"Protocol":"tcp"}],"IPAddress":"10.244.1.3","DNSSuffix":"default.svc.cluster.local,svc.cluster.local","DNSServerList":"10.96.0.10","GatewayAddress":"10.244.1.2"}`;
    const ep = asObj(h.ok('POST', '/endpoints/', body));
    expect(ep).toEqual({
      ID: expect.stringMatching(GUID_UPPER),
      Name: 'abc123_cbr0',
      VirtualNetwork: net['ID'],
      VirtualNetworkName: 'cbr0',
      Policies: [
        { Type: 'OutBoundNAT', ExceptionList: ['10.96.0.0/12', '10.244.0.0/16'] },
        { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
        { Type: 'NAT', Protocol: 'TCP', InternalPort: 80, ExternalPort: 8080 },
      ],
      MacAddress: expect.any(String),
      IPAddress: '10.244.1.3',
      DNSSuffix: 'default.svc.cluster.local,svc.cluster.local',
      DNSServerList: '10.96.0.10',
      GatewayAddress: '10.244.1.2',
      PrefixLength: 24,
      State: 1,
      ActivityId: expect.stringMatching(GUID_UPPER),
      Health: V1_HEALTH_AT_BOOT,
    });
    // the CNI result reads these: search = split(DNSSuffix), nameservers = split(DNSServerList)
    expect(String(ep['DNSSuffix']).split(',')).toEqual(['default.svc.cluster.local', 'svc.cluster.local']);
  });

  it('the gateway address itself is reserved (SDN#333, P2): Success:false and no endpoint', () => {
    const net = createTestNetwork(h);
    const before = snapshot(h);
    const r = h.call('POST', '/endpoints/', {
      Name: 'p2',
      VirtualNetwork: net['ID'],
      IPAddress: '192.168.100.1',
    });
    expect(r).toEqual(v1Error('HCN_E_ADDR_INVALID_OR_RESERVED'));
    expect(snapshot(h)).toBe(before);
  });

  it('an IP another endpoint holds fails the call itself with 0x80071392 (kubernetes#74766: "hnsCall failed in Win32: The object already exists. (0x1392)")', () => {
    const net = createTestNetwork(h);
    h.api.HNSCall('POST', '/endpoints/', {
      Name: 'cbr0_ep',
      VirtualNetwork: net['ID'],
      IPAddress: '192.168.100.2',
    });
    const before = snapshot(h);
    const r = h.api.HNSCall('POST', '/endpoints/', {
      Name: 'pod',
      VirtualNetwork: net['ID'],
      IPAddress: '192.168.100.2',
    });
    expect(r).toMatchObject({
      ok: false,
      hr: 0x80071392,
      name: 'ERROR_OBJECT_ALREADY_EXISTS',
      message: expect.stringMatching(/^The object already exists\./),
    });
    expect(snapshot(h)).toBe(before);
  });

  it('VirtualNetworkName finds the network; unknown or contradicting names fail', () => {
    const net = createTestNetwork(h);
    const ep = asObj(h.ok('POST', '/endpoints/', { Name: 'e', VirtualNetworkName: 'GoTestNat' }));
    expect(ep['VirtualNetwork']).toBe(net['ID']);
    expect(h.call('POST', '/endpoints/', { Name: 'e', VirtualNetworkName: 'nope' })).toEqual(
      v1Error('HCN_E_NETWORK_NOT_FOUND'),
    );
    expect(h.call('POST', '/endpoints/', { Name: 'e' })).toEqual(v1Error('HCN_E_NETWORK_NOT_FOUND'));
    const other = asObj(h.ok('POST', '/networks/', { Name: 'other', Type: 'NAT' }));
    expect(
      h.call('POST', '/endpoints/', { VirtualNetwork: other['ID'], VirtualNetworkName: 'GoTestNat' }),
    ).toEqual(v1Error('HCN_E_INVALID_ENDPOINT'));
  });

  it('a remote endpoint (New-HnsRemoteEndpoint) with a PA policy', () => {
    const net = asObj(
      h.ok('POST', '/networks/', {
        Name: 'vxlan0',
        Type: 'Overlay',
        Subnets: [
          {
            AddressPrefix: '10.244.0.0/16',
            GatewayAddress: '10.244.1.1',
            Policies: [{ Type: 'VSID', VSID: 4096 }],
          },
        ],
      }),
    );
    const id = 'c0ffee00-1111-4222-8333-444455556666';
    const ep = asObj(
      h.ok('POST', '/endpoints/', {
        ID: id,
        VirtualNetwork: net['ID'],
        IPAddress: '10.244.2.5',
        MacAddress: '0E-2A-0a-f4-02-05',
        IsRemoteEndpoint: true,
        Policies: [{ Type: 'PA', PA: '10.0.0.5' }],
      }),
    );
    expect(ep).toEqual({
      ID: id.toUpperCase(),
      VirtualNetwork: net['ID'],
      VirtualNetworkName: 'vxlan0',
      Policies: [{ Type: 'PA', PA: '10.0.0.5' }],
      // echoed as given (calico#4682 shows HNS returning "0E-2A-0a-01-12-43" unchanged)
      MacAddress: '0E-2A-0a-f4-02-05',
      IPAddress: '10.244.2.5',
      IsRemoteEndpoint: true,
      // HNS reports the VXLAN overhead on Overlay endpoints (AKS#1367, calico#4682: 50)
      EncapOverhead: 50,
      State: 1,
      ActivityId: expect.stringMatching(GUID_UPPER),
      Health: V1_HEALTH_AT_BOOT,
    });
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Container', ContainerId: 'c1' })).toEqual(
      v1Error('HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION'),
    );
  });
});

describe('endpoint update (HNSEndpoint.Update, ApplyACLPolicy)', () => {
  it('POST /endpoints/<id> with the full body replaces the policies and keeps the addresses', () => {
    const net = createTestNetwork(h);
    const ep = createEndpoint(h, String(net['ID']), { DNSServerList: '10.0.0.10' });
    const id = String(ep['ID']);
    // ApplyACLPolicy: GET, append to Policies, POST the whole endpoint back
    const acl = {
      Type: 'ACL',
      Action: 'Block',
      Direction: 'Out',
      RemoteAddresses: '10.1.0.0/16',
      RuleType: 'Switch',
      Priority: 100,
    };
    const body = { ...asObj(h.ok('GET', `/endpoints/${id}`)), Policies: [acl], IPAddress: '192.168.100.99' };
    const updated = asObj(h.ok('POST', `/endpoints/${id}`, body));
    expect(updated).toEqual({ ...ep, Policies: [acl] });
    // the v2 view shows the same policy in v2 form
    const v2 = unwrap(h.api.HcnQueryEndpointProperties(id, ''));
    expect(v2['Policies']).toEqual([
      {
        Type: 'ACL',
        Settings: {
          Action: 'Block',
          Direction: 'Out',
          RemoteAddresses: '10.1.0.0/16',
          RuleType: 'Switch',
          Priority: 100,
        },
      },
    ]);
    expect(v2['IpConfigurations']).toEqual([{ IpAddress: '192.168.100.2', PrefixLength: 24 }]);
  });

  it('DNS is replaced only when the body carries a DNS key', () => {
    const net = createTestNetwork(h);
    const id = String(
      createEndpoint(h, String(net['ID']), { DNSServerList: '10.0.0.10', DNSSuffix: 'a.local' })['ID'],
    );
    h.ok('POST', `/endpoints/${id}`, { ID: id, Policies: [] });
    expect(asObj(h.ok('GET', `/endpoints/${id}`))).toMatchObject({
      DNSServerList: '10.0.0.10',
      DNSSuffix: 'a.local',
    });
    h.ok('POST', `/endpoints/${id}`, { ID: id, DNSServerList: '10.0.0.53' });
    const after = asObj(h.ok('GET', `/endpoints/${id}`));
    expect(after['DNSServerList']).toBe('10.0.0.53');
    expect(after['DNSSuffix']).toBeUndefined();
  });

  it('a port already mapped by another endpoint fails the update and changes nothing', () => {
    const net = createTestNetwork(h);
    const nat = { Type: 'NAT', Protocol: 'UDP', InternalPort: 45678, ExternalPort: 56789 };
    createEndpoint(h, String(net['ID']), { Policies: [nat] });
    const id = String(createEndpoint(h, String(net['ID']))['ID']);
    const before = snapshot(h);
    const r = h.call('POST', `/endpoints/${id}`, { Policies: [nat] });
    expect(r).toEqual(v1Error('HCN_E_PORT_ALREADY_EXISTS'));
    // internal/hns TestHNSErrorPreservation reads ErrorCode -2143617005 as 0x803b0013
    expect(r['ErrorCode']).toBe(-2143617005);
    expect(snapshot(h)).toBe(before);
  });

  it('a body ID other than the path ID → HCN_E_INVALID_ENDPOINT; a missing endpoint → not found', () => {
    const net = createTestNetwork(h);
    const id = String(createEndpoint(h, String(net['ID']))['ID']);
    expect(h.call('POST', `/endpoints/${id}`, { ID: '11111111-2222-4333-8444-555555555555' })).toEqual(
      v1Error('HCN_E_INVALID_ENDPOINT'),
    );
    expect(h.call('POST', '/endpoints/11111111-2222-4333-8444-555555555555', {})).toEqual(
      v1Error('HCN_E_ENDPOINT_NOT_FOUND'),
    );
  });
});

describe('attach / detach (EndpointAttachDetachRequest)', () => {
  let id: string;
  beforeEach(() => {
    id = String(createEndpoint(h, String(createTestNetwork(h)['ID']))['ID']);
  });

  it('ContainerAttach/ContainerDetach maintain SharedContainers and the state', () => {
    const attach = (cid: string) =>
      h.call(
        'POST',
        `/endpoints/${id}/attach`,
        `{"ContainerId":"${cid}","SystemType":"Container","CompartmentId":3}`,
      );
    const detach = (cid: string) =>
      h.call('POST', `/endpoints/${id}/detach`, `{"ContainerId":"${cid}","SystemType":"Container"}`);
    expect(attach('Pause01')).toEqual({ Success: true });
    expect(asObj(h.ok('GET', `/endpoints/${id}`))).toMatchObject({ SharedContainers: ['Pause01'], State: 2 });
    expect(attach('work02')).toEqual({ Success: true });
    const shared = asObj(h.ok('GET', `/endpoints/${id}`));
    expect(shared).toMatchObject({ SharedContainers: ['Pause01', 'work02'], State: 3 });
    // hcsshim IsAttached: case-insensitive substring of the SharedContainers JSON
    expect(JSON.stringify(shared['SharedContainers']).toLowerCase()).toContain('pause01');
    expect(attach('PAUSE01')).toEqual(v1Error('HCN_E_ENDPOINT_ALREADY_ATTACHED'));
    expect(detach('pause01')).toEqual({ Success: true });
    expect(detach('pause01')).toEqual(v1Error('HCN_E_ENDPOINT_NOT_ATTACHED'));
    expect(asObj(h.ok('GET', `/endpoints/${id}`))).toMatchObject({ SharedContainers: ['work02'], State: 2 });
    // the v2 detailed view shows them too
    const v2 = unwrap(h.api.HcnQueryEndpointProperties(id, '{"Flags":1}'));
    expect(asObj(asObj(v2['Health'])['Extra'])['SharedContainers']).toEqual(['work02']);
  });

  it('Host attach to another compartment uses that namespace; without one it is "Element not found."', () => {
    const ns = asObj(h.ok('POST', '/namespaces/', {}));
    expect(ns).toEqual({ ID: expect.stringMatching(GUID_UPPER), CompartmentId: 2 });
    const r = h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Host', CompartmentId: 9 });
    expect(r).toEqual(v1Error('ERROR_NOT_FOUND'));
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Host', CompartmentId: 2 })).toEqual({
      Success: true,
    });
    expect(asObj(h.ok('GET', `/endpoints/${id}`))['Namespace']).toEqual({ ID: ns['ID'], CompartmentId: 2 });
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Host', CompartmentId: 2 })).toEqual(
      v1Error('HCN_E_ENDPOINT_ALREADY_ATTACHED'),
    );
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Host', CompartmentId: 1 })).toEqual(
      v1Error('HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS'),
    );
    expect(h.call('POST', `/endpoints/${id}/detach`, { SystemType: 'Host' })).toEqual({ Success: true });
    expect(h.call('POST', `/endpoints/${id}/detach`, { SystemType: 'Host' })).toEqual(
      v1Error('HCN_E_ENDPOINT_NOT_ATTACHED'),
    );
  });

  it('HostAttach(1) joins an existing HostDefault namespace instead of creating one', () => {
    const def = unwrap(h.api.HcnCreateNamespace(null, { Type: 'HostDefault' }));
    expect(def['NamespaceId']).toBe(1);
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Host', CompartmentId: 1 })).toEqual({
      Success: true,
    });
    expect(h.hns.store.namespaces.size).toBe(1);
    expect(unwrap(h.api.HcnQueryEndpointProperties(id, ''))['HostComputeNamespace']).toBe(def['ID']);
    // CompartmentId omitted (0) also means the default compartment
    h.ok('POST', `/endpoints/${id}/detach`, { SystemType: 'Host' });
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Host' })).toEqual({ Success: true });
    expect(unwrap(h.api.HcnQueryEndpointProperties(id, ''))['HostComputeNamespace']).toBe(def['ID']);
  });

  it('VirtualMachineNICAttach/Detach add and remove the VM switch port', () => {
    const vm = '5B7E1A2C-3D4E-4F50-8A61-72839405A6B7';
    const nic = `${vm}--${id}`;
    expect(
      h.call('POST', `/endpoints/${id}/attach`, `{"SystemType":"VirtualMachine","VirtualNicName":"${nic}"}`),
    ).toEqual({
      Success: true,
    });
    const v2 = unwrap(h.api.HcnQueryEndpointProperties(id, '{"Flags":1}'));
    expect(asObj(asObj(v2['Health'])['Extra'])['VirtualMachine']).toBe(vm);
    const stats = asObj(h.ok('GET', `/endpointstats/${id}`));
    expect(stats['InstanceId']).toMatch(GUID_UPPER);
    expect(stats['InstanceId']).not.toBe(id);
    expect(asObj(h.ok('GET', `/endpoints/${id}`))['State']).toBe(2);
    expect(
      h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'VirtualMachine', VirtualNicName: nic }),
    ).toEqual(v1Error('HCN_E_ENDPOINT_ALREADY_ATTACHED'));
    expect(h.call('POST', `/endpoints/${id}/detach`, '{"SystemType":"VirtualMachine"}')).toEqual({
      Success: true,
    });
    expect(h.call('POST', `/endpoints/${id}/detach`, '{"SystemType":"VirtualMachine"}')).toEqual(
      v1Error('HCN_E_ENDPOINT_NOT_ATTACHED'),
    );
  });

  it('bad requests: unknown SystemType, missing ContainerId, NIC name without a VM GUID', () => {
    const before = snapshot(h);
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Pod' })).toEqual(v1Error('E_INVALIDARG'));
    expect(h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'Container' })).toEqual(
      v1Error('E_INVALIDARG'),
    );
    expect(
      h.call('POST', `/endpoints/${id}/attach`, { SystemType: 'VirtualMachine', VirtualNicName: 'nic0' }),
    ).toEqual(v1Error('E_INVALIDARG'));
    expect(snapshot(h)).toBe(before);
  });
});

/** hns.AddLoadBalancer body (reference §3.3). */
function addLoadBalancer(epId: string): string {
  return `{"References":["/endpoints/${epId}"],"Policies":[{"Type":"ELB","Protocol":6,"InternalPort":8080,"ExternalPort":80,"SourceVIP":"10.0.0.1","VIPs":["1.1.1.2"]}]}`;
}

describe('policy lists', () => {
  let netId: string;
  let ep1: string;
  let ep2: string;
  beforeEach(() => {
    netId = String(createTestNetwork(h)['ID']);
    ep1 = String(createEndpoint(h, netId)['ID']);
    ep2 = String(createEndpoint(h, netId)['ID']);
  });

  it('AddLoadBalancer: the list comes back with an ID and canonical references', () => {
    const pl = asObj(h.ok('POST', '/policylists/', addLoadBalancer(ep1.toLowerCase())));
    expect(pl).toEqual({
      ID: expect.stringMatching(GUID_UPPER),
      References: [`/endpoints/${ep1}`],
      Policies: [
        {
          Type: 'ELB',
          Protocol: 6,
          InternalPort: 8080,
          ExternalPort: 80,
          SourceVIP: '10.0.0.1',
          VIPs: ['1.1.1.2'],
        },
      ],
    });
    expect(h.ok('GET', `/policylists/${String(pl['ID'])}`)).toEqual(pl);
    expect(h.ok('GET', '/policylists/')).toEqual([pl]);
  });

  // Was: deleting a referenced endpoint or its network was refused (HCN_E_ENTITY_HAS_REFERENCES).
  // Windows deletes them and keeps the list (microsoft/Windows-Containers#79: "the network is
  // deleted before load balancing policyList is deleted"; microsoft/wcnscripts
  // findDegradedPolicy.ps1 meets lists whose References name endpoints Get-HnsEndpoint no longer
  // has); the list stays as it was, its frontend held, until it is deleted.
  it('a referenced endpoint and its network can be deleted; the list stays, naming the endpoint', () => {
    const pl = asObj(h.ok('POST', '/policylists/', addLoadBalancer(ep1)));
    const id = String(pl['ID']);
    expect(h.call('DELETE', `/endpoints/${ep1}`)).toEqual({ Success: true });
    expect(h.ok('GET', `/policylists/${id}`)).toEqual(pl);
    expect(h.call('DELETE', `/networks/${netId}`)).toEqual({ Success: true });
    expect(h.ok('GET', '/policylists/')).toEqual([pl]);
    // its frontend is still claimed: the same ELB again is refused
    const net2 = String(createTestNetwork(h)['ID']);
    const ep3 = String(createEndpoint(h, net2)['ID']);
    expect(h.call('POST', '/policylists/', addLoadBalancer(ep3))).toEqual(
      v1Error('HCN_E_PORT_ALREADY_EXISTS'),
    );
    // a new list naming the deleted endpoint is refused as any missing endpoint is
    expect(h.call('POST', '/policylists/', addLoadBalancer(ep1))).toEqual(
      v1Error('HCN_E_ENDPOINT_NOT_FOUND'),
    );
    expect(h.call('DELETE', `/policylists/${id}`)).toEqual({ Success: true });
    expect(h.hns.store.lbClaims.size).toBe(0);
    expect(h.hns.store.endpointRefs.size).toBe(0);
    h.ok('POST', '/policylists/', addLoadBalancer(ep3));
  });

  it('PolicyList.AddEndpoint = DELETE + POST with the reference appended; RemoveEndpoint likewise', () => {
    const pl = asObj(h.ok('POST', '/policylists/', addLoadBalancer(ep1)));
    expect(h.call('DELETE', `/policylists/${String(pl['ID'])}`)).toEqual({ Success: true });
    const refs = [...(pl['References'] as string[]), `/endpoints/${ep2}`];
    const grown = asObj(h.ok('POST', '/policylists/', { ...pl, References: refs }));
    expect(grown).toEqual({ ...pl, References: refs });
    expect([...h.hns.store.refsOf(ep2)]).toEqual([pl['ID']]);
    h.ok('DELETE', `/policylists/${String(pl['ID'])}`);
    const shrunk = asObj(h.ok('POST', '/policylists/', { ...pl, References: [`/endpoints/${ep2}`] }));
    expect(shrunk['References']).toEqual([`/endpoints/${ep2}`]);
    expect(h.hns.store.refsOf(ep1).size).toBe(0);
  });

  it('AddRoute and New-HnsLoadBalancer (no Protocol, VIPs [null]) bodies', () => {
    const route = asObj(
      h.ok('POST', '/policylists/', {
        References: [`/endpoints/${ep1}`, `/endpoints/${ep2}`],
        Policies: [{ Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true }],
      }),
    );
    expect(route['Policies']).toEqual([
      { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
    ]);
    const lb = asObj(
      h.ok('POST', '/policylists/', {
        References: [`/endpoints/${ep1}`],
        Policies: [{ Type: 'ELB', InternalPort: 80, ExternalPort: 8080, VIPs: [null] }],
      }),
    );
    expect(lb['Policies']).toEqual([{ Type: 'ELB', InternalPort: 80, ExternalPort: 8080 }]);
  });

  it('frontend conflicts with other lists and with HCN load balancers → HCN_E_PORT_ALREADY_EXISTS', () => {
    h.ok('POST', '/policylists/', addLoadBalancer(ep1));
    const before = snapshot(h);
    expect(h.call('POST', '/policylists/', addLoadBalancer(ep2))).toEqual(
      v1Error('HCN_E_PORT_ALREADY_EXISTS'),
    );
    const v2 = h.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [ep2],
      SourceVIP: '10.0.0.1',
      FrontendVIPs: ['1.1.1.2'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
    });
    expect(isFailure(v2) && v2.name).toBe('HCN_E_PORT_ALREADY_EXISTS');
    expect(snapshot(h)).toBe(before);
  });

  it.each<[string, string, string]>([
    [
      'a reference that is not /endpoints/<id>',
      '{"References":["/networks/x"]}',
      'HCN_E_INVALID_JSON_REFERENCE',
    ],
    [
      'an unknown endpoint',
      '{"References":["/endpoints/11111111-2222-4333-8444-555555555555"]}',
      'HCN_E_ENDPOINT_NOT_FOUND',
    ],
    [
      'an unknown policy type',
      '{"Policies":[{"Type":"NAT","InternalPort":80}]}',
      'HCN_E_INVALID_POLICY_TYPE',
    ],
    [
      'ELB InternalPort 0',
      '{"Policies":[{"Type":"ELB","InternalPort":0,"ExternalPort":80}]}',
      'HCN_E_INVALID_INTERNAL_PORT',
    ],
    [
      'ELB with a bad VIP',
      '{"Policies":[{"Type":"ELB","InternalPort":80,"ExternalPort":80,"VIPs":["1.1.1"]}]}',
      'HCN_E_INVALID_IP',
    ],
    [
      'ELB Protocol 1',
      '{"Policies":[{"Type":"ELB","Protocol":1,"InternalPort":80}]}',
      'HCN_E_INVALID_POLICY',
    ],
    ['ROUTE without a prefix', '{"Policies":[{"Type":"ROUTE","NeedEncap":true}]}', 'HCN_E_INVALID_POLICY'],
    ['References not strings', '{"References":[1]}', 'HCN_E_INVALID_JSON'],
  ])('%s → Success:false, nothing changes', (_n, body, want) => {
    const before = snapshot(h);
    expect(h.call('POST', '/policylists/', body.replace('<ep>', ep1))).toEqual(v1Error(want as never));
    expect(snapshot(h)).toBe(before);
  });

  it('a reference listed twice → E_INVALIDARG; a missing list → "Element not found."', () => {
    expect(
      h.call('POST', '/policylists/', {
        References: [`/endpoints/${ep1}`, `/endpoints/${ep1.toLowerCase()}`],
      }),
    ).toEqual(v1Error('E_INVALIDARG'));
    expect(h.call('DELETE', '/policylists/11111111-2222-4333-8444-555555555555')).toEqual(
      v1Error('ERROR_NOT_FOUND'),
    );
  });

  it('IsDSR needs the DSR feature: fine on ws2022 (15.0)', () => {
    const body = {
      References: [`/endpoints/${ep1}`],
      Policies: [{ Type: 'ELB', Protocol: 17, InternalPort: 53, ExternalPort: 53, ILB: true, IsDSR: true }],
    };
    expect(asObj(h.ok('POST', '/policylists/', body))['Policies']).toEqual([
      { Type: 'ELB', Protocol: 17, InternalPort: 53, ExternalPort: 53, ILB: true, IsDSR: true },
    ]);
  });
});

describe('policy lists and HCN load balancers are one store (docs/model.md "Policy lists")', () => {
  let ep1: string;
  let ep2: string;
  beforeEach(() => {
    const netId = String(createTestNetwork(h)['ID']);
    ep1 = String(createEndpoint(h, netId)['ID']);
    ep2 = String(createEndpoint(h, netId)['ID']);
  });
  const hcnLb = (doc: JsonObject): JsonObject => unwrap(h.api.HcnCreateLoadBalancer(null, doc));
  const query = (id: string, q?: unknown) => unwrap(h.api.HcnQueryLoadBalancerProperties(id, q));
  const enumerateLbs = () => unwrap(h.api.HcnEnumerateLoadBalancers());

  it('an HCN load balancer is an ELB policy list through v1: one ELB per port mapping, lower-case references', () => {
    const lb = hcnLb({
      HostComputeEndpoints: [ep1, ep2],
      SourceVIP: '10.0.0.1',
      FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
      PortMappings: [
        { Protocol: 6, InternalPort: 8080, ExternalPort: 80, Flags: 1 },
        { Protocol: 17, InternalPort: 53, ExternalPort: 53, DistributionType: 0, Flags: 8 },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
      Flags: 1,
    });
    const elb = (o: JsonObject) => ({
      Type: 'ELB',
      ...o,
      SourceVIP: '10.0.0.1',
      VIPs: ['1.1.1.2', '1.1.1.3'],
    });
    const view = {
      ID: lb['ID'],
      References: [`/endpoints/${ep1.toLowerCase()}`, `/endpoints/${ep2.toLowerCase()}`],
      Policies: [
        { ...elb({ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }), ILB: true, IsDSR: true },
        { ...elb({ Protocol: 17, InternalPort: 53, ExternalPort: 53 }), IsDSR: true },
      ],
    };
    expect(h.ok('GET', '/policylists/')).toEqual([view]);
    expect(h.ok('GET', `/policylists/${String(lb['ID']).toLowerCase()}`)).toEqual(view);
    // a query with SchemaVersion 1 shows the same v1 object
    expect(query(String(lb['ID']), { SchemaVersion: { Major: 1, Minor: 0 } })).toEqual(view);
    // DELETE through v1 deletes it: claims and references go with it
    expect(h.call('DELETE', `/policylists/${String(lb['ID'])}`)).toEqual({ Success: true });
    expect(enumerateLbs()).toEqual([]);
    expect(h.hns.store.lbClaims.size).toBe(0);
    expect(h.hns.store.endpointRefs.size).toBe(0);
  });

  it('a v1 list with ELB policies is an HCN load balancer: a port mapping per ELB, the first gives VIPs, SourceVIP, DSR', () => {
    const pl = asObj(
      h.ok('POST', '/policylists/', {
        References: [`/endpoints/${ep1}`],
        Policies: [
          {
            Type: 'ELB',
            Protocol: 6,
            InternalPort: 8080,
            ExternalPort: 80,
            SourceVIP: '10.0.0.1',
            VIPs: ['1.1.1.2'],
            IsDSR: true,
          },
          { Type: 'ELB', Protocol: 17, InternalPort: 53, ExternalPort: 53, VIPs: ['1.1.1.9'], ILB: true },
          { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
        ],
      }),
    );
    const id = String(pl['ID']);
    expect(enumerateLbs()).toEqual([id]);
    // an enumeration filtered on its ID finds it too
    const byId = JSON.stringify({
      SchemaVersion: { Major: 2, Minor: 0 },
      Filter: JSON.stringify({ ID: id }),
    });
    expect(unwrap(h.api.HcnEnumerateLoadBalancers(byId))).toEqual([id]);
    expect(query(id)).toEqual({
      ID: id,
      HostComputeEndpoints: [ep1],
      SourceVIP: '10.0.0.1',
      FrontendVIPs: ['1.1.1.2'],
      PortMappings: [
        { Protocol: 6, InternalPort: 8080, ExternalPort: 80 },
        { Protocol: 17, InternalPort: 53, ExternalPort: 53, Flags: 1 },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
      Flags: 1,
    });
    // the v1 view is the list as it was written (its ROUTE policy included)
    expect(h.ok('GET', `/policylists/${id}`)).toEqual(pl);
    // HcnDeleteLoadBalancer deletes the whole list
    unwrap(h.api.HcnDeleteLoadBalancer(id));
    expect(h.ok('GET', '/policylists/')).toEqual([]);
    expect(h.hns.store.endpointRefs.size).toBe(0);
  });

  it('a list without an ELB policy is no load balancer: HCN does not find it, v1 does', () => {
    const pl = asObj(
      h.ok('POST', '/policylists/', {
        References: [`/endpoints/${ep1}`],
        Policies: [{ Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true }],
      }),
    );
    const id = String(pl['ID']);
    expect(enumerateLbs()).toEqual([]);
    const before = snapshot(h);
    for (const r of [h.api.HcnQueryLoadBalancerProperties(id, ''), h.api.HcnDeleteLoadBalancer(id)]) {
      expect(isFailure(r) && r.name).toBe('ERROR_NOT_FOUND');
    }
    expect(snapshot(h)).toBe(before);
    expect(h.ok('GET', '/policylists/')).toEqual([pl]);
  });

  it('both views list in creation order; one ID space; one claim space', () => {
    const a = String(
      hcnLb({
        HostComputeEndpoints: [ep1],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 81 }],
      })['ID'],
    );
    const b = String(asObj(h.ok('POST', '/policylists/', addLoadBalancer(ep2)))['ID']);
    const c = String(
      hcnLb({
        HostComputeEndpoints: [ep2],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 82 }],
      })['ID'],
    );
    expect(enumerateLbs()).toEqual([a, b, c]);
    expect(asArr(h.ok('GET', '/policylists/')).map((x) => asObj(x)['ID'])).toEqual([a, b, c]);
    const before = snapshot(h);
    // a v1 list given an HCN load balancer's ID, an HCN load balancer given a list's
    expect(h.call('POST', '/policylists/', { ID: a, References: [`/endpoints/${ep1}`] })).toEqual(
      v1Error('ERROR_ALREADY_EXISTS'),
    );
    const r = h.api.HcnCreateLoadBalancer(b, {
      HostComputeEndpoints: [ep1],
      PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 83 }],
    });
    expect(isFailure(r) && r.name).toBe('ERROR_ALREADY_EXISTS');
    // the HCN load balancer's frontend refuses a v1 list (wildcard VIP: * claims the port)
    expect(
      h.call('POST', '/policylists/', {
        References: [`/endpoints/${ep1}`],
        Policies: [{ Type: 'ELB', Protocol: 6, InternalPort: 80, ExternalPort: 81 }],
      }),
    ).toEqual(v1Error('HCN_E_PORT_ALREADY_EXISTS'));
    expect(snapshot(h)).toBe(before);
  });
});

describe('HcnModifyLoadBalancer of a v1 ELB list', () => {
  const doc = (ep: string, port: number): JsonObject => ({
    HostComputeEndpoints: [ep],
    FrontendVIPs: ['1.1.1.2'],
    PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: port }],
  });

  it('on ws2025 makes it the HCN load balancer the document describes, in its place', () => {
    const g = makeHost('ws2025');
    const netId = String(createTestNetwork(g)['ID']);
    const ep1 = String(createEndpoint(g, netId)['ID']);
    const ep2 = String(createEndpoint(g, netId)['ID']);
    const id = String(asObj(g.ok('POST', '/policylists/', addLoadBalancer(ep1)))['ID']);
    const later = String(unwrap(g.api.HcnCreateLoadBalancer(null, doc(ep1, 90)))['ID']);
    unwrap(g.api.HcnModifyLoadBalancer(id, doc(ep2, 80)));
    expect(g.hns.store.policyLists.size).toBe(0);
    expect(unwrap(g.api.HcnEnumerateLoadBalancers())).toEqual([id, later]);
    expect(unwrap(g.api.HcnQueryLoadBalancerProperties(id, ''))).toMatchObject({
      HostComputeEndpoints: [ep2],
    });
    expect(asObj(g.ok('GET', `/policylists/${id}`))['References']).toEqual([
      `/endpoints/${ep2.toLowerCase()}`,
    ]);
    // the old backend is named only by the other load balancer now, the new one by this one
    // (was: shown by which deletes HNS refused; deletes of named endpoints succeed now)
    expect([...g.hns.store.refsOf(ep1)]).toEqual([later]);
    expect([...g.hns.store.refsOf(ep2)]).toEqual([id]);
  });

  it('below HNS 15.4 is E_NOTIMPL and changes nothing', () => {
    const netId = String(createTestNetwork(h)['ID']);
    const ep = String(createEndpoint(h, netId)['ID']);
    const id = String(asObj(h.ok('POST', '/policylists/', addLoadBalancer(ep)))['ID']);
    const before = snapshot(h);
    const r = h.api.HcnModifyLoadBalancer(id, doc(ep, 80));
    expect(isFailure(r) && r.name).toBe('E_NOTIMPL');
    expect(snapshot(h)).toBe(before);
  });
});

describe('namespaces (internal/hns/namespace.go)', () => {
  it('CreateNamespace, AddNamespaceEndpoint, GetNamespaceEndpoints, RemoveNamespaceEndpoint, RemoveNamespace', () => {
    const ep = String(createEndpoint(h, String(createTestNetwork(h)['ID']))['ID']);
    // CreateNamespace sends namespaceRequest{} → "{}"
    const ns = asObj(h.ok('POST', '/namespaces/', '{}'));
    const id = String(ns['ID']);
    expect(ns).toEqual({ ID: expect.stringMatching(GUID_UPPER), CompartmentId: 2 });
    // path.Join("/namespaces/", id, "addresource") has no trailing slash
    const added = asObj(
      h.ok(
        'POST',
        `/namespaces/${id}/addresource`,
        `{"Type":"Endpoint","Data":{"Id":"${ep.toLowerCase()}"}}`,
      ),
    );
    expect(added).toEqual({
      ID: id,
      ResourceList: [{ Type: 'Endpoint', Data: { Id: ep } }],
      CompartmentId: 2,
    });
    expect(h.ok('GET', `/namespaces/${id}`)).toEqual(added);
    // the same membership through v2
    expect(unwrap(h.api.HcnQueryEndpointProperties(ep, ''))['HostComputeNamespace']).toBe(id);
    expect(asObj(h.ok('GET', `/endpoints/${ep}`))).toMatchObject({
      Namespace: { ID: id, CompartmentId: 2 },
      State: 2,
    });
    // a second namespace cannot take it
    const other = String(asObj(h.ok('POST', '/namespaces/', {}))['ID']);
    expect(
      h.call('POST', `/namespaces/${other}/addresource`, { Type: 'Endpoint', Data: { Id: ep } }),
    ).toEqual(v1Error('HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS'));
    const removed = asObj(
      h.ok('POST', `/namespaces/${id}/removeresource`, { Type: 'Endpoint', Data: { Id: ep } }),
    );
    expect(removed).toEqual({ ID: id, CompartmentId: 2 });
    // removing again: hcsshim maps "Element not found." to os.ErrNotExist (uvm Release ignores it)
    const again = h.call('POST', `/namespaces/${id}/removeresource`, { Type: 'Endpoint', Data: { Id: ep } });
    expect(again).toEqual(v1Error('ERROR_NOT_FOUND'));
    expect(hcsshimError(again)).toContain('Element not found.');
    expect(h.call('DELETE', `/namespaces/${id}`)).toEqual({ Success: true });
    expect(h.call('GET', `/namespaces/${id}`)).toEqual(v1Error('ERROR_NOT_FOUND'));
    expect(h.call('DELETE', `/namespaces/${id}`)).toEqual(v1Error('ERROR_NOT_FOUND'));
  });

  it('IsDefault takes compartment 1; containers are resources too; GET /namespaces/ lists them', () => {
    const def = asObj(h.ok('POST', '/namespaces/', { IsDefault: true }));
    expect(def).toEqual({ ID: expect.stringMatching(GUID_UPPER), IsDefault: true, CompartmentId: 1 });
    const id = String(def['ID']);
    h.ok('POST', `/namespaces/${id}/addresource`, { Type: 'Container', Data: { Id: 'c0ffee' } });
    expect(h.ok('GET', '/namespaces/')).toEqual([
      { ...def, ResourceList: [{ Type: 'Container', Data: { Id: 'c0ffee' } }] },
    ]);
    expect(h.call('POST', `/namespaces/${id}/addresource`, { Type: 'Volume', Data: { Id: 'x' } })).toEqual(
      v1Error('HCN_E_REQUEST_UNSUPPORTED'),
    );
    expect(h.call('POST', `/namespaces/${id}/addresource`, { Type: 'Endpoint', Data: {} })).toEqual(
      v1Error('E_INVALIDARG'),
    );
  });
});

describe('globals/version', () => {
  it.each([
    ['ws2019', 9, 5],
    ['ws2022', 15, 0],
    ['ws2025', 15, 4],
  ])('%s → {"Major":%i,"Minor":%i}', (profile, Major, Minor) => {
    const host = makeHost(profile);
    expect(host.call('GET', '/globals/version')).toEqual({ Success: true, Output: { Major, Minor } });
  });
});

describe('paths and malformed calls', () => {
  it('paths are case-insensitive, the trailing slash optional, GUIDs any case', () => {
    const net = createTestNetwork(h);
    const id = String(net['ID']);
    for (const p of [`/networks/${id}`, `/NETWORKS/${id.toLowerCase()}/`, `networks/{${id}}`]) {
      expect(h.ok('GET', p)).toEqual(net);
    }
    expect(h.call('get', '/Globals/Version/')).toMatchObject({ Success: true });
  });

  it('a request given as an object works like its JSON string', () => {
    const r = unwrap(h.api.HNSCall('POST', '/networks/', JSON.parse(CREATE_TEST_NETWORK)));
    expect(r).toMatchObject({ Success: true, Output: { Name: 'GoTestNat' } });
  });

  it.each<[string, unknown, unknown, unknown, string]>([
    ['method PUT', 'PUT', '/networks/', '', 'E_INVALIDARG'],
    ['method not a string', 7, '/networks/', '', 'E_INVALIDARG'],
    ['path not a string', 'GET', null, '', 'E_INVALIDARG'],
    ['request not JSON', 'POST', '/networks/', '{"Name":', 'HCN_E_INVALID_JSON'],
    ['POST body not an object', 'POST', '/networks/', '[]', 'HCN_E_INVALID_JSON'],
    ['unknown resource', 'GET', '/activities/', '', 'HCN_E_REQUEST_UNSUPPORTED'],
    [
      'unknown action',
      'POST',
      '/endpoints/11111111-2222-4333-8444-555555555555/reset',
      '{}',
      'HCN_E_REQUEST_UNSUPPORTED',
    ],
    ['DELETE without an ID', 'DELETE', '/networks/', '', 'HCN_E_REQUEST_UNSUPPORTED'],
    ['stats without an ID', 'GET', '/endpointstats/', '', 'HCN_E_REQUEST_UNSUPPORTED'],
    ['the root', 'GET', '/', '', 'HCN_E_REQUEST_UNSUPPORTED'],
    ['globals without version', 'GET', '/globals/', '', 'HCN_E_REQUEST_UNSUPPORTED'],
  ])('%s: the call itself fails', (_n, method, path, request, want) => {
    const before = snapshot(h);
    const r = h.api.HNSCall(method, path, request);
    expect(isFailure(r) && r.name).toBe(want);
    expect(snapshot(h)).toBe(before);
  });
});
