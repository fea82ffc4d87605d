/**
 * A minimal Kubernetes API server as data (issue 16 §2: what azure-vnet-ipamv6 asks, ACN v1.8.12
 * `ipam/ipv6Ipam.go`): `GET /version` answers `version.Info` as kube-apiserver writes it (`major`,
 * `minor`, `gitVersion`, …), `GET /api/v1/nodes/<name>` the Node object with `spec.podCIDR` and
 * `spec.podCIDRs`, and an unknown node or path the `Status` object the API server writes with its
 * 404 (`reason: NotFound`, `message: nodes "<name>" not found`). A path with a malformed
 * percent-escape never reaches the API server's handlers: Go's `net/http` answers `400 Bad Request`
 * in plain text. No authentication or watch: every request is answered as the node's kubelet
 * credentials would be.
 *
 * A node reaches it the way client-go does: the kubeconfig on its disk (`c:\k\config`, AKS and
 * aks-engine write it there; `kubeconfigText`) names the server URL, and the node's HTTP
 * (`Host.httpRequest`) answers that URL only when this server is attached to the node
 * (`Host.attachKubernetes`; a `Cluster` attaches its own to each Windows node, `createHost({
 * kubernetes })` one of its own). Any other URL stays unreachable.
 *
 *   const api = new KubeApiServer({ version: '1.30.4' });
 *   api.setNode('akswin1', ['10.244.1.0/24', 'fd00:10:244:1::/64']);
 *   api.handle({ method: 'GET', path: '/api/v1/nodes/akswin1', body: '' }).body; // the Node
 */
import { hnsError, isHnsError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import { parseIp, parsePrefix } from '../addr/ip.js';
import type { PlatformReply } from './azure.js';
import type { LocalHttpRequest } from './localhttp.js';
import { parseHttpUrl, urlOrigin } from './url.js';

/** Where AKS and aks-engine put the node's kubeconfig (ACN `ipam/ipv6Ipam.go` reads it there). */
export const WINDOWS_KUBECONFIG_PATH = 'c:\\k\\config';
/** The API server URL a new server answers on when none is given (the `kubernetes` service's ClusterIP). */
export const DEFAULT_KUBE_API_URL = 'https://10.0.0.1:443';
/** The Kubernetes release a new server reports when none is given. */
export const DEFAULT_KUBE_VERSION = '1.30.4';

/** One node as the API server holds it. */
export interface KubeNode {
  readonly name: string;
  /** `spec.podCIDRs` (`spec.podCIDR` is the first). */
  readonly podCIDRs: readonly string[];
  /** `status.addresses`' InternalIP, when known. */
  readonly internalIp?: string;
}

export interface KubeApiServerOptions {
  /** The URL the server answers on (`https://<host>[:port]`; default `https://10.0.0.1:443`). */
  readonly url?: string;
  /** The release `GET /version` reports: `1.30.4` or `v1.30.4` (default 1.30.4). */
  readonly version?: string;
}

/** `createHost`'s `kubernetes` option: the server, and the node's own `spec.podCIDRs` in it. */
export interface KubernetesSpec extends KubeApiServerOptions {
  readonly podCIDRs?: readonly string[];
}

/** What a host snapshot keeps of the server the node reaches (its nodes in the order they came). */
export interface KubeApiServerState extends JsonObject {
  url: string;
  /** `gitVersion`. */
  version: string;
  nodes: { name: string; podCIDRs: string[]; internalIp?: string }[];
}

function bad(what: string): never {
  throw hnsError('E_INVALIDARG', `kubernetes: ${what}`);
}

const SPEC_KEYS = ['url', 'version', 'podCIDRs'];

/**
 * `createHost`'s `kubernetes` option checked: an object of `url`, `version` (strings) and
 * `podCIDRs` (a list of CIDR strings); anything else is E_INVALIDARG naming the problem.
 */
export function checkKubernetesSpec(spec: unknown): KubernetesSpec {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    bad('must be an object {"url","version","podCIDRs":[…]}');
  const o = spec as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!SPEC_KEYS.includes(k)) bad(`unknown key "${k}" (${SPEC_KEYS.join(', ')})`);
  for (const k of ['url', 'version'] as const)
    if (o[k] !== undefined && typeof o[k] !== 'string') bad(`${k} must be a string`);
  if (o['podCIDRs'] !== undefined && !Array.isArray(o['podCIDRs'])) bad('podCIDRs must be a list of CIDRs');
  return o as KubernetesSpec;
}

