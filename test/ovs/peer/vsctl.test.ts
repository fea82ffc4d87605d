/**
 * The model's OVSDB and ovs-vsctl against the real ones (issue 17 §2, §4): the same ovs-vsctl
 * command lines run against Debian's ovsdb-server + ovs-vswitchd (the peer, dummy datapath) and
 * against `vsctl()` on an `Ovsdb` with the `dummy` platform; their exit status, error text and
 * the database as `list`/`find`/`get`/`show`/`list-ports` print it must agree.
 *
 * Normalised, because they are the daemon's own: UUIDs (the `show` header; uuid columns are not
 * listed), the order of records in `list`/`find` and of sibling blocks in `show` (both follow UUID
 * order, which differs), and the second stderr line ovs-vsctl adds after "Error detected while
 * setting up" (`The default log directory is …`). Not compared: `mac_in_use` (the dummy datapath
 * numbers its MACs aa:55:aa:55:00:NN) and `datapath_id` (drawn from that MAC).
 */
import { execFile } from 'node:child_process';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { Ovsdb, addPortArgs, vsctl } from '../../../src/ovs/index.js';
import { describeOvs, usePeer } from './kit.js';
import type { OvsPeer } from './peer.js';

interface Outcome {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * ovs-vsctl against the peer's database, keeping stderr also on success (the peer's own `vsctl`
 * drops it): "Error detected while setting up" comes with exit status 0.
 */
function onPeer(peer: OvsPeer, argv: readonly string[]): Promise<Outcome> {
  const dir = peer.dir;
  const env = { ...process.env, OVS_RUNDIR: dir, OVS_DBDIR: dir, OVS_LOGDIR: dir, OVS_SYSCONFDIR: dir };
  return new Promise((resolve) => {
    execFile('ovs-vsctl', [...argv], { env, cwd: dir }, (e, stdout, stderr) => {
      const status = e ? (typeof e.code === 'number' ? e.code : -1) : 0;
      const kept = stderr
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('ovs-vsctl: The default log directory is'))
        .map((l) => `${l}\n`)
        .join('');
      resolve({ status, stdout, stderr: kept });
    });
  });
}

function onModel(db: Ovsdb, argv: readonly string[]): Outcome {
  const r = vsctl(db, argv);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `list`/`find` output with its records sorted. */
const records = (text: string): string[] =>
  text
    .split('\n\n')
    .map((r) => r.trim())
    .filter(Boolean)
    .sort();

/** `show` with the Open_vSwitch UUID replaced and sibling blocks sorted, recursively. */
function normalizeShow(text: string): string {
  interface Node {
    line: string;
    children: Node[];
  }
  const root: Node = { line: '', children: [] };
  const stack: Array<{ depth: number; node: Node }> = [{ depth: -1, node: root }];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const depth = line.length - line.trimStart().length;
    const node: Node = { line: line.replace(/^[0-9a-f-]{36}$/, '<uuid>'), children: [] };
    while (stack[stack.length - 1]!.depth >= depth) stack.pop();
    stack[stack.length - 1]!.node.children.push(node);
    stack.push({ depth, node });
  }
  const flat = (n: Node): string => {
    const kids = n.children.map(flat);
    // a block's attribute lines keep their order; its child records (Bridge/Port/Interface) are sorted
    const attrs = kids.filter((k) => !/^\s*(Bridge|Port|Interface) /.test(k));
    const blocks = kids.filter((k) => /^\s*(Bridge|Port|Interface) /.test(k)).sort();
    return [n.line, ...attrs, ...blocks].filter(Boolean).join('\n');
  };
  return flat(root);
}

const QUERIES: ReadonlyArray<readonly string[]> = [
  ['list-br'],
  ['--columns=name,type,ofport,ofport_request,external_ids,error,options', 'list', 'interface'],
  ['--columns=name,tag,external_ids,other_config', 'list', 'port'],
  ['--columns=name,external_ids,fail_mode,datapath_type,protocols', 'list', 'bridge'],
  ['--columns=name', 'find', 'interface', 'ofport=-1'],
  ['--columns=name,ofport', 'find', 'interface', 'external_ids:a=x'],
  ['--columns=name', 'find', 'interface', 'ofport>=3', 'ofport_request{=}[]'],
  ['--columns=name,tag', 'find', 'port', 'tag!=[]'],
  ['--columns=name', 'find', 'interface', 'external_ids{>=}{b=y}'],
  ['show'],
];

async function compareState(peer: OvsPeer, db: Ovsdb, label: string): Promise<void> {
  const brs = onModel(db, ['list-br']).stdout.split('\n').filter(Boolean);
  const queries = [...QUERIES, ...brs.map((b) => ['list-ports', b])];
  for (const q of queries) {
    const want = await onPeer(peer, q);
    const got = onModel(db, q);
    const norm = (o: Outcome): unknown =>
      q[0] === 'show'
        ? normalizeShow(o.stdout)
        : q.includes('list') || q.includes('find')
          ? records(o.stdout)
          : o.stdout;
    expect(
      { status: got.status, out: norm(got), err: got.stderr },
      `${label}\n$ ovs-vsctl ${q.join(' ')}`,
    ).toEqual({
      status: want.status,
      out: norm(want),
      err: want.stderr,
    });
  }
}

