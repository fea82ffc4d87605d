/**
 * hnsim's public entry (DESIGN: "The typed client and the flat API"): build a simulated Windows host,
 * call the flat DLL-named API (HNS's Hcn… and HNSCall, HCS's Hcs…: documents in, documents out,
 * HRESULT failures as data), serve it as JSON-RPC 2.0, inject faults, use the typed clients
 * (hcsshim's hcn package and its compute-system client), and read the HRESULT registry and the HNS
 * version profiles.
 *
 *   import { createHost } from 'hnsim';
 *   const host = createHost({ seed: 7, profile: 'ws2025' });
 *   const r = host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' });
 */

// host
export { createHost, Host, TOKENS, type HostOptions, type NetNatStaticMappingInfo } from './host/host.js';
export { auditNode, type AuditFinding, type AuditKind, type AuditOptions } from './host/audit.js';
export {
  AzureVm,
  PlatformUnreachable,
  WIRESERVER_IP,
  INTERFACE_INFO_URL,
  type AzureVmSpec,
  type AzureNicSpec,
  type AzureNic,
  type PlatformReply,
} from './host/azure.js';
export {
  SERVICE_RESTART_DEFAULT,
  REBOOT_DEFAULT,
  SNAPSHOT_FORMAT,
  type RestartPolicy,
  type HnsSnapshot,
} from './hns/lifecycle.js';

// flat API, transport, faults, JSON-RPC
export {
  FlatApi,
  FLAT_API_METHODS,
  HCS_APIS,
  isFailure,
  isHcsMethod,
  capture,
  spellHcsError,
  type FlatApiMethod,
  type FlatApiOptions,
  type HcnResult,
  type HcnSuccess,
  type HcnFailure,
  type HcnDocument,
  type HcsApi,
  type HcsApiMethod,
  type HcsProperties,
} from './api/flat.js';
export { DirectTransport, type HnsCall, type HnsTransport } from './api/transport.js';
export {
  FaultInjector,
  Gate,
  compileMatcher,
  readHResult,
  TRANSPORT_FAILURES,
  type CallMatcher,
  type CallPredicate,
  type HeldCall,
  type RuleHandle,
  type RuleInfo,
  type RuleOptions,
} from './api/faults.js';
export {
  RpcServer,
  serveStdio,
  serveTcp,
  LOOPBACK_HOSTS,
  DEFAULT_MAX_LINE_BYTES,
  invalidParams,
  RpcProtocolError,
  type RpcMethod,
  type RpcServerOptions,
  type TcpListen,
  type TcpServeOptions,
  type TcpRpcServer,
  callRpc,
  RpcErrorCode,
  RPC_METHODS,
  HOST_RPC_METHODS,
  type RpcId,
  type RpcError,
  type RpcResponse,
  type HostRpcMethod,
} from './api/rpc.js';

// errors
export {
  HnsError,
  HRESULTS,
  hnsError,
  isHnsError,
  hresultName,
  isRegisteredHResult,
  formatHResult,
  vmcomputeName,
  type VmcomputeName,
  type HResultName,
  type HResultLabel,
  type HResultInfo,
  type ErrorRecord,
} from './core/errors.js';

// events
export {
  EventBus,
  HcnNotification,
  HcsNotification,
  type HcnNotificationName,
  type HcsNotificationName,
  type HcsNotificationEvent,
  type HnsNotificationEvent,
  type HnsChangeEvent,
  type ApiCallEvent,
  type HostEvents,
} from './core/events.js';

// versions and profiles
export {
  PROFILES,
  DEFAULT_PROFILE,
  FEATURES,
  resolveProfile,
  supports,
  supportedFeatures,
  compareVersion,
  formatVersion,
  type HostProfile,
  type HnsVersion,
  type FeatureName,
  type SupportedFeatures,
} from './hns/versions.js';

// the typed client (hcsshim's hcn package): `hcn.HostComputeNetwork`, `hcn.isNotFoundError`, …
export * as hcn from './api/hcn/index.js';
export {
  HcnClient,
  HostComputeNetwork,
  HostComputeEndpoint,
  HostComputeNamespace,
  HostComputeLoadBalancer,
  HostComputeRoute,
  HcnError,
  HcnClientError,
  NetworkNotFoundError,
  EndpointNotFoundError,
  NamespaceNotFoundError,
  LoadBalancerNotFoundError,
  RouteNotFoundError,
  InvalidIdError,
  PlatformNotSupportedError,
  isElementNotFoundError,
  isPortAlreadyExistsError,
  isNotImplemented,
  isNotFoundError,
  checkErrorWithCode,
  win32FromHResult,
  ErrorCode,
  type HcnClientOptions,
} from './api/hcn/index.js';

