/**
 * The scenario loader's errors: every problem of a bad file with its line, column and path, in
 * file order; the schema's rules (types, enums with did-you-mean, unknown keys, formats), the
 * checks after it (references, uniqueness, conflists), and the bounds (file size, aliases,
 * depth, counts). The expected messages are written here from the format's rules, not copied
 * from the loader's tables.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  formatIssue,
  LIMITS,
  loadScenario,
  ScenarioLoadError,
  SCENARIO_SCHEMA,
  type ScenarioIssue,
} from '../../src/scenario/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The issues a text gets, as `line:col path: message`. */
function issues(text: string): string[] {
  try {
    loadScenario(text, 'f.yaml');
  } catch (e) {
    if (!(e instanceof ScenarioLoadError)) throw e;
    return e.issues.map((i: ScenarioIssue) => `${i.line}:${i.col} ${i.path}: ${i.message}`);
  }
  return [];
}

const lines = (...l: string[]) => l.join('\n') + '\n';
const HEAD = ['hnsim: scenario/v1', 'name: t'];

/**
 * `line:col` of the `nth` occurrence of `needle` on a line of a file (1-based line), counted on
 * the text itself: the positions the tests expect come from the file, not from the loader.
 */
function pos(file: readonly string[], line: number, needle: string, nth = 1): string {
  const text = file[line - 1]!;
  let at = -1;
  for (let i = 0; i < nth; i++) at = text.indexOf(needle, at + 1);
  if (at < 0) throw new Error(`"${needle}" is not on line ${line}: ${text}`);
  return `${line}:${at + 1}`;
}

describe('the published schema', () => {
  it('scenarios/schema.json is the schema the loader checks with', () => {
    const published = JSON.parse(readFileSync(join(root, 'scenarios', 'schema.json'), 'utf8')) as unknown;
    expect(published).toEqual(JSON.parse(JSON.stringify(SCENARIO_SCHEMA)));
    expect(published).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema' });
  });
});

