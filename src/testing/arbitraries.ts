/**
 * fast-check arbitraries for HCN v2 documents (reference hns-hcs.md §1 objects, §2 policies), for
 * property tests of plugins and of hnsim itself. "Valid" arbitraries produce documents a host
 * accepts almost always (filtered by HNS version and network type when told them); `invalidDoc()`
 * mixes wrong types and values in. Every constant the generators draw from lives in `HNS_ARB`.
 *
 *   fc.assert(fc.property(networkDoc(), (doc) => host.api.HcnCreateNetwork(null, doc).hr === 0));
 *   loadBalancerDoc([epA, epB])  // frontends over a non-empty subset of the given endpoints
 */
import fc from 'fast-check';
import { formatIp, parsePrefix, type IpAddr } from '../addr/ip.js';
import { formatMac, parseMac } from '../addr/mac.js';
import type { Json, JsonObject } from '../core/json.js';
import type { NetworkType, PolicyScope } from '../hns/policy/contracts.js';
import { getPolicyModule } from '../hns/policy/registry.js';
import { supports, type HnsVersion } from '../hns/versions.js';
import { compact, maybe, pick, scopeOf, sometimes } from './arb-helpers.js';

/** A subnet the generators may give a network, with the gateway its default route points to. */
export interface ArbSubnet {
  readonly prefix: string;
  readonly gateway: string;
}

/**
 * Every constant the arbitraries draw from. Pools are small on purpose: names, ports, VIPs and
 * subnets collide often enough that duplicate names, port conflicts and pool exhaustion (the /29)
 * happen within a few dozen operations.
 */
export const HNS_ARB = {
  networkNames: ['nat', 'cbr0', 'l2bridge', 'vxlan0', 'ext', 'Calico'],
  networkTypes: [
    { type: 'NAT', weight: 4 },
    { type: 'L2Bridge', weight: 3 },
    { type: 'Overlay', weight: 3 },
    { type: 'Transparent', weight: 1 },
    { type: 'ICS', weight: 1 },
    { type: 'Internal', weight: 1 },
    { type: 'Private', weight: 1 },
    { type: 'L2Tunnel', weight: 1 },
  ] as readonly { readonly type: NetworkType; readonly weight: number }[],
  ipv4Subnets: [
    { prefix: '10.0.0.0/24', gateway: '10.0.0.1' },
    { prefix: '10.0.1.0/29', gateway: '10.0.1.1' },
    { prefix: '192.168.100.0/24', gateway: '192.168.100.1' },
    { prefix: '172.30.0.0/28', gateway: '172.30.0.1' },
  ] as readonly ArbSubnet[],
  ipv6Subnets: [
    { prefix: 'fd00::100/120', gateway: 'fd00::101' },
    { prefix: 'fd00:1::/64', gateway: 'fd00:1::1' },
  ] as readonly ArbSubnet[],
  /** Inclusive MAC ranges in the Hyper-V OUI; the first holds 8 MACs (exhaustion). */
  macRanges: [
    { start: '00-15-5D-AA-00-00', end: '00-15-5D-AA-00-07' },
    { start: '00-15-5D-AB-10-00', end: '00-15-5D-AB-1F-FF' },
  ],
  /** Subnet policies: VSIDs (4096..16777214) and VLAN ids (1..4094). */
  vsids: [4096, 5000, 7001],
  vlans: [1, 100, 4094],
  vips: ['10.96.0.10', '10.96.0.11', '192.168.100.200'],
  sourceVips: ['10.0.0.250', '192.168.100.250'],
  ports: [53, 80, 443, 8080],
  /** PortMapping NatFlags: none, LocalRoutedVip, IPv6, both. */
  portMappingFlags: [0, 1, 2, 3],
  internalPorts: [53, 80, 9376, 8443],
  endpointNames: ['eth0', 'pod-a_eth0', 'pod-b_eth0', 'GoTestNatEndpoint', ''],
  dnsServers: ['10.96.0.10', '8.8.8.8', 'fd00::10'],
  dnsSearch: ['svc.cluster.local', 'cluster.local', 'corp.example'],
  providerAddresses: ['10.127.130.36', '10.127.130.37'],
  remoteSubnets: ['192.168.2.0/24', '10.244.3.0/24', '10.244.4.0/24'],
  drMacs: ['00-12-34-56-78-9a', '00-15-5D-01-02-03'],
  aclAddresses: ['192.168.100.0/24', '10.0.0.21', '10.244.0.0/16'],
  containerIds: ['c0ffee00-0000-4000-8000-000000000001', 'pause-1', 'web-7f9c'],
  namespaceTypes: [
    { type: 'Host', weight: 4 },
    { type: 'Guest', weight: 2 },
    { type: 'GuestDefault', weight: 1 },
    { type: 'HostDefault', weight: 1 },
  ],
  networkFlags: [1, 8, 16, 32, 512],
  mtus: [1400, 1450, 1500],
  /**
   * VSwitchExtension ids every switch has on every profile, either state valid: the Windows
   * Filtering Platform (a filtering extension). An unknown id or a second forwarding extension is
   * refused (src/hns/extensions.ts), so neither is here.
   */
  extensionIds: ['E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A'],
  /** LayerConstraint layer ids. */
  layerIds: ['4F2EC0E4-0B29-4EB2-B3A0-2D3DCB4D1C3B', '0B8E3A7C-6A4D-4C1E-8F2B-9D5E7A1C3B20'],
  /** Encryption: pre-shared keys and certificate names. */
  ipsecSecrets: ['s3cret', 'CN=node-1'],
  schemaVersion: { Major: 2, Minor: 0 },
} as const;

