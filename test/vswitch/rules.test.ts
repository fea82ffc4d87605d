/**
 * `vfpctrl /port <id> /list-rule` as data (src/vswitch/rules.ts), on real hosts built through the
 * flat API with documents shaped like the clients' (Calico CNI/Felix ACLs, win-bridge/win-overlay
 * OutBoundNAT and ROUTE, kube-proxy load balancers and remote endpoints, flannel's
 * RemoteSubnetRoute; see test/acceptance). Expected layer, group and rule-name literals come from
 * the reference (vfp-dataplane.md §1.2: ACL_ENDPOINT_LAYER with ACL_ENDPOINT_GROUP_IPV4_IN/_OUT,
 * "terminating stateful"; SLB_NAT_LAYER with SNAT_<proto>_OUTBOUNDNAT_…; LB_DSR with
 * LB_DSR_<…>_<mgmtIP>_<VIP>_<ext>_<int>_<proto> on every local pod port; SLB_LB_LAYER on the host
 * vNIC; VNET_ENCAP_LAYER), not from names.ts. Every trace made here is checked against the listing:
 * each observation's rule of a VFP layer must be listed on the port the packet was crossing.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { TraceRequest, TraceResult } from '../../src/dataplane/trace.js';
import { createHost, type Host, type HostOptions } from '../../src/host/host.js';
import {
  allRules,
  listHostRules,
  listPortRules,
  type PortLayer,
  type PortRule,
  type PortRules,
} from '../../src/vswitch/rules.js';
import { ok } from '../dataplane/prop-kit.js';

const NODE_IP = '10.0.0.4';
const NODE_MAC = '00-0D-3A-11-22-33';
const NODE_NIC = { name: 'Ethernet', ipAddress: `${NODE_IP}/24`, gateway: '10.0.0.1', macAddress: NODE_MAC };
const SCHEMA = { Major: 2, Minor: 0 };
const OUTSIDE = '192.168.5.5';

function node(options: HostOptions = {}): Host {
  return createHost({ seed: 7, profile: 'ws2022', adapters: [NODE_NIC], ...options });
}

/** win-bridge's L2Bridge network on `Ethernet` (pod gateway .1). */
function l2bridge(host: Host, prefix = '10.244.1.0/24', gateway = '10.244.1.1'): string {
  return ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            { IpAddressPrefix: prefix, Routes: [{ NextHop: gateway, DestinationPrefix: '0.0.0.0/0' }] },
          ],
        },
      ],
      SchemaVersion: SCHEMA,
    }),
  ).ID;
}

/** flannel's VXLAN network (device_windows.go): VSID 4096 on 10.244.1.0/24. */
function overlay(host: Host): string {
  return ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'flannel.4096',
      Type: 'Overlay',
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      Flags: 8,
      SchemaVersion: SCHEMA,
    }),
  ).ID;
}

function endpoint(
  host: Host,
  networkId: string,
  name: string,
  ip: string,
  policies: JsonObject[] = [],
): string {
  return ok(
    host.api.HcnCreateEndpoint(networkId, null, {
      Name: name,
      IpConfigurations: [{ IpAddress: ip }],
      Policies: policies,
      SchemaVersion: SCHEMA,
    }),
  ).ID;
}

function acl(settings: JsonObject): JsonObject {
  return { Type: 'ACL', Settings: { RuleType: 'Switch', ...settings } };
}

/** Calico CNI's default deny and Felix's host-to-endpoint allow (reference §2.4). */
const CALICO_DEFAULT_DENY = acl({
  Id: 'CNIDefaultDenyAllPolicy',
  Protocols: '256',
  Action: 'Block',
  Direction: 'In',
  Priority: 65500,
});
const CALICO_ALLOW_HOST = acl({
  Id: 'allow-host-to-endpoint',
  Protocols: '256',
  Action: 'Allow',
  Direction: 'In',
  RemoteAddresses: `${NODE_IP}/32`,
  Priority: 900,
});
const ALLOW_3000 = acl({
  Id: 'allow-3000',
  Protocols: '6',
  Action: 'Allow',
  Direction: 'In',
  LocalPorts: '3000',
  Priority: 1000,
});

/** win-bridge / Calico OutBoundNAT: pod and service CIDRs excepted. */
const OUTBOUND_NAT = { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } };

function layer(rules: PortRules, name: string): PortLayer {
  const l = rules.layers.find((x) => x.name === name);
  expect(l, `layer ${name} in ${rules.layers.map((x) => x.name).join(', ')}`).toBeDefined();
  return l!;
}

function groupRules(rules: PortRules, layerName: string, group: string): readonly PortRule[] {
  const g = layer(rules, layerName).groups.find((x) => x.name === group);
  expect(g, `group ${group}`).toBeDefined();
  return g!.rules;
}

