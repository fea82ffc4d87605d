/**
 * Documents and policies HNS must refuse, each labelled with the HRESULT it must be refused with
 * (reference hns-hcs.md §5.2 for the codes; docs/model.md, "HNS", for which code each mistake
 * gets). Where `invalidDoc()` only promises "refused", these promise the exact error, so a property
 * can check a plugin's error handling, or the simulator's, against it:
 *
 *   fc.assert(fc.property(rejectedDoc('Network'), ({ doc, hresult }) => {
 *     expect(host.api.HcnCreateNetwork(null, doc).name).toBe(hresult);
 *   }));
 *
 * Each arbitrary draws a valid document (or policy list) from the valid arbitraries and spoils one
 * thing in it, so it shrinks towards the smallest valid document around the one mistake.
 */
import fc from 'fast-check';
import type { HResultName } from '../core/errors.js';
import type { Json, JsonObject } from '../core/json.js';
import type { NetworkType, PolicyScope } from '../hns/policy/contracts.js';
import { getPolicyModule } from '../hns/policy/registry.js';
import { supports } from '../hns/versions.js';
import {
  endpointDoc,
  generatedPolicyTypes,
  HNS_ARB,
  loadBalancerDoc,
  namespaceDoc,
  networkDoc,
  policies,
  policyOfType,
  sdnRouteDoc,
  type ArbContext,
  type DocKind,
  type EndpointArbOptions,
  DOC_KINDS,
} from './arbitraries.js';
import { scopeOf } from './arb-helpers.js';

/** A value HNS must refuse, the HRESULT it must refuse it with, and why. */
export interface Rejected<T> {
  readonly value: T;
  /** The registered name of the HRESULT (`HCN_E_INVALID_POLICY`). */
  readonly hresult: HResultName;
  /** One line: what is wrong (for failure messages). */
  readonly why: string;
}

// ───────────────────────────── policies ─────────────────────────────

/**
 * Settings each policy Type refuses with HCN_E_INVALID_POLICY (docs/model.md, "Policies": bad
 * Settings): a required field missing or of the wrong JSON type, or a value out of its range. The
 * field names are the reference's (hns-hcs.md §2).
 */
export const BAD_POLICY_SETTINGS: Readonly<Record<string, readonly JsonObject[]>> = {
  // network
  SourceMacAddress: [{}, { SourceMacAddress: 'not-a-mac' }],
  NetAdapterName: [{}, { NetworkAdapterName: 5 }],
  VSwitchExtension: [{ Enable: true }, { ExtensionID: 'not-a-guid', Enable: true }],
  DrMacAddress: [{}, { Address: 'zz-zz' }],
  AutomaticDNS: [{ Enable: 'yes' }],
  RemoteSubnetRoute: [
    { IsolationId: 4096, ProviderAddress: '10.127.130.36', DistributedRouterMacAddress: '00-15-5D-01-02-03' },
    {
      DestinationPrefix: '10.244.3.0/33',
      IsolationId: 4096,
      ProviderAddress: '10.127.130.36',
      DistributedRouterMacAddress: '00-15-5D-01-02-03',
    },
  ],
  VxlanPort: [{ Port: 0 }, { Port: 'x' }],
  HostRoute: [], // no settings to get wrong: only Settings that are not an object
  SetPolicy: [
    { Id: 'pods', Values: '10.0.0.1' },
    { Id: '1bad', PolicyType: 'IPSET', Values: '10.0.0.1' },
  ],
  LayerConstraint: [{}, { LayerId: 'layer-1' }],
  NetworkACL: [{ Action: 'Maybe', Direction: 'In' }, { Action: 'Allow' }],
  NeighborDiscovery: [
    { SenderIpAddress: '10.0.0.1' },
    { TargetIpPrefix: '10.0.0.0/24', SenderIpAddress: 'x' },
  ],
  // network and endpoint
  InterfaceConstraint: [{}],
  ProviderAddress: [{}, { ProviderAddress: '10.127.130' }],
  L4Proxy: [{ Port: '80', Protocol: 6, Destination: 'nowhere' }],
  // endpoint
  PortMapping: [
    { Protocol: 1, InternalPort: 80 },
    { Protocol: 6, InternalPort: 80, Flags: 64 },
  ],
  ACL: [
    { Action: 'Maybe', Direction: 'In' },
    { Action: 'Block', Direction: 'Sideways' },
  ],
  QOS: [{ MaximumOutgoingBandwidthInBytes: -1 }],
  L2Driver: [],
  OutBoundNAT: [{ Exceptions: ['10.0.0.0/99'] }, { Exceptions: 'x' }],
  SDNRoute: [{ DestinationPrefix: 'bad' }],
  L4WFPPROXY: [{ FilterTuple: { Protocols: '6' } }],
  PortName: [{}],
  EncapOverhead: [{ Overhead: 'x' }],
  Iov: [{ IovOffloadWeight: 'x' }],
  TierAcl: [{ Direction: 'In', Order: 1001 }],
  Encryption: [{ AuthenticationMethods: [] as Json[] }, { AuthenticationMethods: [{ Type: 'Password' }] }],
  InterfaceParameters: [{ Mtu: 'x' }],
  // endpoint and subnet
  VLAN: [{ IsolationId: 0 }, { IsolationId: 4095 }],
  // subnet
  VSID: [{ IsolationId: 12 }, { IsolationId: 16777215 }],
};

