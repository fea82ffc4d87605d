/**
 * HCS documents (reference hns-hcs.md §7.1, hcs-lifecycle.md §3–§4): the compute-system create
 * document in schema 2 (`ComputeSystem {Owner, SchemaVersion, Container | VirtualMachine |
 * HostingSystemId + HostedSystem, ShouldTerminateOnLastHandleClosed}`) and schema 1 (vmcompute's
 * `ContainerConfig {SystemType, Name, Owner, HvPartition, EndpointList, AllowUnqualifiedDNSQuery,
 * DNSSearchList, NetworkSharedContainerName, …}`), modify requests of both schemas, and property
 * and enumeration queries. Only the networking parts are interpreted; the rest (storage, memory,
 * processors, mapped directories, …) must be objects where the schema has objects and is kept as
 * given. A malformed document is HCS_E_INVALID_JSON.
 *
 *   parseCreate({ SchemaVersion: { Major: 2, Minor: 1 }, Owner: 'test',
 *                 Container: { Networking: { Namespace: '<guid>' } } })
 */
import { parseGuid } from '../core/guid.js';
import { isJsonObject, Reader, type Json, type JsonObject } from '../core/json.js';
import type { Isolation, NetworkingRec, NicRec, SystemType } from './model.js';

const CODE = 'HCS_E_INVALID_JSON';

export interface CreateDraft {
  readonly schema: 1 | 2;
  readonly name: string;
  readonly owner: string;
  readonly systemType: SystemType;
  readonly isolation: Isolation;
  readonly hostingSystemId?: string;
  readonly networking: NetworkingRec;
  readonly terminateOnLastHandleClosed: boolean;
  /** NICs a VirtualMachine document brings at create (`Devices.NetworkAdapters`). */
  readonly nics: readonly NicRec[];
}

function guidOf(r: Reader, key: string, text: string): string {
  const g = parseGuid(text);
  if (!g) r.fail(`${key} "${text}" is not a GUID`);
  return g;
}

/** `v` as `allowed` spells it, matched without regard to case (HCS reads its enum strings so). */
function spelled<T extends string>(allowed: readonly T[], v: string): T | undefined {
  const lower = v.toLowerCase();
  return allowed.find((a) => a.toLowerCase() === lower);
}

function searchList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Object-typed parts that are kept but not simulated: they must at least be objects. */
function checkObjects(r: Reader, keys: readonly string[]): void {
  for (const k of keys) if (r.has(k) && !isJsonObject(r.raw(k))) r.fail(`${k} must be an object`);
}

const NO_NETWORKING: NetworkingRec = Object.freeze({
  allowUnqualifiedDnsQuery: false,
  dnsSearchList: Object.freeze([]) as readonly string[],
  endpointList: Object.freeze([]) as readonly string[],
  networkAdapters: Object.freeze([]) as readonly string[],
});

function schema2Networking(r: Reader): NetworkingRec {
  if (!r.has('Networking')) return NO_NETWORKING;
  const n = Reader.of(r.raw('Networking'), CODE, `${r.path}.Networking`);
  const ns = n.optStr('Namespace');
  const shared = n.optStr('NetworkSharedContainerName');
  const search = n.optStr('DnsSearchList');
  const adapters = n.has('NetworkAdapters') ? n.strs('NetworkAdapters') : undefined;
  const out: { -readonly [K in keyof NetworkingRec]: NetworkingRec[K] } = {
    allowUnqualifiedDnsQuery: n.optBool('AllowUnqualifiedDnsQuery') ?? false,
    dnsSearchList: search ? searchList(search) : NO_NETWORKING.dnsSearchList,
    endpointList: NO_NETWORKING.endpointList,
    networkAdapters: adapters
      ? adapters.map((a, i) => guidOf(n, `NetworkAdapters[${i}]`, a))
      : NO_NETWORKING.networkAdapters,
  };
  if (ns) out.namespace = guidOf(n, 'Namespace', ns);
  if (shared) out.sharedContainerName = shared;
  return out;
}

