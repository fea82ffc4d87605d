/**
 * The public test kit (`hnsim/testing`, DESIGN: testing/; guide: docs/testing.md): fast-check
 * arbitraries for HCN documents and policies (valid, and refused with a labelled HRESULT), packets,
 * ACL sets, load balancers and whole small clusters; model-based commands for HNS, HCS and CNI;
 * race testing under `fc.scheduler()`; fault schedules; the whole-state invariant check, the
 * canonical view of a node's objects; vitest matchers and fixtures.
 *
 * Every name is listed here: this is the kit's public contract, and each is in docs/testing.md.
 * What the modules export only for each other (the matchers' pieces, the tables behind the
 * arbitraries, the commands' reference type) is not.
 */
export {
  addressIn,
  BAD_FIELDS,
  DOC_FIELDS,
  DOC_KINDS,
  endpointDoc,
  generatedPolicyTypes,
  HNS_ARB,
  invalidDoc,
  loadBalancerDoc,
  namespaceDoc,
  networkDoc,
  policies,
  policy,
  policyOfType,
  sdnRouteDoc,
  type ArbContext,
  type ArbSubnet,
  type DocKind,
  type EndpointArbOptions,
  type InvalidDocOptions,
  type PolicyListOptions,
} from './arbitraries.js';
export {
  BAD_POLICY_SETTINGS,
  rejectedDoc,
  rejectedPolicies,
  rejectedPolicy,
  type Rejected,
  type RejectedDoc,
  type RejectedDocOptions,
} from './rejected.js';
export {
  aclRule,
  aclSet,
  loadBalancerDocs,
  packetArb,
  traceRequest,
  TRAFFIC_ARB,
  type AclArbOptions,
  type PacketArbOptions,
  type TraceRequestArbOptions,
} from './traffic.js';
export {
  buildCluster,
  cluster,
  CLUSTER_ARB,
  clusterSpec,
  podRef,
  type BuiltCluster,
  type ClusterArbOptions,
  type ClusterSpec,
  type NodeSpec,
  type PodSpecOf,
} from './clusters.js';
export {
  addL2Bridge,
  checkKitModel,
  cleanupKit,
  cniCommands,
  hcsCommands,
  hnsCommands,
  KIT_CONFLIST,
  KIT_NETWORKS,
  KIT_PODS,
  KIT_SYSTEMS,
  KitModel,
  kitSetup,
  weightedCommands,
  type CommandGroup,
  type EndpointM,
  type HnsCommandOptions,
  type KitReal,
  type KitSetupOptions,
  type LoadBalancerM,
  type MaybeWeightedCommand,
  type NamespaceM,
  type NetworkM,
  type Owner,
  type PodM,
  type SystemM,
  type SystemState,
} from './commands.js';
export { checkInvariants, type InvariantTarget } from './invariants.js';
export { canonicalState, hnsimMatchers, type CanonicalState, type HnsimMatchers } from './state.js';
export { analysisMatchers, type ReachPairs } from './analysis.js';
export {
  runConcurrently,
  runScheduled,
  runUntilSettled,
  scheduledHost,
  type NamedTasks,
  type RunScheduledOptions,
} from './race.js';
export {
  Flow,
  packetsFrom,
  PacketsFrom,
  type FlowOptions,
  type RuleMatcher,
  type TraceScopeLike,
} from './flows.js';
export { aksDemoCluster } from './aks.js';
export {
  TeardownAuditError,
  windowsHosts,
  withCluster,
  withHost,
  type Fixture,
  type TeardownAudit,
  type WithClusterOptions,
  type WithHostOptions,
} from './fixtures.js';
export {
  applyFaultSchedule,
  checkFaultSchedule,
  faultSchedule,
  SCHEDULE_METHODS,
  type FaultAction,
  type FaultPoint,
  type FaultScheduleArbOptions,
  type FaultScheduleHandle,
  type FaultStep,
  type FiredStep,
  type OutOfBandTarget,
} from './schedule.js';