/** Settings that are not an object: refused whatever the Type (HCN_E_INVALID_POLICY). */
const NOT_OBJECT_SETTINGS: readonly Json[] = [5, 'x', [], true];

/** A policy Type of another scope only (for `scope`), any case-sensitive spelling kept. */
const OTHER_SCOPE: Readonly<Record<PolicyScope, readonly string[]>> = {
  network: ['PortMapping', 'ACL', 'OutBoundNAT', 'QOS'],
  endpoint: ['HostRoute', 'RemoteSubnetRoute', 'VxlanPort', 'NetAdapterName'],
  subnet: ['PortMapping', 'HostRoute', 'OutBoundNAT'],
};

const UNKNOWN_TYPES = ['NoSuchPolicy', 'Firewall', 'ELB', 'VNET'];

/** Network types on which PortMapping is refused (docs/model.md, "PortMapping"). */
const NO_PORT_MAPPING: readonly NetworkType[] = ['Transparent', 'L2Tunnel', 'Private', 'Internal'];

/**
 * One policy `scope` refuses (network, endpoint or subnet; any case), with its HRESULT:
 * - bad Settings of a Type the scope has (`BAD_POLICY_SETTINGS`, or Settings that are not an
 *   object) → HCN_E_INVALID_POLICY; a PortMapping with InternalPort 0 → HCN_E_INVALID_INTERNAL_PORT;
 * - an unknown Type, a Type of another scope, or (with `ctx.version`) a Type newer than that HNS
 *   → HCN_E_INVALID_POLICY_TYPE;
 * - (endpoint scope, with `ctx.networkType` Transparent, L2Tunnel, Private or Internal) a valid
 *   PortMapping → HCN_E_MAPPING_NOT_SUPPORTED.
 */
export function rejectedPolicy(
  scopeName: PolicyScope | string,
  ctx: ArbContext = {},
): fc.Arbitrary<Rejected<JsonObject>> {
  const scope = scopeOf(scopeName);
  const types = generatedPolicyTypes(scope, ctx);
  const cases: fc.Arbitrary<Rejected<JsonObject>>[] = [];
  const badSettings = types.flatMap((Type) =>
    (BAD_POLICY_SETTINGS[Type] ?? []).map((Settings): Rejected<JsonObject> => ({
      value: { Type, Settings },
      hresult: 'HCN_E_INVALID_POLICY',
      why: `${Type} with bad Settings ${JSON.stringify(Settings)}`,
    })),
  );
  if (badSettings.length) cases.push(fc.constantFrom(...badSettings));
  if (types.length) {
    cases.push(
      fc
        .tuple(fc.constantFrom(...types), fc.constantFrom(...NOT_OBJECT_SETTINGS))
        .map(([Type, Settings]): Rejected<JsonObject> => ({
          value: { Type, Settings },
          hresult: 'HCN_E_INVALID_POLICY',
          why: `${Type} Settings ${JSON.stringify(Settings)} is not an object`,
        })),
    );
  }
  if (types.includes('PortMapping')) {
    cases.push(
      fc.constantFrom(6, 17).map((Protocol): Rejected<JsonObject> => ({
        value: { Type: 'PortMapping', Settings: { Protocol, InternalPort: 0, ExternalPort: 8080 } },
        hresult: 'HCN_E_INVALID_INTERNAL_PORT',
        why: 'PortMapping with InternalPort 0',
      })),
    );
  }
  cases.push(
    fc.constantFrom(...UNKNOWN_TYPES, ...OTHER_SCOPE[scope]).map((Type): Rejected<JsonObject> => ({
      value: { Type, Settings: {} },
      hresult: 'HCN_E_INVALID_POLICY_TYPE',
      why: UNKNOWN_TYPES.includes(Type) ? `unknown policy Type ${Type}` : `${Type} is not a ${scope} policy`,
    })),
  );
  if (ctx.version) {
    // types of this scope that exist, but not on this HNS
    const gated = Object.keys(BAD_POLICY_SETTINGS).filter((t) => {
      const m = getPolicyModule(t, scope);
      return m?.feature !== undefined && !supports(ctx.version!, m.feature);
    });
    if (gated.length) {
      cases.push(
        fc
          .constantFrom(...gated)
          .chain((t) => policyOfType(t))
          .map((p): Rejected<JsonObject> => ({
            value: p,
            hresult: 'HCN_E_INVALID_POLICY_TYPE',
            why: `${String(p.Type)} needs a newer HNS`,
          })),
      );
    }
  }
  if (scope === 'endpoint' && ctx.networkType && NO_PORT_MAPPING.includes(ctx.networkType)) {
    cases.push(
      policyOfType('PortMapping').map((p): Rejected<JsonObject> => ({
        value: p,
        hresult: 'HCN_E_MAPPING_NOT_SUPPORTED',
        why: `PortMapping on a ${ctx.networkType} network`,
      })),
    );
  }
  return fc.oneof(...cases);
}

