/**
 * One simulated Windows node, the composition root (DESIGN: host/). Its parts are bound in an
 * inversify container so a test can replace any of them (a faulty transport, another clock):
 *
 *   const host = createHost({ seed: 7, profile: 'ws2025' });
 *   const r = host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' });
 *
 *   createHost({ override: (c) => c.rebind(TOKENS.Transport).toDynamicValue(…) });
 */
import { Container, type ResolutionContext } from 'inversify';
import { Clock } from '../core/clock.js';
import { hnsError } from '../core/errors.js';
import { EventBus } from '../core/events.js';
import { FileStore } from '../core/files.js';
import {
  AzureVm,
  azureEdge,
  platformRequest,
  type AzureVmSpec,
  type HttpHeaders,
  type PlatformReply,
} from './azure.js';
import { isLoopbackUrl, LocalHttp } from './localhttp.js';
import { NamedPipes } from './pipes.js';
import {
  checkKubernetesSpec,
  KubeApiServer,
  WINDOWS_KUBECONFIG_PATH,
  type KubernetesSpec,
} from './kubeapi.js';
import { NodeAgents } from './agents.js';
import { auditNode, type AuditFinding, type AuditOptions } from './audit.js';
import { ipInterfaces, type IpInterfacesDoc } from './iphelper.js';
import { Rng } from '../core/rng.js';
import { FaultInjector } from '../api/faults.js';
import { FlatApi } from '../api/flat.js';
import { DirectTransport, type HnsTransport } from '../api/transport.js';
import {
  applyReboot,
  applyRestart,
  REBOOT_DEFAULT,
  restoreSnapshot,
  SERVICE_RESTART_DEFAULT,
  forwardingTables,
  takeSnapshot,
  type HnsSnapshot,
  type RestartPolicy,
} from '../hns/lifecycle.js';
import { HnsService } from '../hns/service.js';
import {
  adapterJson,
  endpointInterface,
  parseAdapterSpecs,
  VNIC_DESCRIPTION,
  type AdapterSpec,
  type NetAdapterRec,
} from '../hns/adapters.js';
import { isJsonObject, type JsonObject } from '../core/json.js';
import { derivedGuid } from '../core/guid.js';
import { formatMac, parseMac } from '../addr/mac.js';
import { formatIp, parseIp, parsePrefix } from '../addr/ip.js';
import { NodeOvs } from './ovs.js';
import { fmt, fmtPrefix } from '../vswitch/v4.js';
import { DEFAULT_PROFILE, resolveProfile, type HostProfile } from '../hns/versions.js';
import {
  HostPlane,
  type DataplaneOptions,
  type HostRoute,
  type NetNatStaticMapping,
  type NetNatStaticMappingSpec,
  type RouteSpec,
} from '../dataplane/plane.js';
import { HostScope } from '../dataplane/host-scope.js';
import { HcsService, type HcsOptions } from '../hcs/service.js';
import {
  FlowTable,
  resolveProbe,
  runProbe,
  runSend,
  runTrace,
  type Probe,
  type ProbeAddresses,
  type SendRequest,
  type TraceRequest,
  type TraceResult,
} from '../dataplane/trace.js';

