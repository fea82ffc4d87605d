/**
 * The dataplane options (docs/model.md, "Dataplane"): where Windows is silent or configurable, the
 * choice is an option, and each option changes what a trace says.
 * - the SNAT port pool (reference vfp-dataplane.md §3: ports from the dynamic range 49152–65535,
 *   64-port blocks held by every non-DSR load balancer; exhaustion is a documented failure mode)
 *   and `MaxPortPoolUsage` (hcsshim PR #2106, no documented semantics: a cap per endpoint here);
 * - what an egress ACL sees of service traffic (§9 point 6);
 * - a node reaching its own NodePort (kubernetes-windows.md §1.7), IP forwarding, the ACL tie-break.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host, type HostOptions } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { ok } from './prop-kit.js';

const NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
};
const V2 = { Major: 2, Minor: 0 };

/** An L2Bridge host: `client` (with the given policies) and backends `b1`, `b2`. */
function bridge(
  options: Partial<HostOptions> = {},
  clientPolicies: JsonObject[] = [],
): { host: Host; ids: Record<string, string> } {
  const host = createHost({ seed: 21, adapters: [NIC], ...options });
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      SchemaVersion: V2,
    }),
  );
  const ids: Record<string, string> = {};
  for (const [name, ip, pols] of [
    ['client', '10.244.1.10', clientPolicies],
    ['b1', '10.244.1.20', []],
    ['b2', '10.244.1.21', []],
  ] as const) {
    const ep = ok(
      host.api.HcnCreateEndpoint(String(net['ID']), null, {
        Name: name,
        IpConfigurations: [{ IpAddress: ip }],
        Policies: pols,
        SchemaVersion: V2,
      }),
    );
    ids[name] = String(ep['ID']);
  }
  return { host, ids };
}

const SNAT = { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16'] } };

describe('the SNAT port pool', () => {
  it('takes the lowest free port of the range and ends PortExhausted when none is left', () => {
    const { host } = bridge({ dataplane: { snatPortRange: [50000, 50002] } }, [SNAT]);
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = host.send({ from: 'client', to: '8.8.8.8', sourcePort: 40000 + i, destinationPort: 443 });
      expect(r.disposition).toBe('ExitsNetwork');
      ports.push(r.final.srcPort);
    }
    expect(ports).toEqual([50000, 50001, 50002]);
    const full = host.trace({ from: 'client', to: '8.8.8.8', sourcePort: 40003, destinationPort: 443 });
    expect(full.disposition).toBe('PortExhausted');
    const step = full.observations.at(-1)!;
    expect(step).toMatchObject({ component: 'NAT', action: 'PortExhausted' });
    expect(step.rule).toMatchObject({ policy: 'OutBoundNAT', layer: 'SLB_NAT_LAYER' });
    // a flow already sent keeps its port: no new one is needed
    expect(
      host.trace({ from: 'client', to: '8.8.8.8', sourcePort: 40001, destinationPort: 443 }).final.srcPort,
    ).toBe(50001);
  });

  it('every non-DSR load balancer holds a 64-port block (lbPortBlock) of the range; DSR ones hold none', () => {
    const first = (h: Host) => h.trace({ from: 'client', to: '8.8.8.8', destinationPort: 443 }).final.srcPort;
    const { host, ids } = bridge({}, [SNAT]);
    expect(first(host)).toBe(49152);
    const lb = (flags: number, vip: string) =>
      ok(
        host.api.HcnCreateLoadBalancer(null, {
          HostComputeEndpoints: [ids['b1']!],
          FrontendVIPs: [vip],
          PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
          Flags: flags,
          SchemaVersion: V2,
        }),
      );
    lb(0, '10.96.0.1');
    expect(first(host)).toBe(49152 + 64);
    lb(1, '10.96.0.2');
    expect(first(host)).toBe(49152 + 64);
    lb(0, '10.96.0.3');
    expect(first(host)).toBe(49152 + 128);
    const wide = bridge({ dataplane: { lbPortBlock: 640 } }, [SNAT]);
    ok(
      wide.host.api.HcnCreateLoadBalancer(null, {
        HostComputeEndpoints: [wide.ids['b1']!],
        FrontendVIPs: ['10.96.0.1'],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
        SchemaVersion: V2,
      }),
    );
    expect(first(wide.host)).toBe(49152 + 640);
  });

  it('MaxPortPoolUsage caps the ports one endpoint holds', () => {
    const { host } = bridge({}, [
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16'], MaxPortPoolUsage: 2 } },
    ]);
    expect(host.send({ from: 'client', to: '8.8.8.8', sourcePort: 1 }).disposition).toBe('ExitsNetwork');
    expect(host.send({ from: 'client', to: '8.8.8.8', sourcePort: 2 }).disposition).toBe('ExitsNetwork');
    const third = host.trace({ from: 'client', to: '8.8.8.8', sourcePort: 3 });
    expect(third.disposition).toBe('PortExhausted');
    expect(third.observations.at(-1)!.detail).toMatch(/MaxPortPoolUsage 2/);
  });
});

