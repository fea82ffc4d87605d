/**
 * The differential tables of issue 10: every export of computenetwork.dll and vmcompute.dll that
 * the simulator answers, each with successes and failures (a missing object, malformed JSON, an
 * unknown policy, a wrong state, a conflict), as hcsshim calls them. test/wine/differential.test.ts
 * runs each table through the DLL under Wine and on the flat API of an identical fresh host.
 *
 * Documents follow hcsshim's own tests (hcn/hcnutils_test.go) and the reference (hns-hcs.md).
 */
import type { Json } from '../../src/core/json.js';
import { guid, guidOf, h, json, step, ZERO, type Arg, type Step } from './steps.js';

/** hcsshim's defaultQuery(): schema 2.0, Flags 0 (what it sends after every create). */
export const DEFAULT_QUERY = json({ SchemaVersion: { Major: 2, Minor: 0 }, Flags: 0 });
export const DETAILED_QUERY = json({ SchemaVersion: { Major: 2, Minor: 0 }, Flags: 1 });
export const V1_QUERY = json({ SchemaVersion: { Major: 1, Minor: 0 }, Flags: 0 });
const filter = (f: Record<string, unknown>): string =>
  json({ SchemaVersion: { Major: 2, Minor: 0 }, Flags: 0, Filter: JSON.stringify(f) });

const SCHEMA = { Major: 2, Minor: 0 };
const MAC_POOL = { Ranges: [{ StartMacAddress: '00-15-5D-52-C0-00', EndMacAddress: '00-15-5D-52-CF-FF' }] };

/** hcsshim HcnGenerateNATNetwork on 192.168.100.0/24 (or `${prefix}.0/${bits}`). */
export function natNetwork(name: string, prefix = '192.168.100', bits = 24): string {
  return json({
    Type: 'NAT',
    Name: name,
    MacPool: MAC_POOL,
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: `${prefix}.0/${bits}`,
            Routes: [{ NextHop: `${prefix}.1`, DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
    SchemaVersion: SCHEMA,
  });
}

/** hcsshim CreateTestOverlayNetwork: VSID 5000. */
export function overlayNetwork(name: string): string {
  return json({
    Type: 'Overlay',
    Name: name,
    MacPool: MAC_POOL,
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '192.168.100.0/24',
            Routes: [{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }],
            Policies: [{ Type: 'VSID', Settings: { IsolationId: 5000 } }],
          },
        ],
      },
    ],
    Flags: 8,
    SchemaVersion: SCHEMA,
  });
}

export function endpointDoc(name: string, extra: Record<string, unknown> = {}): string {
  return json({ Name: name, SchemaVersion: SCHEMA, ...extra } as never);
}

const PORT_MAPPING = {
  Type: 'PortMapping',
  Settings: { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 },
};

/**
 * Literal expectations from the reference (hns-hcs.md §5.2, §5.3; hcs-lifecycle.md §0): an ErrorRecord
 * is {"Success":false,"Error":"<message> ","ErrorCode":<unsigned HRESULT>}.
 */
export function record(hr: number, message: string): Json {
  return { Success: false, Error: `${message} `, ErrorCode: hr >>> 0 };
}
export const HCN_E_NETWORK_NOT_FOUND = 0x803b0001;
export const HCN_E_ENDPOINT_NOT_FOUND = 0x803b0002;
export const HCN_E_PORT_ALREADY_EXISTS = 0x803b0013;
export const HCN_E_INVALID_JSON = 0x803b001b;
export const ERROR_NOT_FOUND = 0x80070490;
export const ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND = 0xc037010e;
export const ERROR_VMCOMPUTE_SYSTEM_ALREADY_EXISTS = 0xc037010f;
export const ERROR_VMCOMPUTE_INVALID_JSON = 0xc037010d;
export const HCS_E_SYSTEM_NOT_FOUND = 0x8037010e;
export const HCS_E_SYSTEM_ALREADY_EXISTS = 0x8037010f;

/** A GUID no object has. */
export const MISSING = '5F0B1190-63BE-4E0C-B974-BD0F55675A42';
/** Fixed IDs the tables create objects with. */
export const NET_ID = '11111111-2222-4333-8444-555555555555';
export const NS_ID = 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE';

export interface Table {
  readonly name: string;
  /** What a bug common to the DLL and the flat API would still get wrong: literal expectations. */
  readonly steps: readonly Step[];
}

