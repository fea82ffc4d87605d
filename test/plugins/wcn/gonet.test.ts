/**
 * The Go library behaviour windows-container-networking depends on (Go 1.21): `net.ParseMAC`,
 * `net.IPNet.String()` and `IP.Mask`, `fmt`'s `%v` of hcsshim v0.8.26's `*hcn.HostComputeEndpoint`
 * (it is inside WCN's `error creating endpoint … : endpoint config %v` messages, `network/manager.go`
 * CreateEndpoint l.120) and of values decoded into `interface{}`.
 */
import { describe, expect, it } from 'vitest';
import {
  goAnyV,
  goEndpointV,
  goNetString,
  maskIP,
  parseCIDR,
  parseIP,
  setByte3,
} from '../../../src/plugins/wcn/gonet.js';
import { parseMAC } from '../../../src/cni/gomac.js';

describe('net.ParseMAC', () => {
  it('reads the three notations and the three lengths', () => {
    expect(Array.from(parseMAC('00-15-5D-AB-90-00')!)).toEqual([0, 0x15, 0x5d, 0xab, 0x90, 0]);
    expect(Array.from(parseMAC('00:15:5d:ab:90:00')!)).toEqual([0, 0x15, 0x5d, 0xab, 0x90, 0]);
    expect(Array.from(parseMAC('0015.5dab.9000')!)).toEqual([0, 0x15, 0x5d, 0xab, 0x90, 0]);
    expect(parseMAC('02:00:5e:10:00:00:00:01')).toHaveLength(8);
  });

  it('rejects the rest (WCN then has no MAC)', () => {
    for (const s of [
      '',
      '00-15-5D-AB-90',
      '00-15-5D:AB-90-00',
      '0-15-5D-AB-90-00-',
      'zz-15-5D-AB-90-00',
      '00155DAB9000',
    ]) {
      expect(parseMAC(s), s).toBeUndefined();
    }
  });
});

describe('net.IP / net.IPNet', () => {
  it('String() is <nil> when either half is missing or the lengths disagree', () => {
    expect(goNetString({ ip: undefined, mask: undefined })).toBe('<nil>');
    expect(goNetString({ ip: parseIP('10.0.0.1'), mask: undefined })).toBe('<nil>');
    expect(goNetString({ ip: parseIP('fd00::1'), mask: { ones: 24, width: 32 } })).toBe('<nil>');
    expect(goNetString({ ip: parseIP('10.0.0.1'), mask: { ones: 24, width: 32 } })).toBe('10.0.0.1/24');
  });

  it('ParseCIDR keeps the address and masks the network; Mask then [3] = 2 is the bridge gateway', () => {
    const c = parseCIDR('10.244.1.77/26')!;
    expect(goNetString({ ip: c.ip, mask: c.net.mask })).toBe('10.244.1.77/26');
    expect(goNetString(c.net)).toBe('10.244.1.64/26');
    // forceBridgeGateway on a /26 that does not start on .0: .2, not .66 (reference §4.3 step 6)
    expect(goNetString({ ip: setByte3(maskIP(c.ip, c.net.mask!)!, 2), mask: c.net.mask })).toBe(
      '10.244.1.2/26',
    );
    expect(maskIP(parseIP('fd00::1')!, { ones: 24, width: 32 })).toBeUndefined();
  });
});

describe('%v formatting', () => {
  it('interface{} values: maps sorted, floats as %g', () => {
    expect(goAnyV(null)).toBe('<nil>');
    expect(goAnyV({ b: [1, 'x'], a: true })).toBe('map[a:true b:[1 x]]');
    expect(goAnyV(1000000)).toBe('1e+06');
    expect(goAnyV(123456)).toBe('123456');
    expect(goAnyV(0.5)).toBe('0.5');
    expect(goAnyV(0.00001)).toBe('1e-05');
    expect(goAnyV(1234567)).toBe('1.234567e+06');
  });

  it('*hcn.HostComputeEndpoint: &{…} in field order, settings as byte lists', () => {
    expect(
      goEndpointV({
        Name: 'c1_cbr0',
        HostComputeNetwork: 'N1',
        Policies: [{ Type: 'OutBoundNAT', Settings: { A: 1 } }],
        Dns: { ServerList: ['10.0.0.10'] },
        Routes: [{ NextHop: '10.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
        SchemaVersion: { Major: 2, Minor: 0 },
      }),
    ).toBe(
      '&{ c1_cbr0 N1  [{OutBoundNAT [123 34 65 34 58 49 125]}] [] { [] [10.0.0.10] []} [{10.0.0.1 0.0.0.0/0 0}]  0 {<nil> {[] []    }} {2 0}}',
    );
  });
});