// the typed HCS client (hcsshim's internal/hcs/v2): `hcs.System`, `hcs.isNotExist`, …
export * as hcs from './api/hcs/index.js';
export {
  HcsClient,
  System as ComputeSystem,
  HcsError,
  SystemError,
  HcsClientError,
  AlreadyClosedError,
  UnexpectedProcessAbortError,
  HcsErrno,
  STOP_SWALLOWED,
  isNotExist,
  isAlreadyStopped,
  isAlreadyClosed,
  isOperationInvalidState,
  isNotSupported,
  isPending,
  isAccessIsDenied,
  isErrorInvalidHandle,
  isAnyCode,
  type HcsClientOptions,
  type HcsNotificationSource,
  type ComputeSystemQuery,
  type ComputeSystemProperties,
  type PropertyQuery,
  type SystemExit,
  type SystemExitType,
} from './api/hcs/index.js';

// the host's adapters and vSwitches
export {
  parseAdapterSpecs,
  adapterJson,
  type AdapterSpec,
  type NetAdapterRec,
  type VSwitchRec,
} from './hns/adapters.js';

// the dataplane: packets, traces, traffic (src/vswitch, src/dataplane)
export {
  packet,
  DISPOSITIONS,
  TCP,
  UDP,
  ICMP,
  type Packet,
  type OuterHeader,
  type Observation,
  type Disposition,
  type Component,
  type RuleRef,
} from './vswitch/contracts.js';
export { ip as ipv4, fmt as formatIPv4Number } from './vswitch/v4.js';
export { LAYER, GROUP } from './vswitch/names.js';
export {
  HostPlane,
  type DataplaneOptions,
  type HostRoute,
  type NetNatStaticMappingSpec,
  type RouteSpec,
} from './dataplane/plane.js';
export {
  runTrace,
  runSend,
  traceJson,
  checkRequest,
  FlowTable,
  DEFAULT_SOURCE_PORT,
  type TraceRequest,
  type SendRequest,
  type TraceResult,
  type DnsOutcome,
  type TraceScope,
  type Source,
  type Target,
} from './dataplane/trace.js';
export { Conntrack } from './dataplane/conntrack.js';
export type { Walk, WalkEnd, World, NetNode, Underlay } from './dataplane/walk.js';

// clusters: many hosts, Linux nodes, the underlay, Kubernetes objects, cluster DNS (src/cluster)
export {
  Cluster,
  type ClusterOptions,
  type WindowsNodeSpec,
  type LinuxNodeSpec,
  type PodSpec,
  type PodInfo,
  type ServiceSpec,
  type ServicePortSpec,
  type ClusterFinding,
  type AzureClusterOptions,
} from './cluster/cluster.js';
export {
  demoCluster,
  kubernetesFlows,
  packetChanges,
  type FlowNames,
  type FlowRow,
} from './cluster/flows.js';
export {
  ClusterDns,
  queryNames,
  resolve as resolveDnsName,
  parseDnsName,
  type DnsClientOptions,
  type EndpointDnsSettings,
} from './cluster/dns.js';
export { LinuxNode } from './cluster/linux.js';
export { Fabric, Router, ExternalHost, AZURE_HOST_MAC, type RouterSpec } from './cluster/underlay.js';
export { aksConflist, startAzurePod, AZURE_NETWORK, type PodSandboxRunner } from './cluster/azure.js';
export {
  hybridOverlayConflist,
  HYBRID_OVERLAY_NETWORK,
  BASE_HYBRID_OVERLAY_NETWORK,
  HYBRID_OVERLAY_VNI,
  HYBRID_OVERLAY_VXLAN_PORT,
} from './cluster/ovn-kubernetes.js';

