/**
 * renderPortRules (src/render/vfp.ts): the text of `vfpctrl /port <id> /list-rule`. The expected
 * blocks follow vfpctrl output quoted upstream — mrolmedo/rke2windows README (a Calico pod's
 * ACL_ENDPOINT_LAYER: ` ITEM LIST`, `GROUP :` / `RULE :` blocks, `Flags : … terminating stateful`,
 * `Source IP : …`, `Flow TTL: 240`, `FlagsEx : 0`), calico#5800 (`Destination ports :
 * 3000-3000`), microsoft/SDN (`LAYER :`, rule types dynnat/lbnat) and SdnDiagnostics' vfpctrl
 * parser (`Encap Destination(s):` with `{key=value, …}`, `Command list-rule succeeded!`).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { renderPortRules } from '../../src/render/vfp.js';
import { listHostRules, listPortRules } from '../../src/vswitch/rules.js';
import { ok } from '../dataplane/prop-kit.js';

const NODE_IP = '10.0.0.4';
const SCHEMA = { Major: 2, Minor: 0 };

function node(): Host {
  return createHost({
    seed: 11,
    profile: 'ws2022',
    adapters: [
      { name: 'Ethernet', ipAddress: `${NODE_IP}/24`, gateway: '10.0.0.1', macAddress: '00-0D-3A-11-22-33' },
    ],
  });
}

function network(host: Host, type: 'L2Bridge' | 'Overlay'): string {
  const subnet: JsonObject = {
    IpAddressPrefix: '10.244.1.0/24',
    Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
  };
  if (type === 'Overlay') subnet.Policies = [{ Type: 'VSID', Settings: { IsolationId: 4096 } }];
  return ok(
    host.api.HcnCreateNetwork(null, {
      Name: type === 'Overlay' ? 'flannel.4096' : 'cbr0',
      Type: type,
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
      Ipams: [{ Type: 'Static', Subnets: [subnet] }],
      SchemaVersion: SCHEMA,
    }),
  ).ID;
}

function endpoint(host: Host, net: string, name: string, ip: string, policies: JsonObject[]): string {
  return ok(
    host.api.HcnCreateEndpoint(net, null, {
      Name: name,
      IpConfigurations: [{ IpAddress: ip }],
      Policies: policies,
      SchemaVersion: SCHEMA,
    }),
  ).ID;
}

const OUTBOUND_NAT = { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } };

function calicoPod(): { host: Host; id: string } {
  const host = node();
  const net = network(host, 'L2Bridge');
  const id = endpoint(host, net, 'pod-a', '10.244.1.5', [
    OUTBOUND_NAT,
    {
      Type: 'ACL',
      Settings: {
        Id: 'allow-host-to-endpoint',
        Protocols: '256',
        Action: 'Allow',
        Direction: 'In',
        RemoteAddresses: `${NODE_IP}/32`,
        RuleType: 'Switch',
        Priority: 900,
      },
    },
    {
      Type: 'ACL',
      Settings: {
        Id: 'allow-3000',
        Protocols: '6',
        Action: 'Allow',
        Direction: 'In',
        LocalPorts: '3000',
        RuleType: 'Switch',
        Priority: 1000,
      },
    },
  ]);
  ok(
    host.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [id],
      FrontendVIPs: ['10.96.0.10'],
      PortMappings: [{ Protocol: 17, InternalPort: 53, ExternalPort: 53 }],
      Flags: 1,
      SchemaVersion: SCHEMA,
    }),
  );
  return { host, id };
}

describe('renderPortRules', () => {
  it('prints a Calico pod port as vfpctrl does: ITEM LIST, LAYER, GROUP and RULE blocks', () => {
    const { host, id } = calicoPod();
    const text = renderPortRules(listPortRules(host.dataplane.view(), id));
    expect(text.startsWith(`PORT : ${id}\n    Friendly name : pod-a\n    Kind : Container\n`)).toBe(true);
    expect(text).toContain('\n ITEM LIST\n===========\n');
    expect(text).toContain(
      [
        'LAYER : ACL_ENDPOINT_LAYER',
        '    Friendly name : ACL_ENDPOINT_LAYER',
        '    Flags : stateful',
        '    Priority : 1',
        '',
        '  GROUP : ACL_ENDPOINT_GROUP_IPV4_IN',
        '      Friendly name : ACL_ENDPOINT_GROUP_IPV4_IN',
        '      Priority : 1',
        '      Direction : IN',
        '      Type : IPv4',
        '        Conditions:',
        '            <none>',
        '      Match type : Priority-based match',
        '',
        '    RULE : allow-host-to-endpoint',
        '        Friendly name : allow-host-to-endpoint',
        '        Priority : 900',
        '        Flags : terminating stateful',
        '        Type : allow',
        '        Conditions:',
        `            Source IP : ${NODE_IP}`,
        '        Flow TTL: 240',
        '        FlagsEx : 0',
        '',
        '    RULE : allow-3000',
      ].join('\n'),
    );
    expect(text).toContain('            Protocols : 6\n            Destination ports : 3000-3000\n');
    // the implicit default of an endpoint with ACLs, in both directions
    expect(text).toContain('    RULE : default-deny\n        Friendly name : default-deny (implicit)\n');
    expect(text).toContain('  GROUP : ACL_ENDPOINT_GROUP_IPV4_OUT\n');
    // OutBoundNAT and the DSR load balancer
    expect(text).toContain('    RULE : SNAT_TCP_OUTBOUNDNAT_10.244.1.5_10.0.0.4\n');
    expect(text).toContain('        Type : dynnat\n');
    expect(text).toContain('            Destination IP : NOT 10.244.0.0/16,10.96.0.0/12\n');
    expect(text).toMatch(/ {4}RULE : LB_DSR_[0-9A-F]{8}_10\.0\.0\.4_10\.96\.0\.10_53_53_17\n/);
    expect(text).toContain('        Type : lbnat\n');
    expect(text).toContain('  GROUP : LB_DSR_IPv4_OUT\n');
    expect(text.endsWith('Command list-rule succeeded!\n')).toBe(true);
    // layers in the order an outbound packet meets them
    const at = (s: string) => text.indexOf(`LAYER : ${s}\n`);
    const order = ['ACL_ENDPOINT_LAYER', 'LB_DSR', 'SLB_NAT_LAYER', 'VNET_MAC_REWRITE_LAYER'].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(text).not.toContain('\x1b[');
  });

  it('prints encap rules with their Encap Destination(s), a remote endpoint as a forwarding entry', () => {
    const host = node();
    const net = network(host, 'Overlay');
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
    const id = endpoint(host, net, 'pod-a', '10.244.1.5', [OUTBOUND_NAT]);
    const remote = ok(
      host.api.HcnCreateEndpoint(net, null, {
        IpConfigurations: [{ IpAddress: '10.244.2.7' }],
        MacAddress: '02-11-0a-f4-02-07',
        Flags: 1,
        Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.6' } }],
        SchemaVersion: SCHEMA,
      }),
    ).ID;
    const view = host.dataplane.view();
    const text = renderPortRules(listPortRules(view, id));
    expect(text).toContain(
      [
        '  GROUP : VNET_GROUP_ENCAP_IPV4_OUT',
        '      Friendly name : VNET_GROUP_ENCAP_IPV4_OUT',
        '      Priority : 1',
        '      Direction : OUT',
        '      Type : IPv4',
        '        Conditions:',
        '            <none>',
        '      Match type : lpm',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        '    RULE : ENCAP_10.244.2.0/24_10.0.0.5_4096',
        '        Friendly name : ENCAP_10.244.2.0/24_10.0.0.5_4096',
        '        Priority : 2',
        '        Flags : terminating',
        '        Type : encap',
        '        Conditions:',
        '            Destination IP : 10.244.2.0/24',
        '        Encap type : VXLAN',
        '        Encap Destination(s):',
        '            {DestinationIP=10.0.0.5, VNI=4096, DestinationMAC=00-15-5D-AA-BB-CC}',
      ].join('\n'),
    );
    const r = renderPortRules(listPortRules(view, remote));
    expect(r).toContain('    Kind : Remote\n');
    expect(r).toContain('    Encap rule : ENCAP_10.244.2.7/32_10.0.0.6_4096\n');
    expect(r).not.toContain('LAYER :');
  });

  it('prints several listings one after another (the host side), bold headers only with color', () => {
    const { host } = calicoPod();
    const hostSide = listHostRules(host.dataplane.view());
    const text = renderPortRules(hostSide);
    expect(text.match(/^PORT : /gm)).toHaveLength(hostSide.length);
    expect(text.match(/^Command list-rule succeeded!$/gm)).toHaveLength(hostSide.length);
    expect(text).toContain('    Friendly name : ExternalPort\n    Kind : Uplink\n');
    const colored = renderPortRules(hostSide, { color: true });
    expect(colored).toContain('\x1b[1mPORT : ');
    expect(colored.replaceAll('\x1b[1m', '').replaceAll('\x1b[0m', '')).toBe(text);
  });
});
