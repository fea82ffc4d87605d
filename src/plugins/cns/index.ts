/**
 * Azure CNS (Container Networking Service) as a node agent (issue 16; reference azure-cni.md §5.4;
 * ACN v1.8.12 `cns/restserver/ipam.go`, `cns/restserver/util.go`, `cns/restserver/api.go`,
 * `cns/NetworkContainerContract.go`, `cns/types/codes.go`): the IP-config request/release
 * contract azure-vnet's CNS modes call — Swift (pod subnet), Overlay, multitenancy — answered on
 * the node's loopback (`localhost:10090`, src/host/localhttp.ts) as CNS's HTTP API answers it: JSON
 * bodies in the contract's field names, logical errors as HTTP 200 with a non-zero `ReturnCode`, an
 * undecodable body as HTTP 400 `Failed to decode request: …`.
 *
 * What it holds is what DNC-RC programs into a real node's CNS, as data: network containers (NCs)
 * with their primary IP configuration and the secondary IPs pods take (`ncs`; `overlayNc` makes the
 * one CNS derives from a node's pod CIDR), and multitenant NCs by pod (`multitenancy`).
 *
 * - `POST /network/requestipconfigs`: one address per NC (an IPv6 NC: dual-stack) for the pod interface
 *   (`podInterfaceID`); a repeated request gets the same addresses. `orchestratorContext` missing:
 *   code 33; `podInterfaceID` empty: 34; no NC or no free IP: 32 (`AllocateIPConfig failed: …`).
 *   The free IP taken is the first of the NC's list (CNS ranges a Go map: any free one).
 * - `POST /network/requestipconfig`: the same for exactly one NC (else 23).
 * - `POST /network/releaseipconfigs`, `/network/releaseipconfig`: the pod interface's addresses go
 *   back; an unknown one is success; `desiredIPAddresses` are ignored (CNS releases by pod).
 * - `POST /network/getAllNetworkContainers`, `/network/getnetworkcontainerbyorchestratorcontext`:
 *   the pod's multitenant NCs (key `podName` + `podNamespace`), code 18 when it has none.
 *
 * One CNS per node (`cnsOf(host)`); it is in the host's snapshot under `agents.cns`
 * (src/host/agents.ts): whether it runs, its port, NCs and multitenant NCs as given, and every
 * assignment by pod interface, so a restored node answers the next request as the original would.
 *
 *   const cns = startCns(host, { ncs: [overlayNc('overlay-nc', '10.244.1.0/24', '10.244.0.0/16')] });
 *   cns.assigned();   // pod interface → its addresses
 */
import { errorMessage, hnsError, isHnsError } from '../../core/errors.js';
import { isJsonObject, type Json, type JsonObject } from '../../core/json.js';
import {
  formatIp,
  formatIPv4,
  formatIPv6,
  parseIp,
  parsePrefix,
  formatPrefix,
  prefixContains,
} from '../../addr/ip.js';
import type { Host } from '../../host/host.js';
import type { PlatformReply } from '../../host/azure.js';
import type { LocalHttpRequest } from '../../host/localhttp.js';
import { registerNodeAgentKind, type NodeAgent } from '../../host/agents.js';

/** CNS's port on the node (ACN `cns/client` `defaultBaseURL`). */
export const CNS_PORT = 10090;
/**
 * Where azure-vnet leaves a pod whose DEL could not reach CNS (`AsyncPodDeletePath`,
 * `cni/network/invoker_cns.go` `watcherPath`): a file per container ID holding its pod interface ID.
 */
export const ASYNC_DELETE_DIR = '/var/run/azure-vnet/deleteIDs';

/** `cns/types` return codes this agent answers with. */
export const CNS_CODES = {
  Success: 0,
  UnknownContainerID: 18,
  InvalidRequest: 23,
  FailedToAllocateIPConfig: 32,
  EmptyOrchestratorContext: 33,
  UnsupportedOrchestratorContext: 34,
  UnexpectedError: 99,
} as const;