const VFP_LAYERS = new Set([
  'ACL_ENDPOINT_LAYER',
  'WFP',
  'LB_DSR',
  'SLB_NAT_LAYER',
  'SLB_LB_LAYER',
  'VNET_ENCAP_LAYER',
  'VNET_PA_ROUTE_LAYER',
  'VNET_MAC_REWRITE_LAYER',
]);

/**
 * Trace, then tie every observation to the listing. The packet starts at the sending endpoint's port
 * (or on the host side for `host` and outside senders); a vSwitch step that switches it moves it to
 * the port owning its destination MAC, an inbound MAC rewrite to the port it rewrites towards, a
 * step to the host stack to the host side. Each observation whose rule belongs to a VFP layer must
 * be listed there: on an endpoint port in the same layer, on the host side (host vNICs + uplink) by
 * name (the engine labels host-side load balancing with the pod-side layer names).
 */
function traced(host: Host, req: TraceRequest): TraceResult {
  const t = host.trace(req);
  const view = host.dataplane.view();
  const src = listPortRulesOrHost(host, req.from);
  let at = src;
  let checked = 0;
  for (const o of t.observations) {
    const toPort = view.portByMac.get(o.packetAfter.dstMac);
    if (o.component === 'vSwitch' && ['Switched', 'Routed', 'Hairpin'].includes(o.action) && toPort)
      at = toPort.id;
    else if (o.action === 'ToHost') at = 'host';
    else if (o.component === 'MacRewrite' && toPort && o.packetBefore.dstMac !== o.packetAfter.dstMac)
      at = toPort.id;
    const r = o.rule;
    if (!r?.rule || !r.layer || !VFP_LAYERS.has(r.layer)) continue;
    if (at === 'host') {
      const names = listHostRules(view).flatMap((h) => allRules(h).map((x) => x.rule.name));
      expect(names, `${r.layer}/${r.rule} on the host side`).toContain(r.rule);
    } else {
      const listed = allRules(listPortRules(view, at)).filter((x) => x.layer === r.layer);
      expect(
        listed.map((x) => x.rule.name),
        `${r.layer}/${r.rule} on port ${at}`,
      ).toContain(r.rule);
    }
    checked++;
  }
  expect(checked, `a VFP rule in the trace ${req.from} → ${req.to}`).toBeGreaterThan(0);
  return t;
}

function listPortRulesOrHost(host: Host, from: string): string {
  const view = host.dataplane.view();
  if (from === 'host' || /^\d+\.\d+\.\d+\.\d+$/.test(from)) {
    const local = [...view.localByIp.values()].find((p) => p.ip && from === ipText(p.ip));
    return local ? local.id : 'host';
  }
  return listPortRules(view, from).port.id;
}

