/**
 * Azure IMDS over HTTP from the node (src/host/imds.ts). Every expected value is written out from
 * Microsoft's "Azure Instance Metadata Service" page (MicrosoftDocs/azure-compute-docs
 * articles/virtual-machines/instance-metadata-service.md, its include
 * imds-full-instance-response.md) or from the VM spec the test gives, never read from src/.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type HostOptions } from '../../src/host/host.js';
import { pluginHost } from '../../src/cni/host.js';
import { referenceRegistry } from '../../src/plugins/index.js';

const IMDS = 'http://169.254.169.254';
const META = { Metadata: 'true' };
const NEWEST = '2025-04-07';

/** The page's "Supported API versions", newest first as the page lists them. */
const DOC_VERSIONS_NEWEST_FIRST = (
  '2025-04-07 2024-07-17 2024-03-15 2023-11-15 2023-07-01 2021-12-13 2021-11-15 2021-11-01 2021-10-01 ' +
  '2021-08-01 2021-05-01 2021-03-01 2021-02-01 2021-01-01 2020-12-01 2020-10-01 2020-09-01 2020-07-15 ' +
  '2020-06-01 2019-11-01 2019-08-15 2019-08-01 2019-06-04 2019-06-01 2019-04-30 2019-03-11 2019-02-01 ' +
  '2018-10-01 2018-04-02 2018-02-01 2017-12-01 2017-10-01 2017-08-01 2017-04-02 2017-03-01'
).split(' ');

/**
 * The page's full sample response, as data: the include `imds-full-instance-response.md` of
 * MicrosoftDocs/azure-compute-docs `articles/virtual-machines/` (Windows tab; its text as stored in
 * the fork petersatsuse/azure-compute-docs at eb8e624, whose image reference matches the article's
 * Sample 4 in MicrosoftDocs/azure-compute-docs at 1dc6d3b).
 */