/** A network container CNS hands pod IPs from (Swift's pod-subnet NC, Overlay's pod-CIDR NC). */
export interface CnsNetworkContainerSpec {
  readonly id: string;
  /** The NC's primary IP configuration, `ip/len` (its prefix length is every pod address's). */
  readonly primaryIp: string;
  /** Its gateway (`GatewayIPAddress`); '' leaves it to azure-vnet (Overlay). */
  readonly gateway?: string;
  /** The secondary IPs pods take, in the order they are handed out. */
  readonly secondaryIps: readonly string[];
  /** `SkipDefaultRoutes`. */
  readonly skipDefaultRoutes?: boolean;
}

/** A multitenant (Swift v1) NC for one pod. */
export interface CnsMultitenantSpec {
  /** The pod, `namespace/name` as CNS keys it (azure-vnet sends the pod name cut to its prefix unless exact match is on). */
  readonly pod: string;
  readonly id: string;
  /** `MultiTenancyInfo.ID`: the VLAN. */
  readonly vlan: number;
  /** The pod's address, `ip/len` (`IPConfiguration.IPSubnet`). */
  readonly ip: string;
  readonly gateway: string;
  /** `CnetAddressSpace`: routed through the NC's gateway and excepted from OutBoundNAT. */
  readonly cnetAddressSpace?: readonly string[];
  /** `PrimaryInterfaceIdentifier`: an address of the node (default: its primary IP). */
  readonly primaryInterfaceIdentifier?: string;
  /** `LocalIPConfiguration.IPSubnet` (`ip/len`), needed when SNAT on host is on. */
  readonly localIp?: string;
}

export interface CnsOptions {
  readonly ncs?: readonly CnsNetworkContainerSpec[];
  readonly multitenancy?: readonly CnsMultitenantSpec[];
  /** Default 10090. */
  readonly port?: number;
}

/** At most this many pod IPs of an IPv6 Overlay pod CIDR are listed (a /64 has 2^64). */
export const OVERLAY_V6_POOL = 254;

/**
 * The NC CNS derives from a node's Overlay pod block (`cns/kubecontroller/nodenetworkconfig`
 * `CreateNCRequestFromStaticNC`): the primary IP is the block's address with the prefix length of
 * the cluster's pod CIDR (`SubnetAddressSpace`, default the block's own), so pods are
 * `10.244.1.2/16` on a cluster of 10.244.0.0/16; IPv4 — gateway .1, pod IPs from .2, the block's
 * last address kept back; IPv6 (dual-stack) — no gateway (azure-vnet then uses
 * `fe80::1234:5678:9abc`), pod IPs from `::2`, the first `OVERLAY_V6_POOL` of them.
 */
export function overlayNc(id: string, podBlock: string, clusterCidr?: string): CnsNetworkContainerSpec {
  const p = parsePrefix(podBlock);
  const cluster = clusterCidr === undefined ? p : parsePrefix(clusterCidr);
  if (
    !p ||
    !cluster ||
    cluster.family !== p.family ||
    cluster.len > p.len ||
    !prefixContains(cluster, p.family === 4 ? { family: 4, value: p.addr } : { family: 6, value: p.addr })
  )
    throw hnsError(
      'E_INVALIDARG',
      `overlay pod block "${podBlock}" in cluster CIDR "${clusterCidr ?? podBlock}"`,
    );
  if (p.family === 6 && p.len <= 126) {
    const ips: string[] = [];
    const size = 1n << BigInt(128 - p.len);
    for (let i = 2n; i < size - 1n && ips.length < OVERLAY_V6_POOL; i++) ips.push(formatIPv6(p.addr + i));
    return { id, primaryIp: `${formatIPv6(p.addr)}/${cluster.len}`, gateway: '', secondaryIps: ips };
  }
  if (p.family !== 4 || p.len > 29) throw hnsError('E_INVALIDARG', `overlay pod block "${podBlock}"`);
  const base = p.addr;
  const size = 2 ** (32 - p.len);
  const ips: string[] = [];
  for (let i = 2; i < size - 1; i++) ips.push(formatIPv4((base + i) >>> 0));
  return {
    id,
    primaryIp: `${formatIPv4(base)}/${cluster.len}`,
    gateway: formatIPv4((base + 1) >>> 0),
    secondaryIps: ips,
  };
}

