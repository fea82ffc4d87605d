/**
 * Results beyond the upstream vectors (test/acceptance/cni-types.test.ts): Go's creator and converter
 * rules read from containernetworking/cni @ 3f51e880 pkg/types/{020,040,100}/types.go,
 * pkg/types/internal/{create,convert}.go and pkg/invoke/exec.go (fixupResultVersion).
 */
import { describe, expect, it } from 'vitest';
import {
  convertResult,
  parsePluginOutput,
  parseResult,
  printResult,
  resultJson,
  resultText,
  type CniResult,
} from '../../src/cni/index.js';

describe('parseResult (create.Create)', () => {
  it('the type comes from the requested version, cniVersion from the document', () => {
    const r = parseResult('{"cniVersion":"1.0.0","ips":[{"address":"10.0.0.2/24"}]}', '1.1.0');
    expect(r.cniVersion).toBe('1.0.0');
  });

  it.each([
    [
      '{"cniVersion":"0.4.0"}',
      '1.1.0',
      'result type supports [1.0.0 1.1.0] but unmarshalled CNIVersion is "0.4.0"',
    ],
    [
      '{"cniVersion":"1.0.0"}',
      '0.3.1',
      'result type supports [0.3.0 0.3.1 0.4.0] but unmarshalled CNIVersion is "1.0.0"',
    ],
    [
      '{"cniVersion":"0.3.1"}',
      '0.2.0',
      'result type supports [ 0.1.0 0.2.0] but unmarshalled CNIVersion is "0.3.1"',
    ],
    ['{}', '1.1.0', 'result type supports [1.0.0 1.1.0] but unmarshalled CNIVersion is ""'],
    ['{"cniVersion":"1.1.0"}', '2.0.0', 'unsupported CNI result version "2.0.0"'],
  ])('%s read at %s → %s', (doc, v, msg) => {
    expect(() => parseResult(doc, v)).toThrow(msg);
  });

  it('keys match case-insensitively and addresses come back canonical', () => {
    const r = parseResult(
      '{"CNIVersion":"1.1.0","IPs":[{"Address":"2001:DB8::0:1/64","Gateway":"2001:DB8::FFFF"}]}',
      '1.1.0',
    );
    expect(r.ips).toEqual([{ address: '2001:db8::1/64', gateway: '2001:db8::ffff' }]);
  });

  it('a missing address prints as <nil> (a zero net.IPNet), as Go does', () => {
    const r = parseResult('{"cniVersion":"1.1.0","ips":[{"gateway":"10.0.0.1"}]}', '1.1.0');
    expect(resultJson(r, '1.1.0')['ips']).toEqual([{ address: '<nil>', gateway: '10.0.0.1' }]);
  });

  it('an IPv4-mapped address is IPv4 (net.IP.String), with its mask counted in the last 32 bits', () => {
    const r = parseResult('{"cniVersion":"1.1.0","ips":[{"address":"::ffff:10.1.2.3/120"}]}', '1.1.0');
    expect(r.ips?.[0]?.address).toBe('10.1.2.3/24');
    expect((resultJson(r, '0.4.0')['ips'] as { version: string }[])[0]!.version).toBe('4');
  });
});

