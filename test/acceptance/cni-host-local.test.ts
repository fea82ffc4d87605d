// Every case of containernetworking/plugins @3d27709f (v1.9.1) plugins/ipam/host-local/
// host_local_test.go ("host-local Operations", run for each of testutils.AllSpecVersions) and
// dns_test.go ("parsing resolv.conf"), translated. host_local_test.go is Windows-aware (it builds the
// IPv6 file name with disk.GetEscapedPath, which turns ':' into '_' on Windows), and every case
// applies. Go calls cmdAdd/cmdDel directly; here the plugin runs through its skeleton (as a runtime
// runs it) except where the test needs a container ID skel would refuse ("ignores whitespace").
import { describe, expect, it } from 'vitest';
import { parseResult } from '../../src/cni/result.js';
import type { CniResult, CniRoute } from '../../src/cni/contracts.js';
import { cmdAdd, cmdDel, parseResolvConf } from '../../src/plugins/host-local/index.js';
import { direct, doc, exec, node, type Node } from '../plugins/host-local/helpers.js';

/** testutils.AllSpecVersions. */
const ALL_SPEC_VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'];
/** testutils.SpecVersionHasIPVersion. */
const hasIPVersion = (v: string): boolean => ['0.3.0', '0.3.1', '0.4.0'].includes(v);
/** testutils.SpecVersionHasMultipleIPs (>= 0.3.0). */
const hasMultipleIPs = (v: string): boolean => !['0.1.0', '0.2.0'].includes(v);

const LINE_BREAK = '\r\n';
const IFNAME = 'eth0';
/** os.MkdirTemp + filepath.ToSlash. */
const TMP = 'C:/Users/runner/AppData/Local/Temp/host-local_test';

/** testutils.CmdAddWithArgs: run ADD, then read the result at the config's version (types100.GetResult). */
async function cmdAddWithArgs(
  n: Node,
  conf: string,
  ver: string,
  inv: { containerID?: string; ifName?: string } = {},
): Promise<{ result?: CniResult; raw: string; error?: string }> {
  const out = await exec(n, 'ADD', conf, inv);
  if (out.exitCode !== 0) return { raw: out.stdout, error: String(doc(out)['msg']) };
  return { result: parseResult(JSON.parse(out.stdout), ver), raw: out.stdout };
}

/** testutils.CmdDelWithArgs. */
async function cmdDelWithArgs(n: Node, conf: string, inv: { containerID?: string; ifName?: string } = {}) {
  const out = await exec(n, 'DEL', conf, inv);
  return out.exitCode === 0 ? undefined : String(doc(out)['msg']);
}

function writeResolvConf(n: Node): void {
  n.host.files.write(`${TMP}/resolv.conf`, 'nameserver 192.0.2.3');
}

/** Route.String() equality as the Go test compares routes: dst and gw (the rest are zero). */
const sameRoute = (a: CniRoute, b: CniRoute): boolean => a.dst === b.dst && (a.gw ?? '') === (b.gw ?? '');