function ipText(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function names(rules: readonly PortRule[]): string[] {
  return rules.map((r) => r.name);
}

describe('listPortRules: ACL_ENDPOINT_LAYER (reference §1.2, §2)', () => {
  function calico(): { host: Host; a: string; b: string } {
    const host = node();
    const net = l2bridge(host);
    const a = endpoint(host, net, 'pod-a', '10.244.1.5', [
      OUTBOUND_NAT,
      CALICO_DEFAULT_DENY,
      CALICO_ALLOW_HOST,
      ALLOW_3000,
    ]);
    const b = endpoint(host, net, 'pod-b', '10.244.1.6', [OUTBOUND_NAT]);
    host.addRoute({ destinationPrefix: '10.244.1.0/24', interfaceAlias: 'vEthernet (Ethernet)' });
    return { host, a, b };
  }

  it('a Calico endpoint: allow-host-to-endpoint @900, the policy allow, default deny @65500, then the implicit default-deny; Out holds only the implicit deny', () => {
    const { host, a } = calico();
    const rules = listPortRules(host.dataplane.view(), a);
    expect(rules.port).toMatchObject({ id: a, name: 'pod-a', kind: 'Container', ip: '10.244.1.5' });
    const l = layer(rules, 'ACL_ENDPOINT_LAYER');
    expect(l).toMatchObject({ stateful: true, vfp: true, priority: 1 });
    expect(l.groups.map((g) => [g.name, g.direction, g.matchType])).toEqual([
      ['ACL_ENDPOINT_GROUP_IPV4_IN', 'IN', 'Priority-based match'],
      ['ACL_ENDPOINT_GROUP_IPV4_OUT', 'OUT', 'Priority-based match'],
    ]);
    const inRules = groupRules(rules, 'ACL_ENDPOINT_LAYER', 'ACL_ENDPOINT_GROUP_IPV4_IN');
    expect(inRules.map((r) => [r.name, r.priority, r.action, r.implicit])).toEqual([
      ['allow-host-to-endpoint', 900, 'Allow', false],
      ['allow-3000', 1000, 'Allow', false],
      ['CNIDefaultDenyAllPolicy', 65500, 'Block', false],
      ['default-deny', 65535, 'Block', true],
    ]);
    expect(inRules[0]).toMatchObject({
      flags: ['terminating', 'stateful'],
      type: 'allow',
      flowTtl: 240,
      conditions: { remoteAddresses: NODE_IP }, // vfpctrl: "Source IP : 10.156.233.218" for a /32
      source: { kind: 'Endpoint', id: a, policy: 'ACL', ruleId: 'allow-host-to-endpoint', priority: 900 },
    });
    expect(inRules[1]!.conditions).toEqual({ protocols: '6', localPorts: '3000-3000' });
    expect(inRules[2]!.conditions).toEqual({}); // protocol 256 = any
    expect(names(groupRules(rules, 'ACL_ENDPOINT_LAYER', 'ACL_ENDPOINT_GROUP_IPV4_OUT'))).toEqual([
      'default-deny',
    ]); // #616: any ACL puts both directions in default-deny
  });

  it('agrees with the engine: the rule a trace names is the first listed rule that matches', () => {
    const { host, a, b } = calico();
    const allowHost = traced(host, { from: 'host', to: 'pod-a', destinationPort: 22 });
    expect(allowHost.disposition).toBe('Delivered');
    expect(allowHost.observations.find((o) => o.component === 'ACL')?.rule?.rule).toBe(
      'allow-host-to-endpoint',
    );
    const port3000 = traced(host, { from: b, to: 'pod-a', destinationPort: 3000 });
    expect(port3000.observations.find((o) => o.component === 'ACL')?.rule?.rule).toBe('allow-3000');
    const denied = traced(host, { from: b, to: 'pod-a', destinationPort: 22 });
    expect(denied.disposition).toBe('DeniedIn');
    expect(denied.observations.at(-1)?.rule?.rule).toBe('CNIDefaultDenyAllPolicy');
    const out = traced(host, { from: a, to: '8.8.8.8', destinationPort: 443 });
    expect(out.disposition).toBe('DeniedOut');
    expect(out.observations.at(-1)?.rule).toMatchObject({
      layer: 'ACL_ENDPOINT_LAYER',
      rule: 'default-deny',
    });
  });

  it('rule order is evaluation order: ascending priority, Block before Allow on a tie (Allow first with tieBreak Allow); Host rules go to WFP', () => {
    const policies = [
      acl({ Id: 'allow-all', Protocols: '256', Action: 'Allow', Direction: 'In', Priority: 2000 }),
      acl({
        Id: 'block-ssh',
        Protocols: '6',
        Action: 'Block',
        Direction: 'In',
        LocalPorts: '22',
        Priority: 1500,
      }),
      acl({
        Id: 'allow-web',
        Protocols: '6',
        Action: 'Allow',
        Direction: 'In',
        LocalPorts: '80',
        Priority: 1000,
      }),
      acl({
        Id: 'block-web',
        Protocols: '6',
        Action: 'Block',
        Direction: 'In',
        LocalPorts: '80',
        Priority: 1000,
      }),
      acl({ Id: 'host-allow-in', Protocols: '256', Action: 'Allow', Direction: 'In', RuleType: 'Host' }),
      acl({ Id: 'allow-out', Protocols: '256', Action: 'Allow', Direction: 'Out', Priority: 1000 }),
    ];
    for (const [tieBreak, first, verdict] of [
      ['Block', 'block-web', 'DeniedIn'],
      ['Allow', 'allow-web', 'Delivered'],
    ] as const) {
      const host = node({ dataplane: { acl: { tieBreak } } });
      const net = l2bridge(host);
      const a = endpoint(host, net, 'pod-a', '10.244.1.5', policies);
      const b = endpoint(host, net, 'pod-b', '10.244.1.6');
      const rules = listPortRules(host.dataplane.view(), a);
      const inRules = groupRules(rules, 'ACL_ENDPOINT_LAYER', 'ACL_ENDPOINT_GROUP_IPV4_IN');
      const tied = first === 'block-web' ? 'allow-web' : 'block-web';
      expect(names(inRules)).toEqual([first, tied, 'block-ssh', 'allow-all', 'default-deny']);
      const prio = inRules.map((r) => r.priority);
      expect(prio).toEqual([...prio].sort((x, y) => x - y));
      // WFP (Windows Firewall) decides Host rules, beside the VFP layer
      const wfp = layer(rules, 'WFP');
      expect(wfp).toMatchObject({ vfp: false, direction: 'IN' });
      expect(names(wfp.groups[0]!.rules)).toEqual(['host-allow-in', 'default-deny']);
      // Windows Firewall arbitrates (a Block wins) instead of terminating, and keeps no VFP flow TTL
      expect(wfp.groups[0]!.rules[0]).toMatchObject({ flags: ['stateful'], implicit: false });
      expect(wfp.groups[0]!.rules[0]).not.toHaveProperty('flowTtl');
      const t = traced(host, { from: b, to: 'pod-a', destinationPort: 80 });
      expect(t.disposition).toBe(verdict);
      expect(t.observations.find((o) => o.component === 'ACL')?.rule?.rule).toBe(first);
      traced(host, { from: b, to: 'pod-a', destinationPort: 22 });
      traced(host, { from: b, to: 'pod-a', destinationPort: 8080 });
    }
  });

  it('TierAcl tiers are groups before the flat rules, by Order; NetworkACL rules of the network join the flat rules', () => {
    const host = node();
    const net = l2bridge(host);
    ok(
      host.api.HcnModifyNetwork(net, {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [
            {
              Type: 'NetworkACL',
              Settings: {
                Id: 'net-allow-dns',
                Protocols: '17',
                Action: 'Allow',
                Direction: 'In',
                LocalPorts: '53',
                RuleType: 'Switch',
                Priority: 300,
              },
            },
          ],
        },
      }),
    );
    const tier = (name: string, order: number, rules: JsonObject[]) => ({
      Type: 'TierAcl',
      Settings: { Name: name, Direction: 'In', Order: order, TierAclRules: rules },
    });
    const a = endpoint(host, net, 'pod-a', '10.244.1.5', [
      tier('TierIn2', 1002, [
        { Id: 'TierIn2Rule1', Protocols: '6', TierAclRuleAction: 'Allow', LocalPorts: '80', Priority: 3001 },
        { Id: 'TierIn2Rule2', TierAclRuleAction: 'Block', Priority: 3100 },
      ]),
      tier('TierIn1', 1001, [
        {
          Id: 'TierIn1Rule1',
          Protocols: '6',
          TierAclRuleAction: 'Pass',
          RemoteAddresses: '10.244.1.0/24',
          Priority: 2001,
        },
        { Id: 'TierIn1Rule2', TierAclRuleAction: 'Block', Priority: 2100 },
      ]),
    ]);
    // the NetworkACL puts every endpoint of the network in default-deny: pod-b allows its egress
    const b = endpoint(host, net, 'pod-b', '10.244.1.6', [
      acl({ Id: 'allow-out', Protocols: '256', Action: 'Allow', Direction: 'Out', Priority: 1000 }),
    ]);
    const rules = listPortRules(host.dataplane.view(), a);
    const aclLayer = layer(rules, 'ACL_ENDPOINT_LAYER');
    const inGroups = aclLayer.groups.filter((g) => g.direction === 'IN');
    expect(inGroups.map((g) => [g.name, g.priority])).toEqual([
      ['ACL_TIER_GROUP_TierIn1_IPV4_IN', 1],
      ['ACL_TIER_GROUP_TierIn2_IPV4_IN', 2],
      ['ACL_ENDPOINT_GROUP_IPV4_IN', 3],
    ]);
    expect(inGroups[0]!.rules.map((r) => [r.action, r.flags])).toEqual([
      ['Pass', []],
      ['Block', ['terminating', 'stateful']],
    ]);
    const flat = groupRules(rules, 'ACL_ENDPOINT_LAYER', 'ACL_ENDPOINT_GROUP_IPV4_IN');
    expect(flat[0]).toMatchObject({
      name: 'net-allow-dns',
      source: { kind: 'Network', id: net, policy: 'NetworkACL' },
    });
    const t = traced(host, { from: b, to: 'pod-a', destinationPort: 80 });
    expect(t.disposition).toBe('Delivered');
    // pod-b's allow-out, then pod-a's tiers: TierIn1 passes, TierIn2 allows
    expect(t.observations.filter((o) => o.component === 'ACL').map((o) => o.rule?.rule)).toEqual([
      'allow-out',
      inGroups[1]!.rules[0]!.name,
    ]);
    traced(host, { from: b, to: 'pod-a', destinationPort: 22 });
  });

  it('an endpoint without ACLs has no ACL layer (everything allowed)', () => {
    const host = node();
    const net = l2bridge(host);
    const b = endpoint(host, net, 'pod-b', '10.244.1.6', [OUTBOUND_NAT]);
    expect(listPortRules(host.dataplane.view(), b).layers.map((l) => l.name)).not.toContain(
      'ACL_ENDPOINT_LAYER',
    );
  });
});

