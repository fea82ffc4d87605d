/**
 * Cluster DNS as a Windows container sees it (reference vfp-dataplane.md §7, kubernetes-windows.md
 * §1.3 flow 4 and §1.7 "DNS"). Three pieces: `queryNames`, the names the Windows DNS client of a
 * container queries for a name it is asked for, given the endpoint's HNS `Dns {Domain, Search}`;
 * `ClusterDns`, the cluster zone (Kubernetes service and pod A records plus upstream records); and
 * `resolve`, which queries the first against the second and keeps every name it tried.
 *
 * Evidence. The Kubernetes docs (k8s-dns, k8s-winnet) say Windows treats every name containing a
 * "." as fully qualified and uses one DNS suffix, the pod namespace's: from `default`, `kubernetes`
 * and `kubernetes.default.svc.cluster.local` resolve, `kubernetes.default` and
 * `kubernetes.default.svc` do not (so flow 4 is "PQDN only if the name has no '.'"). Users see only
 * the first search suffix applied (containernetworking/plugins#229, kubernetes/kubernetes#65016,
 * Azure/azure-container-networking#206, where `ipconfig` shows the namespace suffix as the one
 * connection-specific suffix); microsoft/Windows-Containers#59 restates the "a dot means FQDN" rule.
 * Hence the defaults below; the knobs are options: `suffixes: 'all'` (a client walking the whole
 * list), `appendToMultiLabelName` (the DNS_AppendToMultiLabelName policy) and `allowUnqualified`
 * (HCS `AllowUnqualifiedDnsQuery`, which containerd sets; the bare label is then queried last).
 * Not modelled: domain-name devolution, LLMNR/NetBIOS, the hosts file, `Dns.Options` (ndots is
 * unsupported on Windows), AAAA/SRV/CNAME records, ExternalName services, TTLs and caches.
 *
 * Example:
 *   const zone = new ClusterDns();
 *   zone.addService({ namespace: 'default', name: 'kubernetes', clusterIP: 0x0a600001 }); // 10.96.0.1
 *   const dns = { search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'] };
 *   resolve('kubernetes', dns, zone);         // ok: fqdn 'kubernetes.default.svc.cluster.local'
 *   resolve('kubernetes.default', dns, zone); // not ok: tried ['kubernetes.default'] only
 */
import { parseIPv4 } from '../addr/ip.js';

const MAX_LABEL = 63;
const MAX_NAME = 253;
const LABEL = /^[A-Za-z0-9_-]+$/;

// ---------------------------------------------------------------------------------------------
// Names

/** Why a text is not a DNS name (a closed set). */
export type DnsNameProblem = 'Empty' | 'EmptyLabel' | 'LabelTooLong' | 'NameTooLong' | 'BadCharacter';

/**
 * A validated name: lower case, without the trailing dot; `absolute` when the text ended in '.'.
 * Labels are letters, digits, '-' and '_' (≤ 63 characters); the name is ≤ 253 characters.
 */
export type DnsName =
  | { readonly ok: true; readonly name: string; readonly absolute: boolean; readonly labels: number }
  | { readonly ok: false; readonly problem: DnsNameProblem; readonly reason: string };

export function parseDnsName(text: string): DnsName {
  const absolute = text.endsWith('.');
  const body = absolute ? text.slice(0, -1) : text;
  if (body === '') return badName(text, 'Empty', 'the name is empty');
  const labels = body.split('.');
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem) return badName(text, problem[0], problem[1]);
  }
  if (body.length > MAX_NAME) {
    return badName(text, 'NameTooLong', `${body.length} characters, more than ${MAX_NAME}`);
  }
  return { ok: true, name: body.toLowerCase(), absolute, labels: labels.length };
}

function labelProblem(label: string): readonly [DnsNameProblem, string] | undefined {
  if (label === '') return ['EmptyLabel', 'an empty label (a leading dot or two dots in a row)'];
  if (label.length > MAX_LABEL) {
    return ['LabelTooLong', `a label of ${label.length} characters, more than ${MAX_LABEL}`];
  }
  if (!LABEL.test(label)) return ['BadCharacter', `"${label}" has a character other than A-Z a-z 0-9 - _`];
  return undefined;
}

function badName(text: string, problem: DnsNameProblem, why: string): DnsName {
  return { ok: false, problem, reason: `invalid DNS name ${JSON.stringify(text)}: ${why}` };
}

// ---------------------------------------------------------------------------------------------
// The Windows DNS client: which names it queries

/**
 * The endpoint's DNS settings as HNS holds them (v2 `Dns.Domain`, `Dns.Search`; for a v1 endpoint
 * the caller splits the `DNSSuffix` comma string into `search`).
 */
