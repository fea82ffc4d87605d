/**
 * The containerd/go-cni pieces the runtime ports, against upstream test vectors:
 * containerd @301026e58c619e63d09c0ec411012e54c0124b03 `internal/cri/server/sandbox_run_test.go`
 * (TestSelectPodIP, TestToCNIPortMappings) and go-cni @3dbce1ddff6e2f62ce46f00d69637249efb6069d
 * `cni_test.go` (TestLibCNIType020 … Type120: which interface an IP lands on), plus
 * apimachinery's quantity rules for the bandwidth annotations.
 */
import { describe, expect, it } from 'vitest';
import type { CniResult } from '../../src/cni/contracts.js';
import {
  containerdCapabilityArgs,
  goCniCreateResult,
  goCniPortMappings,
  NameIndex,
  podBandwidth,
  quantityValue,
  selectPodIPs,
  type GoCniIPConfig,
} from '../../src/runtime/cri.js';

function configs(ips: string[]): GoCniIPConfig[] {
  return ips.map((ip) => ({ ip, family: ip.includes(':') ? 6 : 4 }));
}

describe('selectPodIPs (containerd TestSelectPodIP)', () => {
  const v6 = '2001:db8:85a3::8a2e:370:7334';
  const v4 = '192.168.17.43';
  const cases: [string, string[], string, string[], '' | 'ipv4' | 'ipv6' | 'cni'][] = [
    ['ipv4 should be picked even if ipv6 comes first', [v6, v4], v4, [v6], ''],
    ['ipv6 should be picked even if ipv4 comes first', [v4, v6], v6, [v4], 'ipv6'],
    ['order should reflect ip selection', [v6, v4], v6, [v4], 'cni'],
    ['ipv4 should be picked when there is only ipv4', [v4], v4, [], ''],
    ['ipv6 should be picked when there is no ipv4', [v6], v6, [], ''],
    [
      'the first ipv4 should be picked when there are multiple ipv4',
      [v6, v4, '2001:db8:85a3::8a2e:370:7335', '192.168.17.45'],
      v4,
      [v6, '2001:db8:85a3::8a2e:370:7335', '192.168.17.45'],
      '',
    ],
  ];
  for (const [desc, ips, ip, extra, pref] of cases) {
    it(desc, () => expect(selectPodIPs(configs(ips), pref)).toEqual([ip, extra]));
  }
});

describe('toCNIPortMappings (containerd TestToCNIPortMappings)', () => {
  it('empty CRI port mapping should map to empty CNI port mapping', () => {
    expect(goCniPortMappings(undefined)).toEqual([]);
  });
  it('CRI port mapping should be converted to CNI port mapping properly', () => {
    expect(
      goCniPortMappings([
        { protocol: 'UDP', containerPort: 1234, hostPort: 5678, hostIp: '123.124.125.126' },
        { protocol: 'TCP', containerPort: 4321, hostPort: 8765, hostIp: '126.125.124.123' },
        { protocol: 'SCTP', containerPort: 1234, hostPort: 5678, hostIp: '123.124.125.126' },
      ]),
    ).toEqual([
      { HostPort: 5678, ContainerPort: 1234, Protocol: 'udp', HostIP: '123.124.125.126' },
      { HostPort: 8765, ContainerPort: 4321, Protocol: 'tcp', HostIP: '126.125.124.123' },
      { HostPort: 5678, ContainerPort: 1234, Protocol: 'sctp', HostIP: '123.124.125.126' },
    ]);
  });
  it('CRI port mapping without host port should be skipped', () => {
    expect(
      goCniPortMappings([
        { protocol: 'UDP', containerPort: 1234, hostIp: '123.124.125.126' },
        { protocol: 'TCP', containerPort: 4321, hostPort: 8765, hostIp: '126.125.124.123' },
      ]),
    ).toEqual([{ HostPort: 8765, ContainerPort: 4321, Protocol: 'tcp', HostIP: '126.125.124.123' }]);
  });
  it('the capability is left out when no mapping has a host port', () => {
    expect(containerdCapabilityArgs({ portMappings: [{ containerPort: 80 }] })).toEqual({
      'io.kubernetes.cri.pod-annotations': null,
    });
  });
});