interface Nc {
  readonly spec: CnsNetworkContainerSpec;
  readonly ip: string;
  readonly len: number;
  /** An IPv6 NC (dual-stack Overlay): its gateway is `GatewayIPv6Address`. */
  readonly v6: boolean;
  /** IP → the pod interface holding it ('' = free), in hand-out order. */
  readonly pool: Map<string, string>;
}

interface Assignment {
  readonly nc: Nc;
  readonly ip: string;
}

const reply = (body: JsonObject, status = 200): PlatformReply => ({
  status,
  body: `${JSON.stringify(body)}\n`,
});
const response = (code: number, message = ''): JsonObject => ({ ReturnCode: code, Message: message });
/**
 * An IP call's reply without addresses (a failure, or a release's success): `IPConfigResponse`
 * (single API, Go field names) or `IPConfigsResponse` (lower-camel tags).
 */
const noAddresses = (single: boolean, code: number, message: string): PlatformReply =>
  reply(
    single
      ? { PodIpInfo: null, Response: response(code, message) }
      : { podIPInfo: null, response: response(code, message) },
  );

/** What a snapshot brings back into a CNS agent besides its options: pod interface → its IPs, one per NC. */
type RestoredAssignments = readonly (readonly [string, readonly string[]])[];

/** The node's CNS (src/host/agents.ts's kind `cns`). */
const CNS_KIND = 'cns';

/** A CNS on a node: answering on its loopback port while it runs (`start`, `stop`). */
export class CnsAgent implements NodeAgent {
  private readonly ncs: Nc[];
  private readonly byPod = new Map<string, Assignment[]>();
  private readonly multitenantSpecs: readonly CnsMultitenantSpec[];
  private readonly multitenant: ReadonlyMap<string, readonly CnsMultitenantSpec[]>;
  /** The loopback port it answers on. */
  readonly port: number;
  private stopListening: (() => void) | undefined;
  /** Replaced on the node (a restore, or another CNS started there): it cannot start again. */
  private detached = false;

  /**
   * Start CNS on the node with these NCs (as `startCns`); with `restored`, an agent rebuilt from a
   * snapshot instead: its assignments taken back, nothing on the node touched (it neither listens
   * nor becomes the node's CNS: src/host/agents.ts does that once the whole snapshot checked out).
   */
  constructor(
    private readonly host: Host,
    options: CnsOptions,
    restored?: RestoredAssignments,
  ) {
    this.ncs = (options.ncs ?? []).map((s) => {
      const p = parsePrefix(s.primaryIp);
      if (!p)
        throw hnsError('E_INVALIDARG', `NC ${s.id}: primaryIp "${s.primaryIp}" is not an address/length`);
      const gw = s.gateway ?? '';
      if (gw !== '' && parseIp(gw)?.family !== p.family)
        throw hnsError('E_INVALIDARG', `NC ${s.id}: gateway "${gw}" is not an address of the NC's family`);
      const pool = new Map<string, string>();
      for (const ip of s.secondaryIps) {
        const v = parseIp(ip);
        if (v === undefined || !prefixContains(p, v))
          throw hnsError('E_INVALIDARG', `NC ${s.id}: secondary IP "${ip}" is not in ${s.primaryIp}`);
        pool.set(formatIp(v), '');
      }
      return { spec: s, ip: s.primaryIp.split('/')[0]!, len: p.len, v6: p.family === 6, pool };
    });
    const mt = new Map<string, CnsMultitenantSpec[]>();
    for (const m of options.multitenancy ?? []) {
      const bad = (why: string): never => {
        throw hnsError('E_INVALIDARG', `multitenant NC ${m.id}: ${why}`);
      };
      if (!/^[^/]+\/[^/]+$/.test(m.pod)) bad(`pod "${m.pod}" is not namespace/name`);
      if (parsePrefix(m.ip)?.family !== 4) bad(`ip "${m.ip}" is not an IPv4 address/length`);
      if (parseIp(m.gateway)?.family !== 4) bad(`gateway "${m.gateway}" is not an IPv4 address`);
      if (!Number.isInteger(m.vlan) || m.vlan < 0 || m.vlan > 4094) bad(`vlan ${m.vlan} is not 0..4094`);
      for (const c of m.cnetAddressSpace ?? []) if (!parsePrefix(c)) bad(`cnetAddressSpace "${c}"`);
      if (m.localIp !== undefined && !parsePrefix(m.localIp)) bad(`localIp "${m.localIp}"`);
      const [ns = '', name = ''] = m.pod.split('/');
      const key = `${name}${ns}`;
      mt.set(key, [...(mt.get(key) ?? []), m]);
    }
    this.multitenantSpecs = options.multitenancy ?? [];
    this.multitenant = mt;
    this.port = options.port ?? CNS_PORT;
    if (restored) {
      for (const [key, ips] of restored) this.takeBack(key, ips);
      return;
    }
    const current = cnsOf(host);
    if (current?.running)
      throw hnsError('E_INVALIDARG', `CNS runs on this node already (port ${current.port}): stop it first`);
    this.start();
    host.agents.set(CNS_KIND, this);
  }

