// azure-vnet.json is written by a direct layout of the manager (src/plugins/azure-vnet/state.ts
// networkStateText); this property holds it to Go's generic encoding of the same structs:
// `json.MarshalIndent` of `{"Network": networkManager}` with a tab (ACN v1.8.12 network/manager.go
// networkManager, network/network.go network and externalInterface, network/endpoint.go endpoint:
// exported fields in declaration order, `json:",omitempty"` strings left out when empty, maps by
// their keys' bytes, []byte in base64, nil slices and maps null), written here from those
// declarations with the generic encoder.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GoOrdered, goMarshalIndent, type GoValue } from '../../../src/cni/gojson.js';
import {
  networkStateText,
  type DnsInfo,
  type EndpointState,
  type ExternalInterface,
  type IpNet,
  type NetworkManagerState,
  type NetworkState,
} from '../../../src/plugins/azure-vnet/state.js';
import { runs } from '../../runs.js';

const b64 = (b: readonly number[] | undefined): GoValue =>
  b === undefined ? null : Buffer.from(b).toString('base64');
const ipNet = (n: IpNet): GoValue =>
  new GoOrdered([
    ['IP', n.IP],
    ['Mask', b64(n.Mask)],
  ]);
const dns = (d: DnsInfo): GoValue =>
  new GoOrdered([
    ['Suffix', d.Suffix],
    ['Servers', d.Servers],
    ['Options', d.Options],
  ]);
const raw = (text: string | null): GoValue => (text === null ? null : (JSON.parse(text) as GoValue));
function map<T>(m: ReadonlyMap<string, T> | null, each: (v: T) => GoValue): GoValue {
  if (m === null) return null;
  const o: Record<string, GoValue> = {};
  for (const [k, v] of m) o[k] = each(v);
  return o;
}
const omitEmpty = (k: string, v: string): [string, GoValue][] => (v === '' ? [] : [[k, v]]);

function endpoint(e: EndpointState): GoValue {
  return new GoOrdered([
    ['Id', e.Id],
    ...omitEmpty('HnsId', e.HnsId),
    ...omitEmpty('HNSNetworkID', e.HNSNetworkID),
    ['SandboxKey', e.SandboxKey],
    ['IfName', e.IfName],
    ['HostIfName', e.HostIfName],
    ['MacAddress', b64(e.MacAddress)],
    ['InfraVnetIP', ipNet(e.InfraVnetIP)],
    ['LocalIP', e.LocalIP],
    ['IPAddresses', e.IPAddresses === null ? null : e.IPAddresses.map(ipNet)],
    ['Gateways', e.Gateways],
    ['DNS', dns(e.DNS)],
    ['Routes', null],
    ['VlanID', e.VlanID],
    ['EnableSnatOnHost', e.EnableSnatOnHost],
    ['EnableInfraVnet', e.EnableInfraVnet],
    ['EnableMultitenancy', e.EnableMultitenancy],
    ['AllowInboundFromHostToNC', e.AllowInboundFromHostToNC],
    ['AllowInboundFromNCToHost', e.AllowInboundFromNCToHost],
    ['NetworkContainerID', e.NetworkContainerID],
    ...omitEmpty('NetworkNameSpace', e.NetworkNameSpace),
    ['ContainerID', e.ContainerID],
    ...omitEmpty('PODName', e.PODName),
    ...omitEmpty('PODNameSpace', e.PODNameSpace),
    ...omitEmpty('InfraVnetAddressSpace', e.InfraVnetAddressSpace),
    ...omitEmpty('NetNs', e.NetNs),
    ['SecondaryInterfaces', raw(e.SecondaryInterfaces)],
    ['NICType', e.NICType],
  ]);
}

function network(n: NetworkState): GoValue {
  return new GoOrdered([
    ['Id', n.Id],
    ...omitEmpty('HnsId', n.HnsId),
    ['Mode', n.Mode],
    ['VlanId', n.VlanId],
    [
      'Subnets',
      n.Subnets === null
        ? null
        : n.Subnets.map(
            (s) =>
              new GoOrdered([
                ['Family', s.Family],
                ['Prefix', ipNet(s.Prefix)],
                ['Gateway', s.Gateway],
                ['PrimaryIP', s.PrimaryIP],
              ]),
          ),
    ],
    ['Endpoints', map(n.Endpoints, endpoint)],
    ['DNS', dns(n.DNS)],
    ['EnableSnatOnHost', n.EnableSnatOnHost],
    ['NetNs', n.NetNs],
    ['SnatBridgeIP', n.SnatBridgeIP],
  ]);
}

