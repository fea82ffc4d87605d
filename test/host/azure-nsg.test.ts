// The Azure virtualization host around a VM (issue 16 §1; reference azure-cni.md §6; Azure's NSG
// documentation): the NSG on the VM's NIC — user rules by priority, then Azure's defaults
// (AllowVnetInBound 65000 … DenyAllInBound 65500, AllowInternetOutBound 65001 …), stateful —
// filters what leaves and enters the VM; on an L2Tunnel network every container packet goes to
// that host, same-node pod↔pod included (hairpinned), so an NSG rule decides it; on L2Bridge the
// vSwitch switches same-node traffic and the NSG never sees it.
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { NsgRuleSpec } from '../../src/host/nsg.js';
import { createAzureVnet } from '../../src/plugins/azure-vnet/index.js';
import { execPlugin, referenceRegistry } from '../../src/plugins/index.js';
import { createEndpoint, createNetwork } from '../dataplane/prop-kit.js';
import { aksPluginConf, AZURE_CNI_BIN, cid, namespace, podArgs } from '../plugins/azure-vnet/kit.js';

/** Deny TCP 80 into pod B (10.224.0.6): the rule the L2Tunnel/L2Bridge comparison turns on. */
const DENY_B_80: NsgRuleSpec = {
  name: 'deny-web-b',
  priority: 200,
  direction: 'Inbound',
  access: 'Deny',
  protocol: 'Tcp',
  destinationAddressPrefix: '10.224.0.6',
  destinationPortRange: '80',
};

function vm(rules: readonly NsgRuleSpec[] = [DENY_B_80], nsg = true): Host {
  return createHost({
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '10.224.0.4/16',
        gateway: '10.224.0.1',
        macAddress: '00-0D-3A-F9-DC-A6',
      },
    ],
    azure: {
      nics: [
        {
          adapter: 'Ethernet',
          secondaryIps: ['10.224.0.5', '10.224.0.6'],
          ...(nsg ? { nsg: { name: 'aks-agentpool-nsg', rules } } : {}),
        },
      ],
    },
  });
}

function pods(h: Host, type: 'L2Tunnel' | 'L2Bridge'): { a: string; b: string } {
  const net = createNetwork(h, 'azure', type, '10.224.0.0/16', '10.224.0.1');
  return { a: createEndpoint(h, net, 'a', '10.224.0.5'), b: createEndpoint(h, net, 'b', '10.224.0.6') };
}

const trail = (t: { observations: readonly { component: string; action: string }[] }): string[] =>
  t.observations.map((o) => `${o.component} ${o.action}`);

