/**
 * The Azure VM around a node (src/host/azure.ts): the wireserver's interface document in the shape
 * of ACN v1.8.12 `cns/wireserver/testdata/interfaces.xml` (and `nmagent/client_test.go`'s
 * `000D3AF9DCA6` document), decoded as `common.XmlDocument` decodes it, and what a node reaches.
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { AzureVm } from '../../src/index.js';
import { decodeInterfaceDocument } from '../../src/plugins/azure-vnet-ipam/xml.js';
import { azureVnetIpam } from '../../src/plugins/azure-vnet-ipam/index.js';
import { pluginHost } from '../../src/cni/host.js';
import { referenceRegistry } from '../../src/plugins/index.js';
import { ipamConf, ipamEnv } from '../plugins/azure-vnet-ipam/kit.js';

const URL = 'http://168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1';

/** ACN cns/wireserver/testdata/interfaces.xml, verbatim. */
const UPSTREAM_TESTDATA = `<Interfaces>
    <Interface MacAddress="002248263DBD" IsPrimary="true">
        <IPSubnet Prefix="10.240.0.0/16">
            <IPAddress Address="10.240.0.4" IsPrimary="true"/>
        </IPSubnet>
    </Interface>
</Interfaces>
`;

function twoNicVm() {
  return createHost({
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '10.240.0.4/16',
        gateway: '10.240.0.1',
        macAddress: '00-22-48-26-3D-BD',
      },
      { name: 'Ethernet 2', ipAddress: '10.241.0.4/16', macAddress: '00:0d:3a:f9:dc:a6' },
    ],
    azure: {
      nics: [
        { adapter: 'Ethernet', secondaryIps: ['10.240.0.5', '10.240.0.6'] },
        { adapter: 'Ethernet 2', secondaryIps: ['10.241.0.9'] },
      ],
    },
  });
}

describe('the wireserver interface document', () => {
  it('has the upstream testdata shape for a NIC without secondary IPs', () => {
    const host = createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', macAddress: '00-22-48-26-3D-BD' }],
      azure: { nics: [{ adapter: 'Ethernet' }] },
    });
    expect(host.platformGet(URL)).toEqual({ status: 200, body: UPSTREAM_TESTDATA });
  });

  it('lists every NIC, the primary first, with its MAC in upper-case hex and each secondary IP', () => {
    const body = twoNicVm().platformGet(URL).body;
    expect(decodeInterfaceDocument(body)).toEqual([
      {
        macAddress: '002248263DBD',
        isPrimary: true,
        subnets: [
          {
            prefix: '10.240.0.0/16',
            addresses: [
              { address: '10.240.0.4', isPrimary: true },
              { address: '10.240.0.5', isPrimary: false },
              { address: '10.240.0.6', isPrimary: false },
            ],
          },
        ],
      },
      {
        macAddress: '000D3AF9DCA6',
        isPrimary: false,
        subnets: [
          {
            prefix: '10.241.0.0/16',
            addresses: [
              { address: '10.241.0.4', isPrimary: true },
              { address: '10.241.0.9', isPrimary: false },
            ],
          },
        ],
      },
    ]);
  });

  it('decodes as Go does: unknown elements skipped, booleans by strconv.ParseBool, the root checked', () => {
    const doc =
      '<?xml version="1.0"?><Interfaces><!-- c --><Other/><Interface MacAddress="*" IsPrimary="1">' +
      '<IPSubnet Prefix="10.0.0.0/16"><IPAddress Address="10.0.0.5" IsPrimary=" False "/><IPAddress Address="10.0.0.6"/>' +
      '</IPSubnet></Interface></Interfaces>';
    expect(decodeInterfaceDocument(doc)).toEqual([
      {
        macAddress: '*',
        isPrimary: true,
        subnets: [
          {
            prefix: '10.0.0.0/16',
            addresses: [
              { address: '10.0.0.5', isPrimary: false },
              { address: '10.0.0.6', isPrimary: false },
            ],
          },
        ],
      },
    ]);
    expect(() => decodeInterfaceDocument('<Foo/>')).toThrow(
      'expected element type <Interfaces> but have <Foo>',
    );
    expect(() => decodeInterfaceDocument('<Interfaces><Interface IsPrimary="yes"/></Interfaces>')).toThrow(
      'strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(() => decodeInterfaceDocument('<Interfaces><Interface>')).toThrow(/XML syntax error/);
  });
});

describe('what a node reaches', () => {
  it('another wireserver path is 404; IMDS on another port and a node that is not an Azure VM never answer', () => {
    const vm = twoNicVm();
    expect(vm.platformGet('http://168.63.129.16/machine/plugins?comp=nmagent&type=other')).toEqual({
      status: 404,
      body: '',
    });
    expect(() => vm.platformGet('http://169.254.169.254:8080/metadata/instance')).toThrow(
      'Get "http://169.254.169.254:8080/metadata/instance": dial tcp 169.254.169.254:8080: i/o timeout',
    );
    expect(() => createHost().platformGet(URL)).toThrow(
      `Get "${URL}": dial tcp 168.63.129.16:80: i/o timeout`,
    );
  });

  it('azure-vnet-ipam prefers a secondary NIC’s pool (priority 1), matched to the host interface by MAC', async () => {
    const out = await azureVnetIpam.exec(pluginHost(twoNicVm(), referenceRegistry()), {
      env: ipamEnv('ADD', 'a'),
      stdin: ipamConf({ cniVersion: '0.4.0' }),
    });
    expect(out.exitCode).toBe(0);
    expect((JSON.parse(out.stdout) as { ips: { address: string }[] }).ips[0]!.address).toBe('10.241.0.9/16');
  });
});

