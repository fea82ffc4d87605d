/**
 * Compute systems as HCS holds them (reference hcs-lifecycle.md §1, §3–§5; hns-hcs.md §7): a
 * process-isolated container, a Hyper-V utility VM, or a container hosted in one, with its state,
 * how it exited, and the networking parts of its document. Records are immutable; the service
 * replaces them on every change.
 */
import type { JsonObject } from '../core/json.js';

/** `State` of the HCS schema (SavedAsTemplate needs Save, which is not simulated). */
export type SystemState = 'Created' | 'Running' | 'Paused' | 'Stopped';

/** Whether a system in `state` is live: started and not stopped (its network is up). */
export function isLive(state: SystemState): boolean {
  return state === 'Running' || state === 'Paused';
}

/** `ExitType` (NotificationType) of a stopped system. */
export type ExitType = 'None' | 'GracefulExit' | 'ForcedExit' | 'UnexpectedExit' | 'Unknown';

export type SystemType = 'Container' | 'VirtualMachine';

/**
 * How the system is isolated: a process-isolated container (`Process`, or `HostProcess` when its
 * document says so), a v1 Hyper-V container (`HvPartition`), a container hosted in a utility VM
 * (`Hosted`), or the utility VM itself (`VirtualMachine`).
 */
export type Isolation = 'Process' | 'HostProcess' | 'HyperV' | 'Hosted' | 'VirtualMachine';

/** The networking parts of a create document (schema 2 `Container.Networking`, schema 1 fields). */
export interface NetworkingRec {
  readonly namespace?: string;
  readonly allowUnqualifiedDnsQuery: boolean;
  /** `DnsSearchList`, split on commas. */
  readonly dnsSearchList: readonly string[];
  readonly sharedContainerName?: string;
  /** Schema 1 `EndpointList` (HNS endpoints attached at start). */
  readonly endpointList: readonly string[];
  /** Schema 2 `NetworkAdapters` (endpoint GUIDs; hcsshim leaves it empty). */
  readonly networkAdapters: readonly string[];
}

/** A vNIC of a utility VM (`VirtualMachine/Devices/NetworkAdapters/<nic>`). */
export interface NicRec {
  readonly nicId: string;
  readonly endpointId: string;
  readonly macAddress: string;
}

/** What the guest of a utility VM was told of an adapter: `PreAdd` then `Add` (WCOW), or `Add` (LCOW). */
export interface GuestAdapterRec {
  readonly adapterId: string;
  readonly state: 'PreAdd' | 'Add';
}

export interface ComputeSystemRec {
  readonly id: string;
  readonly name: string;
  readonly owner: string;
  readonly systemType: SystemType;
  readonly isolation: Isolation;
  /** The document's schema: 1 (vmcompute ContainerConfig) or 2. */
  readonly schema: 1 | 2;
  readonly document: JsonObject;
  readonly state: SystemState;
  readonly exitType: ExitType;
  /** The HRESULT of the exit (0 for a clean one). */
  readonly exitStatus: number;
  /** The utility VM a hosted container runs in. */
  readonly hostingSystemId?: string;
  readonly networking: NetworkingRec;
  readonly terminateOnLastHandleClosed: boolean;
  /** A stable GUID of the system (`RuntimeId`; the VM ID of a utility VM). */
  readonly runtimeId: string;
  /** Endpoints this container joined through HCS's v1 paths (EndpointList, hot-attach). */
  readonly v1Endpoints: readonly string[];
  /** Utility VMs: NICs by NIC ID (insertion order = hot-add order). */
  readonly nics: readonly NicRec[];
  /** Utility VMs: the HNS namespace added to the guest (`NetworkNamespace` guest request). */
  readonly guestNamespace?: string;
  /** Utility VMs: adapters the guest was told of. */
  readonly guestAdapters: readonly GuestAdapterRec[];
  /** Simulated times (ms) of creation and start. */
  readonly created: number;
  readonly started?: number;
  readonly seq: number;
}