describe('conversions follow the Go type the result was read as', () => {
  it('0.4.0 keeps ips[].version as written when it converts to 0.2.0 (no recomputation)', () => {
    const r = parseResult('{"cniVersion":"0.4.0","ips":[{"version":"6","address":"10.0.0.5/24"}]}', '0.4.0');
    expect(resultJson(r, '0.2.0')).toEqual({ cniVersion: '0.2.0', ip6: { ip: '10.0.0.5/24' }, dns: {} });
    // but through 1.x the version is recomputed from the address
    expect(resultJson(convertResult(r, '1.0.0'), '0.2.0')).toEqual({
      cniVersion: '0.2.0',
      ip4: { ip: '10.0.0.5/24' },
      dns: {},
    });
  });

  it('0.2.0 → 0.1.0 keeps route extras (Copy); 0.4.0 → 0.2.0 keeps only dst and gw', () => {
    const r = parseResult(
      '{"cniVersion":"0.2.0","ip4":{"ip":"10.0.0.5/24","routes":[{"dst":"0.0.0.0/0","mtu":1400}]}}',
      '0.2.0',
    );
    expect(resultJson(r, '0.1.0')['ip4']).toEqual({
      ip: '10.0.0.5/24',
      routes: [{ dst: '0.0.0.0/0', mtu: 1400 }],
    });
    expect(resultJson(convertResult(r, '0.4.0'), '0.2.0')['ip4']).toEqual({
      ip: '10.0.0.5/24',
      routes: [{ dst: '0.0.0.0/0' }],
    });
  });

  it('0.2.0 routes are sorted by family on the way down, and dropped without an address of that family', () => {
    const r: CniResult = {
      cniVersion: '1.1.0',
      ips: [{ address: '10.0.0.5/24' }],
      routes: [
        { dst: '::/0', gw: 'fe80::1' },
        { dst: '0.0.0.0/0', gw: '10.0.0.1' },
      ],
    };
    expect(resultJson(r, '0.2.0')).toEqual({
      cniVersion: '0.2.0',
      ip4: { ip: '10.0.0.5/24', routes: [{ dst: '0.0.0.0/0', gw: '10.0.0.1' }] },
      dns: {},
    });
  });

  it('only the first address of each family survives in 0.2.0', () => {
    const r: CniResult = {
      cniVersion: '1.1.0',
      ips: [{ address: '10.0.0.5/24' }, { address: '10.0.0.6/24' }],
    };
    expect(resultJson(r, '0.2.0')['ip4']).toEqual({ ip: '10.0.0.5/24' });
  });

  it('an unknown target version: no converter for CNI result version X to Y', () => {
    const r: CniResult = { cniVersion: '1.1.0', ips: [{ address: '10.0.0.5/24' }] };
    expect(() => resultJson(r, '1.2.0')).toThrow('no converter for CNI result version 1.1.0 to 1.2.0');
    const r040 = parseResult('{"cniVersion":"0.3.1"}', '0.3.1');
    expect(() => resultJson(r040, '9.9.9')).toThrow('no converter for CNI result version 0.3.1 to 9.9.9');
  });

  it('a plugin-built result is a types100.Result: a 0.x cniVersion on it counts as 1.1.0', () => {
    const r: CniResult = { cniVersion: '0.3.1', ips: [{ address: '10.0.0.5/24' }] };
    expect(resultJson(r, '0.3.1')).toEqual({
      cniVersion: '0.3.1',
      ips: [{ version: '4', address: '10.0.0.5/24' }],
      dns: {},
    });
  });

  it('a plugin-built result prints canonical addresses', () => {
    const r: CniResult = {
      cniVersion: '1.1.0',
      ips: [{ address: '2001:DB8:0::5/64', gateway: '2001:DB8::1' }],
    };
    expect(resultJson(r, '1.1.0')['ips']).toEqual([{ address: '2001:db8::5/64', gateway: '2001:db8::1' }]);
  });

  it('1.x omits an empty dns; 0.x always prints "dns": {}', () => {
    const r: CniResult = { cniVersion: '1.1.0', ips: [{ address: '10.0.0.5/24' }], dns: {} };
    expect(resultJson(r, '1.1.0')).not.toHaveProperty('dns');
    expect(resultJson(r, '0.4.0')).toHaveProperty('dns', {});
    expect(resultJson(r, '0.1.0')).toHaveProperty('dns', {});
  });

  it('printResult writes MarshalIndent text without a trailing newline', () => {
    let out = '';
    printResult(
      { write: (t) => (out += t) },
      { cniVersion: '1.1.0', ips: [{ address: '10.0.0.5/24' }] },
      '1.0.0',
    );
    expect(out).toBe(
      '{\n    "cniVersion": "1.0.0",\n    "ips": [\n        {\n            "address": "10.0.0.5/24"\n        }\n    ]\n}',
    );
    expect(resultText({ cniVersion: '1.1.0' }, '1.1.0')).toBe('{\n    "cniVersion": "1.1.0"\n}');
  });
});

describe('parsePluginOutput (invoke.ExecPluginWithResult)', () => {
  const conf = '{"cniVersion":"0.3.1","name":"n","type":"t"}';

  it('a result without cniVersion is taken to be at the config version', () => {
    const r = parsePluginOutput('{"ips":[{"version":"4","address":"10.0.0.5/24"}]}', conf);
    expect(r.cniVersion).toBe('0.3.1');
    expect(resultJson(r, '0.3.1')['ips']).toEqual([{ version: '4', address: '10.0.0.5/24' }]);
  });

  it('a result with its own version is read at that version', () => {
    expect(parsePluginOutput('{"cniVersion":"1.0.0"}', conf).cniVersion).toBe('1.0.0');
  });

  it('"null" output is an empty result at the config version', () => {
    expect(parsePluginOutput('null', conf)).toEqual({ cniVersion: '0.3.1' });
  });

  it.each([
    ['', 'failed to unmarshal raw result: unexpected end of JSON input'],
    [
      '[1]',
      'failed to unmarshal raw result: json: cannot unmarshal array into Go value of type map[string]interface {}',
    ],
    ['{"cniVersion":"7.0.0"}', 'unsupported CNI result version "7.0.0"'],
  ])('%j → %s', (stdout, msg) => {
    expect(() => parsePluginOutput(stdout, conf)).toThrow(msg);
  });
});