/** What the valid arbitraries should respect so that the host accepts the document. */
export interface ArbContext {
  /** HNS version of the target host: policies and fields it lacks are not generated. */
  readonly version?: HnsVersion;
  /** Network type the policy or endpoint is for (PortMapping is left out where unsupported). */
  readonly networkType?: NetworkType;
}

/**
 * The `host`-th usable address of a CIDR prefix (1 = the first after the network address),
 * wrapping around inside the prefix: `addressIn('10.0.1.0/29', 2)` is `10.0.1.2`.
 */
export function addressIn(prefix: string, host: number): string {
  const p = parsePrefix(prefix);
  if (!p) throw new RangeError(`addressIn: "${prefix}" is not a CIDR prefix`);
  const h = BigInt(Math.max(0, Math.trunc(host)));
  const span = 1n << BigInt((p.family === 4 ? 32 : 128) - p.len);
  // skip the network address (and the IPv4 broadcast) when the prefix has room for hosts
  const usable = span <= 2n ? span : p.family === 4 ? span - 2n : span - 1n;
  const off = span <= 2n ? h % span : 1n + ((h - 1n + usable) % usable);
  const a: IpAddr =
    p.family === 4 ? { family: 4, value: (p.addr + Number(off)) >>> 0 } : { family: 6, value: p.addr + off };
  return formatIp(a);
}

// ───────────────────────────── policies ─────────────────────────────

const aclSettings: fc.Arbitrary<JsonObject> = fc
  .record({
    Protocols: maybe(pick(['6', '17', '6,17', '1'])),
    Action: pick(['Allow', 'Block']),
    Direction: pick(['In', 'Out']),
    RemoteAddresses: maybe(pick(HNS_ARB.aclAddresses)),
    LocalPorts: maybe(pick(['80', '80,8080', '1000-2000'])),
    RuleType: maybe(pick(['Switch', 'Host'])),
    Priority: maybe(fc.integer({ min: 100, max: 4000 })),
  })
  .map(compact);