describe('createHost({ azure }) refuses a configuration Azure could not have', () => {
  const adapters = [{ name: 'Ethernet', ipAddress: '10.240.0.4/16' }];
  const bad = (nics: unknown, why: string) =>
    expect(() => createHost({ adapters, azure: { nics } as never })).toThrow(why);
  it('names the problem', () => {
    expect(() =>
      createHost({ adapters, azure: { nics: [{ adapter: 'Ethernet' }], vnet: 1 } as never }),
    ).toThrow('azure: unknown key "vnet" (nics, addressSpace, nmagentApis, compute)');
    expect(() =>
      createHost({ adapters, azure: { nics: [{ adapter: 'Ethernet' }], nmagentApis: 'x' } as never }),
    ).toThrow('azure: nmagentApis must be a list of API names');
    bad([], 'azure: a VM has at least one NIC');
    bad([null], 'azure: nic 0 must be an object');
    bad(
      [{ adapter: 'Ethernet', ips: [] }],
      'azure: nic 0: unknown key "ips" (adapter, secondaryIps, nsg, publicIp)',
    );
    bad([{ adapter: 7 }], 'azure: nic 0: adapter must be the name of a host adapter');
    bad([{ adapter: 'Ethernet', secondaryIps: '10.240.0.5' }], 'azure: nic 0: secondaryIps must be a list');
    bad([{ adapter: 'Ethernet 9' }], 'azure: nic 0: no host adapter "Ethernet 9"');
    bad(
      [{ adapter: 'Ethernet' }, { adapter: 'ethernet' }],
      'azure: nic 1: adapter "Ethernet" is named twice',
    );
    bad([{ adapter: 'Ethernet', secondaryIps: ['10.241.0.5'] }], "outside the NIC's subnet 10.240.0.0/16");
    bad(
      [{ adapter: 'Ethernet', secondaryIps: ['10.240.0.4'] }],
      'azure: nic 0: IP 10.240.0.4 is configured twice',
    );
    bad(
      [{ adapter: 'Ethernet', secondaryIps: ['fd00::5'] }],
      'azure: nic 0: secondary IP "fd00::5" is not an IPv4 address',
    );
  });
});

// NMAgent's GetSupportedApis on the wireserver (nmagent/responses.go SupportedAPIsResponseXML; the
// URL multitenant azure-vnet builds, cni/network/network.go buildNmAgentSupportedApisURL), and a
// snapshot keeping a VM's own list.
describe('the wireserver answers NMAgent’s supported APIs', () => {
  const url = 'http://168.63.129.16/machine/plugins/?comp=nmagent&type=GetSupportedApis';
  it('lists the VM’s APIs as NMAgent writes them, and a snapshot keeps a list of its own', () => {
    const adapters = [{ name: 'Ethernet', ipAddress: '10.240.0.4/16' }];
    const current = createHost({ adapters, azure: { nics: [{ adapter: 'Ethernet' }] } });
    expect(current.platformGet(url)).toEqual({
      status: 200,
      body: '<SupportedAPIsResponseXML><type>NetworkManagementSnatSupport</type><type>NetworkManagementDNSSupport</type></SupportedAPIsResponseXML>',
    });
    const old = createHost({ adapters, azure: { nics: [{ adapter: 'Ethernet' }], nmagentApis: [] } });
    expect(old.platformGet(url).body).toBe('<SupportedAPIsResponseXML></SupportedAPIsResponseXML>');
    const again = createHost({ adapters });
    again.restore(old.snapshot());
    expect(again.platformGet(url).body).toBe('<SupportedAPIsResponseXML></SupportedAPIsResponseXML>');
  });
});

describe('AzureVm as the package exports it (src/index.ts), for callers without createHost', () => {
  const spec = { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.240.0.5'] }] };
  const options = { adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16' }], azure: spec };
  // createHost's defaults (README): name node-1, seed 1
  const byCreateHost = createHost(options).azure!;

  it('parse and fromState without a host give the VM of a host with createHost’s defaults', () => {
    const adapters = createHost({ adapters: options.adapters }).hns.store.nics.physical();
    const parsed = AzureVm.parse(spec, adapters);
    expect(parsed.compute.name).toBe('node-1');
    expect(parsed.compute).toEqual(byCreateHost.compute);
    const { compute: _kept, ...old } = byCreateHost.toState();
    expect(AzureVm.fromState(old).compute).toEqual(byCreateHost.compute);
  });

  it('the constructor, called from JavaScript with the two arguments it once required, still fills the rest', () => {
    const Ctor = AzureVm as unknown as new (nics: unknown, addressSpace: unknown) => AzureVm;
    const vm = new Ctor(byCreateHost.nics, byCreateHost.addressSpace);
    // both names azure-vnet asks NMAgent for (ACN v1.8.12 cni/network/network.go
    // nmAgentSnatSupportAPI, nmAgentSnatAndDnsSupportAPI)
    expect(vm.nmagentApis).toEqual(['NetworkManagementSnatSupport', 'NetworkManagementDNSSupport']);
    expect(vm.compute).toEqual(byCreateHost.compute);
    expect(vm.toState()).toEqual(byCreateHost.toState());
  });
});
