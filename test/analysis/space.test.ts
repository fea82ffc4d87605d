/**
 * The packet space's faces (src/analysis/space.ts): the human form of sets built from fields by
 * hand, each expected line written out here; counts; the witness near a hint; a set too scattered
 * to read listed only in part.
 */
import { describe, expect, it } from 'vitest';
import { AclSpace } from '../../src/analysis/space.js';
import { parsePrefix4 } from '../../src/vswitch/v4.js';

const prefix = (t: string) => parsePrefix4(t)!;
const ip = (t: string) => t.split('.').reduce((a, x) => a * 256 + Number(x), 0);

describe('AclSpace: the human form', () => {
  const s = new AclSpace();
  const b = s.bdd;
  const and = (...xs: number[]) => xs.reduce((x, y) => b.and(x, y), s.universe);

  it('protocols by name, ports as lists and ranges, words by direction', () => {
    const web = and(
      s.protocols([6]),
      s.ports('localPort', [
        { first: 80, last: 80 },
        { first: 443, last: 443 },
      ]),
    );
    expect(s.describe(web, 'In')).toEqual(['TCP to port 80, 443']);
    expect(s.describe(web, 'Out')).toEqual(['TCP from port 80, 443']);
    const dns = and(
      s.protocols([17]),
      s.ports('remotePort', [{ first: 53, last: 53 }]),
      s.addresses('remoteIp', [prefix('10.96.0.10/32')]),
    );
    expect(s.describe(dns, 'Out')).toEqual(['UDP to 10.96.0.10 port 53']);
    expect(s.describe(s.protocols([1, 58]), 'In')).toEqual(['ICMP, ICMPv6']);
    expect(s.describe(and(s.protocols([47])), 'In')).toEqual(['protocol 47']);
  });

  it('the whole space is any protocol; most protocols name the few left out', () => {
    expect(s.describe(s.universe, 'In')).toEqual(['any protocol']);
    expect(s.describe(b.diff(s.universe, s.protocols([6])), 'In')).toEqual(['any protocol except TCP']);
  });

  it('addresses: a prefix, "except" when shorter, up to three prefixes, else a range', () => {
    const from = (...p: string[]) => s.addresses('remoteIp', p.map(prefix));
    const except = b.diff(from('10.244.0.0/16'), from('10.244.3.7/32'));
    expect(s.describe(and(except), 'In')).toEqual(['any protocol from 10.244.0.0/16 except 10.244.3.7']);
    // [10.0.0.1, 10.0.0.6]: .1/32, .2/31, .4/31, .6/32 — four prefixes, so the range
    const r = b.range(24, 32, ip('10.0.0.1'), ip('10.0.0.6'));
    expect(s.describe(and(r), 'In')).toEqual(['any protocol from 10.0.0.1-10.0.0.6']);
    expect(s.describe(and(from('10.0.0.0/31', '10.0.0.2/32')), 'In')).toEqual([
      'any protocol from 10.0.0.0/31, 10.0.0.2',
    ]);
    expect(s.describe(b.diff(s.universe, from('192.168.0.0/16')), 'Out')).toEqual([
      'any protocol to any except 192.168.0.0/16',
    ]);
  });

  it('a set that differs between protocols is one line per box', () => {
    const set = b.or(
      and(s.protocols([6]), s.ports('localPort', [{ first: 22, last: 22 }])),
      and(s.protocols([1])),
    );
    expect(s.describe(set, 'In')).toEqual(['ICMP', 'TCP to port 22']);
    // one TCP port: 2^16 remote ports × 2^32 remote × 2^32 local addresses; ICMP: 2^64 addresses
    expect(s.count(set)).toBe(2n ** 80n + 2n ** 64n);
  });

  it('a scattered set is listed in part: the first lines, then how many more', () => {
    let set = 0;
    for (let i = 0; i < 100; i++)
      set = b.or(
        set,
        s.packet({
          proto: 6,
          localIp: 0,
          localPort: 1000 + 2 * i,
          remoteIp: ip('10.0.0.1') + 2 * i,
          remotePort: 1,
        }),
      );
    expect(s.count(set)).toBe(100n);
    const lines = s.describe(set, 'In', 3);
    expect(lines).toEqual([
      'TCP to 0.0.0.0 port 1000 from 10.0.0.1 port 1',
      'TCP to 0.0.0.0 port 1002 from 10.0.0.3 port 1',
      'TCP to 0.0.0.0 port 1004 from 10.0.0.5 port 1',
      '… and 97 more',
    ]);
    const { boxes, complete } = s.boxes(set, 10);
    expect([boxes.length, complete]).toEqual([10, false]);
  });

  it('the witness is the hint when the set has it, else the packet nearest to it', () => {
    const set = and(s.protocols([6]), s.ports('localPort', [{ first: 8080, last: 8080 }]));
    const hinted = s.pick(set, {
      proto: 6,
      localIp: ip('10.244.1.5'),
      localPort: 8080,
      remoteIp: ip('10.0.0.9'),
      remotePort: 40000,
    });
    expect(hinted).toEqual({
      proto: 6,
      localIp: ip('10.244.1.5'),
      localPort: 8080,
      remoteIp: ip('10.0.0.9'),
      remotePort: 40000,
    });
    // the default hint: TCP from 203.0.113.10:49152 to port 80 — port 80 is not in the set
    expect(s.witness(set, 'In')).toEqual({
      protocol: 6,
      srcIp: '203.0.113.10',
      srcPort: 49152,
      dstIp: '0.0.0.0',
      dstPort: 8080,
    });
    expect(s.witness(0, 'In')).toBeUndefined();
  });
});
