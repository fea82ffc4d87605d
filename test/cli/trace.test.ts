// `hnsim trace`: a packet through a host built as `hnsim show` builds one (a snapshot, --host,
// --adapter, --seed, --profile), at the three text levels and as JSON, with usage errors (exit 2)
// and runtime failures (exit 1) reported in one line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { traceJson, type TraceRequest } from '../../src/dataplane/trace.js';
import { createHost, type Host } from '../../src/host/host.js';
import { renderTrace, traceNames, TRACE_LEVELS } from '../../src/render/trace.js';
import { ok } from '../dataplane/prop-kit.js';
import { runHnsim, spawnHnsim, type CliOut } from './hnsim.js';

/** The CLI in-process: fake stdin/stdout/stderr, not a TTY. */
const run = (args: string[], input = ''): Promise<CliOut> => runHnsim(args, { input });

const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-trace-'));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const V2 = { Major: 2, Minor: 0 };

/** A NAT network: web-1 and web-2 behind a load balancer 10.96.0.10:80, client, db with a deny ACL. */
function node(): Host {
  const host = createHost({ seed: 5, profile: 'ws2025' });
  const net = ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT', SchemaVersion: V2 }));
  const a = ok(host.api.HcnCreateEndpoint(net.ID, null, { Name: 'web-1', SchemaVersion: V2 }));
  const b = ok(host.api.HcnCreateEndpoint(net.ID, null, { Name: 'web-2', SchemaVersion: V2 }));
  ok(host.api.HcnCreateEndpoint(net.ID, null, { Name: 'client', SchemaVersion: V2 }));
  ok(
    host.api.HcnCreateEndpoint(net.ID, null, {
      Name: 'db',
      SchemaVersion: V2,
      Policies: [{ Type: 'ACL', Settings: { Id: 'no-db', Action: 'Block', Direction: 'In', Priority: 100 } }],
    }),
  );
  ok(
    host.api.HcnCreateLoadBalancer(null, {
      SchemaVersion: V2,
      HostComputeEndpoints: [a.ID, b.ID],
      FrontendVIPs: ['10.96.0.10'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
    }),
  );
  return host;
}

function snapshotFile(host: Host): string {
  const file = join(tempDir(), 'node.json');
  writeFileSync(file, JSON.stringify(host.snapshot()));
  return file;
}

describe('hnsim trace', () => {
  it('renders the trace of a snapshot as the library does, at every level and as JSON', async () => {
    const host = node();
    const file = snapshotFile(host);
    const req: TraceRequest = { from: 'client', to: '10.96.0.10', reply: true, allBranches: true };
    // the seed decides load-balancer choices (the snapshot carries it; --seed names the same one)
    const args = [
      'trace',
      '--snapshot',
      file,
      '--seed',
      '5',
      '--from',
      'client',
      '--to',
      '10.96.0.10',
      '--reply',
      '--all-branches',
    ];
    for (const level of TRACE_LEVELS) {
      const r = await run([...args, '--level', level]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(renderTrace(host.trace(req), level, { names: traceNames(host) }) + '\n');
    }
    const json = await run([...args, '--format', 'json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(traceJson(host.trace(req)));
    expect(json.stdout).toBe(JSON.stringify(traceJson(host.trace(req)), null, 2) + '\n');
    // detailed is the default level
    expect((await run(args)).stdout).toBe((await run([...args, '--level', 'detailed'])).stdout);
  });

  it('passes protocol, ports and TTL on; --reply and --all-branches show the reply and one branch per backend', async () => {
    const file = snapshotFile(node());
    const minimal = await run([
      'trace',
      '--snapshot',
      file,
      '--from',
      'client',
      '--to',
      '10.96.0.10',
      '--sport',
      '40000',
      '--dport',
      '80',
      '--reply',
      '--all-branches',
      '--level',
      'minimal',
    ]);
    expect(minimal.status).toBe(0);
    const ls = minimal.stdout.trimEnd().split('\n');
    expect(ls[0]).toBe('trace client → 10.96.0.10, TCP 40000 → 80');
    expect(ls[1]).toMatch(
      /: DNAT\+SNAT src \S+:40000 → \S+, dst 10\.96\.0\.10:80 → \S+:8080 \(LoadBalancer\)$/,
    );
    expect(ls).toContainEqual(expect.stringMatching(/^reply TCP /));
    expect(ls).toContain('branch 1 of 2');
    expect(ls).toContain('branch 2 of 2');
    expect(ls).toContain('  Delivered at endpoint web-1 on node-1');
    expect(ls).toContain('  Delivered at endpoint web-2 on node-1');
    const json = JSON.parse(
      (
        await run([
          'trace',
          '--snapshot',
          file,
          '--from',
          'client',
          '--to',
          'web-1',
          '--protocol',
          'udp',
          '--sport',
          '5353',
          '--dport',
          '53',
          '--ttl',
          '9',
          '--format',
          'json',
        ])
      ).stdout,
    ) as { request: object; packet: { ttl: number } };
    expect(json.request).toEqual({
      from: 'client',
      to: 'web-1',
      protocol: 17,
      sourcePort: 5353,
      destinationPort: 53,
    });
    expect(json.packet.ttl).toBe(9);
    const icmp = await run([
      'trace',
      '--snapshot',
      file,
      '--from',
      'client',
      '--to',
      'db',
      '--protocol',
      '1',
      '--level',
      'minimal',
    ]);
    expect(icmp.stdout).toBe('trace client → db, ICMP\nDeniedIn at endpoint db on node-1 by ACL db no-db\n');
  });

  it('reads the snapshot from stdin with --snapshot -, and is the same on every run', async () => {
    const host = node();
    const args = ['trace', '--snapshot', '-', '--from', 'client', '--to', 'db', '--level', 'summary'];
    const a = await run(args, JSON.stringify(host.snapshot()));
    const b = await run(args, JSON.stringify(host.snapshot()));
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toContain('  ACL Denied [db ACL#0 no-db]');
    expect(a.stdout.trimEnd().split('\n').at(-1)).toBe('→ DeniedIn at endpoint db on node-1');
  });

  it('traces a fresh host built from --host, --seed and --adapter', async () => {
    const fresh = await run(['trace', '--from', 'host', '--to', '8.8.8.8', '--level', 'minimal']);
    expect(fresh).toEqual({
      status: 0,
      stdout: 'trace host → 8.8.8.8, TCP 50000 → 80\nExitsNetwork at external 8.8.8.8 on node-1\n',
      stderr: '',
    });
    const doc = join(tempDir(), 'host.json');
    writeFileSync(doc, JSON.stringify({ name: 'edge', seed: 9 }));
    const named = await run([
      'trace',
      '--host',
      doc,
      '--adapter',
      'name=Ethernet,ip=192.168.5.4/24,gateway=192.168.5.1',
      '--from',
      'host',
      '--to',
      '8.8.8.8',
      '--level',
      'summary',
    ]);
    expect(named.status).toBe(0);
    expect(named.stdout).toContain(
      'Trace host → 8.8.8.8, TCP 50000 → 80: TCP 192.168.5.4:50000 → 8.8.8.8:80',
    );
    expect(named.stdout).toContain('on the uplink towards 192.168.5.1');
    expect(named.stdout).toContain('→ ExitsNetwork at external 8.8.8.8 on edge');
  });

  it('--help and help trace describe every option the command takes', async () => {
    const help = await run(['trace', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.startsWith('Usage: hnsim trace --from SOURCE --to TARGET')).toBe(true);
    expect((await run(['help', 'trace'])).stdout).toBe(help.stdout);
    for (const flag of [
      '--from',
      '--to',
      '--protocol',
      '--sport',
      '--dport',
      '--ttl',
      '--reply',
      '--all-branches',
      '--level',
      '--format',
      '--snapshot',
      '--seed',
      '--profile',
      '--adapter',
      '--host',
    ])
      expect(help.stdout).toMatch(new RegExp(`^ {2}${flag}\\b`, 'm'));
    expect(help.stdout).toMatch(/^ {2}-h, --help {8}Show this help$/m);
    const top = await run(['--help']);
    expect(top.stdout).toMatch(/^ {2}trace {8}Trace a packet through a host/m);
    expect((await run(['serve', '--help'])).stdout).toMatch(/Trace\(\{from, to,/);
  });

  it.each([
    [['trace', '--to', 'x'], /^hnsim: trace: --from is required \(see 'hnsim trace --help'\)\n$/],
    [['trace', '--from', 'host'], /^hnsim: trace: --to is required/],
    [['trace', '--from', '', '--to', 'x'], /^hnsim: trace: --from must not be empty/],
    [
      ['trace', '--from', 'host', '--to', 'x', '--protocol', 'SCTP'],
      /--protocol must be TCP, UDP, ICMP or a protocol number 0\.\.255, got "SCTP"/,
    ],
    [['trace', '--from', 'host', '--to', 'x', '--protocol', '256'], /--protocol must be/],
    [
      ['trace', '--from', 'host', '--to', 'x', '--sport', '70000'],
      /--sport must be an integer 0\.\.65535, got "70000"/,
    ],
    [
      ['trace', '--from', 'host', '--to', 'x', '--dport', 'http'],
      /--dport must be an integer 0\.\.65535, got "http"/,
    ],
    [['trace', '--from', 'host', '--to', 'x', '--ttl', '0'], /--ttl must be an integer 1\.\.255, got "0"/],
    [
      ['trace', '--from', 'host', '--to', 'x', '--protocol', 'icmp', '--dport', '80'],
      /--dport applies to TCP and UDP, not ICMP/,
    ],
    [
      ['trace', '--from', 'host', '--to', 'x', '--level', 'verbose'],
      /--level must be detailed, summary or minimal, got "verbose"/,
    ],
    [
      ['trace', '--from', 'host', '--to', 'x', '--format', 'yaml'],
      /--format must be text or json, got "yaml"/,
    ],
    [['trace', '--from', 'host', '--to', 'x', '--seed', 'x'], /--seed must be an integer/],
    [['trace', '--from', 'host', '--to', 'x', '--profile', 'ws2003'], /unknown --profile "ws2003"/],
    [
      ['trace', '--from', 'host', '--to', 'x', '--adapter', 'ip=1.2.3.4/24'],
      /--adapter "ip=1\.2\.3\.4\/24": name= is required/,
    ],
    [['trace', '--from', 'host', '--to', 'x', '--frob'], /^hnsim: trace: Unknown option '--frob'/],
    [['trace', '--from', 'host', '--to', 'x', '--reply=yes'], /^hnsim: trace: /],
    [['trace', '--from', 'host', '--to', 'x', 'extra'], /^hnsim: trace: unexpected argument "extra"/],
    [['trace', '--from'], /^hnsim: trace: Option '--from <value>' argument missing/],
  ])('%j is a usage error: exit 2, one line on stderr', async (args, message) => {
    const r = await run(args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(message);
  });

  it('fails with exit 1 and one line when the trace cannot run', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format":');
    const cases: [string[], RegExp][] = [
      [['--from', 'nobody', '--to', '8.8.8.8'], /^hnsim: trace: trace source "nobody" is not an endpoint/],
      [
        ['--snapshot', join(dir, 'missing.json'), '--from', 'host', '--to', 'x'],
        /^hnsim: cannot read snapshot /,
      ],
      [['--snapshot', bad, '--from', 'host', '--to', 'x'], /^hnsim: snapshot .* is not JSON/],
      [
        ['--host', join(dir, 'missing.json'), '--from', 'host', '--to', 'x'],
        /^hnsim: cannot read host document/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await run(['trace', ...args]);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('runs through the bin shim (child process)', () => {
    const r = spawnHnsim(['trace', '--from', 'host', '--to', '8.8.8.8', '--level', 'minimal'], {
      env: { HNSIM_RUN: 'src' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'trace host → 8.8.8.8, TCP 50000 → 80\nExitsNetwork at external 8.8.8.8 on node-1\n',
    );
  });
});