const DOC_FULL_SAMPLE = {
  compute: {
    azEnvironment: 'AZUREPUBLICCLOUD',
    additionalCapabilities: { hibernationEnabled: 'true' },
    hostGroup: { id: 'testHostGroupId' },
    extendedLocation: { type: 'edgeZone', name: 'microsoftlosangeles' },
    evictionPolicy: '',
    isHostCompatibilityLayerVm: 'true',
    licenseType: 'Windows_Client',
    location: 'westus',
    name: 'examplevmname',
    offer: 'WindowsServer',
    osProfile: {
      adminUsername: 'admin',
      computerName: 'examplevmname',
      disablePasswordAuthentication: 'true',
    },
    osType: 'Windows',
    placementGroupId: 'f67c14ab-e92c-408c-ae2d-da15866ec79a',
    plan: { name: 'planName', product: 'planProduct', publisher: 'planPublisher' },
    platformFaultDomain: '36',
    platformSubFaultDomain: '',
    platformUpdateDomain: '42',
    priority: 'Regular',
    publicKeys: [
      { keyData: 'ssh-rsa 0', path: '/home/user/.ssh/authorized_keys0' },
      { keyData: 'ssh-rsa 1', path: '/home/user/.ssh/authorized_keys1' },
    ],
    publisher: 'RDFE-Test-Microsoft-Windows-Server-Group',
    resourceGroupName: 'macikgo-test-may-23',
    resourceId:
      '/subscriptions/xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx/resourceGroups/macikgo-test-may-23/providers/Microsoft.Compute/virtualMachines/examplevmname',
    securityProfile: {
      secureBootEnabled: 'true',
      virtualTpmEnabled: 'false',
      encryptionAtHost: 'true',
      securityType: 'TrustedLaunch',
    },
    sku: '2019-Datacenter',
    storageProfile: {
      dataDisks: [
        {
          bytesPerSecondThrottle: '979202048',
          caching: 'None',
          createOption: 'Empty',
          diskCapacityBytes: '274877906944',
          diskSizeGB: '1024',
          image: { uri: '' },
          isSharedDisk: 'false',
          isUltraDisk: 'true',
          lun: '0',
          managedDisk: {
            id: '/subscriptions/xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx/resourceGroups/macikgo-test-may-23/providers/Microsoft.Compute/disks/exampledatadiskname',
            storageAccountType: 'StandardSSD_LRS',
          },
          name: 'exampledatadiskname',
          opsPerSecondThrottle: '65280',
          vhd: { uri: '' },
          writeAcceleratorEnabled: 'false',
        },
      ],
      imageReference: {
        id: '',
        offer: 'WindowsServer',
        publisher: 'MicrosoftWindowsServer',
        sku: '2019-Datacenter',
        version: 'latest',
        communityGalleryImageId: '/CommunityGalleries/testgallery/Images/1804Gen2/Versions/latest',
        sharedGalleryImageId: '/SharedGalleries/1P/Images/gen2/Versions/latest',
        exactVersion: '1.1686127202.30113',
      },
      osDisk: {
        caching: 'ReadWrite',
        createOption: 'FromImage',
        diskSizeGB: '30',
        diffDiskSettings: { option: 'Local' },
        encryptionSettings: {
          enabled: 'false',
          diskEncryptionKey: {
            sourceVault: {
              id: '/subscriptions/test-source-guid/resourceGroups/testrg/providers/Microsoft.KeyVault/vaults/test-kv',
            },
            secretUrl:
              'https://test-disk.vault.azure.net/secrets/xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx/xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx',
          },
          keyEncryptionKey: {
            sourceVault: {
              id: '/subscriptions/test-key-guid/resourceGroups/testrg/providers/Microsoft.KeyVault/vaults/test-kv',
            },
            keyUrl:
              'https://test-key.vault.azure.net/secrets/xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx/xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx',
          },
        },
        image: { uri: '' },
        managedDisk: {
          id: '/subscriptions/xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx/resourceGroups/macikgo-test-may-23/providers/Microsoft.Compute/disks/exampleosdiskname',
          storageAccountType: 'StandardSSD_LRS',
        },
        name: 'exampleosdiskname',
        osType: 'Windows',
        vhd: { uri: '' },
        writeAcceleratorEnabled: 'false',
      },
      resourceDisk: { size: '4096' },
    },
    subscriptionId: 'xxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxx',
    tags: 'baz:bash;foo:bar',
    userData: 'Zm9vYmFy',
    version: '15.05.22',
    virtualMachineScaleSet: {
      id: '/subscriptions/xxxxxxxx-xxxxx-xxx-xxx-xxxx/resourceGroups/resource-group-name/providers/Microsoft.Compute/virtualMachineScaleSets/virtual-machine-scale-set-name',
    },
    vmId: '02aab8a4-74ef-476e-8182-f6d2ba4166a6',
    vmScaleSetName: 'crpteste9vflji9',
    vmSize: 'Standard_A3',
    zone: '',
  },
  network: {
    interface: [
      {
        ipv4: {
          ipAddress: [{ privateIpAddress: '10.144.133.132', publicIpAddress: '' }],
          subnet: [{ address: '10.144.133.128', prefix: '26' }],
        },
        ipv6: { ipAddress: [] },
        macAddress: '0011AAFFBB22',
      },
    ],
  },
};

/**
 * `compute` fields the page has outside the full sample: Sample 4's `physicalZone` (its only key
 * the full sample lacks), and three rows of the schema table that no sample shows (`host.id`,
 * `provider`, `tagsList`, the last in "Sample 3: Get VM tags").
 */
const DOC_COMPUTE_BEYOND_SAMPLE = {
  physicalZone: 'useast-AZ01',
  host: { id: '' },
  provider: '',
  tagsList: [],
};

