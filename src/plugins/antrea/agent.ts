/**
 * The Antrea agent on a Windows node (reference ovs-windows.md §1, §2; docs/antrea.md): it
 * prepares the node as pkg/agent/agent_windows.go does — the Transparent HNS network
 * `antrea-hnsnetwork` over the uplink (HNS v1, with the management IP and source MAC), the
 * management vNIC renamed to `br-int`, the Open vSwitch Extension enabled, ovs-vswitchd, the
 * bridge `br-int` with the uplink (32770), `antrea-gw0` (32769, a new host vNIC holding the pod
 * subnet's gateway) and the tunnel `antrea-tun0` (32768, Geneve by default, `local_ip` the node's
 * address) — and programs its pipeline (./pipeline.ts) from what it knows: its pods, the other
 * nodes, the Services and the NetworkPolicies; each change adds and removes only its own flows
 * and groups, as Antrea installs per object (`program()` reprograms everything).
 *
 * Its CNI server does what pkg/agent/cniserver does for a pod on Windows (§1.5, §1.6): the
 * interface name from the pod name and infra container ID, an address from the node's pod subnet,
 * the HNS v1 endpoint without MAC or policies, the attach to the pod's namespace, the OVS port named
 * after the endpoint with Antrea's external IDs, made `internal` once the vNIC exists, and the pod's
 * flows; DEL undoes them in Antrea's order (flows, OVS port, detach, endpoint). Once started it
 * serves that CNI server on the node's named pipe `\\.\pipe\cnisock` (./cniserver.ts), where the
 * `antrea` CNI binary (./cni.ts) sends a runtime's requests. A started agent is the node's
 * (`antreaOf(host)`) and in its snapshot (`agents.antrea`, src/host/agents.ts; `toState`, ./state.ts):
 * a restored node has it again, rebuilt without `start()`'s side effects and serving the pipe.
 *
 *   const agent = new AntreaAgent(host, { podCidr: '10.10.0.0/24' });
 *   agent.start();
 *   agent.addPeer({ name: 'win-2', nodeIp: '192.168.77.101', podCidr: '10.10.1.0/24' });
 *   const r = agent.cmdAdd({ containerId, netns, podName: 'web', podNamespace: 'default' });
 */
import { OVS_EXTENSION_ID } from '../../hns/extensions.js';
import { errorMessage, HnsError, hnsError, isHnsError } from '../../core/errors.js';
import { isJsonObject, type Json, type JsonObject } from '../../core/json.js';
import type { Host } from '../../host/host.js';
import { registerNodeAgentKind, type NodeAgent } from '../../host/agents.js';
import type { Bridge } from '../../ovs/index.js';
import { formatIp, parseIp, parsePrefix, prefixContains } from '../../addr/ip.js';
import { parseAntreaState, type AntreaAgentState } from './state.js';

type Prefix = { readonly family: 4; readonly addr: number; readonly len: number };
import { containerInterfaceName } from './naming.js';
import { AntreaIpamError, ANTREA_CNI_SOCKET, serveCni } from './cniserver.js';
import {
  ANTREA_PORTS,
  initFlows,
  missFlows,
  nodeFlows,
  podFlows,
  realize,
  rootFlows,
  serviceFlows,
  serviceGroup,
  serviceInitFlows,
  endpointFlows,
  nodePortFlows,
  VIRTUAL_NODEPORT_DNAT_IP,
  VIRTUAL_SERVICE_IP,
  policyFlows,
  policyInitFlows,
  type PolicyRule,
  type ServiceEndpoint,
  type ServicePort,
  windowsTables,
  type PipelineConfig,
  type TunnelType,
} from './pipeline.js';

/** The HNS network Antrea makes (pkg/agent/util/net_windows.go LocalHNSNetwork). */
export const ANTREA_NETWORK = 'antrea-hnsnetwork';
export const BRIDGE = 'br-int';
export const GATEWAY = 'antrea-gw0';
export const TUNNEL = 'antrea-tun0';
/** The NetNat that SNATs pods' traffic leaving the node (pkg/agent/route/route_windows.go). */
export const ANTREA_NAT = 'antrea-nat';
/**
 * The NetNat whose static mappings DNAT NodePorts to 169.254.0.252 (route_windows.go
 * antreaNatNodePort; made at Initialize with proxyAll, internal prefix 169.254.0.252/32).
 */
export const ANTREA_NAT_NODEPORT = 'antrea-nat-nodeport';
/**
 * The metric of the routes Antrea wants preferred (pkg/agent/util/winnet/net_windows.go
 * `MetricHigh = 50`; `MetricDefault` is 256): the routes to 169.254.0.253 and 169.254.0.252.
 */
export const ANTREA_METRIC_HIGH = 50;

export interface AntreaAgentOptions {
  /** The node's pod subnet (its Node's `spec.podCIDR`). */
  readonly podCidr: string;
  /** The physical adapter holding the node's transport address (default: the host's uplink). */
  readonly adapter?: string;
  /** `geneve` (default), `vxlan` or `stt`. */
  readonly tunnelType?: TunnelType;
  /** `encap` (default) or `noEncap` (trafficEncapMode). */
  readonly trafficEncapMode?: 'encap' | 'noEncap';
  /** AntreaProxy's proxyAll (default true, as Antrea's Windows manifests set it). */
  readonly proxyAll?: boolean;
  /** DNS servers and search domains written into pods' endpoints. */
  readonly dnsServers?: readonly string[];
  readonly dnsSearch?: readonly string[];
}

export interface AntreaPeer {
  readonly name: string;
  readonly nodeIp: string;
  readonly podCidr: string;
}

/** One port of a Service as AntreaProxy programs it (its endpoints' `local`: on this node). */
export interface AntreaService {
  /** A stable name (`<namespace>/<name>:<port>`): its group keeps its ID across syncs. */
  readonly key: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP';
  /** ClientIP affinity's timeout in seconds (Kubernetes' default 10800); undefined: none. */
  readonly affinityTimeout?: number;
  /**
   * A NodePort (or LoadBalancer) port's nodePort: with proxyAll, its ServiceLB flow on
   * 169.254.0.252 and the `antrea-nat-nodeport` static mapping `0.0.0.0:<nodePort>` →
   * `169.254.0.252:<nodePort>` (proxier.go installNodePortService; nodePortAddresses ignored).
   */
  readonly nodePort?: number;
  readonly endpoints: readonly ServiceEndpoint[];
}