async function reset(peer: OvsPeer): Promise<void> {
  const brs = (await peer.vsctl(['list-br'])).split('\n').filter(Boolean);
  if (brs.length) await peer.vsctl(brs.flatMap((b) => ['--', 'del-br', b]));
}

/** Runs `lines` on both, step by step, then compares the databases. */
async function sameRun(peer: OvsPeer, lines: ReadonlyArray<readonly string[]>): Promise<void> {
  await reset(peer);
  const db = new Ovsdb({ seed: 1, platform: { kind: 'dummy' } });
  const done: string[] = [];
  for (const argv of lines) {
    done.push(`$ ovs-vsctl ${argv.join(' ')}`);
    const want = await onPeer(peer, argv);
    const got = onModel(db, argv);
    expect(got, done.join('\n')).toEqual(want);
  }
  await compareState(peer, db, done.join('\n'));
}

// ───────────────────────────── the generator ─────────────────────────────

const bridgeName = fc.oneof(
  { weight: 4, arbitrary: fc.constant('br0') },
  { weight: 1, arbitrary: fc.constant('br1') },
);
const portName = fc.constantFrom('p1', 'p2', 'p3', 'p4');
/** Mostly types the dummy datapath opens; "" (no such device here) now and then. */
const ifType = fc.oneof(
  { weight: 3, arbitrary: fc.constant('dummy') },
  { weight: 2, arbitrary: fc.constant('internal') },
  { weight: 1, arbitrary: fc.constant('') },
);
const idKey = fc.constantFrom('a', 'b', 'antrea-type');
const idValue = fc.constantFrom('x', 'y', '1', 'a b', 'container');

const idPair = fc.tuple(idKey, idValue);
const external = idPair.map(([k, v]) => `external_ids:${k}=${JSON.stringify(v)}`);

const command: fc.Arbitrary<string[]> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .tuple(bridgeName, fc.boolean())
      .map(([b, may]) => [
        ...(may ? ['--may-exist'] : []),
        'add-br',
        b,
        '--',
        'set',
        'bridge',
        b,
        'datapath-type=dummy',
      ]),
  },
  {
    weight: 12,
    arbitrary: fc
      .record({
        br: bridgeName,
        port: portName,
        type: ifType,
        // mostly unrequested, so that ofproto's own numbering (round-robin, no quick reuse) shows
        req: fc.oneof(
          { weight: 3, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
        ),
        ids: fc.array(idPair, { maxLength: 2 }),
        may: fc.boolean(),
      })
      // built by the typed API's addPortArgs (quoted type and keys), so the real ovs-vsctl checks it too
      .map(({ br, port, type, req, ids, may }) =>
        addPortArgs(br, port, {
          type,
          ofportRequest: req,
          externalIds: Object.fromEntries(ids),
          mayExist: may,
        }),
      ),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.option(bridgeName, { nil: undefined }), portName, fc.boolean())
      .map(([br, port, ifExists]) => [
        ...(ifExists ? ['--if-exists'] : []),
        'del-port',
        ...(br ? [br] : []),
        port,
      ]),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(bridgeName, fc.boolean())
      .map(([b, ie]) => [...(ie ? ['--if-exists'] : []), 'del-br', b]),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        portName,
        fc.oneof(
          external,
          fc.integer({ min: 1, max: 6 }).map((n) => `ofport_request=${n}`),
          ifType.map((t) => `type=${t === '' ? '""' : t}`),
        ),
      )
      .map(([p, s]) => ['set', 'interface', p, s]),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(portName, fc.constantFrom('ofport_request', 'external_ids'))
      .map(([p, c]) => ['clear', 'interface', p, c]),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(portName, fc.integer({ min: 0, max: 4095 }))
      .map(([p, t]) => ['set', 'port', p, `tag=${t}`]),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(portName, idKey).map(([p, k]) => ['remove', 'interface', p, 'external_ids', k]),
  },
);

