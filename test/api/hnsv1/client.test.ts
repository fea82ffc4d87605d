// The typed HNS v1 client (hcsshim's root package, microsoft/hcsshim v0.14.1 hnsnetwork.go,
// hnsendpoint.go, internal/hns/{hns,hnsfuncs,hnsnetwork,hnsendpoint,namespace}.go; reference
// cni-windows.md §2.8): the exact requests it sends, Go's marshalling, hcsshim's error texts for a
// failed HNSCall vs a {"Success":false} answer, the by-name lookups, the hot attach through HCS and
// the namespace calls. Expected texts are hcsshim's literals, never read from src/.
import { describe, expect, it } from 'vitest';
import type { HcsApi } from '../../../src/api/flat.js';
import { HcsClient } from '../../../src/api/hcs/index.js';
import {
  EndpointNotFoundError,
  Errno,
  HnsCallError,
  HnsFailedError,
  HnsV1Client,
  HnsV1ClientError,
  isErrComputeSystemDoesNotExist,
  isErrPlatformNotSupported,
  isNotExist,
  isOsNotExist,
  JsonUnmarshalTypeError,
  NamespaceRequestError,
  NetworkNotFoundError,
  marshalEndpoint,
  marshalNetwork,
  type HNSNetwork,
} from '../../../src/api/hnsv1/index.js';
import type { JsonObject } from '../../../src/core/json.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { RecordingTransport } from '../hcn/helpers.js';

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    return e as Error;
  }
  throw new Error('expected the promise to reject');
}

interface Fx {
  host: Host;
  rec: RecordingTransport;
  hns: HnsV1Client;
  hcs: HcsClient;
}

function setup(api: HcsApi = 'computecore', profile = 'ws2022'): Fx {
  const host = createHost({ seed: 11, profile, hcs: { api } });
  const rec = new RecordingTransport(host.transport);
  const hcs = new HcsClient(rec, { notifications: host.events });
  return { host, rec, hcs, hns: new HnsV1Client(rec, hcs) };
}

/** hcsshim hcn/hnsv1_test.go `CreateTestNetwork()`'s document. */
const TEST_NETWORK: HNSNetwork = {
  Name: 'GoTestNat',
  Type: 'NAT',
  Subnets: [{ AddressPrefix: '192.168.100.0/24', GatewayAddress: '192.168.100.1' }],
};

/** The HNSCall arguments recorded, as [method, path, request]. */
function hnsCalls(rec: RecordingTransport): unknown[][] {
  return rec.calls.filter((c) => c.method === 'HNSCall').map((c) => [...c.args]);
}

/** A schema 2 process container (hcsshim's WCOW document), started. */
async function runningContainer(fx: Fx, id: string): Promise<void> {
  const c = await fx.hcs.createComputeSystem(id, {
    Owner: 'containerd-shim-runhcs-v1.exe',
    SchemaVersion: { Major: 2, Minor: 1 },
    Container: { Networking: {} },
  });
  await c.start();
  await c.close();
}

