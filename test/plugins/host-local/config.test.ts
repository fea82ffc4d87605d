// host-local's config loading beyond config_test.go (containernetworking/plugins @3d27709f
// backend/allocator/config.go; cni v1.3.0 pkg/types/args.go LoadArgs, types.go Route/IPNet): the
// error texts Go produces for each way a config or CNI_ARGS can be wrong, and how routes are read.
import { describe, expect, it } from 'vitest';
import { loadEnvArgs, loadIPAMConfig } from '../../../src/plugins/host-local/index.js';
import { ip } from './helpers.js';

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

const conf = (ipam: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ cniVersion: '1.0.0', name: 'mynet', ...extra, ipam });

describe('LoadArgs (CNI_ARGS into IPAMEnvArgs)', () => {
  it('IP=, with or without a prefix', () => {
    expect(loadEnvArgs('IP=10.1.2.3').ip).toEqual({ ip: ip('10.1.2.3') });
    expect(loadEnvArgs('IP=10.1.2.3/24').ip).toEqual({ ip: ip('10.1.2.3') });
    expect(loadEnvArgs('IP=').ip).toEqual({});
  });

  it('unknown keys fail unless IgnoreUnknown is 1/true (any case), wherever it stands', () => {
    expect(errorOf(() => loadEnvArgs('K8S_POD_NAMESPACE=default;K8S_POD_NAME=p'))).toBe(
      'ARGS: unknown args ["K8S_POD_NAMESPACE=default" "K8S_POD_NAME=p"]',
    );
    expect(loadEnvArgs('K8S_POD_NAMESPACE=default;IgnoreUnknown=1').ignoreUnknown).toBe(true);
    expect(loadEnvArgs('IgnoreUnknown=TRUE;K8S_POD_NAME=p;IP=10.0.0.5').ip).toEqual({ ip: ip('10.0.0.5') });
    // keys are Go field names: case-sensitive
    expect(errorOf(() => loadEnvArgs('ip=10.0.0.5'))).toBe('ARGS: unknown args ["ip=10.0.0.5"]');
  });

  it("Go's errors for a bad pair, a bad boolean, a bad IP and the CommonArgs field", () => {
    expect(errorOf(() => loadEnvArgs('IP=1=2'))).toBe('ARGS: invalid pair "IP=1=2"');
    expect(errorOf(() => loadEnvArgs('IP=10.0.0.5;'))).toBe('ARGS: invalid pair ""');
    expect(errorOf(() => loadEnvArgs('IgnoreUnknown=Yes'))).toBe(
      'ARGS: error parsing value of pair "IgnoreUnknown=Yes": boolean unmarshal error: invalid input yes',
    );
    expect(errorOf(() => loadEnvArgs('IP=10.0.0.256'))).toBe(
      'ARGS: error parsing value of pair "IP=10.0.0.256": invalid IP address 10.0.0.256',
    );
    expect(errorOf(() => loadEnvArgs('CommonArgs=x'))).toBe(
      "ARGS: cannot unmarshal into field 'CommonArgs' - type '*types.CommonArgs' does not implement encoding.TextUnmarshaler",
    );
  });
});