  /** A snapshot's assignment of a pod interface: its IPs, the i-th from the i-th NC's free ones. */
  private takeBack(key: string, ips: readonly string[]): void {
    const bad = (why: string): never => {
      throw hnsError('E_INVALIDARG', `pod interface "${key}": ${why}`);
    };
    if (key === '') bad('an empty podInterfaceID');
    if (this.byPod.has(key)) bad('assigned twice');
    if (ips.length === 0 || ips.length !== this.ncs.length)
      bad(`${ips.length} IPs for ${this.ncs.length} NCs (one from each)`);
    const got = ips.map((ip, i): Assignment => {
      const nc = this.ncs[i]!;
      const owner = nc.pool.get(ip);
      if (owner === undefined) bad(`${ip} is not a secondary IP of NC ${nc.spec.id}`);
      if (owner !== '') bad(`${ip} of NC ${nc.spec.id} is pod interface "${owner}"'s`);
      nc.pool.set(ip, key);
      return { nc, ip };
    });
    this.byPod.set(key, got);
  }

  /**
   * Answer on the loopback (the service started), after releasing what DELs left while it was
   * away: each file in `/var/run/azure-vnet/deleteIDs` names a pod interface (cns/fsnotify).
   */
  start(): void {
    if (this.stopListening) return;
    if (this.detached)
      throw hnsError('E_INVALIDARG', 'this CNS was replaced on the node (cnsOf(host) is the one there)');
    this.listen();
    for (const name of this.host.files.list(ASYNC_DELETE_DIR)) {
      const path = `${ASYNC_DELETE_DIR}/${name}`;
      const podInterfaceId = this.host.files.read(path) ?? '';
      this.releasePod(podInterfaceId);
      this.host.files.remove(path);
    }
  }

  private listen(): void {
    this.stopListening = this.host.http.listen(this.port, (r) => this.handle(r));
  }

  /** Answer again as restored from a snapshot: what the snapshot says is assigned stays as it is. */
  resume(): void {
    if (!this.stopListening && !this.detached) this.listen();
  }

  /** Whether it answers on the loopback now. */
  get running(): boolean {
    return this.stopListening !== undefined;
  }

  /** Stop answering (the service stopped); what it assigned stays. */
  stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /** Stopped for good: another CNS took its place on the node (`NodeAgent`). */
  detach(): void {
    this.stop();
    this.detached = true;
  }

  /**
   * Its section of the host snapshot (`agents.cns`): whether it runs, its port, the NCs and
   * multitenant NCs as given, and each pod interface's IPs in the order it was assigned them (one
   * per NC, in the NCs' order) — what the `cns` kind's reader (`readCnsState` below) takes back.
   */
  toState(): JsonObject {
    return {
      running: this.running,
      port: this.port,
      ncs: this.ncs.map(({ spec: s }) => ({
        id: s.id,
        primaryIp: s.primaryIp,
        ...(s.gateway !== undefined ? { gateway: s.gateway } : {}),
        secondaryIps: [...s.secondaryIps],
        ...(s.skipDefaultRoutes !== undefined ? { skipDefaultRoutes: s.skipDefaultRoutes } : {}),
      })),
      multitenancy: this.multitenantSpecs.map((m) => ({
        pod: m.pod,
        id: m.id,
        vlan: m.vlan,
        ip: m.ip,
        gateway: m.gateway,
        ...(m.cnetAddressSpace !== undefined ? { cnetAddressSpace: [...m.cnetAddressSpace] } : {}),
        ...(m.primaryInterfaceIdentifier !== undefined
          ? { primaryInterfaceIdentifier: m.primaryInterfaceIdentifier }
          : {}),
        ...(m.localIp !== undefined ? { localIp: m.localIp } : {}),
      })),
      assigned: [...this.byPod].map(([k, v]) => ({ podInterfaceID: k, ips: v.map((a) => a.ip) })),
    };
  }

