/**
 * The OpenFlow engine (src/ovs) at Antrea's scale: an uncached ofproto/trace of a pod → ClusterIP
 * packet through a synthetic 10,000-flow, 11-table pipeline shaped like Antrea's Windows one
 * (classifier, spoof guard, conntrack fork, service LB with select groups, conjunctive egress
 * rules, L3/L2 forwarding, ingress rules, ct commit, output:NXM_NX_REG1[]), the structured result
 * without text (what the dataplane will use) and with the ovs-appctl text; and reprogramming one
 * service (del-flows + add-flow). Issue 17 §5 targets: ≤ 20 µs per uncached trace, ≤ 1 ms per
 * service. See bench/README.md, "OVS".
 */
import { Bridge, trace } from '../src/ovs/index.js';
import { translate } from '../src/ovs/xlate.js';
import { parsePacket } from '../src/ovs/flowmod.js';
import { median, quantile, sampleOps, type Report } from './harness.js';
import { createHost, type Host } from '../src/host/host.js';
import { AntreaAgent, type AntreaService } from '../src/plugins/antrea/agent.js';
import { windowsTables } from '../src/plugins/antrea/pipeline.js';
import type { TraceRequest } from '../src/dataplane/trace.js';
import { buildHost, missRequest } from './trace.bench.js';

const PODS = 200;
const SERVICES = 2500;
const RULES = 900; // egress conjunctions, 3 clauses flows each + the conj_id flow
const SUBNETS = 1000;
const INGRESS = 2186;
const us = (ns: number): number => ns / 1000;