describe('marshalling (Go encoding/json, omitempty, declaration order)', () => {
  it('HNSNetwork: the CreateTestNetwork body of hcsshim hnsv1_test.go', () => {
    expect(JSON.stringify(marshalNetwork(TEST_NETWORK))).toBe(
      '{"Name":"GoTestNat","Type":"NAT","Subnets":[{"AddressPrefix":"192.168.100.0/24","GatewayAddress":"192.168.100.1"}]}',
    );
  });

  it('HNSNetwork: fields in Go order whatever the input order; zero values dropped', () => {
    const doc = marshalNetwork({
      AutomaticDNS: false,
      DNSServerCompartment: 0,
      Subnets: [],
      Policies: [{ Type: 'VLAN', VLAN: 7 }],
      Type: 'L2Bridge',
      Name: 'cbr0',
      ID: '',
    });
    expect(JSON.stringify(doc)).toBe(
      '{"Name":"cbr0","Type":"L2Bridge","Policies":[{"Type":"VLAN","VLAN":7}]}',
    );
  });

  it('HNSEndpoint: what win-bridge builds (GenerateHnsEndpoint), in Go order', () => {
    const doc = marshalEndpoint({
      Policies: [{ Type: 'OutBoundNAT', ExceptionList: ['10.244.0.0/16'] }],
      IPAddress: '10.244.1.2',
      GatewayAddress: '10.244.1.1',
      DNSSuffix: 'svc.cluster.local',
      DNSServerList: '10.96.0.10',
      VirtualNetwork: 'B1E5A3C7-7E29-4A5E-9B8A-2A0F1B8C9D10',
      Name: 'abc_cbr0',
    });
    expect(JSON.stringify(doc)).toBe(
      '{"Name":"abc_cbr0","VirtualNetwork":"B1E5A3C7-7E29-4A5E-9B8A-2A0F1B8C9D10","Policies":[{"Type":"OutBoundNAT","ExceptionList":["10.244.0.0/16"]}],"IPAddress":"10.244.1.2","DNSSuffix":"svc.cluster.local","DNSServerList":"10.96.0.10","GatewayAddress":"10.244.1.1"}',
    );
  });

  it('HNSEndpoint: a set *Namespace is a struct with ID always written; an unset one is absent', () => {
    expect(JSON.stringify(marshalEndpoint({ Name: 'e', Namespace: { CompartmentId: 3 } }))).toBe(
      '{"Name":"e","Namespace":{"ID":"","CompartmentId":3}}',
    );
    expect(JSON.stringify(marshalEndpoint({ Name: 'e' }))).toBe('{"Name":"e"}');
  });
});