describe('host_local_test.go: host-local Operations', () => {
  for (const ver of ALL_SPEC_VERSIONS) {
    it(`[${ver}] allocates and releases addresses with ADD/DEL`, async () => {
      const n = node();
      writeResolvConf(n);
      const conf = `{
			"cniVersion": "${ver}",
			"name": "mynet",
			"type": "ipvlan",
			"master": "foo0",
				"ipam": {
					"type": "host-local",
					"dataDir": "${TMP}",
					"resolvConf": "${TMP}/resolv.conf",
					"ranges": [
						[{ "subnet": "10.1.2.0/24" }, {"subnet": "10.2.2.0/24"}],
						[{ "subnet": "2001:db8:1::0/64" }]
					],
					"routes": [
						{"dst": "0.0.0.0/0"},
						{"dst": "::/0"},
						{"dst": "192.168.0.0/16", "gw": "1.1.1.1"},
						{"dst": "2001:db8:2::0/64", "gw": "2001:db8:3::1"}
					]
				}
			}`;
      const r = await cmdAddWithArgs(n, conf, ver);
      expect(r.error).toBeUndefined();
      if (hasIPVersion(ver)) expect(r.raw.indexOf('"version":')).toBeGreaterThan(0);
      const result = r.result!;
      expect(result.ips![0]).toMatchObject({ address: '10.1.2.2/24', gateway: '10.1.2.1' });
      expect(result.ips![1]).toMatchObject({ address: '2001:db8:1::2/64', gateway: '2001:db8:1::1' });
      expect(result.ips).toHaveLength(2);
      for (const want of [
        { dst: '0.0.0.0/0' },
        { dst: '::/0' },
        { dst: '192.168.0.0/16', gw: '1.1.1.1' },
        { dst: '2001:db8:2::/64', gw: '2001:db8:3::1' },
      ]) {
        expect(
          result.routes!.some((got) => sameRoute(got, want)),
          JSON.stringify(want),
        ).toBe(true);
      }

      const ipFilePath1 = `${TMP}/mynet/10.1.2.2`;
      expect(n.host.files.read(ipFilePath1)).toBe(`dummy${LINE_BREAK}${IFNAME}`);
      // disk.GetEscapedPath("mynet", "2001:db8:1::2") on Windows
      const ipFilePath2 = `${TMP}/mynet/2001_db8_1__2`;
      expect(n.host.files.read(ipFilePath2)).toBe(`dummy${LINE_BREAK}${IFNAME}`);
      expect(n.host.files.read(`${TMP}/mynet/last_reserved_ip.0`)).toBe('10.1.2.2');
      expect(n.host.files.read(`${TMP}/mynet/last_reserved_ip.1`)).toBe('2001:db8:1::2');

      expect(await cmdDelWithArgs(n, conf)).toBeUndefined();
      expect(n.host.files.exists(ipFilePath1)).toBe(false);
      expect(n.host.files.exists(ipFilePath2)).toBe(false);
    });

    it(`[${ver}] allocates and releases addresses on specific interface with ADD/DEL`, async () => {
      const n = node();
      writeResolvConf(n);
      const ifname1 = 'eth1';
      const conf = (name: string, subnet: string, master: string): string => `{
				"cniVersion": "${ver}",
				"name": "${name}",
				"type": "ipvlan",
				"master": "${master}",
					"ipam": {
						"type": "host-local",
						"dataDir": "${TMP}",
						"resolvConf": "${TMP}/resolv.conf",
						"ranges": [
							[{ "subnet": "${subnet}" }]
						]
					}
			}`;
      const conf0 = conf('mynet0', '10.1.2.0/24', 'foo0');
      const conf1 = conf('mynet1', '10.2.2.0/24', 'foo1');

      const r0 = await cmdAddWithArgs(n, conf0, ver);
      expect(r0.error).toBeUndefined();
      if (hasIPVersion(ver)) expect(r0.raw.indexOf('"version":')).toBeGreaterThan(0);
      const r1 = await cmdAddWithArgs(n, conf1, ver, { ifName: ifname1 });
      expect(r1.error).toBeUndefined();
      if (hasIPVersion(ver)) expect(r1.raw.indexOf('"version":')).toBeGreaterThan(0);

      const ipFilePath0 = `${TMP}/mynet0/10.1.2.2`;
      expect(n.host.files.read(ipFilePath0)).toBe(`dummy${LINE_BREAK}${IFNAME}`);
      const ipFilePath1 = `${TMP}/mynet1/10.2.2.2`;
      expect(n.host.files.read(ipFilePath1)).toBe(`dummy${LINE_BREAK}${ifname1}`);

      // release the IP on ifname
      expect(await cmdDelWithArgs(n, conf0)).toBeUndefined();
      expect(n.host.files.exists(ipFilePath0)).toBe(false);
      // reread ipFilePath1, ensure that ifname1 didn't get deleted
      expect(n.host.files.read(ipFilePath1)).toBe(`dummy${LINE_BREAK}${ifname1}`);
      // release the IP on ifname1
      expect(await cmdDelWithArgs(n, conf1, { ifName: ifname1 })).toBeUndefined();
      expect(n.host.files.exists(ipFilePath1)).toBe(false);
    });

    it(`[${ver}] repeat allocating addresses on specific interface for same container ID with ADD`, async () => {
      const n = node();
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet0",
				"type": "ipvlan",
				"master": "foo0",
					"ipam": {
						"type": "host-local",
						"dataDir": "${TMP}",
						"ranges": [
							[{ "subnet": "10.1.2.0/24" }]
						]
					}
			}`;
      const r0 = await cmdAddWithArgs(n, conf, ver);
      expect(r0.error).toBeUndefined();
      if (hasIPVersion(ver)) expect(r0.raw.indexOf('"version":')).toBeGreaterThan(0);
      expect(r0.result!.ips).toHaveLength(1);
      expect(r0.result!.ips![0]!.address).toBe('10.1.2.2/24');

      // the same container ID again
      expect((await cmdAddWithArgs(n, conf, ver)).error).toBeDefined();

      // another container ID
      const r1 = await cmdAddWithArgs(n, conf, ver, { containerID: 'dummy1' });
      expect(r1.error).toBeUndefined();
      if (hasIPVersion(ver)) expect(r1.raw.indexOf('"version":')).toBeGreaterThan(0);
      expect(r1.result!.ips).toHaveLength(1);
      expect(r1.result!.ips![0]!.address).toBe('10.1.2.3/24');

      // the same container ID again
      expect((await cmdAddWithArgs(n, conf, ver)).error).toBeDefined();

      const ipFilePath = `${TMP}/mynet0/10.1.2.2`;
      expect(await cmdDelWithArgs(n, conf)).toBeUndefined();
      expect(n.host.files.exists(ipFilePath)).toBe(false);
      expect(await cmdDelWithArgs(n, conf, { containerID: 'dummy1' })).toBeUndefined();
    });

    it(`[${ver}] verify DEL works on backwards compatible allocate`, async () => {
      const n = node();
      writeResolvConf(n);
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo",
					"ipam": {
						"type": "host-local",
						"dataDir": "${TMP}",
						"resolvConf": "${TMP}/resolv.conf",
						"ranges": [
							[{ "subnet": "10.1.2.0/24" }]
						]
					}
			}`;
      const r = await cmdAddWithArgs(n, conf, ver);
      expect(r.error).toBeUndefined();
      if (hasIPVersion(ver)) expect(r.raw.indexOf('"version":')).toBeGreaterThan(0);
      const ipFilePath = `${TMP}/mynet/10.1.2.2`;
      expect(n.host.files.read(ipFilePath)).toBe(`dummy${LINE_BREAK}${IFNAME}`);
      // the format of older versions: the container ID alone
      n.host.files.write(ipFilePath, 'dummy');
      expect(await cmdDelWithArgs(n, conf)).toBeUndefined();
      expect(n.host.files.exists(ipFilePath)).toBe(false);
    });

    it(`[${ver}] doesn't error when passed an unknown ID on DEL`, async () => {
      const n = node();
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo0",
				"ipam": {
					"type": "host-local",
					"subnet": "10.1.2.0/24",
					"dataDir": "${TMP}"
				}
			}`;
      expect(await cmdDelWithArgs(n, conf)).toBeUndefined();
    });

    it(`[${ver}] ignores whitespace in disk files`, async () => {
      const n = node();
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo0",
				"ipam": {
					"type": "host-local",
					"subnet": "10.1.2.0/24",
					"dataDir": "${TMP}"
				}
			}`;
      const containerID = '   dummy\n ';
      const add = await direct(n, cmdAdd, conf, { containerID });
      expect(add.error).toBeUndefined();
      const result = parseResult(JSON.parse(add.stdout), ver);
      const ipFilePath = `${TMP}/mynet/${result.ips![0]!.address.split('/')[0]!}`;
      expect(n.host.files.read(ipFilePath)).toBe(`dummy${LINE_BREAK}${IFNAME}`);
      expect((await direct(n, cmdDel, conf, { containerID })).error).toBeUndefined();
      expect(n.host.files.exists(ipFilePath)).toBe(false);
    });

    it(`[${ver}] does not output an error message upon initial subnet creation`, async () => {
      const n = node();
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo0",
				"ipam": {
					"type": "host-local",
					"subnet": "10.1.2.0/24",
					"dataDir": "${TMP}"
				}
			}`;
      const out = await exec(n, 'ADD', conf, { containerID: 'testing' });
      expect(out.exitCode).toBe(0);
      expect(out.stdout.indexOf('Error retrieving last reserved ip')).toBe(-1);
      expect(out.stderr.indexOf('Error retrieving last reserved ip')).toBe(-1);
    });

    it(`[${ver}] allocates a custom IP when requested by config args`, async () => {
      const n = node();
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo0",
				"ipam": {
					"type": "host-local",
					"dataDir": "${TMP}",
					"ranges": [
						[{ "subnet": "10.1.2.0/24" }]
					]
				},
				"args": {
					"cni": {
						"ips": ["10.1.2.88"]
					}
				}
			}`;
      const r = await cmdAddWithArgs(n, conf, ver);
      expect(r.error).toBeUndefined();
      expect(r.result!.ips).toHaveLength(1);
      expect(r.result!.ips![0]!.address.split('/')[0]).toBe('10.1.2.88');
    });

    it(`[${ver}] allocates custom IPs from multiple ranges`, async () => {
      const n = node();
      writeResolvConf(n);
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo0",
				"ipam": {
					"type": "host-local",
					"dataDir": "${TMP}",
					"ranges": [
						[{ "subnet": "10.1.2.0/24" }],
						[{ "subnet": "10.1.3.0/24" }]
					]
				},
				"args": {
					"cni": {
						"ips": ["10.1.2.88", "10.1.3.77"]
					}
				}
			}`;
      const r = await cmdAddWithArgs(n, conf, ver);
      if (!hasMultipleIPs(ver)) {
        expect(r.error).toBe(`CNI version ${ver} does not support more than 1 address per family`);
      } else {
        expect(r.error).toBeUndefined();
        expect(r.result!.ips).toHaveLength(2);
        expect(r.result!.ips![0]!.address.split('/')[0]).toBe('10.1.2.88');
        expect(r.result!.ips![1]!.address.split('/')[0]).toBe('10.1.3.77');
      }
    });

    it(`[${ver}] allocates custom IPs from multiple protocols`, async () => {
      const n = node();
      writeResolvConf(n);
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo0",
				"ipam": {
					"type": "host-local",
					"dataDir": "${TMP}",
					"ranges": [
						[{"subnet":"172.16.1.0/24"}, { "subnet": "10.1.2.0/24" }],
						[{ "subnet": "2001:db8:1::/48" }]
					]
				},
				"args": {
					"cni": {
						"ips": ["10.1.2.88", "2001:db8:1::999"]
					}
				}
			}`;
      const r = await cmdAddWithArgs(n, conf, ver);
      expect(r.error).toBeUndefined();
      expect(r.result!.ips).toHaveLength(2);
      expect(r.result!.ips![0]!.address.split('/')[0]).toBe('10.1.2.88');
      expect(r.result!.ips![1]!.address.split('/')[0]).toBe('2001:db8:1::999');
    });

    it(`[${ver}] fails if a requested custom IP is not used`, async () => {
      const n = node();
      const conf = `{
				"cniVersion": "${ver}",
				"name": "mynet",
				"type": "ipvlan",
				"master": "foo0",
				"ipam": {
					"type": "host-local",
					"dataDir": "${TMP}",
					"ranges": [
						[{ "subnet": "10.1.2.0/24" }],
						[{ "subnet": "10.1.3.0/24" }]
					]
				},
				"args": {
					"cni": {
						"ips": ["10.1.2.88", "10.1.2.77"]
					}
				}
			}`;
      const r = await cmdAddWithArgs(n, conf, ver);
      if (!hasMultipleIPs(ver)) {
        expect(r.error).toBe(`CNI version ${ver} does not support more than 1 address per family`);
      } else {
        expect(r.error).toBeDefined();
        // a prefix: the ordering is not guaranteed in Go
        expect(r.error!.startsWith('failed to allocate all requested IPs: 10.1.2.'), r.error).toBe(true);
      }
    });
  }
});