describe('loadScenario: the schema', () => {
  it('a minimal file loads', () => {
    const s = loadScenario(lines(...HEAD, 'hosts: [{ name: h }]'), 'min.yaml');
    expect(s.doc.hosts).toEqual([{ name: 'h' }]);
    expect(s.locate(['hosts', 0, 'name'])).toEqual({ line: 3, col: 17 });
  });

  it('the format marker is required and checked', () => {
    expect(issues(lines('name: t', 'hosts: [{ name: h }]'))).toEqual(['1:1 : missing required key "hnsim"']);
    expect(issues(lines('hnsim: scenario/v2', 'name: t', 'hosts: [{ name: h }]'))).toEqual([
      '1:8 hnsim: this hnsim reads scenario/v1, not scenario/v2',
    ]);
  });

  it('types, enums, unknown keys, patterns and formats, each at its own line and column', () => {
    const f = [
      ...HEAD,
      'seed: -1',
      'cluster: { dsr: yes }',
      'hosts:',
      '  - name: Win_1',
      '    flannel: { backend: vxlan, vni: "4096" }',
      '    nic: []',
      'pods:',
      '  - { name: a, node: h, isolation: hyper-v, labels: { app: [x] } }',
      'services:',
      '  - { name: s, ports: [], selector: {}, clusterIP: 10.96.0 }',
    ];
    expect(issues(lines(...f))).toEqual([
      `${pos(f, 3, '-1')} seed: must be in 0..4294967295 (got -1)`,
      `${pos(f, 4, 'yes')} cluster.dsr: must be true or false (got the string "yes")`,
      `${pos(f, 6, 'Win_1')} hosts[0].name: must be a name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit (got the string "Win_1")`,
      `${pos(f, 7, '"4096"')} hosts[0].flannel.vni: must be an integer (got the string "4096")`,
      `${pos(f, 8, 'nic')} hosts[0].nic: unknown key "nic"; did you mean "nics"? (known keys: name, os, profile, segment, podSubnet, macSpoofing, flannel, nics, networks, runtime, cni, antrea, ovnKubernetes, azure, cns)`,
      `${pos(f, 10, 'hyper-v')} pods[0].isolation: must be one of process, hyperv (got the string "hyper-v"); did you mean hyperv?`,
      `${pos(f, 10, '[x]')} pods[0].labels.app: must be a string (got a list)`,
      `${pos(f, 12, '[]')} services[0].ports: must not be empty`,
      `${pos(f, 12, '10.96.0')} services[0].clusterIP: must be an IPv4 address or None (got the string "10.96.0")`,
    ]);
  });

  it('addresses, prefixes, MACs, HRESULTs and profiles are checked for what they mean', () => {
    const f = [
      ...HEAD,
      'profile: ws2016',
      'hosts:',
      '  - name: h',
      '    nics: [{ name: Ethernet, ipAddress: 10.0.0.4/33, gateway: 10.0.0.256, macAddress: 00-15-5D-0G-00-01 }]',
      'steps:',
      '  - fail: { node: h, method: HcnCreateEndpoint, hresult: HCN_E_PORT_ALREADY_EXIST }',
      '  - call: { node: h, method: HcnDeleteEndpoint, expect: "0x803B00130" }',
    ];
    expect(issues(lines(...f))).toEqual([
      `${pos(f, 3, 'ws2016')} profile: must be ws2019, ws2022, ws2025 or an HNS version such as 13.1 (got the string "ws2016")`,
      `${pos(f, 6, '10.0.0.4/33')} hosts[0].nics[0].ipAddress: must be an IPv4 address with a prefix length 0..32, e.g. 10.244.1.0/24 (got the string "10.0.0.4/33")`,
      `${pos(f, 6, '10.0.0.256')} hosts[0].nics[0].gateway: must be an IPv4 address, e.g. 10.0.0.4 (got the string "10.0.0.256")`,
      `${pos(f, 6, '00-15')} hosts[0].nics[0].macAddress: must be a MAC address, e.g. 00-15-5D-01-02-03 (got the string "00-15-5D-0G-00-01")`,
      `${pos(f, 8, 'HCN_E')} steps[0].fail.hresult: must be a registered HRESULT name (HCN_E_…, E_…, ERROR_…), S_OK, or 0x followed by hex digits (got the string "HCN_E_PORT_ALREADY_EXIST"); did you mean HCN_E_PORT_ALREADY_EXISTS?`,
      `${pos(f, 9, '"0x')} steps[1].call.expect: must be a registered HRESULT name (HCN_E_…, E_…, ERROR_…), S_OK, or 0x followed by hex digits (got the string "0x803B00130")`,
    ]);
  });

  it('a step does exactly one thing', () => {
    expect(
      issues(
        lines(
          ...HEAD,
          'hosts: [{ name: h }]',
          'steps:',
          '  - { reboot: { node: h }, restartHns: { node: h } }',
          '  - { rebot: { node: h } }',
          '  - { title: nothing }',
          '  - note',
        ),
      ),
    ).toEqual([
      '5:5 steps[0]: has restartHns and reboot: a step does one thing (give each its own step)',
      '6:7 steps[1].rebot: unknown step "rebot"; did you mean "reboot"? (steps: note, addPod, deletePod, addService, deleteService, restartHns, reboot, restartHcs, deleteObject, fail, clearFaults, advance, call, ovs, renameAdapter, expect)',
      '7:5 steps[2]: must have one of the keys note, addPod, deletePod, addService, deleteService, restartHns, reboot, restartHcs, deleteObject, fail, clearFaults, advance, call, ovs, renameAdapter, expect',
      '8:5 steps[3]: must be a mapping with one of the keys note, addPod, deletePod, addService, deleteService, restartHns, reboot, restartHcs, deleteObject, fail, clearFaults, advance, call, ovs, renameAdapter, expect (got the string "note")',
    ]);
  });
});