/**
 * The page's "Schema breakdown" turned round: what each api-version added under `compute`, every
 * field by its path down to a leaf (an array is a leaf). Rows: the Compute table; the image
 * reference table; the encryption settings table (the osDisk's `encryptionSettings`); the resource
 * disk table. The OS disk table has no version column, so its fields are written under
 * `storageProfile`'s 2019-06-01, as are `encryptionSettings.enabled` (the data disk table dates
 * `encryptionSettings` 2019-06-01) and `dataDisks`. `customData` is left out: "deprecated and
 * disabled in IMDS".
 */
const DOC_ADDED_IN: Readonly<Record<string, readonly string[]>> = {
  '2017-04-02': [
    'location',
    'name',
    'offer',
    'osType',
    'platformFaultDomain',
    'platformUpdateDomain',
    'publisher',
    'sku',
    'version',
    'vmId',
    'vmSize',
  ],
  '2017-08-01': ['placementGroupId', 'resourceGroupName', 'subscriptionId', 'tags'],
  '2017-12-01': ['vmScaleSetName', 'zone'],
  '2018-04-02': ['plan.name', 'plan.product', 'plan.publisher', 'publicKeys'],
  '2018-10-01': ['azEnvironment', 'provider'],
  '2019-03-11': ['resourceId'],
  '2019-06-01': [
    'storageProfile.dataDisks',
    'storageProfile.imageReference.id',
    'storageProfile.imageReference.offer',
    'storageProfile.imageReference.publisher',
    'storageProfile.imageReference.sku',
    'storageProfile.imageReference.version',
    'storageProfile.osDisk.caching',
    'storageProfile.osDisk.createOption',
    'storageProfile.osDisk.diskSizeGB',
    'storageProfile.osDisk.diffDiskSettings.option',
    'storageProfile.osDisk.encryptionSettings.enabled',
    'storageProfile.osDisk.image.uri',
    'storageProfile.osDisk.managedDisk.id',
    'storageProfile.osDisk.managedDisk.storageAccountType',
    'storageProfile.osDisk.name',
    'storageProfile.osDisk.osType',
    'storageProfile.osDisk.vhd.uri',
    'storageProfile.osDisk.writeAcceleratorEnabled',
  ],
  '2019-06-04': ['tagsList'],
  '2020-06-01': [
    'isHostCompatibilityLayerVm',
    'securityProfile.secureBootEnabled',
    'securityProfile.virtualTpmEnabled',
  ],
  '2020-07-15': ['osProfile.adminUsername', 'osProfile.computerName'],
  '2020-09-01': ['licenseType'],
  '2020-10-01': ['osProfile.disablePasswordAuthentication'],
  '2020-12-01': ['evictionPolicy', 'priority'],
  '2021-01-01': ['userData'],
  '2021-02-01': ['storageProfile.resourceDisk.size'],
  '2021-03-01': ['extendedLocation.type', 'extendedLocation.name', 'virtualMachineScaleSet.id'],
  '2021-10-01': ['platformSubFaultDomain'],
  '2021-11-01': [
    'additionalCapabilities.hibernationEnabled',
    'securityProfile.encryptionAtHost',
    'storageProfile.osDisk.encryptionSettings.diskEncryptionKey.sourceVault.id',
    'storageProfile.osDisk.encryptionSettings.diskEncryptionKey.secretUrl',
    'storageProfile.osDisk.encryptionSettings.keyEncryptionKey.sourceVault.id',
    'storageProfile.osDisk.encryptionSettings.keyEncryptionKey.keyUrl',
  ],
  '2021-11-15': ['host.id', 'hostGroup.id'],
  '2021-12-13': ['securityProfile.securityType'],
  '2023-07-01': [
    'storageProfile.imageReference.communityGalleryImageId',
    'storageProfile.imageReference.sharedGalleryImageId',
    'storageProfile.imageReference.exactVersion',
  ],
  '2023-11-15': ['physicalZone'],
};

/** Every path from `v` down to a leaf (a string or an array), sorted. */
function leafPaths(v: unknown, at = '', out: string[] = []): string[] {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) leafPaths(x, at === '' ? k : `${at}.${k}`, out);
  } else {
    out.push(at);
  }
  return out.sort();
}