function externalInterface(x: ExternalInterface): GoValue {
  return new GoOrdered([
    ['Name', x.Name],
    ['Networks', map(x.Networks, network)],
    ['Subnets', x.Subnets],
    ['BridgeName', x.BridgeName],
    ['DNSInfo', dns(x.DNSInfo)],
    ['MacAddress', b64(x.MacAddress)],
    ['IPAddresses', raw(x.IPAddresses)],
    ['Routes', raw(x.Routes)],
    ['IPv4Gateway', x.IPv4Gateway],
    ['IPv6Gateway', x.IPv6Gateway],
  ]);
}

const text = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    '0',
    '.',
    ':',
    ' ',
    '"',
    '\\',
    '<',
    '&',
    'é',
    '\u2028',
    '\n',
    '\ud83d\ude00',
  ),
  maxLength: 5,
});
const strs = fc.option(fc.array(text, { maxLength: 3 }), { nil: null });
const bytes = fc.option(fc.array(fc.nat(255), { maxLength: 6 }), { nil: undefined });
const ipNetArb = fc.record({ IP: text, Mask: bytes });
const dnsArb = fc.record({ Suffix: text, Servers: strs, Options: strs });
const rawJson = fc.option(fc.constantFrom('{"b":1,"a":[1,"x"]}', '[]', '"s"', '{"z":{"y":null}}'), {
  nil: null,
});
const keyed = <T>(v: fc.Arbitrary<T>) =>
  fc.option(
    fc.uniqueArray(fc.tuple(text, v), { maxLength: 2, selector: ([k]) => k }).map((es) => new Map(es)),
    { nil: null },
  );

const endpointArb: fc.Arbitrary<EndpointState> = fc.record({
  Id: text,
  HnsId: text,
  HNSNetworkID: text,
  SandboxKey: text,
  IfName: text,
  HostIfName: text,
  MacAddress: bytes,
  InfraVnetIP: ipNetArb,
  LocalIP: text,
  IPAddresses: fc.option(fc.array(ipNetArb, { maxLength: 2 }), { nil: null }),
  Gateways: strs,
  DNS: dnsArb,
  Routes: fc.constant(null),
  VlanID: fc.nat(4094),
  EnableSnatOnHost: fc.boolean(),
  EnableInfraVnet: fc.boolean(),
  EnableMultitenancy: fc.boolean(),
  AllowInboundFromHostToNC: fc.boolean(),
  AllowInboundFromNCToHost: fc.boolean(),
  NetworkContainerID: text,
  NetworkNameSpace: text,
  ContainerID: text,
  PODName: text,
  PODNameSpace: text,
  InfraVnetAddressSpace: text,
  NetNs: text,
  SecondaryInterfaces: rawJson,
  NICType: text,
});
const networkArb: fc.Arbitrary<NetworkState> = fc.record({
  Id: text,
  HnsId: text,
  Mode: text,
  VlanId: fc.nat(4094),
  Subnets: fc.option(
    fc.array(
      fc.record({ Family: fc.constantFrom(2, 10), Prefix: ipNetArb, Gateway: text, PrimaryIP: text }),
      {
        maxLength: 2,
      },
    ),
    { nil: null },
  ),
  Endpoints: keyed(endpointArb),
  DNS: dnsArb,
  EnableSnatOnHost: fc.boolean(),
  NetNs: text,
  SnatBridgeIP: text,
});
const interfaceArb: fc.Arbitrary<ExternalInterface> = fc.record({
  Name: text,
  Networks: keyed(networkArb),
  Subnets: strs,
  BridgeName: text,
  DNSInfo: dnsArb,
  MacAddress: bytes,
  IPAddresses: rawJson,
  Routes: rawJson,
  IPv4Gateway: text,
  IPv6Gateway: text,
});
const managerArb: fc.Arbitrary<NetworkManagerState> = fc.record({
  CnsClient: rawJson,
  Version: text,
  TimeStamp: fc.constantFrom('2026-12-02T11:00:00Z', '0001-01-01T00:00:00Z'),
  ExternalInterfaces: keyed(interfaceArb),
});

describe('azure-vnet.json layout', () => {
  it("is byte for byte Go's MarshalIndent of the structs", () => {
    fc.assert(
      fc.property(managerArb, (nm) => {
        const generic = new GoOrdered([
          ['CnsClient', raw(nm.CnsClient)],
          ['Version', nm.Version],
          ['TimeStamp', nm.TimeStamp],
          ['ExternalInterfaces', map(nm.ExternalInterfaces, externalInterface)],
        ]);
        expect(networkStateText(nm, new Map())).toBe(goMarshalIndent({ Network: generic }, '\t'));
      }),
      { numRuns: runs(200) },
    );
  });
});
