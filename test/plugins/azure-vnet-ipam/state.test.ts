// azure-vnet-ipam.json is written by a direct layout of the manager (src/plugins/azure-vnet-ipam/
// state.ts managerText); these properties hold it to Go's generic encoding of the same structs
// (`json.MarshalIndent` of `{"IPAM": addressManager}` with a tab, ACN v1.8.12 `ipam/manager.go`,
// `ipam/pool.go`: the fields in declaration order, map keys sorted by their bytes), and check that
// what a save remembers is what decoding the file gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GoOrdered, GoRaw, goMarshalIndent, type GoValue } from '../../../src/cni/gojson.js';
import { FileStore } from '../../../src/core/files.js';
import { AddressManager } from '../../../src/plugins/azure-vnet-ipam/manager.js';
import {
  loadState,
  saveState,
  snapshotState,
  stateText,
  type StateSnapshot,
} from '../../../src/plugins/azure-vnet-ipam/state.js';
import { runs } from '../../runs.js';

/** The structs as Go's encoder walks them (written here from upstream's declarations). */
function generic(m: StateSnapshot): GoValue {
  const spaces: Record<string, GoValue> = {};
  for (const [k, as] of Object.entries(m.AddressSpaces)) {
    const pools: Record<string, GoValue> = {};
    for (const [pk, p] of Object.entries(as.Pools)) {
      const addresses: Record<string, GoValue> = {};
      for (const [ak, r] of Object.entries(p.Addresses)) {
        addresses[ak] = new GoOrdered([
          ['ID', r.ID],
          ['Addr', r.Addr],
          ['InUse', r.InUse],
        ]);
      }
      pools[pk] = new GoOrdered([
        ['Id', p.Id],
        ['IfName', p.IfName],
        [
          'Subnet',
          new GoOrdered([
            ['IP', p.Subnet.IP],
            ['Mask', Buffer.from(p.Subnet.Mask).toString('base64')],
          ]),
        ],
        ['Gateway', p.Gateway],
        ['Addresses', addresses],
        ['IsIPv6', p.IsIPv6],
        ['Priority', p.Priority],
        ['RefCount', p.RefCount],
      ]);
    }
    spaces[k] = new GoOrdered([
      ['Id', as.Id],
      ['Scope', as.Scope],
      ['Pools', pools],
    ]);
  }
  return new GoOrdered([
    ['Version', m.Version],
    ['TimeStamp', m.TimeStamp],
    ['AddressSpaces', spaces],
  ]);
}

const text = fc.string({
  unit: fc.constantFrom('a', 'Z', '0', ' ', '(', '"', '\\', '<', '&', 'é', '\u2028', '\n'),
  maxLength: 6,
});
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `10.${a}.0.${b}`);
const record = fc.record({ ID: text, Addr: ipv4, InUse: fc.boolean() });
const pool = fc.record({
  Id: text,
  IfName: text,
  Subnet: fc.record({ IP: ipv4, Mask: fc.constantFrom([255, 255, 0, 0], [255, 255, 255, 0], [0, 0, 0, 0]) }),
  Gateway: ipv4,
  Addresses: fc.dictionary(ipv4, record, { maxKeys: 6 }),
  IsIPv6: fc.boolean(),
  Priority: fc.nat(3),
  RefCount: fc.nat(3),
});
const snapshot = fc.record({
  Version: text,
  TimeStamp: fc.constantFrom('2026-01-01T00:00:00Z', '2026-12-02T05:00:00.5Z'),
  AddressSpaces: fc.dictionary(
    text,
    fc.record({ Id: text, Scope: fc.nat(2), Pools: fc.dictionary(text, pool, { maxKeys: 3 }) }),
    {
      maxKeys: 3,
    },
  ),
}) as fc.Arbitrary<StateSnapshot>;

describe('azure-vnet-ipam.json layout', () => {
  it("is byte for byte Go's MarshalIndent of the structs, other keys kept in order", () => {
    fc.assert(
      fc.property(
        snapshot,
        fc.dictionary(
          fc.constantFrom('A', 'Network', 'Z', 'ipam'),
          fc.constantFrom('1', '{"x": [1, 2]}', 'null'),
        ),
        (m, others) => {
          const data: Record<string, GoValue> = {};
          for (const [k, v] of Object.entries(others)) data[k] = new GoRaw(v);
          data['IPAM'] = generic(m);
          expect(stateText(m, new Map(Object.entries(others)))).toBe(goMarshalIndent(data, '\t'));
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('a save remembers what decoding its own text gives: a fresh disk with the same text loads the same manager', () => {
    fc.assert(
      fc.property(snapshot, (m) => {
        // only pools whose subnet a manager can hold: decode them both ways
        const files = new FileStore();
        saveState(files, 'C:\\k\\azure-vnet-ipam.json', m, new Map());
        const viaMemo = new AddressManager(() => {});
        loadState(files, 'C:\\k\\azure-vnet-ipam.json', viaMemo);
        const fresh = new FileStore();
        fresh.write('C:\\k\\azure-vnet-ipam.json', files.read('C:\\k\\azure-vnet-ipam.json')!);
        const viaDecode = new AddressManager(() => {});
        loadState(fresh, 'C:\\k\\azure-vnet-ipam.json', viaDecode);
        expect(snapshotState(viaMemo)).toEqual(snapshotState(viaDecode));
      }),
      { numRuns: runs(100) },
    );
  });
});