export const NETWORKS: Table = {
  name: 'networks: enumerate, create, open, query, modify, delete, close',
  steps: [
    step('HcnEnumerateNetworks', [''], { why: 'nothing yet: []' }),
    step('HcnEnumerateNetworks', [DEFAULT_QUERY]),
    step('HcnCreateNetwork', [ZERO, natNetwork('nat')], { out: 'n', why: 'the zero GUID: HNS picks the ID' }),
    step('HcnQueryNetworkProperties', [h('n'), DEFAULT_QUERY], { id: 'nid' }),
    step('HcnQueryNetworkProperties', [h('n'), DETAILED_QUERY]),
    step('HcnQueryNetworkProperties', [h('n'), V1_QUERY], { why: 'the v1 view' }),
    step('HcnQueryNetworkProperties', [h('n'), ''], { why: 'an empty query' }),
    step('HcnCloseNetwork', [h('n')]),
    step('HcnOpenNetwork', [guidOf('nid')], { out: 'n2' }),
    step('HcnQueryNetworkProperties', [h('n2'), DEFAULT_QUERY]),
    step('HcnModifyNetwork', [
      h('n2'),
      json({
        ResourceType: 'DNS',
        RequestType: 'Update',
        Settings: { Suffix: 'x.local', ServerList: ['1.1.1.1'] },
      }),
    ]),
    step('HcnQueryNetworkProperties', [h('n2'), DEFAULT_QUERY], { why: 'the modify shows' }),
    step(
      'HcnModifyNetwork',
      [
        h('n2'),
        json({
          ResourceType: 'Policy',
          RequestType: 'Add',
          Settings: {
            Policies: [{ Type: 'RemoteSubnetRoute', Settings: { DestinationPrefix: '10.1.0.0/16' } }],
          },
        }),
      ],
      { why: 'an incomplete policy' },
    ),
    step('HcnModifyNetwork', [h('n2'), '{"ResourceType":'], { why: 'malformed JSON' }),
    step('HcnModifyNetwork', [
      h('n2'),
      json({
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: { Policies: [{ Type: 'NoSuchPolicy' }] },
      }),
    ]),
    step('HcnQueryNetworkProperties', [h('n2'), '{"SchemaVersion":'], { why: 'a malformed query' }),
    step('HcnCreateNetwork', [guid(NET_ID), natNetwork('second', '192.168.101')], {
      out: 'n3',
      why: 'an ID given',
    }),
    step('HcnQueryNetworkProperties', [h('n3'), DEFAULT_QUERY]),
    step('HcnCreateNetwork', [ZERO, natNetwork('nat', '192.168.102')], { out: 'dup', why: 'a name in use' }),
    step('HcnCreateNetwork', [ZERO, '{"Name": "broken"'], {
      out: 'bad',
      why: 'malformed JSON',
      literal: {
        hr: HCN_E_INVALID_JSON,
        record: record(HCN_E_INVALID_JSON, 'Invalid JSON document string.'),
      },
    }),
    step('HcnCreateNetwork', [ZERO, json({ Name: 'weird', Type: 'NoSuchType', SchemaVersion: SCHEMA })], {
      out: 'bad2',
      why: 'an unknown network type',
    }),
    step(
      'HcnCreateNetwork',
      [
        ZERO,
        json({
          Name: 'pol',
          Type: 'NAT',
          Policies: [{ Type: 'NoSuchPolicy', Settings: {} }],
          SchemaVersion: SCHEMA,
        }),
      ],
      { out: 'bad3', why: 'an unknown policy' },
    ),
    step('HcnCreateNetwork', [ZERO, natNetwork('réseau-✓ «ünïcode»', '192.168.103')], {
      out: 'uni',
      why: 'UTF-16 both ways',
    }),
    step('HcnQueryNetworkProperties', [h('uni'), DEFAULT_QUERY], { id: 'uid' }),
    step('HcnEnumerateNetworks', [filter({ Name: 'réseau-✓ «ünïcode»' })]),
    step('HcnEnumerateNetworks', [filter({ Name: 'nat' })]),
    step('HcnEnumerateNetworks', [filter({ Name: 'nobody' })]),
    step('HcnEnumerateNetworks', ['not json'], { why: 'a malformed query' }),
    step('HcnOpenNetwork', [guid(MISSING)], {
      out: 'gone',
      why: 'HCN_E_NETWORK_NOT_FOUND',
      literal: {
        hr: HCN_E_NETWORK_NOT_FOUND,
        record: record(HCN_E_NETWORK_NOT_FOUND, 'The network was not found.'),
      },
    }),
    step('HcnDeleteNetwork', [guid(MISSING)]),
    step('HcnDeleteNetwork', [guidOf('nid')]),
    step('HcnQueryNetworkProperties', [h('n2'), DEFAULT_QUERY], {
      why: 'an open handle on a deleted network',
    }),
    step('HcnModifyNetwork', [h('n2'), json({ ResourceType: 'Policy', RequestType: 'Add', Settings: {} })]),
    step('HcnCloseNetwork', [h('n2')]),
    step('HcnDeleteNetwork', [guidOf('nid')], { why: 'deleted twice' }),
    step('HcnDeleteNetwork', [guidOf('uid')]),
    step('HcnCloseNetwork', [h('uni')]),
    step('HcnCloseNetwork', [h('n3')]),
    step('HcnEnumerateNetworks', ['']),
  ],
};