/** A NetworkPolicy rule with its groups as addresses: applied-to pods, peers (prefixes; none: any), ports (none: any). */
export interface AntreaPolicyRule {
  readonly id: number;
  /** The NetworkPolicy the rule is of (`namespace/name`): Traceflow names it; no flow depends on it. */
  readonly policy?: string;
  readonly direction: 'In' | 'Out';
  readonly appliedTo: readonly string[];
  readonly peers?: readonly string[];
  readonly ports?: readonly {
    readonly protocol: 'TCP' | 'UDP';
    readonly port?: number;
    readonly endPort?: number;
  }[];
}

export interface AntreaCniArgs {
  /** The infra (sandbox) container's ID. */
  readonly containerId: string;
  /** The pod's HCN namespace GUID (containerd's CNI_NETNS). */
  readonly netns: string;
  readonly ifName?: string;
  readonly podName: string;
  readonly podNamespace: string;
  /** The pod's DNS (kubelet's, through the CNI config); default the agent's options. */
  readonly dns?: { readonly nameservers: readonly string[]; readonly search: readonly string[] };
}

/** What CNI ADD answers (a CNI 0.4/1.0 result, as JSON). */
export interface AntreaCniResult extends JsonObject {
  readonly cniVersion: string;
}

interface PodRec {
  readonly containerId: string;
  readonly name: string;
  readonly namespace: string;
  readonly endpointName: string;
  readonly endpointId: string;
  readonly ip: string;
  readonly mac: string;
  ofport: number;
  readonly result: AntreaCniResult;
}

/** The node's Antrea agent (src/host/agents.ts's kind `antrea`). */
export const ANTREA_KIND = 'antrea';

