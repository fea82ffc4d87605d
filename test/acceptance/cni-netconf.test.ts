/**
 * Every Ginkgo case of containernetworking/plugins @ 3d27709f (v1.9.1) `pkg/hns/netconf_windows_test.go`,
 * translated one `It` per `it`, against our port in src/plugins/hns/netconf.ts. The test reads each
 * policy value back with `JSON.parse` where Go uses `json.Unmarshal(policy.Value, &value)`.
 *
 * The upstream suite runs on a Windows host where `hcn.DSRSupported()` succeeds; our
 * `applyLoopbackDSRPolicy` takes that answer as its third argument (`true` here).
 */
import { describe, expect, it } from 'vitest';
import {
  applyDefaultPAPolicy,
  applyLoopbackDSRPolicy,
  applyOutboundNatPolicy,
  applyPortMappingPolicy,
  emptyNetConf,
  getHNSEndpointPolicies,
  getHostComputeEndpointPolicies,
  type HnsNetConf,
} from '../../src/plugins/hns/netconf.js';
import { ipString, parseIP } from '../../src/cni/goip.js';

/** `json.Unmarshal(policy.Value, &value)` into a `map[string]interface{}`. */
function valueOf(n: HnsNetConf, i: number): Record<string, unknown> {
  const p = n.policies![i]!;
  expect(p.name).toBe('EndpointPolicy');
  return JSON.parse(p.value!) as Record<string, unknown>;
}

/** `ip := net.ParseIP(s); n.ApplyLoopbackDSRPolicy(&ip)` on a DSR-capable host. */
function dsr(n: HnsNetConf, s: string): void {
  applyLoopbackDSRPolicy(n, ipString(parseIP(s)), true);
}