describe('listPortRules: SLB_NAT_LAYER OutBoundNAT (reference §3)', () => {
  it('SNAT per TCP and UDP to the host address, Exceptions as "not in" and an EXCEPTION pass before them; Destinations restrict SNAT', () => {
    const host = node();
    const net = l2bridge(host);
    const a = endpoint(host, net, 'pod-a', '10.244.1.5', [
      OUTBOUND_NAT,
      // ACN-style: SNAT to Azure DNS only, from a VirtualIP
      { Type: 'OutBoundNAT', Settings: { VirtualIP: '10.0.0.100', Destinations: ['168.63.129.16'] } },
    ]);
    endpoint(host, net, 'pod-b', '10.244.1.6');
    const rules = listPortRules(host.dataplane.view(), a);
    const nat = layer(rules, 'SLB_NAT_LAYER');
    expect(nat).toMatchObject({ stateful: true, direction: 'OUT' });
    const out = groupRules(rules, 'SLB_NAT_LAYER', 'SLB_GROUP_NAT_IPv4_OUT');
    expect(out.map((r) => [r.name, r.action, r.type])).toEqual([
      ['EXCEPTION', 'Pass', 'pass'],
      ['SNAT_TCP_OUTBOUNDNAT_10.244.1.5_10.0.0.4', 'SNAT', 'dynnat'],
      ['SNAT_UDP_OUTBOUNDNAT_10.244.1.5_10.0.0.4', 'SNAT', 'dynnat'],
      ['SNAT_TCP_OUTBOUNDNAT_10.244.1.5_10.0.0.100', 'SNAT', 'dynnat'],
      ['SNAT_UDP_OUTBOUNDNAT_10.244.1.5_10.0.0.100', 'SNAT', 'dynnat'],
    ]);
    expect(out.map((r) => r.priority)).toEqual([1, 2, 3, 4, 5]);
    expect(out[0]!.conditions).toEqual({ remoteAddresses: '10.244.0.0/16,10.96.0.0/12' });
    expect(out[1]!.conditions).toEqual({
      protocols: '6',
      localAddresses: '10.244.1.5',
      remoteAddressesNotIn: '10.244.0.0/16,10.96.0.0/12',
    });
    expect(out[2]!.conditions.protocols).toBe('17');
    expect(out[3]!.conditions).toEqual({
      protocols: '6',
      localAddresses: '10.244.1.5',
      remoteAddresses: '168.63.129.16',
    });
    expect(out[3]!.data['Source NAT']).toBe('10.0.0.100');
    expect(out[1]!.source).toMatchObject({ kind: 'Endpoint', id: a, policy: 'OutBoundNAT', index: 0 });
    expect(out[3]!.source).toMatchObject({ policy: 'OutBoundNAT', index: 1 });
    expect(out.every((r) => r.name !== 'EXCEPTION' || r.flags.length === 0)).toBe(true);

    const web = traced(host, { from: 'pod-a', to: '8.8.8.8', destinationPort: 443 });
    expect(web.observations.find((o) => o.action === 'SNAT')?.rule?.rule).toBe(
      'SNAT_TCP_OUTBOUNDNAT_10.244.1.5_10.0.0.4',
    );
    const dns = traced(host, { from: 'pod-a', to: '168.63.129.16', protocol: 'UDP', destinationPort: 53 });
    expect(dns.observations.filter((o) => o.component === 'NAT').map((o) => o.rule?.rule)).toEqual([
      'SNAT_UDP_OUTBOUNDNAT_10.244.1.5_10.0.0.4',
    ]);
    traced(host, { from: 'pod-a', to: 'pod-b', destinationPort: 80 }); // EXCEPTION
  });
});