export class AntreaAgent implements NodeAgent {
  readonly tunnelType: TunnelType;
  readonly encap: boolean;
  readonly proxyAll: boolean;
  readonly podCidr: Prefix;
  readonly gatewayIp: string;
  #networkId = '';
  #nodeIp = '';
  #gatewayMac = '';
  readonly #peers = new Map<string, AntreaPeer>();
  readonly #pods = new Map<string, PodRec>();
  /** AntreaProxy's Service ports by key, in the order they came. */
  readonly #services = new Map<string, ServicePort>();
  /** The NetworkPolicy rules as given (addresses) and the flows they compile to for the pods now. */
  #policies: {
    rules: readonly AntreaPolicyRule[];
    isolated: { readonly in: readonly string[]; readonly out: readonly string[] };
  } = { rules: [], isolated: { in: [], out: [] } };
  #policyFlows: readonly string[] = [];
  /** host-local's last reserved address (its allocator goes on after it). */
  #lastIp = 0;
  /** The flows on the bridge (printed form) and how many objects need each. */
  readonly #installed = new Map<string, number>();
  /** AntreaProxy's released group IDs, reused first (the allocator's rule). */
  readonly #freeGroupIds: number[] = [];
  /** NetworkPolicy takes the first group IDs at start (derived from pkg/agent/openflow): Services start at 5. */
  #nextGroupId = 5;
  #started = false;
  /** Stops serving the CNI server's pipe (set while it serves). */
  #stopCniServer: (() => void) | undefined;
  /** NodePort static mappings the host refused, by `<port>-<protocol>` (route_windows.go's cache key). */
  readonly #nodePortErrors = new Map<string, string>();
  /** Replaced on the node (a restore, another agent started there, AntreaStop): it cannot start again. */
  #detached = false;

  constructor(
    readonly host: Host,
    readonly options: AntreaAgentOptions,
  ) {
    const p = parsePrefix(options.podCidr);
    if (!p || p.family !== 4 || p.len > 30)
      throw hnsError(
        'E_INVALIDARG',
        `antrea: podCidr "${options.podCidr}" is not an IPv4 subnet of /30 or larger`,
      );
    this.podCidr = p as Prefix;
    this.gatewayIp = formatIp({ family: 4, value: p.addr + 1 });
    this.tunnelType = options.tunnelType ?? 'geneve';
    this.encap = (options.trafficEncapMode ?? 'encap') === 'encap';
    this.proxyAll = options.proxyAll ?? true;
  }

  get nodeIp(): string {
    return this.#nodeIp;
  }

  // ───────────── the node (agent_windows.go prepareHostNetwork, prepareOVSBridge) ─────────────

  /** Prepare the node and program the pipeline; idempotent (a restarted agent reuses what exists). */
  start(): void {
    if (this.#detached)
      throw hnsError(
        'E_INVALIDARG',
        'antrea: this agent was replaced on the node (antreaOf(host) is the one there)',
      );
    const host = this.host;
    const uplink = this.uplinkAdapter();
    this.#nodeIp = uplink.ip;
    const existing = this.v1('GET', '/networks/') as unknown as JsonObject[];
    const found = existing.find((n) => n['Name'] === ANTREA_NETWORK);
    if (found) this.#networkId = String(found['ID']);
    else {
      this.#networkId = String(
        (
          this.v1('POST', '/networks/', {
            Name: ANTREA_NETWORK,
            Type: 'Transparent',
            NetworkAdapterName: uplink.name,
            Subnets: [{ AddressPrefix: this.options.podCidr, GatewayAddress: this.gatewayIp }],
            ManagementIP: `${uplink.ip}/${uplink.prefixLength}`,
            SourceMac: uplink.mac.toLowerCase().replace(/-/g, ':'),
          }) as JsonObject
        )['ID'],
      );
    }
    // the management vNIC becomes br-int (found by the uplink's MAC and the node's address)
    const vnic = host
      .adapters()
      .find(
        (a) => a['Kind'] === 'HostVNic' && a['MacAddress'] === uplink.mac && a['IPv4Address'] === uplink.ip,
      );
    if (vnic && vnic['Name'] !== BRIDGE) host.renameAdapter(String(vnic['Name']), BRIDGE);
    this.v1('POST', `/networks/${this.#networkId}`, {
      Extensions: [{ Id: OVS_EXTENSION_ID, IsEnabled: true }],
    });
    host.ovs.start();
    const mac = uplink.mac.toLowerCase().replace(/-/g, '');
    const cmds = [
      `--may-exist add-br ${BRIDGE} -- set bridge ${BRIDGE} other_config:datapath-id=0000${mac} -- set interface ${BRIDGE} external_ids:antrea-type=host`,
      `--may-exist add-port ${BRIDGE} ${uplink.name} -- set interface ${uplink.name} ofport_request=${ANTREA_PORTS.uplink} external_ids:antrea-type=uplink`,
      `--may-exist add-port ${BRIDGE} ${GATEWAY} -- set interface ${GATEWAY} type=internal ofport_request=${ANTREA_PORTS.gateway} external_ids:antrea-type=gateway`,
    ];
    if (this.encap)
      cmds.push(
        `--may-exist add-port ${BRIDGE} ${TUNNEL} -- set interface ${TUNNEL} type=${this.tunnelType} ofport_request=${ANTREA_PORTS.tunnel} options:key=flow options:remote_ip=flow options:local_ip=${uplink.ip} external_ids:antrea-type=tunnel`,
      );
    for (const c of cmds) this.vsctl(c);
    const gw = host.adapters().find((a) => a['Name'] === GATEWAY);
    if (!gw) throw hnsError('ERROR_NOT_FOUND', `antrea: ${GATEWAY} did not appear`);
    if (gw['IPv4Address'] !== this.gatewayIp)
      host.setAdapterAddress(GATEWAY, `${this.gatewayIp}/${this.podCidr.len}`);
    this.#gatewayMac = String(gw['MacAddress']).toLowerCase().replace(/-/g, ':');
    // route_windows.go: SNAT of pod traffic leaving the node (New-NetNat antrea-nat)
    if (!host.netNats().some((n) => n.name === ANTREA_NAT))
      host.addNetNat(ANTREA_NAT, formatPrefix(this.podCidr));
    if (this.proxyAll) this.initServiceHost();
    host.ovs.setTableNames(BRIDGE, windowsTables(this));
    this.#started = true;
    for (const peer of this.#peers.values()) this.routeTo(peer);
    this.program();
    for (const x of this.#services.values()) this.mapNodePort(x);
    // the CNI server listens once the pod network is ready (agent.go: podNetworkWait, cniServer.Run)
    this.#stopCniServer?.();
    this.listen();
    // the node's agent from now on: in the host's snapshot (`agents.antrea`)
    host.agents.set(ANTREA_KIND, this);
  }

  private listen(): void {
    this.#stopCniServer = this.host.pipes.listen(ANTREA_CNI_SOCKET, (method, request) =>
      this.cniServer(method, request),
    );
  }

  /** Whether it serves its CNI server on the node's pipe now. */
  get running(): boolean {
    return this.#stopCniServer !== undefined;
  }

  /** Let go of the node for good (`NodeAgent`): a restore or another agent replaced it. */
  detach(): void {
    this.stopCniServer();
    this.#detached = true;
  }

  /**
   * Its section of the host snapshot (`agents.antrea`, ./state.ts): the options, whether it
   * started, every pod's record with its CNI result, the peers, the Service ports as given with
   * their group IDs and the allocator's free and next IDs, the NetworkPolicy rules and isolated
   * pods, host-local's last reserved address and the refused NodePorts. The bridge, the HNS
   * objects, the NetNats and routes are the snapshot's other sections.
   */
  toState(): JsonObject {
    const o = this.options;
    const ports = (r: AntreaPolicyRule) =>
      r.ports?.map((p) => ({
        protocol: p.protocol,
        ...(p.port !== undefined ? { port: p.port } : {}),
        ...(p.endPort !== undefined ? { endPort: p.endPort } : {}),
      }));
    const state: AntreaAgentState = {
      options: {
        podCidr: o.podCidr,
        ...(o.adapter !== undefined ? { adapter: o.adapter } : {}),
        ...(o.tunnelType !== undefined ? { tunnelType: o.tunnelType } : {}),
        ...(o.trafficEncapMode !== undefined ? { trafficEncapMode: o.trafficEncapMode } : {}),
        ...(o.proxyAll !== undefined ? { proxyAll: o.proxyAll } : {}),
        ...(o.dnsServers !== undefined ? { dnsServers: [...o.dnsServers] } : {}),
        ...(o.dnsSearch !== undefined ? { dnsSearch: [...o.dnsSearch] } : {}),
      },
      started: this.#started,
      pods: [...this.#pods.values()].map((p) => ({
        containerId: p.containerId,
        name: p.name,
        namespace: p.namespace,
        endpointName: p.endpointName,
        endpointId: p.endpointId,
        ip: p.ip,
        mac: p.mac,
        ofport: p.ofport,
        result: structuredClone(p.result),
      })),
      peers: [...this.#peers.values()].map((p) => ({ name: p.name, nodeIp: p.nodeIp, podCidr: p.podCidr })),
      services: [...this.#services].map(([key, x]) => ({
        key,
        clusterIP: x.clusterIP,
        port: x.port,
        protocol: x.protocol,
        ...(x.affinityTimeout !== undefined ? { affinityTimeout: x.affinityTimeout } : {}),
        ...(x.nodePort !== undefined ? { nodePort: x.nodePort } : {}),
        endpoints: x.endpoints.map((e) => ({ ip: e.ip, port: e.port, local: e.local })),
        groupId: x.groupId,
      })),
      freeGroupIds: [...this.#freeGroupIds],
      nextGroupId: this.#nextGroupId,
      policies: {
        rules: this.#policies.rules.map((r) => {
          const p = ports(r);
          return {
            id: r.id,
            ...(r.policy !== undefined ? { policy: r.policy } : {}),
            direction: r.direction,
            appliedTo: [...r.appliedTo],
            ...(r.peers !== undefined ? { peers: [...r.peers] } : {}),
            ...(p !== undefined ? { ports: p } : {}),
          };
        }),
        isolated: { in: [...this.#policies.isolated.in], out: [...this.#policies.isolated.out] },
      },
      lastReservedIp: this.#lastIp === 0 ? '' : formatIp({ family: 4, value: this.#lastIp }),
      nodePortErrors: Object.fromEntries(this.#nodePortErrors),
    };
    return state as unknown as JsonObject;
  }

  /**
   * An agent rebuilt from its snapshot section (shapes checked by ./state.ts): the values checked
   * against each other (E_INVALIDARG naming what is wrong), nothing on the node touched — it
   * neither listens nor becomes the node's agent until `resume()`.
   */
  static fromState(host: Host, state: AntreaAgentState, what: string): AntreaAgent {
    const bad = (why: string): never => {
      throw hnsError('E_INVALIDARG', `${what}${why}`);
    };
    let agent: AntreaAgent;
    try {
      agent = new AntreaAgent(host, state.options);
    } catch (e) {
      return bad(`.options: ${isHnsError(e) ? (e.detail ?? e.message) : errorMessage(e)}`);
    }
    const cidr = agent.podCidr;
    const inSubnet = (ip: string): boolean => {
      const a = parseIp(ip);
      return a?.family === 4 && prefixContains(cidr, a);
    };
    if (!state.started && state.pods.length > 0) bad(`: pods on an agent that never started`);
    const ips = new Set<string>();
    const names = new Set<string>();
    for (const [i, p] of state.pods.entries()) {
      const w = `.pods[${i}]`;
      if (agent.#pods.has(p.containerId)) bad(`${w}: container "${p.containerId}" twice`);
      if (!inSubnet(p.ip) || p.ip === agent.gatewayIp)
        bad(`${w}.ip "${p.ip}" is not a pod address of ${state.options.podCidr}`);
      if (ips.has(p.ip)) bad(`${w}.ip "${p.ip}" is another pod's`);
      if (names.has(p.endpointName)) bad(`${w}.endpointName "${p.endpointName}" is another pod's`);
      if (!/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(p.mac)) bad(`${w}.mac "${p.mac}" is not aa:bb:cc:dd:ee:ff`);
      ips.add(p.ip);
      names.add(p.endpointName);
      agent.#pods.set(p.containerId, { ...p, result: structuredClone(p.result) });
    }
    for (const [i, p] of state.peers.entries()) {
      const w = `.peers[${i}]`;
      if (agent.#peers.has(p.name)) bad(`${w}: node "${p.name}" twice`);
      if (parsePrefix(p.podCidr)?.family !== 4) bad(`${w}.podCidr "${p.podCidr}" is not an IPv4 subnet`);
      if (parseIp(p.nodeIp)?.family !== 4) bad(`${w}.nodeIp "${p.nodeIp}" is not an IPv4 address`);
      agent.#peers.set(p.name, { name: p.name, nodeIp: p.nodeIp, podCidr: p.podCidr });
    }
    const next = state.nextGroupId;
    if (next < 5) bad(`.nextGroupId ${next}: Services' group IDs start at 5`);
    const taken = new Set<number>();
    for (const [i, x] of state.services.entries()) {
      const w = `.services[${i}]`;
      if (agent.#services.has(x.key)) bad(`${w}: key "${x.key}" twice`);
      if (parseIp(x.clusterIP)?.family !== 4) bad(`${w}.clusterIP "${x.clusterIP}" is not an IPv4 address`);
      for (const e of x.endpoints)
        if (parseIp(e.ip)?.family !== 4) bad(`${w}: endpoint "${e.ip}" is not an IPv4 address`);
      if (x.groupId < 5 || x.groupId >= next)
        bad(`${w}.groupId ${x.groupId} is not one allocated (5..${next - 1})`);
      if (taken.has(x.groupId)) bad(`${w}.groupId ${x.groupId} is another Service port's`);
      taken.add(x.groupId);
      const { key, groupId, ...rest } = x;
      agent.#services.set(key, { ...rest, groupId });
    }
    for (const g of state.freeGroupIds) {
      if (g < 5 || g >= next) bad(`.freeGroupIds: ${g} is not one allocated (5..${next - 1})`);
      if (taken.has(g)) bad(`.freeGroupIds: ${g} is in use or free twice`);
      taken.add(g);
      agent.#freeGroupIds.push(g);
    }
    agent.#nextGroupId = next;
    for (const [i, r] of state.policies.rules.entries()) {
      const w = `.policies.rules[${i}]`;
      for (const ip of r.appliedTo)
        if (parseIp(ip) === undefined) bad(`${w}.appliedTo: "${ip}" is not an address`);
      for (const pfx of r.peers ?? []) if (!parsePrefix(pfx)) bad(`${w}.peers: "${pfx}" is not a prefix`);
    }
    const { rules, isolated } = state.policies;
    agent.#policies = { rules, isolated };
    const last = state.lastReservedIp;
    if (last !== '') {
      if (!inSubnet(last)) bad(`.lastReservedIp "${last}" is not in ${state.options.podCidr}`);
      agent.#lastIp = (parseIp(last) as { value: number }).value;
    }
    for (const [k, v] of Object.entries(state.nodePortErrors)) agent.#nodePortErrors.set(k, v);
    agent.#started = state.started;
    return agent;
  }

  /**
   * A restored agent takes the node back (its section checked, the host's HNS, OVS and host-network
   * sections restored): the node's address, the network's ID and antrea-gw0's MAC read from the
   * node as `start()` reads them, the policy flows compiled for its pods, the count of objects
   * needing each flow taken from `flows()` (what `program()` would have installed), and, started,
   * its CNI server on the pipe. Nothing on the node changes but the pipe.
   */
  resume(): void {
    if (this.#started) {
      try {
        this.#nodeIp = this.uplinkAdapter().ip;
      } catch {
        this.#nodeIp = '';
      }
      const nets = this.host.api.HNSCall('GET', '/networks/', '');
      const list = nets.ok && Array.isArray(nets.result['Output']) ? nets.result['Output'] : [];
      const net = list.find((n) => isJsonObject(n) && n['Name'] === ANTREA_NETWORK);
      this.#networkId = isJsonObject(net) ? String(net['ID']) : '';
      const gw = this.host.adapters().find((a) => a['Name'] === GATEWAY);
      this.#gatewayMac = gw ? String(gw['MacAddress']).toLowerCase().replace(/-/g, ':') : '';
    }
    // the policy flows as the last reprogramPolicies() left them (not installed: they are on the bridge)
    this.#policyFlows = this.compilePolicies();
    this.#installed.clear();
    if (this.#started) {
      for (const f of this.flows()) {
        const k = flowIdentity(f);
        this.#installed.set(k, (this.#installed.get(k) ?? 0) + 1);
      }
      this.listen();
    }
  }

  /**
   * One call on the CNI server (the gRPC service the `antrea` binary calls on `\\.\pipe\cnisock`):
   * `/antrea_io.antrea.pkg.apis.cni.v1beta1.Cni/CmdAdd` (CmdDel, CmdCheck) with a `CniCmdRequest`
   * (`{ cniArgs: { containerId, netns, ifname, args, path, networkConfiguration } }`), answered
   * with a `CniCmdResponse` (`{ cniResult, error? }`) as pkg/agent/cniserver/server.go answers it.
   */
  cniServer(method: string, request: Json): Json {
    return serveCni(this, method, request);
  }

  /** Stop serving the CNI server (the agent's process ends): the binary's calls find no pipe. */
  stopCniServer(): void {
    this.#stopCniServer?.();
    this.#stopCniServer = undefined;
  }

  /**
   * route_windows.go Initialize with proxyAll (§1.7): the on-link route to 169.254.0.253 on
   * antrea-gw0 (addVirtualServiceIPRoute), 169.254.0.252/32 via 169.254.0.253 there
   * (addVirtualNodePortDNATIPRoute), both of metric 50 (generateRoute with winnet.MetricHigh), and
   * the NetNat `antrea-nat-nodeport` on 169.254.0.252/32. (The permanent neighbour 169.254.0.253 →
   * aa:bb:cc:dd:ee:ff and the Service CIDR route are not modelled: OVS rewrites the MACs, and the
   * cluster does not tell the agent its Service CIDR.)
   */
  private initServiceHost(): void {
    const host = this.host;
    for (const [dest, nextHop] of [
      [`${VIRTUAL_SERVICE_IP}/32`, undefined],
      [`${VIRTUAL_NODEPORT_DNAT_IP}/32`, VIRTUAL_SERVICE_IP],
    ] as const) {
      // ReplaceNetRoute of generateRoute(…, winnet.MetricHigh)
      host.removeRoute(dest);
      host.addRoute({
        destinationPrefix: dest,
        interfaceAlias: GATEWAY,
        metric: ANTREA_METRIC_HIGH,
        ...(nextHop ? { nextHop } : {}),
      });
    }
    const want = `${VIRTUAL_NODEPORT_DNAT_IP}/32`;
    const nat = host.netNats().find((n) => n.name === ANTREA_NAT_NODEPORT);
    // winnet AddNetNat: one with another prefix is removed and made again
    if (nat && nat.internalIPInterfaceAddressPrefix !== want) host.removeNetNat(ANTREA_NAT_NODEPORT);
    if (!nat || nat.internalIPInterfaceAddressPrefix !== want) host.addNetNat(ANTREA_NAT_NODEPORT, want);
  }

  /**
   * route_windows.go AddNodePortConfigs (winnet ReplaceNetNatStaticMapping): the port's mapping
   * `0.0.0.0:<nodePort>` → `169.254.0.252:<nodePort>` on `antrea-nat-nodeport`, replacing one of
   * that protocol and port that maps elsewhere. A refusal (the port mapped by another NetNat) is
   * what AntreaProxy logs: the flows stay, the mapping is missing (`nodePortErrors`).
   */
  private mapNodePort(x: ServicePort): void {
    if (!this.proxyAll || x.nodePort === undefined || !this.#started) return;
    const key = `${x.nodePort}-${x.protocol}`;
    this.#nodePortErrors.delete(key);
    const have = this.host
      .netNatStaticMappings()
      .find(
        (m) =>
          m.natName === ANTREA_NAT_NODEPORT &&
          m.protocol === x.protocol &&
          m.externalPort === x.nodePort &&
          m.externalIPAddress === '0.0.0.0',
      );
    if (have && have.internalIPAddress === VIRTUAL_NODEPORT_DNAT_IP && have.internalPort === x.nodePort)
      return;
    if (have) this.host.removeNetNatStaticMapping(ANTREA_NAT_NODEPORT, { id: have.staticMappingID });
    try {
      this.host.addNetNatStaticMapping({
        natName: ANTREA_NAT_NODEPORT,
        protocol: x.protocol,
        externalIp: '0.0.0.0',
        externalPort: x.nodePort,
        internalIp: VIRTUAL_NODEPORT_DNAT_IP,
        internalPort: x.nodePort,
      });
    } catch (e) {
      if (!(e instanceof HnsError)) throw e;
      this.#nodePortErrors.set(key, e.message);
    }
  }

  /** route_windows.go DeleteNodePortConfigs: the port's static mapping removed. */
  private unmapNodePort(x: ServicePort): void {
    if (!this.proxyAll || x.nodePort === undefined) return;
    this.#nodePortErrors.delete(`${x.nodePort}-${x.protocol}`);
    this.host.removeNetNatStaticMapping(ANTREA_NAT_NODEPORT, {
      protocol: x.protocol,
      externalPort: x.nodePort,
    });
  }

  /** The NodePorts whose static mapping the host refused (`<port>-<protocol>` → the error), as AntreaProxy logs them. */
  nodePortErrors(): Map<string, string> {
    return new Map(this.#nodePortErrors);
  }

  /** The pipeline's settings on this node. */
  config(): PipelineConfig {
    return {
      nodeIp: this.#nodeIp,
      podCidr: formatPrefix(this.podCidr),
      gatewayIp: this.gatewayIp,
      gatewayMac: this.#gatewayMac,
      encap: this.encap,
      proxyAll: this.proxyAll,
      round: 1,
    };
  }

  /**
   * AntreaProxy's view of the cluster's Services (a full sync): Service ports gone are removed
   * (their group IDs released), the others updated one by one (`updateService`).
   */
  setServices(services: readonly AntreaService[]): void {
    const keep = new Set(services.map((x) => x.key));
    for (const key of [...this.#services.keys()]) if (!keep.has(key)) this.removeService(key);
    for (const x of services) this.updateService(x);
  }

  /**
   * One Service port, as AntreaProxy installs it on a change: its group (ID kept while the port
   * exists), ServiceLB flow and endpoint flows replaced when anything of it changed.
   */
  updateService(x: AntreaService): void {
    const old = this.#services.get(x.key);
    // (a port keeps its group's ID while it exists: Antrea's allocator)
    const id = old?.groupId ?? this.#freeGroupIds.pop() ?? this.#nextGroupId++;
    const next: ServicePort = {
      clusterIP: x.clusterIP,
      port: x.port,
      protocol: x.protocol,
      groupId: id,
      endpoints: x.endpoints,
      ...(x.affinityTimeout !== undefined ? { affinityTimeout: x.affinityTimeout } : {}),
      ...(x.nodePort !== undefined ? { nodePort: x.nodePort } : {}),
    };
    if (old && sameService(old, next)) return;
    this.#services.set(x.key, next);
    if (!this.#started) return;
    if (old) this.unprogramService(old, next);
    this.bridge().addGroup(realize([serviceGroup(next)], windowsTables(this))[0]!);
    this.install(this.serviceFlowsOf(next));
    this.mapNodePort(next);
  }

  /** A Service port gone: its flows and group removed, its group ID free for the next one. */
  removeService(key: string): boolean {
    const old = this.#services.get(key);
    if (!old) return false;
    this.#services.delete(key);
    this.#freeGroupIds.push(old.groupId);
    if (this.#started) this.unprogramService(old);
    return true;
  }

  /** A Service port's flows: its ClusterIP's, its NodePort's (proxier.go installServiceFlows), its endpoints'. */
  private serviceFlowsOf(x: ServicePort): string[] {
    const cfg = this.config();
    return [
      ...serviceFlows(cfg, x),
      ...nodePortFlows(cfg, x),
      ...endpointFlows(cfg, x.protocol, x.endpoints),
    ];
  }

  /** A Service port's flows and group removed, and its mapping unless `next` keeps the same nodePort. */
  private unprogramService(old: ServicePort, next?: ServicePort): void {
    this.uninstall(this.serviceFlowsOf(old));
    this.bridge().delGroups(`group_id=${old.groupId}`);
    if (!next || next.nodePort !== old.nodePort || next.protocol !== old.protocol) this.unmapNodePort(old);
  }

  /**
   * The NetworkPolicy rules that apply to this node's pods (their groups resolved to addresses, as
   * Antrea's controller sends them) and the pods each direction isolates: the policy tables'
   * flows replaced.
   */
  setNetworkPolicies(
    rules: readonly AntreaPolicyRule[],
    isolated: { readonly in: readonly string[]; readonly out: readonly string[] },
  ): void {
    this.#policies = { rules, isolated };
    this.reprogramPolicies();
  }

  /** The NetworkPolicy rules the agent was last given (`setNetworkPolicies`). */
  policyRules(): readonly AntreaPolicyRule[] {
    return this.#policies.rules;
  }

  /** The policy flows for the pods on the node now (their ofports): after a policy or a pod change. */
  private reprogramPolicies(): void {
    const next = this.compilePolicies();
    if (this.#started) {
      // only the flows that changed (as Antrea's flow cache sends them): the others keep their counters
      const stays = new Set(next);
      const was = new Set(this.#policyFlows);
      this.uninstall(this.#policyFlows.filter((f) => !stays.has(f)));
      this.install(next.filter((f) => !was.has(f)));
    }
    this.#policyFlows = next;
  }

  /** The policy flows for the node's pods now (the rules' addresses resolved to their ofports). */
  private compilePolicies(): string[] {
    const { rules, isolated } = this.#policies;
    const byIp = new Map<string, { ofport: number; ip: string }>();
    for (const p of this.#pods.values()) if (p.ofport > 0) byIp.set(p.ip, { ofport: p.ofport, ip: p.ip });
    const local = (ips: readonly string[]) => ips.flatMap((ip) => byIp.get(ip) ?? []);
    const compiled: PolicyRule[] = rules.map((r) => ({
      id: r.id,
      direction: r.direction,
      appliedTo: local(r.appliedTo),
      ...(r.peers ? { peers: r.peers } : {}),
      ...(r.ports ? { ports: r.ports } : {}),
    }));
    return policyFlows(this.config(), compiled, { in: local(isolated.in), out: local(isolated.out) });
  }

  /** The groups the agent programs now (AntreaProxy's), in Antrea's printed form. */
  groups(): string[] {
    return [...this.#services.values()].map((x) => serviceGroup(x));
  }

  /** Every flow the agent programs now, in Antrea's printed form (table names). */
  flows(): string[] {
    const cfg = this.config();
    const out = [
      ...missFlows(cfg),
      ...rootFlows(cfg),
      ...initFlows(cfg),
      ...serviceInitFlows(cfg),
      ...policyInitFlows(cfg),
    ];
    for (const s of this.#services.values()) out.push(...this.serviceFlowsOf(s));
    for (const p of this.#pods.values()) if (p.ofport > 0) out.push(...podFlows(cfg, p));
    out.push(...this.#policyFlows);
    if (this.encap) for (const peer of this.#peers.values()) out.push(...this.peerFlows(peer));
    return out;
  }

  /** Replace the bridge's flows with the pipeline's (del-flows, add-flows). */
  program(): void {
    if (!this.#started) return;
    const br = this.bridge();
    const groups = realize(this.groups(), windowsTables(this));
    br.delFlows('');
    br.delGroups('');
    this.#installed.clear();
    for (const g of groups) br.addGroup(g);
    this.install(this.flows());
  }

  private bridge(): Bridge {
    const br = this.host.ovs.bridge(BRIDGE);
    if (!br) throw hnsError('ERROR_NOT_FOUND', `antrea: bridge ${BRIDGE} is not running`);
    return br;
  }

  /**
   * Add flows (printed form). A flow is OpenFlow's table, priority and match: several objects
   * needing the same one (an endpoint's DNAT) are counted and it is added once, and removed when the
   * last of them goes.
   */
  private install(flows: readonly string[]): void {
    const add: string[] = [];
    for (const f of flows) {
      const k = flowIdentity(f);
      const n = this.#installed.get(k) ?? 0;
      this.#installed.set(k, n + 1);
      if (n === 0) add.push(f);
    }
    if (add.length) this.bridge().addFlows(realize(add, windowsTables(this)).join('\n'));
  }

  /** Remove flows (printed form) no other object still needs: `del-flows --strict` by table, priority and match. */
  private uninstall(flows: readonly string[]): void {
    const del: string[] = [];
    for (const f of flows) {
      const k = flowIdentity(f);
      const n = this.#installed.get(k) ?? 0;
      if (n <= 1) {
        if (this.#installed.delete(k)) del.push(f);
      } else this.#installed.set(k, n - 1);
    }
    const br = this.bridge();
    for (const f of realize(del, windowsTables(this))) br.delFlows(flowIdentity(f), { strict: true });
  }

  /** Another node (its Node object): its pod subnet through the tunnel, and the host route to it. */
  addPeer(peer: AntreaPeer): void {
    if (!parsePrefix(peer.podCidr))
      throw hnsError('E_INVALIDARG', `antrea: podCidr "${peer.podCidr}" of ${peer.name}`);
    const old = this.#peers.get(peer.name);
    this.#peers.set(peer.name, peer);
    if (this.#started) {
      if (old && old.podCidr !== peer.podCidr) this.host.removeRoute(old.podCidr);
      this.routeTo(peer);
      if (old && this.encap) this.uninstall(this.peerFlows(old));
      if (this.encap) this.install(this.peerFlows(peer));
    }
  }

  removePeer(name: string): boolean {
    const peer = this.#peers.get(name);
    if (!peer) return false;
    this.#peers.delete(name);
    if (this.#started) {
      this.host.removeRoute(peer.podCidr);
      if (this.encap) this.uninstall(this.peerFlows(peer));
    }
    return true;
  }

  private peerFlows(peer: AntreaPeer): string[] {
    return nodeFlows(this.config(), {
      nodeIp: peer.nodeIp,
      podCidr: peer.podCidr,
      gatewayIp: gatewayOf(peer.podCidr),
    });
  }

  /** route_windows.go: encap, the peer's pod subnet on antrea-gw0 (the ARP responder answers its gateway). */
  private routeTo(peer: AntreaPeer): void {
    this.host.removeRoute(peer.podCidr);
    this.host.addRoute({ destinationPrefix: peer.podCidr, interfaceAlias: GATEWAY });
  }

  // ───────────── the CNI server (pkg/agent/cniserver, Windows) ─────────────

  /** CNI ADD for a pod's infra container; a repeated ADD answers the cached result. */
  cmdAdd(args: AntreaCniArgs): AntreaCniResult {
    if (!this.#started) throw hnsError('ERROR_SERVICE_NOT_ACTIVE', 'antrea: the agent has not started');
    const cached = this.#pods.get(args.containerId);
    if (cached) return cached.result;
    const name = containerInterfaceName(args.podName, args.containerId);
    const ip = this.allocate();
    const dns = args.dns?.nameservers ?? this.options.dnsServers ?? [];
    const search = args.dns?.search ?? this.options.dnsSearch ?? [];
    const ep = this.v1('POST', '/endpoints/', {
      Name: name,
      VirtualNetwork: this.#networkId,
      DNSServerList: dns.join(','),
      DNSSuffix: search.join(','),
      GatewayAddress: this.gatewayIp,
      IPAddress: ip,
    }) as JsonObject;
    const endpointId = String(ep['ID']);
    const attach = this.host.api.HcnModifyNamespace(args.netns, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: endpointId },
    });
    if (!attach.ok) {
      // the attach failed: the endpoint goes (interface_configuration_windows.go)
      this.host.api.HNSCall('DELETE', `/endpoints/${endpointId}`, '');
      throw new HnsError(attach.hr, `antrea: attach ${name} to ${args.netns}: ${attach.message}`);
    }
    const mac = String(ep['MacAddress']).toLowerCase().replace(/-/g, ':');
    const ifName = args.ifName ?? 'eth0';
    const ids = [
      `antrea-type=container`,
      `attached-mac=${mac}`,
      `container-id=${args.containerId}`,
      `ip-address=${ip}`,
      `pod-name=${args.podName}`,
      `pod-namespace=${args.podNamespace}`,
      ...(ifName !== 'eth0' ? [`if-dev=${ifName}`] : []),
      `net-ns=${args.netns}`,
    ].map((kv) => `external_ids:${kv}`);
    // the port first with no type, then internal once vEthernet (<name>) exists (it does: attached);
    // a failure undoes the attach and the endpoint (nothing is left for the next ADD to trip on)
    let ofport: number;
    try {
      this.vsctl(['add-port', BRIDGE, name, '--', 'set', 'interface', name, ...ids]);
      this.vsctl(['set', 'interface', name, 'type=internal']);
      ofport = Number(this.vsctl(['get', 'interface', name, 'ofport']).trim());
      if (!Number.isInteger(ofport) || ofport <= 0)
        throw hnsError('E_FAIL', `antrea: ovs-vswitchd gave ${name} no ofport`);
    } catch (e) {
      this.host.ovs.vsctl(['--if-exists', 'del-port', BRIDGE, name]);
      this.host.api.HcnModifyNamespace(args.netns, {
        ResourceType: 'Endpoint',
        RequestType: 'Remove',
        Settings: { EndpointId: endpointId },
      });
      this.host.api.HNSCall('DELETE', `/endpoints/${endpointId}`, '');
      throw e;
    }
    const result: AntreaCniResult = {
      cniVersion: '0.4.0',
      interfaces: [
        { name, mac: String(ep['MacAddress']), sandbox: '' },
        { name: ifName, mac: String(ep['MacAddress']), sandbox: args.netns },
      ],
      ips: [
        {
          version: '4',
          interface: 1,
          address: `${ip}/${this.podCidr.len}`,
          gateway: this.gatewayIp,
        },
      ],
      dns: { nameservers: [...dns], search: [...search] },
    };
    this.#pods.set(args.containerId, {
      containerId: args.containerId,
      name: args.podName,
      namespace: args.podNamespace,
      endpointName: name,
      endpointId,
      ip,
      mac,
      ofport,
      result,
    });
    this.install(podFlows(this.config(), { ip, mac, ofport }));
    this.reprogramPolicies();
    return result;
  }

  /** CNI DEL: the pod's flows, its OVS port, the detach, the endpoint ("not found" is success). */
  cmdDel(args: Pick<AntreaCniArgs, 'containerId'> & { readonly netns?: string }): void {
    const pod = this.#pods.get(args.containerId);
    if (!pod) return;
    this.#pods.delete(args.containerId);
    if (pod.ofport > 0) this.uninstall(podFlows(this.config(), pod));
    this.reprogramPolicies();
    this.vsctl(['--if-exists', 'del-port', BRIDGE, pod.endpointName]);
    const ep = this.host.api.HNSCall('GET', `/endpoints/${pod.endpointId}`, '');
    const ns =
      ep.ok && isJsonObject(ep.result['Output']) ? ep.result['Output']['HostComputeNamespace'] : undefined;
    const namespace = typeof ns === 'string' && ns && !/^0{8}-/.test(ns) ? ns : args.netns;
    if (namespace)
      this.host.api.HcnModifyNamespace(namespace, {
        ResourceType: 'Endpoint',
        RequestType: 'Remove',
        Settings: { EndpointId: pod.endpointId },
      });
    this.host.api.HNSCall('DELETE', `/endpoints/${pod.endpointId}`, '');
  }

  /** The pods this agent attached: name, namespace, interface, address, ofport. */
  pods(): {
    containerId: string;
    name: string;
    namespace: string;
    interface: string;
    endpointId: string;
    ip: string;
    ofport: number;
  }[] {
    return [...this.#pods.values()].map((p) => ({
      containerId: p.containerId,
      name: p.name,
      namespace: p.namespace,
      interface: p.endpointName,
      endpointId: p.endpointId,
      ip: p.ip,
      ofport: p.ofport,
    }));
  }

  // ───────────── helpers ─────────────

  /**
   * host-local's choice: the next free address after the last one it handed out (`#lastIp`, its
   * `last_reserved_ip`; not reset by a failed ADD), wrapping to the first after the gateway; the
   * broadcast address excluded.
   */
  private allocate(): string {
    const used = new Set([...this.#pods.values()].map((p) => p.ip));
    const first = this.podCidr.addr + 2;
    const last = this.podCidr.addr + 2 ** (32 - this.podCidr.len) - 1;
    // host-local: the next free address after the last one it reserved, wrapping to the range's start
    const span = last - first;
    const start = this.#lastIp >= first && this.#lastIp < last ? this.#lastIp + 1 : first;
    for (let k = 0; k < span; k++) {
      const v = first + ((start - first + k) % span);
      const ip = formatIp({ family: 4, value: v });
      if (!used.has(ip)) {
        this.#lastIp = v;
        return ip;
      }
    }
    // host-local's words (Antrea's IPAM on Windows is host-local)
    throw new AntreaIpamError(
      `no IP addresses available in range set: ${formatIp({ family: 4, value: first })}-${formatIp({ family: 4, value: last - 1 })}`,
    );
  }

  private uplinkAdapter(): { name: string; ip: string; prefixLength: number; mac: string } {
    const all = this.host.adapters();
    const phys = all.filter((a) => a['Kind'] === 'Physical');
    const nic = this.options.adapter
      ? phys.find((a) => String(a['Name']).toLowerCase() === this.options.adapter!.toLowerCase())
      : (phys.find((a) => a['IPv4Address'] !== undefined && a['DefaultGateway'] !== undefined) ??
        phys.find((a) => a['VSwitchId'] !== undefined) ??
        phys[0]);
    if (!nic) throw hnsError('HCN_E_ADAPTER_NOT_FOUND', `antrea: no adapter ${this.options.adapter ?? ''}`);
    // bound to the switch already (a restarted agent): its address is on the management vNIC
    const holder =
      nic['IPv4Address'] !== undefined
        ? nic
        : all.find((a) => a['Kind'] === 'HostVNic' && a['MacAddress'] === nic['MacAddress']);
    if (!holder || holder['IPv4Address'] === undefined)
      throw hnsError('HCN_E_ADAPTER_NOT_FOUND', `antrea: ${String(nic['Name'])} holds no IPv4 address`);
    return {
      name: String(nic['Name']),
      ip: String(holder['IPv4Address']),
      prefixLength: Number(holder['PrefixLength'] ?? 24),
      mac: String(nic['MacAddress']),
    };
  }

  private v1(method: string, path: string, body?: unknown): JsonObject | JsonObject[] {
    const r = this.host.api.HNSCall(method, path, body === undefined ? '' : JSON.stringify(body));
    if (!r.ok) throw new HnsError(r.hr, `antrea: ${method} ${path}: ${r.message}`);
    if (r.result['Success'] !== true)
      throw hnsError('E_FAIL', `antrea: ${method} ${path}: ${String(r.result['Error'] ?? '')}`);
    return (r.result['Output'] ?? {}) as JsonObject;
  }

  private vsctl(command: string | readonly string[]): string {
    const r = this.host.ovs.vsctl(command);
    if (r.status !== 0) throw hnsError('E_FAIL', `antrea: ovs-vsctl: ${r.stderr.trim()}`);
    return r.stdout;
  }
}

function formatPrefix(p: Prefix): string {
  return `${formatIp({ family: 4, value: p.addr })}/${p.len}`;
}

/** A node's gateway: its pod subnet's first address (pkg/agent/util/net.go GetGatewayIPForPodCIDR). */
function gatewayOf(podCidr: string): string {
  const p = parsePrefix(podCidr) as Prefix;
  return formatIp({ family: 4, value: p.addr + 1 });
}

/** A printed flow's OpenFlow identity: its table, priority and match (no cookie, no actions). */
function flowIdentity(f: string): string {
  return f.replace(/^cookie=0x[0-9a-f]+, /, '').replace(/ actions=.*$/, '');
}

/** Whether two programmings of a Service port are the same (so nothing needs reprogramming). */
function sameService(a: ServicePort, b: ServicePort): boolean {
  if (
    a.clusterIP !== b.clusterIP ||
    a.port !== b.port ||
    a.protocol !== b.protocol ||
    a.groupId !== b.groupId ||
    a.affinityTimeout !== b.affinityTimeout ||
    a.nodePort !== b.nodePort ||
    a.endpoints.length !== b.endpoints.length
  )
    return false;
  return a.endpoints.every((e, k) => {
    const f = b.endpoints[k]!;
    return e.ip === f.ip && e.port === f.port && e.local === f.local;
  });
}

/** The node's Antrea agent (started, or restored from a snapshot), serving or not. */
export function antreaOf(host: Host): AntreaAgent | undefined {
  const a = host.agents.get(ANTREA_KIND);
  return a instanceof AntreaAgent ? a : undefined;
}

/**
 * The snapshot section `agents.antrea` (`AntreaAgent.toState`) read back: checked whole — shapes
 * (./state.ts), then the values against each other (`AntreaAgent.fromState`) — before anything
 * changes (E_INVALIDARG `snapshot: antrea…`). The agent comes back without `start()`'s side
 * effects: its HNS network and endpoints, its bridge, flows and groups, its NetNats and routes are
 * the snapshot's other sections.
 */
function readAntreaState(host: Host, state: unknown): () => NodeAgent {
  const what = 'snapshot: antrea';
  const agent = AntreaAgent.fromState(host, parseAntreaState(state, what), what);
  return () => {
    agent.resume();
    return agent;
  };
}

registerNodeAgentKind({ kind: ANTREA_KIND, read: readAntreaState });