describe('LoadIPAMConfig errors', () => {
  it("no ipam (absent or null): IPAM config missing 'ipam' key", () => {
    expect(errorOf(() => loadIPAMConfig(JSON.stringify({ name: 'n' }), ''))).toBe(
      "IPAM config missing 'ipam' key",
    );
    expect(errorOf(() => loadIPAMConfig(JSON.stringify({ name: 'n', ipam: null }), ''))).toBe(
      "IPAM config missing 'ipam' key",
    );
  });

  it('no ranges: "no IP ranges specified" (a legacy range needs its subnet)', () => {
    expect(errorOf(() => loadIPAMConfig(conf({ type: 'host-local' }), ''))).toBe('no IP ranges specified');
    expect(errorOf(() => loadIPAMConfig(conf({ type: 'host-local', rangeStart: '10.0.0.5' }), ''))).toBe(
      'no IP ranges specified',
    );
  });

  it('JSON syntax and type errors are encoding/json texts', () => {
    expect(errorOf(() => loadIPAMConfig('{"name":', ''))).toBe('unexpected end of JSON input');
    expect(errorOf(() => loadIPAMConfig(JSON.stringify({ name: 'n', ipam: { dataDir: 5 } }), ''))).toBe(
      'json: cannot unmarshal number into Go struct field IPAMConfig.ipam.dataDir of type string',
    );
  });

  it('a bad subnet, address or empty range', () => {
    expect(errorOf(() => loadIPAMConfig(conf({ subnet: '10.0.0.0' }), ''))).toBe(
      'invalid CIDR address: 10.0.0.0',
    );
    expect(errorOf(() => loadIPAMConfig(conf({ subnet: 7 }), ''))).toBe(
      'json: cannot unmarshal number into Go value of type string',
    );
    expect(errorOf(() => loadIPAMConfig(conf({ subnet: '10.0.0.0/24', gateway: 'x' }), ''))).toBe(
      'invalid IP address: x',
    );
    expect(errorOf(() => loadIPAMConfig(conf({ ranges: [[]] }), ''))).toBe(
      'invalid range set 0: empty range set',
    );
    expect(errorOf(() => loadIPAMConfig(conf({ ranges: [[{}]] }), ''))).toBe(
      'invalid range set 0: IP <nil> not v4 nor v6',
    );
    expect(errorOf(() => loadIPAMConfig(conf({ ranges: [[{ subnet: '::ffff:10.0.0.0/120' }]] }), ''))).toBe(
      'invalid range set 0: IPNet IP and Mask version mismatch',
    );
  });

  it('requested addresses: an empty ip.IP is "cannot understand ip"; a bad one is pkg/ip\'s text', () => {
    const ranges = { ranges: [[{ subnet: '10.0.0.0/24' }]] };
    expect(errorOf(() => loadIPAMConfig(conf(ranges, { runtimeConfig: { ips: [''] } }), ''))).toBe(
      'cannot understand ip: IP <nil> not v4 nor v6',
    );
    expect(errorOf(() => loadIPAMConfig(conf(ranges, { args: { cni: { ips: ['nope'] } } }), ''))).toBe(
      'invalid IP address nope',
    );
  });

  it('more than one range of a family needs 0.3.0; an unparsable version counts as older', () => {
    const two = { ranges: [[{ subnet: '10.0.0.0/24' }], [{ subnet: '10.0.1.0/24' }]] };
    expect(errorOf(() => loadIPAMConfig(conf(two, { cniVersion: '' }), ''))).toBe(
      'CNI version  does not support more than 1 address per family',
    );
    expect(errorOf(() => loadIPAMConfig(conf(two, { cniVersion: 'x.y' }), ''))).toBe(
      'CNI version x.y does not support more than 1 address per family',
    );
    expect(loadIPAMConfig(conf(two, { cniVersion: '0.3.0' }), '').conf.ranges).toHaveLength(2);
  });
});

describe('routes', () => {
  it('are read as types.Route and kept as the result prints them', () => {
    const { conf: c } = loadIPAMConfig(
      conf({
        subnet: '10.0.0.0/24',
        routes: [
          { dst: '10.1.2.3/8' },
          { dst: '0.0.0.0/0', gw: '10.0.0.1', mtu: 1400, table: 0 },
          { gw: '10.0.0.1' },
          null,
        ],
      }),
      '',
    );
    expect(c.routes).toEqual([
      // types.ParseCIDR keeps the address as written
      { dst: '10.1.2.3/8' },
      { dst: '0.0.0.0/0', gw: '10.0.0.1', mtu: 1400, table: 0 },
      // a route without dst prints Go's zero IPNet
      { dst: '<nil>', gw: '10.0.0.1' },
    ]);
  });

  it('absent routes stay nil', () => {
    expect(loadIPAMConfig(conf({ subnet: '10.0.0.0/24' }), '').conf.routes).toBeUndefined();
  });

  it("a bad route stops the decode with Route.UnmarshalJSON's error", () => {
    expect(errorOf(() => loadIPAMConfig(conf({ subnet: '10.0.0.0/24', routes: [{ dst: 'x' }] }), ''))).toBe(
      'invalid CIDR address: x',
    );
    expect(
      errorOf(() =>
        loadIPAMConfig(conf({ subnet: '10.0.0.0/24', routes: [{ dst: '0.0.0.0/0', gw: 5 }] }), ''),
      ),
    ).toBe('json: cannot unmarshal number into Go struct field route.gw of type net.IP');
  });
});

describe('ordering of ranges and requested addresses', () => {
  it('runtimeConfig.ipRanges, then the legacy range, then ranges; CNI_ARGS, then args, then runtimeConfig', () => {
    const { conf: c } = loadIPAMConfig(
      conf(
        { subnet: '10.0.1.0/24', ranges: [[{ subnet: '10.0.2.0/24' }]] },
        {
          runtimeConfig: { ipRanges: [[{ subnet: '10.0.0.0/24' }]], ips: ['10.0.2.9'] },
          args: { cni: { ips: ['10.0.1.9'] } },
        },
      ),
      'IgnoreUnknown=1;IP=10.0.0.9;K8S_POD_NAME=x',
    );
    expect(c.ranges.map((s) => s.map((r) => r.subnet!.ip))).toEqual([
      [ip('10.0.0.0')],
      [ip('10.0.1.0')],
      [ip('10.0.2.0')],
    ]);
    expect(c.ipArgs).toEqual([ip('10.0.0.9'), ip('10.0.1.9'), ip('10.0.2.9')]);
  });
});
