// The host-local plugin end to end on a simulated node (containernetworking/plugins @3d27709f
// plugins/ipam/host-local/main.go, allocator.go; reference cni-windows.md §6): error texts of each
// failing ADD (wrapped "failed to allocate for range N: …", code 999) and that they leave no
// reservation behind, CNI_ARGS IP=, round-robin across DEL, CHECK, the Windows IPv6 quirk, the nil
// GC/STATUS functions of v1.9.1, and that concurrent ADDs never share an address.
import { describe, expect, it } from 'vitest';
import { IPAllocator, type Store } from '../../../src/plugins/host-local/index.js';
import { doc, exec, ip, node, type Node } from './helpers.js';

const DIR = '/var/lib/cni/networks/cbr0';

const conf = (ipam: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    cniVersion: '1.0.0',
    name: 'cbr0',
    type: 'win-bridge',
    ...extra,
    ipam: { type: 'host-local', ...ipam },
  });

/** The address files of the network (not last_reserved_ip.*, not lock). */
function reservations(n: Node): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, data] of n.host.files.entries(DIR)) {
    const name = p.slice(p.lastIndexOf('/') + 1);
    if (name !== 'lock' && !name.startsWith('last_reserved_ip.')) out[name] = data;
  }
  return out;
}

async function addIPs(n: Node, c: string, containerID = 'c1', ifName = 'eth0'): Promise<string[]> {
  const out = await exec(n, 'ADD', c, { containerID, ifName });
  expect(out.exitCode, out.stdout).toBe(0);
  return (doc(out)['ips'] as { address: string }[]).map((x) => x.address);
}

async function addError(n: Node, c: string, inv: { containerID?: string; args?: string } = {}) {
  const out = await exec(n, 'ADD', c, inv);
  expect(out.exitCode).toBe(1);
  return doc(out);
}