export const ENDPOINTS: Table = {
  name: 'endpoints: create on a network handle, query, stats, modify, delete',
  steps: [
    step('HcnCreateNetwork', [guid(NET_ID), overlayNetwork('overlay')], { out: 'net' }),
    step('HcnEnumerateEndpoints', ['']),
    step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc('ep1', { HostComputeNetwork: NET_ID })], {
      out: 'e1',
    }),
    step('HcnQueryEndpointProperties', [h('e1'), DEFAULT_QUERY], { id: 'e1id' }),
    step('HcnQueryEndpointProperties', [h('e1'), DETAILED_QUERY]),
    step('HcnQueryEndpointProperties', [h('e1'), V1_QUERY]),
    step('HcnQueryEndpointStats', [h('e1'), DEFAULT_QUERY]),
    step('HcnCreateEndpoint', [
      h('net'),
      ZERO,
      endpointDoc('ep2', { HostComputeNetwork: NET_ID, Policies: [PORT_MAPPING] }),
    ]),
    step(
      'HcnCreateEndpoint',
      [h('net'), ZERO, endpointDoc('ep3', { HostComputeNetwork: NET_ID, Policies: [PORT_MAPPING] })],
      {
        out: 'e3',
        why: 'the same port mapping again (TestEndpointAlreadyExistsError)',
        literal: {
          hr: HCN_E_PORT_ALREADY_EXISTS,
          record: record(HCN_E_PORT_ALREADY_EXISTS, 'The specified port already exists.'),
        },
      },
    ),
    step(
      'HcnCreateEndpoint',
      [
        h('net'),
        ZERO,
        endpointDoc('ep4', {
          HostComputeNetwork: NET_ID,
          IpConfigurations: [{ IpAddress: '10.99.0.5', PrefixLength: 24 }],
        }),
      ],
      { out: 'e4', why: 'an address outside the subnet' },
    ),
    step('HcnCreateEndpoint', [h('net'), ZERO, '{"Name":'], { out: 'e5', why: 'malformed JSON' }),
    step(
      'HcnCreateEndpoint',
      [h('net'), ZERO, endpointDoc('ep6', { HostComputeNetwork: NET_ID, Policies: [{ Type: 'Bogus' }] })],
      { out: 'e6', why: 'an unknown policy' },
    ),
    step('HcnModifyEndpoint', [
      h('e1'),
      json({
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [{ Type: 'ACL', Settings: { Action: 'Block', Direction: 'In', Priority: 200 } }],
        },
      }),
    ]),
    step('HcnQueryEndpointProperties', [h('e1'), DEFAULT_QUERY]),
    step('HcnModifyEndpoint', [h('e1'), '[]'], { why: 'not an object' }),
    step('HcnEnumerateEndpoints', [filter({ Name: 'ep1' })]),
    step('HcnEnumerateEndpoints', [filter({ VirtualNetwork: NET_ID })]),
    step('HcnOpenEndpoint', [guidOf('e1id')], { out: 'e1b' }),
    step('HcnQueryEndpointProperties', [h('e1b'), DEFAULT_QUERY]),
    step('HcnCloseEndpoint', [h('e1b')]),
    step('HcnOpenEndpoint', [guid(MISSING)], {
      out: 'x',
      why: 'HCN_E_ENDPOINT_NOT_FOUND',
      literal: {
        hr: HCN_E_ENDPOINT_NOT_FOUND,
        record: record(HCN_E_ENDPOINT_NOT_FOUND, 'The endpoint was not found.'),
      },
    }),
    step('HcnDeleteEndpoint', [guid(MISSING)]),
    step('HcnDeleteNetwork', [guid(NET_ID)], { why: 'a network with endpoints' }),
    step('HcnDeleteEndpoint', [guidOf('e1id')]),
    step('HcnQueryEndpointProperties', [h('e1'), DEFAULT_QUERY], { why: 'a handle on a deleted endpoint' }),
    step('HcnQueryEndpointStats', [h('e1'), DEFAULT_QUERY]),
    step('HcnCloseEndpoint', [h('e1')]),
    step('HcnEnumerateEndpoints', ['']),
    step('HcnCloseNetwork', [h('net')]),
  ],
};

