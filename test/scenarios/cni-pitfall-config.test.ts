/**
 * CNI pitfalls that come from configuration (reference cni-windows.md §7: P1, P2, P12, P17), each
 * reproduced on a simulated node with the reference plugins, libcni's runner and the containerd
 * runtime, and — where the reference names one — the fix shown working.
 */
import { describe, expect, it } from 'vitest';
import { confListFromConf, pluginConfFromBytes } from '../../src/cni/conf.js';
import { execPlugin, referenceRegistry, sdnbridge } from '../../src/plugins/index.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import {
  BIN,
  cid,
  cniError,
  cniHost,
  conflist,
  dockerContainer,
  endpointNamed,
  endpointNames,
  FLANNEL_DIR,
  flannelHostGwNode,
  HOST_LOCAL,
  ipOf,
  network,
  newNamespace,
  pod,
  podNamespaces,
  rejection,
  reservations,
  rtConf,
  runner,
  sandboxIdIn,
  v1BridgeNode,
  winBridgeDoc,
} from './cni-pitfall-kit.js';

const GUID_NETNS = '6F1A4D3C-2B0E-4C8A-9E51-0D2C7B6A5F43';

/** The sig-windows-tools flannel `.conf` (one plugin, its own name): libcni up-converts it to a list. */
function flannelConf(delegate: object): ReturnType<typeof conflist> {
  return confListFromConf(
    pluginConfFromBytes(
      JSON.stringify({
        name: 'cbr0',
        cniVersion: '0.3.0',
        type: 'flannel',
        capabilities: { portMappings: true, dns: true },
        delegate,
      }),
    ),
  );
}

// ───────────────────────────── P1 ─────────────────────────────

