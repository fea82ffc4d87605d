// HostComputeEndpoint through the typed client (reference hns-hcs.md §1.2, §2.3, §6): create checks,
// VirtualNetwork filter, first match by name, policy and port requests, namespace attach/detach.
import { describe, expect, it } from 'vitest';
import type { HcnError } from '../../../src/api/hcn/index.js';
import {
  ActionType,
  DirectionType,
  EndpointNotFoundError,
  EndpointPolicyType,
  EndpointResourceType,
  HostComputeQueryFlags,
  HcnClientError,
  HostComputeEndpoint,
  isNotFoundError,
  isPortAlreadyExistsError,
  RequestType,
  RuleType,
  type PolicyEndpointRequest,
  type VmEndpointRequest,
} from '../../../src/api/hcn/index.js';
import { natNetworkDoc, overlayNetworkDoc, rejection, setup } from './helpers.js';

/** hcsshim `HcnCreateAcls()`: an In and an Out ACL, Switch rules, priority 200. */
function hcnCreateAcls(): PolicyEndpointRequest {
  const acl = (Direction: DirectionType) => ({
    Type: EndpointPolicyType.ACL,
    Settings: {
      Protocols: '6',
      Action: ActionType.Allow,
      Direction,
      LocalAddresses: '192.168.100.0/24,10.0.0.21',
      RemoteAddresses: '192.168.100.0/24,10.0.0.21',
      LocalPorts: '80,8080',
      RemotePorts: '80,8080',
      RuleType: RuleType.Switch,
      Priority: 200,
    },
  });
  return { Policies: [acl(DirectionType.In), acl(DirectionType.Out)] };
}

describe('HostComputeEndpoint.create', () => {
  it('creates on the network named by HostComputeNetwork', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await new HostComputeEndpoint(hcn, { Name: 'ep', HostComputeNetwork: net.ID }).create();
    expect(ep.HostComputeNetwork).toBe(net.ID);
    const same = await hcn.createEndpoint({ Name: 'ep2', HostComputeNetwork: net.ID });
    expect(same.IpConfigurations[0]!.IpAddress).toBe('192.168.100.3');
  });

  it('rejects a set HostComputeNamespace client-side, before any call', async () => {
    const { hcn, rec } = setup();
    const e = await rejection(
      new HostComputeEndpoint(hcn, {
        Name: 'ep',
        HostComputeNetwork: '5f0b1190-63be-4e0c-b974-bd0f55675a42',
        HostComputeNamespace: '6f0b1190-63be-4e0c-b974-bd0f55675a42',
      }).create(),
    );
    expect(e).toBeInstanceOf(HcnClientError);
    expect(e.message).toBe(
      'endpoint create error, endpoint json HostComputeNamespace is read only and should not be set',
    );
    expect(rec.calls).toEqual([]);
  });

  it('without a network ID: "invalid network ID" before any call', async () => {
    const { hcn, rec } = setup();
    expect((await rejection(hcn.createEndpoint({ Name: 'x' }))).message).toBe('invalid network ID');
    expect(rec.calls).toEqual([]);
  });

  it('a second endpoint with the same port mapping: HCN_E_PORT_ALREADY_EXISTS (TestEndpointAlreadyExistsError)', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(overlayNetworkDoc());
    const policies = [
      {
        Type: EndpointPolicyType.PortMapping,
        Settings: { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 },
      },
    ];
    await net.createEndpoint({
      Name: 'GoTestNatEndpoint',
      Policies: policies,
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    const e = await rejection(
      net.createEndpoint({
        Name: 'GoTestNatEndpoint',
        Policies: policies,
        SchemaVersion: { Major: 2, Minor: 0 },
      }),
    );
    expect(isPortAlreadyExistsError(e)).toBe(true);
    expect((e as HcnError).errorCode).toBe(0x803b0013);
    expect(e.message).toBe(
      'hcnCreateEndpoint failed in Win32: The specified port already exists. (0x803b0013) {"Success":false,"Error":"The specified port already exists. ","ErrorCode":2151350291}',
    );
    expect((await hcn.listEndpoints()).length).toBe(1);
  });
});