function containerPart(r: Reader): { isolation: Isolation; networking: NetworkingRec } {
  checkObjects(r, [
    'Storage',
    'Memory',
    'Processor',
    'HvSocket',
    'ContainerCredentialGuard',
    'RegistryChanges',
  ]);
  for (const k of ['MappedDirectories', 'MappedPipes', 'AssignedDevices'])
    if (r.has(k) && !Array.isArray(r.raw(k))) r.fail(`${k} must be an array`);
  const iso = r.optStr('IsolationType');
  return { isolation: iso === 'HostProcess' ? 'HostProcess' : 'Process', networking: schema2Networking(r) };
}

function vmNics(r: Reader): NicRec[] {
  if (!r.has('Devices')) return [];
  const d = Reader.of(r.raw('Devices'), CODE, `${r.path}.Devices`);
  if (!d.has('NetworkAdapters')) return [];
  const raw = d.raw('NetworkAdapters');
  if (!isJsonObject(raw)) throw d.err('NetworkAdapters must be an object (NIC ID → adapter)');
  return Object.entries(raw).map(([nic, v]) => {
    const a = Reader.of(v, CODE, `${d.path}.NetworkAdapters.${nic}`);
    return {
      nicId: guidOf(d, 'NetworkAdapters key', nic),
      endpointId: guidOf(a, 'EndpointId', a.str('EndpointId')),
      macAddress: a.optStr('MacAddress') ?? '',
    };
  });
}

/** Schema 1: `ContainerConfig` (vmcompute), recognised by its `SystemType`. */
function parseV1(r: Reader): CreateDraft {
  const t = r.str('SystemType');
  const systemType = spelled<SystemType>(['Container', 'VirtualMachine'], t);
  if (!systemType) r.fail(`SystemType "${t}" is not Container or VirtualMachine`);
  const hv = r.optBool('HvPartition') ?? false;
  const shared = r.optStr('NetworkSharedContainerName');
  checkObjects(r, ['HvRuntime']);
  return {
    schema: 1,
    name: r.optStr('Name') ?? '',
    owner: r.optStr('Owner') ?? '',
    systemType,
    isolation: systemType === 'VirtualMachine' ? 'VirtualMachine' : hv ? 'HyperV' : 'Process',
    networking: {
      allowUnqualifiedDnsQuery: r.optBool('AllowUnqualifiedDNSQuery') ?? false,
      dnsSearchList: searchList(r.optStr('DNSSearchList')),
      ...(shared ? { sharedContainerName: shared } : {}),
      endpointList: r.strs('EndpointList').map((e, i) => guidOf(r, `EndpointList[${i}]`, e)),
      networkAdapters: [],
    },
    terminateOnLastHandleClosed: r.optBool('TerminateOnLastHandleClosed') ?? false,
    nics: [],
  };
}

/** Parse a create document (either schema). */
export function parseCreate(doc: JsonObject): CreateDraft {
  const r = new Reader(doc, CODE, '$');
  if (r.has('SystemType') && !r.has('Container') && !r.has('VirtualMachine') && !r.has('HostedSystem'))
    return parseV1(r);
  if (r.has('SchemaVersion')) {
    const sv = Reader.of(r.raw('SchemaVersion'), CODE, '$.SchemaVersion');
    const major = sv.uint('Major', 0xffff);
    sv.uint('Minor', 0xffff);
    if (major !== 2)
      sv.fail(`Major ${major}: a compute system document is schema 2 (or a schema 1 ContainerConfig)`);
  }
  const parts = ['Container', 'VirtualMachine', 'HostedSystem'].filter((k) => r.has(k));
  if (parts.length !== 1)
    r.fail(`exactly one of Container, VirtualMachine and HostedSystem is needed, got ${parts.length}`);
  const owner = r.optStr('Owner') ?? '';
  const name = r.optStr('Name') ?? '';
  const terminateOnLastHandleClosed = r.optBool('ShouldTerminateOnLastHandleClosed') ?? false;
  if (parts[0] === 'Container') {
    if (r.has('HostingSystemId')) r.fail('HostingSystemId goes with HostedSystem');
    const c = containerPart(Reader.of(r.raw('Container'), CODE, '$.Container'));
    return { schema: 2, name, owner, systemType: 'Container', ...c, terminateOnLastHandleClosed, nics: [] };
  }
  if (parts[0] === 'VirtualMachine') {
    const vm = Reader.of(r.raw('VirtualMachine'), CODE, '$.VirtualMachine');
    checkObjects(vm, [
      'Chipset',
      'ComputeTopology',
      'Devices',
      'GuestState',
      'RestoreState',
      'GuestConnection',
    ]);
    return {
      schema: 2,
      name,
      owner,
      systemType: 'VirtualMachine',
      isolation: 'VirtualMachine',
      networking: NO_NETWORKING,
      terminateOnLastHandleClosed,
      nics: vmNics(vm),
    };
  }
  const host = r.optStr('HostingSystemId');
  if (!host) r.fail('HostedSystem needs HostingSystemId');
  const hosted = Reader.of(r.raw('HostedSystem'), CODE, '$.HostedSystem');
  if (!hosted.has('Container')) hosted.fail('Container is required');
  const c = containerPart(Reader.of(hosted.raw('Container'), CODE, '$.HostedSystem.Container'));
  return {
    schema: 2,
    name,
    owner,
    systemType: 'Container',
    isolation: 'Hosted',
    hostingSystemId: host,
    networking: c.networking,
    terminateOnLastHandleClosed,
    nics: [],
  };
}

