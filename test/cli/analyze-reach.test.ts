// `hnsim analyze FILE --from X --to Y [--diff OTHER]` (src/cli/views.ts): reachability in a shipped
// scenario and in a state file, text and JSON (the JSON what JSON-RPC Analyze answers), the
// differential both ways, of a pair, of one source to everything and of everything to one target,
// and the command line's errors with their exit codes. The expected sets are written from the
// files: scenarios/reach-services.yaml's client is 10.244.1.3, api's ClusterIP 10.96.0.21 (TCP 80
// → api-0:8080, the one port api-0's ACL opens); reach-services-sync.yaml moves the targetPort to
// 9090. A pair's packets: TCP and UDP with every port pair (2 × 2^32) and 254 other protocols.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { root, runHnsim } from './hnsim.js';
import { stateFile } from './state-file.js';

const BEFORE = join(root, 'scenarios/reach-services.yaml');
const AFTER = join(root, 'scenarios/reach-services-sync.yaml');
const ALL = 2n * 2n ** 32n + 254n;
const dir = mkdtempSync(join(tmpdir(), 'hnsim-analyze-reach-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const acl = (Id: string, Action: string, Direction: string, more: JsonObject = {}): JsonObject => ({
  Type: 'ACL',
  Settings: { Id, Action, Direction, Priority: 100, ...more },
});

/** A node: client (no ACL) and web, whose ACL opens TCP `ports` inbound (and everything out). */
const node = (file: string, ports: string) =>
  stateFile(dir, file, [
    ['client', '10.244.1.5', []],
    [
      'web',
      '10.244.1.6',
      [acl('web-in', 'Allow', 'In', { Protocols: '6', LocalPorts: ports }), acl('web-out', 'Allow', 'Out')],
    ],
  ]);

interface SetJson {
  count: string;
  text: string[];
  witness?: { protocol: number; srcIp: string; srcPort: number; dstIp: string; dstPort: number };
  trace?: JsonObject;
}
interface DiffJson {
  from: string;
  to: string;
  unchanged: boolean;
  changes: (SetJson & { before: string[]; after: string[] })[];
}