describe('endpoint lookups', () => {
  it('listEndpointsOfNetwork filters with {"VirtualNetwork":id} exactly as hcsshim does', async () => {
    const { hcn, rec } = setup();
    const a = await hcn.createNetwork(natNetworkDoc(undefined, 'a'));
    const b = await hcn.createNetwork(overlayNetworkDoc('b'));
    const ea = await a.createEndpoint({ Name: 'ea' });
    await b.createEndpoint({ Name: 'eb1' });
    await b.createEndpoint({ Name: 'eb2' });
    rec.clear();
    const ofA = await hcn.listEndpointsOfNetwork(a.ID);
    expect(ofA.map((e) => e.ID)).toEqual([ea.ID]);
    const filter = JSON.parse(JSON.parse(rec.calls[0]!.args[0] as string).Filter as string);
    expect(filter).toEqual({ VirtualNetwork: a.ID });
    expect((await hcn.listEndpointsOfNetwork(b.ID)).map((e) => e.Name).sort()).toEqual(['eb1', 'eb2']);
    expect(await hcn.listEndpointsOfNetwork('5f0b1190-63be-4e0c-b974-bd0f55675a42')).toEqual([]);
    expect((await hcn.listEndpoints()).length).toBe(3);
    expect(
      (await hcn.listEndpointsQuery({ SchemaVersion: { Major: 2, Minor: 0 }, Filter: '{"Name":"eb2"}' }))[0]!
        .Name,
    ).toBe('eb2');
  });

  it('getEndpointByName returns the FIRST of endpoints sharing a name (names are not unique)', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const first = await net.createEndpoint({ Name: 'GoTestNatEndpoint' });
    const second = await net.createEndpoint({ Name: 'GoTestNatEndpoint' });
    expect(second.ID).not.toBe(first.ID);
    const found = await hcn.getEndpointByName('GoTestNatEndpoint');
    const enumerated = (await hcn.listEndpoints()).map((e) => e.ID);
    expect(found.ID).toBe(enumerated[0]);
    expect(found.ID).toBe(first.ID);
    expect((await hcn.getEndpointByID(second.ID)).ID).toBe(second.ID);
  });

  it('missing endpoints: EndpointNotFoundError with hcsshim messages', async () => {
    const { hcn } = setup();
    const byName = await rejection(hcn.getEndpointByName('nope'));
    expect(byName).toBeInstanceOf(EndpointNotFoundError);
    expect(byName.message).toBe('Endpoint name "nope" not found');
    const byId = await rejection(hcn.getEndpointByID('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(byId.message).toBe('Endpoint ID "5f0b1190-63be-4e0c-b974-bd0f55675a42" not found');
    expect(isNotFoundError(byId)).toBe(true);
  });
});

describe('endpoint policies and settings', () => {
  it('applyPolicy(Update, ACLs) sends the reference body, and the policies are visible by name', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await net.createEndpoint({ Name: 'GoTestNatEndpoint' });
    rec.clear();
    await ep.applyPolicy(RequestType.Update, hcnCreateAcls());
    expect(rec.methods()).toEqual(['HcnModifyEndpoint', 'HcnQueryEndpointProperties']);
    expect(rec.calls[0]!.args[0]).toBe(ep.ID);
    const body = rec.calls[0]!.args[1] as string;
    expect(
      body.startsWith(
        '{"ResourceType":"Policy","RequestType":"Update","Settings":{"Policies":[{"Type":"ACL","Settings":{"Protocols":"6","Action":"Allow","Direction":"In","LocalAddresses":"192.168.100.0/24,10.0.0.21"',
      ),
    ).toBe(true);
    const byName = await hcn.getEndpointByName('GoTestNatEndpoint');
    expect(byName.Policies.filter((p) => p.Type === 'ACL')).toHaveLength(2);
    // Update replaces: applying one ACL leaves one
    await ep.applyPolicy(RequestType.Update, { Policies: [hcnCreateAcls().Policies![0]!] });
    expect((await hcn.getEndpointByID(ep.ID)).Policies.filter((p) => p.Type === 'ACL')).toHaveLength(1);
  });

  it('applyPolicy Add then Remove round-trips a policy', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await net.createEndpoint({ Name: 'e' });
    const pm = {
      Policies: [{ Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } }],
    };
    await ep.applyPolicy(RequestType.Add, pm);
    expect((await hcn.getEndpointByID(ep.ID)).Policies.map((p) => p.Type)).toEqual(['PortMapping']);
    await ep.applyPolicy(RequestType.Remove, pm);
    expect((await hcn.getEndpointByID(ep.ID)).Policies).toEqual([]);
  });

  it('modifyEndpointSettings (package-level and on the object) with a bad ID: "invalid endpoint ID"', async () => {
    const { hcn, rec } = setup();
    expect((await rejection(hcn.modifyEndpointSettings('bad', {}))).message).toBe('invalid endpoint ID');
    expect((await rejection(new HostComputeEndpoint(hcn).modifyEndpointSettings({}))).message).toBe(
      'invalid endpoint ID',
    );
    expect((await rejection(new HostComputeEndpoint(hcn).delete())).message).toBe('invalid endpoint ID');
    expect(rec.calls).toEqual([]);
  });

  it('modifyEndpointSettings with a Port request (VmEndpointRequest): add, detailed query, remove', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await net.createEndpoint({ Name: 'vm-nic' });
    const vm = '7d3c2b1a-0000-4000-8000-000000000001';
    const port: VmEndpointRequest = {
      PortId: '7d3c2b1a-0000-4000-8000-0000000000aa',
      VirtualNicName: `${vm}--${ep.ID}`,
      VirtualMachineId: vm,
    };
    rec.clear();
    await hcn.modifyEndpointSettings(ep.ID, {
      ResourceType: EndpointResourceType.Port,
      RequestType: 'Add',
      Settings: { ...port },
    });
    expect(JSON.parse(rec.calls[0]!.args[1] as string)).toEqual({
      ResourceType: 'Port',
      RequestType: 'Add',
      Settings: port,
    });
    const detailed = await hcn.listEndpointsQuery({
      SchemaVersion: { Major: 2, Minor: 0 },
      Flags: HostComputeQueryFlags.Detailed,
      Filter: JSON.stringify({ ID: ep.ID }),
    });
    expect(detailed[0]!.Health.Extra?.VirtualMachine).toBe(vm.toUpperCase());
    const again = (await rejection(
      ep.modifyEndpointSettings({ ResourceType: 'Port', RequestType: 'Add', Settings: { ...port } }),
    )) as HcnError;
    expect(again.code).toBe('HCN_E_ENDPOINT_ALREADY_ATTACHED');
    await ep.modifyEndpointSettings({ ResourceType: 'Port', RequestType: 'Remove', Settings: {} });
    const gone = (await rejection(
      ep.modifyEndpointSettings({ ResourceType: 'Port', RequestType: 'Remove', Settings: {} }),
    )) as HcnError;
    expect(gone.code).toBe('HCN_E_ENDPOINT_NOT_ATTACHED');
  });

  it('createEndpointOnNetwork: network.CreateEndpoint by network ID', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await hcn.createEndpointOnNetwork(net.ID, { Name: 'by-id', HostComputeNetwork: 'ignored' });
    expect(ep.HostComputeNetwork).toBe(net.ID);
    expect((await hcn.listEndpointsOfNetwork(net.ID)).map((e) => e.Name)).toEqual(['by-id']);
  });

  it('delete removes the endpoint; a second delete is HCN_E_ENDPOINT_NOT_FOUND', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await net.createEndpoint({ Name: 'e' });
    await ep.delete();
    expect(await hcn.listEndpointsOfNetwork(net.ID)).toEqual([]);
    const e = (await rejection(ep.delete())) as HcnError;
    expect(e.code).toBe('HCN_E_ENDPOINT_NOT_FOUND');
    expect(e.errorRecord()).toEqual({
      Success: false,
      Error: 'The endpoint was not found. ',
      ErrorCode: 2151350274,
    });
  });
});

