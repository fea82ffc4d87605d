// The views of a scenario or state file (`hnsim show|trace|explain|diagram FILE`), `hnsim
// quickstart` as the quick-start scenario, and the CLI-wide rules (--help and `help CMD` on every
// command with its exit codes, colour only on a TTY without NO_COLOR, the progress bar on a TTY).
// A few run as a user does, `node bin/hnsim.js …` in a child process; the rest in-process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstPositional } from '../../src/cli/views.js';
import { root, runHnsim, spawnHnsim, type CliOut } from './hnsim.js';

// in-process runs do not change directory (workers cannot), so the files are absolute
const ACL = join(root, 'test/cli/fixtures/acl.yaml');
const QS = join(root, 'scenarios/quick-start.yaml');
const HYPERV = join(root, 'scenarios/hyperv-pods.yaml');
const LIMITS = join(root, 'scenarios/windows-limitations.yaml');

const spawn = (args: string[]): CliOut => spawnHnsim(args, { timeout: 120_000 });
const run = (args: string[], tty = false, env: Record<string, string> = {}): Promise<CliOut> =>
  runHnsim(args, { tty, env });

const dir = mkdtempSync(join(tmpdir(), 'hnsim-views-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('as a user runs it (child process)', () => {
  it('quickstart runs the quick-start scenario: narrated lifecycle, the flows, exit 0', () => {
    const r = spawn(['quickstart']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.stdout;
    expect(out.startsWith('hnsim run: quick-start\n')).toBe(true);
    expect(out).toMatch(/HNS creates namespace [0-9A-F]{8} = compartment 2/);
    expect(out).toContain('CNI ADD win-bridge (eth0, CNI_NETNS ');
    expect(out).toContain('HCS creates the pause container');
    expect(out).toContain('Pod → Service (ClusterIP)');
    expect(out).toMatch(/All \d+ expectation\(s\) hold\.\n$/);
    // the README's first screen shows an excerpt of this output: every line of it is in it
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const excerpt = /<!-- npm start excerpt[^\n]*\n```text\n([\s\S]*?)```/.exec(readme)![1]!;
    const lines = excerpt.split('\n').filter((l) => l !== '' && l !== '…');
    expect(lines.length).toBeGreaterThan(20);
    for (const l of lines) expect(out.split('\n')).toContain(l);
  });

  it('explain names the ACL that denied a flow and the one that would allow it', () => {
    const r = spawn(['explain', ACL, '--at', '1', '--from', 'client', '--to', 'web-0', '--port', '22']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('DENIED (DeniedIn): TCP 10.244.1.3:50000 → 10.244.2.3:22');
    expect(r.stdout).toContain('(Id block-ssh, priority 100)');
    expect(r.stdout).toContain('"Action":"Block","Direction":"In","LocalPorts":"22"');
    expect(r.stdout).toContain(
      '{"Type":"ACL","Settings":{"Action":"Allow","Direction":"In","Protocols":"6","RemoteAddresses":"10.244.1.3","LocalPorts":"22","Priority":99}}',
    );
  });

  it('diagram --format svg -o writes an SVG laid out by Graphviz (wasm, offline)', () => {
    const file = join(dir, 'hyperv.svg');
    const r = spawn(['diagram', HYPERV, '--format', 'svg', '-o', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const svg = readFileSync(file, 'utf8').replace(/&#45;/g, '-');
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<svg');
    expect(svg).toContain('utility VM of default/web-0');
    expect(svg).toContain('endpoint default/web-0');
  });

  it.each([
    [['diagram'], 2, /^hnsim: diagram: a scenario or state FILE is required \(see 'hnsim diagram --help'\)$/],
    [['explain', ACL, '--from', 'client'], 2, /^hnsim: explain: --to is required/],
    [
      ['trace', ACL, '--from', 'client', '--to', 'web-0', '--proto', 'sctp'],
      2,
      /--proto must be tcp, udp or icmp/,
    ],
    [['explain', 'no-such.yaml', '--from', 'a', '--to', 'b'], 3, /^hnsim: cannot read no-such\.yaml: /],
    [['explain', ACL, '--from', 'nobody', '--to', 'web-0'], 1, /^hnsim: explain: trace source "nobody"/],
    [
      ['diagram', QS, '--node', 'win-9'],
      1,
      /^hnsim: no Windows node "win-9" in quick-start \(win-1, win-2\)$/,
    ],
  ])('%j exits %i with one line on stderr', (args, code, message) => {
    const r = spawn(args);
    expect(r.status).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')[0]).toMatch(message);
  });
});

describe('show FILE', () => {
  it('lists a scenario per node, the new kinds included', async () => {
    const r = await run(['show', QS, 'compartments']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^== win-1 ==$/m);
    expect(r.stdout).toMatch(/^== win-2 ==$/m);
    expect(r.stdout).toMatch(/^1 +Default Compartment +HostDefault +cbr0_ep \(10\.244\.1\.2\/24\)/m);
    expect(r.stdout).toMatch(/^Compartments \(3\)$/m); // win-2: host, CoreDNS, web-0
  });

  it('JSON is {node: {kind: [...]}}, and --node picks one', async () => {
    const r = await run(['show', HYPERV, 'containers', '--node', 'win-2', '--format', 'json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<
      string,
      { containers: { SystemType: string; Isolation: string }[] }
    >;
    expect(Object.keys(doc)).toEqual(['win-2']);
    expect(doc['win-2']!.containers.map((c) => [c.SystemType, c.Isolation])).toEqual([
      ['VirtualMachine', 'VirtualMachine'],
      ['Container', 'Hosted'],
    ]);
  });

  it('policies lists each policy with its object; --at takes the state after N steps', async () => {
    const end = await run(['show', ACL, 'policies', '--node', 'win-1']);
    const early = await run(['show', ACL, 'policies', '--node', 'win-1', '--at', '1']);
    expect(early.stdout).toMatch(/^Endpoint +client_cbr0 .* OutBoundNAT /m);
    expect(end.stdout).not.toContain('client_cbr0'); // the last step deleted the client
  });

  it('lists a state file written by hnsim call', async () => {
    const state = join(dir, 'node.json');
    expect(
      (await run(['call', '--state', state, 'HcnCreateNetwork', 'null', '{"Name":"nat","Type":"NAT"}']))
        .status,
    ).toBe(0);
    const r = await run(['show', state, 'networks']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Networks \(1\)$/m);
    expect(r.stdout).toMatch(/^nat +/m);
    const c = await run(['show', state, 'compartments', '--format', 'json']);
    expect((JSON.parse(c.stdout) as { compartments: unknown[] }).compartments).toHaveLength(1);
    expect((await run(['show', state, '--at', '1'])).status).toBe(2);
  });

  it('the new kinds also list a fresh host; an unknown kind is still a usage error', async () => {
    const r = await run(['show', 'compartments']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^1 +Default Compartment +HostDefault/m);
    const bad = await run(['show', 'widgets']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown object kind "widgets" \(use networks, .*, containers or all\)/);
  });

  it('a bad scenario is exit 3 with FILE:LINE:COL, one the simulator refuses exit 4', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'hnsim: scenario/v1\nname: bad\nhosts:\n  - { name: h, flanel: {} }\n');
    const r = await run(['show', bad]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`${bad}:4:`);
    const refused = join(dir, 'refused.yaml');
    writeFileSync(refused, readFileSync(QS, 'utf8').replace('seed: 1', 'seed: 1\nprofile: "8.0"'));
    expect((await run(['diagram', refused])).status).toBe(4);
  });
});

describe('trace FILE and explain', () => {
  it('traces a service by name and port name, at every level', async () => {
    const r = await run([
      'trace',
      ACL,
      '--at',
      '1',
      '--from',
      'client',
      '--to',
      'svc:web:http',
      '--level',
      'minimal',
    ]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('DNAT');
    expect(r.stdout).toMatch(/DeniedIn/);
    const json = await run([
      'trace',
      QS,
      '--from',
      'default/client',
      '--to',
      'svc:default/web',
      '--format',
      'json',
    ]);
    expect((JSON.parse(json.stdout) as { disposition: string }).disposition).toBe('Delivered');
  });

  it('explain sees the source a load balancer SNATed, and says so', async () => {
    const r = await run(['explain', ACL, '--at', '1', '--from', 'client', '--to', 'svc:web']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('sees the packet from 10.0.0.10, not 10.244.1.3');
    expect(r.stdout).toContain('"RemoteAddresses":"10.0.0.10","LocalPorts":"80"');
  });

  it('explain of an allowed flow names the allowing rule and how to deny it; JSON has the parts', async () => {
    const r = await run([
      'explain',
      ACL,
      '--at',
      '1',
      '--from',
      'client',
      '--to',
      'web-0',
      '--format',
      'json',
    ]);
    const e = JSON.parse(r.stdout) as { verdict: string; why: string[]; change: string[] };
    expect(e.verdict).toBe('allowed');
    expect(e.why.join(' ')).toContain('Id allow-client-80, priority 200');
    expect(e.change[0]).toContain('"Action":"Block"');
    expect(e.change[0]).toContain('"Priority":199');
  });

  it('explain of a platform limit names the policy (ICMP through OutBoundNAT)', async () => {
    const r = await run([
      'explain',
      LIMITS,
      '--from',
      'default/client',
      '--to',
      '8.8.8.8',
      '--proto',
      'icmp',
    ]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^DENIED \(Unsupported\): ICMP /);
    expect(r.stdout).toContain('OutBoundNAT policy #0 of endpoint');
  });
});

describe('diagram', () => {
  it('DOT and Mermaid hold the hosts, switches, ports, endpoints, compartments and underlay', async () => {
    const dot = await run(['diagram', QS]);
    expect(dot.status).toBe(0);
    expect(dot.stdout.startsWith('graph hnsim {')).toBe(true);
    for (const s of [
      'label="win-1 (Windows, flannel host-gw, 10.0.0.10, ws2022)"',
      'label="vSwitch cbr0 (External)"', // named after the network that made it
      'host vNIC vEthernet (Ethernet)',
      'compartment 1 (host)',
      'endpoint default/client',
      'container default/client (pause)',
      'segment nodes\\n10.0.0.0/24',
      'www.bing.com',
    ])
      expect(dot.stdout).toContain(s);
    expect(dot.stdout).toMatch(/VFP: SLB_NAT, VNET_PA_ROUTE, VNET_MAC_REWRITE/);
    const mermaid = await run(['diagram', QS, '--format', 'mermaid', '--node', 'win-1']);
    expect(mermaid.stdout).toContain('flowchart LR');
    expect(mermaid.stdout).not.toContain('win-2 (');
    expect((await run(['diagram', QS])).stdout).toBe(dot.stdout); // deterministic
  });
});

describe('every command', () => {
  const commands = [
    'quickstart',
    'run',
    'serve',
    'show',
    'trace',
    'explain',
    'diagram',
    'cni',
    'call',
    'wine',
    'ovs',
    'analyze',
    'version',
  ];

  it.each(commands)('%s: --help equals help CMD, and documents its exit status', async (cmd) => {
    const a = await run([cmd, '--help']);
    const b = await run(['help', cmd]);
    expect(a.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(a.stdout).toMatch(/^Usage: hnsim /);
    expect(a.stdout).toMatch(/Exit status/);
  });

  it('the top help lists them all', async () => {
    const top = await run(['--help']);
    for (const cmd of commands) expect(top.stdout).toMatch(new RegExp(`^  ${cmd} `, 'm'));
  });

  it('colour only on a TTY and never with NO_COLOR; the progress bar only on a TTY', async () => {
    const plain = await run(['show', QS, 'networks', '--node', 'win-1']);
    expect(plain.stdout).not.toContain('\x1b[');
    expect(plain.stderr).toBe('');
    const tty = await run(['show', QS, 'networks', '--node', 'win-1'], true);
    expect(tty.stdout).toContain('\x1b[1m');
    const noColor = await run(['show', QS, 'networks', '--node', 'win-1'], true, { NO_COLOR: '1' });
    expect(noColor.stdout).not.toContain('\x1b[');
    // a 10 x 10 truth table (100 cells) draws the bar on a TTY, and erases it
    const big = join(dir, 'big.yaml');
    const pods = Array.from({ length: 10 }, (_, i) => `  - { name: p${i}, node: win-1 }`).join('\n');
    const refs = Array.from({ length: 10 }, (_, i) => `default/p${i}`).join(', ');
    writeFileSync(
      big,
      `hnsim: scenario/v1\nname: big\ncluster: {}\nhosts:\n  - { name: win-1, flannel: { backend: host-gw } }\npods:\n${pods}\n` +
        `expect:\n  reachability:\n    - { name: all, from: [${refs}], to: [${refs}], default: allow }\n`,
    );
    const bar = await run(['show', big, 'networks'], true, { NO_COLOR: '1' });
    expect(bar.status).toBe(0);
    expect(bar.stderr).toContain('all: [');
    expect(bar.stderr.endsWith('\r\x1b[K')).toBe(true);
    expect((await run(['show', big, 'networks'])).stderr).toBe('');
  });

  it('finds a FILE among the options', () => {
    const valued = new Set(['from', 'to', 'at', 'o']);
    expect(firstPositional(['--from', 'a', '--to', 'b', 'x.yaml'], valued)).toBe('x.yaml');
    expect(firstPositional(['--from=a', 'x.yaml'], valued)).toBe('x.yaml');
    expect(firstPositional(['-o', 'out.svg', '--reply', 'f'], valued)).toBe('f');
    expect(firstPositional(['--from', 'a'], valued)).toBeUndefined();
  });
});
