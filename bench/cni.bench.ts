/**
 * Benchmarks of the CNI layer: containerd RunPodSandbox + StopPodSandbox with win-bridge (v2) through
 * the conflist runner, median ≤ 500 µs; 1,000 pods on one node in ≤ 0.6 s (issue 15; issue 8 set
 * 100 µs and 0.5 s, which the faithful path, ~25 flat-API calls and 4 plugin executions a pod, does
 * not reach: bench/README.md). The node
 * is the e2e test's (test/runtime/e2e.test.ts) on a /16: an L2Bridge network `cbr0` bound to the
 * adapter, containerd with the conflist win-bridge `apiVersion: 2` + host-local run by libcni's
 * runner (`CniRunner` over `pluginHost` and the reference plugins). Information beside the targets:
 * a CNI ADD+DEL alone through the runner, host-local alone, and the pod cycle beside 1,000 live pods
 * over the same on an empty node (the cost must not grow with the population).
 *
 * Azure CNI (issue 16): the same pod cycle on an AKS-like node — an Azure VM with 30 secondary IPs,
 * the `ext` network, containerd with azure-vnet + azure-vnet-ipam (which reads the wireserver's
 * document and both state files at every invocation) — alternating with win-bridge's empty node
 * in the same rounds: its median ≤ 1.5× win-bridge's. The target's conflist gives the endpoint
 * the policy win-bridge's gives (one OutBoundNAT with its exceptions), so that the ratio measures
 * the plugins, not HNS compiling more policies; AgentBaker's full conflist (OutBoundNAT, a ROUTE,
 * four ACLs) is measured beside it, for information.
 */
import { confListFromBytes } from '../src/cni/conf.js';
import type { RuntimeConf } from '../src/cni/contracts.js';
import { pluginHost, type CniHost } from '../src/cni/host.js';
import { CniRunner } from '../src/cni/runner.js';
import { createHost, type Host } from '../src/host/host.js';
import { hostLocal, referenceRegistry } from '../src/plugins/index.js';
import type { PodSandboxConfig } from '../src/runtime/contracts.js';
import { ContainerdRuntime } from '../src/runtime/containerd.js';
import {
  addSamples,
  cpuNs,
  emptySamples,
  getGc,
  median,
  quantile,
  sampleAsyncOps,
  tick,
  type Report,
  type Samples,
} from './harness.js';

const NS_PER_US = 1000;
const BIN = 'C:\\opt\\cni\\bin';
/** The pod subnet: a /16, so that 1,000 pods (and the cycles on top of them) fit. */
const POD_CIDR = '10.244.0.0/16';

/** The conflist kubelet's containerd would load: win-bridge over HCN with host-local (e2e test). */
const CONFLIST = {
  cniVersion: '0.3.1',
  name: 'cbr0',
  plugins: [
    {
      type: 'win-bridge',
      apiVersion: 2,
      capabilities: { portMappings: true, dns: true },
      ipam: { type: 'host-local', subnet: POD_CIDR },
      policies: [
        {
          name: 'EndpointPolicy',
          value: { Type: 'OutBoundNAT', Settings: { Exceptions: [POD_CIDR, '10.96.0.0/12'] } },
        },
      ],
    },
  ],
};

/** host-local's config as win-bridge hands it over (the network's name, version and ipam). */
const HOST_LOCAL_CONF = JSON.stringify({
  cniVersion: '0.3.1',
  name: 'bench-hl',
  ipam: { type: 'host-local', subnet: POD_CIDR },
});

interface Node {
  readonly host: Host;
  readonly plugins: CniHost;
  readonly runner: CniRunner;
  readonly rt: ContainerdRuntime;
  readonly list: ReturnType<typeof confListFromBytes>;
}