/** Single-instance Types whose second copy is refused, and with what (docs/model.md, "Single instance"). */
function secondCopyError(type: string): HResultName {
  return type === 'InterfaceParameters'
    ? 'HCN_INTERFACEPARAMETERS_ALREADY_APPLIED'
    : 'HCN_E_POLICY_ALREADY_EXISTS';
}

/**
 * A Policies array `scope` refuses as a whole, with its HRESULT: a valid list (`policies(scope,
 * ctx)`) with one rejected policy put in somewhere (its label), or — endpoint scope — with a second
 * copy of a single-instance policy it holds (HCN_INTERFACEPARAMETERS_ALREADY_APPLIED for
 * InterfaceParameters, else HCN_E_POLICY_ALREADY_EXISTS), or a PortMapping twice
 * (HCN_E_PORT_ALREADY_EXISTS).
 */
export function rejectedPolicies(
  scopeName: PolicyScope | string,
  ctx: ArbContext = {},
): fc.Arbitrary<Rejected<JsonObject[]>> {
  const scope = scopeOf(scopeName);
  const inserted = fc
    .tuple(policies(scope, ctx, 2), rejectedPolicy(scope, ctx), fc.nat())
    .map(([list, bad, at]): Rejected<JsonObject[]> => {
      const value = [...list];
      value.splice(at % (list.length + 1), 0, bad.value);
      return { value, hresult: bad.hresult, why: bad.why };
    });
  if (scope !== 'endpoint') return inserted;
  const types = generatedPolicyTypes(scope, ctx);
  const twice: fc.Arbitrary<Rejected<JsonObject[]>>[] = [];
  const singles = types.filter((t) => getPolicyModule(t, scope)?.multiple === false);
  if (singles.length) {
    twice.push(
      fc
        .constantFrom(...singles)
        .chain((t) => fc.tuple(policyOfType(t), policyOfType(t)))
        .map(([a, b]): Rejected<JsonObject[]> => ({
          value: [a, b],
          hresult: secondCopyError(String(a.Type)),
          why: `two ${String(a.Type)} policies`,
        })),
    );
  }
  if (types.includes('PortMapping')) {
    twice.push(
      fc
        .record({
          Protocol: fc.constantFrom(6, 17),
          InternalPort: fc.constantFrom(...HNS_ARB.internalPorts),
          ExternalPort: fc.constantFrom(...HNS_ARB.ports),
        })
        .map(({ Protocol, InternalPort, ExternalPort }): Rejected<JsonObject[]> => {
          const other = HNS_ARB.internalPorts.find((p) => p !== InternalPort)!;
          return {
            value: [
              { Type: 'PortMapping', Settings: { Protocol, InternalPort, ExternalPort } },
              { Type: 'PortMapping', Settings: { Protocol, InternalPort: other, ExternalPort } },
            ],
            hresult: 'HCN_E_PORT_ALREADY_EXISTS',
            why: `two PortMappings on host port ${Protocol}/${ExternalPort}`,
          };
        }),
    );
  }
  return twice.length ? fc.oneof({ weight: 3, arbitrary: inserted }, ...twice) : inserted;
}

