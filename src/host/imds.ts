/**
 * Azure's Instance Metadata Service (IMDS) as a process on the VM reaches it over HTTP:
 * `http://169.254.169.254/metadata/…` (issue 16 §1; docs/model.md "Azure IMDS"). Facts from
 * Microsoft's page "Azure Instance Metadata Service" (learn.microsoft.com
 * /azure/virtual-machines/instance-metadata-service; its source MicrosoftDocs/azure-compute-docs
 * `articles/virtual-machines/instance-metadata-service.md` with the full sample response
 * `includes/imds-full-instance-response.md`) and the IMDS Swagger (Azure/azure-rest-api-specs
 * `specification/imds/data-plane/InstanceMetadataService/stable/2023-07-01/imds.json`):
 *
 * - a request must carry `Metadata: true` and no `X-Forwarded-For` (section "Security and
 *   authentication"); without the header: 400 `Bad request. Required metadata header not
 *   specified` (FAQ), as the Swagger's `ErrorResponse` `{"error": "…"}`;
 * - `api-version` is mandatory except for `/metadata/versions`; missing or not one of the supported
 *   versions: 400 with the newest three under `newest-versions` ("Versioning");
 * - route parameters walk the JSON by key and index ("Route parameters"); a leaf needs
 *   `format=text` ("Route parameters" note, "Errors and debugging": 400); a missing element is 404;
 *   a verb other than GET is 405; duplicate query parameter names are rejected ("Query parameters");
 *   queries are case-sensitive (the 2017 page's note);
 * - every primitive is a string, and missing or inapplicable values are empty strings ("Data
 *   format"); a field, nested ones too, appears from the api-version that introduced it (the
 *   "Version introduced" column of "Schema breakdown"), and `/metadata/instance` from 2017-04-02
 *   ("Endpoint categories").
 *
 * The texts of the other errors, what `format=text` lists for an inner node, and the answer to
 * 2017-03-01 (a listed version older than the category: refused as an unsupported version) are our
 * choice (docs/model.md).
 */
import { hnsError } from '../core/errors.js';
import { newGuid, parseGuid } from '../core/guid.js';
import { Rng } from '../core/rng.js';
import { formatIPv4, type Prefix } from '../addr/ip.js';
import type { Json, JsonObject } from '../core/json.js';
import type { HttpHeaders } from './azure.js';

/** The API versions IMDS serves, oldest first (the page's "Supported API versions"). */
export const IMDS_API_VERSIONS: readonly string[] = Object.freeze([
  '2017-03-01',
  '2017-04-02',
  '2017-08-01',
  '2017-10-01',
  '2017-12-01',
  '2018-02-01',
  '2018-04-02',
  '2018-10-01',
  '2019-02-01',
  '2019-03-11',
  '2019-04-30',
  '2019-06-01',
  '2019-06-04',
  '2019-08-01',
  '2019-08-15',
  '2019-11-01',
  '2020-06-01',
  '2020-07-15',
  '2020-09-01',
  '2020-10-01',
  '2020-12-01',
  '2021-01-01',
  '2021-02-01',
  '2021-03-01',
  '2021-05-01',
  '2021-08-01',
  '2021-10-01',
  '2021-11-01',
  '2021-11-15',
  '2021-12-13',
  '2023-07-01',
  '2023-11-15',
  '2024-03-15',
  '2024-07-17',
  '2025-04-07',
]);

/**
 * The api-version that introduced each field of `compute`, by its path below `compute` (the page's
 * "Schema breakdown": the Compute table; the storage profile's image reference, encryption settings
 * and resource disk tables). A field the tables do not date is as old as what holds it (the OS
 * disk's fields: `storageProfile`'s 2019-06-01; at the top, the `/metadata/instance` category's
 * 2017-04-02, "Endpoint categories"); an object they do not date is there from its oldest field
 * on. `network`'s fields all date from 2017-04-02. `customData` (2019-02-01) is not served: the
 * page says IMDS disabled it. Data disks are not modelled, so their table is not here.
 */