// the Host Compute Service (src/hcs): compute systems, their lifecycle, what a container sees
export { HcsService, type HcsOptions } from './hcs/service.js';
export type { ComputeSystemRec, SystemState, ExitType, SystemType, Isolation, NicRec } from './hcs/model.js';
export { containerView, type ContainerNetworkView } from './hcs/view.js';
export { renderIpconfigAll, renderRoutePrint, renderGetDnsClient } from './render/container.js';
export { renderTrace, TRACE_LEVELS, traceNames, type TraceLevel } from './render/trace.js';
export { listPortRules, listHostRules, type PortRules } from './vswitch/rules.js';
export { renderPortRules } from './render/vfp.js';

// hcsshim's root-package v1 HNS API: `hnsv1.HNSEndpoint`, `hnsv1.isNotExist`, … (its error names
// clash with the hcn and hcs ones, so only the client is exported by name)
export * as hnsv1 from './api/hnsv1/index.js';
export { HnsV1Client } from './api/hnsv1/index.js';

// the host's disk (CNI plugins' files)
export { FileStore, FILE_LIMITS, joinPath, normalizePath, type FileChange } from './core/files.js';

// CNI (src/cni): the spec runtime — plugins' skeleton, results 0.1.0–1.1.0, delegation, the
// libcni-like runner and its cache
export {
  CNI_VERSIONS,
  CNI_CURRENT,
  CniError,
  CniErrorCode,
  type CniVersion,
  type CniResult,
  type CniInterface,
  type CniIPConfig,
  type CniRoute,
  type CniDns,
  type CniPlugin,
  type PluginHost,
  type ExecRequest,
  type ExecOutput,
  type NetInterface,
  type RuntimeConf,
  type Writer,
} from './cni/contracts.js';
export {
  pluginMain,
  stdinText,
  type CmdArgs,
  type CmdFunc,
  type PluginContext,
  type PluginFuncs,
} from './cni/skel.js';
export { delegateAdd, delegateDel, delegateCheck, delegateStatus, delegateGC } from './cni/invoke.js';
export { parseResult, resultJson, printResult, convertResult } from './cni/result.js';
export { VERSION_ALL } from './cni/version.js';
export { PluginRegistry, splitPathList, type BinaryLookup } from './cni/registry.js';
export { pluginHost, type CniHost } from './cni/host.js';
export {
  confListFromBytes,
  pluginConfFromBytes,
  loadConfList,
  type NetworkConfigList,
  type PluginConfig,
  type GCAttachment,
} from './cni/conf.js';
export {
  CniRunner,
  runList,
  DEFAULT_CACHE_DIR,
  type CniRunnerOptions,
  type CniListRequest,
  type CniListOutcome,
  type CniCommand,
  type NetworkAttachment,
} from './cni/runner.js';

// the reference plugins (src/plugins) and flanneld's Windows backends
export {
  REFERENCE_PLUGINS,
  DEFAULT_CNI_BIN_DIR,
  referenceRegistry,
  execPlugin,
  cniRpcMethods,
  hostLocal,
  winBridge,
  winOverlay,
  sdnbridge,
  sdnoverlay,
  nat,
  flannel,
  azureVnet,
  azureVnetIpam,
  azureVnetIpamV6,
  createAzureVnet,
  antrea,
} from './plugins/index.js';
export type { AzureVnetOptions, AzureCniRelease } from './plugins/azure-vnet/index.js';
export * as flanneld from './plugins/flanneld/index.js';
export {
  AntreaAgent,
  antreaOf,
  ANTREA_KIND,
  ANTREA_NETWORK,
  ANTREA_NAT_NODEPORT,
  type AntreaAgentOptions,
  type AntreaCniArgs,
  type AntreaCniResult,
  type AntreaPeer,
} from './plugins/antrea/agent.js';
export { antreaOptionsFromJson, type AntreaAgentState, type AntreaPodState } from './plugins/antrea/state.js';
export * as antreaPipeline from './plugins/antrea/pipeline.js';
export {
  serveCni as antreaServeCni,
  AntreaCniErrorCode,
  ANTREA_CNI_SOCKET,
  ANTREA_CNI_SERVICE,
} from './plugins/antrea/cniserver.js';
export { NamedPipes, GrpcStatusError, PipeNotFound, type PipeHandler } from './host/pipes.js';
export { containerInterfaceName } from './plugins/antrea/naming.js';
export { traceflowResults, type TraceflowNodeResult, type TraceflowObservation } from './render/traceflow.js';
export { NodeOvs, type OvsCommandResult } from './host/ovs.js';
export {
  startCns,
  cnsOf,
  overlayNc,
  CnsAgent,
  CNS_PORT,
  CNS_CODES,
  ASYNC_DELETE_DIR,
  type CnsOptions,
  type CnsNetworkContainerSpec,
  type CnsMultitenantSpec,
} from './plugins/cns/index.js';
export {
  LocalHttp,
  ConnectionRefused,
  type LocalHttpHandler,
  type LocalHttpRequest,
} from './host/localhttp.js';
export {
  KubeApiServer,
  WINDOWS_KUBECONFIG_PATH,
  type KubeApiServerOptions,
  type KubeNode,
} from './host/kubeapi.js';