// ───────────────────────────── modify ─────────────────────────────

export type ModifyRequest =
  | V1NetworkRequest
  | NicRequest
  | { readonly kind: 'guest'; readonly guest: GuestRequest }
  | { readonly kind: 'other'; readonly resource: string };

/** The v1 hot-attach: `{ResourceType:"Network",RequestType,Settings:"<endpoint>"}`. */
export interface V1NetworkRequest {
  readonly kind: 'v1Network';
  readonly requestType: 'Add' | 'Remove';
  readonly endpointId: string;
}

/** A utility VM's NIC request (`VirtualMachine/Devices/NetworkAdapters/<nic>`). */
export interface NicRequest {
  readonly kind: 'nic';
  readonly requestType: 'Add' | 'Remove' | 'Update';
  readonly nicId: string;
  readonly endpointId?: string;
  readonly macAddress?: string;
  readonly guest?: GuestRequest;
}

export type GuestRequest =
  | { readonly kind: 'namespace'; readonly requestType: 'Add' | 'Remove'; readonly namespaceId: string }
  | {
      readonly kind: 'adapter';
      readonly requestType: 'PreAdd' | 'Add' | 'Remove';
      readonly adapterId: string;
    };

const NIC_PATH = /^VirtualMachine\/Devices\/NetworkAdapters\/(.+)$/i;

function requestTypeOf<T extends string>(r: Reader, key: string, allowed: readonly T[]): T {
  const v = r.str(key);
  const found = spelled(allowed, v);
  if (!found) r.fail(`${key} "${v}" is not ${allowed.join(', ')}`);
  return found;
}

function parseGuest(v: Json | undefined, path: string): GuestRequest {
  const g = Reader.of(v, CODE, path);
  const outer = requestTypeOf(g, 'RequestType', ['Add', 'Remove', 'Update'] as const);
  // the legacy WCOW guest remove omits ResourceType (hcs-lifecycle.md §5): an adapter request
  const rt = g.optStr('ResourceType') ?? 'Network';
  const resource = spelled(['Network', 'NetworkNamespace'] as const, rt);
  if (!resource) g.fail(`guest ResourceType "${rt}" is not Network or NetworkNamespace`);
  const s = Reader.of(g.raw('Settings'), CODE, `${path}.Settings`);
  if (resource === 'NetworkNamespace') {
    const id = s.optStr('Id') ?? s.optStr('ID') ?? '';
    if (outer === 'Update') throw g.err('a network namespace is added or removed, not updated');
    return { kind: 'namespace', requestType: outer, namespaceId: guidOf(s, 'Id', id) };
  }
  const inner: 'PreAdd' | 'Add' | 'Remove' | 'Update' = s.has('RequestType')
    ? requestTypeOf(s, 'RequestType', ['PreAdd', 'Add', 'Remove'] as const)
    : outer;
  if (inner === 'Update') throw s.err('a guest adapter is pre-added, added or removed');
  const adapter = s.optStr('AdapterId') ?? s.optStr('AdapterInstanceId') ?? s.optStr('ID') ?? '';
  return { kind: 'adapter', requestType: inner, adapterId: guidOf(s, 'AdapterId', adapter) };
}

