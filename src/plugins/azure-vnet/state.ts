/**
 * `azure-vnet.json`, azure-vnet's state on the node's disk (ACN v1.8.12 `network/manager.go`,
 * `network/network.go`, `network/endpoint.go`; reference azure-cni.md §1.2): the network manager
 * under the store key `Network` — `CnsClient` (an exported pointer without a tag: `null` for the
 * stateful plugin), `Version` (the release that first wrote the file: restoring overwrites the
 * binary's own), `TimeStamp`, and `ExternalInterfaces{<master>:{Name, Networks{<id>:{Id, HnsId,
 * Mode, VlanId, Subnets, Endpoints{<id>:{…}}, DNS, EnableSnatOnHost, NetNs, SnatBridgeIP}},
 * Subnets, BridgeName, DNSInfo, MacAddress, IPAddresses, Routes, IPv4Gateway, IPv6Gateway}}`.
 * Every struct's exported fields in declaration order, `omitempty` where upstream tags it (a
 * network's `HnsId`; an endpoint's `HnsId`, `HNSNetworkID`, `NetworkNameSpace`, `PODName`,
 * `PODNameSpace`, `InfraVnetAddressSpace`, `NetNs`); `net.IP` as text (`""` for nil), masks and
 * MACs as base64, nil slices and maps as `null`.
 *
 * Fields the Windows plugin never sets are still carried: a value read from the file is written
 * back as it was read (as Go would, through the struct).
 */
import type { FileStore } from '../../core/files.js';
import {
  field,
  goAny,
  goBool,
  goInt,
  GoLaidOut,
  goMap,
  goMarshalAt,
  GoOrdered,
  goPtr,
  goSlice,
  goString,
  goStruct,
  goUnmarshal,
  type GoValue,
} from '../../cni/gojson.js';
import { goMarshalIndent, goQuote, goSortedKeys } from '../../cni/goencode.js';
import { netIPType } from '../../cni/result.js';
import {
  bytesValue,
  goTimeType,
  hardwareAddrType,
  ipMaskType,
  readStore,
  recallState,
  rememberState,
  storeText,
} from './store.js';

/** The manager's key in the state file. */
export const NETWORK_STORE_KEY = 'Network';

/** `net.IPNet`: the address text ('' for nil) and the mask's bytes (undefined for nil). */
export interface IpNet {
  IP: string;
  Mask: number[] | undefined;
}

/** `network.DNSInfo`. */
export interface DnsInfo {
  Suffix: string;
  Servers: string[] | null;
  Options: string[] | null;
}

/** `network.SubnetInfo`. */
export interface SubnetInfo {
  /** `platform.AddressFamily`: 2 (AF_INET) or 10 (AF_INET6). */
  Family: number;
  Prefix: IpNet;
  Gateway: string;
  PrimaryIP: string;
}

/** `network.RouteInfo`. */
export interface RouteInfo {
  Dst: IpNet;
  Src: string;
  Gw: string;
  Protocol: number;
  DevName: string;
  Scope: number;
  Priority: number;
  Table: number;
}

/** `network.endpoint` (the persisted fields). */
export interface EndpointState {
  Id: string;
  HnsId: string;
  HNSNetworkID: string;
  SandboxKey: string;
  IfName: string;
  HostIfName: string;
  MacAddress: number[] | undefined;
  InfraVnetIP: IpNet;
  LocalIP: string;
  IPAddresses: IpNet[] | null;
  Gateways: string[] | null;
  DNS: DnsInfo;
  Routes: RouteInfo[] | null;
  VlanID: number;
  EnableSnatOnHost: boolean;
  EnableInfraVnet: boolean;
  EnableMultitenancy: boolean;
  AllowInboundFromHostToNC: boolean;
  AllowInboundFromNCToHost: boolean;
  NetworkContainerID: string;
  NetworkNameSpace: string;
  ContainerID: string;
  PODName: string;
  PODNameSpace: string;
  InfraVnetAddressSpace: string;
  NetNs: string;
  /** Never set by the plugin: carried as read (JSON text), `null` otherwise. */
  SecondaryInterfaces: string | null;
  NICType: string;
}

