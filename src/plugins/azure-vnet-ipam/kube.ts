/**
 * The Kubernetes client `ipam/ipv6Ipam.go` builds (client-go: `clientcmd.BuildConfigFromFlags("",
 * c:\k\config)`, `kubernetes.NewForConfig`, `ServerVersion()`, `CoreV1().Nodes().Get`), over the
 * node's HTTP (`PluginHost.httpRequest`): the kubeconfig is read from the node's disk, its current
 * context's cluster names the server, and the server answers only when the node reaches it
 * (src/host/kubeapi.ts).
 *
 * Error texts are client-go's where its code gives them (`error loading config file "<path>": …`,
 * `invalid configuration: …`, a Status failure's `message`, `Get "<url>": …` from `net/http`); the
 * YAML parser's own message inside a load error is the `yaml` package's, and a missing file is
 * `os.Stat`'s on Windows (docs/model.md "azure-vnet-ipam").
 */
import { yaml } from '../../core/yaml.js';
import type { PlatformReply, PluginHost } from '../../cni/contracts.js';
import { PlatformUnreachable } from '../../host/azure.js';
import { WINDOWS_KUBECONFIG_PATH } from '../../host/kubeapi.js';
import { requestUrl } from '../../host/url.js';
/** client-go discovery's default request timeout, which its requests carry as `?timeout=32s`. */
const DISCOVERY_TIMEOUT = '32s';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const named = (list: unknown, name: string, key: string): Obj | undefined => {
  if (!Array.isArray(list)) return undefined;
  const hit = list.find((x) => isObj(x) && x['name'] === name) as Obj | undefined;
  const v = hit?.[key];
  return isObj(v) ? v : undefined;
};

/** A JSON value's kind in `encoding/json`'s errors. */
const goKind = (v: unknown): string =>
  Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : 'string';

/** `clientcmd.BuildConfigFromFlags("", path)`: the server URL, or client-go's error. */
export function loadKubeconfig(host: PluginHost, path: string = WINDOWS_KUBECONFIG_PATH): string {
  const text = host.files.read(path);
  // loader.go: os.Stat of the explicit path; on Windows its failing call is CreateFile
  if (text === undefined) throw new Error(`CreateFile ${path}: The system cannot find the file specified.`);
  const doc = yaml().parseDocument(text);
  const err = doc.errors[0];
  if (err) throw new Error(`error loading config file "${path}": yaml: ${err.message.split('\n')[0]!}`);
  const raw: unknown = doc.toJS();
  if (raw !== null && raw !== undefined && !isObj(raw))
    throw new Error(
      `error loading config file "${path}": couldn't get version/kind; json parse error: json: cannot unmarshal ${goKind(raw)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  const cfg = (raw ?? {}) as Obj;
  const current = typeof cfg['current-context'] === 'string' ? cfg['current-context'] : '';
  const empty =
    current === '' &&
    !(Array.isArray(cfg['clusters']) && cfg['clusters'].length > 0) &&
    !(Array.isArray(cfg['contexts']) && cfg['contexts'].length > 0);
  if (empty)
    throw new Error(
      'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    );
  const context = named(cfg['contexts'], current, 'context');
  const clusterName = typeof context?.['cluster'] === 'string' ? context['cluster'] : '';
  const server = named(cfg['clusters'], clusterName, 'cluster')?.['server'];
  const problems: string[] = [];
  if (current !== '' && !context) problems.push(`context was not found for specified context: ${current}`);
  if (typeof server !== 'string' || server === '') problems.push('cluster has no server defined');
  if (problems.length === 1) throw new Error(`invalid configuration: ${problems[0]!}`);
  if (problems.length > 1) throw new Error(`invalid configuration: [${problems.join(', ')}]`);
  return (server as string).replace(/\/+$/, '');
}

/** One GET through the node's HTTP: the reply, or `net/http`'s error for a server it cannot reach. */
function get(host: PluginHost, url: string): PlatformReply {
  if (!host.httpRequest) throw new PlatformUnreachable(url, requestUrl('GET', url).hostPort);
  return host.httpRequest('GET', url);
}

/** A non-2xx reply as client-go returns it: the Status's message, else its generic texts. */
function statusError(r: PlatformReply): Error {
  try {
    const s = JSON.parse(r.body) as unknown;
    if (isObj(s) && s['kind'] === 'Status' && typeof s['message'] === 'string')
      return new Error(s['message']);
  } catch {
    // not a Status: below
  }
  if (r.status === 404) return new Error('the server could not find the requested resource');
  return new Error(`an error on the server ("${r.body}") has prevented the request from succeeding`);
}

/** A client-go clientset of the server a kubeconfig names. */
export class KubeClient {
  constructor(
    private readonly host: PluginHost,
    readonly server: string,
  ) {}

  /** `discovery.ServerVersion()`: `version.Info`'s `major` and `minor`. */
  serverVersion(): { major: string; minor: string } {
    const r = get(this.host, `${this.server}/version?timeout=${DISCOVERY_TIMEOUT}`);
    if (r.status < 200 || r.status > 299) throw statusError(r);
    let info: unknown;
    try {
      info = JSON.parse(r.body);
    } catch (e) {
      throw new Error(`unable to parse the server version: ${(e as Error).message}`);
    }
    const o = isObj(info) ? info : {};
    return {
      major: typeof o['major'] === 'string' ? o['major'] : '',
      minor: typeof o['minor'] === 'string' ? o['minor'] : '',
    };
  }

  /** `CoreV1().Nodes().Get(name)`: the node's `spec.podCIDRs`. */
  nodePodCidrs(name: string): string[] {
    const r = get(this.host, `${this.server}/api/v1/nodes/${encodeURIComponent(name)}`);
    if (r.status < 200 || r.status > 299) throw statusError(r);
    const node = JSON.parse(r.body) as unknown;
    const spec = isObj(node) && isObj(node['spec']) ? node['spec'] : {};
    const cidrs = spec['podCIDRs'];
    return Array.isArray(cidrs) ? cidrs.filter((c): c is string => typeof c === 'string') : [];
  }
}
