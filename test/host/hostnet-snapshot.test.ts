/**
 * The host network state beside HNS in snapshots (`hostNet`): NetNats, their static mappings and
 * the routes added by hand come back from `restore` and keep working in traces; a bad section is
 * E_INVALIDARG with nothing restored; a snapshot without it leaves none.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';

const node = (): Host =>
  createHost({
    seed: 4,
    adapters: [{ name: 'Ethernet', ipAddress: '192.168.1.10/24', gateway: '192.168.1.1' }],
  });

/** Add-NetNatStaticMapping on any address, the same port inside; its StaticMappingID. */
const map = (h: Host, natName: string, protocol: 'TCP' | 'UDP', port: number, internalIp: string): number =>
  h.addNetNatStaticMapping({
    natName,
    protocol,
    externalIp: '0.0.0.0',
    externalPort: port,
    internalIp,
    internalPort: port,
  }).staticMappingID;

/** A host with a NetNat, one static mapping (a second removed, so the next ID is 2) and a route. */
function withNet(): Host {
  const h = node();
  h.addNetNat('antrea-nat-nodeport', '169.254.0.252/32');
  map(h, 'antrea-nat-nodeport', 'TCP', 30080, '169.254.0.252');
  map(h, 'antrea-nat-nodeport', 'UDP', 30053, '169.254.0.252');
  h.removeNetNatStaticMapping('antrea-nat-nodeport', { protocol: 'UDP' });
  h.addRoute({ destinationPrefix: '10.20.0.0/16', nextHop: '192.168.1.254', metric: 5 });
  return h;
}

/** The parts of a snapshot's JSON the cases spoil. */
interface Snap {
  hostNet: {
    netNats: { name: string; internalPrefix: string }[];
    staticMappings: Record<string, unknown>[];
    nextMappingId: number;
    routes: Record<string, unknown>[];
  };
}

describe('hostNet in host snapshots', () => {
  it('NetNats, static mappings (IDs and the next one) and hand-added routes survive a restore', () => {
    const a = withNet();
    const snap = JSON.parse(JSON.stringify(a.snapshot()));
    expect(snap.hostNet).toEqual({
      netNats: [{ name: 'antrea-nat-nodeport', internalPrefix: '169.254.0.252/32' }],
      staticMappings: [
        {
          id: 0,
          natName: 'antrea-nat-nodeport',
          protocol: 'TCP',
          externalIp: '0.0.0.0',
          externalPort: 30080,
          internalIp: '169.254.0.252',
          internalPort: 30080,
        },
      ],
      nextMappingId: 2,
      routes: [
        {
          destinationPrefix: '10.20.0.0/16',
          nextHop: '192.168.1.254',
          interfaceAlias: 'Ethernet',
          metric: 5,
        },
      ],
    });
    const b = node();
    b.restore(snap);
    expect(b.netNats().map((n) => n.name)).toEqual(['antrea-nat-nodeport']);
    expect(b.netNatStaticMappings().map((m) => [m.staticMappingID, m.protocol, m.externalPort])).toEqual([
      [0, 'TCP', 30080],
    ]);
    // the next mapping takes ID 2, as on the original host
    expect(map(b, 'antrea-nat-nodeport', 'UDP', 30053, '169.254.0.252')).toBe(2);
    // the route is back in the table, on its interface with its metric
    const r = b.routes().find((x) => x.origin === 'User');
    expect(r).toMatchObject({ iface: 'Ethernet', metric: 5 });
    expect(b.snapshot().hostNet).toEqual({
      ...snap.hostNet,
      staticMappings: expect.any(Array),
      nextMappingId: 3,
    });
  });

  it('a snapshot without hostNet restores with none; a host with none writes none', () => {
    const a = withNet();
    const plain = node().snapshot();
    expect(plain.hostNet).toBeUndefined();
    a.restore(plain);
    expect(a.netNats()).toEqual([]);
    expect(a.netNatStaticMappings()).toEqual([]);
    expect(a.routes().filter((x) => x.origin === 'User')).toEqual([]);
  });

  it.each([
    ['a NetNat without a name', (s: Snap) => (s.hostNet.netNats[0]!.name = ''), /netNats\[0\]\.name/],
    [
      'a bad prefix',
      (s: Snap) => (s.hostNet.netNats[0]!.internalPrefix = '169.254.0.300/32'),
      /internalPrefix/,
    ],
    ['a mapping of no NetNat', (s: Snap) => (s.hostNet.staticMappings[0]!.natName = 'nope'), /natName/],
    ['a protocol', (s: Snap) => (s.hostNet.staticMappings[0]!.protocol = 'SCTP'), /protocol/],
    ['a port', (s: Snap) => (s.hostNet.staticMappings[0]!.externalPort = 70000), /externalPort/],
    ['outside the prefix', (s: Snap) => (s.hostNet.staticMappings[0]!.internalIp = '10.0.0.1'), /outside/],
    ['a next ID not above the IDs', (s: Snap) => (s.hostNet.nextMappingId = 0), /nextMappingId/],
    [
      'a route prefix',
      (s: Snap) => (s.hostNet.routes[0]!.destinationPrefix = 'x'),
      /routes: \[0\]\.destinationPrefix/,
    ],
    ['a route metric', (s: Snap) => (s.hostNet.routes[0]!.metric = -1), /metric/],
    ['not an object', (s: Snap) => ((s as { hostNet: unknown }).hostNet = []), /hostNet must be an object/],
    [
      'a second mapping of the same protocol and port (Add-NetNatStaticMapping refuses it)',
      (s: Snap) => {
        s.hostNet.staticMappings.push({ ...s.hostNet.staticMappings[0]!, id: 1, externalIp: '192.168.1.10' });
      },
      /staticMappings\[1\] maps TCP port 30080 as staticMappings\[0\] does/,
    ],
    [
      'a repeated route (New-NetRoute refuses it)',
      (s: Snap) => {
        s.hostNet.routes.push({ ...s.hostNet.routes[0]! });
      },
      /routes: \[1\] repeats \[0\]/,
    ],
  ])('%s: E_INVALIDARG naming it, and nothing restored', (_what, spoil, message) => {
    const a = withNet();
    const snap = JSON.parse(JSON.stringify(a.snapshot()));
    spoil(snap);
    const b = node();
    b.addNetNat('mine', '10.1.0.0/24');
    const before = JSON.stringify(b.snapshot());
    expect(() => b.restore(snap)).toThrow(
      expect.objectContaining({ code: 'E_INVALIDARG', message: expect.stringMatching(message) }),
    );
    expect(JSON.stringify(b.snapshot())).toBe(before);
  });

  it('the next mapping ID survives even when no NetNat is left (IDs are not reused)', () => {
    const a = node();
    a.addNetNat('n', '10.1.0.0/24');
    map(a, 'n', 'TCP', 8080, '10.1.0.5');
    a.removeNetNat('n');
    const b = node();
    b.restore(JSON.parse(JSON.stringify(a.snapshot())));
    for (const h of [a, b]) h.addNetNat('n', '10.1.0.0/24');
    const next = (h: Host) => map(h, 'n', 'TCP', 8080, '10.1.0.5');
    // the original's first mapping had ID 0: both hosts give the next one ID 1
    expect([next(a), next(b)]).toEqual([1, 1]);
  });
});
