// `hnsim analyze FILE --port PORT` (src/cli/views.ts, src/render/analysis.ts): a port's ACL
// analysis in a shipped scenario and in a state file, text and JSON, and the command line's
// errors with their exit codes. The expected lines are written from the scenario's rules
// (scenarios/acl-analysis.yaml): web is 10.244.2.3 on win-2.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root, runHnsim } from './hnsim.js';
import { stateFile as writeState, type PodList } from './state-file.js';

const SCENARIO = join(root, 'scenarios/acl-analysis.yaml');
const dir = mkdtempSync(join(tmpdir(), 'hnsim-analyze-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stateFile = (file: string, pods: PodList) => writeState(dir, file, pods);

describe('hnsim analyze on a scenario', () => {
  it('names each rule with the packets it decides, the shadowed one with what takes its packets', async () => {
    const r = await runHnsim(['analyze', SCENARIO, '--port', 'web']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^ACL analysis of web_cbr0 \(10\.244\.2\.3, [0-9A-F-]{36}\)$/);
    const after = (head: string) => lines[lines.findIndex((l) => l.startsWith(head)) + 1];
    expect(after('  block-web  Block VFP priority 500  [decides]')).toBe(
      '      TCP to 10.244.2.3 port 80 from 10.244.0.0/16 except 10.244.3.7',
    );
    expect(after('  allow-sub  Allow VFP priority 600  [shadowed, redundant]')).toBe(
      '      its packets are decided by block-web (VFP)',
    );
    expect(after('  allow-dns  Allow VFP priority 900  [decides, redundant]')).toBe(
      '      UDP to port 53 from 10.244.2.3',
    );
  });

  it('--format json: counts as strings, a witness per set, the pod found by namespace/name too', async () => {
    const r = await runHnsim([
      'analyze',
      SCENARIO,
      '--port',
      'default/web',
      '--node',
      'win-2',
      '--format',
      'json',
    ]);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      endpoint: { ip: string };
      In: {
        rules: { rule: { ruleId: string }; status: string; decides: { count: string; witness?: object } }[];
      };
    };
    expect(doc.endpoint.ip).toBe('10.244.2.3');
    const probe = doc.In.rules.find((x) => x.rule.ruleId === 'allow-probe')!;
    expect(probe.status).toBe('decides');
    // one peer, any of its 65,536 source ports
    expect(probe.decides.count).toBe('65536');
    expect(probe.decides.witness).toEqual({
      protocol: 6,
      srcIp: '10.244.3.7',
      srcPort: 49152,
      dstIp: '10.244.2.3',
      dstPort: 80,
    });
  });

  it("docs/analysis.md's fix: allow-sub at 450 decides its /24, block-web keeps the rest", async () => {
    const text = readFileSync(SCENARIO, 'utf8');
    const at = text.indexOf('Priority: 600', text.indexOf('Id: allow-sub'));
    const fixed = join(dir, 'fixed.yaml');
    writeFileSync(fixed, text.slice(0, at) + 'Priority: 450' + text.slice(at + 'Priority: 600'.length));
    const r = await runHnsim(['analyze', fixed, '--port', 'web']);
    expect(r.stdout).toContain(
      [
        '  allow-sub  Allow VFP priority 450  [decides]',
        '      TCP to 10.244.2.3 port 80 from 10.244.2.0/24',
        '  block-web  Block VFP priority 500  [decides]',
        '      TCP to 10.244.2.3 port 80 from 10.244.0.0/16 except (10.244.2.0/24, 10.244.3.7)',
      ].join('\n'),
    );
  });

  it('without --port: every port of every node in a line, its findings; --node and JSON', async () => {
    const r = await runHnsim(['analyze', SCENARIO]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        '== win-1 ==',
        '  cbr0_ep (10.244.1.2): no ACL',
        '  client_cbr0 (10.244.1.3): no ACL',
        '',
        '== win-2 ==',
        '  cbr0_ep (10.244.2.2): no ACL',
        '  web_cbr0 (10.244.2.3): 6 rules; shadowed: allow-sub (by block-web (VFP)); redundant: allow-sub, allow-dns',
        '',
      ].join('\n'),
    );
    const fixed = await runHnsim([
      'analyze',
      join(root, 'scenarios/acl-analysis-fixed.yaml'),
      '--node',
      'win-2',
      '--format',
      'json',
    ]);
    expect(JSON.parse(fixed.stdout)).toEqual({
      'win-2': [
        { endpoint: 'cbr0_ep', ip: '10.244.2.2', rules: 0, shadowed: [], redundant: [], ties: 0 },
        { endpoint: 'web_cbr0', ip: '10.244.2.3', rules: 6, shadowed: [], redundant: ['allow-dns'], ties: 0 },
      ],
    });
  });

  it('--diff: the fix against the original, the packets it newly allows and the rule that does it', async () => {
    const text = readFileSync(SCENARIO, 'utf8');
    const at = text.indexOf('Priority: 600', text.indexOf('Id: allow-sub'));
    const fixed = join(dir, 'fixed-diff.yaml');
    writeFileSync(fixed, text.slice(0, at) + 'Priority: 450' + text.slice(at + 'Priority: 600'.length));
    const r = await runHnsim(['analyze', SCENARIO, '--port', 'web', '--diff', fixed]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        `ACL changes of web: ${SCENARIO} → ${fixed}`,
        '',
        'Inbound (In):',
        '  newly allowed:',
        '    now by allow-sub (VFP):',
        '      TCP to 10.244.2.3 port 80 from 10.244.2.0/24',
        '',
        'Outbound (Out):',
        '  unchanged',
        '',
      ].join('\n'),
    );
    const json = await runHnsim(['analyze', fixed, '--port', 'web', '--diff', SCENARIO, '--format', 'json']);
    const doc = JSON.parse(json.stdout) as {
      unchanged: boolean;
      In: { newlyDenied: { count: string; by: { rule: { ruleId: string } }[] } };
    };
    // the other way round: those packets are denied again, by block-web; 256 peers × 2^16 ports
    expect(doc.unchanged).toBe(false);
    expect(doc.In.newlyDenied.count).toBe(String(256 * 65536));
    expect(doc.In.newlyDenied.by.map((b) => b.rule.ruleId)).toEqual(['block-web']);
    const same = await runHnsim(['analyze', SCENARIO, '--port', 'web', '--diff', SCENARIO]);
    expect(same.stdout).toContain('No packet changes verdict, in either direction.');
  });

  it('--diff refuses a port whose address differs (exit 1)', async () => {
    const text = readFileSync(SCENARIO, 'utf8');
    // client first on win-2 too: web gets the next address there
    const moved = join(dir, 'moved.yaml');
    writeFileSync(moved, text.replace('- { name: client, node: win-1 }', '- { name: client, node: win-2 }'));
    const r = await runHnsim(['analyze', SCENARIO, '--port', 'web', '--diff', moved]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "hnsim: analyze: the port's address differs: 10.244.2.3 before, 10.244.2.4 after (its rules are judged against it)\n",
    );
  });

  it('refuses an empty --port (2), --diff without --port (2), a bad --format (2), an unknown port (1) or node (1)', async () => {
    const empty = await runHnsim(['analyze', SCENARIO, '--port', '']);
    expect([empty.status, empty.stderr]).toEqual([
      2,
      "hnsim: analyze: --port must not be empty (see 'hnsim analyze --help')\n",
    ]);
    const diffAlone = await runHnsim(['analyze', SCENARIO, '--diff', SCENARIO]);
    expect([diffAlone.status, diffAlone.stderr]).toEqual([
      2,
      "hnsim: analyze: --diff goes with --port, or with --from and/or --to (see 'hnsim analyze --help')\n",
    ]);
    const fmt = await runHnsim(['analyze', SCENARIO, '--port', 'web', '--format', 'yaml']);
    expect(fmt.status).toBe(2);
    const unknown = await runHnsim(['analyze', SCENARIO, '--port', 'nope']);
    expect([unknown.status, unknown.stderr]).toEqual([1, 'hnsim: analyze: no port "nope" in acl-analysis\n']);
    const node = await runHnsim(['analyze', SCENARIO, '--port', 'web', '--node', 'win-1']);
    expect(node.status).toBe(1);
  });
});