/** `network.network` (the persisted fields). */
export interface NetworkState {
  Id: string;
  HnsId: string;
  Mode: string;
  VlanId: number;
  Subnets: SubnetInfo[] | null;
  Endpoints: Map<string, EndpointState> | null;
  DNS: DnsInfo;
  EnableSnatOnHost: boolean;
  NetNs: string;
  SnatBridgeIP: string;
}

/** `network.externalInterface`. */
export interface ExternalInterface {
  Name: string;
  Networks: Map<string, NetworkState> | null;
  Subnets: string[] | null;
  BridgeName: string;
  DNSInfo: DnsInfo;
  MacAddress: number[] | undefined;
  /** Never set on Windows: carried as read (JSON text). */
  IPAddresses: string | null;
  Routes: string | null;
  IPv4Gateway: string;
  IPv6Gateway: string;
}

/** `network.networkManager` as the file holds it. */
export interface NetworkManagerState {
  /** `CnsClient` as read (JSON text); `null` for the stateful plugin. */
  CnsClient: string | null;
  Version: string;
  TimeStamp: string;
  ExternalInterfaces: Map<string, ExternalInterface> | null;
}

const IPNET = goStruct('net.IPNet', [field('IP', netIPType), field('Mask', ipMaskType)]);
const DNS_INFO = goStruct('network.DNSInfo', [
  field('Suffix', goString),
  field('Servers', goSlice(goString)),
  field('Options', goSlice(goString)),
]);
const SUBNET_INFO = goStruct('network.SubnetInfo', [
  field('Family', goInt),
  field('Prefix', IPNET),
  field('Gateway', netIPType),
  field('PrimaryIP', netIPType),
]);
const ROUTE_INFO = goStruct('network.RouteInfo', [
  field('Dst', IPNET),
  field('Src', netIPType),
  field('Gw', netIPType),
  field('Protocol', goInt),
  field('DevName', goString),
  field('Scope', goInt),
  field('Priority', goInt),
  field('Table', goInt),
]);
const STRING_EP_FIELDS = ['Id', 'HnsId', 'HNSNetworkID', 'SandboxKey', 'IfName', 'HostIfName'] as const;
const BOOL_EP_FIELDS = [
  'EnableSnatOnHost',
  'EnableInfraVnet',
  'EnableMultitenancy',
  'AllowInboundFromHostToNC',
  'AllowInboundFromNCToHost',
] as const;
const TAIL_EP_FIELDS = [
  'NetworkContainerID',
  'NetworkNameSpace',
  'ContainerID',
  'PODName',
  'PODNameSpace',
  'InfraVnetAddressSpace',
  'NetNs',
] as const;
/** The endpoint fields tagged `json:",omitempty"`. */
const OMIT_EP = new Set<string>([
  'HnsId',
  'HNSNetworkID',
  'NetworkNameSpace',
  'PODName',
  'PODNameSpace',
  'InfraVnetAddressSpace',
  'NetNs',
]);
const ENDPOINT = goStruct('network.endpoint', [
  ...STRING_EP_FIELDS.map((f) => field(f, goString)),
  field('MacAddress', hardwareAddrType),
  field('InfraVnetIP', IPNET),
  field('LocalIP', goString),
  field('IPAddresses', goSlice(IPNET)),
  field('Gateways', goSlice(netIPType)),
  field('DNS', DNS_INFO),
  field('Routes', goSlice(ROUTE_INFO)),
  field('VlanID', goInt),
  ...BOOL_EP_FIELDS.map((f) => field(f, goBool)),
  ...TAIL_EP_FIELDS.map((f) => field(f, goString)),
  field('SecondaryInterfaces', goAny),
  field('NICType', goString),
]);
const NETWORK = goStruct('network.network', [
  field('Id', goString),
  field('HnsId', goString),
  field('Mode', goString),
  field('VlanId', goInt),
  field('Subnets', goSlice(SUBNET_INFO)),
  field('Endpoints', goMap(goPtr(ENDPOINT))),
  field('DNS', DNS_INFO),
  field('EnableSnatOnHost', goBool),
  field('NetNs', goString),
  field('SnatBridgeIP', goString),
]);
const EXTERNAL_INTERFACE = goStruct('network.externalInterface', [
  field('Name', goString),
  field('Networks', goMap(goPtr(NETWORK))),
  field('Subnets', goSlice(goString)),
  field('BridgeName', goString),
  field('DNSInfo', DNS_INFO),
  field('MacAddress', hardwareAddrType),
  field('IPAddresses', goAny),
  field('Routes', goAny),
  field('IPv4Gateway', netIPType),
  field('IPv6Gateway', netIPType),
]);
const MANAGER = goStruct('network.networkManager', [
  field('CnsClient', goAny),
  field('Version', goString),
  field('TimeStamp', goTimeType),
  field('ExternalInterfaces', goMap(goPtr(EXTERNAL_INTERFACE))),
]);

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const str = (o: Obj, k: string): string => (o[k] as string | undefined) ?? '';
const num = (o: Obj, k: string): number => (o[k] as number | undefined) ?? 0;
const bool = (o: Obj, k: string): boolean => o[k] === true;
const strs = (o: Obj, k: string): string[] | null => (o[k] as string[] | null | undefined) ?? null;
const bytes = (o: Obj, k: string): number[] | undefined => o[k] as number[] | undefined;
/** A field decoded as `interface{}`: its JSON text, null for absent or JSON null. */
const anyText = (o: Obj, k: string): string | null =>
  o[k] === undefined || o[k] === null ? null : JSON.stringify(o[k]);