describe('hnsim analyze --from --to on a scenario', () => {
  it('every packet from the client to the api service, by where it ends, names as the file has them', async () => {
    const r = await runHnsim(['analyze', BEFORE, '--from', 'client', '--to', 'svc:api']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // (how many classes and walks it took is the analysis' own business: not written out here)
    const lines = r.stdout.split('\n');
    expect(lines[1]).toMatch(/^ {2}\d+ classes, \d+ walks$/);
    expect([lines[0], ...lines.slice(2)].join('\n')).toBe(
      [
        'default/client (10.244.1.3) → svc:default/api (10.96.0.21)',
        'Delivered: 65536 packets',
        '    TCP to 10.96.0.21 port 80 from 10.244.1.3',
        '    e.g. --from default/client --to 10.96.0.21 --protocol TCP --sport 50000 --dport 80',
        `NoRoute: ${ALL - 65536n} packets`,
        '    any protocol except TCP to 10.96.0.21 from 10.244.1.3',
        '    TCP to 10.96.0.21 port 0-79, 81-65535 from 10.244.1.3',
        '    e.g. --from default/client --to 10.96.0.21 --protocol TCP --sport 50000 --dport 81',
        '',
      ].join('\n'),
    );
  });

  it('--format json: per disposition the count, the text, a witness and the trace that replays it', async () => {
    const r = await runHnsim([
      'analyze',
      BEFORE,
      '--from',
      'default/client',
      '--to',
      'default/api-0',
      '--format',
      'json',
    ]);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      source: string;
      destination: string;
      exact: boolean;
      dispositions: Record<string, SetJson>;
    };
    expect([doc.source, doc.destination, doc.exact]).toEqual(['10.244.1.3', '10.244.2.4', true]);
    expect(Object.keys(doc.dispositions)).toEqual(['Delivered', 'DeniedIn']);
    expect(doc.dispositions['Delivered']).toEqual({
      count: '65536',
      text: ['TCP to 10.244.2.4 port 8080 from 10.244.1.3'],
      witness: { protocol: 6, srcIp: '10.244.1.3', srcPort: 50000, dstIp: '10.244.2.4', dstPort: 8080 },
      trace: {
        from: 'default/client',
        to: '10.244.2.4',
        protocol: 6,
        sourcePort: 50000,
        destinationPort: 8080,
      },
    });
    expect(doc.dispositions['DeniedIn']!.count).toBe(String(ALL - 65536n));
  });

  it('--diff: the sync broke exactly api — Delivered → DeniedIn on TCP 80 — and back the other way', async () => {
    const r = await runHnsim(['analyze', BEFORE, '--from', 'client', '--diff', AFTER]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'Reachability changes: reach-services → reach-services-sync',
        '',
        '4 pairs compared, 1 changed',
        'default/client → svc:default/api',
        '  Delivered → DeniedIn: 65536 packets',
        '      TCP to 10.96.0.21 port 80 from 10.244.1.3',
        '      e.g. --from default/client --to 10.96.0.21 --protocol TCP --sport 50000 --dport 80',
        '',
      ].join('\n'),
    );
    const back = await runHnsim(['analyze', AFTER, '--from', 'client', '--diff', BEFORE, '--format', 'json']);
    const list = JSON.parse(back.stdout) as DiffJson[];
    expect(list.map((d) => [d.to, d.unchanged])).toEqual([
      ['default/web-0', true],
      ['default/api-0', true],
      ['svc:default/web', true],
      ['svc:default/api', false],
    ]);
    const [change] = list[3]!.changes;
    expect([change!.before, change!.after, change!.count, change!.text]).toEqual([
      ['DeniedIn'],
      ['Delivered'],
      '65536',
      ['TCP to 10.96.0.21 port 80 from 10.244.1.3'],
    ]);
  });

  it('--diff with --to alone: every pod to api, each changed the same way; a pair of its own', async () => {
    const r = await runHnsim([
      'analyze',
      BEFORE,
      '--to',
      'svc:default/api',
      '--diff',
      AFTER,
      '--format',
      'json',
    ]);
    const list = JSON.parse(r.stdout) as DiffJson[];
    expect(
      list.map((d) => [
        d.from,
        d.changes.map((c) => `${c.before.join()}→${c.after.join()} ${c.text.join()}`),
      ]),
    ).toEqual([
      ['default/client', ['Delivered→DeniedIn TCP to 10.96.0.21 port 80 from 10.244.1.3']],
      ['default/web-0', ['Delivered→DeniedIn TCP to 10.96.0.21 port 80 from 10.244.2.3']],
      ['default/api-0', ['Delivered→DeniedIn TCP to 10.96.0.21 port 80 from 10.244.2.4']],
    ]);
    const web = await runHnsim(['analyze', BEFORE, '--from', 'client', '--to', 'svc:web', '--diff', AFTER]);
    expect(web.stdout).toBe(
      'Reachability changes: reach-services → reach-services-sync\n\n1 pair compared, 0 changed\n',
    );
  });

  it('a name that does not resolve: every packet NameNotResolved, its witness replayed by the name', async () => {
    const r = await runHnsim(['analyze', BEFORE, '--from', 'client', '--to', 'nope.example']);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('default/client (10.244.1.3) → nope.example (unresolved)');
    // every destination address: 2^32 × a pair's packets
    expect(lines.slice(2, 5)).toEqual([
      `NameNotResolved: ${ALL * 2n ** 32n} packets`,
      '    any protocol from 10.244.1.3',
      '    e.g. --from default/client --to nope.example --protocol TCP --sport 50000 --dport 80',
    ]);
    const json = await runHnsim([
      'analyze',
      BEFORE,
      '--from',
      'client',
      '--to',
      'nope.example',
      '--format',
      'json',
    ]);
    const doc = JSON.parse(json.stdout) as { destination: string; dispositions: Record<string, SetJson> };
    expect(doc.destination).toBe('');
    expect(doc.dispositions['NameNotResolved']!.trace).toEqual({
      from: 'default/client',
      to: 'nope.example',
      protocol: 6,
      sourcePort: 50000,
      destinationPort: 80,
    });
  });
});

