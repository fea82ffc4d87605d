/**
 * Pieces of hcsshim's `hcn/hcn.go` and `hcnglobals.go` shared by every resource (reference
 * hns-hcs.md §0.2, §0.4): the query document (`Filter` is a JSON string), the schema version, and
 * the read-only `Health` block.
 */
import type { Json } from '../../core/json.js';
import { goJson, marshal, type Spec } from './marshal.js';

/** HCN service version, also the object schema version (`{"Major","Minor"}`). */
export interface Version {
  Major: number;
  Minor: number;
}
export type SchemaVersion = Version;

export const VERSION_SPEC: Spec = [
  ['Major', 'numReq'],
  ['Minor', 'numReq'],
];

/** `{Major:2, Minor:0}`, what hcsshim stamps on the documents it builds. */
export function v2SchemaVersion(): SchemaVersion {
  return { Major: 2, Minor: 0 };
}

export const HostComputeQueryFlags = { None: 0, Detailed: 1 } as const;
export type HostComputeQueryFlags = (typeof HostComputeQueryFlags)[keyof typeof HostComputeQueryFlags];

/** A query: `Filter` holds a JSON-encoded object of property equalities. */
export interface HostComputeQuery {
  SchemaVersion: SchemaVersion;
  Flags?: number;
  Filter?: string;
}

const QUERY_SPEC: Spec = [
  ['SchemaVersion', { obj: VERSION_SPEC }],
  ['Flags', 'num'],
  ['Filter', 'str'],
];

/** Schema 2.0, no flags, no filter. */
export function defaultQuery(): HostComputeQuery {
  return { SchemaVersion: { Major: 2, Minor: 0 }, Flags: HostComputeQueryFlags.None };
}

/** A default query filtered on one property (hcsshim marshals a `map[string]string`). */
export function filterQuery(key: string, value: string): HostComputeQuery {
  // the text goJson({ [key]: value }) gives, without building the one-key object
  const filter =
    typeof value === 'string' ? `{${goJson(key)}:${goJson(value)}}` : goJson({ [key]: value as unknown });
  return { SchemaVersion: { Major: 2, Minor: 0 }, Flags: HostComputeQueryFlags.None, Filter: filter };
}

/** The query as the JSON string hcsshim passes to the DLL. */
export function marshalQuery(q: HostComputeQuery): string {
  // what goJson(marshal(QUERY_SPEC, q)) gives, written out: SchemaVersion always (its two numbers
  // required), Flags and Filter only when not zero/empty
  const sv = q.SchemaVersion as unknown;
  const v =
    typeof sv === 'object' && sv !== null && !Array.isArray(sv) ? (sv as Record<string, unknown>) : {};
  let out = `{"SchemaVersion":{"Major":${JSON.stringify(finite(v['Major']))},"Minor":${JSON.stringify(finite(v['Minor']))}}`;
  const flags = finite(q.Flags);
  if (flags !== 0) out += `,"Flags":${JSON.stringify(flags)}`;
  const filter = typeof q.Filter === 'string' ? q.Filter : '';
  if (filter !== '') out += `,"Filter":${goJson(filter)}`;
  return `${out}}`;
}

/** The marshaller's number: a finite number, else 0. */
function finite(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** The same document through the generic marshaller (kept to check the one above against). */
export function marshalQuerySlow(q: HostComputeQuery): string {
  return goJson(marshal(QUERY_SPEC, q));
}

/** `Health.Extra`: filled in by HNS (LayeredOn, SwitchGuid, …). */
export interface ExtraParams {
  Resources?: Json;
  SharedContainers?: Json;
  LayeredOn?: string;
  SwitchGuid?: string;
  UtilityVM?: string;
  VirtualMachine?: string;
}

export interface Health {
  Data?: Json;
  Extra?: ExtraParams;
}

export const HEALTH_SPEC: Spec = [
  ['Data', 'raw'],
  [
    'Extra',
    {
      obj: [
        ['Resources', 'raw'],
        ['SharedContainers', 'raw'],
        ['LayeredOn', 'str'],
        ['SwitchGuid', 'str'],
        ['UtilityVM', 'str'],
        ['VirtualMachine', 'str'],
      ],
    },
  ],
];

/** DNS settings of a network or endpoint. */
export interface Dns {
  Domain?: string;
  Search?: string[];
  ServerList?: string[];
  Options?: string[];
}

export const DNS_SPEC: Spec = [
  ['Domain', 'str'],
  ['Search', 'strs'],
  ['ServerList', 'strs'],
  ['Options', 'strs'],
];

/** A route of a subnet or an endpoint. */
export interface Route {
  NextHop?: string;
  DestinationPrefix?: string;
  Metric?: number;
}

export const ROUTE_SPEC: Spec = [
  ['NextHop', 'str'],
  ['DestinationPrefix', 'str'],
  ['Metric', 'num'],
];

export const POLICY_SPEC: Spec = [
  ['Type', 'strReq'],
  ['Settings', 'raw'],
];

/** `Modify{Network,Endpoint,Namespace}SettingRequest`: every field omitempty. */
export const MODIFY_SPEC: Spec = [
  ['ResourceType', 'str'],
  ['RequestType', 'str'],
  ['Settings', 'raw'],
];