/** Every key of `sample` is in `ours` with the same kind (string, array, object), recursively. */
function expectShape(ours: unknown, sample: unknown, at = '$'): void {
  const kind = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  expect(kind(ours), at).toBe(kind(sample));
  if (Array.isArray(sample)) {
    const list = ours as unknown[];
    if (sample.length > 0 && list.length > 0) expectShape(list[0], sample[0], `${at}[0]`);
  } else if (typeof sample === 'object' && sample !== null) {
    for (const [k, v] of Object.entries(sample)) {
      expect(Object.keys(ours as object), `${at}.${k}`).toContain(k);
      expectShape((ours as Record<string, unknown>)[k], v, `${at}.${k}`);
    }
  }
}

function leaves(v: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(v)) v.forEach((x) => leaves(x, out));
  else if (typeof v === 'object' && v !== null) Object.values(v).forEach((x) => leaves(x, out));
  else out.push(v);
  return out;
}

const ADAPTERS: HostOptions['adapters'] = [
  { name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1', macAddress: '00-22-48-26-3D-BD' },
  { name: 'Ethernet 2', ipAddress: '10.241.0.4/24', macAddress: '00:0d:3a:f9:dc:a6' },
];

function vm(extra: Partial<HostOptions> = {}) {
  return createHost({
    name: 'akswin000000',
    seed: 9,
    adapters: ADAPTERS,
    azure: {
      nics: [
        { adapter: 'Ethernet', secondaryIps: ['10.240.0.5', '10.240.0.6'], publicIp: '20.30.40.50' },
        { adapter: 'Ethernet 2', secondaryIps: ['10.241.0.9'] },
      ],
      compute: {
        name: 'aksnpwin000000',
        location: 'westeurope',
        vmId: '5C08B38E-4D57-4C23-AC45-ACA61037F084',
        vmSize: 'Standard_D4s_v3',
        resourceGroupName: 'MC_rg_aks_westeurope',
        subscriptionId: '{11111111-2222-3333-4444-555555555555}',
        zone: '2',
        tags: { Department: 'IT', ReferenceNumber: '123456', TestStatus: 'Pending' },
      },
    },
    ...extra,
  });
}

const get = (host: ReturnType<typeof createHost>, path: string, headers: Record<string, string> = META) =>
  host.platformGet(`${IMDS}${path}`, headers);
const json = (r: { status: number; body: string }) => JSON.parse(r.body) as Record<string, unknown>;

describe('IMDS /metadata/instance', () => {
  it('has the keys and shapes of the documented sample, every primitive a string', () => {
    const r = get(vm(), `/metadata/instance?api-version=${NEWEST}`);
    expect(r.status).toBe(200);
    const doc = json(r);
    expect(Object.keys(doc)).toEqual(['compute', 'network']);
    expectShape(doc['compute'], { ...DOC_FULL_SAMPLE.compute, ...DOC_COMPUTE_BEYOND_SAMPLE }, 'compute');
    expectShape(doc['network'], DOC_FULL_SAMPLE.network, 'network');
    // and nothing the page does not have
    expect(leafPaths(doc['compute'])).toEqual(
      leafPaths({ ...DOC_FULL_SAMPLE.compute, ...DOC_COMPUTE_BEYOND_SAMPLE }),
    );
    // "In json responses, all primitives will be of type string"
    expect(leaves(doc).every((x) => typeof x === 'string')).toBe(true);
    // "The response is a JSON string … pretty-printed for readability" in the page: compact on the wire
    expect(r.body).not.toContain('\n');
  });

  it('network.interface[] is the VM’s NICs: MAC as IMDS writes it, each IP configuration, the subnet', () => {
    const r = get(vm(), `/metadata/instance/network?api-version=${NEWEST}`);
    expect(json(r)).toEqual({
      interface: [
        {
          ipv4: {
            ipAddress: [
              { privateIpAddress: '10.240.0.4', publicIpAddress: '20.30.40.50' },
              { privateIpAddress: '10.240.0.5', publicIpAddress: '' },
              { privateIpAddress: '10.240.0.6', publicIpAddress: '' },
            ],
            subnet: [{ address: '10.240.0.0', prefix: '16' }],
          },
          ipv6: { ipAddress: [] },
          macAddress: '002248263DBD',
        },
        {
          ipv4: {
            ipAddress: [
              { privateIpAddress: '10.241.0.4', publicIpAddress: '' },
              { privateIpAddress: '10.241.0.9', publicIpAddress: '' },
            ],
            subnet: [{ address: '10.241.0.0', prefix: '24' }],
          },
          ipv6: { ipAddress: [] },
          macAddress: '000D3AF9DCA6',
        },
      ],
    });
  });

  it('compute carries the VM spec: GUIDs lower-case, osType Windows, the ARM resource id, tags both ways', () => {
    const c = json(get(vm(), `/metadata/instance/compute?api-version=${NEWEST}`));
    expect(c).toMatchObject({
      name: 'aksnpwin000000',
      location: 'westeurope',
      vmId: '5c08b38e-4d57-4c23-ac45-aca61037f084',
      vmSize: 'Standard_D4s_v3',
      osType: 'Windows',
      resourceGroupName: 'MC_rg_aks_westeurope',
      subscriptionId: '11111111-2222-3333-4444-555555555555',
      zone: '2',
      resourceId:
        '/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/MC_rg_aks_westeurope/providers/Microsoft.Compute/virtualMachines/aksnpwin000000',
      osProfile: { computerName: 'aksnpwin000000' },
      // the page's "Sample 3: Get VM tags", both forms
      tags: 'Department:IT;ReferenceNumber:123456;TestStatus:Pending',
      tagsList: [
        { name: 'Department', value: 'IT' },
        { name: 'ReferenceNumber', value: '123456' },
        { name: 'TestStatus', value: 'Pending' },
      ],
    });
  });

  it('each api-version serves the compute fields the page dates to it or before, nested ones too', () => {
    // the transcribed table covers the documented fields, no more, no less
    expect(Object.values(DOC_ADDED_IN).flat().sort()).toEqual(
      leafPaths({ ...DOC_FULL_SAMPLE.compute, ...DOC_COMPUTE_BEYOND_SAMPLE }),
    );
    const host = vm();
    const since: string[] = [];
    // from 2017-04-02, when /metadata/instance came ("Endpoint categories")
    for (const v of [...DOC_VERSIONS_NEWEST_FIRST].reverse().slice(1)) {
      since.push(...(DOC_ADDED_IN[v] ?? []));
      const r = get(host, `/metadata/instance?api-version=${v}`);
      expect(r.status, v).toBe(200);
      expect(leafPaths(json(r)['compute']), v).toEqual([...since].sort());
      // network is the same at every version
      expect(json(r)['network'], v).toEqual(
        json(get(host, `/metadata/instance/network?api-version=${NEWEST}`)),
      );
    }
  });

  it('a field newer than the version is not there by its route either; the category needs 2017-04-02', () => {
    const host = vm();
    const text = (path: string, v: string) =>
      get(host, `/metadata/instance/compute/${path}?api-version=${v}&format=text`);
    expect(text('securityProfile/encryptionAtHost', '2020-06-01').status).toBe(404);
    expect(text('securityProfile/encryptionAtHost', '2021-11-01')).toEqual({ status: 200, body: 'false' });
    expect(text('securityProfile/securityType', '2021-11-01').status).toBe(404);
    expect(text('osProfile/disablePasswordAuthentication', '2020-07-15').status).toBe(404);
    expect(text('osProfile/computerName', '2020-07-15')).toEqual({ status: 200, body: 'aksnpwin000000' });
    expect(text('osProfile', '2020-06-01').status).toBe(404);
    expect(text('storageProfile/imageReference/exactVersion', '2021-12-13').status).toBe(404);
    expect(text('storageProfile/osDisk/encryptionSettings/diskEncryptionKey', '2021-10-01').status).toBe(404);
    expect(text('host/id', '2021-11-15')).toEqual({ status: 200, body: '' });
    // 2017-03-01 is a version the page lists, but /metadata/instance is dated 2017-04-02
    for (const p of ['', '/compute', '/compute/vmId', '/network']) {
      const r = get(host, `/metadata/instance${p}?api-version=2017-03-01&format=text`);
      expect(r.status, p).toBe(400);
      expect(json(r)['newest-versions'], p).toEqual(['2025-04-07', '2024-07-17', '2024-03-15']);
    }
  });
});

describe('IMDS route parameters and formats', () => {
  it('walks keys and indexes; a leaf needs format=text and comes back as its bare value', () => {
    const host = vm();
    // "Sample 1: Tracking VM running on Azure"
    expect(get(host, `/metadata/instance/compute/vmId?api-version=${NEWEST}&format=text`)).toEqual({
      status: 200,
      body: '5c08b38e-4d57-4c23-ac45-aca61037f084',
    });
    // "Sample 7: Retrieve public IP address"
    const pub = `/metadata/instance/network/interface/0/ipv4/ipAddress/0/publicIpAddress?api-version=${NEWEST}`;
    expect(get(host, `${pub}&format=text`)).toEqual({ status: 200, body: '20.30.40.50' });
    expect(get(host, `/metadata/instance/compute/tags?api-version=${NEWEST}&format=text`).body).toBe(
      'Department:IT;ReferenceNumber:123456;TestStatus:Pending',
    );
    // a leaf in json (the default, or asked for) is 400 ("Errors and debugging")
    for (const q of [pub, `${pub}&format=json`]) {
      const r = get(host, q);
      expect(r.status).toBe(400);
      expect(typeof json(r)['error']).toBe('string');
    }
    // the page's "Route parameters" example: one interface, as the whole document has it
    const one = json(get(host, `/metadata/instance/network/interface/1?api-version=${NEWEST}`));
    expect(one['macAddress']).toBe('000D3AF9DCA6');
  });

  it('an element that does not exist is 404, keys are case-sensitive, other categories are not served', () => {
    const host = vm();
    for (const p of [
      '/metadata/instance/compute/nothing',
      '/metadata/instance/Compute',
      '/metadata/instance/network/interface/2',
      '/metadata/instance/network/interface/01',
      '/metadata/attested/document',
      '/metadata/other',
    ]) {
      const r = get(host, `${p}?api-version=${NEWEST}`);
      expect(r.status, p).toBe(404);
      expect(typeof json(r)['error']).toBe('string');
    }
  });

  it('rejects duplicate query parameter names and verbs other than GET', () => {
    const host = vm();
    expect(get(host, `/metadata/instance?api-version=${NEWEST}&api-version=${NEWEST}`).status).toBe(400);
    const post = host.httpRequest('POST', `${IMDS}/metadata/instance?api-version=${NEWEST}`, '', META);
    expect(post.status).toBe(405);
  });
});

describe('IMDS request rules', () => {
  it('without Metadata: true it is 400 "Required metadata header not specified" (the page’s FAQ)', () => {
    const host = vm();
    const expected = { status: 400, body: '{"error":"Bad request. Required metadata header not specified"}' };
    expect(get(host, `/metadata/instance?api-version=${NEWEST}`, {})).toEqual(expected);
    expect(get(host, `/metadata/instance?api-version=${NEWEST}`, { Metadata: 'false' })).toEqual(expected);
    expect(host.platformGet(`${IMDS}/metadata/versions`)).toEqual(expected);
    // header names are case-insensitive; the page's attested sample sends "Metadata:True"
    expect(get(host, `/metadata/instance?api-version=${NEWEST}`, { metadata: 'True' }).status).toBe(200);
  });

  it('a request with X-Forwarded-For is rejected even with the header', () => {
    const r = get(vm(), `/metadata/instance?api-version=${NEWEST}`, {
      ...META,
      'X-Forwarded-For': '10.0.0.9',
    });
    expect(r.status).toBe(400);
    expect(typeof json(r)['error']).toBe('string');
  });

  it('a missing or unsupported api-version gets the documented error with the three newest versions', () => {
    const documented = {
      error:
        'Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds',
      'newest-versions': ['2025-04-07', '2024-07-17', '2024-03-15'],
    };
    const host = vm();
    for (const q of ['', '?api-version=2016-01-01', '?format=json', '?api-version=latest']) {
      const r = get(host, `/metadata/instance/compute${q}`);
      expect(r.status, q).toBe(400);
      expect(json(r)).toEqual(documented);
    }
    // every listed version from the category's 2017-04-02 on
    for (const v of DOC_VERSIONS_NEWEST_FIRST.filter((x) => x >= '2017-04-02'))
      expect(get(host, `/metadata/instance?api-version=${v}`).status, v).toBe(200);
  });

  it('/metadata/versions is unversioned and lists the supported versions', () => {
    const r = get(vm(), '/metadata/versions');
    expect(r.status).toBe(200);
    // oldest first, as the page's example response begins ("2017-03-01", "2017-04-02", …)
    expect(json(r)).toEqual({ apiVersions: [...DOC_VERSIONS_NEWEST_FIRST].reverse() });
  });
});

describe('where IMDS answers', () => {
  it('off Azure, or on another port, nothing answers: Go’s client times out', () => {
    const url = `${IMDS}/metadata/instance?api-version=${NEWEST}`;
    expect(() => createHost().platformGet(url, META)).toThrow(
      `Get "${url}": dial tcp 169.254.169.254:80: i/o timeout`,
    );
    expect(() => createHost().httpRequest('GET', url, '', META)).toThrow(
      'dial tcp 169.254.169.254:80: i/o timeout',
    );
    expect(() => createHost().httpRequest('POST', url, '', META)).toThrow(`Post "${url}"`);
    expect(() => vm().platformGet(`http://169.254.169.254:81/metadata/versions`, META)).toThrow(
      'dial tcp 169.254.169.254:81: i/o timeout',
    );
  });

  it('the URL is read as Go reads it: any-case scheme, the fragment not sent; https dials port 443', () => {
    const host = vm();
    const q = `/metadata/instance/compute/name?api-version=${NEWEST}&format=text`;
    const answer = { status: 200, body: 'aksnpwin000000' };
    expect(host.platformGet(`HTTP://169.254.169.254${q}`, META)).toEqual(answer);
    expect(host.platformGet(`Http://169.254.169.254:80${q}#frag`, META)).toEqual(answer);
    expect(host.httpRequest('GET', `${IMDS}${q}#/x?y`, '', META)).toEqual(answer);
    // IMDS and the wireserver listen on plain HTTP port 80 only (Go's client dials 443 for https)
    expect(() => host.platformGet(`https://169.254.169.254${q}`, META)).toThrow(
      `Get "https://169.254.169.254${q}": dial tcp 169.254.169.254:443: i/o timeout`,
    );
    expect(() => host.platformGet(`HTTPS://169.254.169.254/metadata/versions`, META)).toThrow(
      'Get "https://169.254.169.254/metadata/versions": dial tcp 169.254.169.254:443: i/o timeout',
    );
    const wire = '168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1';
    expect(host.platformGet(`HTTP://${wire}#x`).status).toBe(200);
    expect(() => host.platformGet(`https://${wire}`)).toThrow(
      `Get "https://${wire}": dial tcp 168.63.129.16:443: i/o timeout`,
    );
    // what Go's client refuses before dialling (net/http: unsupported protocol scheme, no Host)
    expect(() => host.platformGet('169.254.169.254/metadata/versions', META)).toThrow(
      'Get "169.254.169.254/metadata/versions": unsupported protocol scheme ""',
    );
    expect(() => host.platformGet('http:///metadata/versions', META)).toThrow(
      'Get "http:///metadata/versions": http: no Host in request URL',
    );
  });

  it('a CNI plugin’s process reaches it through PluginHost, headers passed on', () => {
    const ph = pluginHost(vm(), referenceRegistry()) as Required<ReturnType<typeof pluginHost>>;
    const url = `${IMDS}/metadata/instance/compute/name?api-version=${NEWEST}&format=text`;
    expect(ph.httpRequest('GET', url, '', META)).toEqual({ status: 200, body: 'aksnpwin000000' });
    expect(ph.platformGet(url, META)).toEqual({ status: 200, body: 'aksnpwin000000' });
    expect(ph.httpRequest('GET', url).status).toBe(400);
  });
});

describe('IMDS is deterministic', () => {
  const plain = (seed: number, name = 'node-a') =>
    createHost({ name, seed, adapters: [ADAPTERS[0]!], azure: { nics: [{ adapter: 'Ethernet' }] } });
  const vmId = (h: ReturnType<typeof createHost>) =>
    get(h, `/metadata/instance/compute/vmId?api-version=${NEWEST}&format=text`).body;

  it('a vmId not given comes from the host’s seed and name: a lower-case GUID, the same every run', () => {
    expect(vmId(plain(4))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(vmId(plain(4))).toBe(vmId(plain(4)));
    expect(vmId(plain(4))).not.toBe(vmId(plain(5)));
    expect(vmId(plain(4))).not.toBe(vmId(plain(4, 'node-b')));
    const all = `/metadata/instance?api-version=${NEWEST}`;
    expect(get(plain(4), all).body).toBe(get(plain(4), all).body);
    // the defaults' name is the host's
    expect(get(plain(4), `/metadata/instance/compute/name?api-version=${NEWEST}&format=text`).body).toBe(
      'node-a',
    );
  });

  it('a snapshot keeps the VM’s fields: a restored host answers byte for byte the same', () => {
    const all = `/metadata/instance?api-version=${NEWEST}`;
    for (const from of [vm(), plain(4)]) {
      const again = createHost({ name: 'elsewhere', seed: 77, adapters: [ADAPTERS[0]!] });
      again.restore(from.snapshot());
      expect(get(again, all)).toEqual(get(from, all));
    }
  });
});

describe('a compute spec Azure could not have is refused', () => {
  const adapters = [{ name: 'Ethernet', ipAddress: '10.240.0.4/16' }];
  const bad = (compute: unknown, why: string) =>
    expect(() =>
      createHost({ adapters, azure: { nics: [{ adapter: 'Ethernet' }], compute } as never }),
    ).toThrow(why);
  it('names the problem', () => {
    bad('x', 'azure: compute must be an object');
    bad({ size: 'x' }, 'azure: compute: unknown key "size"');
    bad({ vmId: 'abc' }, 'azure: compute: vmId must be a GUID, got "abc"');
    bad({ subscriptionId: 7 }, 'azure: compute: subscriptionId must be a GUID, got 7');
    bad({ name: '' }, 'azure: compute: name must be a non-empty string');
    bad({ tags: { a: 1 } }, 'azure: compute: tags must be an object of tag name → string value');
    expect(() =>
      createHost({ adapters, azure: { nics: [{ adapter: 'Ethernet', publicIp: 'x' }] } as never }),
    ).toThrow('azure: nic 0: publicIp "x" is not an IPv4 address');
  });

  it('a snapshot with a malformed compute changes nothing', () => {
    const host = vm();
    const before = host.snapshot();
    const snap = JSON.parse(JSON.stringify(before)) as { azure: { compute: { vmId: string } } };
    snap.azure.compute.vmId = 'nope';
    expect(() => host.restore(snap)).toThrow('azure: snapshot: compute: vmId must be a GUID, got "nope"');
    expect(host.snapshot()).toEqual(before);
  });
});