function mapOf<T>(v: unknown, each: (o: Obj) => T): Map<string, T> | null {
  if (v === undefined || v === null) return null;
  const m = new Map<string, T>();
  for (const [k, e] of Object.entries(obj(v))) m.set(k, each(obj(e)));
  return m;
}

function listOf<T>(v: unknown, each: (o: Obj) => T): T[] | null {
  return Array.isArray(v) ? v.map((e) => each(obj(e))) : null;
}

const ipNetOf = (o: Obj): IpNet => ({ IP: str(o, 'IP'), Mask: bytes(o, 'Mask') });
const dnsOf = (o: Obj): DnsInfo => ({
  Suffix: str(o, 'Suffix'),
  Servers: strs(o, 'Servers'),
  Options: strs(o, 'Options'),
});

function endpointOf(o: Obj): EndpointState {
  const e = {} as Record<string, unknown>;
  for (const f of STRING_EP_FIELDS) e[f] = str(o, f);
  for (const f of BOOL_EP_FIELDS) e[f] = bool(o, f);
  for (const f of TAIL_EP_FIELDS) e[f] = str(o, f);
  const ep = e as unknown as EndpointState;
  ep.MacAddress = bytes(o, 'MacAddress');
  ep.InfraVnetIP = ipNetOf(obj(o['InfraVnetIP']));
  ep.LocalIP = str(o, 'LocalIP');
  ep.IPAddresses = listOf(o['IPAddresses'], ipNetOf);
  ep.Gateways = Array.isArray(o['Gateways'])
    ? (o['Gateways'] as (string | undefined)[]).map((g) => g ?? '')
    : null;
  ep.DNS = dnsOf(obj(o['DNS']));
  ep.Routes = listOf(o['Routes'], (r) => ({
    Dst: ipNetOf(obj(r['Dst'])),
    Src: str(r, 'Src'),
    Gw: str(r, 'Gw'),
    Protocol: num(r, 'Protocol'),
    DevName: str(r, 'DevName'),
    Scope: num(r, 'Scope'),
    Priority: num(r, 'Priority'),
    Table: num(r, 'Table'),
  }));
  ep.VlanID = num(o, 'VlanID');
  ep.SecondaryInterfaces = anyText(o, 'SecondaryInterfaces');
  ep.NICType = str(o, 'NICType');
  return ep;
}