/** A node as test/runtime/e2e.test.ts builds one (on a /16), with containerd over the conflist. */
function node(seed: number): Node {
  const host = createHost({
    seed,
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '192.168.1.11/24',
        gateway: '192.168.1.1',
        macAddress: '00-0D-3A-11-22-33',
      },
    ],
  });
  const r = host.api.HcnCreateNetwork(null, {
    Name: 'cbr0',
    Type: 'L2Bridge',
    Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          { IpAddressPrefix: POD_CIDR, Routes: [{ NextHop: '10.244.0.1', DestinationPrefix: '0.0.0.0/0' }] },
        ],
      },
    ],
    SchemaVersion: { Major: 2, Minor: 0 },
  });
  if (!r.ok) throw new Error(r.message);
  const plugins = pluginHost(host, referenceRegistry([BIN]));
  const runner = new CniRunner(plugins, { path: [BIN] });
  const list = confListFromBytes(JSON.stringify(CONFLIST));
  const rt = new ContainerdRuntime(host, { networks: [{ list, runner }], seed });
  return { host, plugins, runner, rt, list };
}

/** AgentBaker's AKS conflist (`AzureCNI.Expect.DisableWinDSR.conflist`) for a 10.224.0.0/16 VNet. */
const AKS_CONFLIST = {
  cniVersion: '0.3.0',
  name: 'azure',
  adapterName: '',
  plugins: [
    {
      type: 'azure-vnet',
      mode: 'bridge',
      bridge: 'azure0',
      capabilities: { portMappings: true, dns: true },
      ipam: { type: 'azure-vnet-ipam' },
      dns: { Nameservers: ['10.0.0.10', '168.63.129.16'], Search: ['svc.cluster.local'] },
      AdditionalArgs: [
        {
          Name: 'EndpointPolicy',
          Value: { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12', '10.224.1.0/12'] },
        },
        {
          Name: 'EndpointPolicy',
          Value: { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/16', NeedEncap: true },
        },
        ...[80, 32526].map((port) => ({
          Name: 'EndpointPolicy',
          Value: {
            Type: 'ACL',
            Protocols: '6',
            Action: 'Block',
            Direction: 'Out',
            RemoteAddresses: '168.63.129.16/32',
            RemotePorts: String(port),
            Priority: 200,
            RuleType: 'Switch',
          },
        })),
        { Name: 'EndpointPolicy', Value: { Type: 'ACL', Action: 'Allow', Direction: 'In', Priority: 65500 } },
        {
          Name: 'EndpointPolicy',
          Value: { Type: 'ACL', Action: 'Allow', Direction: 'Out', Priority: 65500 },
        },
      ],
    },
  ],
};

/** The azure-vnet conflist with win-bridge's endpoint policy only (one OutBoundNAT). */
const AZURE_LIKE_BRIDGE = {
  ...AKS_CONFLIST,
  plugins: [
    {
      ...AKS_CONFLIST.plugins[0]!,
      AdditionalArgs: [
        {
          Name: 'EndpointPolicy',
          Value: { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/16', '10.96.0.0/12'] },
        },
      ],
    },
  ],
};

/** An AKS Windows node: an Azure VM (30 secondary IPs: AKS's default max pods), `ext`, containerd. */
function azureNode(seed: number, conflist: object = AKS_CONFLIST): Node {
  const host = createHost({
    seed,
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '10.224.0.4/16',
        gateway: '10.224.0.1',
        macAddress: '00-0D-3A-11-22-44',
      },
    ],
    azure: {
      nics: [
        { adapter: 'Ethernet', secondaryIps: Array.from({ length: 30 }, (_, i) => `10.224.0.${5 + i}`) },
      ],
    },
  });
  const r = host.api.HcnCreateNetwork(null, {
    Name: 'ext',
    Type: 'L2Bridge',
    Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '192.168.255.0/30',
            Routes: [{ NextHop: '192.168.255.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
    SchemaVersion: { Major: 2, Minor: 0 },
  });
  if (!r.ok) throw new Error(r.message);
  const bin = 'C:\\k\\azurecni\\bin';
  const plugins = pluginHost(host, referenceRegistry([bin]));
  const runner = new CniRunner(plugins, { path: [bin] });
  const list = confListFromBytes(JSON.stringify(conflist));
  const rt = new ContainerdRuntime(host, { networks: [{ list, runner }], seed });
  return { host, plugins, runner, rt, list };
}

/** Pod names are unique over the whole run (a node may see many rounds). */
let podSeq = 0;

/** The pod config kubelet sends: metadata and the cluster DNS (no host ports: most pods have none). */
function podConfig(): PodSandboxConfig {
  const i = podSeq++;
  return {
    metadata: { name: `web-${i}`, namespace: 'default', uid: `uid-${i}`, attempt: 0 },
    hostname: `web-${i}`,
    dnsConfig: {
      servers: ['10.96.0.10'],
      searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      options: ['ndots:5'],
    },
  };
}

/**
 * RunPodSandbox + StopPodSandbox of fresh pods on `n` (the timed operation); each sample's pods
 * are removed (RemovePodSandbox) before the next sample, untimed, so the population stays put.
 */
async function podCycles(n: Node, samples: number, batch: number, warmup = 0): Promise<Samples> {
  const stopped: string[] = [];
  const configs: PodSandboxConfig[] = [];
  return sampleAsyncOps({
    samples,
    batch,
    warmup,
    prepare: async () => {
      for (const id of stopped) await n.rt.removePodSandbox(id);
      stopped.length = 0;
      configs.length = 0;
      for (let i = 0; i < batch; i++) configs.push(podConfig());
    },
    op: async (i) => {
      const id = await n.rt.runPodSandbox(configs[i]!);
      await n.rt.stopPodSandbox(id);
      stopped.push(id);
    },
  }).finally(async () => {
    for (const id of stopped) await n.rt.removePodSandbox(id);
  });
}

/** Sandbox IDs for the runner and host-local figures: 64 hex digits, unique over the run. */
let cidSeq = 0;
function containerId(): string {
  return (cidSeq++).toString(16).padStart(64, 'c');
}

/**
 * CNI ADD then DEL of the conflist through `CniRunner` alone (no runtime): each ADD names a
 * namespace made before the sample (HCN `HcnCreateNamespace`), deleted after it.
 */
async function runnerCycles(n: Node, samples: number, batch: number): Promise<Samples> {
  let namespaces: string[] = [];
  const conf = (i: number): RuntimeConf => ({
    containerId: containerId(),
    netns: namespaces[i]!,
    ifName: 'eth0',
    args: [
      ['IgnoreUnknown', '1'],
      ['K8S_POD_NAMESPACE', 'default'],
      ['K8S_POD_NAME', `runner-${i}`],
    ],
    capabilityArgs: {
      dns: { Servers: ['10.96.0.10'], Searches: ['default.svc.cluster.local'], Options: null },
    },
  });
  const dropNamespaces = () => {
    for (const id of namespaces) n.host.api.HcnDeleteNamespace(id);
    namespaces = [];
  };
  return sampleAsyncOps({
    samples,
    batch,
    warmup: 2,
    prepare: () => {
      dropNamespaces();
      for (let i = 0; i < batch; i++) {
        const r = n.host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
        if (!r.ok) throw new Error(r.message);
        namespaces.push(String(r.result['ID']));
      }
    },
    op: async (i) => {
      const rt = conf(i);
      await n.runner.addNetworkList(n.list, rt);
      await n.runner.delNetworkList(n.list, rt);
    },
  }).finally(dropNamespaces);
}

/** host-local alone, as win-bridge delegates to it: ADD then DEL with the same container ID. */
async function hostLocalCycles(n: Node, samples: number, batch: number): Promise<Samples> {
  const stdin = Buffer.from(HOST_LOCAL_CONF, 'utf8');
  const env = (command: string, cid: string): Record<string, string> => ({
    CNI_COMMAND: command,
    CNI_CONTAINERID: cid,
    CNI_NETNS: 'none',
    CNI_IFNAME: 'eth0',
    CNI_ARGS: 'IgnoreUnknown=1',
    CNI_PATH: BIN,
  });
  return sampleAsyncOps({
    samples,
    batch,
    warmup: 2,
    op: async () => {
      const cid = containerId();
      const add = await n.plugins.run(hostLocal, { env: env('ADD', cid), stdin }, 0);
      if (add.exitCode !== 0) throw new Error(`host-local ADD failed: ${add.stdout}`);
      const del = await n.plugins.run(hostLocal, { env: env('DEL', cid), stdin }, 0);
      if (del.exitCode !== 0) throw new Error(`host-local DEL failed: ${del.stdout}`);
    },
  });
}

/** `count` pods on `n` (RunPodSandbox each, kept running): the wall and CPU milliseconds it took. */
async function fill(n: Node, count: number): Promise<{ wallMs: number; cpuMs: number }> {
  const configs = Array.from({ length: count }, podConfig);
  // what earlier modules (or fills) left behind is collected first, not during the fill
  await tick();
  gc();
  const c0 = cpuNs();
  const t0 = process.hrtime.bigint();
  for (const c of configs) await n.rt.runPodSandbox(c);
  const t1 = process.hrtime.bigint();
  const c1 = cpuNs();
  if (n.rt.listPodSandbox().length < count) throw new Error('not every pod is running');
  return { wallMs: Number(t1 - t0) / 1e6, cpuMs: (c1 - c0) / 1e6 };
}

const us = (ns: number): number => ns / NS_PER_US;
const gc = getGc();

export async function run(report: Report, opts: { quick?: boolean } = {}): Promise<void> {
  const quick = opts.quick === true;
  const batch = 10;
  const PODS = 1000;

  // ── the target: RunPodSandbox + StopPodSandbox on a node with no other pod
  await tick();
  gc(); // the heap earlier modules left is not this module's to collect
  const empty = node(42);
  await podCycles(empty, quick ? 5 : 20, batch, 3); // warm-up (JIT)
  // ── the same beside 1,000 running pods, in rounds alternating with the empty node (whichever is
  // measured first is slower while the JIT settles)
  const busy = node(43);
  const busyFill = await fill(busy, PODS);
  const rounds = quick ? 2 : 5;
  const perRound = quick ? 10 : 30;
  const atZero = emptySamples();
  const atPods = emptySamples();
  for (let r = 0; r < rounds; r++) {
    addSamples(atZero, await podCycles(empty, perRound, batch));
    addSamples(atPods, await podCycles(busy, perRound, batch));
  }
  const cycleNote = `containerd RunPodSandbox (HCN namespace, CNI ADD: win-bridge apiVersion 2 → host-local, libcni cache, pause container) + StopPodSandbox (pause stopped, CNI DEL, namespace removed) of a fresh pod; ${atZero.wall.length} samples × ${batch} pods in ${rounds} rounds alternating with the ${PODS}-pod node; RemovePodSandbox untimed between samples`;
  report({
    name: 'cni RunPodSandbox+StopPodSandbox median',
    value: us(median(atZero.wall)),
    unit: 'µs',
    target: { max: 500 },
    note: cycleNote,
  });
  report({
    name: 'cni RunPodSandbox+StopPodSandbox p95',
    value: us(quantile(atZero.wall, 0.95)),
    unit: 'µs',
  });
  report({ name: 'cni RunPodSandbox+StopPodSandbox cpu median', value: us(median(atZero.cpu)), unit: 'µs' });
  report({
    name: `cni RunPodSandbox+StopPodSandbox @${PODS} pods median`,
    value: us(median(atPods.wall)),
    unit: 'µs',
  });
  report({
    name: `cni pod cycle ratio ${PODS}/0 pods`,
    value: median(atPods.wall) / median(atZero.wall),
    unit: '×',
    target: { max: 1.5 },
    note: `median RunPodSandbox+StopPodSandbox beside ${PODS} running pods over the same on an empty node (cpu: ${(median(atPods.cpu) / median(atZero.cpu)).toFixed(2)}×)`,
  });

  // ── the target: azure-vnet's pod cycle beside win-bridge's, in the same rounds (and the full
  // AKS conflist beside them, for information)
  const azure = azureNode(45, AZURE_LIKE_BRIDGE);
  const aks = azureNode(46);
  await podCycles(azure, quick ? 5 : 20, batch, 3);
  await podCycles(aks, quick ? 5 : 20, batch, 3);
  const azureS = emptySamples();
  const aksS = emptySamples();
  const bridgeS = emptySamples();
  // (the order turns every round: what runs right after another node pays for its garbage)
  const trio: [Node, Samples][] = [
    [empty, bridgeS],
    [azure, azureS],
    [aks, aksS],
  ];
  for (let r = 0; r < rounds * 2; r++) {
    for (let k = 0; k < trio.length; k++) {
      const [n, into] = trio[(k + r) % trio.length]!;
      gc();
      addSamples(into, await podCycles(n, perRound, batch));
    }
  }
  report({
    name: 'cni azure-vnet RunPodSandbox+StopPodSandbox median',
    value: us(median(azureS.wall)),
    unit: 'µs',
    note: `containerd with azure-vnet → azure-vnet-ipam (wireserver document, azure-vnet.json and azure-vnet-ipam.json read and written at every invocation), the endpoint policy win-bridge's conflist gives (one OutBoundNAT), on an Azure VM with 30 secondary IPs; ${azureS.wall.length} samples × ${batch} pods in ${rounds} rounds alternating with win-bridge's empty node`,
  });
  report({
    name: 'cni azure-vnet / win-bridge pod cycle ratio',
    value: median(azureS.wall) / median(bridgeS.wall),
    unit: '×',
    target: { max: 1.5 },
    note: `median azure-vnet pod cycle over win-bridge's (${us(median(bridgeS.wall)).toFixed(0)} µs) in the same rounds (cpu: ${(median(azureS.cpu) / median(bridgeS.cpu)).toFixed(2)}×)`,
  });
  report({
    name: 'cni azure-vnet AKS conflist pod cycle median',
    value: us(median(aksS.wall)),
    unit: 'µs',
    note: `the same with AgentBaker's conflist (OutBoundNAT, ROUTE → SDNRoute, four ACLs): ${(median(aksS.wall) / median(bridgeS.wall)).toFixed(2)}× win-bridge's`,
  });

  // ── the target: 1,000 pods on one node
  const fills = [busyFill];
  for (let k = 1; k < (quick ? 1 : 3); k++) {
    await tick();
    fills.push(await fill(node(100 + k), PODS));
  }
  const wall = fills.map((f) => f.wallMs);
  report({
    name: `cni ${PODS} pods on one node`,
    value: median(wall) / 1000,
    unit: 's',
    target: { max: 0.6 },
    note: `${PODS} × RunPodSandbox on a fresh node, one after the other, all left running; median of ${fills.length} node(s) (${wall.map((w) => w.toFixed(0)).join(', ')} ms; cpu ${fills.map((f) => f.cpuMs.toFixed(0)).join(', ')} ms)`,
  });
  report({
    name: `cni ${PODS} pods on one node cpu`,
    value: median(fills.map((f) => f.cpuMs)) / 1000,
    unit: 's',
    note: 'process CPU time of the same fills (median): the figure to compare on a busy machine',
  });

  // ── information: the runner alone, host-local alone
  const n2 = node(44);
  const runnerS = await runnerCycles(n2, quick ? 20 : 60, batch);
  report({
    name: 'cni ADD+DEL (CniRunner, conflist) median',
    value: us(median(runnerS.wall)),
    unit: 'µs',
    note: 'libcni AddNetworkList + DelNetworkList of the win-bridge (v2) + host-local conflist into an existing HCN namespace, no runtime around it',
  });
  report({ name: 'cni ADD+DEL (CniRunner) cpu median', value: us(median(runnerS.cpu)), unit: 'µs' });
  const hl = await hostLocalCycles(n2, quick ? 20 : 60, batch);
  report({
    name: 'cni host-local ADD+DEL median',
    value: us(median(hl.wall)),
    unit: 'µs',
    note: 'host-local exec ADD then DEL (skel, config, the disk store) as win-bridge delegates to it',
  });
}
