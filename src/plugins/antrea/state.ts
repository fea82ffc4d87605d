/**
 * The Antrea agent's section of the host snapshot (`agents.antrea`, src/host/agents.ts), and the
 * shape check of the JSON it is read back from: `AntreaAgent.toState()` writes it,
 * `parseAntreaState` checks every field's type and refuses unknown keys (E_INVALIDARG naming the
 * field); what the values mean (a pod in the pod subnet, a group ID twice) the agent checks
 * (`AntreaAgent.fromState`). JSON-RPC `AntreaStart` reads its options with `antreaOptionsFromJson`.
 */
import { hnsError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type {
  AntreaAgentOptions,
  AntreaCniResult,
  AntreaPeer,
  AntreaPolicyRule,
  AntreaService,
} from './agent.js';

/** A pod the agent attached, every field of its record (the CNI result too). */
export interface AntreaPodState {
  readonly containerId: string;
  readonly name: string;
  readonly namespace: string;
  readonly endpointName: string;
  readonly endpointId: string;
  readonly ip: string;
  readonly mac: string;
  readonly ofport: number;
  readonly result: AntreaCniResult;
}

/** `agents.antrea`: what a rebuilt agent continues from. */
export interface AntreaAgentState {
  readonly options: AntreaAgentOptions;
  readonly started: boolean;
  readonly pods: readonly AntreaPodState[];
  readonly peers: readonly AntreaPeer[];
  /** AntreaProxy's Service ports as given, in the order they came, each with its group ID. */
  readonly services: readonly (AntreaService & { readonly groupId: number })[];
  /** Released group IDs (the next Service takes the last first) and the next never-used one. */
  readonly freeGroupIds: readonly number[];
  readonly nextGroupId: number;
  readonly policies: {
    readonly rules: readonly AntreaPolicyRule[];
    readonly isolated: { readonly in: readonly string[]; readonly out: readonly string[] };
  };
  /** host-local's `last_reserved_ip` ('' before the first ADD). */
  readonly lastReservedIp: string;
  /** The NodePort mappings the host refused, `<port>-<protocol>` → the error. */
  readonly nodePortErrors: Readonly<Record<string, string>>;
}

const OPTION_KEYS = [
  'podCidr',
  'adapter',
  'tunnelType',
  'trafficEncapMode',
  'proxyAll',
  'dnsServers',
  'dnsSearch',
];
const STATE_KEYS = [
  'options',
  'started',
  'pods',
  'peers',
  'services',
  'freeGroupIds',
  'nextGroupId',
  'policies',
  'lastReservedIp',
  'nodePortErrors',
];
const POD_KEYS = [
  'containerId',
  'name',
  'namespace',
  'endpointName',
  'endpointId',
  'ip',
  'mac',
  'ofport',
  'result',
];
const SERVICE_KEYS = [
  'key',
  'clusterIP',
  'port',
  'protocol',
  'affinityTimeout',
  'nodePort',
  'endpoints',
  'groupId',
];
const RULE_KEYS = ['id', 'policy', 'direction', 'appliedTo', 'peers', 'ports'];

const bad = (what: string, why: string): never => {
  throw hnsError('E_INVALIDARG', `${what} ${why}`);
};

/** `value` as an object with only `keys` (and every one of `required`), else E_INVALIDARG naming `what`. */
function objectOf(
  value: unknown,
  what: string,
  keys: readonly string[],
  required: readonly string[] = [],
): JsonObject {
  if (!isJsonObject(value)) bad(what, 'must be an object');
  const o = value as JsonObject;
  const extra = Object.keys(o).find((k) => !keys.includes(k));
  if (extra !== undefined) bad(`${what}:`, `unknown key "${extra}" (${keys.join(', ')})`);
  const missing = required.find((k) => o[k] === undefined);
  if (missing !== undefined) bad(`${what}.${missing}`, 'is required');
  return o;
}

function str(o: JsonObject, what: string, k: string): void {
  if (o[k] !== undefined && typeof o[k] !== 'string') bad(`${what}.${k}`, 'must be a string');
}

function bool(o: JsonObject, what: string, k: string): void {
  if (o[k] !== undefined && typeof o[k] !== 'boolean') bad(`${what}.${k}`, 'must be true or false');
}

/** An integer in `min..max` (when present). */
function int(o: JsonObject, what: string, k: string, min: number, max: number): void {
  const v = o[k];
  if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max))
    bad(`${what}.${k}`, `must be an integer ${min}..${max}`);
}

function strings(o: JsonObject, what: string, k: string): void {
  const v = o[k];
  if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === 'string')))
    bad(`${what}.${k}`, 'must be a list of strings');
}

function oneOf(o: JsonObject, what: string, k: string, values: readonly string[]): void {
  const v = o[k];
  if (v !== undefined && !values.includes(v as string))
    bad(`${what}.${k}`, `must be one of ${values.map((x) => `"${x}"`).join(', ')}`);
}

function list(o: JsonObject, what: string, k: string): unknown[] {
  const v = o[k];
  if (!Array.isArray(v)) return bad(`${what}.${k}`, 'must be a list');
  return v;
}