export const NAMESPACES: Table = {
  name: 'namespaces: create, attach and detach an endpoint, query, delete',
  steps: [
    step('HcnEnumerateNamespaces', [''], { why: 'the HostDefault namespace the host booted with' }),
    step('HcnCreateNetwork', [guid(NET_ID), natNetwork('nat')], { out: 'net' }),
    step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc('pod1', { HostComputeNetwork: NET_ID })], {
      out: 'ep',
    }),
    step('HcnQueryEndpointProperties', [h('ep'), DEFAULT_QUERY], { id: 'epid' }),
    step('HcnCreateNamespace', [guid(NS_ID), json({ Type: 'Host', SchemaVersion: SCHEMA })], { out: 'ns' }),
    step('HcnCreateNamespace', [guid(NS_ID), json({ Type: 'Host', SchemaVersion: SCHEMA })], {
      out: 'dup',
      why: 'an ID in use',
    }),
    step('HcnCreateNamespace', [ZERO, json({ Type: 'Guest', SchemaVersion: SCHEMA })], { out: 'guest' }),
    step('HcnCreateNamespace', [ZERO, json({ Type: 'Nonsense', SchemaVersion: SCHEMA })], { out: 'bad' }),
    step('HcnCreateNamespace', [ZERO, '{'], { out: 'bad2', why: 'malformed JSON' }),
    step('HcnQueryNamespaceProperties', [h('ns'), DEFAULT_QUERY]),
    step('HcnModifyNamespace', [
      h('ns'),
      json({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: '%{epid}' } }),
    ]),
    step('HcnQueryNamespaceProperties', [h('ns'), DEFAULT_QUERY], { why: 'the endpoint is a resource' }),
    step('HcnQueryEndpointProperties', [h('ep'), DEFAULT_QUERY], { why: 'HostComputeNamespace, State' }),
    step('HcnModifyNamespace', [
      h('guest'),
      json({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: '%{epid}' } }),
    ]),
    step('HcnModifyNamespace', [
      h('ns'),
      json({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: MISSING } }),
    ]),
    step('HcnModifyNamespace', [
      h('ns'),
      json({ ResourceType: 'Spaceship', RequestType: 'Add', Settings: {} }),
    ]),
    step('HcnEnumerateNamespaces', [filter({ Type: 'Host' })]),
    step('HcnOpenNamespace', [guid(MISSING)], {
      out: 'x',
      why: 'ERROR_NOT_FOUND (TestNotFoundError: IsElementNotFoundError)',
      literal: { hr: ERROR_NOT_FOUND, record: record(ERROR_NOT_FOUND, 'Element not found.') },
    }),
    step('HcnOpenNamespace', [guid(NS_ID)], { out: 'ns2' }),
    step('HcnModifyNamespace', [
      h('ns2'),
      json({ ResourceType: 'Endpoint', RequestType: 'Remove', Settings: { EndpointId: '%{epid}' } }),
    ]),
    step(
      'HcnModifyNamespace',
      [
        h('ns2'),
        json({ ResourceType: 'Endpoint', RequestType: 'Remove', Settings: { EndpointId: '%{epid}' } }),
      ],
      { why: 'detached twice' },
    ),
    step('HcnQueryNamespaceProperties', [h('ns2'), DETAILED_QUERY]),
    step('HcnCloseNamespace', [h('ns2')]),
    step('HcnDeleteNamespace', [guid(NS_ID)]),
    step('HcnDeleteNamespace', [guid(NS_ID)], { why: 'deleted twice' }),
    step('HcnQueryNamespaceProperties', [h('ns'), DEFAULT_QUERY], { why: 'a handle on a deleted namespace' }),
    step('HcnCloseNamespace', [h('ns')]),
    step('HcnCloseNamespace', [h('guest')]),
    step('HcnCloseEndpoint', [h('ep')]),
    step('HcnCloseNetwork', [h('net')]),
  ],
};