function networkOf(o: Obj): NetworkState {
  return {
    Id: str(o, 'Id'),
    HnsId: str(o, 'HnsId'),
    Mode: str(o, 'Mode'),
    VlanId: num(o, 'VlanId'),
    Subnets: listOf(o['Subnets'], (s) => ({
      Family: num(s, 'Family'),
      Prefix: ipNetOf(obj(s['Prefix'])),
      Gateway: str(s, 'Gateway'),
      PrimaryIP: str(s, 'PrimaryIP'),
    })),
    Endpoints: mapOf(o['Endpoints'], endpointOf),
    DNS: dnsOf(obj(o['DNS'])),
    EnableSnatOnHost: bool(o, 'EnableSnatOnHost'),
    NetNs: str(o, 'NetNs'),
    SnatBridgeIP: str(o, 'SnatBridgeIP'),
  };
}

function externalInterfaceOf(o: Obj): ExternalInterface {
  return {
    Name: str(o, 'Name'),
    Networks: mapOf(o['Networks'], networkOf),
    Subnets: strs(o, 'Subnets'),
    BridgeName: str(o, 'BridgeName'),
    DNSInfo: dnsOf(obj(o['DNSInfo'])),
    MacAddress: bytes(o, 'MacAddress'),
    IPAddresses: anyText(o, 'IPAddresses'),
    Routes: anyText(o, 'Routes'),
    IPv4Gateway: str(o, 'IPv4Gateway'),
    IPv6Gateway: str(o, 'IPv6Gateway'),
  };
}

/** A manager as `NewNetworkManager` makes it: no state. */
export function emptyManager(version: string): NetworkManagerState {
  return {
    CnsClient: null,
    Version: version,
    TimeStamp: '0001-01-01T00:00:00Z',
    ExternalInterfaces: new Map(),
  };
}

/** The file's other keys (written back unchanged) and the manager restored from it. */
export interface LoadedNetworkState {
  readonly others: Map<string, string>;
  readonly nm: NetworkManagerState;
}

/**
 * `nm.restore`: the manager from the file at `path` (a fresh one when there is no file, an empty
 * one, or no `Network` key). Throws GoError for a document Go cannot decode.
 */
export function loadNetworkState(files: FileStore, path: string, version: string): LoadedNetworkState {
  const text = files.read(path);
  const hit = recallState<LoadedNetworkState>(files, path, text);
  if (hit) return { others: new Map(hit.others), nm: copyManager(hit.nm) };
  const loaded = decodeNetworkState(files, path, version);
  if (text !== undefined)
    rememberState(files, path, text, { others: new Map(loaded.others), nm: copyManager(loaded.nm) });
  return loaded;
}

/**
 * A copy of the manager a process may change: what azure-vnet changes — the manager's fields,
 * its maps of interfaces, networks and endpoints, and a network's fields — is copied; the
 * endpoints, subnets and DNS records are shared (the plugin replaces them, never edits them).
 */
export function copyManager(nm: NetworkManagerState): NetworkManagerState {
  const copyNetwork = (nw: NetworkState): NetworkState => ({
    ...nw,
    Endpoints: nw.Endpoints === null ? null : new Map(nw.Endpoints),
  });
  const copyInterface = (x: ExternalInterface): ExternalInterface => ({
    ...x,
    Networks: x.Networks === null ? null : new Map([...x.Networks].map(([k, nw]) => [k, copyNetwork(nw)])),
  });
  return {
    ...nm,
    ExternalInterfaces:
      nm.ExternalInterfaces === null
        ? null
        : new Map([...nm.ExternalInterfaces].map(([k, x]) => [k, copyInterface(x)])),
  };
}