describe('enumeration filtered by State (EndpointState: Created 1, Attached 2, AttachedSharing 3)', () => {
  const byState = (major: number, state: number): string =>
    `{"SchemaVersion":{"Major":${major},"Minor":0},"Filter":"{\\"State\\":${state}}"}`;

  it('a v1-schema query (Major 1) filters on the v1 view: attached → 2, not attached → 1', async () => {
    const { host, hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const attached = await net.createEndpoint({ Name: 'attached' });
    const idle = await net.createEndpoint({ Name: 'idle' });
    const ns = await hcn.newNamespace('Host').create();
    await attached.namespaceAttach(ns.ID);
    const two = host.api.HcnEnumerateEndpoints(byState(1, 2));
    expect(two.ok && two.result).toEqual([attached.ID]);
    const one = host.api.HcnEnumerateEndpoints(byState(1, 1));
    expect(one.ok && one.result).toEqual([idle.ID]);
  });

  // Azure NPM lists endpoints with the v2 query {"SchemaVersion":{"Major":2,"Minor":0},"Filter":
  // "{\"State\":2}"} and {"State":3} (npm/pkg/dataplane/policies/policymanager_windows.go)
  it('a v2 query (Major 2) {"State":2} lists the attached endpoints, {"State":3} the shared ones', async () => {
    const { host, hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const attached = await net.createEndpoint({ Name: 'attached' });
    const idle = await net.createEndpoint({ Name: 'idle' });
    const shared = await net.createEndpoint({ Name: 'shared' });
    const ns = await hcn.newNamespace('Host').create();
    await attached.namespaceAttach(ns.ID);
    // a namespace member also attached to a container through v1: two attachments → AttachedSharing
    await shared.namespaceAttach((await hcn.newNamespace('Host').create()).ID);
    host.api.HNSCall(
      'POST',
      `/endpoints/${shared.ID}/attach`,
      '{"SystemType":"Container","ContainerId":"c1"}',
    );
    const ids = (state: number) => {
      const r = host.api.HcnEnumerateEndpoints(byState(2, state));
      return r.ok ? r.result : r.name;
    };
    expect(ids(2)).toEqual([attached.ID]);
    expect(ids(3)).toEqual([shared.ID]);
    expect(ids(1)).toEqual([idle.ID]);
    // no endpoint is Uninitialized: State 0 matches none (it is never omitted)
    expect(ids(0)).toEqual([]);
  });
});

describe('endpoint.namespaceAttach / namespaceDetach', () => {
  it('attach makes the endpoint listed in the namespace (upper-case) and sets HostComputeNamespace', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await net.createEndpoint({ Name: 'e' });
    const ns = await hcn.newNamespace('Host').create();
    rec.clear();
    await ep.namespaceAttach(ns.ID);
    expect(rec.calls[0]!.method).toBe('HcnModifyNamespace');
    expect(rec.calls[0]!.args).toEqual([
      ns.ID,
      `{"ResourceType":"Endpoint","RequestType":"Add","Settings":{"EndpointId":"${ep.ID}"}}`,
    ]);
    expect(await hcn.getNamespaceEndpointIds(ns.ID)).toEqual([ep.ID.toUpperCase()]);
    expect((await hcn.getEndpointByID(ep.ID)).HostComputeNamespace).toBe(ns.ID);
    // a second namespace is refused by the service
    const other = await hcn.newNamespace('Host').create();
    const e = (await rejection(ep.namespaceAttach(other.ID))) as HcnError;
    expect(e.code).toBe('HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS');
    await ep.namespaceDetach(ns.ID);
    expect(await hcn.getNamespaceEndpointIds(ns.ID)).toEqual([]);
    expect((await hcn.getEndpointByID(ep.ID)).HostComputeNamespace).toBe('');
  });

  it('a remote endpoint cannot be attached: HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(overlayNetworkDoc());
    const ep = await net.createRemoteEndpoint({
      Name: 'r',
      IpConfigurations: [{ IpAddress: '192.168.100.77', PrefixLength: 24 }],
      MacAddress: '00-15-5D-99-00-02',
    });
    const ns = await hcn.newNamespace('Host').create();
    expect(((await rejection(ep.namespaceAttach(ns.ID))) as HcnError).code).toBe(
      'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION',
    );
  });
});
