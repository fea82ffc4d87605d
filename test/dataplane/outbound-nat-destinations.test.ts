/**
 * One OutBoundNAT policy with both `Destinations` and `Exceptions`. `Destinations` restricts SNAT
 * to the listed destinations (reference vfp-dataplane.md §3: "restricts SNAT to the listed
 * destinations"); docs/model.md's OutBoundNAT row says the policy applies "to a destination not in
 * `Exceptions` (or only to `Destinations`, when given)": when `Destinations` is given the
 * `Exceptions` list is ignored. So an address listed in both is still SNATed, and an excepted
 * address outside the destinations leaves with the pod's own address, without an `Excepted` step
 * (the exceptions play no part). The VFP listing agrees: no EXCEPTION pass rule, and the SNAT rules
 * match the destinations only. Addresses are literals; the SNAT address is the host's adapter
 * address (§3: "host IP by default").
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import { listPortRules } from '../../src/vswitch/rules.js';
import { ADAPTER, createEndpoint, createNetwork } from './prop-kit.js';
import { path, step, steps, tj, type TraceJ } from './trace-kit.js';

const POD = '10.244.1.5';

/** An L2Bridge node with `pod` holding one OutBoundNAT policy with both lists. */
function node(): { host: Host; pod: string } {
  const host = createHost({ seed: 5, profile: 'ws2022', adapters: [{ ...ADAPTER }] });
  const net = createNetwork(host, 'cbr0', 'L2Bridge', '10.244.1.0/24', '10.244.1.1');
  const pod = createEndpoint(host, net, 'pod', POD, [
    {
      Type: 'OutBoundNAT',
      Settings: {
        Destinations: ['8.8.8.0/24'],
        // 8.8.8.8 is inside Destinations; 203.0.113.0/24 is outside them
        Exceptions: ['8.8.8.8/32', '203.0.113.0/24'],
      },
    },
  ]);
  return { host, pod };
}

function trace(host: Host, to: string): TraceJ {
  return tj(host.trace({ from: 'pod', to, protocol: 'TCP', sourcePort: 40000, destinationPort: 443 }));
}

/** The source address the packet had when it left the node's uplink. */
function leftAs(t: TraceJ): string {
  const tx = steps(t, t.host, 'Port', 'Transmitted');
  const last = tx[tx.length - 1];
  if (!last) throw new Error(`nothing transmitted:\n${path(t)}`);
  return last.packetAfter.srcIp;
}

describe('OutBoundNAT with Destinations and Exceptions: Exceptions are ignored', () => {
  it('an exception address inside Destinations is still SNATed to the host address', () => {
    const { host } = node();
    const t = trace(host, '8.8.8.8');
    expect(t.disposition, path(t)).toBe('ExitsNetwork');
    const snat = step(t, t.host, 'NAT', 'SNAT');
    expect(snat.packetBefore.srcIp).toBe(POD);
    expect(snat.packetAfter.srcIp).toBe('10.0.0.4');
    expect(snat.rule).toMatchObject({ policy: 'OutBoundNAT', index: 0 });
    expect(steps(t, t.host, 'NAT', 'Excepted')).toEqual([]);
    expect(leftAs(t)).toBe('10.0.0.4');
    // another address of the destinations, not excepted, is SNATed the same way
    expect(leftAs(trace(host, '8.8.8.9'))).toBe('10.0.0.4');
  });

  it('an excepted address outside Destinations is not SNATed, and no exception step is taken', () => {
    const { host } = node();
    for (const to of ['203.0.113.7', '1.1.1.1']) {
      const t = trace(host, to);
      expect(t.disposition, path(t)).toBe('ExitsNetwork');
      expect(steps(t, t.host, 'NAT'), path(t)).toEqual([]);
      expect(leftAs(t)).toBe(POD);
    }
  });

  it('the VFP listing has no EXCEPTION pass rule; the SNAT rules match Destinations only', () => {
    const { host, pod } = node();
    const nat = listPortRules(host.dataplane.view(), pod).layers.find((l) => l.name === 'SLB_NAT_LAYER');
    const out = nat?.groups.find((g) => g.name === 'SLB_GROUP_NAT_IPv4_OUT')?.rules ?? [];
    expect(out.map((r) => [r.name, r.action])).toEqual([
      ['SNAT_TCP_OUTBOUNDNAT_10.244.1.5_10.0.0.4', 'SNAT'],
      ['SNAT_UDP_OUTBOUNDNAT_10.244.1.5_10.0.0.4', 'SNAT'],
    ]);
    expect(out.map((r) => r.conditions)).toEqual([
      { protocols: '6', localAddresses: POD, remoteAddresses: '8.8.8.0/24' },
      { protocols: '17', localAddresses: POD, remoteAddresses: '8.8.8.0/24' },
    ]);
  });
});