export interface HostOptions {
  /** Seed of every ID and choice the host makes (default 1). */
  readonly seed?: number;
  /** `ws2019`, `ws2022`, `ws2025`, an explicit `Major.Minor` HNS version, or a profile object. */
  readonly profile?: string | HostProfile;
  /** Host name, for listings and clusters (default `node-1`). */
  readonly name?: string;
  /** Create the HostDefault namespace (compartment 1) at boot, as Windows has one (default true). */
  readonly defaultNamespace?: boolean;
  /**
   * What an HNS service restart keeps (defaults: SERVICE_RESTART_DEFAULT), and how long the service
   * stays down (`downtimeMs`, simulated, default 0).
   */
  readonly serviceRestart?: Partial<RestartPolicy> & { readonly downtimeMs?: number };
  /** What a host reboot keeps (defaults: REBOOT_DEFAULT). */
  readonly reboot?: Partial<RestartPolicy>;
  /**
   * The host's physical network adapters (default: one `Ethernet` with an IPv4 address, gateway and
   * MAC derived from the seed). External-switch networks bind to them (src/hns/adapters.ts).
   */
  readonly adapters?: readonly AdapterSpec[];
  /** Dataplane choices where Windows is silent (docs/model.md, "Dataplane"). */
  readonly dataplane?: DataplaneOptions;
  /**
   * The Host Compute Service: lifecycle choices where Windows is silent (docs/model.md, "HCS"), and
   * which API the flat `Hcs*` methods are: computecore.dll (`computecore`, default: HCS_E_*
   * 0x8037… errors) or vmcompute.dll (`vmcompute`: ERROR_VMCOMPUTE_* 0xC037…).
   */
  readonly hcs?: HcsOptions & { readonly api?: 'computecore' | 'vmcompute' };
  /**
   * The node is an Azure VM (src/host/azure.ts): its NICs' secondary IP configurations, which the
   * wireserver lists for azure-vnet-ipam. Without it the node is not on Azure.
   */
  readonly azure?: AzureVmSpec;
  /**
   * A Kubernetes API server this node reaches (src/host/kubeapi.ts), with the node registered in it
   * under its name in lower case (`podCIDRs`: its `spec.podCIDRs`, at most one per IP family) and
   * the kubeconfig naming it written to `c:\k\config`; an unknown key or a bad value is
   * E_INVALIDARG (`kubernetes: …`). A `Cluster` attaches its own server instead (`attachKubernetes`).
   */
  readonly kubernetes?: KubernetesSpec;
  /** Replace bindings after the defaults are bound: `(c) => c.rebind(TOKENS.Clock).toConstantValue(…)`. */
  readonly override?: (container: Container) => void;
}

/** Service identifiers of the host's parts. */
export const TOKENS = {
  Options: Symbol.for('hnsim.Options'),
  Profile: Symbol.for('hnsim.Profile'),
  Rng: Symbol.for('hnsim.Rng'),
  Clock: Symbol.for('hnsim.Clock'),
  Events: Symbol.for('hnsim.Events'),
  Hns: Symbol.for('hnsim.Hns'),
  FlatApi: Symbol.for('hnsim.FlatApi'),
  Transport: Symbol.for('hnsim.Transport'),
  Faults: Symbol.for('hnsim.Faults'),
  Dataplane: Symbol.for('hnsim.Dataplane'),
  Hcs: Symbol.for('hnsim.Hcs'),
} as const;

export class Host {
  readonly name: string;
  readonly profile: HostProfile;
  readonly rng: Rng;
  readonly clock: Clock;
  readonly events: EventBus;
  readonly hns: HnsService;
  /** The flat, DLL-named API: synchronous, failures as data. */
  readonly api: FlatApi;
  /** Fault and latency injection, wrapping the transport the typed client uses. */
  readonly faults: FaultInjector;
  /** What clients call: faults → transport → flat API. */
  readonly transport: HnsTransport;
  /** The host's packet path: vSwitch ports, VFP layers, host stack, uplink (src/dataplane). */
  readonly dataplane: HostPlane;
  /** The Host Compute Service: compute systems and how they attach to HNS (src/hcs). */
  readonly hcs: HcsService;
  private scopeCache: HostScope | undefined;
  /** Cached trace results (the flow table), keyed by the state they were computed on. */
  readonly flowTable = new FlowTable();
  /**
   * The host's disk as CNI plugins see it (src/core/files.ts): host-local reservations, flannel's
   * saved delegate configs, libcni's result cache. In the snapshot; an HNS restart or a reboot
   * leaves it as it is.
   */
  readonly files = new FileStore();
  #azure: AzureVm | undefined;

  /** The Azure VM the node is (`HostOptions.azure`, or a restored snapshot's), if it is one. */
  get azure(): AzureVm | undefined {
    return this.#azure;
  }

