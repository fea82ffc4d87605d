/**
 * Properties of the OVSDB model under random ovs-vsctl command sequences (no real OVS needed;
 * test/ovs/peer/vsctl.test.ts compares the same kind of sequences with the real daemon):
 * - a chain that ends in a failing command changes nothing, the engine's bridges included
 *   (ovs-vsctl runs a chain as one OVSDB transaction);
 * - the engine follows the database: each bridge's engine ports are exactly its interfaces with
 *   an ofport other than -1, at that ofport, and no two share one (ofproto's port map).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ovsdb, type Platform, addPortArgs, vsctl } from '../../src/ovs/index.js';

const bridgeName = fc.constantFrom('br0', 'br1');
const portName = fc.constantFrom('p1', 'p2', 'p3', 'p4');
const ifType = fc.constantFrom('internal', 'internal', '', 'geneve');

const step: fc.Arbitrary<string[]> = fc.oneof(
  bridgeName.map((b) => ['--may-exist', 'add-br', b]),
  fc
    .record({
      br: bridgeName,
      port: portName,
      type: ifType,
      req: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined, freq: 2 }),
    })
    .map(({ br, port, type, req }) => addPortArgs(br, port, { type, ofportRequest: req })),
  portName.map((p) => ['--if-exists', 'del-port', p]),
  fc
    .tuple(portName, fc.integer({ min: 1, max: 5 }))
    .map(([p, n]) => ['set', 'interface', p, `ofport_request=${n}`]),
  fc.tuple(portName, ifType).map(([p, t]) => ['set', 'interface', p, `type=${t === '' ? '""' : t}`]),
  fc.tuple(portName, fc.constantFrom('x', '1')).map(([p, v]) => ['set', 'port', p, `external_ids:k=${v}`]),
  bridgeName.map((b) => ['--if-exists', 'del-br', b]),
);

/** Commands that always fail, whatever the state. */
const failing = fc.constantFrom(
  ['add-port', 'nobridge', 'q'],
  ['set', 'port', 'p1', 'tag=4096'],
  ['get', 'interface', 'nosuch', 'ofport'],
  ['del-br', 'nobridge'],
  ['set', 'interface', 'p1', 'ofport_request=0'],
  ['frobnicate'],
);

const platforms: Platform[] = [{ kind: 'windows', netdevExists: (n) => n === 'p4' }, { kind: 'linux' }];

function dump(db: Ovsdb): string {
  const list = (t: string) => vsctl(db, ['list', t]).stdout;
  const engine = [...db.root.cols.get('bridges')!.keys].map((u) => {
    const name = db.str(db.row('Bridge', String(u))!, 'name');
    const br = db.bridge(name)!;
    return `${name}: ${[...br.ports.values()].map((p) => `${p.name}@${p.ofport}`).join(',')}`;
  });
  return [list('bridge'), list('port'), list('interface'), vsctl(db, 'show').stdout, ...engine].join('\n');
}

function checkEngine(db: Ovsdb): void {
  for (const b of db.refs(db.root, 'bridges')) {
    const name = db.str(b, 'name');
    const engine = db.bridge(name)!;
    const want = new Map<string, number>();
    for (const p of db.refs(b, 'ports'))
      for (const i of db.refs(p, 'interfaces')) {
        const ofport = Number(db.get(i, 'ofport').keys[0]);
        if (ofport !== -1) want.set(db.str(i, 'name'), ofport);
      }
    const have = new Map([...engine.ports.values()].map((p) => [p.name, p.ofport]));
    expect(have).toEqual(want);
    expect(new Set(have.values()).size).toBe(have.size);
    expect(have.get(name)).toBe(65534);
  }
}

describe('ovs-vsctl transactions and the engine (property)', () => {
  for (const platform of platforms) {
    it(`a chain ending in a failing command changes nothing (${platform.kind})`, () => {
      fc.assert(
        fc.property(
          fc.array(step, { maxLength: 12 }),
          fc.array(step, { maxLength: 3 }),
          failing,
          fc.integer(),
          (setup, chain, bad, seed) => {
            const db = new Ovsdb({ seed, platform });
            for (const s of setup) vsctl(db, s);
            const before = dump(db);
            const argv = [...chain, bad].flatMap((c, i) => (i === 0 ? c : ['--', ...c]));
            const r = vsctl(db, argv);
            expect(r.status).toBe(1);
            expect(r.stdout).toBe('');
            expect(r.stderr).toMatch(/^ovs-vsctl: /);
            expect(dump(db)).toBe(before);
          },
        ),
        { numRuns: 150, seed: 17 },
      );
    });

    it(`the engine's ports are the bound interfaces, at their ofports (${platform.kind})`, () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 20 }), fc.integer(), (steps, seed) => {
          const db = new Ovsdb({ seed, platform });
          for (const s of steps) {
            vsctl(db, s);
            checkEngine(db);
          }
        }),
        { numRuns: 150, seed: 17 },
      );
    });
  }
});