  private releasePod(key: string): void {
    for (const a of this.byPod.get(key) ?? []) a.nc.pool.set(a.ip, '');
    this.byPod.delete(key);
  }

  /** Pod interface → the addresses CNS assigned it. */
  assigned(): Map<string, string[]> {
    return new Map([...this.byPod].map(([k, v]) => [k, v.map((a) => a.ip)]));
  }

  private handle(r: LocalHttpRequest): PlatformReply {
    let body: Json;
    try {
      body = JSON.parse(r.body === '' ? 'null' : r.body) as Json;
    } catch (e) {
      return { status: 400, body: `Failed to decode request: ${(e as Error).message}\n` };
    }
    const req = isJsonObject(body) ? body : {};
    switch (r.path) {
      case '/network/requestipconfigs':
        return this.request(req, false);
      case '/network/requestipconfig':
        return this.request(req, true);
      case '/network/releaseipconfigs':
      case '/network/releaseipconfig':
        return this.release(req, r.path.endsWith('s'));
      case '/network/getAllNetworkContainers':
        return this.networkContainers(req, true);
      case '/network/getnetworkcontainerbyorchestratorcontext':
        return this.networkContainers(req, false);
      default:
        return { status: 404, body: '404 page not found\n' };
    }
  }

  /** The request's pod interface ID, or the error response CNS gives. */
  private podKey(req: JsonObject, single: boolean): string | PlatformReply {
    const ctx = req[single ? 'OrchestratorContext' : 'orchestratorContext'];
    if (ctx === undefined || ctx === null)
      return noAddresses(
        single,
        CNS_CODES.EmptyOrchestratorContext,
        `OrchestratorContext is not set in the req: ${JSON.stringify(req)}`,
      );
    const id = req[single ? 'PodInterfaceID' : 'podInterfaceID'];
    if (typeof id !== 'string' || id === '')
      return noAddresses(
        single,
        CNS_CODES.UnsupportedOrchestratorContext,
        'need interfaceID for pod info but request was empty',
      );
    return id;
  }

  private hostPrimary(): JsonObject {
    const nic = this.host.azure?.nics[0];
    if (nic) {
      const gw = formatIPv4(((nic.subnet.addr as number) + 1) >>> 0);
      return { Gateway: gw, PrimaryIP: nic.primaryIp, Subnet: formatPrefix(nic.subnet) };
    }
    const a = this.host
      .adapters()
      .find((x) => typeof x['IPv4Address'] === 'string' && x['IPv4Address'] !== '');
    const ip = a ? String(a['IPv4Address']) : '';
    const p = a ? parsePrefix(`${ip}/${String(a['PrefixLength'])}`) : undefined;
    return { Gateway: String(a?.['Gateway'] ?? ''), PrimaryIP: ip, Subnet: p ? formatPrefix(p) : '' };
  }

  /** `PodIpInfo` for one assignment (Go field order). */
  private podIpInfo(a: Assignment): JsonObject {
    const s = a.nc.spec;
    return {
      PodIPConfig: { IPAddress: a.ip, PrefixLength: a.nc.len },
      NetworkContainerPrimaryIPConfig: {
        IPSubnet: { IPAddress: a.nc.ip, PrefixLength: a.nc.len },
        IPSubnetV6: { IPAddress: '', PrefixLength: 0 },
        DNSServers: null,
        GatewayIPAddress: a.nc.v6 ? '' : (s.gateway ?? ''),
        GatewayIPv6Address: a.nc.v6 ? (s.gateway ?? '') : '',
      },
      NetworkContainerIPv6Config: {
        IPSubnet: { IPAddress: '', PrefixLength: 0 },
        IPSubnetV6: { IPAddress: '', PrefixLength: 0 },
        DNSServers: null,
        GatewayIPAddress: '',
        GatewayIPv6Address: '',
      },
      HostPrimaryIPInfo: this.hostPrimary(),
      NICType: 'InfraNIC',
      InterfaceName: '',
      MacAddress: '',
      SkipDefaultRoutes: s.skipDefaultRoutes ?? false,
      Routes: null,
      PnPID: '',
      EndpointPolicies: null,
      AllowHostToNCCommunication: false,
      AllowNCToHostCommunication: false,
      NetworkContainerID: s.id,
    };
  }