const COMPUTE_SINCE: Readonly<Record<string, string>> = {
  azEnvironment: '2018-10-01',
  'additionalCapabilities.hibernationEnabled': '2021-11-01',
  evictionPolicy: '2020-12-01',
  'extendedLocation.type': '2021-03-01',
  'extendedLocation.name': '2021-03-01',
  'host.id': '2021-11-15',
  'hostGroup.id': '2021-11-15',
  isHostCompatibilityLayerVm: '2020-06-01',
  licenseType: '2020-09-01',
  location: '2017-04-02',
  name: '2017-04-02',
  offer: '2017-04-02',
  'osProfile.adminUsername': '2020-07-15',
  'osProfile.computerName': '2020-07-15',
  'osProfile.disablePasswordAuthentication': '2020-10-01',
  osType: '2017-04-02',
  physicalZone: '2023-11-15',
  placementGroupId: '2017-08-01',
  plan: '2018-04-02',
  platformUpdateDomain: '2017-04-02',
  platformFaultDomain: '2017-04-02',
  platformSubFaultDomain: '2021-10-01',
  priority: '2020-12-01',
  provider: '2018-10-01',
  publicKeys: '2018-04-02',
  publisher: '2017-04-02',
  resourceGroupName: '2017-08-01',
  resourceId: '2019-03-11',
  sku: '2017-04-02',
  'securityProfile.secureBootEnabled': '2020-06-01',
  'securityProfile.virtualTpmEnabled': '2020-06-01',
  'securityProfile.encryptionAtHost': '2021-11-01',
  'securityProfile.securityType': '2021-12-13',
  storageProfile: '2019-06-01',
  subscriptionId: '2017-08-01',
  tags: '2017-08-01',
  tagsList: '2019-06-04',
  userData: '2021-01-01',
  version: '2017-04-02',
  'virtualMachineScaleSet.id': '2021-03-01',
  vmId: '2017-04-02',
  vmScaleSetName: '2017-12-01',
  vmSize: '2017-04-02',
  zone: '2017-12-01',
  'storageProfile.imageReference.id': '2019-06-01',
  'storageProfile.imageReference.offer': '2019-06-01',
  'storageProfile.imageReference.publisher': '2019-06-01',
  'storageProfile.imageReference.sku': '2019-06-01',
  'storageProfile.imageReference.version': '2019-06-01',
  'storageProfile.imageReference.communityGalleryImageId': '2023-07-01',
  'storageProfile.imageReference.sharedGalleryImageId': '2023-07-01',
  'storageProfile.imageReference.exactVersion': '2023-07-01',
  'storageProfile.osDisk.encryptionSettings.diskEncryptionKey.sourceVault.id': '2021-11-01',
  'storageProfile.osDisk.encryptionSettings.diskEncryptionKey.secretUrl': '2021-11-01',
  'storageProfile.osDisk.encryptionSettings.keyEncryptionKey.sourceVault.id': '2021-11-01',
  'storageProfile.osDisk.encryptionSettings.keyEncryptionKey.keyUrl': '2021-11-01',
  'storageProfile.resourceDisk.size': '2021-02-01',
};

/** An api-version's place in `IMDS_API_VERSIONS` (later versions compare greater). */
const VERSION_INDEX: ReadonlyMap<string, number> = new Map(IMDS_API_VERSIONS.map((v, i) => [v, i]));

/** The version `/metadata/instance` came with ("Endpoint categories"): older ones do not serve it. */
const INSTANCE_SINCE = VERSION_INDEX.get('2017-04-02')!;

/** `COMPUTE_SINCE` as version indexes. */
const COMPUTE_SINCE_INDEX: ReadonlyMap<string, number> = new Map(
  Object.entries(COMPUTE_SINCE).map(([path, v]) => [path, VERSION_INDEX.get(v)!]),
);

/** The VM's own fields as `createHost({ azure: { compute } })` takes them; all optional. */
export interface AzureComputeSpec {
  /** The VM's name (default: the host's name); also `osProfile.computerName`. */
  readonly name?: string;
  /** The Azure region (default `eastus`). */
  readonly location?: string;
  /** The VM's unique id, a GUID (default: derived from the host's seed and name). */
  readonly vmId?: string;
  /** The VM size (default `Standard_D2s_v3`). */
  readonly vmSize?: string;
  /** The resource group (default `hnsim`). */
  readonly resourceGroupName?: string;
  /** The subscription, a GUID (default the null GUID). */
  readonly subscriptionId?: string;
  /** The availability zone (default none: empty). */
  readonly zone?: string;
  /** The VM's tags, name → value (default none). */
  readonly tags?: Readonly<Record<string, string>>;
}