describe('what an egress ACL sees of service traffic (egressAclSees)', () => {
  // the client may talk to b1 only; it reaches b1 through the VIP 10.96.0.10
  const policies: JsonObject[] = [
    {
      Type: 'ACL',
      Settings: {
        Id: 'to-b1',
        Action: 'Allow',
        Direction: 'Out',
        RemoteAddresses: '10.244.1.20',
        Priority: 100,
      },
    },
    { Type: 'ACL', Settings: { Id: 'in-all', Action: 'Allow', Direction: 'In', Priority: 100 } },
  ];
  function withLb(opts: Partial<HostOptions>): Host {
    const { host, ids } = bridge(opts, policies);
    ok(
      host.api.HcnCreateLoadBalancer(null, {
        HostComputeEndpoints: [ids['b1']!],
        FrontendVIPs: ['10.96.0.10'],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
        Flags: 1,
        SchemaVersion: V2,
      }),
    );
    return host;
  }

  it('vip (default): the ACL layer comes first and sees the VIP, which no rule allows', () => {
    const r = withLb({}).trace({ from: 'client', to: '10.96.0.10' });
    expect(r.disposition).toBe('DeniedOut');
    expect(r.observations.some((o) => o.component === 'LB')).toBe(false);
  });

  it('dip: the load balancer comes first and the ACL sees the backend, which to-b1 allows', () => {
    const r = withLb({ dataplane: { egressAclSees: 'dip' } }).trace({
      from: 'client',
      to: '10.96.0.10',
      reply: true,
    });
    expect(r.disposition).toBe('Delivered');
    const lb = r.observations.findIndex((o) => o.component === 'LB');
    const acl = r.observations.findIndex((o) => o.component === 'ACL');
    expect(lb).toBeGreaterThanOrEqual(0);
    expect(acl).toBeGreaterThan(lb);
    expect(r.observations[acl]!.rule?.ruleId).toBe('to-b1');
    expect(r.reply?.disposition).toBe('Delivered');
  });
});

describe('other options', () => {
  function nodePortHost(opts: Partial<HostOptions>): Host {
    const { host, ids } = bridge(opts);
    ok(
      host.api.HcnCreateLoadBalancer(null, {
        HostComputeEndpoints: [ids['b1']!],
        FrontendVIPs: [],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 30080, Flags: 2 }],
        SchemaVersion: V2,
      }),
    );
    return host;
  }

  it('localNodePort: the node reaches its own NodePort only when the option says the build supports it', () => {
    expect(
      nodePortHost({}).trace({ from: 'host', to: '192.168.1.11', destinationPort: 30080 }).disposition,
    ).toBe('Unsupported');
    const r = nodePortHost({ dataplane: { localNodePort: true } }).trace({
      from: 'host',
      to: '192.168.1.11',
      destinationPort: 30080,
    });
    expect(r.disposition).toBe('Delivered');
    expect(r.final.dstPort).toBe(80);
  });

  it('ipForwarding false: the host stops forwarding between its interfaces', () => {
    const build = (ipForwarding: boolean) => {
      const host = createHost({ seed: 22, adapters: [NIC], dataplane: { ipForwarding } });
      const net = ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT', SchemaVersion: V2 }));
      ok(host.api.HcnCreateEndpoint(String(net['ID']), null, { Name: 'c', SchemaVersion: V2 }));
      return host;
    };
    expect(build(true).trace({ from: 'c', to: '8.8.8.8' }).disposition).toBe('ExitsNetwork');
    const off = build(false).trace({ from: 'c', to: '8.8.8.8' });
    expect(off.disposition).toBe('NoRoute');
    expect(off.observations.at(-1)!.detail).toMatch(/IP forwarding is disabled/);
  });

  it('acl.tieBreak: an Allow and a Block of one priority — Block wins by default, Allow when asked', () => {
    const tie: JsonObject[] = [
      { Type: 'ACL', Settings: { Id: 'a', Action: 'Allow', Direction: 'Out', Priority: 500 } },
      { Type: 'ACL', Settings: { Id: 'b', Action: 'Block', Direction: 'Out', Priority: 500 } },
    ];
    const def = bridge({}, tie).host.trace({ from: 'client', to: 'b1' });
    expect(def.disposition).toBe('DeniedOut');
    expect(def.observations.find((o) => o.component === 'ACL')?.rule?.ruleId).toBe('b');
    const allow = bridge({ dataplane: { acl: { tieBreak: 'Allow' } } }, tie).host.trace({
      from: 'client',
      to: 'b1',
    });
    expect(allow.observations.find((o) => o.component === 'ACL')?.rule?.ruleId).toBe('a');
  });
});