/** Settings generators per policy Type; the scopes and feature gates come from the registry. */
const POLICY_SETTINGS: Readonly<Record<string, fc.Arbitrary<JsonObject>>> = {
  // network
  HostRoute: fc.constant({}),
  AutomaticDNS: fc.boolean().map((Enable) => ({ Enable })),
  NetAdapterName: pick(['Ethernet', 'ethernet']).map((n) => ({ NetworkAdapterName: n })),
  VxlanPort: pick([4789, 4790]).map((Port) => ({ Port })),
  SourceMacAddress: pick(HNS_ARB.drMacs).map((m) => ({ SourceMacAddress: m.toUpperCase() })),
  DrMacAddress: pick(HNS_ARB.drMacs).map((Address) => ({ Address })),
  RemoteSubnetRoute: fc.record({
    DestinationPrefix: pick(HNS_ARB.remoteSubnets),
    IsolationId: pick(HNS_ARB.vsids),
    ProviderAddress: pick(HNS_ARB.providerAddresses),
    DistributedRouterMacAddress: pick(HNS_ARB.drMacs),
  }),
  SetPolicy: fc.record({
    Id: pick(['IPSET1', 'ns-default', 'allow.web']),
    Name: pick(['pods', 'web']),
    PolicyType: fc.constant('IPSET'),
    Values: pick(['10.0.0.1,10.0.0.2', '192.168.100.0/24']),
  }),
  NetworkACL: aclSettings,
  ProviderAddress: pick(HNS_ARB.providerAddresses).map((p) => ({ ProviderAddress: p })),
  VSwitchExtension: fc.record({ ExtensionID: pick(HNS_ARB.extensionIds), Enable: fc.boolean() }),
  LayerConstraint: pick(HNS_ARB.layerIds).map((LayerId) => ({ LayerId })),
  NeighborDiscovery: fc
    .record({
      TargetIpPrefix: pick(HNS_ARB.remoteSubnets),
      SenderIpAddress: pick(HNS_ARB.providerAddresses),
      SenderMacAddress: maybe(pick(HNS_ARB.drMacs)),
    })
    .map(compact),
  // endpoint
  PortMapping: fc
    .record({
      Protocol: pick([6, 17]),
      InternalPort: pick(HNS_ARB.internalPorts),
      ExternalPort: maybe(pick(HNS_ARB.ports), 85),
      VIP: maybe(pick(HNS_ARB.vips), 25),
      // NatFlags: LocalRoutedVip 1, IPv6 2 (the pairs CNIs send: 1 + 2, 0 + 2, 1 + 3)
      Flags: maybe(pick(HNS_ARB.portMappingFlags), 25),
    })
    .map(compact),
  OutBoundNAT: fc
    .record({
      VirtualIP: maybe(pick(HNS_ARB.sourceVips), 20),
      Exceptions: maybe(fc.subarray([...HNS_ARB.aclAddresses], { minLength: 1 })),
      Destinations: maybe(fc.subarray([...HNS_ARB.remoteSubnets], { minLength: 1 }), 15),
    })
    .map(compact),
  ACL: aclSettings,
  QOS: pick([1_000_000, 125_000_000]).map((b) => ({ MaximumOutgoingBandwidthInBytes: b })),
  EncapOverhead: pick([50, 70]).map((Overhead) => ({ Overhead })),
  PortName: pick(['pod-a_eth0', 'vEthernet']).map((Name) => ({ Name })),
  SDNRoute: fc
    .record({
      DestinationPrefix: pick(HNS_ARB.remoteSubnets),
      NextHop: maybe(pick(HNS_ARB.providerAddresses)),
      NeedEncap: fc.boolean(),
    })
    .map(compact),
  InterfaceParameters: pick(HNS_ARB.mtus).map((Mtu) => ({ Mtu })),
  L4Proxy: fc
    .record({
      IP: maybe(pick(HNS_ARB.vips)),
      Port: pick(['80', '443']),
      Protocol: pick([6, 17]),
      Destination: pick(['10.0.0.5:8080', '10.0.0.6']),
    })
    .map(compact),
  TierAcl: fc.record({
    Name: pick(['TierIn1', 'TierOut1']),
    Direction: pick(['In', 'Out']),
    Order: pick([1001, 2000]),
    TierAclRules: fc.constant([{ Id: 'Rule1', Protocols: '6', TierAclRuleAction: 'Block', Priority: 2001 }]),
  }),
  L4WFPPROXY: fc.record({
    InboundProxyPort: fc.constant('15001'),
    OutboundProxyPort: fc.constant('15006'),
    FilterTuple: fc.constant({ Protocols: '6' }),
  }),
  Iov: fc.record({ IovOffloadWeight: pick([0, 100]), QueuePairsRequested: pick([1, 4]) }),
  L2Driver: fc.constant({}),
  Encryption: fc
    .record({
      EncryptionMethodType: maybe(fc.constant('Ipsec')),
      AuthenticationMethods: fc
        .tuple(fc.boolean(), pick(HNS_ARB.ipsecSecrets))
        .map(([psk, secret]): JsonObject[] => [
          psk
            ? { Type: 'PresharedKey', Settings: { Key: secret } }
            : { Type: 'Certificate', Settings: { CertificateName: secret } },
        ]),
      Endpoints1: maybe(fc.subarray([...HNS_ARB.aclAddresses], { minLength: 1, maxLength: 2 })),
      Endpoints2: maybe(fc.subarray([...HNS_ARB.remoteSubnets], { minLength: 1, maxLength: 2 })),
      ProtocolType: maybe(pick(['6', '17'])),
      Endpoint2Ports: maybe(pick([['80'], ['443', '8080']])),
    })
    .map(compact),
  // network and endpoint
  InterfaceConstraint: pick(['Ethernet', 'vEthernet (nat)']).map((a) => ({ InterfaceAlias: a })),
  // endpoint and subnet
  VLAN: pick(HNS_ARB.vlans).map((IsolationId) => ({ IsolationId })),
  // subnet
  VSID: pick(HNS_ARB.vsids).map((IsolationId) => ({ IsolationId })),
};

/** Policy Types the arbitraries generate in `scope` (any case), for a host/network described by `ctx`. */
export function generatedPolicyTypes(scopeName: PolicyScope | string, ctx: ArbContext = {}): string[] {
  const scope = scopeOf(scopeName);
  return Object.keys(POLICY_SETTINGS).filter((type) => {
    const m = getPolicyModule(type, scope);
    if (!m) return false;
    if (ctx.version && m.feature && !supports(ctx.version, m.feature)) return false;
    if (ctx.networkType && m.unsupportedOn?.types.includes(ctx.networkType)) return false;
    return true;
  });
}

/**
 * A valid `{"Type","Settings"}` policy of one Type (any case: `outboundnat` draws `OutBoundNAT`),
 * whatever host or network it is for; a TypeError for a Type the arbitraries do not generate (the
 * v1-only `VNET` and `Isolation`, unknown ones).
 */
export function policyOfType(type: string): fc.Arbitrary<JsonObject> {
  const Type = Object.keys(POLICY_SETTINGS).find((t) => t.toLowerCase() === String(type).toLowerCase());
  if (!Type) throw new TypeError(`policyOfType: no generator for policy Type ${JSON.stringify(type)}`);
  return POLICY_SETTINGS[Type]!.map((Settings): JsonObject => ({ Type, Settings }));
}