// real Windows binaries under Wine (src/wine; docs/wine.md)
export {
  runUnderWine,
  prepareWine,
  WineMissingError,
  WineProgramError,
  type WineRunRequest,
  type WineRunResult,
  type PreparedWine,
} from './wine/run.js';
export {
  wineRegistry,
  wineBinaries,
  winePlugin,
  type WineBinaryOptions,
  type WineExecutor,
} from './wine/plugin.js';
export { serveSimulator, connectSimulator, withFace, type SimulatorFace } from './wine/sim.js';
export { wineDoctor, doctorMessage, type DoctorReport } from './wine/doctor.js';

// the pod runtime (src/runtime): containerd + hcsshim, and dockershim
export * as runtime from './runtime/index.js';
export { ContainerdRuntime, DockershimRuntime, cniNetwork } from './runtime/index.js';

// scenario files (src/scenario; docs/scenarios.md): load, run, report; the whole module as `scenario`
export * as scenario from './scenario/index.js';
export {
  loadScenario,
  loadScenarioFile,
  runScenario,
  renderReport,
  renderTruthTable,
  reportJson,
  ScenarioLoadError,
  ScenarioSetupError,
  SCENARIO_FORMAT,
  SCENARIO_SCHEMA,
  type Scenario,
  type ScenarioDoc,
  type ScenarioIssue,
  type ScenarioPod,
  type ScenarioWorld,
  type RunOptions as ScenarioRunOptions,
  type RunReport as ScenarioRunReport,
} from './scenario/index.js';

// the views (src/render): more listings, explanations, diagrams
export {
  collectObjects,
  renderObjects,
  objectsJson,
  OBJECT_KINDS,
  SHOW_KINDS,
  type HostObjects,
  type ShowKind,
} from './render/objects.js';
export { explainTrace, renderExplanation, type Explanation, type ExplainContext } from './render/explain.js';
export {
  analyzeAcls,
  type AclAnalysis,
  type AclAnalysisOptions,
  type AclDirectionAnalysis,
  type AclOutcome,
  type AclRuleAnalysis,
  type AclTie,
  type PacketSet,
} from './analysis/acl.js';
export { analyzePort, type PortAnalysis } from './analysis/port.js';
export { analysisRpcMethods } from './analysis/rpc.js';
export { diffAcls, diffPorts, type AclChange, type AclDiff, type AclDirectionDiff } from './analysis/diff.js';
export { AclSpace, type AclPacket, type WitnessPacket } from './analysis/space.js';
export {
  analyzeReach,
  analyzeReachAll,
  freeOf,
  pairSet,
  ReachContext,
  type ReachBranch,
  type ReachOptions,
  type ReachOutcome,
  type ReachQuery,
  type Reachability,
} from './analysis/reach.js';
export { diffReach, diffReachAll, type ReachChange, type ReachDiff } from './analysis/reach-diff.js';
export { flowSpecSet } from './analysis/flowspec.js';
export { portCuts, type Network, type PortCuts } from './analysis/cuts.js';
export { analyze, type AnalyzeQuery, type PortQuery } from './analysis/analyze.js';
export {
  analysisJson,
  diffJson,
  portSummary,
  reachDiffJson,
  reachJson,
  renderAnalysis,
  renderDiff,
  renderPortSummaries,
  renderReach,
  renderReachDiff,
  type PortSummary,
} from './render/analysis.js';
export { Diagram, addHost, toDot, toMermaid, type HostDiagramOptions } from './render/diagram.js';
export { dotToSvg } from './render/svg.js';
