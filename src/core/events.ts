/**
 * The typed event bus (DESIGN contract 4): every state change is an event. Narration, audits and
 * diagrams read these, never log strings. HNS notification names follow HCN_NOTIFICATIONS
 * (reference hns-hcs.md §5.4).
 */
import { EventEmitter } from 'eventemitter3';

/** HCN_NOTIFICATIONS values. */
export const HcnNotification = {
  Invalid: 0,
  NetworkPreCreate: 1,
  NetworkCreate: 2,
  NetworkPreDelete: 3,
  NetworkDelete: 4,
  NamespaceCreate: 5,
  NamespaceDelete: 6,
  GuestNetworkServiceCreate: 7,
  GuestNetworkServiceDelete: 8,
  NetworkEndpointAttached: 9,
  NetworkEndpointDetached: 0x10,
  GuestNetworkServiceStateChanged: 0x11,
  GuestNetworkServiceInterfaceStateChanged: 0x12,
  ServiceDisconnect: 0x01000000,
} as const;
export type HcnNotificationName = keyof typeof HcnNotification;

/** What HNS tells subscribers; `data` carries the object's ID and related IDs. */
export interface HnsNotificationEvent {
  readonly notification: HcnNotificationName;
  readonly code: number;
  readonly time: number;
  readonly data: Readonly<Record<string, string | number>>;
}

/** Object-level changes, finer than HCN notifications (for audits and narration). */
export interface HnsChangeEvent {
  readonly kind: 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute' | 'PolicyList';
  readonly op: 'create' | 'modify' | 'delete';
  readonly id: string;
  readonly time: number;
  readonly detail?: string;
}

/** A call seen by the API layer: method, outcome and simulated time. */
export interface ApiCallEvent {
  readonly method: string;
  readonly hresult: number;
  readonly time: number;
}

/**
 * HCS notifications (reference hcs-lifecycle.md §1): vmcompute's HCS_NOTIFICATIONS name and code,
 * and computecore's HCS_EVENT_TYPE code when the notification has one there.
 */
export const HcsNotification = {
  SystemExited: { code: 0x1, event: 1 },
  SystemCreateCompleted: { code: 0x2 },
  SystemStartCompleted: { code: 0x3 },
  SystemPauseCompleted: { code: 0x4 },
  SystemResumeCompleted: { code: 0x5 },
  SystemModifyCompleted: { code: 0xc },
  ServiceDisconnect: { code: 0x01000000, event: 0x02000000 },
} as const;
export type HcsNotificationName = keyof typeof HcsNotification;

export interface HcsNotificationEvent {
  /** The compute system's ID (absent for ServiceDisconnect of the service itself). */
  readonly system?: string;
  readonly notification: HcsNotificationName;
  /** vmcompute HCS_NOTIFICATIONS value. */
  readonly code: number;
  /** computecore HCS_EVENT_TYPE value, when there is one. */
  readonly event?: number;
  readonly time: number;
  /** SystemExited: `SystemExitStatus {Status, ExitType}`. */
  readonly data?: Readonly<Record<string, string | number>>;
}

/** A CNI plugin invocation (src/cni): who ran, with which verb, and how it ended. */
export interface CniExecEvent {
  readonly plugin: string;
  readonly command: string;
  readonly containerId: string;
  readonly ifName: string;
  readonly netns: string;
  readonly exitCode: number;
  /** The CNI error code when the plugin failed (exit code 1 with an error document). */
  readonly code?: number;
  readonly message?: string;
  /** Depth of delegation: 0 for the runtime's call, 1 for a delegate it invoked, … */
  readonly depth: number;
  readonly time: number;
}

/** A step of the pod runtime (src/runtime): RunPodSandbox's namespace, CNI ADD, pause container, … */
export interface RuntimeStepEvent {
  readonly runtime: 'containerd' | 'dockershim';
  readonly operation: string;
  readonly step: string;
  readonly pod: string;
  readonly ok: boolean;
  readonly detail?: string;
  readonly time: number;
}

export interface HostEvents {
  'cni.exec': (e: CniExecEvent) => void;
  'runtime.step': (e: RuntimeStepEvent) => void;
  'file.change': (e: { readonly op: 'write' | 'remove'; readonly path: string }) => void;
  'hcs.notification': (e: HcsNotificationEvent) => void;
  'hns.notification': (e: HnsNotificationEvent) => void;
  'hns.change': (e: HnsChangeEvent) => void;
  'hns.service': (e: { readonly what: 'restart' | 'reboot'; readonly time: number }) => void;
  'api.call': (e: ApiCallEvent) => void;
}

export class EventBus extends EventEmitter<HostEvents> {}