describe('ADD', () => {
  it('the default config hands out .2 first (gateway .1 skipped), into /var/lib/cni/networks/<name>', async () => {
    const n = node();
    expect(await addIPs(n, conf({ subnet: '10.244.1.0/24' }))).toEqual(['10.244.1.2/24']);
    expect(reservations(n)).toEqual({ '10.244.1.2': 'c1\r\neth0' });
    expect(n.host.files.read(`${DIR}/last_reserved_ip.0`)).toBe('10.244.1.2');
  });

  it('the result is {ips:[{address,gateway}],routes,dns} with dns from resolvConf on the node', async () => {
    const n = node();
    n.host.files.write('C:\\etc\\resolv.conf', 'nameserver 10.96.0.10\nsearch svc.cluster.local\n');
    const out = await exec(
      n,
      'ADD',
      conf({ subnet: '10.244.1.0/24', resolvConf: 'C:\\etc\\resolv.conf', routes: [{ dst: '0.0.0.0/0' }] }),
    );
    expect(doc(out)).toEqual({
      cniVersion: '1.0.0',
      ips: [{ address: '10.244.1.2/24', gateway: '10.244.1.1' }],
      routes: [{ dst: '0.0.0.0/0' }],
      dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
    });
  });

  it('a missing resolvConf is the Windows open error, and nothing is written', async () => {
    const n = node();
    const d = await addError(n, conf({ subnet: '10.244.1.0/24', resolvConf: 'C:/etc/resolv.conf' }));
    expect(d).toEqual({
      code: 999,
      msg: 'open C:/etc/resolv.conf: The system cannot find the path specified.',
    });
    n.host.files.write('C:/etc/hosts', '');
    const d2 = await addError(n, conf({ subnet: '10.244.1.0/24', resolvConf: 'C:/etc/resolv.conf' }));
    expect(d2['msg']).toBe('open C:/etc/resolv.conf: The system cannot find the file specified.');
    expect(n.host.files.entries(DIR)).toEqual([]);
  });

  it("a bad config is code 999 with Go's text and leaves the disk alone", async () => {
    const n = node();
    const d = await addError(n, conf({ subnet: '10.244.1.0/31' }));
    expect(d).toEqual({
      code: 999,
      msg: 'invalid range set 0: Network 10.244.1.0/31 too small to allocate from',
    });
    expect(n.host.files.size).toBe(0);
  });

  it('a second ADD for the same (container, ifname) is refused: duplicate allocation', async () => {
    const n = node();
    const c = conf({ subnet: '10.244.1.0/24' });
    await addIPs(n, c);
    expect((await addError(n, c, { containerID: 'c1' }))['msg']).toBe(
      'failed to allocate for range 0: 10.244.1.2 has been allocated to c1, duplicate allocation is not allowed',
    );
    // another interface of the same container is fine
    expect(await addIPs(n, c, 'c1', 'eth1')).toEqual(['10.244.1.3/24']);
  });

  it('Windows: an IPv6 reservation is not seen by the duplicate check (its file name is escaped)', async () => {
    const n = node();
    const c = conf({ ranges: [[{ subnet: 'fd00:10:244:1::/64' }]] });
    expect(await addIPs(n, c)).toEqual(['fd00:10:244:1::2/64']);
    expect(await addIPs(n, c)).toEqual(['fd00:10:244:1::3/64']);
    expect(reservations(n)).toEqual({ fd00_10_244_1__2: 'c1\r\neth0', fd00_10_244_1__3: 'c1\r\neth0' });
  });

  it('exhaustion: "no IP addresses available in range set: S-E"', async () => {
    const n = node();
    const c = conf({ subnet: '10.0.0.0/30' });
    expect(await addIPs(n, c, 'a')).toEqual(['10.0.0.2/30']);
    expect((await addError(n, c, { containerID: 'b' }))['msg']).toBe(
      'failed to allocate for range 0: no IP addresses available in range set: 10.0.0.1-10.0.0.2',
    );
  });

  it('a failure in a later range releases what earlier ranges took', async () => {
    const n = node();
    const c = conf({ ranges: [[{ subnet: '10.0.0.0/24' }], [{ subnet: '10.0.1.0/30' }]] });
    await addIPs(n, c, 'a');
    expect((await addError(n, c, { containerID: 'b' }))['msg']).toBe(
      'failed to allocate for range 1: no IP addresses available in range set: 10.0.1.1-10.0.1.2',
    );
    expect(Object.values(reservations(n))).toEqual(['a\r\neth0', 'a\r\neth0']);
  });

  it('CNI_ARGS IP= picks the address; the gateway or a taken address is refused', async () => {
    const n = node();
    const c = conf({ subnet: '10.244.1.0/24' });
    const out = await exec(n, 'ADD', c, {
      containerID: 'a',
      args: 'IgnoreUnknown=1;K8S_POD_NAME=p;IP=10.244.1.50',
    });
    expect((doc(out)['ips'] as { address: string }[])[0]!.address).toBe('10.244.1.50/24');
    expect((await addError(n, c, { containerID: 'b', args: 'IP=10.244.1.50' }))['msg']).toBe(
      'failed to allocate for range 0: requested IP address 10.244.1.50 is not available in range set 10.244.1.1-10.244.1.254',
    );
    expect((await addError(n, c, { containerID: 'b', args: 'IP=10.244.1.1' }))['msg']).toBe(
      "failed to allocate for range 0: requested ip 10.244.1.1 is subnet's gateway",
    );
    expect((await addError(n, c, { containerID: 'b', args: 'K8S_POD_NAME=p' }))['msg']).toBe(
      'ARGS: unknown args ["K8S_POD_NAME=p"]',
    );
  });

  it('a requested address outside every set fails the call and releases the rest', async () => {
    const n = node();
    const d = await addError(n, conf({ subnet: '10.244.1.0/24' }, { args: { cni: { ips: ['10.9.9.9'] } } }));
    expect(d['msg']).toBe('failed to allocate all requested IPs: 10.9.9.9');
    expect(reservations(n)).toEqual({});
  });

  it('round-robin: after DEL the next ADD takes the next address, not the freed one', async () => {
    const n = node();
    const c = conf({ subnet: '10.244.1.0/24' });
    expect(await addIPs(n, c, 'a')).toEqual(['10.244.1.2/24']);
    expect((await exec(n, 'DEL', c, { containerID: 'a' })).exitCode).toBe(0);
    expect(await addIPs(n, c, 'b')).toEqual(['10.244.1.3/24']);
  });

  it('rangeStart .3 keeps .2 free (the flannel cbr0_ep mitigation, reference §6)', async () => {
    const n = node();
    expect(await addIPs(n, conf({ subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' }))).toEqual([
      '10.244.1.3/24',
    ]);
  });

  it('concurrent ADDs never share an address (the allocation does not yield)', async () => {
    const n = node();
    const c = conf({ subnet: '10.244.1.0/24' });
    const outs = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((containerID) => exec(n, 'ADD', c, { containerID })),
    );
    const got = outs.map((o) => (doc(o)['ips'] as { address: string }[])[0]!.address);
    expect(new Set(got).size).toBe(5);
    expect(Object.keys(reservations(n)).sort()).toEqual([
      '10.244.1.2',
      '10.244.1.3',
      '10.244.1.4',
      '10.244.1.5',
      '10.244.1.6',
    ]);
  });
});

describe('DEL, CHECK, STATUS, GC, VERSION', () => {
  it("DEL of one interface keeps the container's other interfaces; an unknown container is fine", async () => {
    const n = node();
    const c = conf({ subnet: '10.244.1.0/24' });
    await addIPs(n, c, 'c1', 'eth0');
    await addIPs(n, c, 'c1', 'eth1');
    expect((await exec(n, 'DEL', c, { containerID: 'c1', ifName: 'eth0' })).exitCode).toBe(0);
    expect(reservations(n)).toEqual({ '10.244.1.3': 'c1\r\neth1' });
    expect((await exec(n, 'DEL', c, { containerID: 'nobody' })).exitCode).toBe(0);
  });

  it('CHECK needs an address of the container on disk', async () => {
    const n = node();
    const c = conf({ subnet: '10.244.1.0/24' });
    const miss = await exec(n, 'CHECK', c, { containerID: 'c1' });
    expect(doc(miss)).toEqual({ code: 999, msg: 'host-local: Failed to find address added by container c1' });
    await addIPs(n, c);
    expect((await exec(n, 'CHECK', c, { containerID: 'c1' })).exitCode).toBe(0);
  });

  it('v1.9.1 registers no GC or STATUS: both succeed and print nothing', async () => {
    const n = node();
    const c = conf({ subnet: '10.244.1.0/24' }, { cniVersion: '1.1.0' });
    for (const cmd of ['GC', 'STATUS']) {
      const out = await exec(n, cmd, c);
      expect([out.exitCode, out.stdout]).toEqual([0, '']);
    }
  });

  it('VERSION lists every spec version', async () => {
    const out = await exec(node(), 'VERSION', '');
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '1.1.0',
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
  });
});

describe('IPAllocator', () => {
  it('logs "Error retrieving last reserved ip" when the store fails to read it, then starts over', () => {
    const lines: string[] = [];
    const store: Store = {
      lock() {},
      unlock() {},
      close() {},
      reserve: () => true,
      lastReservedIP() {
        throw new Error('read failed');
      },
      releaseByID() {},
      getByID: () => [],
    };
    const a = new IPAllocator(
      [
        {
          subnet: { ip: ip('10.0.0.0'), ones: 29, maskBits: 32 },
          rangeStart: ip('10.0.0.1'),
          rangeEnd: ip('10.0.0.6'),
          gateway: ip('10.0.0.1'),
        },
      ],
      store,
      0,
      (l) => lines.push(l),
    );
    expect(a.get('x', 'eth0').ip).toEqual(ip('10.0.0.2'));
    expect(lines).toEqual(['Error retrieving last reserved ip: read failed']);
  });
});