describe('go-cni createResult: which interface an IP lands on (go-cni cni_test.go)', () => {
  it('a 0.2.0-style result (no interfaces, no index): eth0 (TestLibCNIType020)', () => {
    const r: CniResult = { cniVersion: '0.2.0', ips: [{ address: '10.0.0.1/24', gateway: '10.0.0.254' }] };
    const m = goCniCreateResult([r]);
    expect([...m.keys()]).toEqual(['eth0']);
    expect(m.get('eth0')!.ipConfigs).toEqual([{ ip: '10.0.0.1', family: 4, gateway: '10.0.0.254' }]);
  });

  it('an interface named eth0 with index 0: eth0 (TestLibCNIType120)', () => {
    const r: CniResult = {
      cniVersion: '1.1.0',
      interfaces: [{ name: 'eth0' }],
      ips: [{ interface: 0, address: '10.88.0.1/16', gateway: '10.88.0.1' }],
    };
    expect(goCniCreateResult([r]).get('eth0')!.ipConfigs[0]!.ip).toBe('10.88.0.1');
  });

  it('win-bridge: interface named after the endpoint, no index → the IP still lands on eth0', () => {
    const r: CniResult = {
      cniVersion: '0.3.1',
      interfaces: [{ name: 'abc123_cbr0', mac: '00-15-5D-11-22-33' }],
      ips: [{ address: '10.244.1.3/24', gateway: '10.244.1.2' }],
    };
    const m = goCniCreateResult([r]);
    expect(m.get('eth0')!.ipConfigs.map((c) => c.ip)).toEqual(['10.244.1.3']);
    expect(m.get('abc123_cbr0')).toEqual({ ipConfigs: [], mac: '00-15-5D-11-22-33' });
  });

  it('an index pointing at a non-eth0 interface leaves eth0 empty', () => {
    const r: CniResult = {
      cniVersion: '1.0.0',
      interfaces: [{ name: 'abc123_cbr0' }],
      ips: [{ interface: 0, address: '10.244.1.3/24' }],
    };
    expect(goCniCreateResult([r]).get('eth0')!.ipConfigs).toEqual([]);
  });

  it('an index past the list: "invalid interface config"; equal to its length: the Go panic', () => {
    const base: CniResult = { cniVersion: '1.0.0', interfaces: [{ name: 'eth0' }], ips: [] };
    expect(() => goCniCreateResult([{ ...base, ips: [{ interface: 2, address: '10.0.0.1/24' }] }])).toThrow(
      'invalid interface config: invalid IP configuration (interface number 2 is > number of interfaces 1): invalid result',
    );
    expect(() => goCniCreateResult([{ ...base, ips: [{ interface: 1, address: '10.0.0.1/24' }] }])).toThrow(
      'runtime error: index out of range [1] with length 1',
    );
  });

  it('a later result naming eth0 replaces what an earlier one put there', () => {
    const a: CniResult = { cniVersion: '1.0.0', ips: [{ address: '10.0.0.1/24' }] };
    const b: CniResult = { cniVersion: '1.0.0', interfaces: [{ name: 'eth0' }], ips: [] };
    expect(goCniCreateResult([a, b]).get('eth0')!.ipConfigs).toEqual([]);
  });
});

describe('bandwidth annotations (apimachinery resource.ParseQuantity, containerd bandwidth.go)', () => {
  it('quantities', () => {
    expect(quantityValue('10M')).toBe(10_000_000);
    expect(quantityValue('1Mi')).toBe(1_048_576);
    expect(quantityValue('1.5k')).toBe(1500);
    expect(quantityValue('1e3')).toBe(1000);
    expect(quantityValue('100m')).toBe(1); // Value() rounds up
    expect(() => quantityValue('ten')).toThrow(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    expect(() => quantityValue('1.2.3')).toThrow('unable to parse numeric part of quantity');
    expect(() => quantityValue('1kk')).toThrow("unable to parse quantity's suffix");
  });
  it('the sane range is 1k … 1P', () => {
    expect(
      podBandwidth({ 'kubernetes.io/ingress-bandwidth': '1k', 'kubernetes.io/egress-bandwidth': '1P' }),
    ).toEqual({
      ingress: 1000,
      egress: 1e15,
    });
    expect(() => podBandwidth({ 'kubernetes.io/egress-bandwidth': '999' })).toThrow(
      'resource is unreasonably small (< 1kbit)',
    );
    expect(() => podBandwidth({ 'kubernetes.io/egress-bandwidth': '2P' })).toThrow(
      'resource is unreasonably large (> 1Pbit)',
    );
    expect(podBandwidth(undefined)).toEqual({});
  });
});

describe('the name registrar (containerd internal/registrar)', () => {
  it('reserves a name for one key', () => {
    const r = new NameIndex();
    r.reserve('a', 'k1');
    r.reserve('a', 'k1');
    expect(() => r.reserve('a', 'k2')).toThrow('name "a" is reserved for "k1"');
    expect(() => r.reserve('b', 'k1')).toThrow('key "k1" is reserved for "a"');
    r.releaseByKey('k1');
    r.reserve('a', 'k2');
    r.releaseByName('a');
    r.reserve('b', 'k1');
  });
});
