// Every case of containernetworking/plugins @3d27709f (v1.9.1)
// plugins/ipam/host-local/backend/allocator/config_test.go ("IPAM config"), translated. All apply
// on Windows. Go's expected IPAMConfig structs become the same records here: a subnet is
// {ip, ones, maskBits} (types.IPNet{IP, Mask: net.CIDRMask(ones, maskBits)}).
import { describe, expect, it } from 'vitest';
import { loadIPAMConfig, type IPAMConfig, type Range } from '../../src/plugins/host-local/index.js';
import { ip } from '../plugins/host-local/helpers.js';

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

/** A canonical IPv4 range: `Subnet: types.IPNet{IP: net.IP{…}, Mask: net.CIDRMask(ones, 32)}`. */
function v4range(subnet: string, ones: number, start: string, end: string, gw: string): Range {
  return {
    subnet: { ip: ip(subnet), ones, maskBits: 32 },
    rangeStart: ip(start),
    rangeEnd: ip(end),
    gateway: ip(gw),
  };
}

/**
 * The test's network config: an ipvlan net "mynet" on "foo0" with the Go test's literal `ipam` body
 * (its `type` is host-local) and any further top-level fields (`runtimeConfig`, `args`).
 */
function netConf(
  ipam: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  cniVersion = '0.3.1',
): string {
  return JSON.stringify({
    cniVersion,
    name: 'mynet',
    type: 'ipvlan',
    master: 'foo0',
    ...extra,
    ipam: { type: 'host-local', ...ipam },
  });
}

function expected(ranges: Range[][]): IPAMConfig {
  return {
    name: 'mynet',
    type: 'host-local',
    routes: undefined,
    dataDir: '',
    resolvConf: '',
    ranges,
    ipArgs: [],
  };
}

