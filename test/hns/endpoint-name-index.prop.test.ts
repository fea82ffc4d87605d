// The endpoint name index of the HNS store (`EndpointTable`, src/hns/store.ts) against the slow
// path it replaces: a scan of every endpoint with the Name filter's rule (the name as given, or the
// same GUID in another spelling; unnamed endpoints never match). Random sets, replacements, deletes
// and clears of the table itself, then the flat API's `HcnEnumerateEndpoints` Name filter across
// creates, deletes, snapshot restore, HNS restarts and reboots.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { HcnResult } from '../../src/api/flat.js';
import { parseGuid } from '../../src/core/guid.js';
import { createHost, type Host } from '../../src/host/host.js';
import type { EndpointRec } from '../../src/hns/model.js';
import { EndpointTable } from '../../src/hns/store.js';
import { runs } from '../runs.js';

const GUID = '1f6cf7a2-4b1e-4c5d-9e8f-0a1b2c3d4e5f';
/** Names that collide in every way the filter allows: equal, GUID spellings, case, empty. */
const NAMES = [
  '',
  'pod-a',
  'pod-A',
  'pod-b',
  GUID,
  GUID.toUpperCase(),
  `{${GUID}}`,
  `{${GUID.toUpperCase()}}`,
  '2f6cf7a2-4b1e-4c5d-9e8f-0a1b2c3d4e5f',
];
const IDS = ['E1', 'E2', 'E3', 'E4', 'E5'];

/** What the Name filter lets through, read off every record (the slow path). */
function scan(table: ReadonlyMap<string, { readonly Name: string }>, want: string): string[] {
  const g = parseGuid(want);
  const out: string[] = [];
  for (const [id, rec] of table) {
    if (rec.Name === want || (rec.Name !== '' && g !== undefined && parseGuid(rec.Name) === g)) out.push(id);
  }
  return out;
}

type Op = { op: 'set'; id: string; name: string } | { op: 'delete'; id: string } | { op: 'clear' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      id: fc.constantFrom(...IDS),
      name: fc.constantFrom(...NAMES),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), id: fc.constantFrom(...IDS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
);

describe('EndpointTable name index', () => {
  it('finds exactly the endpoints a scan finds, after any sequence of changes', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const t = new EndpointTable();
        const model = new Map<string, { Name: string }>();
        for (const o of ops) {
          if (o.op === 'set') {
            // a record is replaced whole, as the service does
            t.set(o.id, { ID: o.id, Name: o.name } as unknown as EndpointRec);
            model.set(o.id, { Name: o.name });
          } else if (o.op === 'delete') {
            expect(t.delete(o.id)).toBe(model.delete(o.id));
          } else {
            t.clear();
            model.clear();
          }
          expect(t.auditNameIndex()).toEqual([]);
          expect([...t.keys()]).toEqual([...model.keys()]);
          for (const name of NAMES.filter((n) => n !== '')) {
            expect(t.idsNamed(name).sort()).toEqual(scan(model, name).sort());
          }
        }
      }),
    );
  });

  it('reports an index that no longer matches the records', () => {
    const t = new EndpointTable();
    t.set('E1', { ID: 'E1', Name: 'pod-a' } as unknown as EndpointRec);
    // a record changed behind the table's back (records are immutable: the service never does this)
    (Map.prototype.set as (k: string, v: unknown) => unknown).call(t, 'E1', { ID: 'E1', Name: 'pod-b' });
    expect(t.auditNameIndex()).toEqual([
      'endpoint name index["pod-a"] holds E1, the endpoints so named are nothing',
      'endpoint name index["pod-b"] holds nothing, the endpoints so named are E1',
    ]);
  });
});

function ok<T>(r: HcnResult<T>): T {
  if (!r.ok) throw new Error(`expected success, got ${r.name}: ${r.message}`);
  return r.result;
}

/** The Name filter through the flat API, and the scan of the store, for every name of NAMES. */
function expectFilterMatchesScan(host: Host): void {
  for (const name of NAMES.filter((n) => n !== '')) {
    const q = JSON.stringify({
      SchemaVersion: { Major: 2, Minor: 0 },
      Filter: JSON.stringify({ Name: name }),
    });
    expect(ok(host.api.HcnEnumerateEndpoints(q)), name).toEqual(scan(host.hns.store.endpoints, name));
  }
  expect(host.hns.store.endpoints.auditNameIndex()).toEqual([]);
}

type HostOp =
  | { op: 'create'; name: string }
  | { op: 'delete'; pick: number }
  | { op: 'snapshot' }
  | { op: 'restore' }
  | { op: 'restartHns' }
  | { op: 'reboot' };

const hostOpArb: fc.Arbitrary<HostOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ op: fc.constant('create' as const), name: fc.constantFrom(...NAMES) }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('snapshot' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restore' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restartHns' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reboot' as const) }) },
);

describe('HcnEnumerateEndpoints Name filter (indexed)', () => {
  it('returns what a scan of the store returns, in creation order, across restores and restarts', () => {
    fc.assert(
      fc.property(fc.array(hostOpArb, { maxLength: 25 }), (ops) => {
        const host = createHost({ seed: 7 });
        ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' }));
        let snap: unknown = host.snapshot();
        for (const o of ops) {
          if (o.op === 'create') {
            // endpoints may outlive their network across a restart: create on any network there is
            const nets = [...host.hns.store.networks.keys()];
            const netId = nets[0] ?? ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' })).ID;
            ok(host.api.HcnCreateEndpoint(netId, null, o.name === '' ? {} : { Name: o.name }));
          } else if (o.op === 'delete') {
            const ids = [...host.hns.store.endpoints.keys()];
            if (ids.length > 0) ok(host.api.HcnDeleteEndpoint(ids[o.pick % ids.length]!));
          } else if (o.op === 'snapshot') {
            snap = host.snapshot();
          } else if (o.op === 'restore') {
            host.restore(JSON.parse(JSON.stringify(snap)));
          } else if (o.op === 'restartHns') {
            host.restartHns();
            host.clock.advance(60_000);
          } else {
            host.reboot();
            host.clock.advance(60_000);
          }
          expectFilterMatchesScan(host);
        }
      }),
      { numRuns: runs(60) },
    );
  });
});