/** A `metav1.Status` failure as the API server writes it. */
function status(code: number, reason: string, message: string, details: JsonObject): PlatformReply {
  const doc = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    details,
    code,
  };
  return { status: code, body: `${JSON.stringify(doc)}\n` };
}

const NODE_PATH = /^\/api\/v1\/nodes\/([^/?#]+)(?:\?[^#]*)?$/;
const VERSION_PATH = /^\/version\/?(?:\?[^#]*)?$/;
/** A `%` not followed by two hex digits in the path (before any query): Go's `url.ParseRequestURI` refuses it. */
const BAD_ESCAPE = /^[^?]*%(?![0-9A-Fa-f]{2})/;

/**
 * A path segment's percent-escapes decoded as Go's `url.PathUnescape` does (any byte; the bytes then
 * read as UTF-8, an invalid sequence U+FFFD as `encoding/json` writes it).
 */
function pathUnescape(segment: string): string {
  if (!segment.includes('%')) return segment;
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; i++) {
    if (segment[i] === '%') {
      bytes.push(parseInt(segment.slice(i + 1, i + 3), 16));
      i += 2;
    } else for (const b of new TextEncoder().encode(segment[i]!)) bytes.push(b);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** `ip`'s family from a CIDR text that parses. */
const familyOf = (cidr: string): number => parsePrefix(cidr)!.family;

/** The API server: its version and nodes, answering requests as data. */
export class KubeApiServer {
  readonly url: string;
  /** `scheme://host:port` the server answers on. */
  readonly origin: string;
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly #nodes = new Map<string, KubeNode>();

  constructor(options: KubeApiServerOptions = {}) {
    const url = options.url ?? DEFAULT_KUBE_API_URL;
    const origin = typeof url === 'string' ? urlOrigin(url) : undefined;
    if (origin === undefined) bad(`url ${JSON.stringify(url)} is not an http(s) URL`);
    const v = options.version ?? DEFAULT_KUBE_VERSION;
    const m = typeof v === 'string' ? /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v) : null;
    if (!m) bad(`version ${JSON.stringify(v)} is not <major>.<minor>.<patch>`);
    this.url = url.replace(/\/+$/, '');
    this.origin = origin!;
    this.major = String(Number(m![1]));
    this.minor = String(Number(m![2]));
    this.gitVersion = `v${this.major}.${this.minor}.${Number(m![3])}`;
  }

  /** Whether a URL is this server's. */
  serves(url: string): boolean {
    return urlOrigin(url) === this.origin;
  }

  /**
   * Add or replace a node (by its name as kubelet registers it). Each pod CIDR must be an address
   * and a prefix length, at most one per IP family (the API server's Node validation); a bad one is
   * E_INVALIDARG and nothing changes.
   */
  setNode(name: string, podCIDRs: readonly string[], internalIp?: string): KubeNode {
    if (typeof name !== 'string' || name === '') bad(`node name "${String(name)}" is not a name`);
    if (!Array.isArray(podCIDRs) || podCIDRs.length > 2) bad('podCIDRs must be a list of at most two CIDRs');
    for (const c of podCIDRs)
      if (typeof c !== 'string' || parsePrefix(c) === undefined) bad(`pod CIDR "${String(c)}" is not a CIDR`);
    if (podCIDRs.length === 2 && familyOf(podCIDRs[0]!) === familyOf(podCIDRs[1]!))
      bad(`podCIDRs ${podCIDRs.join(', ')}: may specify no more than one CIDR for each IP family`);
    if (internalIp !== undefined && (typeof internalIp !== 'string' || parseIp(internalIp) === undefined))
      bad(`internal IP ${JSON.stringify(internalIp)} is not an address`);
    const node: KubeNode = { name, podCIDRs: [...podCIDRs], ...(internalIp ? { internalIp } : {}) };
    this.#nodes.set(name, node);
    return node;
  }

  removeNode(name: string): boolean {
    return this.#nodes.delete(name);
  }

  node(name: string): KubeNode | undefined {
    return this.#nodes.get(name);
  }

  nodes(): readonly KubeNode[] {
    return [...this.#nodes.values()];
  }

  /** What a host snapshot keeps: the URL, the release and the nodes. */
  toState(): KubeApiServerState {
    return {
      url: this.url,
      version: this.gitVersion,
      nodes: this.nodes().map((n) => ({
        name: n.name,
        podCIDRs: [...n.podCIDRs],
        ...(n.internalIp !== undefined ? { internalIp: n.internalIp } : {}),
      })),
    };
  }

  /** The server a snapshot kept; a malformed one is E_INVALIDARG (`kubernetes: snapshot: …`). */
  static fromState(state: unknown): KubeApiServer {
    const o = state as Partial<KubeApiServerState> | null;
    if (
      typeof o !== 'object' ||
      o === null ||
      typeof o.url !== 'string' ||
      typeof o.version !== 'string' ||
      !Array.isArray(o.nodes)
    )
      bad('snapshot: must be {"url","version","nodes":[…]}');
    try {
      const server = new KubeApiServer({ url: o.url, version: o.version });
      for (const n of o.nodes) {
        if (typeof n !== 'object' || n === null) bad('a node must be an object');
        server.setNode(n.name, n.podCIDRs, n.internalIp);
      }
      return server;
    } catch (e) {
      if (isHnsError(e)) bad(`snapshot: ${(e.detail ?? '').replace(/^kubernetes: /, '')}`);
      throw e;
    }
  }

  /** `version.Info` as `GET /version` writes it. */
  versionInfo(): JsonObject {
    return {
      major: this.major,
      minor: this.minor,
      gitVersion: this.gitVersion,
      gitCommit: '',
      gitTreeState: 'clean',
      buildDate: '',
      goVersion: 'go1.22.5',
      compiler: 'gc',
      platform: 'linux/amd64',
    };
  }

  /** The Node object `GET /api/v1/nodes/<name>` returns. */
  nodeObject(n: KubeNode): JsonObject {
    const spec: JsonObject = {};
    if (n.podCIDRs.length > 0) {
      spec['podCIDR'] = n.podCIDRs[0]!;
      spec['podCIDRs'] = [...n.podCIDRs];
    }
    return {
      kind: 'Node',
      apiVersion: 'v1',
      metadata: {
        name: n.name,
        labels: {
          'kubernetes.io/hostname': n.name,
          'kubernetes.io/os': 'windows',
        },
      },
      spec,
      status: {
        addresses: [
          ...(n.internalIp ? [{ type: 'InternalIP', address: n.internalIp }] : []),
          { type: 'Hostname', address: n.name },
        ],
      },
    };
  }

  /** A request to a URL this server `serves`: the reply. */
  request(method: string, url: string, body = ''): PlatformReply {
    return this.handle({ method: method.toUpperCase(), path: parseHttpUrl(url)?.target ?? '/', body });
  }

  /** One request (its path and query, as the node sent it): the reply. */
  handle(request: LocalHttpRequest): PlatformReply {
    // net/http refuses the request line before any handler sees it (server.go: "400 Bad Request")
    if (BAD_ESCAPE.test(request.path)) return { status: 400, body: '400 Bad Request' };
    const get = request.method.toUpperCase() === 'GET';
    if (VERSION_PATH.test(request.path)) {
      if (!get) return this.methodNotAllowed();
      return { status: 200, body: `${JSON.stringify(this.versionInfo(), null, 2)}` };
    }
    const m = NODE_PATH.exec(request.path);
    if (m) {
      if (!get) return this.methodNotAllowed();
      const name = pathUnescape(m[1]!);
      const n = this.#nodes.get(name);
      if (!n) return status(404, 'NotFound', `nodes "${name}" not found`, { name, kind: 'nodes' });
      return { status: 200, body: `${JSON.stringify(this.nodeObject(n))}\n` };
    }
    return status(404, 'NotFound', 'the server could not find the requested resource', {});
  }

  private methodNotAllowed(): PlatformReply {
    return status(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
      {},
    );
  }

  /**
   * The kubeconfig a node gets (the shape AKS's `c:\k\config` has: one cluster, one context, one
   * user, the context current); the node's credentials are not modelled.
   */
  kubeconfigText(): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- cluster:',
      `    server: ${this.url}`,
      '  name: localcluster',
      'contexts:',
      '- context:',
      '    cluster: localcluster',
      '    user: client',
      '  name: localclustercontext',
      'current-context: localclustercontext',
      'users:',
      '- name: client',
      '  user: {}',
      '',
    ].join('\n');
  }
}