function decodeNetworkState(files: FileStore, path: string, version: string): LoadedNetworkState {
  const { others, raw } = readStore(files, path, NETWORK_STORE_KEY);
  const nm = emptyManager(version);
  if (raw === undefined) return { others, nm };
  const m = obj(goUnmarshal(raw, MANAGER));
  // json.Unmarshal sets only what the document has; a map present in it replaces the fresh one
  if ('CnsClient' in m) nm.CnsClient = anyText(m, 'CnsClient');
  if (m['Version'] !== undefined) nm.Version = str(m, 'Version');
  if (m['TimeStamp'] !== undefined) nm.TimeStamp = str(m, 'TimeStamp');
  if ('ExternalInterfaces' in m) nm.ExternalInterfaces = mapOf(m['ExternalInterfaces'], externalInterfaceOf);
  return { others, nm };
}

const ipNetValue = (n: IpNet): GoValue =>
  new GoOrdered([
    ['IP', n.IP],
    ['Mask', bytesValue(n.Mask)],
  ]);
const dnsValue = (d: DnsInfo): GoValue =>
  new GoOrdered([
    ['Suffix', d.Suffix],
    ['Servers', d.Servers],
    ['Options', d.Options],
  ]);
/** A field decoded as `interface{}` written back: its JSON text, or null. */
const anyValue = (text: string | null): GoValue => (text === null ? null : (JSON.parse(text) as GoValue));

/**
 * An endpoint's text where it was last written, by the endpoint (the plugin never changes an
 * endpoint record; a copy of the manager shares them): the file is written after every change,
 * and most endpoints did not change since the last time.
 */
const endpointTexts = new WeakMap<
  EndpointState,
  { readonly nl: string; readonly indent: string; readonly text: string }
>();

function endpointValue(ep: EndpointState): GoValue {
  return new GoLaidOut((nl, indent) => {
    const hit = endpointTexts.get(ep);
    if (hit !== undefined && hit.nl === nl && hit.indent === indent) return hit.text;
    const text = goMarshalAt(endpointFields(ep), nl, indent);
    endpointTexts.set(ep, { nl, indent, text });
    return text;
  });
}

function endpointFields(ep: EndpointState): GoValue {
  const e: [string, GoValue][] = [];
  const put = (k: string, v: string): void => {
    if (!(OMIT_EP.has(k) && v === '')) e.push([k, v]);
  };
  for (const f of STRING_EP_FIELDS) put(f, ep[f]);
  e.push(['MacAddress', bytesValue(ep.MacAddress)]);
  e.push(['InfraVnetIP', ipNetValue(ep.InfraVnetIP)]);
  e.push(['LocalIP', ep.LocalIP]);
  e.push(['IPAddresses', ep.IPAddresses === null ? null : ep.IPAddresses.map(ipNetValue)]);
  e.push(['Gateways', ep.Gateways]);
  e.push(['DNS', dnsValue(ep.DNS)]);
  e.push([
    'Routes',
    ep.Routes === null
      ? null
      : ep.Routes.map(
          (r) =>
            new GoOrdered([
              ['Dst', ipNetValue(r.Dst)],
              ['Src', r.Src],
              ['Gw', r.Gw],
              ['Protocol', r.Protocol],
              ['DevName', r.DevName],
              ['Scope', r.Scope],
              ['Priority', r.Priority],
              ['Table', r.Table],
            ]),
        ),
  ]);
  e.push(['VlanID', ep.VlanID]);
  for (const f of BOOL_EP_FIELDS) e.push([f, ep[f]]);
  for (const f of TAIL_EP_FIELDS) put(f, ep[f]);
  e.push(['SecondaryInterfaces', anyValue(ep.SecondaryInterfaces)]);
  e.push(['NICType', ep.NICType]);
  return new GoOrdered(e);
}