export interface EndpointDnsSettings {
  readonly domain?: string | undefined;
  readonly search: readonly string[];
}

export interface DnsClientOptions {
  /** 'first' (default): only the first usable suffix; 'all': Domain then each Search entry. */
  readonly suffixes?: 'first' | 'all';
  /** Query a bare single label last (HCS `AllowUnqualifiedDnsQuery`). Default false. */
  readonly allowUnqualified?: boolean;
  /** Append suffixes to a name with a dot after it fails as given (DNS_AppendToMultiLabelName). */
  readonly appendToMultiLabelName?: boolean;
}

export type QueryNamesResult =
  | { readonly ok: true; readonly names: readonly string[] }
  | { readonly ok: false; readonly problem: DnsNameProblem; readonly reason: string };

/**
 * The fully-qualified names (lower case, no trailing dot) the resolver queries, in order. An
 * absolute name: itself. A name with a dot: itself, then (with `appendToMultiLabelName`) with each
 * suffix. A single label: with each suffix, then (with `allowUnqualified`) bare. Empty or invalid
 * suffixes are skipped (v1 `DNSSuffix: ""` splits to `[""]`), as is a candidate over 253 characters.
 */
export function queryNames(
  name: string,
  settings: EndpointDnsSettings,
  options: DnsClientOptions = {},
): QueryNamesResult {
  const parsed = parseDnsName(name);
  if (!parsed.ok) return parsed;
  const suffixes = dnsSuffixes(settings, options.suffixes ?? 'first');
  return { ok: true, names: unique(candidates(parsed, suffixes, options)) };
}

function candidates(
  { name, absolute, labels }: { readonly name: string; readonly absolute: boolean; readonly labels: number },
  suffixes: readonly string[],
  options: DnsClientOptions,
): string[] {
  if (absolute) return [name];
  if (labels > 1) return options.appendToMultiLabelName ? [name, ...withSuffixes(name, suffixes)] : [name];
  return [...withSuffixes(name, suffixes), ...(options.allowUnqualified ? [name] : [])];
}

/** Domain then Search, normalised, invalid ones dropped, de-duplicated case-insensitively. */
export function dnsSuffixes(
  settings: EndpointDnsSettings,
  which: 'first' | 'all' = 'all',
): readonly string[] {
  const all = unique([settings.domain ?? '', ...settings.search].flatMap(usableSuffix));
  return which === 'first' ? all.slice(0, 1) : all;
}

function usableSuffix(text: string): string[] {
  const parsed = parseDnsName(text);
  return parsed.ok ? [parsed.name] : [];
}