const ip = (v: number): string => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
const mac = (i: number): string =>
  `0a:00:00:${((i >> 16) & 255).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
const POD_IP = (i: number): number => (0x0a0a0000 + 2 + i) >>> 0;
const VIP = (i: number): number => (0x0a600000 + 10 + i) >>> 0;

/** Builds the pipeline; returns the bridge and the number of flows. */
export function buildPipeline(): Bridge {
  const br = new Bridge({ name: 'br-int', seed: 1 });
  br.addPort('antrea-tun0', 32768);
  br.addPort('antrea-gw0', 32769);
  for (let i = 0; i < PODS; i++) br.addPort(`pod-${i}`, i + 1);
  const lines: string[] = [];
  for (let i = 0; i < PODS; i++) {
    lines.push(`table=0,priority=190,in_port=${i + 1},actions=set_field:0x3/0xf->reg0,goto_table:1`);
    lines.push(
      `table=1,priority=200,ip,in_port=${i + 1},dl_src=${mac(i)},nw_src=${ip(POD_IP(i))},actions=goto_table:2`,
    );
  }
  lines.push('table=0,priority=0,actions=drop', 'table=1,priority=0,actions=drop');
  lines.push('table=2,priority=200,ip,actions=ct(table=3,zone=65520,nat)');
  lines.push('table=3,priority=200,ct_state=+inv+trk,ip,actions=drop');
  lines.push('table=3,priority=190,ct_state=-new+trk,ip,actions=goto_table:5');
  lines.push('table=3,priority=0,actions=goto_table:4');
  for (let i = 0; i < SERVICES; i++) {
    br.addGroup(
      `group_id=${i + 1},type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x${POD_IP((i + 1) % PODS).toString(16)}->reg3,set_field:0x50/0xffff->reg4,set_field:${ip(POD_IP((i + 1) % PODS))}->nw_dst,resubmit(,5),bucket=bucket_id:1,weight:100,actions=set_field:0x${POD_IP((i + 7) % PODS).toString(16)}->reg3,set_field:0x50/0xffff->reg4,set_field:${ip(POD_IP((i + 7) % PODS))}->nw_dst,resubmit(,5)`,
    );
    lines.push(
      `table=4,priority=200,tcp,reg4=0x10000/0x70000,nw_dst=${ip(VIP(i))},tp_dst=80,actions=set_field:0x${(i + 1).toString(16)}->reg7,group:${i + 1}`,
    );
  }
  lines.push('table=4,priority=0,actions=goto_table:5');
  for (let r = 0; r < RULES; r++) {
    lines.push(`table=5,priority=200,ip,nw_src=${ip(POD_IP(r % PODS))},actions=conjunction(${r + 1},1/3)`);
    // one rule in nine allows the pods' subnet on port 80: a service's traffic completes it
    const open = r % 9 === 0;
    lines.push(
      `table=5,priority=200,ip,nw_dst=${open ? '10.10.0.0/16' : `${ip(0x0a0b0000 + r * 16)}/28`},actions=conjunction(${r + 1},2/3)`,
    );
    lines.push(`table=5,priority=200,tcp,tp_dst=${open ? 80 : 1000 + r},actions=conjunction(${r + 1},3/3)`);
    lines.push(
      `table=5,priority=200,conj_id=${r + 1},ip,actions=set_field:0x${(r + 1).toString(16)}->reg5,goto_table:6`,
    );
  }
  lines.push('table=5,priority=0,actions=goto_table:6');
  for (let s = 0; s < SUBNETS; s++)
    lines.push(
      `table=6,priority=200,ip,nw_dst=${ip((0x0a0a0000 + (s << 8)) >>> 0)}/24,actions=set_field:0a:00:00:00:00:01->eth_src,set_field:${mac(s % PODS)}->eth_dst,goto_table:7`,
    );
  // the local pods' /32 routes (a service's backend is one of them: its own port)
  for (let i = 0; i < PODS; i++)
    lines.push(
      `table=6,priority=210,ip,nw_dst=${ip(POD_IP(i))},actions=set_field:0a:00:00:00:00:01->eth_src,set_field:${mac(i)}->eth_dst,goto_table:7`,
    );
  lines.push('table=6,priority=0,actions=goto_table:7');
  for (let i = 0; i < SUBNETS; i++)
    lines.push(
      `table=7,priority=200,dl_dst=${mac(i)},actions=set_field:0x${((i % PODS) + 1).toString(16)}->reg1,goto_table:8`,
    );
  lines.push('table=7,priority=0,actions=goto_table:8');
  for (let r = 0; r < INGRESS; r++)
    lines.push(
      `table=8,priority=${100 + (r % 50)},ip,reg1=0x${((r % PODS) + 1).toString(16)},nw_src=${ip((0x0b000000 + r * 256) >>> 0)}/24,actions=drop`,
    );
  lines.push('table=8,priority=0,actions=goto_table:9');
  lines.push(
    'table=9,priority=200,ct_state=+new+trk,ip,actions=ct(commit,table=10,zone=65520,exec(set_field:0x3/0xf->ct_mark))',
  );
  lines.push('table=9,priority=0,actions=goto_table:10');
  lines.push('table=10,priority=200,actions=output:NXM_NX_REG1[]');
  br.addFlows(lines.join('\n'));
  return br;
}

export async function run(report: Report, opts: { quick: boolean }): Promise<void> {
  const br = buildPipeline();
  const flows = br.flowCount;
  const batch = opts.quick ? 200 : 1000;
  const samples = opts.quick ? 5 : 15;
  const packets = Array.from({ length: batch }, (_, i) =>
    parsePacket(
      `in_port=${(i % PODS) + 1},tcp,dl_src=${mac(i % PODS)},nw_src=${ip(POD_IP(i % PODS))},nw_dst=${ip(VIP(i % SERVICES))},tp_src=${10000 + i},tp_dst=80,reg4=0x10000`,
      br,
    ),
  );
  // sanity: the traced packet's first pass forks to conntrack …
  const check = trace(br, packets[0]!, { selectBuckets: 'pick' });
  if (!/^ct\(zone=65520,nat\),recirc\(0x1\)$/.test(check.passes[0]!.datapathActions))
    throw new Error(`unexpected first pass: ${check.passes[0]!.datapathActions}`);
  if (check.passes.length !== 3) throw new Error(`expected 3 passes, got ${check.passes.length}`);
  // … and walks the whole pipeline: the service's flow, L3 and L2 forwarding hit flows (not
  // their tables' misses), and the last pass outputs to the backend pod's port
  const hits = check.passes[1]!.lookups.filter((l) => !l.miss && (l.priority ?? 0) > 0).map((l) => l.table);
  for (const t of [4, 6, 7])
    if (!hits.includes(t))
      throw new Error(`the traced packet hits no flow in table ${t} (hits: ${hits.join(',')})`);
  const backend = ((1 % PODS) + 1).toString(); // service 0's first bucket: pod 1, port 2 (picked)
  if (check.outputs.length !== 1 || String(check.outputs[0]!.port) !== backend)
    throw new Error(
      `the traced packet is not output to its backend's port ${backend}: ${check.datapathActions}`,
    );
  // and some of the measured packets complete an egress rule's conjunction in table 5
  const conj = packets.filter((pk) =>
    trace(br, pk, { selectBuckets: 'pick' }).passes[1]!.lookups.some(
      (l) => l.table === 5 && (l.match ?? '').includes('conj_id='),
    ),
  ).length;
  if (conj === 0) throw new Error('no measured packet completes a conjunction in table 5');
  const structured = await sampleOps({
    samples,
    batch,
    warmup: 2,
    op: (i) => void translate(br, packets[i]!, { run: false, text: false, selectBuckets: 'pick' }),
  });
  report({
    name: `ovs trace pod→ClusterIP @${flows} flows median`,
    value: us(median(structured.wall)),
    unit: 'µs',
    target: { max: 20 },
    note: 'uncached, structured result (3 passes, ~12 lookups)',
  });
  report({ name: 'ovs trace p95', value: us(quantile(structured.wall, 0.95)), unit: 'µs' });
  report({ name: 'ovs trace cpu median', value: us(median(structured.cpu)), unit: 'µs' });
  const withText = await sampleOps({
    samples,
    batch: Math.max(50, batch / 4),
    warmup: 1,
    op: (i) => void translate(br, packets[i]!, { run: false, text: true, selectBuckets: 'pick' }),
  });
  report({ name: 'ovs trace with ofproto/trace text median', value: us(median(withText.wall)), unit: 'µs' });
  let k = 0;
  const reprogram = await sampleOps({
    samples,
    batch: opts.quick ? 20 : 100,
    op: () => {
      const i = k++ % SERVICES;
      br.delFlows(`table=4,tcp,nw_dst=${ip(VIP(i))},tp_dst=80`, {});
      br.addFlow(
        `table=4,priority=200,tcp,reg4=0x10000/0x70000,nw_dst=${ip(VIP(i))},tp_dst=80,actions=set_field:0x${(i + 1).toString(16)}->reg7,group:${i + 1}`,
      );
    },
  });
  report({
    name: 'ovs reprogram one service median',
    value: median(reprogram.wall) / 1e6,
    unit: 'ms',
    target: { max: 1 },
  });
  await antrea(report, opts);
}