/** A valid `{"Type","Settings"}` policy of `scope` (network, endpoint or subnet; any case). */
export function policy(scope: PolicyScope | string, ctx: ArbContext = {}): fc.Arbitrary<JsonObject> {
  const types = generatedPolicyTypes(scope, ctx);
  return fc.oneof(
    ...types.map((Type) => POLICY_SETTINGS[Type]!.map((Settings): JsonObject => ({ Type, Settings }))),
  );
}

/** Options of `policies()` beyond the host and network they are for. */
export interface PolicyListOptions {
  /**
   * Sometimes (about one list in five, when the scope has PortMapping) add a second PortMapping on
   * a host port the list already maps: half of the time a duplicate (same protocol, external port,
   * VIP and NatFlags IPv6 bit, another internal port), which HNS refuses with
   * HCN_E_PORT_ALREADY_EXISTS; else its IPv6 twin (the IPv6 bit flipped), which HNS accepts unless
   * the list already held that twin. The list may then be one or two longer than `maxLength`. Off
   * by default: valid lists stay valid.
   */
  readonly portClashes?: boolean;
}

/** The host-port claim of a PortMapping's Settings (undefined without an ExternalPort). */
function portClaim(s: JsonObject): string | undefined {
  if (!s.ExternalPort) return undefined;
  const family = ((s.Flags as number | undefined) ?? 0) & 2 ? 'IPv6' : 'IPv4';
  return `${String(s.Protocol)}/${String(s.ExternalPort)}/${String(s.VIP ?? '*')}/${family}`;
}

/**
 * A Policies array: distinct policies, at most one of each single-instance Type and one PortMapping
 * per host port and address family (so the set is valid as a whole, not only each policy) — unless
 * `opts.portClashes` asks for clashing PortMappings now and then.
 */
export function policies(
  scopeName: PolicyScope | string,
  ctx: ArbContext = {},
  maxLength = 3,
  opts: PolicyListOptions = {},
): fc.Arbitrary<JsonObject[]> {
  const scope = scopeOf(scopeName);
  const unique = fc.uniqueArray(policy(scope, ctx), {
    maxLength,
    selector: (p) => {
      const type = p.Type as string;
      if (getPolicyModule(type, scope)?.multiple === false) return type;
      // two PortMappings on one host port and family would claim it twice (HCN_E_PORT_ALREADY_EXISTS)
      const claim = type === 'PortMapping' ? portClaim(p.Settings as JsonObject) : undefined;
      if (claim) return `PortMapping ${claim}`;
      return JSON.stringify(p);
    },
  });
  if (!opts.portClashes || !generatedPolicyTypes(scope, ctx).includes('PortMapping')) return unique;
  const clash = fc.record({
    // a fresh mapping to clash with, used when the list has none with an ExternalPort
    base: POLICY_SETTINGS.PortMapping!.map((Settings) => ({
      ...Settings,
      ExternalPort: (Settings.ExternalPort as number | undefined) ?? HNS_ARB.ports[0],
    })),
    twin: fc.boolean(),
    at: fc.nat(),
  });
  return fc
    .tuple(unique, sometimes(20), clash)
    .map(([list, clashes, { base, twin, at }]) => (clashes ? withPortClash(list, base, twin, at) : list));
}

/**
 * `list` with a PortMapping that shares the host port of one already in it (or of `base`, added
 * first when none has an ExternalPort): a duplicate claim, or with `twin` the IPv6 twin.
 */
function withPortClash(
  list: readonly JsonObject[],
  base: JsonObject,
  twin: boolean,
  at: number,
): JsonObject[] {
  const out = [...list];
  const mapped = out.filter((p) => p.Type === 'PortMapping' && portClaim(p.Settings as JsonObject));
  let s: JsonObject;
  if (mapped.length) s = mapped[at % mapped.length]!.Settings as JsonObject;
  else {
    s = base;
    out.splice(at % (out.length + 1), 0, { Type: 'PortMapping', Settings: s });
  }
  const flags = (s.Flags as number | undefined) ?? 0;
  const internal = HNS_ARB.internalPorts.filter((p) => p !== s.InternalPort);
  const other: JsonObject = {
    ...s,
    // another internal port, so the two are distinct policies that only share the claim
    InternalPort: internal[at % internal.length]!,
    // a duplicate may differ in LocalRoutedVip (value 1), never in the IPv6 bit (value 2)
    Flags: twin ? flags ^ 2 : flags ^ (at % 2),
  };
  out.splice((at >> 1) % (out.length + 1), 0, { Type: 'PortMapping', Settings: other });
  return out;
}

// ───────────────────────────── networks ─────────────────────────────

function subnetDoc(s: ArbSubnet, networkType: NetworkType, ctx: ArbContext): fc.Arbitrary<JsonObject> {
  const v6 = s.prefix.includes(':');
  // hcsshim's overlay tests always give the subnet a VSID (reference §6.14)
  const subnetPolicy: fc.Arbitrary<JsonObject[] | undefined> =
    networkType === 'Overlay'
      ? pick(HNS_ARB.vsids).map((id) => [{ Type: 'VSID', Settings: { IsolationId: id } }])
      : maybe(
          policy('subnet', ctx).map((p) => [p]),
          15,
        );
  return fc
    .record({
      IpAddressPrefix: fc.constant(s.prefix),
      Routes: fc.constant<JsonObject[]>([
        { NextHop: s.gateway, DestinationPrefix: v6 ? '::/0' : '0.0.0.0/0' },
      ]),
      Policies: subnetPolicy,
      Flags: maybe(fc.constant(1), 15),
    })
    .map(compact);
}