describeOvs('OVSDB and ovs-vsctl against the real ones', () => {
  const peer = usePeer();

  it('an Antrea-like node: br-int, the gateway, the uplink, a pod port; then del-port and re-add', async () => {
    await sameRun(peer(), [
      [
        'add-br',
        'br-int',
        '--',
        'set',
        'bridge',
        'br-int',
        'datapath-type=dummy',
        'protocols=OpenFlow10,OpenFlow15',
        'fail-mode=secure',
      ],
      // Antrea's datapath id: 0000 + the uplink MAC (reference §1.3)
      ['set', 'bridge', 'br-int', 'other-config:datapath-id=0000001DD8B71F3E'],
      ['get', 'bridge', 'br-int', 'datapath_id'],
      [
        'add-port',
        'br-int',
        'antrea-gw0',
        '--',
        'set',
        'interface',
        'antrea-gw0',
        'type=internal',
        'ofport_request=32769',
        'external_ids:antrea-type=gateway',
      ],
      [
        'add-port',
        'br-int',
        'uplink0',
        '--',
        'set',
        'interface',
        'uplink0',
        'type=dummy',
        'ofport_request=32770',
        'external_ids:antrea-type=uplink',
      ],
      [
        'add-port',
        'br-int',
        'web-7975-274540',
        '--',
        'set',
        'interface',
        'web-7975-274540',
        'external_ids:antrea-type=container',
        'external_ids:pod-name=web',
        'external_ids:ip-address="10.10.0.5"',
      ],
      ['set', 'interface', 'web-7975-274540', 'type=dummy'],
      ['add-port', 'br-int', 'db-5c6d-1a2b3c', '--', 'set', 'interface', 'db-5c6d-1a2b3c', 'type=dummy'],
      ['del-port', 'br-int', 'web-7975-274540'],
      ['add-port', 'br-int', 'web-7975-274540', '--', 'set', 'interface', 'web-7975-274540', 'type=dummy'],
      ['--columns=name,ofport', 'find', 'interface', 'external_ids:antrea-type=gateway'],
      ['get', 'interface', 'antrea-gw0', 'ofport', 'external_ids:antrea-type'],
      ['port-to-br', 'antrea-gw0'],
      ['iface-to-br', 'uplink0'],
    ]);
  });

  it('tunnel and patch interfaces: options they need, a patch peer that comes later', async () => {
    const dummyBr = (b: string) => ['add-br', b, '--', 'set', 'bridge', b, 'datapath-type=dummy'];
    const iface = (br: string, p: string, ...set: string[]) => [
      'add-port',
      br,
      p,
      '--',
      'set',
      'interface',
      p,
      ...set,
    ];
    await sameRun(peer(), [
      dummyBr('br-int'),
      iface('br-int', 'tun0', 'type=geneve'),
      iface(
        'br-int',
        'antrea-tun0',
        'type=geneve',
        'options:remote_ip=flow',
        'options:key=flow',
        'ofport_request=32768',
      ),
      iface('br-int', 'vx0', 'type=vxlan', 'options:remote_ip=10.0.0.2', 'options:dst_port=4789'),
      iface('br-int', 'stt0', 'type=stt', 'options:remote_ip=10.0.0.3'),
      iface('br-int', 'patch-a', 'type=patch'),
      iface('br-int', 'patch-b', 'type=patch', 'options:peer=patch-c'),
      dummyBr('br-ex'),
      iface('br-ex', 'patch-c', 'type=patch', 'options:peer=patch-b'),
      ['set', 'interface', 'tun0', 'options:remote_ip=192.168.1.5'],
      ['get', 'interface', 'antrea-tun0', 'ofport', 'options'],
    ]);
  });

  it('error texts, and a failing chain that changes nothing', async () => {
    await sameRun(peer(), [
      ['add-br', 'br0', '--', 'set', 'bridge', 'br0', 'datapath-type=dummy'],
      ['add-br', 'br0'],
      ['add-port', 'br0', 'p1', '--', 'set', 'interface', 'p1', 'type=dummy'],
      ['add-port', 'br0', 'p1'],
      ['add-br', 'p1'],
      ['del-port', 'br0', 'nope'],
      ['del-port', 'br0'],
      ['--may-exist', 'add-port', 'br1', 'p1'],
      [
        'add-br',
        'br1',
        '--',
        'set',
        'bridge',
        'br1',
        'datapath-type=dummy',
        '--',
        'add-port',
        'br1',
        'q',
        '--',
        'add-port',
        'nob',
        'x',
      ],
      ['add-port', 'br0', 'p2'],
      ['add-port', 'br0', 'ovs-netdev'],
      ['add-port', 'br0', 'genev_sys_6081', '--', 'set', 'interface', 'genev_sys_6081', 'type=internal'],
      ['get', 'interface', 'p1', 'external_ids:zz'],
      ['--if-exists', 'get', 'interface', 'p1', 'external_ids:zz'],
      ['get', 'interface', 'nope', 'ofport'],
      ['get', 'interface', 'p1', 'nocol'],
      ['set', 'interface', 'p1', 'ofport_request=abc'],
      ['set', 'interface', 'p1', 'ofport_request=70000'],
      ['set', 'port', 'p1', 'tag=5000'],
      ['set', 'bridge', 'br0', 'fail_mode=xyz'],
      ['set', 'bridge', 'br0', 'protocols=OpenFlow16'],
      ['list', 'nosuchtable'],
      ['foo'],
      ['br-exists', 'nob'],
      ['port-to-br', 'nope'],
      ['iface-to-br', 'br0'],
    ]);
  });

  it('random command sequences: status, errors and the database agree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 20 }), async (lines) => {
        // br0 exists from the start, so that most add-ports land
        await sameRun(peer(), [
          ['add-br', 'br0', '--', 'set', 'bridge', 'br0', 'datapath-type=dummy'],
          ...lines,
        ]);
      }),
      { numRuns: 60, seed: 17, endOnFailure: true },
    );
  });
});