describe('listPortRules: load balancers (reference §1.2, §4)', () => {
  function cluster() {
    const host = node();
    const net = l2bridge(host);
    const a = endpoint(host, net, 'pod-a', '10.244.1.5', [OUTBOUND_NAT]);
    const b = endpoint(host, net, 'pod-b', '10.244.1.6', [OUTBOUND_NAT]);
    const c = endpoint(host, net, 'pod-c', '10.244.1.7', [OUTBOUND_NAT]);
    // kube-proxy: ClusterIP with DSR → pod-a only; a non-DSR ClusterIP → pod-c; a NodePort
    // (no FrontendVIPs, LocalRoutedVIP) and a LocalRoutedVIP ClusterIP → pod-a
    const lb = (doc: JsonObject) =>
      ok(host.api.HcnCreateLoadBalancer(null, { ...doc, SchemaVersion: SCHEMA })).ID;
    const dsr = lb({
      HostComputeEndpoints: [a],
      FrontendVIPs: ['10.96.0.10'],
      PortMappings: [{ Protocol: 17, InternalPort: 53, ExternalPort: 53 }],
      Flags: 1,
    });
    const snat = lb({
      HostComputeEndpoints: [c],
      SourceVIP: NODE_IP,
      FrontendVIPs: ['10.96.0.20'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
    });
    const nodePort = lb({
      HostComputeEndpoints: [a],
      SourceVIP: NODE_IP,
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 30080, Flags: 2 }],
    });
    const routed = lb({
      HostComputeEndpoints: [a],
      SourceVIP: NODE_IP,
      FrontendVIPs: ['10.96.0.30'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80, Flags: 2 }],
    });
    return { host, a, b, c, dsr, snat, nodePort, routed };
  }

  it('a DSR load balancer is an LB_DSR rule on every local pod port, backend or not', () => {
    const { host, a, b, c, dsr } = cluster();
    const view = host.dataplane.view();
    const short = dsr.replace(/-/g, '').slice(0, 8);
    for (const id of [a, b, c]) {
      const rules = listPortRules(view, id);
      const l = layer(rules, 'LB_DSR');
      expect(l).toMatchObject({ stateful: true, direction: 'OUT' });
      const r = groupRules(rules, 'LB_DSR', 'LB_DSR_IPv4_OUT');
      expect(r.map((x) => x.name)).toContain(`LB_DSR_${short}_10.0.0.4_10.96.0.10_53_53_17`);
      const rule = r.find((x) => x.name.startsWith(`LB_DSR_${short}`))!;
      expect(rule).toMatchObject({
        action: 'DNAT',
        type: 'lbnat',
        conditions: { protocols: '17', remoteAddresses: '10.96.0.10', remotePorts: '53-53' },
        data: { Backends: '10.244.1.5:53' },
        source: { kind: 'LoadBalancer', id: dsr, layer: 'LB_DSR' },
      });
    }
    // layer order: ACL-free ports meet LB_DSR before SLB_NAT (OutBoundNAT) and MAC rewrite
    expect(listPortRules(view, b).layers.map((l) => l.name)).toEqual([
      'LB_DSR',
      'SLB_NAT_LAYER',
      'VNET_MAC_REWRITE_LAYER',
    ]);
    const t = traced(host, { from: 'pod-b', to: '10.96.0.10', protocol: 'UDP', destinationPort: 53 });
    expect(t.disposition).toBe('Delivered');
    traced(host, { from: 'pod-c', to: '10.96.0.10', protocol: 'UDP', destinationPort: 53 });
    // the backend reaching its own VIP without loopback DSR: the engine names the LB_DSR rule
    const self = traced(host, { from: 'pod-a', to: '10.96.0.10', protocol: 'UDP', destinationPort: 53 });
    expect(self.disposition).toBe('Unsupported');
  });

  it("an endpoint attached to the host (flannel's cbr0 .2) is a Host port: no pod-side load balancing", () => {
    const { host } = cluster();
    const net = [...host.dataplane.view().networks.keys()][0]!;
    const ep = endpoint(host, net, 'cbr0_ep', '10.244.1.2');
    const [ns] = ok(host.api.HcnEnumerateNamespaces(''));
    ok(
      host.api.HcnModifyNamespace(ns!, {
        ResourceType: 'Endpoint',
        RequestType: 'Add',
        Settings: { EndpointId: ep },
      }),
    );
    const rules = listPortRules(host.dataplane.view(), 'cbr0_ep');
    expect(rules.port).toMatchObject({ id: ep, kind: 'Host', ip: '10.244.1.2' });
    expect(rules.layers.map((l) => l.name)).toEqual(['VNET_MAC_REWRITE_LAYER']);
  });

  it('a non-DSR load balancer is listed in SLB_NAT_LAYER before OutBoundNAT, with its source VIP', () => {
    const { host, b, snat } = cluster();
    const rules = listPortRules(host.dataplane.view(), b);
    const out = groupRules(rules, 'SLB_NAT_LAYER', 'SLB_GROUP_NAT_IPv4_OUT');
    const short = snat.replace(/-/g, '').slice(0, 8);
    expect(out[0]).toMatchObject({
      name: `LB_${short}_10.96.0.20_80_6`,
      action: 'DNAT',
      data: { Backends: '10.244.1.7:8080', 'Source VIP': NODE_IP },
    });
    expect(out.findIndex((r) => r.name.startsWith('SNAT_'))).toBeGreaterThan(0);
    const t = traced(host, { from: 'pod-b', to: '10.96.0.20', destinationPort: 80 });
    expect(t.disposition).toBe('Delivered');
  });

  it('host side: NodePorts on the uplink, LocalRoutedVIP on the host vNIC, both in SLB_LB_LAYER', () => {
    const { host, nodePort, routed } = cluster();
    const view = host.dataplane.view();
    const hostSide = listHostRules(view);
    expect(hostSide.map((h) => [h.port.kind, h.port.name])).toEqual([
      ['Host', expect.stringMatching(/^Container NIC [0-9A-F]{8}$/)],
      ['Uplink', 'ExternalPort'],
    ]);
    const [vnic, uplink] = hostSide as [PortRules, PortRules];
    const np = groupRules(uplink, 'SLB_LB_LAYER', 'SLB_GROUP_LB_IPv4_IN');
    // HNS renders NodePort rules with the node management IP in the VIP slot (SDN-health)
    expect(names(np)).toEqual([`LB_${nodePort.replace(/-/g, '').slice(0, 8)}_10.0.0.4_30080_6`]);
    expect(np[0]!.conditions).toMatchObject({
      protocols: '6',
      localAddresses: NODE_IP,
      localPorts: '30080-30080',
    });
    const lr = groupRules(vnic, 'SLB_LB_LAYER', 'SLB_GROUP_LB_IPv4_OUT');
    expect(names(lr)).toEqual([`LB_${routed.replace(/-/g, '').slice(0, 8)}_10.96.0.30_80_6`]);
    // the host-side ports are found by their IDs and names too
    expect(listPortRules(view, uplink.port.id)).toEqual(uplink);
    expect(listPortRules(view, 'ExternalPort')).toEqual(uplink);
    const fromOutside = traced(host, { from: OUTSIDE, to: NODE_IP, destinationPort: 30080 });
    expect(fromOutside.disposition).toBe('Delivered');
    const fromHost = traced(host, { from: 'host', to: '10.96.0.30', destinationPort: 80 });
    expect(fromHost.disposition).toBe('Delivered');
  });

  it('port mappings: SLB_NAT_LAYER IN on the pod port and on the uplink', () => {
    const host = node();
    const net = l2bridge(host);
    const a = endpoint(host, net, 'pod-a', '10.244.1.5', [
      { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8081 } },
    ]);
    const view = host.dataplane.view();
    const pod = groupRules(listPortRules(view, a), 'SLB_NAT_LAYER', 'SLB_GROUP_NAT_IPv4_IN');
    expect(pod.map((r) => [r.name, r.conditions, r.data])).toEqual([
      [
        'NAT_PORTMAPPING_TCP_8081_80',
        { protocols: '6', localPorts: '8081-8081' },
        { 'Translate to': '10.244.1.5:80' },
      ],
    ]);
    const uplink = listHostRules(view).find((h) => h.port.kind === 'Uplink')!;
    expect(names(groupRules(uplink, 'SLB_NAT_LAYER', 'SLB_GROUP_NAT_IPv4_IN'))).toEqual([
      'NAT_PORTMAPPING_TCP_8081_80',
    ]);
    const t = traced(host, { from: OUTSIDE, to: NODE_IP, destinationPort: 8081 });
    expect(t.disposition).toBe('Delivered');
  });
});

