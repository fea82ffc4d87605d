/**
 * The scenario loader: YAML text → a checked scenario, or every problem with its file, line,
 * column and path (`hosts[1].nics[0].ipAddress: must be …`). Nothing in the file is executed: the
 * YAML is parsed by the `yaml` package into its syntax tree (which keeps each value's offsets, so
 * each error can name its line) and turned into plain JSON here — only the core schema's strings,
 * numbers, booleans and nulls, maps with string keys and sequences; any other tag, an alias chain
 * that grows too much, a value too deep or a file too big is refused. The JSON is then checked
 * against the published schema (src/scenario/validate.ts), then for what a schema cannot say:
 * names that must exist, unique names, sizes after `replicas`, conflists libcni can parse.
 *
 *   const s = loadScenario(text, 'scenarios/quick-start.yaml');   // throws ScenarioLoadError
 */
import { readFileSync, statSync } from 'node:fs';
import type { Document, LineCounter, Node as YamlNode, ParsedNode } from 'yaml';
import { flowSpecSet } from '../analysis/flowspec.js';
import { AclSpace } from '../analysis/space.js';
import { confListFromBytes } from '../cni/conf.js';
import { errorMessage } from '../core/errors.js';
import { checkNetworkPolicy, type NetworkPolicySpec } from '../cluster/netpol.js';
import type { Json, JsonObject } from '../core/json.js';
import { yaml } from '../core/yaml.js';
import { LIMITS, SCENARIO_FORMAT, SCENARIO_SCHEMA, STEP_KINDS } from './schema.js';
import type { PodSpec, ScenarioDoc, Scenario, SourcePosition, Step } from './types.js';
import { parseIpv4, parseIpv4Prefix, SchemaValidator, type JsonPath } from './validate.js';

export interface ScenarioIssue {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** `hosts[1].nics[0].ipAddress`; '' for the whole file. */
  readonly path: string;
  readonly message: string;
}

/** `file:line:col: path: message`. */
export function formatIssue(i: ScenarioIssue): string {
  return `${i.file}:${i.line}:${i.col}: ${i.path ? `${i.path}: ` : ''}${i.message}`;
}

/** A file that is not a valid scenario: every issue found (up to LIMITS.errors), in file order. */
export class ScenarioLoadError extends Error {
  constructor(
    readonly issues: readonly ScenarioIssue[],
    /** Issues found beyond those listed. */
    readonly omitted = 0,
  ) {
    super(issues.map(formatIssue).join('\n') + (omitted ? `\n… and ${omitted} more problem(s)` : ''));
    this.name = 'ScenarioLoadError';
  }
}

/** `hosts[1].nics[0].ipAddress`, `labels["app.kubernetes.io/name"]`. */
export function formatPath(path: JsonPath): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

const pathKey = (path: JsonPath) => path.map(String).join('\u0000');

/** The offsets of each value (and of its key) the converter met, by path. */
class Positions {
  private readonly values = new Map<string, number>();
  private readonly keys = new Map<string, number>();

  constructor(private readonly lines: LineCounter) {}

  set(path: JsonPath, valueAt: number, keyAt?: number): void {
    const k = pathKey(path);
    if (!this.values.has(k)) this.values.set(k, valueAt);
    if (keyAt !== undefined && !this.keys.has(k)) this.keys.set(k, keyAt);
  }

  /** The value's position (or its key's with `atKey`), else the nearest ancestor's. */
  locate(path: JsonPath, atKey = false): SourcePosition {
    for (let n = path.length; n >= 0; n--) {
      const k = pathKey(path.slice(0, n));
      const at = (atKey && n === path.length ? this.keys.get(k) : undefined) ?? this.values.get(k);
      if (at !== undefined) {
        const { line, col } = this.lines.linePos(at);
        return { line, col };
      }
    }
    return { line: 1, col: 1 };
  }
}

/** A problem found while turning the YAML tree into JSON. */
class ConvertError {
  constructor(
    readonly path: JsonPath,
    readonly message: string,
    readonly offset: number,
  ) {}
}

const CORE_TAGS = new Set([
  'tag:yaml.org,2002:str',
  'tag:yaml.org,2002:int',
  'tag:yaml.org,2002:float',
  'tag:yaml.org,2002:bool',
  'tag:yaml.org,2002:null',
  'tag:yaml.org,2002:map',
  'tag:yaml.org,2002:seq',
]);