// ───────────── Antrea's real Windows pipeline (src/plugins/antrea), beside a VFP trace ─────────────

const ANTREA_PODS = 300;
const ANTREA_SERVICES = 7500;

/**
 * An Antrea node as the agent programs it: `ANTREA_PODS` pods attached through its CNI server and
 * `ANTREA_SERVICES` ClusterIP Services (two local endpoints each, target ports spread over ten), so
 * about 10,000 flows in the 29 tables.
 */
export function buildAntreaNode(): {
  host: Host;
  agent: AntreaAgent;
  services: AntreaService[];
  pods: ReturnType<AntreaAgent['pods']>;
} {
  const host = createHost({
    name: 'win-a',
    seed: 1,
    adapters: [{ name: 'Ethernet0', ipAddress: '192.168.77.100/24', gateway: '192.168.77.1' }],
  });
  const agent = new AntreaAgent(host, { podCidr: '10.10.0.0/22' });
  agent.start();
  for (let i = 0; i < ANTREA_PODS; i++) {
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    if (!ns.ok) throw new Error(ns.message);
    agent.cmdAdd({
      containerId: i.toString(16).padStart(64, '0'),
      netns: String((ns.result as { ID: string }).ID),
      podName: `p${i}`,
      podNamespace: 'default',
    });
  }
  const pods = agent.pods();
  const services: AntreaService[] = Array.from({ length: ANTREA_SERVICES }, (_, i) => ({
    key: `default/s${i}:80/TCP`,
    clusterIP: ip(VIP(i)),
    port: 80,
    protocol: 'TCP',
    // (never the pod that traces to it: packet i comes from pod i, and 7i+3 ≢ i mod 300, 6i+3 being odd)
    endpoints: [pods[(i + 1) % ANTREA_PODS]!, pods[(i * 7 + 3) % ANTREA_PODS]!].map((p, k) => ({
      ip: p.ip,
      port: 8000 + ((i + k) % 10),
      local: true,
    })),
  }));
  agent.setServices(services);
  return { host, agent, services, pods };
}

