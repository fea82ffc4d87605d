/**
 * The listings `hnsim show` adds to hnsdiag's: every HNS policy with the object it sits on (what
 * `Get-HnsNetwork | Select -Expand Policies` and `hnsdiag list endpoints -d` show), the network
 * compartments (`Get-NetCompartment`: compartment 1 is the host's, one per HNS namespace), and the
 * compute systems (`hcsdiag list`: containers and utility VMs, with their namespace and the
 * endpoints their network sees). Input is what the flat API returns and the HCS records, so a
 * listing shows what a client on the node would read.
 *
 *   console.log(renderObjects(collectObjects(host), ['compartments', 'containers']));
 */
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Host } from '../host/host.js';
import {
  collectListing,
  endpointAddresses,
  listingJson,
  LISTING_KINDS,
  renderListing,
  type HnsListing,
  type ListingKind,
} from './listing.js';
import { table, type RenderOptions } from './table.js';

/** The kinds beyond hnsdiag's that `show` lists. */
export const OBJECT_KINDS = ['policies', 'compartments', 'containers'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/** Every kind `hnsim show` lists (`all` is LISTING_KINDS, as before these were added). */
export const SHOW_KINDS = [...LISTING_KINDS, ...OBJECT_KINDS] as const;
export type ShowKind = ListingKind | ObjectKind;

/** One policy and the object it sits on. */
export interface PolicyRow {
  /** `Network`, `Subnet`, `Endpoint` or `LoadBalancer`. */
  readonly Object: string;
  readonly Name: string;
  readonly ID: string;
  readonly Type: string;
  readonly Settings: Json;
}

/** One network compartment: the host's (1), or an HNS namespace's. */
export interface CompartmentRow {
  readonly CompartmentId: number;
  readonly CompartmentDescription: string;
  /** The HNS namespace behind it ('' for a compartment of no namespace). */
  readonly Namespace: string;
  readonly NamespaceType: string;
  /** Endpoint names (or IDs) in it, with their addresses. */
  readonly Endpoints: readonly { readonly Name: string; readonly ID: string; readonly IpAddress: string }[];
  /** Compute systems in it: process containers that joined, a utility VM whose guest holds it. */
  readonly Containers: readonly string[];
}

/** One compute system as `hcsdiag list` shows it, with its network. */
export interface ContainerRow {
  readonly Id: string;
  readonly SystemType: string;
  readonly Isolation: string;
  readonly State: string;
  readonly Owner: string;
  /** The utility VM a hosted container runs in. */
  readonly HostingSystem?: string;
  /** The HNS namespace it names (process), or its guest holds (utility VM). */
  readonly Namespace?: string;
  readonly Compartment?: number;
  /** The endpoints its network sees (HCS's view: namespace, v1 attachments, VM NICs). */
  readonly Endpoints: readonly string[];
}

export interface HostObjects {
  readonly listing: HnsListing;
  readonly policies: readonly PolicyRow[];
  readonly compartments: readonly CompartmentRow[];
  readonly containers: readonly ContainerRow[];
}

function str(o: Json | undefined, k: string): string {
  if (!isJsonObject(o)) return '';
  const v = o[k];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

function objs(v: Json | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

/** A GUID as HNS compares it: braces dropped, upper case. */
export const upper = (s: string): string => s.replace(/[{}]/g, '').toUpperCase();

/** The listing and the three further views of one host. */
export function collectObjects(host: Host): HostObjects {
  const listing = collectListing(host.api, host);
  const policies: PolicyRow[] = [];
  const push = (Object: string, o: JsonObject, list: Json | undefined, name = str(o, 'Name')) => {
    for (const p of objs(list))
      policies.push({
        Object,
        Name: name,
        ID: str(o, 'ID'),
        Type: str(p, 'Type'),
        Settings: p['Settings'] ?? {},
      });
  };
  for (const n of listing.networks) {
    push('Network', n, n['Policies']);
    for (const ipam of objs(n['Ipams']))
      for (const s of objs(ipam['Subnets']))
        push('Subnet', n, s['Policies'], `${str(n, 'Name')} ${str(s, 'IpAddressPrefix')}`);
  }
  for (const e of listing.endpoints) push('Endpoint', e, e['Policies']);
  for (const lb of listing.loadbalancers) {
    for (const pm of objs(lb['PortMappings']))
      policies.push({
        Object: 'LoadBalancer',
        Name: Array.isArray(lb['FrontendVIPs']) ? lb['FrontendVIPs'].join(', ') : '',
        ID: str(lb, 'ID'),
        Type: 'PortMapping',
        Settings: pm,
      });
  }

  const endpointById = new Map(listing.endpoints.map((e) => [upper(str(e, 'ID')), e]));
  const systems = [...host.hcs.systems.values()].sort((a, b) => a.seq - b.seq);
  const compartments: CompartmentRow[] = listing.namespaces
    .map((ns): CompartmentRow => {
      const id = str(ns, 'ID');
      const compartment = Number(str(ns, 'NamespaceId')) || 0;
      const eps = objs(ns['Resources'])
        .filter((r) => str(r, 'Type') === 'Endpoint')
        .map((r) => {
          const epId = str(r['Data'], 'ID') || str(r['Data'], 'Id');
          const e = endpointById.get(upper(epId));
          return { Name: e ? str(e, 'Name') : '', ID: epId, IpAddress: e ? endpointAddresses(e) : '' };
        });
      const containers = systems
        .filter(
          (s) =>
            (s.networking.namespace !== undefined &&
              upper(s.networking.namespace) === upper(id) &&
              s.isolation !== 'Hosted') ||
            (s.guestNamespace !== undefined && upper(s.guestNamespace) === upper(id)),
        )
        .map((s) => s.id);
      const type = str(ns, 'Type');
      return {
        CompartmentId: compartment,
        CompartmentDescription:
          compartment === 1 ? 'Default Compartment' : `Compartment for HNS namespace ${id}`,
        Namespace: id,
        NamespaceType: type || 'Host',
        Endpoints: eps,
        Containers: containers,
      };
    })
    .sort((a, b) => a.CompartmentId - b.CompartmentId);

  const nsById = new Map(listing.namespaces.map((ns) => [upper(str(ns, 'ID')), ns]));
  const containers: ContainerRow[] = systems.map((s) => {
    const nsId = s.systemType === 'VirtualMachine' ? s.guestNamespace : s.networking.namespace;
    const ns = nsId ? nsById.get(upper(nsId)) : undefined;
    return {
      Id: s.id,
      SystemType: s.systemType,
      Isolation: s.isolation,
      State: s.state,
      Owner: s.owner,
      ...(s.hostingSystemId ? { HostingSystem: s.hostingSystemId } : {}),
      ...(nsId ? { Namespace: nsId } : {}),
      ...(ns ? { Compartment: Number(str(ns, 'NamespaceId')) } : {}),
      Endpoints: host.hcs.attachedEndpoints(s),
    };
  });
  return { listing, policies, compartments, containers };
}

const orDash = (s: string | undefined): string => (s === undefined || s === '' ? '-' : s);

/** A compact one-line JSON of a policy's settings. */
function settingsText(v: Json): string {
  return JSON.stringify(v);
}

export function renderPolicies(o: HostObjects, opts: RenderOptions = {}): string {
  const rows = o.policies.map((p) => [
    p.Object,
    orDash(p.Name),
    orDash(p.ID),
    orDash(p.Type),
    settingsText(p.Settings),
  ]);
  return table(['Object', 'Name', 'ID', 'Type', 'Settings'], rows, opts);
}

export function renderCompartments(o: HostObjects, opts: RenderOptions = {}): string {
  const rows = o.compartments.map((c) => [
    String(c.CompartmentId),
    c.CompartmentDescription,
    orDash(c.NamespaceType),
    orDash(c.Endpoints.map((e) => `${e.Name || e.ID}${e.IpAddress ? ` (${e.IpAddress})` : ''}`).join(', ')),
    orDash(c.Containers.map((id) => id.slice(0, 12)).join(', ')),
  ]);
  return table(
    ['CompartmentId', 'CompartmentDescription', 'Namespace Type', 'Endpoints', 'Containers'],
    rows,
    opts,
  );
}

export function renderContainers(o: HostObjects, opts: RenderOptions = {}): string {
  const names = new Map(o.listing.endpoints.map((e) => [upper(str(e, 'ID')), str(e, 'Name')]));
  const rows = o.containers.map((c) => [
    c.Id,
    c.SystemType,
    c.Isolation,
    c.State,
    orDash(c.Owner),
    c.Compartment !== undefined ? String(c.Compartment) : '-',
    orDash(c.Endpoints.map((id) => names.get(upper(id)) || id).join(', ')),
  ]);
  return table(['Id', 'Type', 'Isolation', 'State', 'Owner', 'Compartment', 'Endpoints'], rows, opts);
}

const OBJECT_RENDERERS: Readonly<
  Record<ObjectKind, { title: string; render: (o: HostObjects, opts?: RenderOptions) => string }>
> = {
  policies: { title: 'Policies', render: renderPolicies },
  compartments: { title: 'Compartments', render: renderCompartments },
  containers: { title: 'Compute systems', render: renderContainers },
};

const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

function isObjectKind(k: ShowKind): k is ObjectKind {
  return (OBJECT_KINDS as readonly string[]).includes(k);
}

/** Sections for `kinds`, hnsdiag's through renderListing, each titled with its count. */
export function renderObjects(o: HostObjects, kinds: readonly ShowKind[], opts: RenderOptions = {}): string {
  const parts: string[] = [];
  let run: ListingKind[] = [];
  const flush = () => {
    if (run.length) parts.push(renderListing(o.listing, run, opts));
    run = [];
  };
  for (const k of kinds) {
    if (!isObjectKind(k)) {
      run.push(k);
      continue;
    }
    flush();
    const { title, render } = OBJECT_RENDERERS[k];
    const head = `${title} (${o[k].length})`;
    parts.push(`${opts.color ? BOLD + head + RESET : head}\n${render(o, opts)}`);
  }
  flush();
  return parts.join('\n\n');
}

/** The kinds as one JSON document (`--format json`): each kind's objects under its name. */
export function objectsJson(o: HostObjects, kinds: readonly ShowKind[]): JsonObject {
  const hns = listingJson(
    o.listing,
    kinds.filter((k): k is ListingKind => !isObjectKind(k)),
  );
  const out: JsonObject = {};
  for (const k of kinds)
    out[k] = isObjectKind(k) ? (JSON.parse(JSON.stringify(o[k])) as Json) : (hns[k] ?? []);
  return out;
}