describe('NetConf (pkg/hns/netconf_windows_test.go)', () => {
  describe('ApplyLoopbackDSRPolicy', () => {
    describe('via v1 api', () => {
      it('filter out duplicated IP', () => {
        const n = emptyNetConf();
        dsr(n, '172.16.0.12');
        dsr(n, '172.16.0.12');
        expect(n.policies).toHaveLength(1);
        const value = valueOf(n, 0);
        expect(value['Type']).toBe('OutBoundNAT');
        expect(value).toHaveProperty('Destinations');
        expect(value['Destinations']).toEqual(['172.16.0.12']);
      });

      it('append different IP', () => {
        const n = emptyNetConf();
        dsr(n, '172.16.0.12');
        dsr(n, '172.16.0.13');
        expect(n.policies).toHaveLength(2);
        const value = valueOf(n, 1);
        expect(value['Type']).toBe('OutBoundNAT');
        expect(value['Destinations']).toEqual(['172.16.0.13']);
      });
    });

    describe('via v2 api', () => {
      it('filter out duplicated IP', () => {
        const n = emptyNetConf(2);
        dsr(n, '172.16.0.12');
        dsr(n, '172.16.0.12');
        expect(n.policies).toHaveLength(1);
        const value = valueOf(n, 0);
        expect(value['Type']).toBe('OutBoundNAT');
        expect(value).toHaveProperty('Settings');
        expect((value['Settings'] as Record<string, unknown>)['Destinations']).toEqual(['172.16.0.12']);
      });

      it('append different IP', () => {
        const n = emptyNetConf(2);
        dsr(n, '172.16.0.12');
        dsr(n, '172.16.0.13');
        expect(n.policies).toHaveLength(2);
        const value = valueOf(n, 1);
        expect(value['Type']).toBe('OutBoundNAT');
        expect((value['Settings'] as Record<string, unknown>)['Destinations']).toEqual(['172.16.0.13']);
      });
    });
  });

  describe('ApplyOutBoundNATPolicy', () => {
    describe('via v1 api', () => {
      it('append different IP', () => {
        const n = emptyNetConf();
        applyOutboundNatPolicy(n, '192.168.0.0/16');
        applyOutboundNatPolicy(n, '10.244.0.0/16');
        expect(n.policies).toHaveLength(2);
        const value = valueOf(n, 1);
        expect(value['Type']).toBe('OutBoundNAT');
        expect(value['ExceptionList']).toEqual(['10.244.0.0/16']);
      });

      it('append a new one if there is not an exception OutBoundNAT policy', () => {
        const n = emptyNetConf();
        n.policies = [{ name: 'EndpointPolicy', value: `{"Type": "OutBoundNAT", "OtherList": []}` }];
        applyOutboundNatPolicy(n, '10.244.0.0/16');
        expect(n.policies).toHaveLength(2);
        const first = valueOf(n, 0);
        expect(first['Type']).toBe('OutBoundNAT');
        expect(first).toHaveProperty('OtherList');
        const second = valueOf(n, 1);
        expect(second['Type']).toBe('OutBoundNAT');
        expect(second['ExceptionList']).toEqual(['10.244.0.0/16']);
      });

      it('nothing to do if CIDR is blank', () => {
        const n = emptyNetConf();
        n.policies = [{ name: 'EndpointPolicy', value: `{"Type": "OutBoundNAT", "ExceptionList": []}` }];
        applyOutboundNatPolicy(n, '');
        expect(n.policies).toHaveLength(1);
        const value = valueOf(n, 0);
        expect(value['Type']).toBe('OutBoundNAT');
        expect(value['ExceptionList']).not.toBeNull();
        expect(value['ExceptionList']).toHaveLength(0);
      });
    });

    describe('via v2 api', () => {
      it('append different IP', () => {
        const n = emptyNetConf(2);
        applyOutboundNatPolicy(n, '192.168.0.0/16');
        applyOutboundNatPolicy(n, '10.244.0.0/16');
        expect(n.policies).toHaveLength(2);
        const value = valueOf(n, 1);
        expect(value['Type']).toBe('OutBoundNAT');
        expect((value['Settings'] as Record<string, unknown>)['Exceptions']).toEqual(['10.244.0.0/16']);
      });

      it('append a new one if there is not an exception OutBoundNAT policy', () => {
        const n = emptyNetConf(2);
        n.policies = [
          { name: 'EndpointPolicy', value: `{"Type": "OutBoundNAT", "Settings": {"Others": []}}` },
        ];
        applyOutboundNatPolicy(n, '10.244.0.0/16');
        expect(n.policies).toHaveLength(2);
        const first = valueOf(n, 0);
        expect(first['Type']).toBe('OutBoundNAT');
        expect(first['Settings']).toHaveProperty('Others');
        const second = valueOf(n, 1);
        expect(second['Type']).toBe('OutBoundNAT');
        expect((second['Settings'] as Record<string, unknown>)['Exceptions']).toEqual(['10.244.0.0/16']);
      });

      it('nothing to do if CIDR is blank', () => {
        const n = emptyNetConf(2);
        n.policies = [
          { name: 'EndpointPolicy', value: `{"Type": "OutBoundNAT", "Settings": {"Exceptions": []}}` },
        ];
        applyOutboundNatPolicy(n, '');
        expect(n.policies).toHaveLength(1);
        const value = valueOf(n, 0);
        expect(value['Type']).toBe('OutBoundNAT');
        const settings = value['Settings'] as Record<string, unknown>;
        expect(settings['Exceptions']).not.toBeNull();
        expect(settings['Exceptions']).toHaveLength(0);
      });
    });
  });

  describe('ApplyDefaultPAPolicy', () => {
    describe('via v1 api', () => {
      it('append different IP', () => {
        const n = emptyNetConf();
        applyDefaultPAPolicy(n, '192.168.0.1');
        applyDefaultPAPolicy(n, '192.168.0.2');
        expect(n.policies).toHaveLength(2);
        const value = valueOf(n, 1);
        expect(value['Type']).toBe('PA');
        expect(value['PA']).toBe('192.168.0.2');
      });

      it('nothing to do if IP is blank', () => {
        const n = emptyNetConf();
        n.policies = [
          { name: 'EndpointPolicy', value: `{"Type": "OutBoundNAT", "Exceptions": ["192.168.0.0/16"]}` },
        ];
        applyDefaultPAPolicy(n, '');
        expect(n.policies).toHaveLength(1);
      });
    });

    describe('via v2 api', () => {
      it('append different IP', () => {
        const n = emptyNetConf(2);
        applyDefaultPAPolicy(n, '192.168.0.1');
        applyDefaultPAPolicy(n, '192.168.0.2');
        expect(n.policies).toHaveLength(2);
        const value = valueOf(n, 1);
        expect(value['Type']).toBe('ProviderAddress');
        expect((value['Settings'] as Record<string, unknown>)['ProviderAddress']).toBe('192.168.0.2');
      });

      it('nothing to do if IP is blank', () => {
        const n = emptyNetConf(2);
        n.policies = [
          {
            name: 'EndpointPolicy',
            value: `{"Type": "OutBoundNAT", "Settings": {"Exceptions": ["192.168.0.0/16"]}}`,
          },
        ];
        applyDefaultPAPolicy(n, '');
        expect(n.policies).toHaveLength(1);
      });
    });
  });

  describe('ApplyPortMappingPolicy', () => {
    describe('via v1 api', () => {
      it('nothing to do if input is empty', () => {
        const n = emptyNetConf();
        applyPortMappingPolicy(n, undefined);
        expect(n.policies).toBeUndefined();
        applyPortMappingPolicy(n, []);
        expect(n.policies).toBeUndefined();
      });

      it('create one NAT policy', () => {
        const n = emptyNetConf();
        applyPortMappingPolicy(n, [
          { containerPort: 80, hostPort: 8080, protocol: 'TCP', hostIP: '192.168.1.2' },
        ]);
        expect(n.policies).toHaveLength(1);
        const value = valueOf(n, 0);
        expect(value['Type']).toBe('NAT');
        expect(value['InternalPort']).toBe(80);
        expect(value['ExternalPort']).toBe(8080);
        expect(value['Protocol']).toBe('TCP');
      });
    });

    describe('via v2 api', () => {
      it('nothing to do if input is empty', () => {
        const n = emptyNetConf(2);
        applyPortMappingPolicy(n, undefined);
        expect(n.policies).toBeUndefined();
        applyPortMappingPolicy(n, []);
        expect(n.policies).toBeUndefined();
      });

      it('creates one NAT policy', () => {
        const n = emptyNetConf(2);
        applyPortMappingPolicy(n, [
          { containerPort: 80, hostPort: 8080, protocol: 'TCP', hostIP: '192.168.1.2' },
        ]);
        expect(n.policies).toHaveLength(1);
        const value = valueOf(n, 0);
        expect(value['Type']).toBe('PortMapping');
        const settings = value['Settings'] as Record<string, unknown>;
        expect(settings['InternalPort']).toBe(80);
        expect(settings['ExternalPort']).toBe(8080);
        expect(settings['Protocol']).toBe(6);
        expect(settings['VIP']).toBe('192.168.1.2');
      });
    });
  });

  describe('GetXEndpointPolicies', () => {
    describe('via v1 api', () => {
      it('GetHNSEndpointPolicies', () => {
        const n = emptyNetConf();
        n.policies = [
          { name: 'EndpointPolicy', value: `{"Type": "OutBoundNAT", "ExceptionList": [ "192.168.1.2" ]}` },
          { name: 'someOtherType', value: `{"someOtherKey": "someOtherValue"}` },
        ];
        const result = getHNSEndpointPolicies(n);
        expect(result).toHaveLength(1);
        const policy = JSON.parse(result[0]!) as Record<string, unknown>;
        expect(policy['Type']).toBe('OutBoundNAT');
        expect(policy['ExceptionList']).toContain('192.168.1.2');
      });
    });

    describe('via v2 api', () => {
      it('GetHostComputeEndpointPolicies', () => {
        const n = emptyNetConf(2);
        n.policies = [
          {
            name: 'EndpointPolicy',
            value: `{"Type": "OutBoundNAT", "Settings": {"Exceptions": [ "192.168.1.2" ]}}`,
          },
          { name: 'someOtherType', value: `{"someOtherKey": "someOtherValue"}` },
        ];
        const result = getHostComputeEndpointPolicies(n);
        expect(result).toHaveLength(1);
        expect(result[0]!.Type).toBe('OutBoundNAT');
        expect((result[0]!.Settings as Record<string, unknown>)['Exceptions']).toContain('192.168.1.2');
      });
    });
  });
});