/** The VM's fields, resolved (what a host snapshot keeps). */
export interface AzureCompute {
  readonly name: string;
  readonly location: string;
  readonly vmId: string;
  readonly vmSize: string;
  readonly resourceGroupName: string;
  readonly subscriptionId: string;
  readonly zone: string;
  readonly tags: Readonly<Record<string, string>>;
}

const COMPUTE_KEYS = [
  'name',
  'location',
  'vmId',
  'vmSize',
  'resourceGroupName',
  'subscriptionId',
  'zone',
  'tags',
] as const;

function bad(where: string, what: string): never {
  throw hnsError('E_INVALIDARG', `azure: ${where}${what}`);
}

/** The VM id a host gets when none is given: a GUID from its seed and name, lower-case as IMDS writes it. */
function defaultVmId(seed: number, hostName: string): string {
  let h = (seed ^ 0x564d4944) >>> 0;
  for (let i = 0; i < hostName.length; i++) h = Math.imul(h ^ hostName.charCodeAt(i), 0x01000193) >>> 0;
  return newGuid(new Rng(h)).toLowerCase();
}

/**
 * Check and resolve `azure.compute` (undefined: every default). `where` prefixes an error
 * ("" for a spec, "snapshot: " for a snapshot); a bad field is E_INVALIDARG naming it.
 */
export function parseCompute(
  spec: unknown,
  ctx: { readonly hostName: string; readonly seed: number },
  where = '',
): AzureCompute {
  if (spec !== undefined && (typeof spec !== 'object' || spec === null || Array.isArray(spec)))
    bad(where, 'compute must be an object');
  const o = (spec ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!(COMPUTE_KEYS as readonly string[]).includes(k))
      bad(where, `compute: unknown key "${k}" (${COMPUTE_KEYS.join(', ')})`);
  const text = (k: (typeof COMPUTE_KEYS)[number], dflt: string, empty = false): string => {
    const v = o[k];
    if (v === undefined) return dflt;
    if (typeof v !== 'string' || (!empty && v === '')) bad(where, `compute: ${k} must be a non-empty string`);
    return v;
  };
  const guid = (k: 'vmId' | 'subscriptionId', dflt: string): string => {
    const v = o[k];
    if (v === undefined) return dflt;
    const g = typeof v === 'string' ? parseGuid(v) : undefined;
    if (g === undefined) bad(where, `compute: ${k} must be a GUID, got ${JSON.stringify(v)}`);
    return g.toLowerCase();
  };
  const tags = o['tags'];
  if (
    tags !== undefined &&
    (typeof tags !== 'object' ||
      tags === null ||
      Array.isArray(tags) ||
      !Object.values(tags).every((x) => typeof x === 'string'))
  )
    bad(where, 'compute: tags must be an object of tag name → string value');
  const name = text('name', ctx.hostName);
  return {
    name,
    location: text('location', 'eastus'),
    vmId: guid('vmId', defaultVmId(ctx.seed, ctx.hostName)),
    vmSize: text('vmSize', 'Standard_D2s_v3'),
    resourceGroupName: text('resourceGroupName', 'hnsim'),
    subscriptionId: guid('subscriptionId', '00000000-0000-0000-0000-000000000000'),
    zone: text('zone', '', true),
    tags: { ...((tags ?? {}) as Record<string, string>) },
  };
}

/** One NIC as the document lists it. */
export interface ImdsNic {
  readonly mac: string;
  readonly subnet: Prefix;
  readonly primaryIp: string;
  readonly secondaryIps: readonly string[];
  readonly publicIp?: string;
}

