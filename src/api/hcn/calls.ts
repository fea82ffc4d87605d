/**
 * The call sequences hcsshim runs for every resource kind (reference hns-hcs.md §0.1, §0.2):
 * enumerate with a query then query each ID with the same query; create or modify, then query with
 * the default query and hand back the queried object; GUID arguments checked before any call.
 * Open and Close have no flat counterpart (the flat API is handle-free), so they are folded in.
 */
import type { Json, JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { FlatApiMethod } from '../flat.js';
import { HcnClientError, InvalidIdError, type ResourceKind } from './errors.js';
import { defaultQuery, marshalQuery } from './hcn.js';
import { goJson, isGoGuid, ZERO_GUID } from './marshal.js';

/** What the resource modules need from the client: one flat call, failures thrown as HcnError. */
export interface Invoker {
  invoke(method: FlatApiMethod, ...args: unknown[]): Promise<Json>;
}

export type Kind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';

const PLURAL: Record<Kind, string> = {
  Network: 'Networks',
  Endpoint: 'Endpoints',
  Namespace: 'Namespaces',
  LoadBalancer: 'LoadBalancers',
  SdnRoute: 'SdnRoutes',
};

const ID_KIND: Record<Kind, ResourceKind> = {
  Network: 'network',
  Endpoint: 'endpoint',
  Namespace: 'namespace',
  LoadBalancer: 'load balancer',
  SdnRoute: 'route',
};

/**
 * The default query as hcsshim marshals it, made once: every create and modify sends it, and the
 * flat API's cache of parsed queries then finds the same string (its hash computed once) each time.
 */
const DEFAULT_QUERY = marshalQuery(defaultQuery());

function method(name: string): FlatApiMethod {
  return name as FlatApiMethod;
}

/** Throw `invalid <kind> ID` unless `id` parses as go-winio parses GUIDs. */
export function checkId(kind: Kind, id: string): void {
  if (!isGoGuid(id)) throw new InvalidIdError(ID_KIND[kind]);
}

function asObject(v: Json, what: string): JsonObject {
  if (!isJsonObject(v))
    throw new HcnClientError('E_FAIL', `${what} returned ${JSON.stringify(v)}, not an object`);
  return v;
}

/** Query one object (Open + Query + Close in hcsshim). */
export async function queryOne(inv: Invoker, kind: Kind, id: string, query: string): Promise<JsonObject> {
  const props = await inv.invoke(method(`HcnQuery${kind}Properties`), id, query);
  return asObject(props, `HcnQuery${kind}Properties`);
}

/** Enumerate IDs with `query`, then query each with the same query. */
export async function enumerate(inv: Invoker, kind: Kind, query: string): Promise<JsonObject[]> {
  const ids = await inv.invoke(method(`HcnEnumerate${PLURAL[kind]}`), query);
  if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string' && isGoGuid(x))) {
    throw new HcnClientError(
      'E_FAIL',
      `HcnEnumerate${PLURAL[kind]} returned ${JSON.stringify(ids)}, not a GUID list`,
    );
  }
  const out: JsonObject[] = [];
  for (const id of ids as string[]) out.push(await queryOne(inv, kind, id, query));
  return out;
}

/** Create with the all-zero ID (HNS chooses), then query with the default query. */
export async function create(
  inv: Invoker,
  kind: Kind,
  settings: JsonObject,
  networkId?: string,
): Promise<JsonObject> {
  const json = goJson(settings);
  let created: Json;
  if (kind === 'Endpoint') {
    checkId('Network', networkId ?? '');
    created = await inv.invoke('HcnCreateEndpoint', networkId, ZERO_GUID, json);
  } else {
    created = await inv.invoke(method(`HcnCreate${kind}`), ZERO_GUID, json);
  }
  const id = asObject(created, `HcnCreate${kind}`).ID;
  if (typeof id !== 'string') throw new HcnClientError('E_FAIL', `HcnCreate${kind} returned no ID`);
  return queryOne(inv, kind, id, DEFAULT_QUERY);
}

/** Modify with `settings`, then query with the default query. */
export async function modify(
  inv: Invoker,
  kind: Kind,
  id: string,
  settings: JsonObject,
): Promise<JsonObject> {
  checkId(kind, id);
  await inv.invoke(method(`HcnModify${kind}`), id, goJson(settings));
  return queryOne(inv, kind, id, DEFAULT_QUERY);
}

export async function remove(inv: Invoker, kind: Kind, id: string): Promise<void> {
  checkId(kind, id);
  await inv.invoke(method(`HcnDelete${kind}`), id);
}