describe('networks', () => {
  it('createNetwork posts the marshalled document to /networks/ and reads the answer', async () => {
    const fx = setup();
    const net = await fx.hns.createNetwork(TEST_NETWORK);
    expect(hnsCalls(fx.rec)).toEqual([
      [
        'POST',
        '/networks/',
        '{"Name":"GoTestNat","Type":"NAT","Subnets":[{"AddressPrefix":"192.168.100.0/24","GatewayAddress":"192.168.100.1"}]}',
      ],
    ]);
    expect(net.ID).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(net.Name).toBe('GoTestNat');
    expect(net.Subnets).toEqual([{ AddressPrefix: '192.168.100.0/24', GatewayAddress: '192.168.100.1' }]);
  });

  it('createNetwork refuses a subnet with a prefix and no gateway before any call (hnsnetwork.go Create)', async () => {
    const fx = setup();
    const e = await rejection(
      fx.hns.createNetwork({ Name: 'n', Type: 'NAT', Subnets: [{ AddressPrefix: '10.0.0.0/24' }] }),
    );
    expect(e).toBeInstanceOf(HnsV1ClientError);
    expect(e.message).toBe('network create error, subnet has address prefix but no gateway specified');
    expect(fx.rec.calls).toEqual([]);
  });

  it('getNetworkByName: GET /networks/ then an exact, case-sensitive match', async () => {
    const fx = setup();
    const net = await fx.hns.createNetwork(TEST_NETWORK);
    fx.rec.clear();
    expect((await fx.hns.getNetworkByName('GoTestNat')).ID).toBe(net.ID);
    expect(hnsCalls(fx.rec)).toEqual([['GET', '/networks/', '']]);
    const e = await rejection(fx.hns.getNetworkByName('gotestnat'));
    expect(e).toBeInstanceOf(NetworkNotFoundError);
    // internal/hns/hns.go: fmt.Sprintf("Network %s not found", e.NetworkName)
    expect(e.message).toBe('Network gotestnat not found');
    expect(isNotExist(e)).toBe(true);
  });

  it('getNetworkByID and deleteNetwork (DELETE answers no document: a zero network)', async () => {
    const fx = setup();
    const net = await fx.hns.createNetwork(TEST_NETWORK);
    expect((await fx.hns.getNetworkByID(net.ID!)).Name).toBe('GoTestNat');
    fx.rec.clear();
    expect(await fx.hns.deleteNetwork(net.ID!)).toEqual({});
    expect(hnsCalls(fx.rec)).toEqual([['DELETE', `/networks/${net.ID!}`, '']]);
    expect(await fx.hns.listNetworks()).toEqual([]);
  });

  it('a {"Success":false} answer is "hns failed with error : <Error>", not IsNotExist', async () => {
    const fx = setup();
    const e = await rejection(fx.hns.getNetworkByID('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(e).toBeInstanceOf(HnsFailedError);
    expect(e.message).toMatch(/^hns failed with error : The network was not found\.\s*$/);
    expect((e as HnsFailedError).hresult).toBe(0x803b0001);
    expect(isNotExist(e)).toBe(false);
  });
});

describe('endpoints', () => {
  async function withNetwork(): Promise<Fx & { net: HNSNetwork }> {
    const fx = setup();
    const net = await fx.hns.createNetwork(TEST_NETWORK);
    fx.rec.clear();
    return { ...fx, net };
  }

  it('createEndpoint posts to /endpoints/; HNS fills ID, MAC, prefix length and network name', async () => {
    const fx = await withNetwork();
    const ep = await fx.hns.createEndpoint({ Name: 'GoTestNatEndpoint', VirtualNetwork: fx.net.ID! });
    expect(hnsCalls(fx.rec)).toEqual([
      ['POST', '/endpoints/', `{"Name":"GoTestNatEndpoint","VirtualNetwork":"${fx.net.ID!}"}`],
    ]);
    expect(ep.ID).toMatch(/^[0-9A-F-]{36}$/);
    expect(ep.MacAddress).toMatch(/^00-15-5D(-[0-9A-F]{2}){3}$/);
    expect(ep.VirtualNetworkName).toBe('GoTestNat');
    expect(ep.PrefixLength).toBe(24);
    expect(ep.IPAddress).toMatch(/^192\.168\.100\.\d+$/);
  });

  it('createEndpointOnNetwork sets VirtualNetwork (HNSNetwork.CreateEndpoint)', async () => {
    const fx = await withNetwork();
    const ep = await fx.hns.createEndpointOnNetwork(fx.net.ID!, { Name: 'x', VirtualNetwork: 'ignored' });
    expect(ep.VirtualNetwork?.toUpperCase()).toBe(fx.net.ID);
  });

  it('getEndpointByName: first exact match wins among duplicate names; absent → "Endpoint <n> not found"', async () => {
    const fx = await withNetwork();
    const a = await fx.hns.createEndpoint({ Name: 'dup', VirtualNetwork: fx.net.ID! });
    await fx.hns.createEndpoint({ Name: 'dup', VirtualNetwork: fx.net.ID! });
    fx.rec.clear();
    expect((await fx.hns.getEndpointByName('dup')).ID).toBe(a.ID);
    expect(hnsCalls(fx.rec)).toEqual([['GET', '/endpoints/', '']]);
    const e = await rejection(fx.hns.getEndpointByName('DUP'));
    expect(e).toBeInstanceOf(EndpointNotFoundError);
    expect(e.message).toBe('Endpoint DUP not found');
    expect(isNotExist(e)).toBe(true);
  });

  it('a duplicate IP fails the HNSCall itself: "failed during hnsCallRawResponse: hnsCall failed in Win32: …"', async () => {
    const fx = await withNetwork();
    await fx.hns.createEndpoint({ Name: 'a', VirtualNetwork: fx.net.ID!, IPAddress: '192.168.100.9' });
    const e = await rejection(
      fx.hns.createEndpoint({ Name: 'b', VirtualNetwork: fx.net.ID!, IPAddress: '192.168.100.9' }),
    );
    expect(e).toBeInstanceOf(HnsCallError);
    // kubernetes#74766: "hnsCall failed in Win32: The object already exists. (0x1392)"
    expect(e.message).toBe(
      'failed during hnsCallRawResponse: hnsCall failed in Win32: The object already exists. (0x1392)',
    );
    expect((e as HnsCallError).errorCode).toBe(0x1392);
    expect(isNotExist(e)).toBe(false);
  });

  it('getEndpointByID keeps only HNSEndpoint fields (Go decoding drops ActivityId, Health, …)', async () => {
    const fx = await withNetwork();
    const ep = await fx.hns.createEndpoint({ Name: 'e', VirtualNetwork: fx.net.ID! });
    const raw = (await fx.hns.hnsCall('GET', `/endpoints/${ep.ID!}`)) as JsonObject;
    expect(Object.keys(raw)).toContain('ActivityId');
    const got = await fx.hns.getEndpointByID(ep.ID!);
    // hns.HNSEndpoint's JSON names (internal/hns/hnsendpoint.go), in declaration order
    const fields = [
      'ID',
      'Name',
      'VirtualNetwork',
      'VirtualNetworkName',
      'Policies',
      'MacAddress',
      'IPAddress',
      'IPv6Address',
      'DNSSuffix',
      'DNSServerList',
      'DNSDomain',
      'GatewayAddress',
      'GatewayAddressV6',
      'EnableInternalDNS',
      'DisableICC',
      'PrefixLength',
      'IPv6PrefixLength',
      'IsRemoteEndpoint',
      'EnableLowMetric',
      'Namespace',
      'EncapOverhead',
      'SharedContainers',
      'State',
    ];
    expect(Object.keys(got)).toEqual(fields.filter((f) => f in raw));
    expect(got.State).toBe(1); // EndpointState Created
  });

  it('deleteEndpoint sends DELETE /endpoints/<id>', async () => {
    const fx = await withNetwork();
    const ep = await fx.hns.createEndpoint({ Name: 'e', VirtualNetwork: fx.net.ID! });
    fx.rec.clear();
    await fx.hns.deleteEndpoint(ep.ID!);
    expect(hnsCalls(fx.rec)).toEqual([['DELETE', `/endpoints/${ep.ID!}`, '']]);
    const e = await rejection(fx.hns.getEndpointByID(ep.ID!));
    expect(e.message).toMatch(/^hns failed with error : The endpoint was not found\.\s*$/);
  });

  it('hostAttach(1) / hostDetach send EndpointAttachDetachRequest bodies (hnsv1_test.go TestEndpoint)', async () => {
    const fx = await withNetwork();
    const ep = await fx.hns.createEndpoint({ Name: 'e', VirtualNetwork: fx.net.ID! });
    fx.rec.clear();
    await fx.hns.hostAttach(ep.ID!, 1);
    await fx.hns.hostDetach(ep.ID!);
    expect(hnsCalls(fx.rec)).toEqual([
      ['POST', `/endpoints/${ep.ID!}/attach`, '{"SystemType":"Host","CompartmentId":1}'],
      ['POST', `/endpoints/${ep.ID!}/detach`, '{"SystemType":"Host"}'],
    ]);
  });

  it('containerAttach / containerDetach bodies; a second attach is HCN_E_ENDPOINT_ALREADY_ATTACHED', async () => {
    const fx = await withNetwork();
    await runningContainer(fx, 'c1');
    const ep = await fx.hns.createEndpoint({ Name: 'e', VirtualNetwork: fx.net.ID! });
    fx.rec.clear();
    await fx.hns.containerAttach(ep.ID!, 'c1');
    expect(hnsCalls(fx.rec)).toEqual([
      ['POST', `/endpoints/${ep.ID!}/attach`, '{"ContainerId":"c1","SystemType":"Container"}'],
    ]);
    const e = await rejection(fx.hns.containerAttach(ep.ID!, 'c1', 2));
    expect(e).toBeInstanceOf(HnsFailedError);
    expect((e as HnsFailedError).hresult).toBe(0x803b0014);
    expect(e.message).toMatch(
      /^hns failed with error : This endpoint is already attached to the switch\.\s*$/,
    );
    expect(hnsCalls(fx.rec).at(-1)).toEqual([
      'POST',
      `/endpoints/${ep.ID!}/attach`,
      '{"ContainerId":"c1","SystemType":"Container","CompartmentId":2}',
    ]);
    fx.rec.clear();
    await fx.hns.containerDetach(ep.ID!, 'c1');
    expect(hnsCalls(fx.rec)).toEqual([
      ['POST', `/endpoints/${ep.ID!}/detach`, '{"ContainerId":"c1","SystemType":"Container"}'],
    ]);
  });

  it('isAttached: case-insensitive substring of the raw SharedContainers text', async () => {
    const fx = await withNetwork();
    await runningContainer(fx, 'abcdef0123');
    const ep = await fx.hns.createEndpoint({ Name: 'e', VirtualNetwork: fx.net.ID! });
    expect(await fx.hns.isAttached(ep.ID!, 'abcdef0123')).toBe(false);
    await fx.hns.containerAttach(ep.ID!, 'abcdef0123');
    expect(await fx.hns.isAttached(ep.ID!, 'ABCDEF0123')).toBe(true);
    expect(await fx.hns.isAttached(ep.ID!, 'abcd')).toBe(true);
    expect(await fx.hns.isAttached(ep.ID!, 'zzz')).toBe(false);
    // the raw text includes the JSON punctuation: a quote plus the ID matches too
    expect(await fx.hns.isAttached(ep.ID!, '"abcdef')).toBe(true);
  });
});

describe('hot attach through HCS (hnsendpoint.go HotAttachEndpoint / HotDetachEndpoint)', () => {
  async function fixture(api: HcsApi = 'computecore') {
    const fx = setup(api);
    const net = await fx.hns.createNetwork(TEST_NETWORK);
    const ep = await fx.hns.createEndpoint({ Name: 'c1_GoTestNat', VirtualNetwork: net.ID! });
    await runningContainer(fx, 'c1');
    fx.rec.clear();
    return { ...fx, net, ep };
  }

  it('attach: GET the endpoint, IsAttached, open + Modify {"ResourceType":"Network","Settings":<id>,"RequestType":"Add"} + close', async () => {
    const fx = await fixture();
    await fx.hns.hotAttachEndpoint('c1', fx.ep.ID!);
    expect(fx.rec.methods()).toEqual([
      'HNSCall',
      'HNSCall',
      'HcsGetComputeSystemProperties',
      'HcsModifyComputeSystem',
      'HcsCloseComputeSystem',
    ]);
    expect(hnsCalls(fx.rec)).toEqual([
      ['GET', `/endpoints/${fx.ep.ID!}`, ''],
      ['GET', `/endpoints/${fx.ep.ID!}`, ''],
    ]);
    const modify = fx.rec.calls.find((c) => c.method === 'HcsModifyComputeSystem')!;
    expect(modify.args).toEqual([
      'c1',
      `{"ResourceType":"Network","Settings":"${fx.ep.ID!}","RequestType":"Add"}`,
    ]);
    expect((await fx.hns.getEndpointByID(fx.ep.ID!)).SharedContainers?.map((s) => s.toLowerCase())).toEqual([
      'c1',
    ]);
  });

  it('attach again: IsAttached says yes, no HCS call', async () => {
    const fx = await fixture();
    await fx.hns.hotAttachEndpoint('c1', fx.ep.ID!);
    fx.rec.clear();
    await fx.hns.hotAttachEndpoint('C1', fx.ep.ID!);
    expect(fx.rec.methods()).toEqual(['HNSCall', 'HNSCall']);
  });

  it('detach: Modify with "Remove"; detach again does nothing', async () => {
    const fx = await fixture();
    await fx.hns.hotAttachEndpoint('c1', fx.ep.ID!);
    fx.rec.clear();
    await fx.hns.hotDetachEndpoint('c1', fx.ep.ID!);
    const modify = fx.rec.calls.find((c) => c.method === 'HcsModifyComputeSystem')!;
    expect(modify.args[1]).toBe(
      `{"ResourceType":"Network","Settings":"${fx.ep.ID!}","RequestType":"Remove"}`,
    );
    expect((await fx.hns.getEndpointByID(fx.ep.ID!)).SharedContainers ?? []).toEqual([]);
    fx.rec.clear();
    await fx.hns.hotDetachEndpoint('c1', fx.ep.ID!);
    expect(fx.rec.methods()).toEqual(['HNSCall', 'HNSCall']);
  });

  for (const api of ['computecore', 'vmcompute'] as const) {
    it(`an unknown container is ErrComputeSystemDoesNotExist 0xc037010e (${api})`, async () => {
      const fx = await fixture(api);
      const e = await rejection(fx.hns.hotAttachEndpoint('nope', fx.ep.ID!));
      expect(e).toBeInstanceOf(Errno);
      expect((e as Errno).errno).toBe(0xc037010e);
      expect(isErrComputeSystemDoesNotExist(e)).toBe(true);
      expect(isNotExist(e)).toBe(true);
      expect(e.message).toBe('A virtual machine or container with the specified identifier does not exist.');
      // nothing was opened, so nothing is modified or closed
      expect(fx.rec.methods().filter((m) => m.startsWith('Hcs'))).toEqual(['HcsGetComputeSystemProperties']);
    });
  }

  it('an unknown endpoint fails at GetHNSEndpointByID, before HCS', async () => {
    const fx = await fixture();
    const e = await rejection(fx.hns.hotAttachEndpoint('c1', '5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(e).toBeInstanceOf(HnsFailedError);
    expect(fx.rec.methods()).toEqual(['HNSCall']);
  });

  it('a Modify failure is its inner code as an Errno (getInnerError); the container is still closed', async () => {
    const fx = await fixture();
    fx.host.faults.fail({ method: 'HcsModifyComputeSystem' }, 'E_ACCESSDENIED', { times: 1 });
    const e = await rejection(fx.hns.hotAttachEndpoint('c1', fx.ep.ID!));
    expect(e).toBeInstanceOf(Errno);
    expect((e as Errno).errno).toBe(0x5);
    expect(e.message).toBe('Access is denied.');
    expect(fx.rec.methods().at(-1)).toBe('HcsCloseComputeSystem');
  });

  it('a Modify refused as unsupported is ErrPlatformNotSupported ("unsupported platform request")', async () => {
    const fx = await fixture();
    fx.host.faults.fail({ method: 'HcsModifyComputeSystem' }, 'ERROR_NOT_SUPPORTED', { times: 1 });
    const e = await rejection(fx.hns.hotAttachEndpoint('c1', fx.ep.ID!));
    expect(isErrPlatformNotSupported(e)).toBe(true);
    expect(e.message).toBe('unsupported platform request');
  });

  it('an IsAttached failure is ignored by HotAttach but returned by HotDetach', async () => {
    const fx = await fixture();
    // the second HNSCall (IsAttached) fails
    let n = 0;
    fx.host.faults.fail(() => ++n === 2, 'RPC_S_CALL_FAILED');
    await fx.hns.hotAttachEndpoint('c1', fx.ep.ID!);
    expect(fx.rec.methods()).toContain('HcsModifyComputeSystem');
    fx.host.faults.clear();
    n = 0;
    fx.host.faults.fail((c) => c.method === 'HNSCall' && ++n === 2, 'RPC_S_CALL_FAILED');
    fx.rec.clear();
    const e = await rejection(fx.hns.hotDetachEndpoint('c1', fx.ep.ID!));
    expect(e).toBeInstanceOf(HnsCallError);
    expect(fx.rec.methods()).toEqual(['HNSCall', 'HNSCall']);
  });
});

describe('the fault layer and hcsshim decoding', () => {
  it('a failed HNSCall from the fault layer: "failed during hnsCallRawResponse: hnsCall failed in Win32: …"', async () => {
    const fx = setup();
    fx.host.faults.fail({ method: 'HNSCall' }, 'E_ACCESSDENIED', { times: 1 });
    const e = await rejection(fx.hns.listNetworks());
    expect(e.message).toBe(
      'failed during hnsCallRawResponse: hnsCall failed in Win32: Access is denied. (0x5)',
    );
    expect(await fx.hns.listNetworks()).toEqual([]);
  });

  it('an Output of the wrong kind is json.UnmarshalTypeError', async () => {
    const fx = setup();
    const e = await rejection(fx.hns.hnsNetworkRequest('GET', '', ''));
    expect(e).toBeInstanceOf(JsonUnmarshalTypeError);
    expect(e.message).toBe('json: cannot unmarshal array into Go value of type hns.HNSNetwork');
  });
});

describe('namespaces (internal/hns/namespace.go)', () => {
  it('create, add an endpoint, list its endpoints, remove it, delete', async () => {
    const fx = setup();
    const net = await fx.hns.createNetwork(TEST_NETWORK);
    const ep = await fx.hns.createEndpoint({ Name: 'e', VirtualNetwork: net.ID! });
    fx.rec.clear();
    const ns = await fx.hns.createNamespace();
    expect(hnsCalls(fx.rec)).toEqual([['POST', '/namespaces/', '{}']]);
    fx.rec.clear();
    await fx.hns.addNamespaceEndpoint(ns, ep.ID!);
    expect(hnsCalls(fx.rec)).toEqual([
      ['POST', `/namespaces/${ns}/addresource`, `{"Type":"Endpoint","Data":{"Id":"${ep.ID!}"}}`],
    ]);
    expect((await fx.hns.getNamespaceEndpoints(ns)).map((s) => s.toUpperCase())).toEqual([ep.ID]);
    await fx.hns.removeNamespaceEndpoint(ns, ep.ID!);
    expect(await fx.hns.getNamespaceEndpoints(ns)).toEqual([]);
    fx.rec.clear();
    await fx.hns.removeNamespace(ns);
    expect(hnsCalls(fx.rec)).toEqual([['DELETE', `/namespaces/${ns}`, '']]);
  });

  it('"Element not found." becomes os.ErrNotExist ("file does not exist")', async () => {
    const fx = setup();
    const e = await rejection(fx.hns.getNamespaceEndpoints('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(isOsNotExist(e)).toBe(true);
    expect(e.message).toBe('file does not exist');
  });

  it('any other failure is "<METHOD> <path>: <err>"', async () => {
    const fx = setup();
    fx.host.faults.fail({ method: 'HNSCall' }, 'E_ACCESSDENIED', { times: 1 });
    const e = await rejection(fx.hns.removeNamespace('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(e).toBeInstanceOf(NamespaceRequestError);
    expect(e.message).toBe(
      'DELETE /namespaces/5f0b1190-63be-4e0c-b974-bd0f55675a42: failed during hnsCallRawResponse: hnsCall failed in Win32: Access is denied. (0x5)',
    );
  });
});

describe('forHost', () => {
  it('builds a client on host.transport, so faults apply', async () => {
    const host = createHost({ seed: 3 });
    const hns = HnsV1Client.forHost(host);
    expect(hns.transport).toBe(host.transport);
    host.faults.fail({ method: 'HNSCall' }, 'E_ACCESSDENIED', { times: 1 });
    await expect(hns.listEndpoints()).rejects.toBeInstanceOf(HnsCallError);
    expect(await hns.listEndpoints()).toEqual([]);
  });
});