describe('JSON-RPC AnalyzePort (hnsim call --state)', () => {
  it('answers the analysis as --format json prints it; bad params and unknown ports are errors', async () => {
    const file = stateFile('rpc.json', [
      [
        'pod',
        '10.244.1.7',
        [
          {
            Type: 'ACL',
            Settings: {
              Id: 'no-ssh',
              Action: 'Block',
              Direction: 'In',
              Protocols: '6',
              LocalPorts: '22',
              Priority: 100,
            },
          },
        ],
      ],
    ]);
    const call = await runHnsim(['call', '--state', file, 'AnalyzePort', '{"endpoint":"pod"}']);
    expect(call.stderr).toBe('');
    const viaCli = await runHnsim(['analyze', file, '--port', 'pod', '--format', 'json']);
    expect(JSON.parse(call.stdout)).toEqual(JSON.parse(viaCli.stdout));
    const doc = JSON.parse(call.stdout) as { In: { rules: { decides: { text: string[] } }[] } };
    expect(doc.In.rules[0]!.decides.text).toEqual(['TCP to 10.244.1.7 port 22']);
    const bad = await runHnsim(['call', '--state', file, 'AnalyzePort', '{"port":"pod"}']);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stderr)).toEqual({
      code: -32602,
      message: 'Invalid params: AnalyzePort: unknown key "port" (endpoint)',
    });
    const none = await runHnsim(['call', '--state', file, 'AnalyzePort', '{"endpoint":"nope"}']);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('ERROR_NOT_FOUND');
  });
});

describe('hnsim analyze on a state file', () => {
  it('analyses an endpoint by name; one without ACLs allows every packet', async () => {
    const file = stateFile('node.json', [
      ['open', '10.244.1.5', []],
      [
        'locked',
        '10.244.1.6',
        [
          {
            Type: 'ACL',
            Settings: {
              Id: 'only-dns',
              Action: 'Allow',
              Direction: 'Out',
              Protocols: '17',
              RemotePorts: '53',
              Priority: 100,
            },
          },
        ],
      ],
    ]);
    const open = await runHnsim(['analyze', file, '--port', 'open']);
    expect(open.status).toBe(0);
    expect(open.stdout).toContain('Inbound (In):\n  no ACL rule: every packet allowed\n');
    const locked = await runHnsim(['analyze', file, '--port', 'locked']);
    expect(locked.stdout).toContain(
      [
        // the other direction: no rule of its own, the default deny of a port with ACLs
        'Inbound (In):',
        '  VFP default-deny:',
        '      any protocol to 10.244.1.6',
        '',
        'Outbound (Out):',
        '  only-dns  Allow VFP priority 100  [decides]',
        '      UDP to port 53 from 10.244.1.6',
        "      the port's only ACL: without it both directions allow everything",
        '  VFP default-deny:',
        '      any protocol except UDP from 10.244.1.6',
        '      UDP to port 0-52, 54-65535 from 10.244.1.6',
      ].join('\n'),
    );
  });
});