describe('loadScenario: what the schema cannot say', () => {
  it('references to nodes, pods and services; unique names; standalone vs cluster', () => {
    const f = [
      ...HEAD,
      'cluster: { coreDns: { node: win-9 } }',
      'hosts:',
      '  - { name: win-1, flannel: { backend: host-gw }, cni: { conflist: { name: n, cniVersion: 1.0.0, plugins: [{ type: win-bridge }] } } }',
      '  - { name: win-1, nics: [{ name: Ethernet }] }',
      '  - { name: lin, os: linux, flannel: { backend: vxlan }, runtime: containerd }',
      'pods:',
      '  - { name: a, node: win-2 }',
      '  - { name: b, node: lin, isolation: hyperv }',
      '  - { name: a, node: win-1 }',
      'steps:',
      '  - deletePod: default/zzz',
      '  - reboot: { node: lin }',
      'expect:',
      '  traces:',
      '    - { from: default/a, to: svc:default/web, expect: Delivered }',
      '    - { from: default/nope, to: 10.0.0.1, expect: Delivered }',
      '  reachability:',
      '    - { from: [default/a], to: [default/b], default: allow, deny: ["default/b -> default/a", "x"] }',
    ];
    expect(issues(lines(...f))).toEqual([
      `${pos(f, 3, 'win-9')} cluster.coreDns.node: no node "win-9" (nodes: win-1, lin)`,
      `${pos(f, 6, '{')} hosts[1]: missing required key "flannel" (a cluster node needs a flanneld backend: host-gw or vxlan; or cni: antrea)`,
      `${pos(f, 6, 'win-1')} hosts[1].name: node "win-1" is defined twice`,
      `${pos(f, 6, '[')} hosts[1].nics: a cluster node's NIC is set up by the cluster (flanneld); nics is for a standalone host`,
      `${pos(f, 7, 'containerd')} hosts[2].runtime: runtime is for Windows nodes (a Linux node's pods are kubelet's)`,
      `${pos(f, 9, 'win-2')} pods[0].node: no node "win-2" (nodes: win-1, lin)`,
      `${pos(f, 10, 'hyperv')} pods[1].isolation: isolation needs a Windows node ("lin" is Linux)`,
      `${pos(f, 11, 'a,')} pods[2].name: pod default/a exists already`,
      `${pos(f, 13, 'default/zzz')} steps[0].deletePod: no pod default/zzz at this point`,
      `${pos(f, 14, 'lin')} steps[1].reboot.node: "lin" is a Linux node; this needs a Windows node`,
      `${pos(f, 17, 'svc:')} expect.traces[0].to: no service default/web in this scenario`,
      `${pos(f, 18, 'default/nope')} expect.traces[1].from: no pod default/nope in this scenario (a node/endpoint reference starts with a node name)`,
      `${pos(f, 20, '"default/b ->')} expect.reachability[0].deny[0]: "default/b" is not one of the table's sources (from)`,
      `${pos(f, 20, '"x"')} expect.reachability[0].deny[1]: must be "SOURCE -> TARGET" (got "x")`,
    ]);
  });

  it('a conflist libcni cannot load is refused at load time, with libcni’s words', () => {
    const f = [
      ...HEAD,
      'hosts:',
      '  - name: h',
      '    cni:',
      '      conflist: { cniVersion: 1.0.0, plugins: [] }',
    ];
    expect(issues(lines(...f))).toEqual([
      `${pos(f, 6, '{')} hosts[0].cni.conflist: libcni cannot load it: error parsing configuration list: no name`,
    ]);
  });
});