  constructor(
    readonly container: Container,
    private readonly options: HostOptions,
  ) {
    this.name = options.name ?? 'node-1';
    this.profile = container.get<HostProfile>(TOKENS.Profile);
    this.rng = container.get<Rng>(TOKENS.Rng);
    this.clock = container.get<Clock>(TOKENS.Clock);
    this.events = container.get<EventBus>(TOKENS.Events);
    this.hns = container.get<HnsService>(TOKENS.Hns);
    this.api = container.get<FlatApi>(TOKENS.FlatApi);
    this.faults = container.get<FaultInjector>(TOKENS.Faults);
    this.transport = this.faults;
    this.dataplane = container.get<HostPlane>(TOKENS.Dataplane);
    this.hcs = container.get<HcsService>(TOKENS.Hcs);
    this.seed = options.seed ?? 1;
    this.#azure = options.azure
      ? AzureVm.parse(options.azure, this.hns.store.nics.physical(), { hostName: this.name, seed: this.seed })
      : undefined;
    let kube: KubeApiServer | undefined;
    if (options.kubernetes !== undefined) {
      const spec = checkKubernetesSpec(options.kubernetes);
      kube = new KubeApiServer(spec);
      kube.setNode(this.name.toLowerCase(), spec.podCIDRs ?? []);
    }
    this.files.onChange = (c) => this.events.emit('file.change', c);
    if (options.defaultNamespace !== false) this.bootNamespaces();
    if (kube) this.attachKubernetes(kube);
  }

  #kube: KubeApiServer | undefined;

  /** The Kubernetes API server this node reaches, if any (`attachKubernetes`). */
  get kubernetes(): KubeApiServer | undefined {
    return this.#kube;
  }

  /**
   * Let the node's processes reach a Kubernetes API server at its URL, and (unless `kubeconfig` is
   * false) write the kubeconfig naming it to `c:\k\config`, as node provisioning does.
   */
  attachKubernetes(server: KubeApiServer, options: { readonly kubeconfig?: boolean } = {}): void {
    this.#kube = server;
    if (options.kubeconfig !== false) this.files.write(WINDOWS_KUBECONFIG_PATH, server.kubeconfigText());
  }

  private bootNamespaces(): void {
    this.hns.createNamespace(null, { Type: 'HostDefault', SchemaVersion: { Major: 2, Minor: 0 } });
  }

  /**
   * Restart the HNS service: what survives follows `serviceRestart` (docs/model.md). With
   * `downtimeMs` (default `serviceRestart.downtimeMs`, else 0) the service stays down for that much
   * simulated time: every call fails with RPC_S_SERVER_UNAVAILABLE (0x800706BA) until
   * `clock.advance` passes it, and a call held by a fault rule across the restart fails with
   * RPC_S_CALL_FAILED (0x800706BE) when released.
   */
  restartHns(policy: Partial<RestartPolicy> & { readonly downtimeMs?: number } = {}): void {
    const { downtimeMs: given, ...keep } = policy;
    const downtimeMs = given ?? this.options.serviceRestart?.downtimeMs ?? 0;
    if (!Number.isFinite(downtimeMs) || downtimeMs < 0) {
      throw hnsError('E_INVALIDARG', `downtimeMs must be a number ≥ 0, got ${String(downtimeMs)}`);
    }
    const { downtimeMs: _d, ...configured } = this.options.serviceRestart ?? {};
    applyRestart(this.hns, { ...SERVICE_RESTART_DEFAULT, ...configured, ...keep });
    this.hns.beginRestart(downtimeMs);
    this.dropFlows();
    this.events.emit('hns.service', { what: 'restart', time: this.clock.now() });
  }

