/**
 * `hnsim run` as a user runs it: `node bin/hnsim.js run …` in a child process — success, a failed
 * expectation (exit 1), a bad command line (exit 2), a bad file (exit 3, each problem with its
 * line, column and path), a file the simulator refuses (exit 4), `--format json`, `--trace`,
 * colour rules and stdin.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root, runHnsim, spawnHnsim, type CliOut } from '../cli/hnsim.js';

const dir = mkdtempSync(join(tmpdir(), 'hnsim-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hnsim = (args: string[], input?: string): CliOut => spawnHnsim(args, { input });
/** The CLI in-process (fast), with a fake terminal when asked. */
const run = (args: string[], tty = false, env: Record<string, string> = {}): Promise<CliOut> =>
  runHnsim(args, { tty, env });

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const QUICK = readFileSync(join(root, 'scenarios', 'quick-start.yaml'), 'utf8');

describe('hnsim run (spawned)', () => {
  it('runs the quick-start: narration, the nine flows, exit 0', () => {
    const r = hnsim(['run', 'scenarios/quick-start.yaml']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // the lifecycle, told from the events
    expect(r.stdout).toMatch(/HNS creates namespace [0-9A-F]{8} = compartment 2/);
    expect(r.stdout).toMatch(/CNI ADD win-bridge \(eth0, CNI_NETNS [0-9A-F]{8}\)/);
    expect(r.stdout).toMatch(
      /HNS creates endpoint [0-9a-f]{12}…_cbr0 on cbr0: 10\.244\.2\.4\/24, MAC 00-15-5D-[-0-9A-F]+, policies OutBoundNAT, SDNRoute, SDNRoute/,
    );
    expect(r.stdout).toMatch(/endpoint [0-9a-f]{12}…_cbr0 joins namespace [0-9A-F]{8} \(compartment 3\)/);
    expect(r.stdout).toContain('HCS creates the pause container');
    expect(r.stdout).toMatch(/gets its VFP layers: SLB_NAT_LAYER \(5 rules\)/);
    expect(r.stdout).toContain('+ load balancer 10.96.0.11 TCP 80 → 10.244.2.4:8080 (kube-proxy)');
    // the flows table and the truth table
    expect(r.stdout).toMatch(
      /✓ +Pod → Service \(ClusterIP\) +Delivered +Delivered +DNAT 10\.96\.0\.11:80→10\.244\.2\.4:8080/,
    );
    expect(r.stdout).toContain('0 wrong, 0 errors, 0 ignored, 9 correct');
    expect(r.stdout).toMatch(/All \d+ expectation\(s\) hold\.\n$/);
    expect(r.stdout).not.toContain('\x1b[');
  });

  it('exits 1 when an expectation does not hold, and says which, where and why', () => {
    const changed = QUICK.replace(
      /name: Pod → Node\n(\s+)from: default\/client\n\s+to: win-1\n\s+port: 10250\n\s+expect: Delivered/,
      'name: Pod → Node\n$1from: default/client\n$1to: win-1\n$1port: 10250\n$1expect: NoRoute',
    );
    expect(changed).not.toBe(QUICK);
    const r = hnsim(['run', file('failing.yaml', changed)]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/✗ +Pod → Node +NoRoute +Delivered/);
    expect(r.stdout).toMatch(
      /failing\.yaml:\d+:\d+ expect\.traces\[8\]\n +expected NoRoute, observed Delivered/,
    );
    expect(r.stdout).toMatch(/1 of \d+ expectation\(s\) do not hold\.\n$/);
  });

  it('exits 3 for a bad file, each problem as FILE:LINE:COL: PATH: message', () => {
    const p = file(
      'bad.yaml',
      [
        'hnsim: scenario/v1',
        'name: bad',
        'cluster: {}',
        'hosts:',
        '  - name: win-1',
        '    flannel: { backend: host-gw }',
        '  - name: win-2',
        '    flannel: { backend: vxlan }',
        '    nics:',
        '      - { name: Ethernet, ipAddress: 10.0.0.300/24 }',
        '',
      ].join('\n'),
    );
    const r = hnsim(['run', p]);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `hnsim: ${p}:10:38: hosts[1].nics[0].ipAddress: must be an IPv4 address with a prefix length 0..32, e.g. 10.244.1.0/24 (got the string "10.0.0.300/24")\n`,
    );
  });

  it('--format json: the report parses; a bad file gives its issues as JSON too', () => {
    const r = hnsim(['run', 'scenarios/dsr.yaml', '--format', 'json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      ok: boolean;
      exitCode: number;
      checkpoints: { results: { kind: string; ok: boolean; trace?: { observed: string } }[] }[];
      narration: { steps: { title: string }[] };
    };
    expect(doc).toMatchObject({ ok: true, exitCode: 0, scenario: 'dsr', seed: 5 });
    const traces = doc.checkpoints.flatMap((c) => c.results).filter((x) => x.kind === 'trace');
    expect(traces.map((t) => t.trace!.observed)).toEqual([
      'Delivered',
      'Unsupported',
      'Delivered',
      'Delivered',
    ]);
    expect(doc.narration.steps.map((s) => s.title)).toContain('Service default/svc-a');

    const bad = hnsim([
      'run',
      file('bad.json.yaml', 'hnsim: scenario/v1\nname: x\nhosts: []\n'),
      '--format',
      'json',
    ]);
    expect(bad.status).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      ok: false,
      exitCode: 3,
      issues: [{ line: 3, col: 8, path: 'hosts', message: 'must not be empty' }],
    });
  });

  it('reads stdin for "-"', () => {
    const r = hnsim(['run', '-'], readFileSync(join(root, 'scenarios', 'windows-limitations.yaml'), 'utf8'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('<stdin>, seed 9');
  });
});

describe('hnsim run (in-process)', () => {
  it('exits 4 when the simulator refuses what the file describes, with the place in the file', async () => {
    const p = file(
      'refused.yaml',
      [
        'hnsim: scenario/v1',
        'name: refused',
        'cluster: {}',
        'underlay:',
        '  segments:',
        '    - { name: rack-2, prefix: 10.0.0.0/25 }',
        'hosts:',
        '  - { name: win-1, flannel: { backend: host-gw } }',
        '',
      ].join('\n'),
    );
    const r = await run(['run', p]);
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(
        `^hnsim: ${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6:7: underlay\\.segments\\[0\\]: E_INVALIDARG .*clashes with nodes 10\\.0\\.0\\.0/24\\n$`,
      ),
    );
  });

  it('usage errors exit 2; --help documents the exit codes', async () => {
    expect((await run(['run'])).stderr).toBe(
      "hnsim: run: a SCENARIO file is required (see 'hnsim run --help')\n",
    );
    expect((await run(['run', 'a.yaml', 'b.yaml'])).status).toBe(2);
    expect((await run(['run', 'a.yaml', '--format', 'xml'])).stderr).toContain(
      '--format must be text or json',
    );
    expect((await run(['run', 'a.yaml', '--bogus'])).status).toBe(2);
    const help = await run(['run', '--help']);
    expect(help.status).toBe(0);
    for (const code of [
      '0  every expectation holds',
      '1  an expectation does not hold',
      '2  bad command line',
      '3  the file is not a valid scenario',
      '4  the simulator refused',
    ])
      expect(help.stdout).toContain(code);
    expect((await run(['help', 'run'])).stdout).toBe(help.stdout);
    expect((await run(['--help'])).stdout).toMatch(/\n {2}run {10}Run a scenario file/);
  });

  it('colour only on a terminal without NO_COLOR; --trace adds each trace; --seed is taken', async () => {
    const tty = await run(['run', 'scenarios/failures/mac-spoofing-off.yaml'], true);
    expect(tty.stdout).toContain('\x1b[1m');
    expect(tty.stdout).toContain('\x1b[32m✓\x1b[0m');
    const noColor = await run(['run', 'scenarios/failures/mac-spoofing-off.yaml'], true, { NO_COLOR: '1' });
    expect(noColor.stdout).not.toContain('\x1b[');
    const traced = await run(['run', 'scenarios/failures/mac-spoofing-off.yaml', '--trace']);
    expect(traced.stdout).toMatch(/trace of the container → the internet:\n +Trace c1 → 8\.8\.8\.8/);
    expect(traced.stdout).toContain('MAC spoofing');
    const seeded = await run(['run', 'scenarios/failures/mac-spoofing-off.yaml', '--seed', '77']);
    expect(seeded.stdout).toContain('seed 77');
    expect((await run(['run', 'x.yaml', '--seed', 'ten'])).status).toBe(2);
  });
});