/** A load balancer of endpoint %{aid} (source VIP 10.0.0.4): TCP `frontendVip`:80 → 8080. */
function loadBalancerDoc(frontendVip: string): string {
  return json({
    HostComputeEndpoints: ['%{aid}'],
    SourceVIP: '10.0.0.4',
    FrontendVIPs: [frontendVip],
    PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
    SchemaVersion: SCHEMA,
  });
}

export const LOAD_BALANCERS: Table = {
  name: 'load balancers: create, query, modify, delete',
  steps: [
    step('HcnCreateNetwork', [guid(NET_ID), natNetwork('nat')], { out: 'net' }),
    step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc('a', { HostComputeNetwork: NET_ID })], {
      out: 'a',
    }),
    step('HcnQueryEndpointProperties', [h('a'), DEFAULT_QUERY], { id: 'aid' }),
    step('HcnEnumerateLoadBalancers', ['']),
    step('HcnCreateLoadBalancer', [ZERO, loadBalancerDoc('10.96.0.20')], { out: 'lb' }),
    step('HcnQueryLoadBalancerProperties', [h('lb'), DEFAULT_QUERY], { id: 'lbid' }),
    step('HcnCreateLoadBalancer', [ZERO, loadBalancerDoc('10.96.0.20')], {
      out: 'lb2',
      why: 'the same VIP and port again',
    }),
    step('HcnCreateLoadBalancer', [ZERO, json({ HostComputeEndpoints: [MISSING], SchemaVersion: SCHEMA })], {
      out: 'lb3',
      why: 'an endpoint that does not exist',
    }),
    step('HcnCreateLoadBalancer', [ZERO, '{"PortMappings":[}'], { out: 'lb4', why: 'malformed JSON' }),
    step('HcnModifyLoadBalancer', [h('lb'), loadBalancerDoc('10.96.0.21')]),
    step('HcnEnumerateLoadBalancers', ['']),
    step('HcnOpenLoadBalancer', [guidOf('lbid')], { out: 'lbb' }),
    step('HcnQueryLoadBalancerProperties', [h('lbb'), DETAILED_QUERY]),
    step('HcnCloseLoadBalancer', [h('lbb')]),
    step('HcnOpenLoadBalancer', [guid(MISSING)], { out: 'x' }),
    step('HcnDeleteLoadBalancer', [guidOf('lbid')]),
    step('HcnDeleteLoadBalancer', [guidOf('lbid')], { why: 'deleted twice' }),
    step('HcnQueryLoadBalancerProperties', [h('lb'), DEFAULT_QUERY]),
    step('HcnCloseLoadBalancer', [h('lb')]),
    step('HcnCloseEndpoint', [h('a')]),
    step('HcnCloseNetwork', [h('net')]),
  ],
};

export const SDN_ROUTES: Table = {
  name: 'SDN routes: create, query, modify (unsupported), delete',
  steps: [
    step('HcnCreateNetwork', [guid(NET_ID), overlayNetwork('overlay')], { out: 'net' }),
    step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc('a', { HostComputeNetwork: NET_ID })], {
      out: 'a',
    }),
    step('HcnQueryEndpointProperties', [h('a'), DEFAULT_QUERY], { id: 'aid' }),
    step('HcnEnumerateSdnRoutes', ['']),
    step(
      'HcnCreateSdnRoute',
      [
        ZERO,
        json({
          HostComputeEndpoints: ['%{aid}'],
          Setting: [{ DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.33', NeedEncap: false }],
          SchemaVersion: SCHEMA,
        }),
      ],
      { out: 'r' },
    ),
    step('HcnQuerySdnRouteProperties', [h('r'), DEFAULT_QUERY], { id: 'rid' }),
    step('HcnCreateSdnRoute', [ZERO, json({ HostComputeEndpoints: [], SchemaVersion: SCHEMA })], {
      out: 'r2',
      why: 'no endpoints',
    }),
    step('HcnModifySdnRoute', [h('r'), json({ Setting: [] })], { why: 'unsupported, as on Windows' }),
    step('HcnEnumerateSdnRoutes', ['']),
    step('HcnOpenSdnRoute', [guidOf('rid')], { out: 'rb' }),
    step('HcnCloseSdnRoute', [h('rb')]),
    step('HcnOpenSdnRoute', [guid(MISSING)], { out: 'x' }),
    step('HcnDeleteSdnRoute', [guidOf('rid')]),
    step('HcnDeleteSdnRoute', [guid(MISSING)]),
    step('HcnQuerySdnRouteProperties', [h('r'), DEFAULT_QUERY]),
    step('HcnCloseSdnRoute', [h('r')]),
    step('HcnCloseEndpoint', [h('a')]),
    step('HcnCloseNetwork', [h('net')]),
  ],
};

