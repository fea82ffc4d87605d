/**
 * Result types and conversions against containernetworking/cni @ 3f51e880 test literals:
 * `pkg/types/100/types_test.go`, `pkg/types/040/types_test.go`, `pkg/types/020/types_test.go`,
 * `pkg/types/types_test.go`. Upstream compares with gomega's MatchJSON (order-free); the key order
 * checks below come from the Go struct declarations in `pkg/types/{020,040,100}/types.go`.
 */
import { describe, expect, it } from 'vitest';
import {
  convertResult,
  createFromBytes,
  parseResult,
  resultJson,
  resultText,
  type CniResult,
} from '../../src/cni/index.js';

const DNS = {
  nameservers: ['1.2.3.4', '1::cafe'],
  domain: 'acompany.com',
  search: ['somedomain.com', 'otherdomain.net'],
  options: ['foo', 'bar'],
};

/** pkg/types/100/types_test.go testResult() (routes are net.ParseCIDR networks: host bits cleared). */
const result100: CniResult = {
  cniVersion: '1.1.0',
  interfaces: [
    {
      name: 'eth0',
      mac: '00:11:22:33:44:55',
      mtu: 1500,
      sandbox: '/proc/3553/ns/net',
      pciID: '8086:9a01',
      socketPath: '/path/to/vhost/fd',
    },
  ],
  ips: [
    { interface: 0, address: '1.2.3.30/24', gateway: '1.2.3.1' },
    { interface: 0, address: 'abcd:1234:ffff::cdde/64', gateway: 'abcd:1234:ffff::1' },
  ],
  routes: [
    { dst: '15.5.6.0/24', gw: '15.5.6.8' },
    { dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' },
  ],
  dns: DNS,
};

const json = (text: string): unknown => JSON.parse(text);

describe('pkg/types/100/types_test.go', () => {
  it('correctly encodes a 1.1.0 Result', () => {
    expect(json(resultText(result100, '1.1.0'))).toEqual({
      cniVersion: '1.1.0',
      interfaces: [
        {
          name: 'eth0',
          mac: '00:11:22:33:44:55',
          mtu: 1500,
          sandbox: '/proc/3553/ns/net',
          pciID: '8086:9a01',
          socketPath: '/path/to/vhost/fd',
        },
      ],
      ips: [
        { interface: 0, address: '1.2.3.30/24', gateway: '1.2.3.1' },
        { interface: 0, address: 'abcd:1234:ffff::cdde/64', gateway: 'abcd:1234:ffff::1' },
      ],
      routes: [
        { dst: '15.5.6.0/24', gw: '15.5.6.8' },
        { dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' },
      ],
      dns: DNS,
    });
  });

  it('a 1.x result is re-marshalled through a map (types100 Result.MarshalJSON): every key sorted', () => {
    const text = resultText(result100, '1.1.0');
    expect(Object.keys(json(text) as object)).toEqual(['cniVersion', 'dns', 'interfaces', 'ips', 'routes']);
    expect(text).toContain(
      '"interfaces": [\n        {\n            "mac": "00:11:22:33:44:55",\n            "mtu": 1500,\n            "name": "eth0",\n            "pciID": "8086:9a01",\n            "sandbox": "/proc/3553/ns/net",\n            "socketPath": "/path/to/vhost/fd"\n        }\n    ]',
    );
    expect(
      text.startsWith('{\n    "cniVersion": "1.1.0",\n    "dns": {\n        "domain": "acompany.com",'),
    ).toBe(true);
  });

  it('correctly converts a 1.0.0 Result to 1.1.0 and back', () => {
    const r10 = convertResult(result100, '1.0.0');
    expect(r10.cniVersion).toBe('1.0.0');
    const r11 = convertResult(r10, '1.1.0');
    expect(resultJson(r11, '1.1.0')).toEqual(resultJson(result100, '1.1.0'));
  });

  it('correctly encodes a 0.1.0 Result', () => {
    expect(json(resultText(result100, '0.1.0'))).toEqual({
      cniVersion: '0.1.0',
      ip4: { ip: '1.2.3.30/24', gateway: '1.2.3.1', routes: [{ dst: '15.5.6.0/24', gw: '15.5.6.8' }] },
      ip6: {
        ip: 'abcd:1234:ffff::cdde/64',
        gateway: 'abcd:1234:ffff::1',
        routes: [{ dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' }],
      },
      dns: DNS,
    });
  });

  it('correctly encodes a 0.4.0 Result (interfaces lose mtu, pciID, socketPath)', () => {
    expect(json(resultText(result100, '0.4.0'))).toEqual({
      cniVersion: '0.4.0',
      interfaces: [{ name: 'eth0', mac: '00:11:22:33:44:55', sandbox: '/proc/3553/ns/net' }],
      ips: [
        { interface: 0, version: '4', address: '1.2.3.30/24', gateway: '1.2.3.1' },
        { interface: 0, version: '6', address: 'abcd:1234:ffff::cdde/64', gateway: 'abcd:1234:ffff::1' },
      ],
      routes: [
        { dst: '15.5.6.0/24', gw: '15.5.6.8' },
        { dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' },
      ],
      dns: DNS,
    });
  });

  it('correctly marshals interface index 0 and a missing interface index', () => {
    const withZero = resultJson(
      { cniVersion: '1.1.0', ips: [{ interface: 0, address: '10.1.2.3/24' }] },
      '1.1.0',
    );
    expect(withZero['ips']).toEqual([{ address: '10.1.2.3/24', interface: 0 }]);
    const without = resultJson({ cniVersion: '1.1.0', ips: [{ address: '10.1.2.3/24' }] }, '1.1.0');
    expect(without['ips']).toEqual([{ address: '10.1.2.3/24' }]);
  });

  it('returns an error when unmarshalling json fails ({"address": 5})', () => {
    expect(() => parseResult('{"cniVersion":"1.1.0","ips":[{"address": 5}]}', '1.1.0')).toThrow(
      /^json: cannot unmarshal/,
    );
  });
});

/** pkg/types/040/types_test.go testResult(). */
const doc031 = {
  cniVersion: '0.3.1',
  interfaces: [{ name: 'eth0', mac: '00:11:22:33:44:55', sandbox: '/proc/3553/ns/net' }],
  ips: [
    { version: '4', interface: 0, address: '1.2.3.30/24', gateway: '1.2.3.1' },
    { version: '6', interface: 0, address: 'abcd:1234:ffff::cdde/64', gateway: 'abcd:1234:ffff::1' },
  ],
  routes: [
    { dst: '15.5.6.0/24', gw: '15.5.6.8' },
    { dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' },
  ],
  dns: DNS,
};

describe('pkg/types/040/types_test.go', () => {
  it('correctly encodes a 0.3.x Result, fields in struct order', () => {
    const r = parseResult(JSON.stringify(doc031), '0.3.1');
    const text = resultText(r, '0.3.1');
    expect(json(text)).toEqual(doc031);
    expect(Object.keys(json(text) as object)).toEqual(['cniVersion', 'interfaces', 'ips', 'routes', 'dns']);
    expect(text).toContain(
      '{\n            "version": "4",\n            "interface": 0,\n            "address": "1.2.3.30/24",',
    );
  });

  it('correctly encodes a 0.1.0 Result', () => {
    const r = parseResult(JSON.stringify(doc031), '0.3.1');
    expect(json(resultText(r, '0.1.0'))).toEqual({
      cniVersion: '0.1.0',
      ip4: { ip: '1.2.3.30/24', gateway: '1.2.3.1', routes: [{ dst: '15.5.6.0/24', gw: '15.5.6.8' }] },
      ip6: {
        ip: 'abcd:1234:ffff::cdde/64',
        gateway: 'abcd:1234:ffff::1',
        routes: [{ dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' }],
      },
      dns: DNS,
    });
  });

  it.each([
    [
      'with route gateways',
      [{ dst: '15.5.6.0/24', gw: '15.5.6.8' }],
      [{ dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' }],
    ],
    ['without route gateways', [{ dst: '15.5.6.0/24' }], [{ dst: '1111:dddd::/80' }]],
  ])('correctly round-trips a 0.2.0 Result %s', (_name, r4, r6) => {
    const doc020 = {
      cniVersion: '0.2.0',
      ip4: { ip: '1.2.3.30/24', gateway: '1.2.3.1', routes: r4 },
      ip6: { ip: 'abcd:1234:ffff::cdde/64', gateway: 'abcd:1234:ffff::1', routes: r6 },
      dns: DNS,
    };
    const r040 = convertResult(parseResult(JSON.stringify(doc020), '0.2.0'), '0.4.0');
    expect(resultJson(r040, '0.2.0')).toEqual(doc020);
  });

  it('marshals interface index 0 with version first', () => {
    const r = parseResult(
      '{"cniVersion":"0.4.0","ips":[{"version":"4","interface":0,"address":"10.1.2.3/24"}]}',
      '0.4.0',
    );
    expect(resultText(r, '0.4.0')).toContain(
      '{\n            "version": "4",\n            "interface": 0,\n            "address": "10.1.2.3/24"\n        }',
    );
  });

  it('fails when downconverting a result to 0.2.0 that has no IPs', () => {
    const r = parseResult(JSON.stringify({ ...doc031, ips: undefined, routes: undefined }), '0.3.1');
    expect(() => resultJson(r, '0.2.0')).toThrow(/^cannot convert: no valid IP addresses$/);
  });

  it('returns an error when unmarshalling json fails', () => {
    expect(() => parseResult('{"cniVersion":"0.4.0","ips":[{"address": 5}]}', '0.4.0')).toThrow(
      /^json: cannot unmarshal/,
    );
  });
});

describe('pkg/types/020/types_test.go', () => {
  const doc = (v: string): Record<string, unknown> => ({
    ...(v === '' ? {} : { cniVersion: v }),
    ip4: { ip: '1.2.3.30/24', gateway: '1.2.3.1', routes: [{ dst: '15.5.6.0/24', gw: '15.5.6.8' }] },
    ip6: {
      ip: 'abcd:1234:ffff::cdde/64',
      gateway: 'abcd:1234:ffff::1',
      routes: [{ dst: '1111:dddd::/80', gw: '1111:dddd::aaaa' }],
    },
    dns: DNS,
  });

  it.each(['0.2.0', '0.1.0'])('correctly encodes a %s Result', (v) => {
    const r = parseResult(JSON.stringify(doc(v)), v);
    expect(json(resultText(r, v))).toEqual(doc(v));
    expect(Object.keys(json(resultText(r, v)) as object)).toEqual(['cniVersion', 'ip4', 'ip6', 'dns']);
  });

  it('converts a 0.2.0 result to 0.1.0 and a 0.1.0 result to 0.2.0', () => {
    expect(resultJson(parseResult(JSON.stringify(doc('0.2.0')), '0.2.0'), '0.1.0')).toEqual(doc('0.1.0'));
    expect(resultJson(parseResult(JSON.stringify(doc('0.1.0')), '0.1.0'), '0.2.0')).toEqual(doc('0.2.0'));
  });

  it("creates a 0.1.0 result passing CNIVersion ''", () => {
    expect(parseResult(JSON.stringify(doc('')), '').cniVersion).toBe('0.1.0');
  });
});

describe('pkg/types/types_test.go', () => {
  it.each([
    ['1.2.3.4/24', '1.2.3.4/24'],
    ['2001:db8::/32', '2001:db8::/32'],
  ])('ParseCIDR parse and stringify %s', (input, out) => {
    const r = parseResult(`{"cniVersion":"1.1.0","ips":[{"address":"${input}"}]}`, '1.1.0');
    expect(r.ips?.[0]?.address).toBe(out);
  });

  it('ParseCIDR error: invalid CIDR address: 1.2.3/45', () => {
    expect(() => parseResult('{"cniVersion":"1.1.0","ips":[{"address":"1.2.3/45"}]}', '1.1.0')).toThrow(
      /^invalid CIDR address: 1\.2\.3\/45$/,
    );
  });

  it('IPNet UnmarshalJSON: json: cannot unmarshal number into Go value of type string', () => {
    expect(() => parseResult('{"cniVersion":"1.1.0","ips":[{"address":1}]}', '1.1.0')).toThrow(
      /^json: cannot unmarshal number into Go value of type string$/,
    );
  });

  it('IPNet UnmarshalJSON: invalid CIDR address: 1.2.3.4/99', () => {
    expect(() => parseResult('{"cniVersion":"1.1.0","ips":[{"address":"1.2.3.4/99"}]}', '1.1.0')).toThrow(
      /^invalid CIDR address: 1\.2\.3\.4\/99$/,
    );
  });

  it('custom Route type marshals and unmarshals with every 1.1.0 field', () => {
    const route =
      '{ "dst": "1.2.3.0/24", "gw": "1.2.3.1", "mtu": 1500, "advmss": 1340, "priority": 100, "table": 50, "scope": 253 }';
    const r = parseResult(`{"cniVersion":"1.1.0","routes":[${route}]}`, '1.1.0');
    expect(resultJson(r, '1.1.0')['routes']).toEqual([JSON.parse(route)]);
    // types.route struct order when it is not re-marshalled through a map (0.4.0 result)
    expect(resultText(r, '0.4.0')).toContain(
      '"dst": "1.2.3.0/24",\n            "gw": "1.2.3.1",\n            "mtu": 1500,\n            "advmss": 1340,\n            "priority": 100,\n            "table": 50,\n            "scope": 253',
    );
  });

  it('Route UnmarshalJSON: invalid IP address: 1.2.3.x', () => {
    expect(() =>
      parseResult('{"cniVersion":"1.1.0","routes":[{ "dst": "1.2.3.0/24", "gw": "1.2.3.x" }]}', '1.1.0'),
    ).toThrow(/^invalid IP address: 1\.2\.3\.x$/);
  });

  it("Result conversion: can create a CNIVersion '' (0.1.0) result", () => {
    const r: CniResult = {
      cniVersion: '1.0.0',
      interfaces: [{ name: 'eth0', mac: '00:11:22:33:44:55', sandbox: '/proc/3553/ns/net' }],
      ips: [{ interface: 0, address: '1.2.3.30/24', gateway: '1.2.3.1' }],
      dns: DNS,
    };
    expect(convertResult(r, '').cniVersion).toBe('0.1.0');
    expect(resultJson(r, '')['cniVersion']).toBe('0.1.0');
  });
});

describe('libcni api_test.go: results read back from the cache', () => {
  it('unsupported CNI result version "0.4567.0"', () => {
    expect(() =>
      createFromBytes(
        '{"cniVersion": "0.4567.0", "ips": [{"version": "4", "address": "10.1.2.3/24"}], "dns": {}}',
      ),
    ).toThrow(/^unsupported CNI result version "0\.4567\.0"$/);
  });

  it('decoding version from network config: invalid character …', () => {
    expect(() => createFromBytes('adfadsfasdfasfdsafaf')).toThrow(
      /^decoding version from network config: invalid character 'a' looking for beginning of value$/,
    );
  });
});