/**
 * The manager's text as `json.MarshalIndent` lays it out at a position (`nl`: a newline and the
 * indentation so far; `indent`: one level), written out directly: struct fields in declaration
 * order (`HnsId` omitted when empty), maps by their keys' bytes, `net.IPNet` masks and MACs in
 * base64, each endpoint's text reused (`endpointValue`). The file is written after every invocation
 * that changes it (test/plugins/azure-vnet/state-text.prop.test.ts holds this to Go's generic
 * encoding of the structs).
 */
function managerText(nm: NetworkManagerState, nl: string, indent: string): string {
  const i = nl + indent;
  return (
    `{${i}"CnsClient": ${anyJsonText(nm.CnsClient, i, indent)},${i}"Version": ${goQuote(nm.Version)},` +
    `${i}"TimeStamp": ${goQuote(nm.TimeStamp)},` +
    `${i}"ExternalInterfaces": ${mapText(nm.ExternalInterfaces, externalInterfaceText, i, indent)}${nl}}`
  );
}

type Render<T> = (v: T, nl: string, indent: string) => string;

/** A Go map of structs: keys by their bytes; `null` for a nil map. */
function mapText<T>(m: ReadonlyMap<string, T> | null, each: Render<T>, nl: string, indent: string): string {
  if (m === null) return 'null';
  if (m.size === 0) return '{}';
  const i = nl + indent;
  let out = '{';
  let first = true;
  for (const k of goSortedKeys(m.keys())) {
    out += `${first ? '' : ','}${i}${goQuote(k)}: ${each(m.get(k)!, i, indent)}`;
    first = false;
  }
  return `${out}${nl}}`;
}

/** A Go slice: `null` for nil, `[]` for empty. */
function listText<T>(v: readonly T[] | null, each: Render<T>, nl: string, indent: string): string {
  if (v === null) return 'null';
  if (v.length === 0) return '[]';
  const i = nl + indent;
  let out = '[';
  v.forEach((x, n) => (out += `${n > 0 ? ',' : ''}${i}${each(x, i, indent)}`));
  return `${out}${nl}]`;
}

const quoted: Render<string> = (v) => goQuote(v);

/** `[]byte` (a mask, a MAC): base64, `null` for nil. */
function bytesText(b: readonly number[] | undefined): string {
  return b === undefined ? 'null' : `"${Buffer.from(b).toString('base64')}"`;
}

/** A field decoded as `interface{}` written back: its JSON as Go marshals it, or null. */
function anyJsonText(text: string | null, nl: string, indent: string): string {
  return text === null ? 'null' : goMarshalAt(anyValue(text), nl, indent);
}

const ipNetText: Render<IpNet> = (n, nl, indent) =>
  `{${nl}${indent}"IP": ${goQuote(n.IP)},${nl}${indent}"Mask": ${bytesText(n.Mask)}${nl}}`;

const dnsText: Render<DnsInfo> = (d, nl, indent) => {
  const i = nl + indent;
  return (
    `{${i}"Suffix": ${goQuote(d.Suffix)},${i}"Servers": ${listText(d.Servers, quoted, i, indent)},` +
    `${i}"Options": ${listText(d.Options, quoted, i, indent)}${nl}}`
  );
};

const subnetText: Render<SubnetInfo> = (s, nl, indent) => {
  const i = nl + indent;
  return (
    `{${i}"Family": ${String(s.Family)},${i}"Prefix": ${ipNetText(s.Prefix, i, indent)},` +
    `${i}"Gateway": ${goQuote(s.Gateway)},${i}"PrimaryIP": ${goQuote(s.PrimaryIP)}${nl}}`
  );
};

const endpointText: Render<EndpointState> = (ep, nl, indent) => goMarshalAt(endpointValue(ep), nl, indent);