describe('config_test.go: IPAM config', () => {
  it('Should parse an old-style config', () => {
    const input = netConf({
      subnet: '10.1.2.0/24',
      rangeStart: '10.1.2.9',
      rangeEnd: '10.1.2.20',
      gateway: '10.1.2.30',
    });
    const { conf, version } = loadIPAMConfig(input, '');
    expect(version).toBe('0.3.1');
    expect(conf).toEqual(expected([[v4range('10.1.2.0', 24, '10.1.2.9', '10.1.2.20', '10.1.2.30')]]));
  });

  it('Should parse a new-style config', () => {
    const input = netConf({
      ranges: [
        [
          { subnet: '10.1.2.0/24', rangeStart: '10.1.2.9', rangeEnd: '10.1.2.20', gateway: '10.1.2.30' },
          { subnet: '10.1.4.0/24' },
        ],
        [{ subnet: '11.1.2.0/24', rangeStart: '11.1.2.9', rangeEnd: '11.1.2.20', gateway: '11.1.2.30' }],
      ],
    });
    const { conf, version } = loadIPAMConfig(input, '');
    expect(version).toBe('0.3.1');
    expect(conf).toEqual(
      expected([
        [
          v4range('10.1.2.0', 24, '10.1.2.9', '10.1.2.20', '10.1.2.30'),
          v4range('10.1.4.0', 24, '10.1.4.1', '10.1.4.254', '10.1.4.1'),
        ],
        [v4range('11.1.2.0', 24, '11.1.2.9', '11.1.2.20', '11.1.2.30')],
      ]),
    );
  });

  it('Should parse a mixed config with runtime args', () => {
    const input = netConf(
      {
        subnet: '10.1.2.0/24',
        rangeStart: '10.1.2.9',
        rangeEnd: '10.1.2.20',
        gateway: '10.1.2.30',
        ranges: [
          [{ subnet: '11.1.2.0/24', rangeStart: '11.1.2.9', rangeEnd: '11.1.2.20', gateway: '11.1.2.30' }],
        ],
      },
      { runtimeConfig: { irrelevant: 'a', ipRanges: [[{ subnet: '12.1.3.0/24' }]] } },
    );
    const { conf, version } = loadIPAMConfig(input, '');
    expect(version).toBe('0.3.1');
    expect(conf).toEqual(
      expected([
        // the RuntimeConfig should always be first
        [v4range('12.1.3.0', 24, '12.1.3.1', '12.1.3.254', '12.1.3.1')],
        [v4range('10.1.2.0', 24, '10.1.2.9', '10.1.2.20', '10.1.2.30')],
        [v4range('11.1.2.0', 24, '11.1.2.9', '11.1.2.20', '11.1.2.30')],
      ]),
    );
  });

  describe('Should parse CNI_ARGS env', () => {
    const input = netConf({
      ranges: [
        [{ subnet: '10.1.2.0/24', rangeStart: '10.1.2.9', rangeEnd: '10.1.2.20', gateway: '10.1.2.30' }],
      ],
    });

    it('without prefix', () => {
      expect(loadIPAMConfig(input, 'IP=10.1.2.10').conf.ipArgs).toEqual([ip('10.1.2.10')]);
    });

    it('with prefix', () => {
      expect(loadIPAMConfig(input, 'IP=10.1.2.11/24').conf.ipArgs).toEqual([ip('10.1.2.11')]);
    });
  });

  describe('Should parse config args', () => {
    const input = (ips: string[]): string =>
      netConf(
        {
          ranges: [
            [{ subnet: '10.1.2.0/24', rangeStart: '10.1.2.9', rangeEnd: '10.1.2.20', gateway: '10.1.2.30' }],
            [{ subnet: '11.1.2.0/24', rangeStart: '11.1.2.9', rangeEnd: '11.1.2.20', gateway: '11.1.2.30' }],
            [{ subnet: '2001:db8:1::/64' }],
          ],
        },
        { args: { cni: { ips } } },
      );
    const want = [ip('10.1.2.10'), ip('10.1.2.11'), ip('11.11.11.11'), ip('2001:db8:1::11')];

    it('without prefix', () => {
      const conf = loadIPAMConfig(input(['10.1.2.11', '11.11.11.11', '2001:db8:1::11']), 'IP=10.1.2.10').conf;
      expect(conf.ipArgs).toEqual(want);
    });

    it('with prefix', () => {
      const conf = loadIPAMConfig(
        input(['10.1.2.11/24', '11.11.11.11/24', '2001:db8:1::11/64']),
        'IP=10.1.2.10/24',
      ).conf;
      expect(conf.ipArgs).toEqual(want);
    });
  });

  it.each([
    {
      name: 'Should detect overlap between rangesets',
      ranges: [
        [{ subnet: '10.1.2.0/24' }, { subnet: '10.2.2.0/24' }],
        [
          { subnet: '10.1.4.0/24' },
          { subnet: '10.1.6.0/24' },
          { subnet: '10.1.8.0/24' },
          { subnet: '10.1.2.0/24' },
        ],
      ],
      cniVersion: '0.3.1',
      error: 'range set 0 overlaps with 1',
    },
    {
      name: 'Should detect overlap within rangeset',
      ranges: [[{ subnet: '10.1.0.0/22' }, { subnet: '10.1.2.0/24' }]],
      cniVersion: '0.3.1',
      error: 'invalid range set 0: subnets 10.1.0.1-10.1.3.254 and 10.1.2.1-10.1.2.254 overlap',
    },
    {
      name: 'should error on rangesets with different families',
      ranges: [[{ subnet: '10.1.0.0/22' }, { subnet: '2001:db8:5::/64' }]],
      cniVersion: '0.3.1',
      error: 'invalid range set 0: mixed address families',
    },
    {
      name: 'Should should error on too many ranges',
      ranges: [[{ subnet: '10.1.2.0/24' }], [{ subnet: '11.1.2.0/24' }]],
      cniVersion: '0.2.0',
      error: 'CNI version 0.2.0 does not support more than 1 address per family',
    },
  ])('$name', ({ ranges, cniVersion, error }) => {
    expect(errorOf(() => loadIPAMConfig(netConf({ ranges }, {}, cniVersion), ''))).toBe(error);
  });

  it('Should allow one v4 and v6 range for 0.2.0', () => {
    const input = netConf(
      { ranges: [[{ subnet: '10.1.2.0/24' }], [{ subnet: '2001:db8:1::/48' }]] },
      {},
      '0.2.0',
    );
    expect(() => loadIPAMConfig(input, '')).not.toThrow();
  });

  it('Should parse custom IPs from runtime configuration', () => {
    const input = netConf(
      { subnet: '10.1.2.0/24' },
      { runtimeConfig: { ips: ['192.168.0.1', '192.168.0.5/24', '2001:db8::1/64'] } },
    );
    const { conf, version } = loadIPAMConfig(input, '');
    expect(version).toBe('0.3.1');
    expect(conf.ipArgs).toEqual([ip('192.168.0.1'), ip('192.168.0.5'), ip('2001:db8::1')]);
  });
});
