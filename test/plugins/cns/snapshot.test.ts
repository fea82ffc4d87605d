/**
 * Azure CNS in the host snapshot (issue 16; src/plugins/cns, src/host/agents.ts): azure-vnet's
 * Swift mode (ACN v1.8.12 `cni/azure-windows-swift.conflist`, the test kit's vector) across a
 * snapshot and a restore, snapshots written before CNS was in them, and sections a restore must
 * refuse — E_INVALIDARG (0x80070057), the node as it was. The expected addresses are the NC's
 * secondary IPs given here, handed out in their order (docs/model.md "Azure CNS").
 */
import { describe, expect, it } from 'vitest';
import { RpcServer, type RpcResponse } from '../../../src/api/rpc.js';
import { HnsError } from '../../../src/core/errors.js';
import type { Json, JsonObject } from '../../../src/core/json.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { cnsOf, startCns, type CnsOptions } from '../../../src/plugins/cns/index.js';
import { cniRpcMethods } from '../../../src/plugins/index.js';
import { cid, namespace, podArgs, SWIFT_CONF, vnet } from '../azure-vnet/kit.js';

const SWIFT = JSON.stringify(SWIFT_CONF);
const SWIFT_NC = {
  id: 'swift-nc',
  primaryIp: '10.241.0.4/16',
  gateway: '10.241.0.1',
  secondaryIps: ['10.241.0.5', '10.241.0.6'],
};
const MT_NC = { pod: 'default/web', id: 'mt-nc', vlan: 1, ip: '10.240.1.4/24', gateway: '10.240.1.1' };

const node = (cns?: CnsOptions): Host => {
  const host = createHost({
    adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
    azure: { nics: [{ adapter: 'Ethernet' }] },
  });
  if (cns) startCns(host, cns);
  return host;
};

/** A state file's round trip: the snapshot as JSON text, restored on a node built the same way. */
function roundTrip(host: Host): Host {
  const copy = node();
  copy.restore(JSON.parse(JSON.stringify(host.snapshot())));
  return copy;
}

async function pod(host: Host, command: 'ADD' | 'DEL', tag: string, netns: string) {
  const id = cid(tag);
  return vnet(host, { command, id, netns, conf: SWIFT, args: podArgs(`web-${tag}`, 'default', id) });
}

/**
 * The snapshot less the PID azure-vnet writes into its lock file: the PIDs a node hands out are
 * counted per process (src/plugins/azure-vnet/store.ts), not kept in the snapshot, so a restored
 * node's next invocation writes another number there — the only difference a round trip leaves.
 */
function withoutLockPid(host: Host): JsonObject {
  const s = host.snapshot() as JsonObject;
  const files = { ...(s['files'] as JsonObject) };
  delete files['/Windows/System32/azure-vnet.lock'];
  return { ...s, files };
}

const cnsState = (host: Host) => cniRpcMethods(host).CnsState!.run([]);