/** `compute` at the newest version: every field of the page's sample, in its order. */
function computeObject(c: AzureCompute): JsonObject {
  const rid = `/subscriptions/${c.subscriptionId}/resourceGroups/${c.resourceGroupName}`;
  const tagNames = Object.keys(c.tags);
  return {
    azEnvironment: 'AzurePublicCloud',
    additionalCapabilities: { hibernationEnabled: 'false' },
    host: { id: '' },
    hostGroup: { id: '' },
    extendedLocation: { type: '', name: '' },
    evictionPolicy: '',
    isHostCompatibilityLayerVm: 'false',
    licenseType: '',
    location: c.location,
    name: c.name,
    offer: '',
    osProfile: { adminUsername: 'azureuser', computerName: c.name, disablePasswordAuthentication: '' },
    osType: 'Windows',
    physicalZone: '',
    placementGroupId: '',
    plan: { name: '', product: '', publisher: '' },
    platformFaultDomain: '0',
    platformSubFaultDomain: '',
    platformUpdateDomain: '0',
    priority: 'Regular',
    provider: 'Microsoft.Compute',
    publicKeys: [],
    publisher: '',
    resourceGroupName: c.resourceGroupName,
    resourceId: `${rid}/providers/Microsoft.Compute/virtualMachines/${c.name}`,
    securityProfile: {
      secureBootEnabled: 'false',
      virtualTpmEnabled: 'false',
      encryptionAtHost: 'false',
      securityType: '',
    },
    sku: '',
    storageProfile: {
      dataDisks: [],
      imageReference: {
        id: '',
        offer: '',
        publisher: '',
        sku: '',
        version: '',
        communityGalleryImageId: '',
        sharedGalleryImageId: '',
        exactVersion: '',
      },
      osDisk: {
        caching: 'ReadWrite',
        createOption: 'FromImage',
        diskSizeGB: '128',
        diffDiskSettings: { option: '' },
        encryptionSettings: {
          enabled: 'false',
          diskEncryptionKey: { sourceVault: { id: '' }, secretUrl: '' },
          keyEncryptionKey: { sourceVault: { id: '' }, keyUrl: '' },
        },
        image: { uri: '' },
        managedDisk: {
          id: `${rid}/providers/Microsoft.Compute/disks/${c.name}_OsDisk`,
          storageAccountType: 'Premium_LRS',
        },
        name: `${c.name}_OsDisk`,
        osType: 'Windows',
        vhd: { uri: '' },
        writeAcceleratorEnabled: 'false',
      },
      resourceDisk: { size: '0' },
    },
    subscriptionId: c.subscriptionId,
    tags: tagNames.map((n) => `${n}:${c.tags[n]}`).join(';'),
    tagsList: tagNames.map((n) => ({ name: n, value: c.tags[n]! })),
    userData: '',
    version: '',
    virtualMachineScaleSet: { id: '' },
    vmId: c.vmId,
    vmScaleSetName: '',
    vmSize: c.vmSize,
    zone: c.zone,
  };
}

function networkObject(nics: readonly ImdsNic[]): JsonObject {
  return {
    interface: nics.map((n) => ({
      ipv4: {
        ipAddress: [n.primaryIp, ...n.secondaryIps].map((ip, i) => ({
          privateIpAddress: ip,
          publicIpAddress: i === 0 ? (n.publicIp ?? '') : '',
        })),
        subnet: [{ address: formatIPv4(n.subnet.addr as number), prefix: String(n.subnet.len) }],
      },
      ipv6: { ipAddress: [] },
      macAddress: n.mac,
    })),
  };
}

/** The whole `/metadata/instance` document at the newest version (its `compute` filtered per request). */
export interface ImdsDocument {
  readonly compute: JsonObject;
  readonly network: JsonObject;
}

export function imdsDocument(c: AzureCompute, nics: readonly ImdsNic[]): ImdsDocument {
  return { compute: computeObject(c), network: networkObject(nics) };
}

/** What IMDS answers: a status and its body. */
export interface ImdsReply {
  readonly status: number;
  readonly body: string;
}

const error = (status: number, message: string): ImdsReply => ({
  status,
  body: JSON.stringify({ error: message }),
});

const NOT_FOUND = error(404, 'Not found');

/** The documented answer to a missing or unsupported api-version. */
function versionError(): ImdsReply {
  return {
    status: 400,
    body: JSON.stringify({
      error:
        'Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds',
      'newest-versions': IMDS_API_VERSIONS.slice(-3).reverse(),
    }),
  };
}

/** A header's value, its name matched case-insensitively as HTTP does. */
function header(headers: HttpHeaders, name: string): string | undefined {
  for (const k of Object.keys(headers)) if (k.toLowerCase() === name) return headers[k];
  return undefined;
}

/**
 * `node` (at `path` below `compute`) as version `at` has it, or undefined when it is newer: a field
 * newer than `at` is left out, one `COMPUTE_SINCE` does not date is as old as its holder
 * (`since`), and an undated object whose fields are all newer is left out with them.
 */