/** The Ipams of a network: one Static IPAM with 1–2 IPv4 subnets and, if the host can, an IPv6 one. */
function ipamsDoc(networkType: NetworkType, ctx: ArbContext): fc.Arbitrary<JsonObject[]> {
  const dual = !ctx.version || supports(ctx.version, 'IPv6DualStack');
  const v4 = HNS_ARB.ipv4Subnets.map((s) => subnetDoc(s, networkType, ctx));
  const v6 = HNS_ARB.ipv6Subnets.map((s) => subnetDoc(s, networkType, ctx));
  // draw every candidate subnet, then keep 1–2 IPv4 ones and maybe one IPv6 one
  return fc
    .record({
      v4: fc.tuple(...v4),
      v6: fc.tuple(...v6),
      keep4: fc.subarray(
        v4.map((_, i) => i),
        { minLength: 1, maxLength: 2 },
      ),
      keep6: dual ? maybe(fc.nat(v6.length - 1), 30) : fc.constant(undefined),
    })
    .map(({ v4: a, v6: b, keep4, keep6 }): JsonObject[] => [
      { Type: 'Static', Subnets: [...keep4.map((i) => a[i]!), ...(keep6 === undefined ? [] : [b[keep6]!])] },
    ]);
}

/**
 * A HostComputeNetwork document: a type from HNS_ARB.networkTypes, optional Ipams (always for
 * non-NAT types), VSID subnet policies on Overlay, optional MacPool, Flags, Dns and policies.
 */
export function networkDoc(ctx: Omit<ArbContext, 'networkType'> = {}): fc.Arbitrary<JsonObject> {
  return fc.oneof(
    ...HNS_ARB.networkTypes.map((t) => ({ weight: t.weight, arbitrary: networkDocOfType(t.type, ctx) })),
  );
}

function networkDocOfType(Type: NetworkType, ctx: Omit<ArbContext, 'networkType'>): fc.Arbitrary<JsonObject> {
  const c: ArbContext = { ...ctx, networkType: Type };
  return fc
    .record({
      Name: pick(HNS_ARB.networkNames),
      Type: Type === 'NAT' ? maybe(fc.constant('NAT'), 70) : fc.constant(Type),
      Ipams: Type === 'NAT' ? maybe(ipamsDoc(Type, c), 60) : ipamsDoc(Type, c),
      MacPool: maybe(
        pick(HNS_ARB.macRanges).map((r) => ({
          Ranges: [{ StartMacAddress: r.start, EndMacAddress: r.end }],
        })),
        30,
      ),
      Dns: maybe(
        fc.record({ ServerList: fc.subarray(HNS_ARB.dnsServers.slice(0, 2), { minLength: 1 }) }),
        25,
      ),
      Flags: maybe(
        fc
          .subarray([...HNS_ARB.networkFlags], { minLength: 1, maxLength: 2 })
          .map((fs) => fs.reduce((a, b) => a | b, 0)),
        30,
      ),
      Policies: maybe(policies('network', c, 2), 35),
      SchemaVersion: fc.constant<JsonObject>({ ...HNS_ARB.schemaVersion }),
    })
    .map(compact);
}

// ───────────────────────────── endpoints ─────────────────────────────

export interface EndpointArbOptions extends ArbContext, PolicyListOptions {
  /**
   * Remote endpoints (Flags 1, with a ProviderAddress policy, as kube-proxy creates them):
   * `sometimes` (default, about one in ten), `never` (local endpoints only: what a CNI plugin
   * creates, and what can join a namespace) or `always`.
   */
  readonly remote?: 'sometimes' | 'never' | 'always';
  /** Subnets of the target network: when given, some endpoints ask for an address in one of them. */
  readonly subnets?: readonly string[];
  /** MAC ranges of the target network ({start,end} as HNS writes them). */
  readonly macRanges?: readonly { readonly start: string; readonly end: string }[];
}

/**
 * A HostComputeEndpoint document for `networkId` (put in `HostComputeNetwork` when given).
 * Addresses are requested only inside `opts.subnets`; remote endpoints (Flags 1) carry a
 * ProviderAddress policy as kube-proxy writes them.
 */