describe('Azure CNS in the host snapshot', () => {
  it('azure-vnet in Swift mode goes on on the restored node as on the original: ADD, a second ADD, DEL', async () => {
    const a = node({ ncs: [SWIFT_NC] });
    const ns1 = await namespace(a);
    const ns2 = await namespace(a);
    expect((await pod(a, 'ADD', 'aaaa0001', ns1)).exitCode).toBe(0);
    const b = roundTrip(a);
    expect(b.snapshot()).toEqual(a.snapshot());
    // the second pod gets the NC's second IP on both; the first pod's DEL gives its IP back on both
    const add2 = await Promise.all([a, b].map((h) => pod(h, 'ADD', 'bbbb0002', ns2)));
    expect(add2[1]).toEqual(add2[0]);
    expect(JSON.parse(add2[0]!.stdout)).toMatchObject({ ips: [{ address: '10.241.0.6/16' }] });
    const del1 = await Promise.all([a, b].map((h) => pod(h, 'DEL', 'aaaa0001', ns1)));
    expect(del1[1]).toEqual(del1[0]);
    expect(await cnsState(b)).toEqual({ running: true, assigned: { 'bbbb0002-eth0': ['10.241.0.6'] } });
    expect(await cnsState(b)).toEqual(await cnsState(a));
    expect(withoutLockPid(b)).toEqual(withoutLockPid(a));
  });

  it('a stopped CNS stays stopped, and starting it releases what a DEL left meanwhile', async () => {
    const a = node({ ncs: [SWIFT_NC] });
    const ns = await namespace(a);
    expect((await pod(a, 'ADD', 'aaaa0003', ns)).exitCode).toBe(0);
    cnsOf(a)!.stop();
    // with CNS down the DEL succeeds and leaves the pod in /var/run/azure-vnet/deleteIDs
    expect((await pod(a, 'DEL', 'aaaa0003', ns)).exitCode).toBe(0);
    const b = roundTrip(a);
    expect(b.http.listening(10090)).toBe(false);
    expect(await cnsState(b)).toEqual({ running: false, assigned: { 'aaaa0003-eth0': ['10.241.0.5'] } });
    const rpc = new RpcServer(b, { methods: cniRpcMethods(b) });
    const r = (await rpc.request({ jsonrpc: '2.0', id: 1, method: 'CnsStart', params: [] })) as RpcResponse;
    expect(r).toMatchObject({ result: { port: 10090 } });
    expect(await cnsState(b)).toEqual({ running: true, assigned: {} });
    expect(b.files.list('/var/run/azure-vnet/deleteIDs')).toEqual([]);
  });

  it('JSON-RPC Snapshot and Restore carry CNS from one served node to another', async () => {
    const call = async (s: RpcServer, method: string, params: Json[] = []) =>
      (await s.request({ jsonrpc: '2.0', id: 1, method, params })) as RpcResponse & { result?: Json };
    const a = node();
    const sa = new RpcServer(a, { methods: cniRpcMethods(a) });
    expect(
      await call(sa, 'CnsStart', [{ ncs: [SWIFT_NC], multitenancy: [MT_NC], port: 10095 }]),
    ).toMatchObject({
      result: { port: 10095 },
    });
    const b = node();
    const sb = new RpcServer(b, { methods: cniRpcMethods(b) });
    expect(await call(sb, 'Restore', [(await call(sa, 'Snapshot')).result!])).toMatchObject({ result: null });
    expect(b.http.listening(10095)).toBe(true);
    const body = JSON.stringify({ OrchestratorContext: { podName: 'web', podNamespace: 'default' } });
    const ask = (h: Host) =>
      h.http.request('POST', 'http://localhost:10095/network/getAllNetworkContainers', body);
    expect(ask(b)).toEqual(ask(a));
    expect(JSON.parse(ask(b).body)).toMatchObject({ NetworkContainers: [{ NetworkContainerID: 'mt-nc' }] });
    // CnsStop on the restored node stops the restored CNS
    expect(await call(sb, 'CnsStop')).toMatchObject({ result: null });
    expect(b.http.listening(10095)).toBe(false);
  });

  it('a node without CNS writes no agents key; a snapshot without one (older hnsim) restores with CNS absent', async () => {
    expect(node().snapshot()).not.toHaveProperty('agents');
    // what hnsim before this change wrote for a node running CNS: everything but CNS
    const a = node({ ncs: [SWIFT_NC] });
    const ns = await namespace(a);
    expect((await pod(a, 'ADD', 'aaaa0004', ns)).exitCode).toBe(0);
    const old = a.snapshot() as JsonObject;
    delete old['agents'];
    const b = node({ ncs: [{ ...SWIFT_NC, id: 'other-nc' }] });
    b.restore(JSON.parse(JSON.stringify(old)));
    expect(cnsOf(b)).toBeUndefined();
    expect(b.http.listening(10090)).toBe(false);
    expect(await cnsState(b)).toEqual({ running: false, assigned: {} });
    expect(b.snapshot()).toEqual(old);
    // azure-vnet then finds no CNS, as on a node where it is not running
    const out = await pod(b, 'ADD', 'bbbb0005', await namespace(b));
    expect(out.stdout).toContain(
      'No connection could be made because the target machine actively refused it.',
    );
  });

  it('one CNS per node: a second start while one runs is refused; a stopped one is replaced for good', () => {
    const host = node({ ncs: [SWIFT_NC] });
    const first = cnsOf(host)!;
    expect(() => startCns(host, { ncs: [SWIFT_NC], port: 10095 })).toThrow(/CNS runs on this node already/);
    expect(host.http.listening(10095)).toBe(false);
    first.stop();
    const second = startCns(host, { ncs: [SWIFT_NC], port: 10095 });
    expect(cnsOf(host)).toBe(second);
    expect(() => first.start()).toThrow(/replaced on the node/);
    expect(host.http.listening(10090)).toBe(false);
  });

  describe('a bad CNS section is E_INVALIDARG and changes nothing', () => {
    /** A node with a pod assigned, the source of the sections below. */
    async function source() {
      const a = node({ ncs: [SWIFT_NC], multitenancy: [MT_NC] });
      const ns = await namespace(a);
      expect((await pod(a, 'ADD', 'aaaa0006', ns)).exitCode).toBe(0);
      expect((await pod(a, 'ADD', 'bbbb0007', await namespace(a))).exitCode).toBe(0);
      return a.snapshot() as JsonObject;
    }
    type Edit = (s: JsonObject, cns: JsonObject) => void;
    const cases: [string, Edit, RegExp][] = [
      ['agents not an object', (s) => (s['agents'] = 'cns'), /agents must be an object/],
      [
        'an agent kind not known',
        (s) => ((s['agents'] as JsonObject)['nns'] = {}),
        /no node agent of kind "nns"/,
      ],
      [
        'cns not an object',
        (s) => ((s['agents'] as JsonObject)['cns'] = []),
        /snapshot: cns must be an object/,
      ],
      ['an unknown key', (_, c) => (c['ncsv2'] = []), /unknown key "ncsv2"/],
      ['running missing', (_, c) => delete c['running'], /running must be true or false/],
      ['port out of range', (_, c) => (c['port'] = 65536), /port must be a port number 1..65535/],
      ['ncs not a list', (_, c) => (c['ncs'] = {}), /ncs must be a list/],
      ['an NC without its id', (_, c) => delete nc(c)['id'], /ncs\[0\]\.id is required/],
      [
        'an NC primary IP that is none',
        (_, c) => (nc(c)['primaryIp'] = 'bogus'),
        /primaryIp "bogus" is not an address\/length/,
      ],
      [
        'a secondary IP not a string',
        (_, c) => (nc(c)['secondaryIps'] = [5]),
        /secondaryIps must be a list of strings/,
      ],
      [
        'a secondary IP outside the NC',
        (_, c) => (nc(c)['secondaryIps'] = ['10.9.0.5']),
        /secondary IP "10.9.0.5" is not in/,
      ],
      [
        'a VLAN out of range',
        (_, c) => ((list(c, 'multitenancy')[0] as JsonObject)['vlan'] = 4095),
        /vlan 4095 is not 0..4094/,
      ],
      ['assigned not a list', (_, c) => (c['assigned'] = {}), /assigned must be a list/],
      [
        'an IP the NC does not have',
        (_, c) => (entry(c, 0)['ips'] = ['10.241.0.9']),
        /10.241.0.9 is not a secondary IP of NC swift-nc/,
      ],
      [
        'an IP assigned twice',
        (_, c) => (entry(c, 1)['ips'] = ['10.241.0.5']),
        /10.241.0.5 of NC swift-nc is pod interface "aaaa0006-eth0"'s/,
      ],
      [
        'a pod interface twice',
        (_, c) => (entry(c, 1)['podInterfaceID'] = 'aaaa0006-eth0'),
        /"aaaa0006-eth0": assigned twice/,
      ],
      ['fewer IPs than NCs', (_, c) => (entry(c, 0)['ips'] = []), /0 IPs for 1 NCs/],
      ['an empty pod interface', (_, c) => (entry(c, 0)['podInterfaceID'] = ''), /an empty podInterfaceID/],
    ];
    function list(c: JsonObject, k: string): Json[] {
      return c[k] as Json[];
    }
    function nc(c: JsonObject): JsonObject {
      return list(c, 'ncs')[0] as JsonObject;
    }
    function entry(c: JsonObject, i: number): JsonObject {
      return list(c, 'assigned')[i] as JsonObject;
    }

    it.each(cases)('%s', async (_, edit, why) => {
      const snap = structuredClone(await source());
      edit(snap, (snap['agents'] as JsonObject)['cns'] as JsonObject);
      // the node restored into: its own network, its own CNS with a pod of its own
      const target = node({ ncs: [{ ...SWIFT_NC, secondaryIps: ['10.241.0.8'] }] });
      const ns = await namespace(target);
      expect((await pod(target, 'ADD', 'cccc0008', ns)).exitCode).toBe(0);
      const before = JSON.stringify(target.snapshot());
      const stateBefore = await cnsState(target);
      let thrown: unknown;
      try {
        target.restore(snap);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(HnsError);
      expect((thrown as HnsError).code).toBe('E_INVALIDARG');
      expect((thrown as HnsError).hresult).toBe(0x80070057);
      expect((thrown as HnsError).message).toMatch(why);
      expect(JSON.stringify(target.snapshot())).toBe(before);
      expect(await cnsState(target)).toEqual(stateBefore);
      expect(target.http.listening(10090)).toBe(true);
    });

    it('a port another listener holds on the node', async () => {
      const snap = await source();
      ((snap['agents'] as JsonObject)['cns'] as JsonObject)['port'] = 10095;
      const target = node();
      target.http.listen(10095, () => ({ status: 200, body: '' }));
      const before = JSON.stringify(target.snapshot());
      expect(() => target.restore(snap)).toThrow(/snapshot: cns: port 10095 is taken on the node/);
      expect(JSON.stringify(target.snapshot())).toBe(before);
      expect(cnsOf(target)).toBeUndefined();
    });

    it('through JSON-RPC Restore: the HNS failure -32000 with E_INVALIDARG', async () => {
      const snap = await source();
      ((snap['agents'] as JsonObject)['cns'] as JsonObject)['running'] = 'yes';
      const target = node();
      const r = (await new RpcServer(target, { methods: cniRpcMethods(target) }).request({
        jsonrpc: '2.0',
        id: 1,
        method: 'Restore',
        params: [snap],
      })) as { error?: { code: number; data?: { hresult?: number } } };
      expect(r.error?.code).toBe(-32000);
      expect(JSON.stringify(r.error)).toContain('running must be true or false');
      expect(cnsOf(target)).toBeUndefined();
    });
  });
});