describe('listPortRules: overlay encapsulation and routes (reference §1.2, §5)', () => {
  function flannel() {
    const host = node();
    const net = overlay(host);
    // flannel handleSubnetEvents: the remote node's lease
    ok(
      host.api.HcnModifyNetwork(net, {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [
            {
              Type: 'RemoteSubnetRoute',
              Settings: {
                DestinationPrefix: '10.244.2.0/24',
                IsolationId: 4096,
                ProviderAddress: '10.0.0.5',
                DistributedRouterMacAddress: '00-15-5D-AA-BB-CC',
              },
            },
          ],
        },
      }),
    );
    // win-overlay: OutBoundNAT exceptions and the service CIDR ROUTE NeedEncap
    const a = endpoint(host, net, 'pod-a', '10.244.1.5', [
      OUTBOUND_NAT,
      { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
    ]);
    // kube-proxy: a remote endpoint with the remote node as provider address
    const remote = ok(
      host.api.HcnCreateEndpoint(net, null, {
        IpConfigurations: [{ IpAddress: '10.244.2.7' }],
        MacAddress: '02-11-0a-f4-02-07',
        Flags: 1,
        Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.6' } }],
        SchemaVersion: SCHEMA,
      }),
    ).ID;
    return { host, net, a, remote };
  }

  it('RemoteSubnetRoutes and remote endpoints are encap rules by LPM, each with PA, VNI and DR MAC', () => {
    const { host, net, a, remote } = flannel();
    const rules = listPortRules(host.dataplane.view(), a);
    const l = layer(rules, 'VNET_ENCAP_LAYER');
    expect(l).toMatchObject({ stateful: false, direction: 'OUT' });
    expect(l.groups.map((g) => [g.name, g.matchType])).toEqual([['VNET_GROUP_ENCAP_IPV4_OUT', 'lpm']]);
    const encap = l.groups[0]!.rules;
    expect(encap.map((r) => [r.name, r.conditions.destinationPrefix])).toEqual([
      ['ENCAP_10.244.2.7/32_10.0.0.6_4096', '10.244.2.7/32'],
      ['ENCAP_10.244.2.0/24_10.0.0.5_4096', '10.244.2.0/24'],
    ]);
    expect(encap[1]).toMatchObject({
      action: 'Encap',
      type: 'encap',
      data: { PA: '10.0.0.5', VNI: '4096', 'DR MAC': '00-15-5D-AA-BB-CC', 'Encap type': 'VXLAN' },
      source: { kind: 'Network', id: net, policy: 'RemoteSubnetRoute' },
    });
    expect(encap[0]).toMatchObject({
      data: { PA: '10.0.0.6', VNI: '4096', 'DR MAC': '00-15-5D-AA-BB-CC' },
      source: { kind: 'Endpoint', id: remote, policy: 'ProviderAddress' },
    });
    const routes = groupRules(rules, 'VNET_PA_ROUTE_LAYER', 'VNET_GROUP_PA_ROUTE_IPV4_OUT');
    expect(routes.map((r) => [r.name, r.type, r.conditions.destinationPrefix, r.data])).toEqual([
      ['ROUTE_10.96.0.0/12_ENCAP', 'encap', '10.96.0.0/12', { 'Need encap': 'true' }],
    ]);
    // the engine: /32 to the remote endpoint's node, the subnet to its node, NeedEncap with no target
    const toRemote = traced(host, { from: 'pod-a', to: '10.244.2.7', destinationPort: 80 });
    expect(toRemote.observations.find((o) => o.component === 'Encap')?.rule?.rule).toBe(
      'ENCAP_10.244.2.7/32_10.0.0.6_4096',
    );
    const toSubnet = traced(host, { from: 'pod-a', to: '10.244.2.9', destinationPort: 80 });
    expect(toSubnet.observations.find((o) => o.component === 'Encap')?.rule?.rule).toBe(
      'ENCAP_10.244.2.0/24_10.0.0.5_4096',
    );
    const toService = traced(host, { from: 'pod-a', to: '10.96.0.99', destinationPort: 80 });
    expect(toService.disposition).toBe('NoRoute');
  });

  it('a remote endpoint (Flags 1) lists no layers, only its forwarding entry', () => {
    const { host, remote } = flannel();
    const rules = listPortRules(host.dataplane.view(), remote);
    expect(rules.port).toMatchObject({ id: remote, kind: 'Remote', ip: '10.244.2.7' });
    expect(rules.layers).toEqual([]);
    expect(rules.forwarding).toEqual({
      providerAddress: '10.0.0.6',
      vni: 4096,
      rule: 'ENCAP_10.244.2.7/32_10.0.0.6_4096',
    });
  });
});