/** The YAML syntax tree as plain JSON, with every value's position recorded. */
class Converter {
  private values = 0;
  private aliases = 0;
  private readonly expanding = new Set<YamlNode>();

  constructor(
    private readonly doc: Document.Parsed,
    private readonly positions: Positions,
  ) {}

  convert(node: ParsedNode | null, path: JsonPath, depth: number, keyAt?: number): Json {
    const at = node?.range?.[0] ?? 0;
    this.positions.set(path, at, keyAt);
    if (++this.values > LIMITS.values)
      throw new ConvertError(path, `the file has more than ${LIMITS.values} values`, at);
    if (node === null) return null;
    if (node.tag !== undefined && !CORE_TAGS.has(node.tag))
      throw new ConvertError(path, `the tag ${node.tag} is not allowed (plain YAML values only)`, at);
    if (yaml().isAlias(node)) {
      if (++this.aliases > LIMITS.aliases)
        throw new ConvertError(path, `more than ${LIMITS.aliases} aliases`, at);
      const target = node.resolve(this.doc) as ParsedNode | undefined;
      if (!target || this.expanding.has(target))
        throw new ConvertError(path, `the alias *${node.source} names no anchor before it`, at);
      this.expanding.add(target);
      try {
        return this.convert(target, path, depth);
      } finally {
        this.expanding.delete(target);
      }
    }
    if (yaml().isScalar(node)) {
      const v = node.value;
      if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) throw new ConvertError(path, `${node.source} is not a finite number`, at);
        return v;
      }
      throw new ConvertError(path, 'not a plain value (string, number, true/false or null)', at);
    }
    if (depth >= LIMITS.depth)
      throw new ConvertError(path, `nested more than ${LIMITS.depth} levels deep`, at);
    if (yaml().isSeq(node)) {
      return node.items.map((item, i) => this.convert(item as ParsedNode | null, [...path, i], depth + 1));
    }
    if (yaml().isMap(node)) {
      const out: JsonObject = {};
      for (const pair of node.items) {
        const key = pair.key as ParsedNode | null;
        const keyOffset = key?.range?.[0] ?? at;
        if (!key || !yaml().isScalar(key) || !['string', 'number', 'boolean'].includes(typeof key.value))
          throw new ConvertError(path, 'a key must be a plain string', keyOffset);
        const k = String(key.value);
        if (Object.hasOwn(out, k))
          throw new ConvertError([...path, k], `the key "${k}" appears twice`, keyOffset);
        // defineProperty: a "__proto__" key is a key like any other (and the schema refuses it)
        Object.defineProperty(out, k, {
          value: this.convert(pair.value as ParsedNode | null, [...path, k], depth + 1, keyOffset),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    throw new ConvertError(path, 'not a YAML value this format reads', at);
  }
}

/** The first line of a yaml error message, without its " at line L, column C" suffix. */
function yamlMessage(e: { message: string }): string {
  const first = e.message.split('\n')[0] ?? e.message;
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

/** Check a scenario's text; throws ScenarioLoadError listing every problem. */
export function loadScenario(text: string, file = '<scenario>'): Scenario {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.fileBytes) {
    throw new ScenarioLoadError([
      {
        file,
        line: 1,
        col: 1,
        path: '',
        message: `the file has ${bytes} bytes; at most ${LIMITS.fileBytes} are read`,
      },
    ]);
  }
  const lines = new (yaml().LineCounter)();
  let doc: Document.Parsed;
  try {
    doc = yaml().parseDocument(text, {
      lineCounter: lines,
      prettyErrors: true,
      uniqueKeys: true,
      strict: true,
      version: '1.2',
      schema: 'core',
      merge: false,
      intAsBigInt: false,
    });
  } catch (e) {
    // the parser reports problems as data; a throw is a bug in it, still reported as a problem
    throw new ScenarioLoadError([
      { file, line: 1, col: 1, path: '', message: `YAML: ${(e as Error).message.split('\n')[0]}` },
    ]);
  }
  const syntax = [...doc.errors, ...doc.warnings];
  if (syntax.length) {
    const issues = syntax.slice(0, LIMITS.errors).map((e) => {
      const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
      return { file, line: pos.line, col: pos.col, path: '', message: `YAML: ${yamlMessage(e)}` };
    });
    throw new ScenarioLoadError(issues, Math.max(0, syntax.length - LIMITS.errors));
  }
  const positions = new Positions(lines);
  let json: Json;
  try {
    json = new Converter(doc, positions).convert(doc.contents, [], 0);
  } catch (e) {
    if (!(e instanceof ConvertError)) throw e;
    const { line, col } = lines.linePos(e.offset);
    throw new ScenarioLoadError([{ file, line, col, path: formatPath(e.path), message: e.message }]);
  }
  const issueAt = (path: JsonPath, message: string, atKey = false): ScenarioIssue => {
    const { line, col } = positions.locate(path, atKey);
    return { file, line, col, path: formatPath(path), message };
  };
  const fail = (found: readonly { path: JsonPath; message: string; atKey?: boolean }[]): never => {
    const issues = found.map((i) => issueAt(i.path, i.message, i.atKey));
    issues.sort((a, b) => a.line - b.line || a.col - b.col);
    throw new ScenarioLoadError(issues.slice(0, LIMITS.errors), Math.max(0, issues.length - LIMITS.errors));
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    fail([{ path: [], message: `a scenario is a mapping with hnsim: ${SCENARIO_FORMAT}, name and hosts` }]);
  }
  const format = (json as JsonObject)['hnsim'];
  if (typeof format === 'string' && format !== SCENARIO_FORMAT && /^scenario\/v\d+$/.test(format)) {
    fail([{ path: ['hnsim'], message: `this hnsim reads ${SCENARIO_FORMAT}, not ${format}` }]);
  }
  const schemaIssues = new SchemaValidator(SCENARIO_SCHEMA).validate(json);
  if (schemaIssues.length) fail(schemaIssues);
  const shorthand = expandCniShorthand(json as JsonObject);
  if (shorthand.length) fail(shorthand);
  const doc2 = json as unknown as ScenarioDoc;
  const semantic = checkScenario(doc2);
  if (semantic.length) fail(semantic);
  return { doc: doc2, file, locate: (path) => positions.locate(path) };
}

/** Read and check a scenario file (its size is checked before it is read). */
export function loadScenarioFile(path: string): Scenario {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    throw new ScenarioLoadError([
      { file: path, line: 1, col: 1, path: '', message: `cannot read the file: ${(e as Error).message}` },
    ]);
  }
  if (size > LIMITS.fileBytes) {
    throw new ScenarioLoadError([
      {
        file: path,
        line: 1,
        col: 1,
        path: '',
        message: `the file has ${size} bytes; at most ${LIMITS.fileBytes} are read`,
      },
    ]);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScenarioLoadError([
      { file: path, line: 1, col: 1, path: '', message: `cannot read the file: ${(e as Error).message}` },
    ]);
  }
  return loadScenario(text, path);
}

// ─────────────────────────────── checks the schema cannot make ───────────────────────────────

/**
 * `cni: azure` on a node of an Azure cluster is AKS's conflist for the cluster, as a node left
 * without `cni` there: it becomes `cni: {}` (in place). Elsewhere nothing gives that conflist.
 */
function expandCniShorthand(doc: JsonObject): { path: JsonPath; message: string }[] {
  const cluster = doc['cluster'] as JsonObject | undefined;
  const azure = cluster?.['azure'] !== undefined;
  const out: { path: JsonPath; message: string }[] = [];
  (doc['hosts'] as JsonObject[]).forEach((h, i) => {
    if (h['cni'] === 'antrea') {
      // Antrea's agent attaches the pods (no conflist, no runtime here): the node's `antrea` key
      if (cluster === undefined || azure)
        out.push({
          path: ['hosts', i, 'cni'],
          message: azure
            ? "cni: antrea is not for a node of an Azure cluster (its pods are azure-vnet's)"
            : 'cni: antrea is for a cluster node (cluster: …): its agent needs the other nodes',
        });
      else {
        delete h['cni'];
        h['antrea'] ??= {};
      }
      return;
    }
    if (h['cni'] === 'ovn-kubernetes') {
      // hybrid-overlay-node sets the node up, the cluster programs its pods as win-overlay would
      if (cluster === undefined || azure)
        out.push({
          path: ['hosts', i, 'cni'],
          message: azure
            ? "cni: ovn-kubernetes is not for a node of an Azure cluster (its pods are azure-vnet's)"
            : 'cni: ovn-kubernetes is for a cluster node (cluster: …): its hybrid overlay needs the other nodes',
        });
      else {
        delete h['cni'];
        h['ovnKubernetes'] ??= {};
      }
      return;
    }
    if (h['cni'] !== 'azure') return;
    if (azure) h['cni'] = {};
    else
      out.push({
        path: ['hosts', i, 'cni'],
        message:
          'cni: azure is the AKS conflist of an Azure cluster (cluster: {azure: …}); here give the mapping with its conflist',
      });
  });
  return out;
}

interface Issue {
  readonly path: JsonPath;
  readonly message: string;
}

/** The pods a pod entry stands for: `name`, or `name-0` … with replicas. */
export function expandPod(p: PodSpec): { readonly key: string; readonly name: string }[] {
  const ns = p.namespace ?? 'default';
  if (p.replicas === undefined) return [{ key: `${ns}/${p.name}`, name: p.name }];
  return Array.from({ length: p.replicas }, (_, i) => ({
    key: `${ns}/${p.name}-${i}`,
    name: `${p.name}-${i}`,
  }));
}

/** "SOURCE -> TARGET" as its two ends. */
/**
 * Where a `reachUnchanged` expectation at `path` (`['expect']` or `['steps', i, 'expect']`) compares
 * from: the number of steps run by then (0: just after the set-up) — `previous` is the previous
 * `expect` step (else the set-up), `setup` the set-up, a title the last earlier step of that title
 * (once it ran), a number that many steps (as `--at N`). A string says why it cannot be.
 */
export function sinceSteps(doc: ScenarioDoc, since: string | number, path: JsonPath): number | string {
  const steps = doc.steps ?? [];
  const at = path[0] === 'steps' ? Number(path[1]) : steps.length;
  if (typeof since === 'number')
    return since <= at ? since : `${since} steps: only ${at} run before this expectation`;
  if (since === 'setup') return 0;
  for (let i = at - 1; i >= 0; i--) {
    const st = steps[i]!;
    if (since === 'previous' ? Object.hasOwn(st, 'expect') : st.title === since)
      return since === 'previous' ? i : i + 1;
  }
  if (since === 'previous') return 0;
  return `no step titled "${since}" before this expectation (or previous, setup, a step count)`;
}

let specSpace: AclSpace | undefined;

/** Why a flow spec does not read (undefined when it does). */
function flowSpecProblem(spec: string): string | undefined {
  specSpace ??= new AclSpace();
  try {
    flowSpecSet(specSpace, spec, specSpace.universe);
    return undefined;
  } catch (e) {
    return (e as { detail?: string }).detail ?? errorMessage(e);
  }
}

export function parseCell(s: string): [string, string] | undefined {
  const i = s.indexOf('->');
  if (i < 0) return undefined;
  const a = s.slice(0, i).trim();
  const b = s.slice(i + 2).trim();
  return a && b ? [a, b] : undefined;
}

function contains(p: { addr: number; len: number }, ip: number): boolean {
  if (p.len === 0) return true;
  const mask = (~0 << (32 - p.len)) >>> 0;
  return (ip & mask) >>> 0 === (p.addr & mask) >>> 0;
}

/** What the schema cannot check: references, uniqueness, sizes, conflists. */
function checkScenario(doc: ScenarioDoc): Issue[] {
  const out: Issue[] = [];
  const add = (path: JsonPath, message: string) => out.push({ path, message });
  const clustered = doc.cluster !== undefined;
  const hosts = new Map<string, { os: 'windows' | 'linux'; cni: boolean; runtime: string }>();
  const podCidr = parseIpv4Prefix(doc.cluster?.podCidr ?? '10.244.0.0/16')!;
  const azure = doc.cluster?.azure !== undefined;
  const defaultServiceCidr = azure ? '10.0.0.0/16' : '10.96.0.0/12';
  const serviceCidr = parseIpv4Prefix(doc.cluster?.serviceCidr ?? defaultServiceCidr)!;
  const segments = new Set(['nodes']);

  doc.underlay?.segments?.forEach((s, i) => {
    if (segments.has(s.name))
      add(['underlay', 'segments', i, 'name'], `segment "${s.name}" is defined twice`);
    segments.add(s.name);
  });
  if (!clustered) {
    if (doc.underlay)
      add(['underlay'], 'an underlay joins cluster nodes: add cluster: {} (or remove underlay)');
    if (doc.services?.length) add(['services'], 'services need a cluster: add cluster: {}');
    if (doc.networkPolicies?.length)
      add(['networkPolicies'], 'networkPolicies need a cluster: add cluster: {}');
  }
  const dnsIp = doc.cluster?.dnsServiceIp;
  if (dnsIp !== undefined && !contains(serviceCidr, parseIpv4(dnsIp)!))
    add(
      ['cluster', 'dnsServiceIp'],
      `${dnsIp} is not in the service CIDR ${doc.cluster?.serviceCidr ?? defaultServiceCidr}`,
    );

  doc.hosts.forEach((h, i) => {
    const at = (...rest: (string | number)[]) => ['hosts', i, ...rest];
    const os = h.os ?? 'windows';
    if (hosts.has(h.name)) add(at('name'), `node "${h.name}" is defined twice`);
    // a node of an Azure cluster always runs its pods through azure-vnet (AKS's conflist by default)
    hosts.set(h.name, { os, cni: h.cni !== undefined || azure, runtime: h.runtime ?? 'containerd' });
    if (h.cni && h.cni.conflist === undefined && !azure)
      add(at('cni'), 'missing required key "conflist" (only a node of an Azure cluster has a default one)');
    if (azure) {
      if (os === 'linux')
        add(
          at('os'),
          "an Azure cluster's nodes are Windows VMs here (AKS Linux nodes' azure-vnet is not modelled)",
        );
      for (const k of [
        'flannel',
        'segment',
        'podSubnet',
        'nics',
        'networks',
        'antrea',
        'ovnKubernetes',
      ] as const)
        if (h[k] !== undefined)
          add(
            at(k),
            `${k} is not for a node of an Azure cluster (the VNet gives its NIC, AgentBaker its ext network, azure-vnet its pod network)`,
          );
      for (const k of Object.keys(h.azure ?? {}))
        if (k !== 'maxPods' && k !== 'nsg')
          add(at('azure', k), `unknown key "${k}" (a node of an Azure cluster takes maxPods and nsg)`);
      const mp = h.azure?.['maxPods'];
      if (mp !== undefined && doc.cluster?.azure?.mode === 'overlay')
        add(at('azure', 'maxPods'), 'an Overlay node has no secondary IPs: maxPods is for node-subnet mode');
      if (mp !== undefined && (typeof mp !== 'number' || !Number.isInteger(mp) || mp < 1 || mp > 250))
        add(at('azure', 'maxPods'), 'maxPods is an integer 1..250');
    } else if (clustered) {
      if (h.azure !== undefined)
        add(at('azure'), 'azure is for a standalone host, or a node of an Azure cluster (cluster.azure)');
      for (const k of ['nics', 'networks'] as const)
        if (h[k] !== undefined)
          add(
            at(k),
            `a cluster node's ${k === 'nics' ? 'NIC' : 'HNS network'} is set up by the cluster (flanneld); ${k} is for a standalone host`,
          );
      if (h.ovnKubernetes !== undefined) {
        if (h.antrea !== undefined) add(at('antrea'), 'a node runs Antrea or ovn-kubernetes, not both');
        const native = h.ovnKubernetes.mode === 'native';
        if (native && os === 'linux')
          add(
            at('ovnKubernetes', 'mode'),
            "mode native is for Windows nodes (OVN on Linux is the hybrid overlay's here)",
          );
        if (native && h.ovnKubernetes.vxlanPort !== undefined)
          add(
            at('ovnKubernetes', 'vxlanPort'),
            "vxlanPort is the hybrid overlay's: a native node tunnels with Geneve or STT",
          );
        if (!native && h.ovnKubernetes.encapType !== undefined)
          add(at('ovnKubernetes', 'encapType'), 'encapType is for native nodes (mode: native)');
        for (const k of ['flannel', 'cni', 'runtime'] as const)
          if (h[k] !== undefined)
            add(
              at(k),
              `${k} is not for an ovn-kubernetes node (hybrid-overlay-node sets it up; the cluster programs its pods as win-overlay would)`,
            );
      } else if (h.antrea !== undefined) {
        if (os === 'linux')
          add(at('antrea'), 'antrea is for Windows nodes here (its Linux agent is not modelled)');
        for (const k of ['flannel', 'cni', 'runtime', 'macSpoofing'] as const)
          if (h[k] !== undefined)
            add(at(k), `${k} is not for an Antrea node (its agent sets the node up and attaches its pods)`);
      } else if (!h.flannel)
        add(
          at(),
          'missing required key "flannel" (a cluster node needs a flanneld backend: host-gw or vxlan; or cni: antrea)',
        );
      if (h.segment !== undefined && !segments.has(h.segment))
        add(at('segment'), `no segment "${h.segment}" (segments: ${[...segments].join(', ')})`);
      if (h.podSubnet !== undefined) {
        const p = parseIpv4Prefix(h.podSubnet)!;
        if (p.len > 29) add(at('podSubnet'), 'a pod subnet is a /29 or larger');
        else if (!contains(podCidr, p.addr)) add(at('podSubnet'), `${h.podSubnet} is not in the pod CIDR`);
      }
    } else {
      if (i > 0) add(at(), 'a scenario without cluster has one host; add cluster: {} to run several nodes');
      for (const k of ['flannel', 'segment', 'podSubnet', 'macSpoofing', 'antrea', 'ovnKubernetes'] as const)
        if (h[k] !== undefined)
          add(at(k), `${k} is for cluster nodes: add cluster: {} (or use nics for a standalone host)`);
    }
    if (h.cns !== undefined) {
      if (clustered || h.azure === undefined)
        add(
          at('cns'),
          'cns is for a standalone Azure host (hosts[].azure); an Overlay cluster starts its own',
        );
      for (const k of Object.keys(h.cns))
        if (k !== 'ncs' && k !== 'multitenancy')
          add(at('cns', k), `unknown key "${k}" (a CNS takes ncs and multitenancy)`);
    }
    if (os === 'linux') {
      if (!clustered) add(at('os'), 'a Linux node needs a cluster');
      for (const k of ['cni', 'runtime', 'profile', 'macSpoofing'] as const)
        if (h[k] !== undefined) add(at(k), `${k} is for Windows nodes (a Linux node's pods are kubelet's)`);
    } else if (h.flannel?.mtu !== undefined) {
      add(at('flannel', 'mtu'), 'mtu is for Linux nodes (a Windows VXLAN network takes the NIC MTU − 50)');
    }
    if (h.cni?.conflist) {
      try {
        confListFromBytes(JSON.stringify(h.cni.conflist));
      } catch (e) {
        add(at('cni', 'conflist'), `libcni cannot load it: ${(e as Error).message}`);
      }
    }
  });
  const windows = (n: string) => hosts.get(n)?.os === 'windows';
  const needNode = (path: JsonPath, n: string, win = true) => {
    if (!hosts.has(n)) add(path, `no node "${n}" (nodes: ${[...hosts.keys()].join(', ')})`);
    else if (win && !windows(n)) add(path, `"${n}" is a Linux node; this needs a Windows node`);
  };

  // every pod and service the file names anywhere (for references)
  const allPods = new Set<string>();
  const allServices = new Set<string>(['default/kubernetes']);
  if (doc.cluster?.coreDns) {
    needNode(['cluster', 'coreDns', 'node'], doc.cluster.coreDns.node, false);
    for (let r = 0; r < (doc.cluster.coreDns.replicas ?? 1); r++) allPods.add(`kube-system/coredns-${r}`);
    allServices.add('kube-system/kube-dns');
  }
  let podCount = 0;
  const live = new Set<string>();
  const liveServices = new Set<string>(allServices);
  const checkPod = (p: PodSpec, path: JsonPath) => {
    const at = (...rest: (string | number)[]) => [...path, ...rest];
    needNode(at('node'), p.node, false);
    const h = hosts.get(p.node);
    for (const { key } of expandPod(p)) {
      if (live.has(key)) add(at('name'), `pod ${key} exists already`);
      live.add(key);
      allPods.add(key);
    }
    podCount += p.replicas ?? 1;
    if (p.expect?.error !== undefined && p.expect.phase !== 'Failed')
      add(at('expect', 'error'), 'an error goes with phase: Failed');
    if (p.hostProcess && p.isolation === 'hyperv')
      add(at('isolation'), 'a HostProcess pod is not Hyper-V isolated');
    if (!h) return;
    const runtimeOnly = ['isolation', 'hostProcess', 'portMappings', 'containers', 'retries'] as const;
    if (h.os === 'linux') {
      for (const k of [...runtimeOnly, 'policies'] as const)
        if (p[k] !== undefined) add(at(k), `${k} needs a Windows node ("${p.node}" is Linux)`);
    } else if (h.cni) {
      if (p.policies !== undefined)
        add(
          at('policies'),
          `node "${p.node}" runs pods through its CNI conflist: endpoint policies go in the conflist`,
        );
      if (p.isolation === 'hyperv' && h.runtime === 'dockershim')
        add(at('isolation'), 'dockershim runs process-isolated pods only (use runtime: containerd)');
    } else {
      for (const k of runtimeOnly)
        if (p[k] !== undefined)
          add(at(k), `${k} needs the pod runtime: give node "${p.node}" a cni conflist`);
    }
  };
  const checkService = (s: NonNullable<ScenarioDoc['services']>[number], path: JsonPath) => {
    const key = `${s.namespace ?? 'default'}/${s.name}`;
    if (liveServices.has(key)) add([...path, 'name'], `service ${key} exists already`);
    liveServices.add(key);
    allServices.add(key);
    if (s.clusterIP !== undefined && s.clusterIP !== 'None') {
      const ip = parseIpv4(s.clusterIP);
      if (ip === undefined)
        add([...path, 'clusterIP'], `must be an IPv4 address or None (got "${s.clusterIP}")`);
      else if (!contains(serviceCidr, ip))
        add(
          [...path, 'clusterIP'],
          `${s.clusterIP} is not in the service CIDR ${doc.cluster?.serviceCidr ?? defaultServiceCidr}`,
        );
    }
  };

  doc.pods?.forEach((p, i) => {
    if (!clustered && !hosts.get(p.node)?.cni && hosts.has(p.node))
      add(
        ['pods', i, 'node'],
        `node "${p.node}" has no cni: pods on a standalone host go through the runtime and its CNI conflist`,
      );
    checkPod(p, ['pods', i]);
  });
  doc.services?.forEach((s, i) => checkService(s, ['services', i]));
  doc.networkPolicies?.forEach((np, i) => {
    try {
      checkNetworkPolicy({ namespace: 'default', ...np } as unknown as NetworkPolicySpec);
    } catch (e) {
      add(['networkPolicies', i], errorMessage(e).replace(/^[^(]*\((.*)\)$/, '$1'));
    }
  });

  const expectations: { path: JsonPath; e: NonNullable<ScenarioDoc['expect']> }[] = [];
  doc.steps?.forEach((st: Step, i) => {
    const at = (...rest: (string | number)[]) => ['steps', i, ...rest];
    const kind = STEP_KINDS.find((k) => Object.hasOwn(st, k))!;
    const body = (st as unknown as Record<string, unknown>)[kind];
    const node = (body as { node?: string } | undefined)?.node;
    if (typeof node === 'string') needNode(at(kind, 'node'), node);
    switch (kind) {
      case 'addPod':
        if (!clustered && !hosts.get((body as PodSpec).node)?.cni && hosts.has((body as PodSpec).node))
          add(
            at(kind, 'node'),
            `node "${(body as PodSpec).node}" has no cni: pods on a standalone host go through the runtime`,
          );
        checkPod(body as PodSpec, at(kind));
        break;
      case 'deletePod':
        if (!live.delete(body as string)) add(at(kind), `no pod ${body as string} at this point`);
        break;
      case 'addService':
        if (!clustered) add(at(kind), 'services need a cluster: add cluster: {}');
        checkService(body as NonNullable<ScenarioDoc['services']>[number], at(kind));
        break;
      case 'deleteService':
        if (!liveServices.delete(body as string)) add(at(kind), `no service ${body as string} at this point`);
        break;
      case 'deleteObject': {
        const d = body as Extract<Step, { deleteObject: unknown }>['deleteObject'];
        const given = (['name', 'pod', 'vip'] as const).filter((k) => d[k] !== undefined);
        const allowed = {
          endpoint: ['name', 'pod'],
          network: ['name'],
          namespace: ['pod'],
          loadbalancer: ['vip'],
        }[d.kind];
        if (given.length !== 1 || !allowed.includes(given[0]!))
          add(at(kind), `a ${d.kind} is named by exactly one of: ${allowed.join(', ')}`);
        if (d.pod !== undefined && !allPods.has(d.pod))
          add(at(kind, 'pod'), `no pod ${d.pod} in this scenario`);
        break;
      }
      case 'ovs': {
        const o = body as Extract<Step, { ovs: unknown }>['ovs'];
        // start/stop take nothing and print nothing: a key there would be checked by nobody
        if (o.tool === 'start' || o.tool === 'stop')
          for (const k of ['args', 'status', 'stdout'] as const)
            if (o[k] !== undefined) add(at(kind, k), `${k} is for vsctl, ofctl and appctl, not ${o.tool}`);
        break;
      }
      case 'expect':
        expectations.push({ path: at(kind), e: body as NonNullable<ScenarioDoc['expect']> });
        break;
      default:
        break;
    }
  });
  if (podCount > LIMITS.pods) add(['pods'], `${podCount} pods (with replicas); at most ${LIMITS.pods}`);
  if (doc.expect) expectations.push({ path: ['expect'], e: doc.expect });

  // references in expectations
  const refOk = (ref: string): string | undefined => {
    if (ref.startsWith('svc:')) {
      const s = ref.slice(4);
      return allServices.has(s) ? undefined : `no service ${s} in this scenario`;
    }
    const slash = ref.indexOf('/');
    if (
      slash > 0 &&
      !hosts.has(ref.slice(0, slash)) &&
      parseIpv4Prefix(ref) === undefined &&
      !allPods.has(ref)
    )
      return `no pod ${ref} in this scenario (a node/endpoint reference starts with a node name)`;
    return undefined;
  };
  let traces = 0;
  let cells = 0;
  for (const { path, e } of expectations) {
    e.pods?.forEach((p, i) => {
      if (!allPods.has(p.pod)) add([...path, 'pods', i, 'pod'], `no pod ${p.pod} in this scenario`);
      if (p.error !== undefined && p.phase !== 'Failed')
        add([...path, 'pods', i, 'error'], 'an error goes with phase: Failed');
    });
    e.traces?.forEach((t, i) => {
      traces++;
      for (const k of ['from', 'to'] as const) {
        const msg = refOk(t[k]);
        if (msg) add([...path, 'traces', i, k], msg);
      }
    });
    e.reachability?.forEach((r, i) => {
      cells += r.from.length * r.to.length;
      r.from.forEach((f, j) => {
        const msg = refOk(f);
        if (msg) add([...path, 'reachability', i, 'from', j], msg);
      });
      r.to.forEach((f, j) => {
        const msg = refOk(f);
        if (msg) add([...path, 'reachability', i, 'to', j], msg);
      });
      for (const list of ['allow', 'deny'] as const)
        r[list]?.forEach((c, j) => {
          const cell = parseCell(c);
          if (!cell) add([...path, 'reachability', i, list, j], `must be "SOURCE -> TARGET" (got "${c}")`);
          else if (!r.from.includes(cell[0]))
            add(
              [...path, 'reachability', i, list, j],
              `"${cell[0]}" is not one of the table's sources (from)`,
            );
          else if (!r.to.includes(cell[1]))
            add([...path, 'reachability', i, list, j], `"${cell[1]}" is not one of the table's targets (to)`);
        });
    });
    e.hns?.forEach((h, i) => needNode([...path, 'hns', i, 'node'], h.node));
    e.audit?.forEach((a, i) => {
      if (a.node !== undefined) needNode([...path, 'audit', i, 'node'], a.node);
    });
    e.acls?.forEach((a, i) => {
      if (!allPods.has(a.pod)) add([...path, 'acls', i, 'pod'], `no pod ${a.pod} in this scenario`);
    });
    e.reach?.forEach((r, i) => {
      for (const k of ['from', 'to'] as const) {
        const msg = refOk(r[k]);
        if (msg) add([...path, 'reach', i, k], msg);
      }
      const bad = flowSpecProblem(r.exactly);
      if (bad) add([...path, 'reach', i, 'exactly'], bad);
    });
    e.reachUnchanged?.forEach((r, i) => {
      const since = sinceSteps(doc, r.since, path);
      if (typeof since === 'string') add([...path, 'reachUnchanged', i, 'since'], since);
      for (const k of ['from', 'to'] as const)
        r[k]?.forEach((ref, j) => {
          const msg = refOk(ref);
          if (msg) add([...path, 'reachUnchanged', i, k, j], msg);
        });
    });
  }
  if (traces > LIMITS.traces) add(['expect'], `${traces} traces in all; at most ${LIMITS.traces}`);
  if (cells > LIMITS.cells) add(['expect'], `${cells} reachability cells in all; at most ${LIMITS.cells}`);
  return out;
}
