/**
 * A scenario as the loader hands it over (src/scenario/load.ts): the document of a file that passed
 * the schema (src/scenario/schema.ts) and the checks after it, typed. Field meanings are the
 * schema's descriptions and docs/scenarios.md.
 */
import type { OvsTool } from '../host/ovs.js';
import type { JsonObject } from '../core/json.js';
import type { Disposition } from '../vswitch/contracts.js';
import type { AUDIT_KINDS, DELETE_KINDS, HNS_KINDS, KEEP_CHOICES, SCENARIO_FORMAT } from './schema.js';

export type DispositionName = Disposition;
export type HnsKind = (typeof HNS_KINDS)[number];
export type AuditKindName = (typeof AUDIT_KINDS)[number];
export type DeleteKind = (typeof DELETE_KINDS)[number];
export type Keep = { readonly [K in keyof typeof KEEP_CHOICES]?: (typeof KEEP_CHOICES)[K][number] };
export type Protocol = 'TCP' | 'UDP' | 'ICMP';

export interface NicSpec {
  readonly name: string;
  readonly ipAddress?: string;
  readonly gateway?: string;
  readonly macAddress?: string;
  readonly mtu?: number;
  readonly macSpoofing?: boolean;
}

export interface HostSpec {
  readonly name: string;
  readonly os?: 'windows' | 'linux';
  readonly profile?: string;
  readonly segment?: string;
  readonly podSubnet?: string;
  readonly macSpoofing?: boolean;
  readonly flannel?: {
    readonly backend: 'host-gw' | 'vxlan';
    readonly vni?: number;
    readonly port?: number;
    readonly mtu?: number;
    readonly ipMasq?: boolean;
  };
  readonly nics?: readonly NicSpec[];
  readonly networks?: readonly JsonObject[];
  readonly runtime?: 'containerd' | 'dockershim';
  readonly cni?: {
    /** Required except on a node of an Azure cluster (default: AKS's conflist for the cluster). */
    readonly conflist?: JsonObject;
    /** The upstream release the azure-vnet binary follows (default today's, v1.8.12). */
    readonly azureVnetRelease?: 'v1.8.12' | 'v1.5.50';
  };
  /**
   * Standalone host: the Azure VM it is (`createHost`'s `azure`: NICs' secondary IPs, NSGs). A node
   * of an Azure cluster: `{maxPods?, nsg?}` (its NIC's secondary IP count and NSG).
   */
  readonly azure?: JsonObject;
  /** Standalone Azure host: Azure CNS (`startCns`'s options: `ncs`, `multitenancy`). */
  readonly cns?: JsonObject;
  /**
   * Cluster, Windows: Antrea instead of flannel (`cni: antrea` sets it): its agent prepares the node
   * and attaches its pods; nodes are joined by `tunnelType` tunnels (default geneve).
   */
  readonly antrea?: { readonly tunnelType?: 'geneve' | 'vxlan' | 'stt' };
  /**
   * Cluster: ovn-kubernetes' hybrid overlay instead of flannel (`cni: ovn-kubernetes` sets it; docs/
   * ovn-kubernetes.md): a Windows node's hybrid overlay network, or a Linux OVN node in hybrid mode.
   */
  readonly ovnKubernetes?: {
    readonly vxlanPort?: number;
    readonly mode?: 'hybrid-overlay' | 'native';
    readonly encapType?: 'geneve' | 'stt';
  };
}

export interface PortMappingSpec {
  readonly containerPort: number;
  readonly hostPort?: number;
  readonly protocol?: 'TCP' | 'UDP';
  readonly hostIp?: string;
}

export interface PodSpec {
  readonly name: string;
  readonly namespace?: string;
  readonly node: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly replicas?: number;
  readonly isolation?: 'process' | 'hyperv';
  readonly hostProcess?: boolean;
  readonly hostname?: string;
  readonly subdomain?: string;
  readonly portMappings?: readonly PortMappingSpec[];
  readonly containers?: readonly { readonly name: string; readonly image?: string }[];
  readonly retries?: number;
  readonly policies?: readonly JsonObject[];
  readonly expect?: { readonly phase: 'Running' | 'Failed'; readonly error?: string };
}

export interface ServiceSpec {
  readonly name: string;
  readonly namespace?: string;
  readonly type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly clusterIP?: string;
  readonly ports: readonly {
    readonly port: number;
    readonly targetPort?: number;
    readonly protocol?: 'TCP' | 'UDP';
    readonly nodePort?: number;
    readonly name?: string;
  }[];
  readonly selector: Readonly<Record<string, string>>;
  readonly externalIPs?: readonly string[];
  readonly loadBalancerIP?: string;
  readonly sessionAffinity?: 'None' | 'ClientIP';
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
}

export interface TraceSpec {
  readonly name?: string;
  readonly from: string;
  readonly to: string;
  readonly protocol?: Protocol;
  readonly port?: number;
  readonly sourcePort?: number;
  readonly expect: DispositionName;
  readonly reply?: DispositionName;
  readonly changes?: readonly string[];
  readonly decidedBy?: { readonly component?: string; readonly policy?: string; readonly name?: string };
}

export interface ReachabilitySpec {
  readonly name?: string;
  readonly protocol?: Protocol;
  readonly port?: number;
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly default: 'allow' | 'deny';
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly ignoreLoopback?: boolean;
}