const V1_NETWORK = json({
  Name: 'v1net',
  Type: 'NAT',
  Subnets: [{ AddressPrefix: '172.30.0.0/16', GatewayAddress: '172.30.0.1' }],
});

export const HNSCALL: Table = {
  name: 'HNSCall (vmcompute.dll, v1): GET, POST, DELETE, failures in the response and of the call',
  steps: [
    step('HNSCall', ['GET', '/globals/version', '']),
    step('HNSCall', ['GET', '/networks/', '']),
    step('HNSCall', ['POST', '/networks/', V1_NETWORK], { id: 'v1net' }),
    step('HNSCall', ['GET', '/networks/%{v1net}', '']),
    step('HNSCall', ['POST', '/endpoints/', json({ Name: 'v1ep', VirtualNetwork: '%{v1net}' })], {
      id: 'v1ep',
    }),
    step('HNSCall', ['GET', '/endpoints/%{v1ep}', '']),
    step('HNSCall', ['GET', '/endpointstats/%{v1ep}', '']),
    step('HNSCall', ['GET', `/networks/${MISSING}`, ''], { why: 'Success:false in the response' }),
    step('HNSCall', ['DELETE', `/endpoints/${MISSING}`, '']),
    step('HNSCall', ['POST', '/networks/', '{"Name":'], { why: 'malformed JSON' }),
    step('HNSCall', ['PATCH', '/networks/', ''], { why: 'an unknown method' }),
    step('HNSCall', ['GET', '/nowhere/', '']),
    step('HNSCall', ['DELETE', '/endpoints/%{v1ep}', '']),
    step('HNSCall', ['DELETE', '/networks/%{v1net}', '']),
    step('HNSCall', ['GET', '/networks/', '']),
  ],
};

const CONTAINER = json({ SchemaVersion: { Major: 2, Minor: 1 }, Owner: 'hnsim-test', Container: {} });

export const HCS_V1: Table = {
  name: 'compute systems through vmcompute.dll: create, open, start, pause, modify, properties, stop, close',
  steps: [
    step('HcsEnumerateComputeSystems', ['']),
    step('HcsCreateComputeSystem', ['c1', CONTAINER], { out: 'c1' }),
    step('HcsGetComputeSystemProperties', [h('c1'), '']),
    step('HcsCreateComputeSystem', ['c1', CONTAINER], {
      out: 'dup',
      why: 'an ID in use',
      literal: { hr: ERROR_VMCOMPUTE_SYSTEM_ALREADY_EXISTS },
    }),
    step('HcsCreateComputeSystem', ['c2', '{"SchemaVersion":'], {
      out: 'bad',
      why: 'malformed JSON',
      literal: { hr: ERROR_VMCOMPUTE_INVALID_JSON },
    }),
    step('HcsCreateComputeSystem', ['c3', json({ SchemaVersion: { Major: 2, Minor: 1 } })], {
      out: 'bad2',
      why: 'neither Container nor VirtualMachine',
    }),
    step('HcsOpenComputeSystem', ['c1'], { out: 'c1b' }),
    step('HcsOpenComputeSystem', ['missing'], {
      out: 'x',
      why: 'not found',
      literal: { hr: ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND },
    }),
    step('HcsResumeComputeSystem', [h('c1'), ''], { why: 'not paused: a wrong state' }),
    step('HcsStartComputeSystem', [h('c1'), '']),
    step('HcsStartComputeSystem', [h('c1b'), ''], { why: 'started twice' }),
    step('HcsGetComputeSystemProperties', [h('c1b'), json({ PropertyTypes: ['Statistics'] })]),
    step('HcsGetComputeSystemProperties', [h('c1b'), '{'], { why: 'a malformed query' }),
    step('HcsPauseComputeSystem', [h('c1'), ''], { why: 'a process container cannot pause' }),
    step('HcsModifyComputeSystem', [h('c1'), '{"ResourceType":'], { why: 'malformed JSON' }),
    step('HcsEnumerateComputeSystems', [json({ Owners: ['hnsim-test'] })]),
    step('HcsEnumerateComputeSystems', [json({ Ids: ['nobody'] })]),
    step('HcsShutdownComputeSystem', [h('c1'), '']),
    step('HcsTerminateComputeSystem', [h('c1b'), ''], { why: 'already stopped' }),
    step('HcsGetComputeSystemProperties', [h('c1'), '']),
    step('HcsStartComputeSystem', [h('c1'), ''], { why: 'stopped: a wrong state' }),
    step('HcsCloseComputeSystem', [h('c1b')]),
    step('HcsCloseComputeSystem', [h('c1')]),
    step('HcsEnumerateComputeSystems', ['']),
  ],
};