// ───────────────────────────── documents ─────────────────────────────

/** A document with one field set, and the HRESULT that field gets it refused with. */
interface FieldCase {
  readonly field: string;
  readonly value: Json;
  readonly hresult: HResultName;
  readonly why: string;
}

const c = (field: string, value: Json, hresult: HResultName, why: string): FieldCase => ({
  field,
  value,
  hresult,
  why,
});

/**
 * The spoilt fields per document kind and the HRESULT each must get (docs/model.md: "Wrong JSON
 * types" — HCN_E_INVALID_NETWORK / HCN_E_INVALID_ENDPOINT for fields of networks and endpoints,
 * HCN_E_INVALID_JSON for namespaces, load balancers and routes; "Given IDs" — a malformed GUID is
 * HCN_E_GUID_CONVERSION_FAILURE; "Type", "Flags", "Subnet prefixes", "Gateway", "MAC text",
 * "Explicit addresses", "Backends"; the codes' meanings: reference hns-hcs.md §5.2).
 */
const REJECTED_FIELDS: Readonly<Record<DocKind, readonly FieldCase[]>> = {
  Network: [
    c('ID', 'not-a-guid', 'HCN_E_GUID_CONVERSION_FAILURE', 'ID is not a GUID'),
    c('ID', 5, 'HCN_E_INVALID_NETWORK', 'ID is a number'),
    c('Name', 5, 'HCN_E_INVALID_NETWORK', 'Name is a number'),
    c('Name', ['a'], 'HCN_E_INVALID_NETWORK', 'Name is an array'),
    c('Type', 'Bogus', 'HCN_E_INVALID_NETWORK_TYPE', 'unknown network Type'),
    c('Type', 7, 'HCN_E_INVALID_NETWORK', 'Type is a number'),
    c('Flags', 'x', 'HCN_E_INVALID_NETWORK', 'Flags is a string'),
    c('Flags', -1, 'HCN_E_INVALID_NETWORK', 'Flags is negative'),
    c('Flags', 1 << 20, 'HCN_E_INVALID_NETWORK', 'Flags has an unknown bit'),
    c('SchemaVersion', '2.0', 'HCN_E_INVALID_NETWORK', 'SchemaVersion is a string'),
    c('Ipams', 'x', 'HCN_E_INVALID_NETWORK', 'Ipams is a string'),
    c(
      'Ipams',
      [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.0.0.0/33' }] }],
      'HCN_E_INVALID_PREFIX',
      'a subnet prefix longer than 32',
    ),
    c(
      'Ipams',
      [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.0.0.1/24' }] }],
      'HCN_E_INVALID_PREFIX',
      'a subnet prefix with host bits',
    ),
    c(
      'Ipams',
      [
        {
          Type: 'Static',
          Subnets: [{ IpAddressPrefix: '10.0.0.0/24' }, { IpAddressPrefix: '10.0.0.128/25' }],
        },
      ],
      'HCN_E_INVALID_SUBNET',
      'two subnets of the network overlap',
    ),
    c(
      'Ipams',
      [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.0.0.0/24',
              Routes: [{ NextHop: '10.0.0.0', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      'HCN_E_ADDR_INVALID_OR_RESERVED',
      'the gateway is the network address',
    ),
    c(
      'MacPool',
      { Ranges: [{ StartMacAddress: '00-15-5D-00-00-10', EndMacAddress: '00-15-5D-00-00-01' }] },
      'HCN_E_INVALID_NETWORK',
      'a MAC range that ends before it starts',
    ),
    c(
      'MacPool',
      { Ranges: [{ StartMacAddress: 'zz', EndMacAddress: '00-15-5D-00-00-01' }] },
      'HCN_E_INVALID_NETWORK',
      'a MAC range with a bad MAC',
    ),
    c('Dns', { ServerList: ['not-an-ip'] }, 'HCN_E_INVALID_NETWORK', 'a DNS server that is not an address'),
    c('Dns', 5, 'HCN_E_INVALID_NETWORK', 'Dns is a number'),
    c('Policies', 5, 'HCN_E_INVALID_NETWORK', 'Policies is a number'),
    c('Policies', [null], 'HCN_E_INVALID_POLICY', 'a policy that is null'),
  ],
  Endpoint: [
    c('ID', 'not-a-guid', 'HCN_E_GUID_CONVERSION_FAILURE', 'ID is not a GUID'),
    c('Name', 5, 'HCN_E_INVALID_ENDPOINT', 'Name is a number'),
    c('Flags', 1.5, 'HCN_E_INVALID_ENDPOINT', 'Flags is not an integer'),
    c('SchemaVersion', { Major: -1 }, 'HCN_E_INVALID_ENDPOINT', 'SchemaVersion.Major is negative'),
    c('IpConfigurations', 'x', 'HCN_E_INVALID_ENDPOINT', 'IpConfigurations is a string'),
    c('IpConfigurations', [{ IpAddress: '999.1.1.1' }], 'HCN_E_INVALID_IP', 'an address that is not one'),
    c(
      'IpConfigurations',
      [{ IpAddress: '10.0.0.5', PrefixLength: 99 }],
      'HCN_E_INVALID_PREFIX',
      'a prefix length of 99',
    ),
    c('MacAddress', 'zz', 'HCN_E_INVALID_ENDPOINT', 'a MAC that is not one'),
    c('MacAddress', '01-00-5E-00-00-01', 'HCN_E_ADDR_INVALID_OR_RESERVED', 'a multicast MAC'),
    c('Routes', [{ DestinationPrefix: 'x' }], 'HCN_E_INVALID_ENDPOINT', 'a route to nowhere'),
    c('Dns', { Search: 'x' }, 'HCN_E_INVALID_ENDPOINT', 'Dns.Search is a string'),
    c('HostComputeNetwork', 'nope', 'HCN_E_GUID_CONVERSION_FAILURE', 'HostComputeNetwork is not a GUID'),
    c('Policies', 5, 'HCN_E_INVALID_ENDPOINT', 'Policies is a number'),
    c('Policies', [null], 'HCN_E_INVALID_POLICY', 'a policy that is null'),
  ],
  Namespace: [
    c('ID', 'not-a-guid', 'HCN_E_GUID_CONVERSION_FAILURE', 'ID is not a GUID'),
    c('Type', 'Bogus', 'HCN_E_INVALID_JSON', 'unknown namespace Type'),
    c('SchemaVersion', { Major: 2, Minor: 'x' }, 'HCN_E_INVALID_JSON', 'SchemaVersion.Minor is a string'),
    c('Resources', [{ Type: 'Bogus', Data: { ID: 'x' } }], 'HCN_E_INVALID_JSON', 'an unknown resource Type'),
    c('Resources', [{ Type: 'Endpoint' }], 'HCN_E_INVALID_JSON', 'a resource without Data'),
    c(
      'Resources',
      [{ Type: 'Endpoint', Data: { ID: 'nope' } }],
      'HCN_E_GUID_CONVERSION_FAILURE',
      'a resource ID that is not a GUID',
    ),
  ],
  LoadBalancer: [
    c('ID', 'not-a-guid', 'HCN_E_GUID_CONVERSION_FAILURE', 'ID is not a GUID'),
    c('HostComputeEndpoints', 'x', 'HCN_E_INVALID_JSON', 'HostComputeEndpoints is a string'),
    c('HostComputeEndpoints', [], 'E_INVALIDARG', 'no backend'),
    c(
      'HostComputeEndpoints',
      ['not-a-guid'],
      'HCN_E_GUID_CONVERSION_FAILURE',
      'a backend that is not a GUID',
    ),
    c(
      'HostComputeEndpoints',
      ['0C0FFEE0-0000-4000-8000-00000000B001'],
      'HCN_E_ENDPOINT_NOT_FOUND',
      'a backend that does not exist',
    ),
    c('SourceVIP', '1.2.3', 'HCN_E_INVALID_IP', 'SourceVIP is not an address'),
    c('SourceVIP', 5, 'HCN_E_INVALID_JSON', 'SourceVIP is a number'),
    c('FrontendVIPs', ['1.2.3'], 'HCN_E_INVALID_IP', 'a frontend VIP that is not an address'),
    c('PortMappings', [{ Protocol: 6, InternalPort: 0 }], 'HCN_E_INVALID_INTERNAL_PORT', 'InternalPort 0'),
    c('SchemaVersion', '2.0', 'HCN_E_INVALID_JSON', 'SchemaVersion is a string'),
  ],
  SdnRoute: [
    c('ID', 'not-a-guid', 'HCN_E_GUID_CONVERSION_FAILURE', 'ID is not a GUID'),
    c('HostComputeEndpoints', [5], 'HCN_E_INVALID_JSON', 'a backend that is a number'),
    c(
      'Setting',
      [{ DestinationPrefix: 'bad' }],
      'HCN_E_INVALID_PREFIX',
      'a destination that is not a prefix',
    ),
    c(
      'Setting',
      [{ DestinationPrefix: '10.0.0.0/8', NextHop: 'x' }],
      'HCN_E_INVALID_IP',
      'a next hop that is not an address',
    ),
    c('SchemaVersion', { Major: 2, Minor: 'x' }, 'HCN_E_INVALID_JSON', 'SchemaVersion.Minor is a string'),
  ],
};

export interface RejectedDocOptions extends EndpointArbOptions {
  /**
   * Existing endpoint IDs the load balancer and route documents name (they must exist on the host
   * for the document to be refused for its spoilt field and nothing else).
   */
  readonly endpointIds?: readonly string[];
}

/** A route document takes `Setting` or `Routes`, not both: the spoilt `Setting` replaces either. */
function withoutRoutesKey(doc: JsonObject, kind: DocKind, field: string): JsonObject {
  if (kind !== 'SdnRoute' || field !== 'Setting') return doc;
  const { Routes: _r, ...rest } = doc;
  return rest;
}

/** A refused document: the document, the HRESULT it must get, the field spoilt and why. */
export interface RejectedDoc extends Rejected<JsonObject> {
  readonly field: string;
}

/**
 * A document of `kind` (Network, Endpoint, Namespace, LoadBalancer, SdnRoute; any case) HNS must
 * refuse, with the HRESULT: a valid document (from the valid arbitrary, for `opts`' host and
 * network) with one field set to a value of `REJECTED_FIELDS`, or — networks and endpoints — its
 * Policies replaced by a `rejectedPolicies()` list. Load balancers and routes need `endpointIds`
 * (endpoints that exist), else they name one that does not and every one is refused with
 * HCN_E_ENDPOINT_NOT_FOUND whatever else is wrong… so they are required.
 */
export function rejectedDoc(
  kindName: DocKind | string,
  opts: RejectedDocOptions = {},
): fc.Arbitrary<RejectedDoc> {
  const kind = DOC_KINDS.find((k) => k.toLowerCase() === String(kindName).toLowerCase());
  if (!kind) {
    throw new TypeError(`rejectedDoc: unknown kind ${JSON.stringify(kindName)}: use ${DOC_KINDS.join(', ')}`);
  }
  const eps = opts.endpointIds ?? [];
  if ((kind === 'LoadBalancer' || kind === 'SdnRoute') && !eps.length) {
    throw new TypeError(`rejectedDoc: a ${kind} needs endpointIds (endpoints that exist on the host)`);
  }
  const ctx: ArbContext = {
    ...(opts.version ? { version: opts.version } : {}),
    ...(opts.networkType ? { networkType: opts.networkType } : {}),
  };
  const base: fc.Arbitrary<JsonObject> =
    kind === 'Network'
      ? networkDoc(opts.version ? { version: opts.version } : {})
      : kind === 'Endpoint'
        ? endpointDoc(undefined, { ...opts, remote: 'never' })
        : kind === 'Namespace'
          ? namespaceDoc()
          : kind === 'LoadBalancer'
            ? loadBalancerDoc(eps, ctx)
            : sdnRouteDoc(eps);
  const fields = REJECTED_FIELDS[kind];
  const spoilt = fc.tuple(base, fc.constantFrom(...fields)).map(([doc, f]): RejectedDoc => ({
    value: { ...withoutRoutesKey(doc, kind, f.field), [f.field]: f.value },
    hresult: f.hresult,
    field: f.field,
    why: f.why,
  }));
  if (kind === 'Network') {
    // network policies are checked against the network's own type: draw the list for it
    const withPolicies = base.chain((doc) =>
      rejectedPolicies('network', {
        ...ctx,
        networkType: (doc.Type as NetworkType | undefined) ?? 'NAT',
      }).map((bad): RejectedDoc => ({
        value: { ...doc, Policies: bad.value },
        hresult: bad.hresult,
        field: 'Policies',
        why: bad.why,
      })),
    );
    return fc.oneof({ weight: 3, arbitrary: spoilt }, { weight: 1, arbitrary: withPolicies });
  }
  if (kind === 'Endpoint') {
    const withPolicies = fc.tuple(base, rejectedPolicies('endpoint', ctx)).map(([doc, bad]): RejectedDoc => ({
      value: { ...doc, Policies: bad.value },
      hresult: bad.hresult,
      field: 'Policies',
      why: bad.why,
    }));
    return fc.oneof({ weight: 3, arbitrary: spoilt }, { weight: 1, arbitrary: withPolicies });
  }
  return spoilt;
}