describe('P1: win-bridge without apiVersion under containerd (flannel-io/flannel#1812, kubernetes#94924, sig-windows-tools#102, hcsshim#1698, plugins#713/#1229)', () => {
  it('reproduced: the namespace GUID is taken for a shared endpoint that must already exist; ADD fails with code 999 and containerd unwinds', async () => {
    const host = v1BridgeNode(101);
    const net = network(host, winBridgeDoc(undefined, HOST_LOCAL));
    const rt = new ContainerdRuntime(host, { networks: [net] });
    const err = await rejection(rt.runPodSandbox(pod()));
    const id = sandboxIdIn(err.message);
    // reference §3.3 E1, wrapped by libcni and containerd
    expect(err.message).toBe(
      `failed to setup network for sandbox "${id}": plugin type="win-bridge" failed (add): ` +
        `error while adding HNSEndpoint: failed to find HNSEndpoint ${id}_cbr0: Endpoint ${id}_cbr0 not found`,
    );
    expect(cniError(err).code).toBe(999);
    // nothing was created, and the runtime's unwind removed its namespace
    expect(endpointNames(host)).toEqual([]);
    expect(podNamespaces(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('reproduced: the same through flannel (the flannel#1812 config: a `.conf` named cbr0 delegating to win-bridge)', async () => {
    const host = await flannelHostGwNode(102);
    const r = runner(host);
    const id = cid(1);
    const err = await rejection(
      r.addNetworkList(flannelConf({ type: 'win-bridge' }), rtConf(id, GUID_NETNS)),
    );
    // flannel#1812 shows `failed to delegate add: ` before this text; the flannel plugin modelled here
    // (cni-plugin @092e6d26, src/plugins/flannel) prints the delegate's CNI error unwrapped
    expect(err.message).toBe(
      `plugin type="flannel" name="cbr0" failed (add): error while adding HNSEndpoint: ` +
        `failed to find HNSEndpoint ${id}_cbr0: Endpoint ${id}_cbr0 not found`,
    );
    expect(cniError(err).code).toBe(999);
    expect(endpointNames(host)).toEqual(['cbr0_ep']);
    // P15 in passing: flannel saved the delegate config before the delegate failed
    expect(host.files.exists(`${FLANNEL_DIR}/${id}`)).toBe(true);
  });

  it('fix: `apiVersion: 2` — the endpoint is created on HCN and added to the pod’s namespace', async () => {
    const host = v1BridgeNode(103);
    const net = network(host, winBridgeDoc(2));
    const rt = new ContainerdRuntime(host, { networks: [net] });
    const id = await rt.runPodSandbox(pod());
    const status = await rt.podSandboxStatus(id);
    expect(status.network.ip).toBe('10.244.1.3');
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(ep.HostComputeNamespace).toBe(status.netns);
    // reference §3.3 W1 (v2): the default route via network + 2
    expect(ep.Routes.map((r) => [r.DestinationPrefix, r.NextHop])).toEqual([['0.0.0.0/0', '10.244.1.2']]);
    expect(reservations(host)).toEqual({ '10.244.1.3': `${id}\r\neth0` });
  });

  it('fix: sdnbridge (windows-container-networking, HCN only) — the pod gets an address in its namespace', async () => {
    const host = v1BridgeNode(104);
    const net = network(host, {
      cniVersion: '0.4.0',
      name: 'cbr0',
      plugins: [{ type: 'sdnbridge', ipam: HOST_LOCAL }],
    });
    const rt = new ContainerdRuntime(host, { networks: [net] });
    const id = await rt.runPodSandbox(pod());
    const status = await rt.podSandboxStatus(id);
    expect(status.network.ip).toBe('10.244.1.2');
    expect(endpointNamed(host, `${id}_cbr0`)!.HostComputeNamespace).toBe(status.netns);
  });
});

// ───────────────────────────── P2 ─────────────────────────────

describe('P2: the first pod gets .2, the address of cbr0_ep (kubernetes#74766, microsoft/SDN#333, WCN#40, sig-windows-tools PR#112)', () => {
  it('reproduced: flanneld host-gw holds .2; host-local hands it out first; HNS refuses with 0x1392; the retry gets .3', async () => {
    const host = await flannelHostGwNode(111);
    expect(ipOf(host, 'cbr0_ep')).toBe('10.244.1.2');
    // dockershim's pause container: win-bridge's v1 path (netns `none`), the config from sig-windows-tools
    const r = runner(host);
    const list = flannelConf({
      type: 'win-bridge',
      policies: [
        {
          Name: 'EndpointPolicy',
          Value: { Type: 'OutBoundNAT', ExceptionList: ['10.96.0.0/12', '10.244.0.0/16'] },
        },
      ],
    });
    const first = cid(1);
    dockerContainer(host, first);
    const err = await rejection(r.addNetworkList(list, rtConf(first, 'none')));
    // reference §7.1: v1 duplicate IP; the POST of microsoft/SDN#333 carries IPAddress == GatewayAddress
    expect(err.message).toBe(
      'plugin type="flannel" name="cbr0" failed (add): error while adding HNSEndpoint: ' +
        // hcsshim's hnsCall wraps its hnsCallRawResponse error ("failed during hnsCallRawResponse: %v")
        'failed to create the new HNSEndpoint: failed during hnsCallRawResponse: ' +
        'hnsCall failed in Win32: The object already exists. (0x1392)',
    );
    expect(cniError(err).code).toBe(999);
    expect(endpointNames(host)).toEqual(['cbr0_ep']);
    // win-bridge's cmdAdd released .2 again; host-local's round-robin remembers it
    expect(reservations(host)).toEqual({});
    expect(host.files.read('/var/lib/cni/networks/cbr0/last_reserved_ip.0')).toBe('10.244.1.2');
    const second = cid(2);
    dockerContainer(host, second);
    const ok = await r.addNetworkList(list, rtConf(second, 'none'));
    expect(ok?.ips?.map((i) => [i.address, i.gateway])).toEqual([['10.244.1.3/24', '10.244.1.2']]);
    expect(ipOf(host, `${second}_cbr0`)).toBe('10.244.1.3');
  });

  it('reproduced with containerd + sdnbridge (forceBridgeGateway): the gateway is right (WCN#40) but the address still collides', async () => {
    const host = await flannelHostGwNode(112);
    const net = {
      list: flannelConf({ type: 'sdnbridge', optionalFlags: { forceBridgeGateway: true } }),
      runner: runner(host),
    };
    const rt = new ContainerdRuntime(host, { networks: [net] });
    const err = await rejection(rt.runPodSandbox(pod()));
    const id = sandboxIdIn(err.message);
    expect(err.message).toContain(
      `failed to setup network for sandbox "${id}": plugin type="flannel" name="cbr0" failed (add): ` +
        'error creating endpoint hcnCreateEndpoint failed in Win32: The object already exists. (0x1392) ' +
        '{"Success":false,"Error":"The object already exists. ","ErrorCode":2147947410} : endpoint config',
    );
    expect(endpointNames(host)).toEqual(['cbr0_ep']);
    // kubelet retries: host-local moved on to .3, and the gateway is cbr0_ep's .2
    const ok = await rt.runPodSandbox(pod());
    expect((await rt.podSandboxStatus(ok)).network.ip).toBe('10.244.1.3');
    const ep = endpointNamed(host, `${ok}_cbr0`)!;
    expect(ep.Routes.map((r) => [r.DestinationPrefix, r.NextHop])).toEqual([['0.0.0.0/0', '10.244.1.2']]);
  });

  it('fix: host-local `rangeStart` .3 (win-bridge configured directly): the first pod gets .3 and cbr0_ep keeps .2', async () => {
    const host = await flannelHostGwNode(113);
    const net = network(host, {
      cniVersion: '0.3.1',
      name: 'cbr0',
      plugins: [
        {
          type: 'win-bridge',
          apiVersion: 2,
          ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
        },
      ],
    });
    const rt = new ContainerdRuntime(host, { networks: [net] });
    const id = await rt.runPodSandbox(pod());
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    expect(endpointNames(host)).toEqual(['cbr0_ep', `${id}_cbr0`]);
  });

  it('flannel leaves no room for the fix: a delegate with its own `ipam` is refused', async () => {
    const host = await flannelHostGwNode(114);
    const err = await rejection(
      runner(host).addNetworkList(
        flannelConf({ type: 'win-bridge', ipam: { type: 'host-local', rangeStart: '10.244.1.3' } }),
        rtConf(cid(1), 'none'),
      ),
    );
    expect(err.message).toBe(
      `plugin type="flannel" name="cbr0" failed (add): 'delegate' dictionary must not have 'ipam' field, it'll be set by flannel`,
    );
  });
});

// ───────────────────────────── P12 ─────────────────────────────

describe('P12: sdnbridge with host-local `ranges` (microsoft/windows-container-networking#64)', () => {
  function sdn(ipam: object, optionalFlags: object = {}) {
    return conflist({
      cniVersion: '0.4.0',
      name: 'cbr0',
      plugins: [{ type: 'sdnbridge', ipam, optionalFlags }],
    });
  }
  const RANGES = { type: 'host-local', ranges: [[{ subnet: '10.244.1.0/24', rangeStart: '10.244.1.10' }]] };

  it('reproduced: WCN re-serialises its own IPAM struct, `ranges` is dropped and host-local finds none', async () => {
    const host = v1BridgeNode(121);
    const nsId = newNamespace(host);
    const err = await rejection(runner(host).addNetworkList(sdn(RANGES), rtConf(cid(1), nsId)));
    // host-local's own error (code 999), passed through by sdnbridge
    expect(err.message).toBe('plugin type="sdnbridge" failed (add): no IP ranges specified');
    expect(cniError(err).code).toBe(999);
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('fix: the legacy `subnet` key survives the re-serialisation (its `rangeStart` does not: .2 is handed out)', async () => {
    const host = v1BridgeNode(122);
    const nsId = newNamespace(host);
    const r = await runner(host).addNetworkList(
      sdn({ type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.10' }),
      rtConf(cid(1), nsId),
    );
    expect(r?.ips?.[0]?.address).toBe('10.244.1.2/24');
  });

  it('fix: `enableDualStack` passes the original bytes, so `ranges` (and its rangeStart) reach host-local', async () => {
    const host = v1BridgeNode(123);
    const nsId = newNamespace(host);
    const r = await runner(host).addNetworkList(sdn(RANGES, { enableDualStack: true }), rtConf(cid(1), nsId));
    expect(r?.ips?.[0]?.address).toBe('10.244.1.10/24');
  });
});

// ───────────────────────────── P17 ─────────────────────────────

describe('P17: docs/code drift (reference §2.1, §4.1, §5.1)', () => {
  it('`HcnPolicyArgs` (still in cni.dev win-bridge.md) was removed in plugins v1.0.0: its policies never reach HNS', async () => {
    const host = v1BridgeNode(171);
    const nsId = newNamespace(host);
    const outboundNat = { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.96.0.0/12'] } };
    const id = cid(1);
    await runner(host).addNetworkList(
      conflist({
        cniVersion: '0.3.1',
        name: 'cbr0',
        plugins: [{ type: 'win-bridge', apiVersion: 2, ipam: HOST_LOCAL, HcnPolicyArgs: [outboundNat] }],
      }),
      rtConf(id, nsId),
    );
    expect(endpointNamed(host, `${id}_cbr0`)!.Policies).toEqual([]);
    // fix: the same policy as a `policies` entry (V2 shape) with apiVersion 2
    const fixed = cid(2);
    await runner(host).addNetworkList(
      conflist({
        cniVersion: '0.3.1',
        name: 'cbr0',
        plugins: [
          {
            type: 'win-bridge',
            apiVersion: 2,
            ipam: HOST_LOCAL,
            policies: [{ name: 'EndpointPolicy', value: outboundNat }],
          },
        ],
      }),
      rtConf(fixed, nsId),
    );
    const p = endpointNamed(host, `${fixed}_cbr0`)!.Policies;
    expect(p.map((x) => [x.type, x.settings])).toMatchObject([
      ['OutBoundNAT', { exceptions: ['10.96.0.0/12'] }],
    ]);
  });

  it('flannel `ipMasq` is FLANNEL_IPMASQ as-is (README and cni.dev call it "the inverse")', async () => {
    const host = await flannelHostGwNode(172);
    const id = cid(3);
    dockerContainer(host, id);
    // .2 is cbr0_ep's (P2): the saved config is written before the delegate runs either way
    await rejection(runner(host).addNetworkList(flannelConf({ type: 'win-bridge' }), rtConf(id, 'none')));
    const saved = JSON.parse(host.files.read(`${FLANNEL_DIR}/${id}`)!) as Record<string, unknown>;
    expect(saved['ipMasq']).toBe(true);
    expect(saved['ipMasqNetwork']).toBe('10.244.0.0/16');
    expect(saved['ipam']).toEqual({ subnet: '10.244.1.0/24', type: 'host-local' });
  });

  it('`win-l2bridge` (old docs) is no plugin: libcni cannot find it', async () => {
    const host = v1BridgeNode(173);
    const err = await rejection(
      runner(host).addNetworkList(
        conflist({
          cniVersion: '0.3.1',
          name: 'cbr0',
          plugins: [{ type: 'win-l2bridge', ipam: HOST_LOCAL }],
        }),
        rtConf(cid(1), 'none'),
      ),
    );
    expect(err.message).toBe(
      `plugin type="win-l2bridge" failed (add): failed to find plugin "win-l2bridge" in path [${BIN}]`,
    );
  });

  it('WCN rejects cniVersion 0.3.1 and 1.1.0 with code 1; 0.3.0 / 0.4.0 / 1.0.0 work', async () => {
    const host = v1BridgeNode(174);
    for (const v of ['0.3.1', '1.1.0']) {
      const out = await execPlugin(host, 'sdnbridge', {
        env: {
          CNI_COMMAND: 'ADD',
          CNI_CONTAINERID: cid(1),
          CNI_NETNS: GUID_NETNS,
          CNI_IFNAME: 'eth0',
          CNI_PATH: BIN,
        },
        stdin: JSON.stringify({ cniVersion: v, name: 'cbr0', type: 'sdnbridge', ipam: HOST_LOCAL }),
      });
      expect(out.exitCode).toBe(1);
      expect(JSON.parse(out.stdout)).toEqual({
        code: 1,
        msg: 'incompatible CNI versions',
        details: `config is "${v}", plugin supports ["0.2.0" "0.3.0" "0.4.0" "1.0.0"]`,
      });
    }
    expect(endpointNames(host)).toEqual([]);
    // fix: a version WCN lists; the result comes back at that version
    const nsId = newNamespace(host);
    for (const [i, v] of ['0.3.0', '0.4.0', '1.0.0'].entries()) {
      const out = await execPlugin(host, 'sdnbridge', {
        env: {
          CNI_COMMAND: 'ADD',
          CNI_CONTAINERID: cid(i + 2),
          CNI_NETNS: nsId,
          CNI_IFNAME: 'eth0',
          CNI_PATH: BIN,
        },
        stdin: JSON.stringify({ cniVersion: v, name: 'cbr0', type: 'sdnbridge', ipam: HOST_LOCAL }),
      });
      expect(out.exitCode).toBe(0);
      expect((JSON.parse(out.stdout) as { cniVersion: string }).cniVersion).toBe(v);
    }
    expect(endpointNames(host)).toHaveLength(3);
  });

  it('WCN rejects the lower-case `l2bridge` type of its own example/l2bridge.conf; `sdnbridge` is the fix', async () => {
    const host = v1BridgeNode(175);
    // the example's binary: sdnbridge.exe installed as l2bridge.exe
    const registry = referenceRegistry([BIN]).register({ type: 'l2bridge', exec: sdnbridge.exec }, [BIN]);
    const ph = cniHost(host, registry);
    const nsId = newNamespace(host);
    const conf = (type: string) =>
      conflist({ cniVersion: '0.4.0', name: 'cbr0', plugins: [{ type, ipam: HOST_LOCAL }] });
    const err = await rejection(runner(ph).addNetworkList(conf('l2bridge'), rtConf(cid(1), nsId)));
    expect(err.message).toBe(
      `plugin type="l2bridge" failed (add): Unsupported CNI config 'type' "l2bridge". ` +
        'Options are the keys/values from: map[nat:NAT sdnbridge:L2Bridge sdnoverlay:Overlay]',
    );
    expect(cniError(err).code).toBe(999);
    expect(endpointNames(host)).toEqual([]);
    const ok = await runner(ph).addNetworkList(conf('sdnbridge'), rtConf(cid(2), nsId));
    expect(ok?.ips?.[0]?.address).toBe('10.244.1.2/24');
  });
});