/** A request on `VirtualMachine/Devices/NetworkAdapters/<nic>` (with the guest's part, if any). */
function nicRequest(r: Reader, nic: string): NicRequest {
  const requestType = requestTypeOf(r, 'RequestType', ['Add', 'Remove', 'Update'] as const);
  const nicId = guidOf(r, 'ResourcePath', nic);
  const s = r.has('Settings') ? Reader.of(r.raw('Settings'), CODE, '$.Settings') : undefined;
  const ep = s?.optStr('EndpointId');
  if (requestType === 'Add' && !ep) r.fail('Settings.EndpointId is required to add a network adapter');
  const mac = s?.optStr('MacAddress');
  const guest = r.has('GuestRequest') ? parseGuest(r.raw('GuestRequest'), '$.GuestRequest') : undefined;
  return {
    kind: 'nic',
    requestType,
    nicId,
    ...(ep ? { endpointId: guidOf(s!, 'EndpointId', ep) } : {}),
    ...(mac !== undefined ? { macAddress: mac } : {}),
    ...(guest ? { guest } : {}),
  };
}

/** Parse a modify request of either schema. */
export function parseModify(doc: JsonObject): ModifyRequest {
  const r = new Reader(doc, CODE, '$');
  const path = r.optStr('ResourcePath');
  if (path !== undefined) {
    const m = NIC_PATH.exec(path);
    if (m) return nicRequest(r, m[1]!);
    // an empty ResourcePath beside a GuestRequest is a guest request alone
    if (path !== '' || !r.has('GuestRequest')) return { kind: 'other', resource: path };
  }
  if (r.has('GuestRequest'))
    return { kind: 'guest', guest: parseGuest(r.raw('GuestRequest'), '$.GuestRequest') };
  const rt = r.optStr('ResourceType');
  if (rt !== undefined) {
    if (rt.toLowerCase() !== 'network') return { kind: 'other', resource: rt };
    const requestType = requestTypeOf(r, 'RequestType', ['Add', 'Remove'] as const);
    // hcsshim sends the endpoint ID as the Settings string
    const s = r.raw('Settings');
    const text =
      typeof s === 'string'
        ? s
        : isJsonObject(s) && typeof s['EndpointId'] === 'string'
          ? s['EndpointId']
          : '';
    return { kind: 'v1Network', requestType, endpointId: guidOf(r, 'Settings', text) };
  }
  throw r.err(
    'a modify request needs a ResourcePath (schema 2), a ResourceType (schema 1) or a GuestRequest',
  );
}

// ───────────────────────────── queries ─────────────────────────────

const PROPERTY_TYPES = [
  'Memory',
  'Statistics',
  'ProcessList',
  'TerminateOnLastHandleClosed',
  'SharedMemoryRegion',
  'GuestConnection',
  'MappedVirtualDisk',
] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export function parsePropertyQuery(doc: JsonObject): readonly PropertyType[] {
  const r = new Reader(doc, CODE, '$');
  return r.strs('PropertyTypes').map((t) => {
    const found = spelled(PROPERTY_TYPES, t);
    if (!found) throw r.err(`PropertyTypes "${t}" is not one of ${PROPERTY_TYPES.join(', ')}`);
    return found;
  });
}

export interface SystemQuery {
  readonly ids: readonly string[];
  readonly names: readonly string[];
  readonly types: readonly string[];
  readonly owners: readonly string[];
}

export function parseSystemQuery(doc: JsonObject): SystemQuery {
  const r = new Reader(doc, CODE, '$');
  return { ids: r.strs('Ids'), names: r.strs('Names'), types: r.strs('Types'), owners: r.strs('Owners') };
}