/**
 * `AntreaAgent`'s options from JSON (JSON-RPC `AntreaStart`, a snapshot's `agents.antrea.options`):
 * the shapes checked, unknown keys refused (E_INVALIDARG naming the field under `what`); the pod
 * subnet itself is the agent's to check.
 */
export function antreaOptionsFromJson(value: unknown, what = 'Antrea'): AntreaAgentOptions {
  const o = objectOf(value, what, OPTION_KEYS, ['podCidr']);
  for (const k of ['podCidr', 'adapter']) str(o, what, k);
  oneOf(o, what, 'tunnelType', ['geneve', 'vxlan', 'stt']);
  oneOf(o, what, 'trafficEncapMode', ['encap', 'noEncap']);
  bool(o, what, 'proxyAll');
  strings(o, what, 'dnsServers');
  strings(o, what, 'dnsSearch');
  return o as unknown as AntreaAgentOptions;
}

/** A snapshot's `agents.antrea` with every field of the right type (a copy: the caller keeps its own). */
export function parseAntreaState(value: unknown, what: string): AntreaAgentState {
  const o = structuredClone(objectOf(value, what, STATE_KEYS, STATE_KEYS));
  antreaOptionsFromJson(o['options'], `${what}.options`);
  bool(o, what, 'started');
  list(o, what, 'pods').forEach((x, i) => {
    const w = `${what}.pods[${i}]`;
    const p = objectOf(x, w, POD_KEYS, POD_KEYS);
    for (const k of POD_KEYS.slice(0, 7)) str(p, w, k);
    int(p, w, 'ofport', 0, 0xfffffeff);
    const r = p['result'];
    if (!isJsonObject(r) || typeof r['cniVersion'] !== 'string')
      bad(`${w}.result`, 'must be a CNI result (an object with its cniVersion)');
  });
  list(o, what, 'peers').forEach((x, i) => {
    const w = `${what}.peers[${i}]`;
    const p = objectOf(x, w, ['name', 'nodeIp', 'podCidr'], ['name', 'nodeIp', 'podCidr']);
    for (const k of ['name', 'nodeIp', 'podCidr']) str(p, w, k);
  });
  list(o, what, 'services').forEach((x, i) => {
    const w = `${what}.services[${i}]`;
    const s = objectOf(x, w, SERVICE_KEYS, ['key', 'clusterIP', 'port', 'protocol', 'endpoints', 'groupId']);
    str(s, w, 'key');
    str(s, w, 'clusterIP');
    int(s, w, 'port', 0, 65535);
    oneOf(s, w, 'protocol', ['TCP', 'UDP']);
    int(s, w, 'affinityTimeout', 0, 86400);
    int(s, w, 'nodePort', 1, 65535);
    int(s, w, 'groupId', 1, 0xfffffeff);
    list(s, w, 'endpoints').forEach((e, j) => {
      const we = `${w}.endpoints[${j}]`;
      const ep = objectOf(e, we, ['ip', 'port', 'local'], ['ip', 'port', 'local']);
      str(ep, we, 'ip');
      int(ep, we, 'port', 0, 65535);
      bool(ep, we, 'local');
    });
  });
  list(o, what, 'freeGroupIds').forEach((g, i) => {
    if (typeof g !== 'number' || !Number.isInteger(g) || g < 1)
      bad(`${what}.freeGroupIds[${i}]`, 'must be a group ID (an integer from 1)');
  });
  int(o, what, 'nextGroupId', 1, 0xffffff00);
  const pw = `${what}.policies`;
  const pol = objectOf(o['policies'], pw, ['rules', 'isolated'], ['rules', 'isolated']);
  list(pol, pw, 'rules').forEach((x, i) => {
    const w = `${pw}.rules[${i}]`;
    const r = objectOf(x, w, RULE_KEYS, ['id', 'direction', 'appliedTo']);
    int(r, w, 'id', 0, 0xffffffff);
    str(r, w, 'policy');
    oneOf(r, w, 'direction', ['In', 'Out']);
    strings(r, w, 'appliedTo');
    strings(r, w, 'peers');
    if (r['ports'] !== undefined)
      list(r, w, 'ports').forEach((x2, j) => {
        const wp = `${w}.ports[${j}]`;
        const port = objectOf(x2, wp, ['protocol', 'port', 'endPort'], ['protocol']);
        oneOf(port, wp, 'protocol', ['TCP', 'UDP']);
        int(port, wp, 'port', 0, 65535);
        int(port, wp, 'endPort', 0, 65535);
      });
  });
  const iw = `${pw}.isolated`;
  const iso = objectOf(pol['isolated'], iw, ['in', 'out'], ['in', 'out']);
  strings(iso, iw, 'in');
  strings(iso, iw, 'out');
  str(o, what, 'lastReservedIp');
  const errs = o['nodePortErrors'];
  if (!isJsonObject(errs) || !Object.values(errs).every((v) => typeof v === 'string'))
    bad(`${what}.nodePortErrors`, 'must be an object of error texts by "<port>-<protocol>"');
  for (const k of Object.keys(errs as JsonObject))
    if (!/^\d{1,5}-(TCP|UDP)$/.test(k)) bad(`${what}.nodePortErrors:`, `"${k}" is not <port>-<protocol>`);
  return o as unknown as AntreaAgentState;
}