export function endpointDoc(networkId?: string, opts: EndpointArbOptions = {}): fc.Arbitrary<JsonObject> {
  const remoteMode = opts.remote ?? 'sometimes';
  if (!['sometimes', 'never', 'always'].includes(remoteMode)) {
    throw new TypeError(
      `endpointDoc: remote must be 'sometimes', 'never' or 'always', not ${JSON.stringify(remoteMode)}`,
    );
  }
  const subnets = opts.subnets ?? [];
  const ipConfigs: fc.Arbitrary<Json | undefined> = subnets.length
    ? maybe(
        fc
          .tuple(
            fc.subarray([...subnets], { minLength: 1, maxLength: Math.min(2, subnets.length) }),
            // hosts .2–.6 exist in every subnet of /29 or larger and miss the usual .1 gateway
            fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 2, maxLength: 2 }),
          )
          .map(([ps, hosts]) => uniqueFamilies(ps.map((p, i) => ({ IpAddress: addressIn(p, hosts[i]!) })))),
        40,
      )
    : fc.constant(undefined);
  const ranges = opts.macRanges ?? HNS_ARB.macRanges;
  const mac = maybe(
    fc
      .tuple(pick(ranges), fc.integer({ min: 0, max: 9 }))
      .map(([r, k]) => formatMac(Math.min(parseMac(r.start)! + k, parseMac(r.end)! + 1))),
    15,
  );
  return fc
    .record({
      remote:
        remoteMode === 'never'
          ? fc.constant(false)
          : remoteMode === 'always'
            ? fc.constant(true)
            : sometimes(10),
      Name: pick(HNS_ARB.endpointNames),
      IpConfigurations: ipConfigs,
      MacAddress: mac,
      Dns: maybe(
        fc.record({
          Search: fc.subarray([...HNS_ARB.dnsSearch], { minLength: 1 }),
          ServerList: fc.subarray([...HNS_ARB.dnsServers].slice(0, 2), { minLength: 1 }),
        }),
        30,
      ),
      Flags: maybe(pick([2, 8]), 15),
      Policies: maybe(policies('endpoint', opts, 3, opts), 55),
    })
    .map(({ remote, Flags, Policies, ...rest }) => {
      const doc = compact({
        ...(networkId ? { HostComputeNetwork: networkId } : {}),
        ...rest,
        Flags: remote ? ((Flags as number | undefined) ?? 0) | 1 : Flags,
        Policies: remote
          ? [
              ...((Policies as JsonObject[] | undefined) ?? []).filter((p) => p.Type !== 'ProviderAddress'),
              { Type: 'ProviderAddress', Settings: { ProviderAddress: HNS_ARB.providerAddresses[0] } },
            ]
          : Policies,
        SchemaVersion: { ...HNS_ARB.schemaVersion },
      });
      return doc;
    });
}

/** At most one IpConfiguration per address family. */
function uniqueFamilies(cs: readonly JsonObject[]): JsonObject[] {
  const seen = new Set<boolean>();
  return cs.filter((c) => {
    const v6 = String(c.IpAddress).includes(':');
    if (seen.has(v6)) return false;
    seen.add(v6);
    return true;
  });
}

// ───────────────────────────── namespaces, LBs, routes ─────────────────────────────

/** A HostComputeNamespace document; with `endpointIds`, some list up to two of them as Resources. */
export function namespaceDoc(endpointIds: readonly string[] = []): fc.Arbitrary<JsonObject> {
  const endpoints = endpointIds.length
    ? maybe(someOf(endpointIds, 2) as fc.Arbitrary<Json>, 30)
    : fc.constant(undefined);
  return fc
    .record({
      Type: maybe(
        fc.oneof(
          ...HNS_ARB.namespaceTypes.map((t) => ({ weight: t.weight, arbitrary: fc.constant(t.type) })),
        ),
        70,
      ),
      containers: maybe(
        fc.subarray([...HNS_ARB.containerIds], { minLength: 1, maxLength: 1 }) as fc.Arbitrary<Json>,
        15,
      ),
      endpoints,
    })
    .map(({ Type, containers, endpoints: eps }) => {
      const Resources: JsonObject[] = [
        ...((containers as string[] | undefined) ?? []).map((id) => ({
          Type: 'Container',
          Data: { ID: id },
        })),
        ...((eps as string[] | undefined) ?? []).map((id) => ({ Type: 'Endpoint', Data: { ID: id } })),
      ];
      return compact({
        Type,
        Resources: Resources.length ? Resources : undefined,
        SchemaVersion: { ...HNS_ARB.schemaVersion },
      });
    });
}

/** A non-empty subset of `ids` (the empty list when `ids` is empty). */
function someOf(ids: readonly string[], max = 3): fc.Arbitrary<string[]> {
  return ids.length
    ? fc.subarray([...ids], { minLength: 1, maxLength: Math.min(max, ids.length) })
    : fc.constant([]);
}

