// The Azure host answers the platform's addresses for its VM (reference azure-cni.md §6; AKS #3128,
// #1367): the wireserver 168.63.129.16 (DNS 53, TCP 80 and 32526) and IMDS 169.254.169.254 (TCP 80,
// only from the VM's primary IP). A pod of AKS's conflist reaches IMDS because OutBoundNAT SNATs
// it to the node's IP, is kept from the wireserver's TCP 80 and 32526 by the conflist's ACLs, and
// still resolves names through the wireserver; an IMDS destination excepted from OutBoundNAT is
// refused. Off Azure both addresses just leave the host.
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../src/api/hcn/client.js';
import { createHost } from '../../src/host/host.js';
import { aksNode, aksPluginConf, cid, namespace, vnet } from '../plugins/azure-vnet/kit.js';
import type { Host } from '../../src/host/host.js';
import { addExtNetwork } from '../plugins/azure-vnet/kit.js';

async function aksPod(host: Host, conf?: string): Promise<string> {
  const out = await vnet(host, {
    command: 'ADD',
    id: cid('3f813b02'),
    netns: await namespace(host),
    ...(conf ? { conf } : {}),
  });
  expect(out.exitCode).toBe(0);
  return '3f813b02-eth0';
}

describe('the Azure host answers its platform addresses', () => {
  it('pod → IMDS: SNATed to the node IP by OutBoundNAT, answered; the reply comes back to the pod', async () => {
    const host = await aksNode();
    const pod = await aksPod(host);
    const r = host.trace({
      from: pod,
      to: '169.254.169.254',
      protocol: 'TCP',
      destinationPort: 80,
      reply: true,
    });
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe('platform:imds');
    // the packet IMDS sees comes from the node's primary IP
    expect(r.observations.some((o) => o.component === 'NAT' && o.action === 'SNAT')).toBe(true);
    const last = r.observations[r.observations.length - 1]!;
    expect(last).toMatchObject({
      component: 'Underlay',
      action: 'Delivered',
      rule: { kind: 'AzureHost', policy: 'Platform', name: 'imds', rule: '169.254.169.254 answers' },
    });
    expect(r.reply?.disposition).toBe('Delivered');
    const ep = await HcnClient.forHost(host).getEndpointByName(pod);
    expect(r.reply?.at).toBe(`endpoint:${ep.ID}`);
  });

  it('pod → IMDS without SNAT (169.254.169.254 in the ExceptionList): refused, only the primary IP is answered', async () => {
    const host = await aksNode();
    const pod = await aksPod(
      host,
      aksPluginConf(
        (p) =>
          (p['AdditionalArgs'] = [
            {
              Name: 'EndpointPolicy',
              Value: { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12', '169.254.169.254/32'] },
            },
          ]),
      ),
    );
    const r = host.trace({ from: pod, to: '169.254.169.254', protocol: 'TCP', destinationPort: 80 });
    expect(r.disposition).toBe('DeniedIn');
    expect(r.at).toBe('platform:imds');
    expect(r.observations[r.observations.length - 1]!.detail).toBe(
      "IMDS answers only the VM's primary IP (10.224.0.4), not 10.224.0.5",
    );
  });

  it("pod → wireserver: TCP 80 and 32526 denied by the conflist's ACLs on the way out, DNS answered", async () => {
    const host = await aksNode();
    const pod = await aksPod(host);
    for (const port of [80, 32526]) {
      const r = host.trace({ from: pod, to: '168.63.129.16', protocol: 'TCP', destinationPort: port });
      expect(r.disposition).toBe('DeniedOut');
      const denied = r.observations.find((o) => o.action === 'Denied')!;
      expect(denied.component).toBe('ACL');
    }
    const dns = host.trace({ from: pod, to: '168.63.129.16', protocol: 'UDP', destinationPort: 53 });
    expect(dns.disposition).toBe('Delivered');
    expect(dns.at).toBe('platform:wireserver');
  });

  it('node → wireserver TCP 80 and IMDS: answered (no ACL on the host); other wireserver ports refused', async () => {
    const host = await aksNode();
    expect(host.trace({ from: 'host', to: '168.63.129.16', protocol: 'TCP', destinationPort: 80 }).at).toBe(
      'platform:wireserver',
    );
    expect(
      host.trace({ from: 'host', to: '169.254.169.254', protocol: 'TCP', destinationPort: 80 }).disposition,
    ).toBe('Delivered');
    const other = host.trace({ from: 'host', to: '168.63.129.16', protocol: 'TCP', destinationPort: 443 });
    expect(other.disposition).toBe('DeniedIn');
    expect(other.observations[other.observations.length - 1]!.action).toBe('Refused');
  });

  it('off Azure, the same addresses leave the host as any outside address does', () => {
    const host = createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.224.0.4/16', gateway: '10.224.0.1' }],
    });
    const r = host.trace({ from: 'host', to: '169.254.169.254', protocol: 'TCP', destinationPort: 80 });
    expect(r.disposition).toBe('ExitsNetwork');
    expect(r.at).toBe('external:169.254.169.254');
  });
});

describe('a host snapshot keeps the Azure VM', () => {
  it('restored on a host built without it, the wireserver, IMDS and the NSG answer as before', async () => {
    const host = createHost({
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
            secondaryIps: ['10.224.0.5'],
            nsg: {
              name: 'n',
              rules: [
                {
                  name: 'no-out',
                  priority: 100,
                  direction: 'Outbound',
                  access: 'Deny',
                  protocol: '*',
                  destinationAddressPrefix: '1.1.1.1',
                },
              ],
            },
          },
        ],
      },
    });
    // the node IP moves to the switch's vNIC: the physical adapter has none left
    await addExtNetwork(host);
    const snap = JSON.parse(JSON.stringify(host.snapshot())) as unknown;
    const fresh = createHost({
      adapters: [
        {
          name: 'Ethernet',
          ipAddress: '10.224.0.4/16',
          gateway: '10.224.0.1',
          macAddress: '00-0D-3A-F9-DC-A6',
        },
      ],
    });
    const url = 'http://168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1';
    expect(() => fresh.platformGet(url)).toThrow(/i\/o timeout/);
    fresh.restore(snap);
    expect(fresh.platformGet(url)).toEqual(host.platformGet(url));
    expect(
      fresh.trace({ from: 'host', to: '169.254.169.254', protocol: 'TCP', destinationPort: 80 }).at,
    ).toBe('platform:imds');
    expect(
      fresh.trace({ from: 'host', to: '1.1.1.1', protocol: 'TCP', destinationPort: 443 }).disposition,
    ).toBe('DeniedOut');
  });

  it('a malformed azure in a snapshot is refused before anything changes', () => {
    const host = createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.224.0.4/16', gateway: '10.224.0.1' }],
    });
    const snap = {
      ...(JSON.parse(JSON.stringify(host.snapshot())) as object),
      azure: { nics: [{ adapter: 'Ethernet' }], addressSpace: [] },
    };
    const before = JSON.stringify(host.snapshot());
    expect(() => host.restore(snap)).toThrow('azure: snapshot: azure nic 0 is malformed');
    expect(JSON.stringify(host.snapshot())).toBe(before);
    expect(host.azure).toBeUndefined();
  });
});