function computeAt(node: Json, path: string, since: number, at: number): Json | undefined {
  const dated = COMPUTE_SINCE_INDEX.get(path);
  const from = dated ?? since;
  if (from > at) return undefined;
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const out: JsonObject = {};
  let kept = 0;
  for (const [k, v] of Object.entries(node)) {
    const x = computeAt(v, path === '' ? k : `${path}.${k}`, from, at);
    if (x === undefined) continue;
    out[k] = x;
    kept++;
  }
  return dated === undefined && kept === 0 && Object.keys(node).length > 0 ? undefined : out;
}

/** Each document's `/metadata/instance` per version index, made at the first request for it. */
const byVersion = new WeakMap<ImdsDocument, Map<number, JsonObject>>();

/** The document as version `at` (an index into `IMDS_API_VERSIONS`) has it. */
function atVersion(doc: ImdsDocument, at: number): JsonObject {
  let cache = byVersion.get(doc);
  if (!cache) byVersion.set(doc, (cache = new Map()));
  let d = cache.get(at);
  if (!d) {
    const compute = (computeAt(doc.compute, '', INSTANCE_SINCE, at) ?? {}) as JsonObject;
    cache.set(at, (d = { compute, network: doc.network }));
  }
  return d;
}

/** A node's children in `format=text`: one per line, a `/` after each that is not a leaf (our choice). */
function listing(node: Json): string {
  const entries: [string, Json][] = Array.isArray(node)
    ? node.map((v, i) => [String(i), v])
    : Object.entries(node as JsonObject);
  return entries.map(([k, v]) => (typeof v === 'object' && v !== null ? `${k}/` : k)).join('\n');
}

/**
 * Answer one request from the VM to IMDS: `method`, the URL's path and query
 * (`/metadata/instance/compute/vmId?api-version=…&format=text`), the request headers.
 */
export function imdsRequest(
  doc: ImdsDocument,
  method: string,
  pathAndQuery: string,
  headers: HttpHeaders,
): ImdsReply {
  if (method.toUpperCase() !== 'GET') return error(405, 'Method not allowed');
  if (header(headers, 'metadata')?.toLowerCase() !== 'true')
    return error(400, 'Bad request. Required metadata header not specified');
  if (header(headers, 'x-forwarded-for') !== undefined)
    return error(400, 'Bad request. X-Forwarded-For header is not allowed');
  const q = pathAndQuery.indexOf('?');
  const rawPath = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const params = new Map<string, string>();
  for (const part of q < 0 ? [] : pathAndQuery.slice(q + 1).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    let k: string;
    let v: string;
    try {
      k = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
      v = decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1));
    } catch {
      return error(400, 'Bad request. Malformed query string');
    }
    if (params.has(k)) return error(400, `Bad request. Duplicate query parameter "${k}"`);
    params.set(k, v);
  }
  let segments: string[];
  try {
    segments = rawPath
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return NOT_FOUND;
  }
  if (segments[0] !== 'metadata') return NOT_FOUND;
  if (segments.length === 2 && segments[1] === 'versions')
    return { status: 200, body: JSON.stringify({ apiVersions: IMDS_API_VERSIONS }) };
  if (segments[1] !== 'instance') return NOT_FOUND;
  // a version the page lists but older than the category is refused as an unsupported one (our choice)
  const at = VERSION_INDEX.get(params.get('api-version') ?? '');
  if (at === undefined || at < INSTANCE_SINCE) return versionError();
  let node: Json = atVersion(doc, at);
  for (const s of segments.slice(2)) {
    if (Array.isArray(node)) {
      const i = /^(0|[1-9]\d*)$/.test(s) ? Number(s) : -1;
      if (i < 0 || i >= node.length) return NOT_FOUND;
      node = node[i]!;
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, s)) {
      node = node[s]!;
    } else {
      return NOT_FOUND;
    }
  }
  const format = params.get('format') ?? 'json';
  const leaf = typeof node !== 'object' || node === null;
  if (format === 'text') return { status: 200, body: leaf ? String(node) : listing(node) };
  if (format !== 'json') return error(400, `Bad request. Unsupported format "${format}" (json or text)`);
  if (leaf) return error(400, 'Bad request. A leaf node is served with format=text only');
  return { status: 200, body: JSON.stringify(node) };
}