describe('dns_test.go: parsing resolv.conf', () => {
  /** `parse(contents)`: write a temporary file and parse it. */
  function parse(contents: string) {
    const n = node();
    n.host.files.write('C:/Windows/Temp/host_local_resolv123', contents);
    return parseResolvConf(n.host.files, 'C:/Windows/Temp/host_local_resolv123');
  }

  it('parses a simple resolv.conf file', () => {
    const contents = `
		nameserver 192.0.2.0
		nameserver 192.0.2.1
		`;
    expect(parse(contents)).toEqual({ nameservers: ['192.0.2.0', '192.0.2.1'] });
  });

  it('ignores comments', () => {
    expect(
      parse(`
nameserver 192.0.2.0
;nameserver 192.0.2.1
`),
    ).toEqual({ nameservers: ['192.0.2.0'] });
  });

  it('parses all fields', () => {
    expect(
      parse(`
nameserver 192.0.2.0
nameserver 192.0.2.2
domain example.com
;nameserver comment
#nameserver comment
search example.net example.org
search example.gov
options one two three
options four
`),
    ).toEqual({
      nameservers: ['192.0.2.0', '192.0.2.2'],
      domain: 'example.com',
      search: ['example.net', 'example.org', 'example.gov'],
      options: ['one', 'two', 'three', 'four'],
    });
  });
});