async function antrea(report: Report, opts: { quick: boolean }): Promise<void> {
  const { host, agent, services, pods } = buildAntreaNode();
  const br = host.ovs.bridge('br-int')!;
  const flows = br.flowCount;
  const gw = String(host.adapters().find((a) => a['Name'] === 'antrea-gw0')!['MacAddress'])
    .toLowerCase()
    .replace(/-/g, ':');
  const batch = opts.quick ? 200 : 1000;
  const samples = opts.quick ? 5 : 15;
  const macs = pods.map((p) =>
    String(host.hns.store.endpoints.get(p.endpointId)!.MacAddress).toLowerCase().replace(/-/g, ':'),
  );
  const packets = Array.from({ length: batch }, (_, i) => {
    const p = pods[i % pods.length]!;
    return parsePacket(
      `in_port=${p.ofport},tcp,dl_src=${macs[i % pods.length]},dl_dst=${gw},nw_src=${p.ip},nw_dst=${ip(VIP(i % ANTREA_SERVICES))},nw_ttl=64,tp_src=${10000 + i},tp_dst=80`,
      br,
    );
  });
  // the traced packet walks Antrea's pipeline: ServiceLB and EndpointDNAT hit the Service's flows,
  // L3 and L2 forwarding the endpoint's, and it leaves on the endpoint pod's port
  const check = trace(br, packets[0]!, { selectBuckets: 'pick' });
  const tables = windowsTables(agent);
  const hits = check.passes.flatMap((ps) =>
    ps.lookups.filter((l) => !l.miss && (l.priority ?? 0) > 0).map((l) => tables[l.table]),
  );
  for (const t of ['ServiceLB', 'EndpointDNAT', 'L3Forwarding', 'L2ForwardingCalc'])
    if (!hits.includes(t))
      throw new Error(`the traced packet hits no flow in ${t} (hits: ${hits.join(',')})`);
  // the ordinary path (not a hairpin: no SNAT pass, not back out of its own port)
  const eps = new Set(services[0]!.endpoints.map((e) => pods.find((p) => p.ip === e.ip)!.ofport));
  if (check.outputs.length !== 1 || !eps.has(check.outputs[0]!.port) || eps.has(pods[0]!.ofport))
    throw new Error(`the traced packet is not output to another endpoint's port: ${check.datapathActions}`);
  if (check.passes.length !== 4)
    throw new Error(`the traced packet takes ${check.passes.length} passes, not the ordinary 4`);
  const structured = await sampleOps({
    samples,
    batch,
    warmup: 2,
    op: (i) => void translate(br, packets[i]!, { run: false, text: false, selectBuckets: 'pick' }),
  });
  report({
    name: `ovs trace pod→ClusterIP through Antrea's pipeline @${flows} flows median`,
    value: us(median(structured.wall)),
    unit: 'µs',
    target: { max: 20 },
    note: `uncached, structured result (${check.passes.length} passes, ${check.passes.reduce((n, ps) => n + ps.lookups.length, 0)} lookups): ${ANTREA_PODS} pods, ${ANTREA_SERVICES} Services as the agent programs them`,
  });
  // beside it, in the same run: the same question on VFP (a pod → ClusterIP trace through 1,000
  // ACLs and 10,000 load balancers, bench/trace.bench.ts's host), uncached
  const vfp = await buildHost(1, opts.quick ? 2000 : 10000);
  let k = 0;
  let reqs: TraceRequest[] = [];
  const vfpS = await sampleOps({
    samples,
    batch: opts.quick ? 100 : 500,
    warmup: 1,
    prepare: () => {
      vfp.host.flowTable.clear();
      reqs = Array.from({ length: opts.quick ? 100 : 500 }, () => missRequest(vfp, k++));
    },
    op: (i) => void vfp.host.trace(reqs[i]!),
  });
  report({
    name: 'VFP trace pod→ClusterIP (same run) median',
    value: us(median(vfpS.wall)),
    unit: 'µs',
    note: `host.trace, uncached, ${vfp.lbCount} load balancers and 1,000 ACLs (bench/trace.bench.ts's host): the figure beside OVS's`,
  });
  // the same question through the node's dataplane (host.trace: the Hyper-V port, OVS's walk with
  // its steps and NAT, delivery), uncached: the figure to set beside VFP's row
  let h = 0;
  const dataplane = await sampleOps({
    samples,
    batch: opts.quick ? 50 : 200,
    warmup: 1,
    prepare: () => host.flowTable.clear(),
    op: () => {
      const i = h++;
      const p = pods[i % pods.length]!;
      void host.trace({
        from: p.interface,
        to: ip(VIP(i % ANTREA_SERVICES)),
        protocol: 'tcp',
        sourcePort: 20000 + (i % 40000),
        destinationPort: 80,
      });
    },
  });
  report({
    name: 'host.trace pod→ClusterIP on the Antrea node median',
    value: us(median(dataplane.wall)),
    unit: 'µs',
    note: 'the whole walk through the node (trace steps for every OpenFlow lookup, NAT, delivery), uncached: what the VFP row times on its host',
  });
  // one Service changed (an endpoint moves): the agent removes its flows and group and adds the new ones
  let j = 0;
  const reprogram = await sampleOps({
    samples,
    batch: opts.quick ? 20 : 100,
    op: () => {
      const i = j++ % ANTREA_SERVICES;
      const s = services[i]!;
      const moved = pods[(i + j) % pods.length]!;
      agent.updateService({
        ...s,
        endpoints: [s.endpoints[0]!, { ip: moved.ip, port: 8000 + (j % 10), local: true }],
      });
    },
  });
  report({
    name: 'ovs reprogram one Antrea Service median',
    value: median(reprogram.wall) / 1e6,
    unit: 'ms',
    target: { max: 1 },
    note: "AntreaAgent.updateService: the Service's ServiceLB, group and endpoint flows replaced (del-flows --strict, del-groups, add-group, add-flows)",
  });
}