describe('loadScenario: YAML, and nothing executed', () => {
  it('syntax errors and duplicate keys, with their positions', () => {
    expect(issues(lines(...HEAD, 'hosts:', '  - name: a', '    name: b'))).toEqual([
      '5:5 : YAML: Map keys must be unique',
    ]);
    expect(issues('hnsim: [unclosed\n')).toEqual([
      expect.stringMatching(
        /^2:1 : YAML: Flow sequence in block collection must be sufficiently indented and end with a \]/,
      ),
    ]);
  });

  it('tags are refused: no custom types, no code', () => {
    const fn = [...HEAD, 'hosts: [{ name: !!js/function "h" }]'];
    expect(issues(lines(...fn))).toEqual([
      `${pos(fn, 3, '!!')} : YAML: Unresolved tag: tag:yaml.org,2002:js/function`,
    ]);
    const bin = [...HEAD, 'hosts: [{ name: !!binary aGVsbG8= }]'];
    expect(issues(lines(...bin))).toEqual([
      `${pos(bin, 3, 'aGVs')} hosts[0].name: the tag tag:yaml.org,2002:binary is not allowed (plain YAML values only)`,
    ]);
    expect(issues(lines(...HEAD, 'seed: .inf', 'hosts: [{ name: h }]'))).toEqual([
      '3:7 seed: .inf is not a finite number',
    ]);
  });

  it('a "__proto__" key is a key, refused like any unknown one', () => {
    expect(issues(lines(...HEAD, 'hosts: [{ name: h, __proto__: { polluted: true } }]'))).toEqual([
      expect.stringMatching(/^3:20 hosts\[0\]\.__proto__: unknown key "__proto__"/),
    ]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('loadScenario: bounds', () => {
  it('a file over the size bound is refused before it is parsed', () => {
    const big = lines(...HEAD, 'hosts: [{ name: h }]', `description: "${'x'.repeat(LIMITS.fileBytes)}"`);
    expect(issues(big)).toEqual([
      `1:1 : the file has ${Buffer.byteLength(big)} bytes; at most ${LIMITS.fileBytes} are read`,
    ]);
  });

  it('alias bombs stop at the alias bound', () => {
    const bomb = [
      ...HEAD,
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'hosts: [{ name: h }]',
    ];
    const out = issues(lines(...bomb));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(new RegExp(`more than ${LIMITS.aliases} aliases$`));
  });

  it('nesting deeper than the bound is refused where it starts being too deep', () => {
    const deep = `${'['.repeat(LIMITS.depth + 5)}${']'.repeat(LIMITS.depth + 5)}`;
    const out = issues(lines(...HEAD, 'hosts: [{ name: h }]', `description: ${deep}`));
    expect(out).toEqual([
      expect.stringMatching(
        new RegExp(`^4:\\d+ description(\\[0\\])+: nested more than ${LIMITS.depth} levels deep$`),
      ),
    ]);
  });

  it('pods counted after replicas; hosts by the schema', () => {
    const pods = Array.from({ length: 6 }, (_, i) => `  - { name: p${i}, node: h, replicas: 1000 }`);
    expect(
      issues(
        lines(
          ...HEAD,
          'cluster: {}',
          'hosts: [{ name: h, flannel: { backend: host-gw } }]',
          'pods:',
          ...pods,
        ),
      ),
    ).toEqual([`6:3 pods: 6000 pods (with replicas); at most ${LIMITS.pods}`]);
    const hosts = Array.from({ length: LIMITS.hosts + 1 }, (_, i) => `  - { name: h${i} }`);
    expect(issues(lines(...HEAD, 'hosts:', ...hosts))).toEqual([
      `4:3 hosts: has ${LIMITS.hosts + 1} items; at most ${LIMITS.hosts} are allowed`,
    ]);
  });

  it('formatIssue is FILE:LINE:COL: PATH: message', () => {
    expect(
      formatIssue({ file: 'a.yaml', line: 3, col: 7, path: 'hosts[1].nics[0].ipAddress', message: 'm' }),
    ).toBe('a.yaml:3:7: hosts[1].nics[0].ipAddress: m');
    expect(formatIssue({ file: 'a.yaml', line: 1, col: 1, path: '', message: 'm' })).toBe('a.yaml:1:1: m');
  });
});