const networkText: Render<NetworkState> = (nw, nl, indent) => {
  const i = nl + indent;
  return (
    `{${i}"Id": ${goQuote(nw.Id)},` +
    (nw.HnsId !== '' ? `${i}"HnsId": ${goQuote(nw.HnsId)},` : '') +
    `${i}"Mode": ${goQuote(nw.Mode)},${i}"VlanId": ${String(nw.VlanId)},` +
    `${i}"Subnets": ${listText(nw.Subnets, subnetText, i, indent)},` +
    `${i}"Endpoints": ${mapText(nw.Endpoints, endpointText, i, indent)},` +
    `${i}"DNS": ${dnsText(nw.DNS, i, indent)},${i}"EnableSnatOnHost": ${String(nw.EnableSnatOnHost)},` +
    `${i}"NetNs": ${goQuote(nw.NetNs)},${i}"SnatBridgeIP": ${goQuote(nw.SnatBridgeIP)}${nl}}`
  );
};

const externalInterfaceText: Render<ExternalInterface> = (x, nl, indent) => {
  const i = nl + indent;
  return (
    `{${i}"Name": ${goQuote(x.Name)},${i}"Networks": ${mapText(x.Networks, networkText, i, indent)},` +
    `${i}"Subnets": ${listText(x.Subnets, quoted, i, indent)},${i}"BridgeName": ${goQuote(x.BridgeName)},` +
    `${i}"DNSInfo": ${dnsText(x.DNSInfo, i, indent)},${i}"MacAddress": ${bytesText(x.MacAddress)},` +
    `${i}"IPAddresses": ${anyJsonText(x.IPAddresses, i, indent)},${i}"Routes": ${anyJsonText(x.Routes, i, indent)},` +
    `${i}"IPv4Gateway": ${goQuote(x.IPv4Gateway)},${i}"IPv6Gateway": ${goQuote(x.IPv6Gateway)}${nl}}`
  );
};

/**
 * Write the state file and remember what it decodes to (`rememberState`): `nm` itself, which the
 * caller must not change afterwards (a process writes at its end).
 */
export function saveNetworkState(
  files: FileStore,
  path: string,
  nm: NetworkManagerState,
  others: ReadonlyMap<string, string>,
): void {
  const text = networkStateText(nm, others);
  files.write(path, text);
  rememberState(files, path, text, { others: new Map(others), nm });
}

/** `jsonFileStore.Write(Network, nm)`: the whole file's text. */
export function networkStateText(nm: NetworkManagerState, others: ReadonlyMap<string, string>): string {
  return storeText(others, NETWORK_STORE_KEY, new GoLaidOut((nl, indent) => managerText(nm, nl, indent)));
}

/**
 * `GET_ENDPOINT_STATE` (ACN `cni/network/plugin/main.go`, `NetPlugin.GetAllEndpointState`,
 * `cni/api/api.go`): `api.AzureCNIState{ContainerInterfaces}` of network `networkId`, each
 * endpoint by its ID as `{PodName, PodNamespace, PodEndpointId, ContainerID, IPAddresses}`, in
 * `json.MarshalIndent(…, "", "    ")` with no newline after it. A manager with no external
 * interface prints an empty map (`store.ErrStoreEmpty` is only logged); undefined when the network
 * is not recorded (upstream's error: nothing printed, exit 1).
 */
export function endpointStateText(nm: NetworkManagerState, networkId: string): string | undefined {
  const interfaces: Record<string, GoValue> = {};
  const all = nm.ExternalInterfaces;
  if (all !== null && all.size > 0) {
    let nw: NetworkState | undefined;
    for (const extIf of all.values()) nw ??= extIf.Networks?.get(networkId);
    if (!nw) return undefined;
    for (const [id, ep] of nw.Endpoints ?? []) {
      interfaces[id] = new GoOrdered([
        ['PodName', ep.PODName],
        ['PodNamespace', ep.PODNameSpace],
        ['PodEndpointId', ep.Id],
        ['ContainerID', ep.ContainerID],
        ['IPAddresses', ep.IPAddresses === null ? null : ep.IPAddresses.map(ipNetValue)],
      ]);
    }
  }
  return goMarshalIndent(new GoOrdered([['ContainerInterfaces', interfaces]]));
}