/** A HostComputeLoadBalancer document over a non-empty subset of `endpointIds`. */
export function loadBalancerDoc(
  endpointIds: readonly string[],
  ctx: ArbContext = {},
): fc.Arbitrary<JsonObject> {
  const affinity = !ctx.version || supports(ctx.version, 'SessionAffinity');
  const dsr = !ctx.version || supports(ctx.version, 'DSR');
  const mapping = fc
    .record({
      Protocol: pick([6, 17]),
      InternalPort: pick(HNS_ARB.internalPorts),
      ExternalPort: pick(HNS_ARB.ports),
      DistributionType: affinity ? maybe(pick([1, 2]), 20) : fc.constant(undefined),
      Flags: maybe(pick([1, 8]), 20),
    })
    .map(compact);
  return fc
    .record({
      HostComputeEndpoints: someOf(endpointIds),
      SourceVIP: maybe(pick(HNS_ARB.sourceVips), 40),
      FrontendVIPs: maybe(fc.subarray([...HNS_ARB.vips], { minLength: 1, maxLength: 2 }), 70),
      PortMappings: fc.uniqueArray(mapping, {
        minLength: 1,
        maxLength: 2,
        selector: (m) => `${String(m.Protocol)}/${String(m.ExternalPort)}`,
      }),
      Flags: dsr ? maybe(fc.constant(1), 20) : fc.constant(undefined),
      SchemaVersion: fc.constant<JsonObject>({ ...HNS_ARB.schemaVersion }),
    })
    .map(compact);
}

/** A HostComputeRoute (SDN route) document over a non-empty subset of `endpointIds`. */
export function sdnRouteDoc(endpointIds: readonly string[]): fc.Arbitrary<JsonObject> {
  const setting = fc.record({
    DestinationPrefix: pick(HNS_ARB.remoteSubnets),
    NextHop: pick(HNS_ARB.providerAddresses),
    NeedEncap: fc.boolean(),
  });
  return fc
    .record({
      HostComputeEndpoints: someOf(endpointIds),
      settings: fc.array(setting, { minLength: 1, maxLength: 2 }),
      key: sometimes(20).map((routes) => (routes ? 'Routes' : 'Setting')),
    })
    .map(({ HostComputeEndpoints, settings, key }) => ({
      HostComputeEndpoints,
      [key]: settings,
      SchemaVersion: { ...HNS_ARB.schemaVersion },
    }));
}

// ───────────────────────────── invalid documents ─────────────────────────────

/**
 * Wrong values per field, across every document kind: bad types, out-of-range numbers, malformed
 * addresses, GUIDs, MACs and prefixes, unknown enums and policy types, bad policy settings.
 */
