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

/**
 * The test's network config: an ipvlan net whose `ipam` (and `args`) are given as the Go test's
 * literal JSON values; name and master default to the common "mynet"/"foo0".
 */
function ipvlanConf(
  ver: string,
  ipam: Record<string, unknown>,
  opts: { name?: string; master?: string; args?: unknown } = {},
): string {
  const { name = 'mynet', master = 'foo0', args } = opts;
  return JSON.stringify({
    cniVersion: ver,
    name,
    type: 'ipvlan',
    master,
    ipam: { type: 'host-local', ...ipam },
    ...(args === undefined ? {} : { args }),
  });
}

/** `args.cni.ips` as the custom-IP cases set it. */
const cniIPs = (...ips: string[]) => ({ cni: { ips } });

/**
 * CmdAddWithArgs, then the Go test's common checks: `Expect(err).NotTo(HaveOccurred())` and, for
 * versions that carry it, a `"version":` field in the raw result.
 */
async function addOk(
  n: Node,
  conf: string,
  ver: string,
  inv: { containerID?: string; ifName?: string } = {},
): Promise<CniResult> {
  const r = await cmdAddWithArgs(n, conf, ver, inv);
  expect(r.error).toBeUndefined();
  if (hasIPVersion(ver)) expect(r.raw.indexOf('"version":')).toBeGreaterThan(0);
  return r.result!;
}

/** Route.String() equality as the Go test compares routes: dst and gw (the rest are zero). */
const sameRoute = (a: CniRoute, b: CniRoute): boolean => a.dst === b.dst && (a.gw ?? '') === (b.gw ?? '');