  private request(req: JsonObject, single: boolean): PlatformReply {
    const key = this.podKey(req, single);
    if (typeof key !== 'string') return key;
    const oneNc = this.oneNc(single);
    if (oneNc) return oneNc;
    let got = this.byPod.get(key);
    if (!got) {
      const allocateFailed = (why: string): PlatformReply =>
        noAddresses(
          single,
          CNS_CODES.FailedToAllocateIPConfig,
          `AllocateIPConfig failed: ${why}, IP config request is ${goRequestText(req, single)}`,
        );
      if (this.ncs.length === 0) return allocateFailed('no NCs found in the CNS internal state');
      const picks: Assignment[] = [];
      for (const nc of this.ncs) {
        const free = [...nc.pool].find(([, owner]) => owner === '');
        if (!free)
          return allocateFailed(
            `not enough IPs available of type ${nc.v6 ? 'ipv6' : 'ipv4'} for ${nc.spec.id}, waiting on Azure CNS to allocate more with NC Status: `,
          );
        picks.push({ nc, ip: free[0] });
      }
      for (const p of picks) p.nc.pool.set(p.ip, key);
      this.byPod.set(key, (got = picks));
    }
    const infos = got.map((a) => this.podIpInfo(a));
    return reply(
      single ? { PodIpInfo: infos[0]!, Response: response(0) } : { podIPInfo: infos, response: response(0) },
    );
  }

  /** The single-IP APIs work with exactly one NC (code 23 otherwise). */
  private oneNc(single: boolean): PlatformReply | undefined {
    if (!single || this.ncs.length === 1) return undefined;
    return noAddresses(
      true,
      CNS_CODES.InvalidRequest,
      `Expected 1 NC when calling this API but found ${this.ncs.length} NCs`,
    );
  }

  private release(req: JsonObject, plural: boolean): PlatformReply {
    const key = this.podKey(req, !plural);
    if (typeof key !== 'string') return key;
    const oneNc = this.oneNc(!plural);
    if (oneNc) return oneNc;
    this.releasePod(key);
    return noAddresses(!plural, 0, '');
  }

  private networkContainers(req: JsonObject, all: boolean): PlatformReply {
    const ctx = req['OrchestratorContext'];
    const pod = isJsonObject(ctx) ? ctx : {};
    const key = `${String(pod['podName'] ?? '')}${String(pod['podNamespace'] ?? '')}`;
    const ncs = this.multitenant.get(key);
    if (!ncs || ncs.length === 0) {
      const message = `Failed to find networkContainerID for orchestratorContext ${key}`;
      if (all)
        return reply({
          NetworkContainers: null,
          Response: response(CNS_CODES.UnexpectedError, `Failed to get NC  due to ${message}`),
        });
      return reply(this.ncResponse(undefined, response(CNS_CODES.UnknownContainerID, message)));
    }
    const list = ncs.map((m) => this.ncResponse(m, response(0)));
    return reply(
      all ? { NetworkContainers: list, Response: response(0, 'Successfully retrieved NCs') } : list[0]!,
    );
  }