describe('listPortRules: L2Bridge MAC rewrite (reference §6)', () => {
  it('container MAC → host MAC out, host MAC → container MAC in', () => {
    const host = node();
    const net = l2bridge(host);
    const a = endpoint(host, net, 'pod-a', '10.244.1.5', [OUTBOUND_NAT]);
    const rules = listPortRules(host.dataplane.view(), a);
    const l = layer(rules, 'VNET_MAC_REWRITE_LAYER');
    expect(l.groups.map((g) => [g.name, g.direction, g.rules.map((r) => r.name)])).toEqual([
      ['VNET_GROUP_MAC_REWRITE_OUT', 'OUT', ['MAC_REWRITE_HOST']],
      ['VNET_GROUP_MAC_REWRITE_IN', 'IN', ['MAC_REWRITE_HOST']],
    ]);
    expect(l.groups[0]!.rules[0]!.data['Source MAC']).toBe(`${rules.port.mac} -> ${NODE_MAC}`);
    expect(l.groups[1]!.rules[0]!.source).toMatchObject({ kind: 'Network', id: net });
    const out = traced(host, { from: 'pod-a', to: '8.8.8.8', destinationPort: 443 });
    expect(out.observations.map((o) => o.rule?.layer).filter(Boolean)).toEqual([
      'SLB_NAT_LAYER',
      'VNET_MAC_REWRITE_LAYER',
    ]);
    const inbound = traced(host, { from: OUTSIDE, to: '10.244.1.5', destinationPort: 80 });
    expect(inbound.disposition).toBe('Delivered');
  });

  it('an unknown port is ERROR_NOT_FOUND', () => {
    const host = node();
    l2bridge(host);
    expect(() => listPortRules(host.dataplane.view(), '00000000-0000-0000-0000-000000000000')).toThrow(
      expect.objectContaining({ code: 'ERROR_NOT_FOUND' }),
    );
  });
});