describe('host_local_test.go: host-local Operations', () => {
  for (const ver of ALL_SPEC_VERSIONS) {
    it(`[${ver}] allocates and releases addresses with ADD/DEL`, async () => {
      const n = node();
      writeResolvConf(n);
      const conf = ipvlanConf(ver, {
        dataDir: TMP,
        resolvConf: `${TMP}/resolv.conf`,
        ranges: [[{ subnet: '10.1.2.0/24' }, { subnet: '10.2.2.0/24' }], [{ subnet: '2001:db8:1::0/64' }]],
        routes: [
          { dst: '0.0.0.0/0' },
          { dst: '::/0' },
          { dst: '192.168.0.0/16', gw: '1.1.1.1' },
          { dst: '2001:db8:2::0/64', gw: '2001:db8:3::1' },
        ],
      });
      const result = await addOk(n, conf, ver);
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
      const conf = (name: string, subnet: string, master: string): string =>
        ipvlanConf(
          ver,
          { dataDir: TMP, resolvConf: `${TMP}/resolv.conf`, ranges: [[{ subnet }]] },
          { name, master },
        );
      const conf0 = conf('mynet0', '10.1.2.0/24', 'foo0');
      const conf1 = conf('mynet1', '10.2.2.0/24', 'foo1');

      await addOk(n, conf0, ver);
      await addOk(n, conf1, ver, { ifName: ifname1 });

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
      const conf = ipvlanConf(
        ver,
        { dataDir: TMP, ranges: [[{ subnet: '10.1.2.0/24' }]] },
        { name: 'mynet0' },
      );
      const r0 = await addOk(n, conf, ver);
      expect(r0.ips).toHaveLength(1);
      expect(r0.ips![0]!.address).toBe('10.1.2.2/24');

      // the same container ID again
      expect((await cmdAddWithArgs(n, conf, ver)).error).toBeDefined();

      // another container ID
      const r1 = await addOk(n, conf, ver, { containerID: 'dummy1' });
      expect(r1.ips).toHaveLength(1);
      expect(r1.ips![0]!.address).toBe('10.1.2.3/24');

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
      const conf = ipvlanConf(
        ver,
        { dataDir: TMP, resolvConf: `${TMP}/resolv.conf`, ranges: [[{ subnet: '10.1.2.0/24' }]] },
        { master: 'foo' },
      );
      await addOk(n, conf, ver);
      const ipFilePath = `${TMP}/mynet/10.1.2.2`;
      expect(n.host.files.read(ipFilePath)).toBe(`dummy${LINE_BREAK}${IFNAME}`);
      // the format of older versions: the container ID alone
      n.host.files.write(ipFilePath, 'dummy');
      expect(await cmdDelWithArgs(n, conf)).toBeUndefined();
      expect(n.host.files.exists(ipFilePath)).toBe(false);
    });

    /** The old-style (`subnet`) config the next three cases share. */
    const oldStyleConf = ipvlanConf(ver, { subnet: '10.1.2.0/24', dataDir: TMP });

    it(`[${ver}] doesn't error when passed an unknown ID on DEL`, async () => {
      expect(await cmdDelWithArgs(node(), oldStyleConf)).toBeUndefined();
    });

    it(`[${ver}] ignores whitespace in disk files`, async () => {
      const n = node();
      const containerID = '   dummy\n ';
      const add = await direct(n, cmdAdd, oldStyleConf, { containerID });
      expect(add.error).toBeUndefined();
      const result = parseResult(JSON.parse(add.stdout), ver);
      const ipFilePath = `${TMP}/mynet/${result.ips![0]!.address.split('/')[0]!}`;
      expect(n.host.files.read(ipFilePath)).toBe(`dummy${LINE_BREAK}${IFNAME}`);
      expect((await direct(n, cmdDel, oldStyleConf, { containerID })).error).toBeUndefined();
      expect(n.host.files.exists(ipFilePath)).toBe(false);
    });

    it(`[${ver}] does not output an error message upon initial subnet creation`, async () => {
      const out = await exec(node(), 'ADD', oldStyleConf, { containerID: 'testing' });
      expect(out.exitCode).toBe(0);
      expect(out.stdout.indexOf('Error retrieving last reserved ip')).toBe(-1);
      expect(out.stderr.indexOf('Error retrieving last reserved ip')).toBe(-1);
    });

    /** The custom-IP cases: ranges, the requested `args.cni.ips`, and a resolv.conf or not. */
    const customIPs = async (ranges: unknown, ips: string[], resolv: boolean) => {
      const n = node();
      if (resolv) writeResolvConf(n);
      const conf = ipvlanConf(ver, { dataDir: TMP, ranges }, { args: cniIPs(...ips) });
      return cmdAddWithArgs(n, conf, ver);
    };
    const addresses = (r: { result?: CniResult }) => r.result!.ips!.map((i) => i.address.split('/')[0]);

    it(`[${ver}] allocates a custom IP when requested by config args`, async () => {
      const r = await customIPs([[{ subnet: '10.1.2.0/24' }]], ['10.1.2.88'], false);
      expect(r.error).toBeUndefined();
      expect(addresses(r)).toEqual(['10.1.2.88']);
    });

    it(`[${ver}] allocates custom IPs from multiple ranges`, async () => {
      const r = await customIPs(
        [[{ subnet: '10.1.2.0/24' }], [{ subnet: '10.1.3.0/24' }]],
        ['10.1.2.88', '10.1.3.77'],
        true,
      );
      if (!hasMultipleIPs(ver)) {
        expect(r.error).toBe(`CNI version ${ver} does not support more than 1 address per family`);
      } else {
        expect(r.error).toBeUndefined();
        expect(addresses(r)).toEqual(['10.1.2.88', '10.1.3.77']);
      }
    });

    it(`[${ver}] allocates custom IPs from multiple protocols`, async () => {
      const r = await customIPs(
        [[{ subnet: '172.16.1.0/24' }, { subnet: '10.1.2.0/24' }], [{ subnet: '2001:db8:1::/48' }]],
        ['10.1.2.88', '2001:db8:1::999'],
        true,
      );
      expect(r.error).toBeUndefined();
      expect(addresses(r)).toEqual(['10.1.2.88', '2001:db8:1::999']);
    });

    it(`[${ver}] fails if a requested custom IP is not used`, async () => {
      const r = await customIPs(
        [[{ subnet: '10.1.2.0/24' }], [{ subnet: '10.1.3.0/24' }]],
        ['10.1.2.88', '10.1.2.77'],
        false,
      );
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