export const BAD_FIELDS: Readonly<Record<string, readonly Json[]>> = {
  ID: ['not-a-guid', 5, '{5f0b1190-63be-4e0c-b974-bd0f55675a42'],
  Name: [5, true, { x: 1 }, ['a']],
  Type: ['Bogus', 7, 'Mirrored2'],
  Flags: [-1, 1.5, 'x', 2 ** 32, 1 << 20],
  SchemaVersion: ['2.0', { Major: -1 }, { Major: 2, Minor: 'x' }],
  Ipams: [
    'x',
    [1],
    [{ Type: 'Magic', Subnets: [] }],
    [{ Subnets: [{ IpAddressPrefix: '10.0.0.0/33' }] }],
    [{ Subnets: [{ IpAddressPrefix: '10.0.0.1/24' }] }],
    [{ Subnets: [{ IpAddressPrefix: '10.0.0.0/24' }, { IpAddressPrefix: '10.0.0.128/25' }] }],
    [
      {
        Subnets: [
          {
            IpAddressPrefix: '10.0.0.0/24',
            Routes: [{ NextHop: '10.0.0.0', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
    [
      {
        Subnets: [
          { IpAddressPrefix: '10.0.0.0/24', Policies: [{ Type: 'VSID', Settings: { IsolationId: 12 } }] },
        ],
      },
    ],
  ],
  MacPool: [
    'x',
    { Ranges: [{ StartMacAddress: '00-15-5D-00-00-10', EndMacAddress: '00-15-5D-00-00-01' }] },
    { Ranges: [{ StartMacAddress: 'zz', EndMacAddress: '00-15-5D-00-00-01' }] },
  ],
  Dns: [5, { ServerList: ['not-an-ip'] }, { Search: 'x' }],
  Policies: [
    5,
    [null],
    [{ Type: 'NoSuchPolicy', Settings: {} }],
    [{ Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 0 } }],
    [{ Type: 'PortMapping', Settings: { Protocol: 1, InternalPort: 80 } }],
    [{ Type: 'ACL', Settings: { Action: 'Maybe', Direction: 'In' } }],
    [{ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/99'] } }],
    [{ Type: 'VxlanPort', Settings: { Port: 0 } }],
    [{ Type: 'HostRoute', Settings: 5 }],
    [
      { Type: 'InterfaceParameters', Settings: { Mtu: 1500 } },
      { Type: 'InterfaceParameters', Settings: { Mtu: 1400 } },
    ],
  ],
  IpConfigurations: [
    'x',
    [{ IpAddress: '999.1.1.1' }],
    [{ IpAddress: '10.0.0.5', PrefixLength: 99 }],
    [{ IpAddress: 5 }],
  ],
  MacAddress: ['zz', 5, '01-00-5E-00-00-01', '00-15-5D-AA-00'],
  Routes: [[{ DestinationPrefix: 'x' }], [{ DestinationPrefix: '0.0.0.0/0', NextHop: 'fd00::1' }]],
  HostComputeNetwork: ['nope', 7],
  HostComputeNamespace: ['nope'],
  Resources: [
    [{ Type: 'Bogus', Data: { ID: 'x' } }],
    [{ Type: 'Endpoint' }],
    [{ Type: 'Endpoint', Data: { ID: 'nope' } }],
  ],
  HostComputeEndpoints: ['x', ['not-a-guid'], [5]],
  SourceVIP: ['1.2.3', 5],
  FrontendVIPs: [['1.2.3'], 'x'],
  PortMappings: [
    [{ Protocol: 1, InternalPort: 80 }],
    [{ Protocol: 6, InternalPort: 0 }],
    [{ Protocol: 6, InternalPort: 80, DistributionType: 9 }],
  ],
  Setting: [[{ DestinationPrefix: 'bad' }], [{ DestinationPrefix: '10.0.0.0/8', NextHop: 'x' }], 'x'],
};

/** The HCN document kinds the arbitraries produce. */
export type DocKind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';
export const DOC_KINDS: readonly DocKind[] = ['Network', 'Endpoint', 'Namespace', 'LoadBalancer', 'SdnRoute'];

/** The BAD_FIELDS keys each document kind reads: a bad value there always makes the document invalid. */
export const DOC_FIELDS: Readonly<Record<DocKind, readonly string[]>> = {
  Network: ['ID', 'Name', 'Type', 'Flags', 'SchemaVersion', 'Ipams', 'MacPool', 'Dns', 'Policies'],
  Endpoint: [
    'ID',
    'Name',
    'Flags',
    'SchemaVersion',
    'Policies',
    'IpConfigurations',
    'MacAddress',
    'Routes',
    'Dns',
    'HostComputeNetwork',
    'HostComputeNamespace',
  ],
  Namespace: ['ID', 'Type', 'SchemaVersion', 'Resources'],
  LoadBalancer: [
    'ID',
    'HostComputeEndpoints',
    'SourceVIP',
    'FrontendVIPs',
    'PortMappings',
    'Flags',
    'SchemaVersion',
  ],
  SdnRoute: ['ID', 'HostComputeEndpoints', 'Setting', 'SchemaVersion'],
};

export interface InvalidDocOptions {
  /**
   * Only documents of this kind (`Network`, `Endpoint`, `Namespace`, `LoadBalancer`, `SdnRoute`, in
   * any case), each broken in a field the kind reads (so always invalid).
   */
  readonly kind?: DocKind | string;
  /** Endpoint IDs the load balancer and route documents name (otherwise a fixed GUID). */
  readonly endpointIds?: readonly string[];
}

const SOME_ENDPOINT = '5F0B1190-63BE-4E0C-B974-BD0F55675A42';

/** A valid document of `kind`, one or two of whose `fields` hold a value from BAD_FIELDS. */
function brokenDoc(base: fc.Arbitrary<JsonObject>, fields: readonly string[]): fc.Arbitrary<JsonObject> {
  const badField = fc.constantFrom(
    ...fields.flatMap((k) => (BAD_FIELDS[k] ?? []).map((v) => [k, v] as const)),
  );
  return fc
    .tuple(base, fc.array(badField, { minLength: 1, maxLength: 2 }))
    .map(([doc, bad]) => ({ ...doc, ...Object.fromEntries(bad) }) as JsonObject);
}

/**
 * A document that is wrong somewhere. With `kind`: a valid document of that kind with one or two
 * of the fields it reads replaced by values from BAD_FIELDS — always refused. Without: mostly a
 * document of any kind with any BAD_FIELDS key replaced, else JSON garbage (objects of random
 * keys, non-objects, JSON text of those, strings that are not JSON); a few of these may still be
 * acceptable (a bad field the kind ignores), so consumers must not assume failure.
 */
export function invalidDoc(opts: InvalidDocOptions = {}): fc.Arbitrary<Json> {
  const eps = opts.endpointIds?.length ? opts.endpointIds : [SOME_ENDPOINT];
  const valid: Record<DocKind, fc.Arbitrary<JsonObject>> = {
    Network: networkDoc(),
    Endpoint: endpointDoc(),
    Namespace: namespaceDoc(),
    LoadBalancer: loadBalancerDoc(eps),
    SdnRoute: sdnRouteDoc(eps),
  };
  if (opts.kind !== undefined) {
    const kind = DOC_KINDS.find((k) => k.toLowerCase() === String(opts.kind).toLowerCase());
    if (!kind) {
      throw new TypeError(
        `invalidDoc: unknown kind ${JSON.stringify(opts.kind)}: use ${DOC_KINDS.join(', ')}`,
      );
    }
    return brokenDoc(valid[kind], DOC_FIELDS[kind]);
  }
  const mutated = brokenDoc(fc.oneof(...Object.values(valid)), Object.keys(BAD_FIELDS));
  return fc.oneof(
    { weight: 6, arbitrary: mutated as fc.Arbitrary<Json> },
    { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> },
    { weight: 1, arbitrary: fc.json() },
    { weight: 1, arbitrary: fc.string().filter((s) => !isJsonText(s)) },
  );
}

function isJsonText(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}