/** "Reach exactly": the packets `from` delivers to `to` whatever a load balancer picks are `exactly`. */
export interface ReachExactSpec {
  readonly name?: string;
  readonly from: string;
  readonly to: string;
  /** A flow spec (src/analysis/flowspec.ts): `TCP port 80, 443; UDP port 53`, `nothing`, `any protocol`. */
  readonly exactly: string;
}

/** "Unchanged reachability": every packet of these pairs gets what it got at an earlier point of the run. */
export interface ReachUnchangedSpec {
  readonly name?: string;
  /** `previous` (the previous expect step, else the set-up), `setup`, a step's title, or a step count. */
  readonly since: string | number;
  /** Default: every running pod. */
  readonly from?: readonly string[];
  /** Default: every running pod and every service. */
  readonly to?: readonly string[];
}

export interface Expectations {
  readonly pods?: readonly {
    readonly pod: string;
    readonly phase: 'Running' | 'Failed' | 'Absent';
    readonly ip?: string;
    readonly error?: string;
  }[];
  readonly traces?: readonly TraceSpec[];
  readonly reachability?: readonly ReachabilitySpec[];
  readonly hns?: readonly {
    readonly node: string;
    readonly kind: HnsKind;
    readonly where?: JsonObject;
    readonly count?: number;
    readonly has?: JsonObject;
  }[];
  readonly audit?: readonly { readonly node?: string; readonly findings: readonly AuditKindName[] }[];
  readonly acls?: readonly {
    readonly pod: string;
    readonly shadowed: readonly string[];
    readonly redundant?: readonly string[];
  }[];
  readonly reach?: readonly ReachExactSpec[];
  readonly reachUnchanged?: readonly ReachUnchangedSpec[];
}

export type Step = { readonly title?: string } & (
  | { readonly note: string }
  | { readonly addPod: PodSpec }
  | { readonly deletePod: string }
  | { readonly addService: ServiceSpec }
  | { readonly deleteService: string }
  | { readonly restartHns: { readonly node: string; readonly downtimeMs?: number; readonly keep?: Keep } }
  | { readonly reboot: { readonly node: string; readonly keep?: Keep } }
  | { readonly restartHcs: { readonly node: string } }
  | {
      readonly deleteObject: {
        readonly node: string;
        readonly kind: DeleteKind;
        readonly name?: string;
        readonly pod?: string;
        readonly vip?: string;
      };
    }
  | {
      readonly fail: {
        readonly node: string;
        readonly method: string;
        readonly hresult: string;
        readonly times?: number;
        readonly name?: string;
      };
    }
  | { readonly clearFaults: { readonly node: string } }
  | { readonly advance: { readonly ms: number } }
  | {
      readonly call: {
        readonly node: string;
        readonly method: string;
        readonly params?: readonly unknown[];
        readonly expect?: string;
      };
    }
  | {
      readonly ovs: {
        readonly node: string;
        readonly tool: OvsTool;
        readonly args?: readonly string[];
        readonly status?: number;
        readonly stdout?: readonly string[];
      };
    }
  | { readonly renameAdapter: { readonly node: string; readonly name: string; readonly to: string } }
  | { readonly expect: Expectations }
);

export interface ScenarioDoc {
  readonly hnsim: typeof SCENARIO_FORMAT;
  readonly name: string;
  readonly description?: string;
  readonly seed?: number;
  readonly profile?: string;
  readonly cluster?: {
    readonly podCidr?: string;
    readonly serviceCidr?: string;
    /** Dual-stack: the IPv6 pod and service networks (`ClusterOptions.podCidrV6`, `serviceCidrV6`). */
    readonly podCidrV6?: string;
    readonly serviceCidrV6?: string;
    readonly domain?: string;
    readonly dnsServiceIp?: string;
    readonly dsr?: boolean;
    readonly coreDns?: { readonly node: string; readonly replicas?: number };
    /** An Azure VNet cluster (AKS node-subnet mode): its address space and secondary IPs per node. */
    readonly azure?: {
      readonly mode?: 'node-subnet' | 'overlay';
      readonly addressSpace?: readonly string[];
      readonly maxPods?: number;
    };
  };
  readonly underlay?: {
    readonly nodeSubnet?: string;
    readonly routing?: 'host-gw' | 'tor';
    readonly segments?: readonly { readonly name: string; readonly prefix: string }[];
    readonly routes?: readonly { readonly destinationPrefix: string; readonly nextHop: string }[];
    readonly externals?: readonly { readonly name: string; readonly ip: string; readonly dnsName?: string }[];
  };
  readonly hosts: readonly HostSpec[];
  readonly pods?: readonly PodSpec[];
  readonly services?: readonly ServiceSpec[];
  /** Kubernetes NetworkPolicies (src/cluster/netpol.ts's spec; `namespace` defaults to default). */
  readonly networkPolicies?: readonly JsonObject[];
  readonly steps?: readonly Step[];
  readonly expect?: Expectations;
}

/** Where a value of the file is: 1-based line and column. */
export interface SourcePosition {
  readonly line: number;
  readonly col: number;
}

/** A loaded scenario: the document, and where each of its values came from. */
export interface Scenario {
  readonly doc: ScenarioDoc;
  /** The file name as given (for messages). */
  readonly file: string;
  /** The position of the value at a path (or of the nearest enclosing value the file has). */
  locate(path: readonly (string | number)[]): SourcePosition;
}