  /** `GetNetworkContainerResponse` (Go field order). */
  private ncResponse(m: CnsMultitenantSpec | undefined, resp: JsonObject): JsonObject {
    const subnet = (cidr: string | undefined): JsonObject => {
      const [ip = '', len = '0'] = (cidr ?? '').split('/');
      return { IPAddress: ip, PrefixLength: cidr ? Number(len) : 0 };
    };
    const ipConfig = (cidr: string | undefined, gw: string): JsonObject => ({
      IPSubnet: subnet(cidr),
      IPSubnetV6: subnet(undefined),
      DNSServers: null,
      GatewayIPAddress: gw,
      GatewayIPv6Address: '',
    });
    return {
      NetworkContainerID: m?.id ?? '',
      IPConfiguration: ipConfig(m?.ip, m?.gateway ?? ''),
      IPv6Configuration: ipConfig(undefined, ''),
      Routes: null,
      CnetAddressSpace: m?.cnetAddressSpace?.length ? m.cnetAddressSpace.map(subnet) : null,
      MultiTenancyInfo: { EncapType: m ? 'Vlan' : '', ID: m?.vlan ?? 0 },
      PrimaryInterfaceIdentifier: m
        ? (m.primaryInterfaceIdentifier ?? String(this.hostPrimary()['PrimaryIP']))
        : '',
      LocalIPConfiguration: ipConfig(m?.localIp, ''),
      Response: resp,
      AllowHostToNCCommunication: false,
      AllowNCToHostCommunication: false,
      SkipDefaultRoutes: false,
      NetworkInterfaceInfo: { NICType: '', MACAddress: '' },
    };
  }
}

/**
 * Go's `%v` of the request struct, as CNS's allocation error prints it: its fields' values in
 * order (`IPConfigsRequest`: desired IPs, pod interface ID, infra container ID, the orchestrator
 * context's bytes, ifname, two flags, backend MACs).
 */
function goRequestText(req: JsonObject, single: boolean): string {
  const list = (v: Json | undefined): string =>
    `[${Array.isArray(v) ? v.map((x) => String(x)).join(' ') : ''}]`;
  const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
  const ctx = single ? req['OrchestratorContext'] : req['orchestratorContext'];
  const bytes = `[${[...new TextEncoder().encode(JSON.stringify(ctx ?? null))].join(' ')}]`;
  if (single)
    return `{${str(req['DesiredIPAddress'])} ${str(req['PodInterfaceID'])} ${str(req['InfraContainerID'])} ${bytes} ${str(req['Ifname'])}}`;
  return `{${list(req['desiredIPAddresses'])} ${str(req['podInterfaceID'])} ${str(req['infraContainerID'])} ${bytes} ${str(req['ifname'])} ${String(req['secondaryInterfacesExist'] === true)} ${String(req['BackendInterfaceExist'] === true)} ${list(req['BacknendInterfaceMacAddress'])}}`;
}

/**
 * Start CNS on a node (it answers on `localhost:<port>` until `stop()`) as the node's CNS: one
 * already running there is `E_INVALIDARG`; a stopped one is replaced (it cannot start again).
 */
export function startCns(host: Host, options: CnsOptions = {}): CnsAgent {
  return new CnsAgent(host, options);
}

/** The node's CNS (started, or restored from a snapshot), running or not. */
export function cnsOf(host: Host): CnsAgent | undefined {
  const a = host.agents.get(CNS_KIND);
  return a instanceof CnsAgent ? a : undefined;
}

const OPTION_KEYS = ['ncs', 'multitenancy', 'port'];
const NC_KEYS = ['id', 'primaryIp', 'gateway', 'secondaryIps', 'skipDefaultRoutes'];
const MT_KEYS = [
  'pod',
  'id',
  'vlan',
  'ip',
  'gateway',
  'cnetAddressSpace',
  'primaryInterfaceIdentifier',
  'localIp',
];

/** `value` as an object with only `keys`, else E_INVALIDARG naming `what`. */
function objectOf(value: unknown, what: string, keys: readonly string[]): JsonObject {
  if (!isJsonObject(value)) throw hnsError('E_INVALIDARG', `${what} must be an object`);
  const extra = Object.keys(value).find((k) => !keys.includes(k));
  if (extra !== undefined)
    throw hnsError('E_INVALIDARG', `${what}: unknown key "${extra}" (${keys.join(', ')})`);
  return value;
}

/** Type checks of one field (E_INVALIDARG naming it); undefined passes unless required. */
function field(
  o: JsonObject,
  what: string,
  k: string,
  type: 'string' | 'boolean' | 'number' | 'strings',
): void {
  const v = o[k];
  if (v === undefined) return;
  const ok =
    type === 'strings' ? Array.isArray(v) && v.every((x) => typeof x === 'string') : typeof v === type;
  if (!ok)
    throw hnsError(
      'E_INVALIDARG',
      `${what}.${k} must be ${type === 'strings' ? 'a list of strings' : `a ${type}`}`,
    );
}

