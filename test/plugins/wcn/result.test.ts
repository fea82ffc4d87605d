/**
 * The result windows-container-networking prints. Source: microsoft/windows-container-networking @
 * b96345f `cni/cni.go` GetCurrResult l.406, GetIP l.471, GetInterface l.515 (`Mac:
 * string(iFace.MacAddress)`), `common/core/network.go` Add l.95 (`res.GetAsVersion`, `Print`), and
 * the vendored libcni v1.1.2 `pkg/types/100/types.go` (Result, Interface, ipConfig, PrintTo),
 * `pkg/types/040/types.go`, `pkg/types/020/types.go`; reference cni-windows.md §4.3 "Result".
 */
import { describe, expect, it } from 'vitest';
import { currResult, type WcnResult } from '../../../src/plugins/wcn/cni.js';
import { parseNetworkConfig } from '../../../src/plugins/wcn/config.js';
import { parseIP } from '../../../src/plugins/wcn/gonet.js';
import { emptyEndpointInfo, type NetworkInfo } from '../../../src/plugins/wcn/network.js';
import { goQuoteBytes, wcnResultText } from '../../../src/plugins/wcn/result.js';

// MAC 00-15-5D-AB-90-00 as the six bytes of a Go string: 0x00, 0x15, ']' (0x5d), then 0xab and 0x90,
// each an invalid UTF-8 byte that encoding/json writes as \ufffd, then 0x00.
const MAC = Uint8Array.from([0x00, 0x15, 0x5d, 0xab, 0x90, 0x00]);
const MAC_JSON = '"\\u0000\\u0015]\\ufffd\\ufffd\\u0000"';

function single(): WcnResult {
  const network: NetworkInfo = {
    id: 'N1',
    name: 'cbr0',
    type: 'L2Bridge',
    interfaceName: '',
    subnets: [
      {
        addressPrefix: { ip: parseIP('10.244.1.0'), mask: { ones: 24, width: 32 } },
        gatewayAddress: parseIP('10.244.1.1'),
        policies: [],
      },
    ],
    dns: { nameservers: ['10.96.0.10'], domain: '', search: undefined, options: undefined },
    policies: [],
  };
  const ep = emptyEndpointInfo();
  ep.ipAddress = parseIP('10.244.1.5');
  ep.gateway = parseIP('10.244.1.2');
  ep.macAddress = MAC;
  return currResult(network, ep, 'eth0', parseNetworkConfig('{"name":"cbr0","type":"sdnbridge"}'));
}

describe('the printed result', () => {
  it('1.0.0: types100 field order, interface 0, the raw-byte mac, "dns": {} and no routes', () => {
    expect(wcnResultText(single(), '1.0.0')).toBe(
      [
        '{',
        '    "cniVersion": "1.0.0",',
        '    "interfaces": [',
        '        {',
        '            "name": "eth0",',
        `            "mac": ${MAC_JSON}`,
        '        }',
        '    ],',
        '    "ips": [',
        '        {',
        '            "interface": 0,',
        '            "address": "10.244.1.5/24",',
        '            "gateway": "10.244.1.2"',
        '        }',
        '    ],',
        '    "dns": {}',
        '}',
      ].join('\n'),
    );
  });

  it('0.4.0 and 0.3.0: ips[].version from the address family', () => {
    const text = wcnResultText(single(), '0.4.0');
    expect(JSON.parse(text)).toEqual({
      cniVersion: '0.4.0',
      interfaces: [{ name: 'eth0', mac: '\u0000\u0015]\ufffd\ufffd\u0000' }],
      ips: [{ version: '4', interface: 0, address: '10.244.1.5/24', gateway: '10.244.1.2' }],
      dns: {},
    });
    expect(text).toContain('"version": "4",\n            "interface": 0,');
    expect(JSON.parse(wcnResultText(single(), '0.3.0')).cniVersion).toBe('0.3.0');
  });

  it('0.2.0: ip4 only, no interfaces (so no mac)', () => {
    expect(wcnResultText(single(), '0.2.0')).toBe(
      [
        '{',
        '    "cniVersion": "0.2.0",',
        '    "ip4": {',
        '        "ip": "10.244.1.5/24",',
        '        "gateway": "10.244.1.2"',
        '    },',
        '    "dns": {}',
        '}',
      ].join('\n'),
    );
  });

  it('an endpoint without an address, on a network without a subnet, prints "<nil>" (version "6")', () => {
    const network: NetworkInfo = {
      id: 'N1',
      name: 'vxlan0',
      type: 'Overlay',
      interfaceName: '',
      subnets: [],
      dns: { nameservers: undefined, domain: '', search: undefined, options: undefined },
      policies: [],
    };
    const r = currResult(
      network,
      emptyEndpointInfo(),
      'eth0',
      parseNetworkConfig('{"name":"x","type":"nat"}'),
    );
    expect(JSON.parse(wcnResultText(r, '0.4.0'))).toEqual({
      cniVersion: '0.4.0',
      interfaces: [{ name: 'eth0' }],
      ips: [{ version: '6', interface: 0, address: '<nil>' }],
      dns: {},
    });
    expect(wcnResultText(r, '1.0.0')).toContain('"address": "\\u003cnil\\u003e"');
    expect(JSON.parse(wcnResultText(r, '0.2.0'))).toEqual({
      cniVersion: '0.2.0',
      ip6: { ip: '<nil>' },
      dns: {},
    });
  });

  it("dual stack: both families with the endpoint's own prefixes", () => {
    const network: NetworkInfo = {
      id: 'N1',
      name: 'n',
      type: 'L2Bridge',
      interfaceName: '',
      subnets: [],
      dns: { nameservers: undefined, domain: '', search: undefined, options: undefined },
      policies: [],
    };
    const ep = emptyEndpointInfo();
    ep.ipAddress = parseIP('192.168.1.10');
    ep.ip4Mask = { ones: 24, width: 32 };
    ep.gateway = parseIP('192.168.1.2');
    ep.ipAddress6 = { ip: parseIP('fd00::102'), mask: { ones: 120, width: 128 } };
    ep.gateway6 = parseIP('fd00::101');
    const config = parseNetworkConfig(
      '{"name":"n","type":"sdnbridge","optionalFlags":{"enableDualStack":true}}',
    );
    expect(JSON.parse(wcnResultText(currResult(network, ep, 'eth0', config), '1.0.0')).ips).toEqual([
      { interface: 0, address: '192.168.1.10/24', gateway: '192.168.1.2' },
      { interface: 0, address: 'fd00::102/120', gateway: 'fd00::101' },
    ]);
  });
});

describe('Go 1.21 string encoding of raw bytes', () => {
  it('escapes controls as \\u00XX (\\b and \\f too), HTML characters, and invalid UTF-8 bytes as \\ufffd', () => {
    expect(goQuoteBytes(Uint8Array.from([0x08, 0x0c, 0x0a, 0x09, 0x22, 0x5c, 0x3c, 0x3e, 0x26, 0x7f]))).toBe(
      '"\\u0008\\u000c\\n\\t\\"\\\\\\u003c\\u003e\\u0026\x7f"',
    );
    // a valid two-byte sequence stays as it is; a truncated one is one \ufffd per byte
    expect(goQuoteBytes(Uint8Array.from([0xc3, 0xa9, 0xe2, 0x82, 0x41]))).toBe('"é\\ufffd\\ufffdA"');
    // U+2028 is escaped
    expect(goQuoteBytes(Uint8Array.from([0xe2, 0x80, 0xa8]))).toBe('"\\u2028"');
  });
});