let opCount = 0;
/**
 * One computecore call as hcsshim's internal/hcs/v2 makes it: HcsCreateOperation, the call with
 * the operation, HcsWaitForOperationResult, HcsCloseOperation.
 */
function cc(fn: string, args: (op: Arg) => readonly Arg[], more: Omit<Step, 'fn' | 'args'> = {}): Step[] {
  const op = `op${++opCount}`;
  return [
    step('cc:HcsCreateOperation', [], { out: op }),
    step(`cc:${fn}`, args(h(op)), more),
    step(
      'cc:HcsWaitForOperationResult',
      [h(op), { n: 5000 }],
      more.why ? { why: `${more.why}: the outcome` } : {},
    ),
    step('cc:HcsCloseOperation', [h(op)]),
  ];
}

export const HCS_V2: Table = {
  name: 'compute systems through computecore.dll: operations carry the outcome',
  steps: [
    ...cc('HcsEnumerateComputeSystems', (op) => ['', op]),
    ...cc('HcsCreateComputeSystem', (op) => ['c1', CONTAINER, op], { out: 'c1' }),
    ...cc('HcsCreateComputeSystem', (op) => ['c1', CONTAINER, op], {
      out: 'dup',
      why: 'an ID in use: HCS_E_SYSTEM_ALREADY_EXISTS from the call and the operation',
      literal: { hr: HCS_E_SYSTEM_ALREADY_EXISTS },
    }),
    ...cc('HcsCreateComputeSystem', (op) => ['c2', '{', op], { out: 'bad', why: 'malformed JSON' }),
    step('cc:HcsOpenComputeSystem', ['c1', { n: 0x10000000 }], { out: 'c1b' }),
    step('cc:HcsOpenComputeSystem', ['missing', { n: 0x10000000 }], {
      out: 'x',
      why: 'not found, computecore spelling',
      literal: { hr: HCS_E_SYSTEM_NOT_FOUND },
    }),
    ...cc('HcsGetComputeSystemProperties', (op) => [h('c1'), op, '']),
    ...cc('HcsResumeComputeSystem', (op) => [h('c1'), op, ''], { why: 'not paused: the operation fails' }),
    ...cc('HcsStartComputeSystem', (op) => [h('c1'), op, '']),
    ...cc('HcsStartComputeSystem', (op) => [h('c1b'), op, ''], { why: 'started twice' }),
    ...cc('HcsGetComputeSystemProperties', (op) => [h('c1b'), op, json({ PropertyTypes: ['Statistics'] })]),
    ...cc('HcsModifyComputeSystem', (op) => [h('c1'), op, '{"ResourceType":'], { why: 'malformed JSON' }),
    ...cc('HcsShutDownComputeSystem', (op) => [h('c1'), op, '']),
    ...cc('HcsTerminateComputeSystem', (op) => [h('c1b'), op, ''], { why: 'already stopped' }),
    ...cc('HcsEnumerateComputeSystems', (op) => [json({ Owners: ['hnsim-test'] }), op]),
    step('cc:HcsCloseComputeSystem', [h('c1b')]),
    step('cc:HcsCloseComputeSystem', [h('c1')]),
    ...cc('HcsEnumerateComputeSystems', (op) => ['', op]),
  ],
};

export const TABLES: readonly Table[] = [
  NETWORKS,
  ENDPOINTS,
  NAMESPACES,
  LOAD_BALANCERS,
  SDN_ROUTES,
  HNSCALL,
];