function required(o: JsonObject, what: string, keys: readonly string[]): void {
  const missing = keys.find((k) => o[k] === undefined);
  if (missing !== undefined) throw hnsError('E_INVALIDARG', `${what}.${missing} is required`);
}

/**
 * `startCns`'s options from JSON (JSON-RPC `CnsStart`, a snapshot's `agents.cns`): the shapes
 * checked, unknown keys refused (E_INVALIDARG naming the field, under `what`); the values
 * themselves are the agent's to check.
 */
export function cnsOptionsFromJson(value: unknown, what = 'CNS'): CnsOptions {
  const o = objectOf(value, what, OPTION_KEYS);
  const list = (k: string): unknown[] => {
    const v = o[k] ?? [];
    if (!Array.isArray(v)) throw hnsError('E_INVALIDARG', `${what}.${k} must be a list`);
    return v;
  };
  list('ncs').forEach((x, i) => {
    const w = `${what}.ncs[${i}]`;
    const nc = objectOf(x, w, NC_KEYS);
    required(nc, w, ['id', 'primaryIp', 'secondaryIps']);
    for (const k of ['id', 'primaryIp', 'gateway']) field(nc, w, k, 'string');
    field(nc, w, 'secondaryIps', 'strings');
    field(nc, w, 'skipDefaultRoutes', 'boolean');
  });
  list('multitenancy').forEach((x, i) => {
    const w = `${what}.multitenancy[${i}]`;
    const m = objectOf(x, w, MT_KEYS);
    required(m, w, ['pod', 'id', 'vlan', 'ip', 'gateway']);
    for (const k of ['pod', 'id', 'ip', 'gateway', 'primaryInterfaceIdentifier', 'localIp'])
      field(m, w, k, 'string');
    field(m, w, 'vlan', 'number');
    field(m, w, 'cnetAddressSpace', 'strings');
  });
  const port = o['port'];
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535))
    throw hnsError('E_INVALIDARG', `${what}.port must be a port number 1..65535`);
  return o as unknown as CnsOptions;
}

const STATE_KEYS = ['running', ...OPTION_KEYS, 'assigned'];

/**
 * The snapshot section `agents.cns` (`CnsAgent.toState`) read back: checked whole — shapes, the
 * NCs as `startCns` checks them, each assignment against its NC's free IPs, and the port free on
 * the node unless the CNS being replaced holds it — before anything changes (E_INVALIDARG
 * `snapshot: cns: …`).
 */
function readCnsState(host: Host, state: unknown): () => NodeAgent {
  const what = 'snapshot: cns';
  // a copy: the agent keeps its NCs, and the caller keeps its snapshot
  const o = structuredClone(objectOf(state, what, STATE_KEYS));
  if (typeof o['running'] !== 'boolean')
    throw hnsError('E_INVALIDARG', `${what}.running must be true or false`);
  const running = o['running'];
  const { running: _r, assigned: a = [], ...rest } = o;
  const options = cnsOptionsFromJson(rest, what);
  if (!Array.isArray(a)) throw hnsError('E_INVALIDARG', `${what}.assigned must be a list`);
  const assigned = a.map((x, i): [string, string[]] => {
    const w = `${what}.assigned[${i}]`;
    const e = objectOf(x, w, ['podInterfaceID', 'ips']);
    required(e, w, ['podInterfaceID', 'ips']);
    field(e, w, 'podInterfaceID', 'string');
    field(e, w, 'ips', 'strings');
    return [e['podInterfaceID'] as string, e['ips'] as string[]];
  });
  let agent: CnsAgent;
  try {
    agent = new CnsAgent(host, options, assigned);
  } catch (e) {
    throw hnsError('E_INVALIDARG', `${what}: ${isHnsError(e) ? (e.detail ?? e.message) : errorMessage(e)}`);
  }
  const current = cnsOf(host);
  if (running && host.http.listening(agent.port) && !(current?.running && current.port === agent.port))
    throw hnsError('E_INVALIDARG', `${what}: port ${agent.port} is taken on the node`);
  return () => {
    if (running) agent.resume();
    return agent;
  };
}

registerNodeAgentKind({ kind: CNS_KIND, read: readCnsState });