describe('hnsim analyze --from --to on a state file, and JSON-RPC Analyze', () => {
  it('text and JSON; the JSON is what Analyze({from, to}) answers over hnsim call', async () => {
    const file = node('node.json', '80,443');
    const text = await runHnsim(['analyze', file, '--from', 'client', '--to', 'web']);
    const lines = text.stdout.split('\n');
    expect(lines[1]).toMatch(/^ {2}\d+ classes, \d+ walks$/);
    expect([lines[0], ...lines.slice(2)].join('\n')).toBe(
      [
        'client (10.244.1.5) → web (10.244.1.6)',
        'Delivered: 131072 packets',
        '    TCP to 10.244.1.6 port 80, 443 from 10.244.1.5',
        '    e.g. --from client --to 10.244.1.6 --protocol TCP --sport 50000 --dport 80',
        `DeniedIn: ${ALL - 131072n} packets`,
        '    any protocol except TCP to 10.244.1.6 from 10.244.1.5',
        '    TCP to 10.244.1.6 port 0-79, 81-442, 444-65535 from 10.244.1.5',
        '    e.g. --from client --to 10.244.1.6 --protocol TCP --sport 50000 --dport 81',
        '',
      ].join('\n'),
    );
    const json = await runHnsim(['analyze', file, '--from', 'client', '--to', 'web', '--format', 'json']);
    const call = await runHnsim(['call', '--state', file, 'Analyze', '{"from":"client","to":"web"}']);
    expect(call.stderr).toBe('');
    expect(JSON.parse(call.stdout)).toEqual(JSON.parse(json.stdout));
    expect(
      (JSON.parse(json.stdout) as { dispositions: Record<string, SetJson> }).dispositions['Delivered']!.count,
    ).toBe('131072');
  });

  it('--diff both ways between two nodes: port 443 closed, then opened again', async () => {
    const open = node('open.json', '80,443');
    const closed = node('closed.json', '80');
    const r = await runHnsim(['analyze', open, '--from', 'client', '--diff', closed]);
    expect(r.stdout).toBe(
      [
        `Reachability changes: ${open} → ${closed}`,
        '',
        '1 pair compared, 1 changed',
        'client → web',
        '  Delivered → DeniedIn: 65536 packets',
        '      TCP to 10.244.1.6 port 443 from 10.244.1.5',
        '      e.g. --from client --to 10.244.1.6 --protocol TCP --sport 50000 --dport 443',
        '',
      ].join('\n'),
    );
    const back = await runHnsim(['analyze', closed, '--to', 'web', '--diff', open, '--format', 'json']);
    const [d] = JSON.parse(back.stdout) as DiffJson[];
    expect([d!.from, d!.to, d!.changes.map((c) => [c.before, c.after, c.text])]).toEqual([
      'client',
      'web',
      [[['DeniedIn'], ['Delivered'], ['TCP to 10.244.1.6 port 443 from 10.244.1.5']]],
    ]);
  });
});

describe('hnsim analyze --from/--to: refusals', () => {
  const refused = async (args: string[]) => {
    const r = await runHnsim(['analyze', BEFORE, ...args]);
    return [r.status, r.stderr];
  };
  const line = (msg: string) => `hnsim: analyze: ${msg} (see 'hnsim analyze --help')\n`;

  it('a bad command line: exit 2', async () => {
    expect(await refused(['--from', 'client'])).toEqual([
      2,
      line('--from needs --to (or --diff OTHER: it to every pod and service)'),
    ]);
    expect(await refused(['--to', 'svc:api'])).toEqual([
      2,
      line('--to needs --from (or --diff OTHER: every pod to it)'),
    ]);
    expect(await refused(['--from', '', '--to', 'web-0'])).toEqual([2, line('--from must not be empty')]);
    expect(await refused(['--port', 'web-0', '--from', 'client', '--to', 'web-0'])).toEqual([
      2,
      line("--port (a port's ACLs) and --from/--to (reachability) are two analyses: give one"),
    ]);
    expect(await refused(['--from', 'client', '--to', 'web-0', '--node', 'win-1'])).toEqual([
      2,
      line('--node goes with --port'),
    ]);
    expect(await refused(['--from', 'client', '--to', 'svc:api:80'])).toEqual([
      2,
      line('svc:api:80: reachability covers every port; name the service without one'),
    ]);
    expect((await refused(['--from', 'client', '--to', 'web-0', '--format', 'yaml']))[0]).toBe(2);
  });

  it('what the files do not have: exit 1', async () => {
    expect(await refused(['--from', 'nope', '--to', 'svc:api'])).toEqual([
      1,
      'hnsim: analyze: trace source "nope" is not an endpoint, container, pod, node or address here\n',
    ]);
    expect(await refused(['--from', 'client', '--to', 'svc:nope'])).toEqual([
      1,
      'hnsim: analyze: no service with a ClusterIP "default/nope"\n',
    ]);
    expect(await refused(['--from', 'default/nope', '--diff', AFTER])).toEqual([
      1,
      'hnsim: analyze: nothing to compare: default/nope is in neither reach-services nor reach-services-sync\n',
    ]);
  });
});