  /** Reboot the host: non-persistent networks and all endpoints, namespaces and LBs go by default. */
  reboot(policy: Partial<RestartPolicy> = {}): void {
    const p = { ...REBOOT_DEFAULT, ...this.options.reboot, ...policy };
    applyReboot(this.hns, p);
    // a reboot ends every compute system (their handles with it)
    this.hcs.clear();
    if (p.namespaces === 'remove' && this.options.defaultNamespace !== false) this.bootNamespaces();
    // ovs-vswitchd comes back as a service: its database kept, its OpenFlow state gone
    if (this.#ovs?.running) this.#ovs.db.restartVswitchd();
    this.dropFlows();
    this.events.emit('hns.service', { what: 'reboot', time: this.clock.now() });
  }

  #ovs: NodeOvs | undefined;

  /**
   * Open vSwitch on the node (src/host/ovs.ts): its database, `ovs-vsctl`/`ovs-ofctl`/`ovs-appctl`,
   * and — once `start()`ed — ovs-vswitchd forwarding the switch the Open vSwitch Extension is
   * enabled on. Installed on first use; in the snapshot's `ovs` (docs/ovs.md).
   */
  get ovs(): NodeOvs {
    return (this.#ovs ??= new NodeOvs(this.hns, this.dataplane, this.seed, this.clock));
  }

  /**
   * `New-NetNat -Name name -InternalIPInterfaceAddressPrefix prefix` (WinNAT outside HNS: Antrea's
   * `antrea-nat`): traffic the host forwards from the prefix out of an interface outside it is
   * SNATed to that interface's address. In the snapshot's `hostNet`, with routes added by hand.
   * Errors: E_INVALIDARG (a taken name, a bad prefix).
   */
  addNetNat(name: string, internalPrefix: string): void {
    this.dataplane.addNetNat(name, internalPrefix);
  }

  /** `Remove-NetNat`: whether it existed. */
  removeNetNat(name: string): boolean {
    return this.dataplane.removeNetNat(name);
  }

  /**
   * `Add-NetNatStaticMapping` (Antrea's NodePorts on `antrea-nat-nodeport`): inbound TCP/UDP for
   * the host's address (any, with `0.0.0.0`) and the external port is DNATed to the internal
   * address and port and routed on; replies un-DNATed. In the snapshot's `hostNet`, as NetNats are.
   * Errors: ERROR_NOT_FOUND (no such NetNat), E_INVALIDARG (bad protocol, address or port, an
   * internal address outside the NetNat's prefix, the port taken) — nothing changes then.
   */
  addNetNatStaticMapping(spec: NetNatStaticMappingSpec): NetNatStaticMappingInfo {
    return mappingInfo(this.dataplane.addNetNatStaticMapping(spec));
  }

  /**
   * `Remove-NetNatStaticMapping -NatName` (by `StaticMappingID`, or the mappings of a protocol and
   * external port; all of the NetNat's when `where` is empty): how many went.
   */
  removeNetNatStaticMapping(
    natName: string,
    where?: { readonly id?: number; readonly protocol?: 'TCP' | 'UDP'; readonly externalPort?: number },
  ): number {
    return this.dataplane.removeNetNatStaticMapping(natName, where);
  }

  /** `Get-NetNatStaticMapping`: every NetNat's static mappings, in creation order. */
  netNatStaticMappings(): NetNatStaticMappingInfo[] {
    return this.dataplane.netNatStaticMappings().map(mappingInfo);
  }

  /** `Get-NetNat`: name and internal prefix of each. */
  netNats(): { name: string; internalIPInterfaceAddressPrefix: string }[] {
    return this.dataplane.netNats().map((n) => ({
      name: n.name,
      internalIPInterfaceAddressPrefix: `${fmtPrefix(n.prefix)}`,
    }));
  }

  /**
   * `Rename-NetAdapter` (with `Rename-VMNetworkAdapter` for a host vNIC): what Antrea does to the
   * management vNIC before its bridge adopts it. Errors: HCN_E_ADAPTER_NOT_FOUND, E_INVALIDARG
   * (the new name taken).
   */
  renameAdapter(name: string, to: string): void {
    this.hns.store.nics.rename(name, to);
    this.hns.store.generation++;
  }

  /**
   * `New-NetIPAddress -InterfaceAlias name -IPAddress a -PrefixLength n [-DefaultGateway g]` (the
   * adapter's IPv4 address replaced), or `Remove-NetIPAddress` with `cidr` undefined. Errors:
   * HCN_E_ADAPTER_NOT_FOUND, E_INVALIDARG (not an IPv4 address with a prefix).
   */
  setAdapterAddress(name: string, cidr: string | undefined, gateway?: string): void {
    if (cidr === undefined) {
      this.hns.store.nics.setIpv4(name, undefined);
    } else {
      const pre = parsePrefix(cidr);
      if (!pre || pre.family !== 4 || pre.host.family !== 4)
        throw hnsError(
          'E_INVALIDARG',
          `"${cidr}" is not an IPv4 address with a prefix length (10.10.0.1/24)`,
        );
      const gw = gateway === undefined ? undefined : parseIp(gateway);
      if (gateway !== undefined && gw?.family !== 4)
        throw hnsError('E_INVALIDARG', `"${gateway}" is not an IPv4 address`);
      this.hns.store.nics.setIpv4(name, {
        IPAddress: formatIp(pre.host),
        PrefixLength: pre.len,
        ...(gateway !== undefined ? { DefaultGateway: gateway } : {}),
        addr: pre.host.value,
      });
    }
    this.hns.store.generation++;
  }

  /**
   * `GET url` from the node to a platform address (src/host/azure.ts): on an Azure VM the
   * wireserver answers its interface document and IMDS its metadata (`headers`: the request's,
   * e.g. `{ Metadata: 'true' }`); anything else never answers (`PlatformUnreachable`).
   */
  platformGet(url: string, headers?: HttpHeaders): PlatformReply {
    return platformRequest(this.azure, 'GET', url, headers);
  }

  /** The node's loopback HTTP listeners (src/host/localhttp.ts: node agents such as Azure CNS). */
  readonly http = new LocalHttp();

  /** The node's named-pipe servers (src/host/pipes.ts: Antrea's CNI server on `\\.\pipe\cnisock`). */
  readonly pipes = new NamedPipes();

  /** The node agents whose state is in the snapshot, by kind (src/host/agents.ts: Azure CNS). */
  readonly agents = new NodeAgents();

  /**
   * An HTTP request from a process on the node: to the loopback, what a listening agent answers
   * (`ConnectionRefused` when none listens); the attached Kubernetes API server's URL, its answer; a
   * request elsewhere goes to the platform (`platformRequest`: the wireserver's GETs, IMDS with the
   * request's `headers`); any other request never gets an answer (`PlatformUnreachable`). Loopback
   * agents do not read the headers.
   */
  httpRequest(method: string, url: string, body = '', headers?: HttpHeaders): PlatformReply {
    if (isLoopbackUrl(url)) return this.http.request(method, url, body);
    if (this.#kube?.serves(url)) return this.#kube.request(method, url, body);
    return platformRequest(this.azure, method, url, headers);
  }

  /**
   * The host's network adapters as data, as `Get-NetAdapter` and `Get-NetIPAddress` show them in
   * the host's default compartment: physical NICs, the host vNICs (`vEthernet (…)`) of the vSwitches
   * HNS created, then a host vNIC per endpoint attached to the host (HostAttach(1), or a member of
   * the HostDefault namespace) carrying the endpoint's address — flannel host-gw and Calico look
   * for the interface that holds their `cbr0_ep`/`Calico_ep` address.
   */
  adapters(): JsonObject[] {
    return [...this.hns.store.nics.list().map((a) => adapterJson(a)), ...this.endpointVNics()];
  }

  /**
   * The interfaces and routes as Windows' IP Helper API reports them (src/host/iphelper.ts): the
   * adapters above with LUIDs, IPv4 and IPv6 addresses and gateways, the loopback pseudo-interface,
   * and the route table. What hnsim's iphlpapi.dll answers a program under Wine from.
   */
  ipInterfaces(): IpInterfacesDoc {
    return ipInterfaces(this);
  }

  private endpointVNics(): JsonObject[] {
    const s = this.hns.store;
    const out: JsonObject[] = [];
    for (const ns of s.namespaces.values()) {
      if (ns.NamespaceId !== 1) continue;
      for (const r of ns.Resources) {
        const e = r.Type === 'Endpoint' ? s.endpoints.get(r.ID) : undefined;
        if (!e) continue;
        const v4 = e.IpConfigurations.find((c) => c.addr.family === 4);
        const mac = parseMac(e.MacAddress);
        const sw = s.nics.switchOf(e.HostComputeNetwork);
        const { ifIndex, mtu } = endpointInterface(e, s.networks.get(e.HostComputeNetwork));
        const o: JsonObject = {
          Name: `vEthernet (${e.Name || e.ID})`,
          InterfaceDescription: VNIC_DESCRIPTION,
          InterfaceGuid: derivedGuid(e.ID, 0x564e4943),
          ifIndex,
          MacAddress: mac === undefined ? e.MacAddress : formatMac(mac),
          MtuSize: mtu,
          Kind: 'HostVNic',
          Status: 'Up',
        };
        if (v4) {
          o.IPv4Address = v4.IpAddress;
          if (v4.PrefixLength !== undefined) o.PrefixLength = v4.PrefixLength;
        }
        if (sw) o.VSwitchId = sw.ID;
        o.EndpointId = e.ID;
        out.push(o);
      }
    }
    return out;
  }

  /**
   * The leak audit (src/host/audit.ts): endpoints nobody uses, namespaces no container joined, IP
   * reservations with no endpoint, remote endpoints no load balancer names, stale libcni cache
   * entries and flannel configs, and any inconsistency of the HNS store. `[]` when clean.
   */
  audit(options: AuditOptions = {}): AuditFinding[] {
    return auditNode(this.hns.store, this.hcs, this.files, options);
  }

  /** The vSwitches HNS created, with the networks on each. */
  switches(): JsonObject[] {
    return [...this.hns.store.nics.switches.values()].map((s) => {
      const o: JsonObject = { ID: s.ID, Name: s.Name, SwitchType: s.SwitchType };
      if (s.NetAdapterName) o.NetAdapterName = s.NetAdapterName;
      if (s.HostVNic) o.HostVNic = s.HostVNic;
      o.Networks = [...s.Networks];
      return o;
    });
  }

  private get scope(): HostScope {
    return (this.scopeCache ??= new HostScope(
      this.dataplane,
      this.seed,
      (_host, ep, field, packets, bytes) => this.hns.store.countTrafficField(ep, field, packets, bytes),
      this.azure ? azureEdge(this.azure) : undefined,
    ));
  }

  /**
   * Trace a packet through this host (src/dataplane/trace.ts): `from`/`to` are endpoints (ID or
   * name), containers, `host`, or addresses (outside ones arrive on or leave by the uplink). Nothing
   * changes; a repeated trace on unchanged state is a flow-table hit.
   */
  trace(request: TraceRequest): TraceResult {
    return runTrace(this.scope, request, this.flowTable);
  }

  /**
   * Walk a packet as the reachability analysis does (src/dataplane/trace.ts `runProbe`): a new
   * connection, each HNS ACL stage recorded and passed; `forced` picks a backend per `node|lb`.
   */
  probe(request: TraceRequest, forced?: ReadonlyMap<string, number>): Probe {
    return runProbe(this.scope, request, forced);
  }

  /** The addresses a probe of `request` would start from and go to, nothing walked. */
  probeAddresses(request: TraceRequest): ProbeAddresses {
    return resolveProbe(this.scope, request);
  }

  /** Send traffic: like a trace, but its flow state is kept and the endpoint counters move. */
  send(request: SendRequest): TraceResult {
    return runSend(this.scope, request);
  }

  /** The host's IPv4 route table (`Get-NetRoute`): connected, default and added routes. */
  routes(): readonly HostRoute[] {
    return this.dataplane.routes();
  }

  /** Add a route (`New-NetRoute`), as flannel host-gw does for other nodes' pod subnets. */
  addRoute(spec: RouteSpec): HostRoute {
    return this.dataplane.addRoute(spec);
  }

  removeRoute(destinationPrefix: string, nextHop?: string): number {
    return this.dataplane.removeRoute(destinationPrefix, nextHop);
  }

  /** Forget tracked connections (VFP's flow state goes with a restart or reboot). */
  private dropFlows(): void {
    this.scopeCache?.world.conntrack.clear();
    this.flowTable.clear();
  }

  /** The seed of the host's choices; a restored snapshot brings its own (load-balancer choices hash it). */
  private seed: number;

  /** The HNS state, and the seed its load-balancer choices depend on. */
  /**
   * What the host forwards by besides its endpoints and load balancers, as JSON (for comparing two
   * states: src/analysis/reach-diff.ts): HNS's networks, routes and policy lists, the host's own
   * networking (NetNat, routes added by hand) and OVS — not HCS, files, agents, namespaces, address
   * pools or the RNG.
   */
  forwardingState(): JsonObject {
    const hostNet = this.dataplane.netState();
    return {
      ...forwardingTables(this.hns),
      ...(this.#ovs ? { ovs: this.#ovs.toState() } : {}),
      ...(hostNet ? { hostNet } : {}),
    };
  }

  snapshot(): HnsSnapshot {
    const agents = this.agents.toState();
    const hostNet = this.dataplane.netState();
    return {
      ...takeSnapshot(this.hns),
      seed: this.seed,
      hcs: this.hcs.snapshot(),
      files: this.files.toJSON(),
      ...(this.#azure ? { azure: this.#azure.toState() as unknown as JsonObject } : {}),
      ...(this.#kube ? { kubernetes: this.#kube.toState() } : {}),
      ...(agents ? { agents } : {}),
      ...(this.#ovs ? { ovs: this.#ovs.toState() } : {}),
      ...(hostNet ? { hostNet } : {}),
    };
  }

  /**
   * The Host Compute Service stops (a vmcompute restart or crash, reference hcs-lifecycle.md §7):
   * every live compute system is force-exited, its handles get ServiceDisconnect, and the systems
   * are gone; HNS objects stay.
   */
  restartHcs(): void {
    this.hcs.serviceStop();
  }

  restore(snapshot: unknown): void {
    const hcs = HcsService.readSnapshot(isJsonObject(snapshot) ? snapshot['hcs'] : undefined);
    // validate the files before anything changes (a copy that restore() checks and then discards)
    const files = isJsonObject(snapshot) ? snapshot['files'] : undefined;
    new FileStore().restore(files);
    // the Azure VM a snapshot names (checked first too); none: the host's own stays
    const azureState = isJsonObject(snapshot) ? snapshot['azure'] : undefined;
    const snapSeed = isJsonObject(snapshot) ? snapshot['seed'] : undefined;
    const azure =
      azureState !== undefined
        ? AzureVm.fromState(azureState, {
            hostName: this.name,
            seed: typeof snapSeed === 'number' && Number.isInteger(snapSeed) ? snapSeed : this.seed,
          })
        : this.#azure;
    // the API server the node reached (checked first too): none kept, the host's own stays; one
    // serving the URL the node reaches now stays too (a Cluster's, shared by its nodes)
    const kubeState = isJsonObject(snapshot) ? snapshot['kubernetes'] : undefined;
    const kubeSnap = kubeState !== undefined ? KubeApiServer.fromState(kubeState) : undefined;
    const kube = kubeSnap && !this.#kube?.serves(kubeSnap.url) ? kubeSnap : this.#kube;
    // the node agents (checked first too); a snapshot without them: none run after the restore
    const agents = this.agents.read(this, isJsonObject(snapshot) ? snapshot['agents'] : undefined);
    // Open vSwitch (checked first too): a snapshot without it leaves a node whose OVS never ran
    const ovsState = isJsonObject(snapshot) ? snapshot['ovs'] : undefined;
    const fresh =
      ovsState !== undefined ? new NodeOvs(this.hns, this.dataplane, this.seed, this.clock) : undefined;
    const ovs = fresh && ovsState !== undefined ? fresh.readState(ovsState) : undefined;
    // NetNats, static mappings, routes (checked first too); none in the snapshot: none after
    const hostNet = this.dataplane.readNetState(isJsonObject(snapshot) ? snapshot['hostNet'] : undefined);
    restoreSnapshot(this.hns, snapshot);
    this.hcs.restore(hcs);
    this.files.restore(files);
    if (azure !== this.#azure) {
      this.#azure = azure;
      this.scopeCache = undefined;
    }
    // (the kubeconfig came back with the files)
    this.#kube = kube;
    // the processes serving named pipes (an Antrea agent's CNI server) are not in the snapshot: a
    // restored node has none until an agent serves again (agents() may start some)
    this.pipes.clear();
    agents();
    this.#ovs?.stop();
    this.#ovs = fresh;
    ovs?.();
    hostNet();
    const seed = isJsonObject(snapshot) ? snapshot['seed'] : undefined;
    if (typeof seed === 'number' && Number.isInteger(seed) && seed !== this.seed) {
      this.seed = seed;
      this.scopeCache = undefined;
    }
    this.dropFlows();
  }
}

/** A static mapping as `Get-NetNatStaticMapping` shows it. */
export interface NetNatStaticMappingInfo {
  readonly staticMappingID: number;
  readonly natName: string;
  readonly protocol: 'TCP' | 'UDP';
  readonly externalIPAddress: string;
  readonly externalPort: number;
  readonly internalIPAddress: string;
  readonly internalPort: number;
}

function mappingInfo(m: NetNatStaticMapping): NetNatStaticMappingInfo {
  return {
    staticMappingID: m.id,
    natName: m.natName,
    protocol: m.protocol,
    externalIPAddress: fmt(m.externalIp),
    externalPort: m.externalPort,
    internalIPAddress: fmt(m.internalIp),
    internalPort: m.internalPort,
  };
}

/** What the host's services share: its seeded generator, its simulated clock and its event bus. */
function shared(ctx: ResolutionContext): { rng: Rng; clock: Clock; events: EventBus } {
  return {
    rng: ctx.get<Rng>(TOKENS.Rng),
    clock: ctx.get<Clock>(TOKENS.Clock),
    events: ctx.get<EventBus>(TOKENS.Events),
  };
}

/** Build a host. Costs one inversify container (~50 µs). */
export function createHost(options: HostOptions = {}): Host {
  const profile =
    typeof options.profile === 'object'
      ? options.profile
      : resolveProfile(options.profile ?? DEFAULT_PROFILE);
  if (!profile) throw hnsError('E_INVALIDARG', `unknown host profile "${String(options.profile)}"`);
  const seed = options.seed ?? 1;
  const adapters: readonly NetAdapterRec[] = parseAdapterSpecs(options.adapters, seed);
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(TOKENS.Options).toConstantValue(options);
  c.bind(TOKENS.Profile).toConstantValue(profile);
  c.bind(TOKENS.Rng).toDynamicValue(() => new Rng(seed));
  c.bind(TOKENS.Clock).toDynamicValue(() => new Clock());
  c.bind(TOKENS.Events).toDynamicValue(() => new EventBus());
  c.bind(TOKENS.Hns).toDynamicValue(
    (ctx) => new HnsService({ profile: ctx.get<HostProfile>(TOKENS.Profile), ...shared(ctx), adapters }),
  );
  c.bind(TOKENS.FlatApi).toDynamicValue(
    (ctx) =>
      new FlatApi(ctx.get<HnsService>(TOKENS.Hns), {
        hcs: ctx.get<HcsService>(TOKENS.Hcs),
        ...(options.hcs?.api ? { hcsApi: options.hcs.api } : {}),
      }),
  );
  c.bind(TOKENS.Transport).toDynamicValue((ctx) => new DirectTransport(ctx.get<FlatApi>(TOKENS.FlatApi)));
  c.bind(TOKENS.Faults).toDynamicValue((ctx) => {
    const hns = ctx.get<HnsService>(TOKENS.Hns);
    const hcs = ctx.get<HcsService>(TOKENS.Hcs);
    return new FaultInjector(
      ctx.get<HnsTransport>(TOKENS.Transport),
      ctx.get<Clock>(TOKENS.Clock),
      // HNS objects by ID, compute systems by their ID (any case)
      (id) => hns.nameOf(id) ?? hcs.find(id)?.name,
      () => hns.epoch,
    );
  });
  c.bind(TOKENS.Hcs).toDynamicValue(
    (ctx) =>
      new HcsService({
        hns: ctx.get<HnsService>(TOKENS.Hns),
        ...shared(ctx),
        ...(options.hcs ? { options: options.hcs } : {}),
      }),
  );
  c.bind(TOKENS.Dataplane).toDynamicValue(
    (ctx) =>
      new HostPlane(options.name ?? 'node-1', ctx.get<HnsService>(TOKENS.Hns), options.dataplane ?? {}),
  );
  options.override?.(c);
  return new Host(c, options);
}