function withSuffixes(name: string, suffixes: readonly string[]): string[] {
  return suffixes.map((s) => `${name}.${s}`).filter((n) => n.length <= MAX_NAME);
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

// ---------------------------------------------------------------------------------------------
// Resolution against a zone

/** Anything that answers A queries: the cluster zone, or a test double. */
export interface DnsZone {
  /** The IPv4 addresses (uint32) of `fqdn`, or undefined for no A record. */
  lookup(fqdn: string): readonly number[] | undefined;
}

export type ResolveResult =
  | {
      readonly ok: true;
      readonly fqdn: string;
      readonly addresses: readonly number[];
      readonly tried: readonly string[];
    }
  | {
      readonly ok: false;
      /** InvalidName: nothing was queried. NameNotFound: Windows says "DNS name does not exist". */
      readonly error: 'InvalidName' | 'NameNotFound';
      readonly tried: readonly string[];
      readonly reason: string;
    };

/** Query the names of `queryNames` in order; the first with an A record answers. */
export function resolve(
  name: string,
  settings: EndpointDnsSettings,
  zone: DnsZone,
  options: DnsClientOptions = {},
): ResolveResult {
  const query = queryNames(name, settings, options);
  if (!query.ok) return { ok: false, error: 'InvalidName', tried: [], reason: query.reason };
  const tried: string[] = [];
  for (const fqdn of query.names) {
    tried.push(fqdn);
    const addresses = zone.lookup(fqdn);
    if (addresses !== undefined && addresses.length > 0) return { ok: true, fqdn, addresses, tried };
  }
  return { ok: false, error: 'NameNotFound', tried, reason: notFoundReason(name, settings, options, tried) };
}

/** Says why, in the terms of the Kubernetes docs, so a trace explains `kubernetes.default`. */
function notFoundReason(
  name: string,
  settings: EndpointDnsSettings,
  options: DnsClientOptions,
  tried: readonly string[],
): string {
  const parsed = parseDnsName(name);
  const all = dnsSuffixes(settings, 'all');
  if (!parsed.ok || tried.length === 0) {
    return `${JSON.stringify(name)} is a single label with no usable DNS suffix, and unqualified queries are not allowed`;
  }
  const base = `no A record for ${tried.join(', ')}`;
  if (parsed.absolute) return `${base} (the name ends in '.', so no DNS suffix is appended)`;
  if (parsed.labels > 1 && !options.appendToMultiLabelName && all.length > 0) {
    return `${base} (${JSON.stringify(name)} contains a '.', so the Windows resolver treats it as fully qualified and appends no DNS suffix)`;
  }
  if (parsed.labels === 1 && (options.suffixes ?? 'first') === 'first' && all.length > 1) {
    return `${base} (Windows applies only the first DNS suffix; ${all.slice(1).join(', ')} not tried)`;
  }
  return base;
}

// ---------------------------------------------------------------------------------------------
// The cluster zone

/** A Kubernetes Service as DNS sees it. `clusterIP: 'None'` makes it headless. */
export interface ZoneService {
  readonly namespace: string;
  readonly name: string;
  readonly clusterIP: number | 'None';
  /** Pods whose labels include all of these back the service; empty or absent selects none. */
  readonly selector?: Readonly<Record<string, string>>;
  /** Headless records include pods that are not ready. */
  readonly publishNotReadyAddresses?: boolean;
}

/** A Kubernetes Pod as DNS sees it. `ready` defaults to true. */
export interface ZonePod {
  readonly namespace: string;
  readonly name: string;
  readonly ip: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly hostname?: string;
  readonly subdomain?: string;
  readonly ready?: boolean;
}

/**
 * CoreDNS `kubernetes` plugin `pods` mode: 'verified' answers `a-b-c-d.<ns>.pod.<domain>` only for
 * a pod with that IP in that namespace; 'insecure' (kubeadm's Corefile) for any well-formed name;
 * 'disabled' never.
 */
export type PodRecordMode = 'verified' | 'insecure' | 'disabled';

export interface ClusterDnsOptions {
  /** The cluster domain (kubelet `--cluster-domain`); default `cluster.local`. */
  readonly domain?: string;
  readonly pods?: PodRecordMode;
}

/**
 * The cluster zone: records are derived from the services and pods it holds, so removing a service
 * removes its records. Answers list addresses in insertion order (re-adding an object of the same
 * namespace/name replaces it in place). Names outside the cluster domain are answered from the
 * upstream records of `addExternal`. Invalid arguments throw TypeError (a caller bug).
 */
export class ClusterDns implements DnsZone {
  readonly domain: string;
  readonly podRecords: PodRecordMode;
  readonly #services = new Map<string, Stored<ZoneService>>();
  readonly #pods = new Map<string, Stored<ZonePod>>();
  readonly #external = new Map<string, number[]>();

  constructor(options: ClusterDnsOptions = {}) {
    this.domain = fqdnArg(options.domain ?? 'cluster.local', 'cluster domain');
    this.podRecords = options.pods ?? 'verified';
  }

  addService(service: ZoneService): void {
    if (service.clusterIP !== 'None') ipArg(service.clusterIP, 'clusterIP');
    const namespace = labelArg(service.namespace, 'namespace');
    const name = labelArg(service.name, 'service name');
    this.#services.set(key(namespace, name), { ...service, namespace, name });
  }

  removeService(namespace: string, name: string): boolean {
    return this.#services.delete(key(namespace.toLowerCase(), name.toLowerCase()));
  }

  addPod(pod: ZonePod): void {
    ipArg(pod.ip, 'pod IP');
    const namespace = labelArg(pod.namespace, 'namespace');
    const name = labelArg(pod.name, 'pod name');
    const hostname = pod.hostname === undefined ? undefined : labelArg(pod.hostname, 'hostname');
    const subdomain = pod.subdomain === undefined ? undefined : labelArg(pod.subdomain, 'subdomain');
    this.#pods.set(key(namespace, name), { ...pod, namespace, name, hostname, subdomain });
  }

  removePod(namespace: string, name: string): boolean {
    return this.#pods.delete(key(namespace.toLowerCase(), name.toLowerCase()));
  }

  /** An upstream record (e.g. `www.bing.com`); a second address for the same name is appended. */
  addExternal(fqdn: string, ip: number): void {
    ipArg(ip, 'IP');
    const name = fqdnArg(fqdn, 'external name');
    if (this.#relative(name) !== undefined || name === this.domain) {
      throw new TypeError(`external name "${fqdn}" is inside the cluster domain ${this.domain}`);
    }
    const ips = this.#external.get(name) ?? [];
    if (!ips.includes(ip)) this.#external.set(name, [...ips, ip]);
  }

  /** Removes one address of `fqdn`, or all of them when `ip` is omitted. */
  removeExternal(fqdn: string, ip?: number): boolean {
    const parsed = parseDnsName(fqdn);
    const ips = parsed.ok ? this.#external.get(parsed.name) : undefined;
    if (!parsed.ok || ips === undefined || (ip !== undefined && !ips.includes(ip))) return false;
    const rest = ip === undefined ? [] : ips.filter((a) => a !== ip);
    if (rest.length === 0) this.#external.delete(parsed.name);
    else this.#external.set(parsed.name, rest);
    return true;
  }

  lookup(fqdn: string): readonly number[] | undefined {
    const parsed = parseDnsName(fqdn);
    if (!parsed.ok) return undefined;
    const rel = this.#relative(parsed.name);
    const found = rel === undefined ? this.#external.get(parsed.name)?.slice() : this.#cluster(rel);
    return found !== undefined && found.length > 0 ? found : undefined;
  }

  /** The labels in front of the cluster domain, or undefined for a name outside it. */
  #relative(name: string): string[] | undefined {
    const tail = `.${this.domain}`;
    return name.endsWith(tail) ? name.slice(0, -tail.length).split('.') : undefined;
  }

  #cluster(rel: readonly string[]): number[] | undefined {
    const [a = '', b = '', c = '', d = ''] = rel;
    if (rel.length === 3 && c === 'svc') return this.#serviceIPs(b, a);
    if (rel.length === 4 && d === 'svc') return this.#hostnameIPs(c, b, a);
    if (rel.length === 3 && c === 'pod') return this.#podIPs(b, a);
    return undefined;
  }

  /** `<svc>.<ns>.svc`: the ClusterIP, or for a headless service its endpoints' IPs. */
  #serviceIPs(namespace: string, name: string): number[] | undefined {
    const service = this.#services.get(key(namespace, name));
    if (service === undefined) return undefined;
    if (service.clusterIP !== 'None') return [service.clusterIP];
    return unique(this.#endpoints(service).map((p) => p.ip));
  }

  /** `<hostname>.<subdomain>.<ns>.svc`: endpoints of the headless service named like the subdomain. */
  #hostnameIPs(namespace: string, subdomain: string, hostname: string): number[] | undefined {
    const service = this.#services.get(key(namespace, subdomain));
    if (service === undefined || service.clusterIP !== 'None') return undefined;
    const pods = this.#endpoints(service).filter((p) => p.subdomain === subdomain && p.hostname === hostname);
    return unique(pods.map((p) => p.ip));
  }

  /** `a-b-c-d.<ns>.pod` per the pod-record mode. */
  #podIPs(namespace: string, dashed: string): number[] | undefined {
    const ip = parseIPv4(dashed.replaceAll('-', '.'));
    if (ip === undefined || this.podRecords === 'disabled') return undefined;
    if (this.podRecords === 'insecure') return [ip];
    return [...this.#pods.values()].some((p) => p.namespace === namespace && p.ip === ip) ? [ip] : undefined;
  }

  /** The pods a service selects in its namespace, ready unless it publishes not-ready addresses. */
  #endpoints(service: ZoneService): Stored<ZonePod>[] {
    return [...this.#pods.values()].filter(
      (p) =>
        p.namespace === service.namespace &&
        selects(service.selector, p.labels) &&
        (p.ready !== false || service.publishNotReadyAddresses === true),
    );
  }
}

type Stored<T> = T & { readonly namespace: string; readonly name: string };

/** A Service selector matches a pod whose labels include all of it; an empty selector matches none. */
export function selects(
  selector: Readonly<Record<string, string>> | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const wanted = Object.entries(selector ?? {});
  return wanted.length > 0 && wanted.every(([k, v]) => labels?.[k] === v);
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function labelArg(text: string, what: string): string {
  const parsed = parseDnsName(text);
  if (!parsed.ok) throw new TypeError(`${what}: ${parsed.reason}`);
  if (parsed.absolute || parsed.labels !== 1)
    throw new TypeError(`${what} "${text}" is not a single DNS label`);
  return parsed.name;
}

function fqdnArg(text: string, what: string): string {
  const parsed = parseDnsName(text);
  if (!parsed.ok) throw new TypeError(`${what}: ${parsed.reason}`);
  return parsed.name;
}

function ipArg(ip: number, what: string): void {
  if (!Number.isInteger(ip) || ip < 0 || ip > 0xffffffff) {
    throw new TypeError(`${what} ${String(ip)} is not a uint32 IPv4 address`);
  }
}