describe('L2Tunnel: same-node pod → pod goes through the virtualization host and its NSG', () => {
  it('a Deny rule on the destination decides it (DeniedIn, the NSG rule named); another port passes', () => {
    const h = vm();
    const { a, b } = pods(h, 'L2Tunnel');
    const denied = h.trace({ from: a, to: b, protocol: 'TCP', destinationPort: 80 });
    expect(denied.disposition).toBe('DeniedIn');
    const last = denied.observations[denied.observations.length - 1]!;
    expect(last).toMatchObject({
      component: 'NSG',
      action: 'Denied',
      rule: {
        kind: 'NSG',
        id: 'aks-agentpool-nsg',
        name: 'deny-web-b',
        priority: 200,
        policy: 'SecurityRule',
      },
    });
    const ok = h.trace({ from: a, to: b, protocol: 'TCP', destinationPort: 81 });
    expect(ok).toMatchObject({ disposition: 'Delivered', at: `endpoint:${b}` });
    // out of the uplink with the host's MAC, through the NSG both ways, back in, MAC restored
    const i = trail(ok).indexOf('Underlay Hairpinned');
    expect(trail(ok).slice(i)).toEqual([
      'Underlay Hairpinned',
      'MacRewrite Rewritten',
      'Port Transmitted',
      'NSG Allowed',
      'NSG Allowed',
      'Underlay Forwarded',
      'Port Received',
      'MacRewrite Rewritten',
      'Delivery Delivered',
    ]);
    // the VNet traffic is let through by Azure's default rules
    expect(ok.observations.filter((o) => o.component === 'NSG').map((o) => o.rule?.name)).toEqual([
      'AllowVnetOutBound',
      'AllowVnetInBound',
    ]);
  });

  it('stateful: the reply of an allowed flow passes a rule that would deny it', () => {
    const h = vm([
      {
        name: 'deny-from-b',
        priority: 300,
        direction: 'Inbound',
        access: 'Deny',
        protocol: '*',
        sourceAddressPrefix: '10.224.0.6',
      },
    ]);
    const { a, b } = pods(h, 'L2Tunnel');
    const t = h.trace({ from: a, to: b, protocol: 'TCP', destinationPort: 80, reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.reply).toMatchObject({ disposition: 'Delivered', at: `endpoint:${a}` });
    expect(t.reply!.observations.some((o) => o.component === 'NSG')).toBe(false);
    // a new flow from b is denied
    expect(h.trace({ from: b, to: a, protocol: 'TCP', destinationPort: 80 }).disposition).toBe('DeniedIn');
  });
});

describe('L2Bridge: the vSwitch switches same-node traffic, the NSG never sees it', () => {
  it('the same rule does not stop pod a → pod b:80', () => {
    const h = vm();
    const { a, b } = pods(h, 'L2Bridge');
    const t = h.trace({ from: a, to: b, protocol: 'TCP', destinationPort: 80 });
    expect(t).toMatchObject({ disposition: 'Delivered', at: `endpoint:${b}` });
    expect(trail(t).filter((s) => s.startsWith('NSG') || s.startsWith('Underlay'))).toEqual([]);
  });
});

describe('azure-vnet of the v1.5 line (mode tunnel): the NSG decides same-node pods (reference §2.2, §6)', () => {
  it('two pods of one L2Tunnel network: the Deny rule on pod b:80 stops pod a', async () => {
    const h = vm();
    const registry = referenceRegistry();
    registry.register(createAzureVnet({ release: 'v1.5.50' }));
    const add = async (tag: string, name: string) => {
      const id = cid(tag);
      const out = await execPlugin(
        h,
        'azure-vnet',
        {
          env: {
            CNI_COMMAND: 'ADD',
            CNI_CONTAINERID: id,
            CNI_NETNS: await namespace(h),
            CNI_IFNAME: 'eth0',
            CNI_ARGS: podArgs(name, 'default', id),
            CNI_PATH: AZURE_CNI_BIN,
          },
          stdin: aksPluginConf((p) => {
            p['mode'] = 'tunnel';
            p['AdditionalArgs'] = [];
          }),
        },
        registry,
      );
      expect(out.exitCode).toBe(0);
      return `${tag}-eth0`;
    };
    const a = await add('aaaa0001', 'a');
    const b = await add('bbbb0002', 'b');
    expect(h.trace({ from: a, to: b, protocol: 'TCP', destinationPort: 80 }).disposition).toBe('DeniedIn');
    expect(h.trace({ from: a, to: b, protocol: 'TCP', destinationPort: 8080 }).disposition).toBe('Delivered');
  });
});

describe('the NSG on traffic leaving and entering the VM', () => {
  it('Outbound: a Deny rule stops the node (DeniedOut); Internet traffic otherwise leaves by AllowInternetOutBound', () => {
    const h = vm([
      {
        name: 'no-dns-google',
        priority: 100,
        direction: 'Outbound',
        access: 'Deny',
        protocol: 'Udp',
        destinationAddressPrefix: '8.8.8.8/32',
      },
    ]);
    const d = h.trace({ from: 'host', to: '8.8.8.8', protocol: 'UDP', destinationPort: 53 });
    expect(d.disposition).toBe('DeniedOut');
    expect(d.observations[d.observations.length - 1]!.rule?.name).toBe('no-dns-google');
    const out = h.trace({ from: 'host', to: '1.1.1.1', protocol: 'TCP', destinationPort: 443 });
    expect(out.disposition).toBe('ExitsNetwork');
    expect(out.observations.find((o) => o.component === 'NSG')?.rule?.name).toBe('AllowInternetOutBound');
  });

  it('Inbound from the Internet: DenyAllInBound by default, an Allow rule opens a port', () => {
    const closed = vm([]);
    const t = closed.trace({ from: '203.0.113.9', to: 'host', protocol: 'TCP', destinationPort: 22 });
    expect(t.disposition).toBe('DeniedIn');
    expect(t.observations[t.observations.length - 1]!.rule?.name).toBe('DenyAllInBound');
    const open = vm([
      {
        name: 'ssh',
        priority: 1000,
        direction: 'Inbound',
        access: 'Allow',
        protocol: 'Tcp',
        sourceAddressPrefix: 'Internet',
        destinationPortRange: '22',
      },
    ]);
    expect(
      open.trace({ from: '203.0.113.9', to: 'host', protocol: 'TCP', destinationPort: 22 }).disposition,
    ).toBe('Delivered');
  });

  it('the platform addresses are not filtered: a deny-everything outbound rule still lets the node reach IMDS', () => {
    const h = vm([
      { name: 'deny-all-out', priority: 100, direction: 'Outbound', access: 'Deny', protocol: '*' },
    ]);
    expect(
      h.trace({ from: 'host', to: '169.254.169.254', protocol: 'TCP', destinationPort: 80 }).disposition,
    ).toBe('Delivered');
    expect(h.trace({ from: 'host', to: '1.1.1.1', protocol: 'TCP', destinationPort: 443 }).disposition).toBe(
      'DeniedOut',
    );
  });

  it('no NSG on the NIC: nothing filters it (no NSG step)', () => {
    const h = vm([], false);
    const t = h.trace({ from: '203.0.113.9', to: 'host', protocol: 'TCP', destinationPort: 22 });
    expect(t.disposition).toBe('Delivered');
    expect(t.observations.some((o) => o.component === 'NSG')).toBe(false);
  });
});

describe('NSG specs are checked', () => {
  const bad = (rules: unknown[]) => () =>
    createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.224.0.4/16', gateway: '10.224.0.1' }],
      azure: { nics: [{ adapter: 'Ethernet', nsg: { name: 'n', rules } as never }] },
    });
  it.each([
    [
      [{ name: 'r', priority: 50, direction: 'Inbound', access: 'Allow' }],
      'azure: nic 0 nsg rule 0: priority must be an integer from 100 to 4096',
    ],
    [
      [{ name: 'r', priority: 100, direction: 'In', access: 'Allow' }],
      'azure: nic 0 nsg rule 0: direction must be Inbound or Outbound',
    ],
    [
      [{ name: 'r', priority: 100, direction: 'Inbound', access: 'Allow', protocol: 'Sctp' }],
      'azure: nic 0 nsg rule 0: protocol must be Tcp, Udp, Icmp or *',
    ],
    [
      [
        { name: 'r', priority: 100, direction: 'Inbound', access: 'Allow' },
        { name: 's', priority: 100, direction: 'Inbound', access: 'Deny' },
      ],
      'azure: nic 0 nsg rule 1: priority 100 is taken by another Inbound rule',
    ],
    [
      [{ name: 'r', priority: 100, direction: 'Inbound', access: 'Allow', destinationPortRange: '90-80' }],
      'azure: nic 0 nsg rule 0 destination port: "90-80" is not *, a port or a range a-b',
    ],
    [
      [
        {
          name: 'r',
          priority: 100,
          direction: 'Inbound',
          access: 'Allow',
          sourceAddressPrefix: '10.0.0.0/33',
        },
      ],
      'azure: nic 0 nsg rule 0 source: "10.0.0.0/33" is not *, an IPv4 address or CIDR, or a service tag',
    ],
  ])('%j', (rules, message) => {
    expect(bad(rules)).toThrow(message);
  });
});
