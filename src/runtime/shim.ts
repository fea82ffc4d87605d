/**
 * The hcsshim side of a containerd pod (containerd-shim-runhcs-v1): the HCS documents it sends for
 * a process-isolated container (`internal/hcsoci/hcsdoc_wcow.go`: `Container.Networking.Namespace`)
 * and for a container hosted in a utility VM, and the utility VM's network plumbing of a Hyper-V
 * pod (`internal/uvm/network.go`: SetupNetworkNamespace / RemoveNetNS — the guest namespace, then
 * per endpoint a guest PreAdd and a `NetworkAdapters/<nic>` hot-add). Reference:
 * kubernetes-windows.md §3.1 step 6, hcs-lifecycle.md §4–§5.
 */
import type { HcnClient } from '../api/hcn/client.js';
import type { HostComputeEndpoint } from '../api/hcn/endpoint.js';
import type { HcsClient } from '../api/hcs/client.js';
import type { System } from '../api/hcs/system.js';
import { newGuid } from '../core/guid.js';
import type { JsonObject } from '../core/json.js';
import type { Rng } from '../core/rng.js';
import { RuntimeError } from './contracts.js';
import { errorText, q, terminateAndClose } from './cri.js';

/** The shim's `Owner` (`filepath.Base(os.Args[0])`). */
export const SHIM_OWNER = 'containerd-shim-runhcs-v1.exe';

const SCHEMA_21 = { Major: 2, Minor: 1 } as const;

/**
 * hcsdoc_wcow.go's schema 2 document for a process-isolated container of a pod: containerd's spec
 * carries only `Windows.Network.NetworkNamespace`, so Networking holds just the namespace (DNS
 * fields are omitempty and unset). Field order is the Go structs'.
 */
export function processContainerDocument(namespaceId: string): JsonObject {
  return {
    Owner: SHIM_OWNER,
    SchemaVersion: { ...SCHEMA_21 },
    Container: {
      Storage: { Layers: [] },
      Networking: { Namespace: namespaceId },
    },
    ShouldTerminateOnLastHandleClosed: true,
  };
}

/** A container of a Hyper-V pod: hosted in the pod's utility VM, naming the pod's namespace. */
export function hostedContainerDocument(uvmId: string, namespaceId: string): JsonObject {
  return {
    Owner: SHIM_OWNER,
    SchemaVersion: { ...SCHEMA_21 },
    HostingSystemId: uvmId,
    HostedSystem: {
      SchemaVersion: { ...SCHEMA_21 },
      Container: { Storage: { Layers: [] }, Networking: { Namespace: namespaceId } },
    },
    ShouldTerminateOnLastHandleClosed: true,
  };
}

/** The WCOW utility VM document (`uvm.CreateWCOW`; no NICs at create). */
export function utilityVmDocument(): JsonObject {
  return {
    Owner: SHIM_OWNER,
    SchemaVersion: { ...SCHEMA_21 },
    VirtualMachine: {
      StopOnReset: true,
      Chipset: { Uefi: { BootThis: { DevicePath: 'primary', DiskNumber: 0, DeviceType: 'VmbFs' } } },
      ComputeTopology: { Memory: { SizeInMB: 1024, AllowOvercommit: true }, Processor: { Count: 2 } },
      Devices: { Scsi: {}, HvSocket: {} },
      GuestConnection: { UseVsock: true, UseConnectedSuspend: true },
    },
    ShouldTerminateOnLastHandleClosed: true,
  };
}

/** `resourcepaths.NetworkResourceFormat`. */
export function nicPath(nicId: string): string {
  return `VirtualMachine/Devices/NetworkAdapters/${nicId}`;
}

/** hcsshim's `uvm.ErrNetNSAlreadyAttached`. */
const ERR_NETNS_ALREADY_ATTACHED = 'network namespace already added';
/** hcsshim's `uvm.ErrNetNSNotFound`. */
const ERR_NETNS_NOT_FOUND = 'network namespace not found';

interface NicInfo {
  readonly id: string;
  readonly endpoint: HostComputeEndpoint;
}

/** What one step of the plumbing did, for the runtime's events. */
export type UvmStepReporter = (step: string, ok: boolean, detail?: string) => void;

/**
 * A WCOW utility VM as the shim holds it: the HCS system, whether its guest takes namespace
 * requests (`GuestDefinedCapabilities.NamespaceAddRequestSupported`), and per namespace the NICs
 * it hot-added, keyed by endpoint ID (hcsshim's `uvm.namespaces[id].nics`).
 */
export class UtilityVm {
  readonly #namespaces = new Map<string, Map<string, NicInfo>>();

  private constructor(
    readonly system: System,
    private readonly namespaceSupported: boolean,
    private readonly rng: Rng,
  ) {}

  get id(): string {
    return this.system.id;
  }

  /** The NICs added for a namespace: `[nicId, endpointId]`, in the order added. */
  nics(namespaceId: string): [string, string][] {
    return [...(this.#namespaces.get(namespaceId)?.values() ?? [])].map((n) => [n.id, n.endpoint.ID]);
  }

  /**
   * `uvm.CreateWCOW` + `Start`: create the VM, start it (a failed start closes it, as createPod
   * does), and read the guest's capabilities (`GuestConnection` properties).
   */
  static async start(hcs: HcsClient, id: string, rng: Rng, report: UvmStepReporter): Promise<UtilityVm> {
    let system: System;
    try {
      system = await hcs.createComputeSystem(id, utilityVmDocument());
    } catch (e) {
      report('uvm.create', false, errorText(e));
      throw e;
    }
    report('uvm.create', true, id);
    try {
      await system.start();
    } catch (e) {
      report('uvm.start', false, errorText(e));
      await terminateAndClose(system);
      throw e;
    }
    report('uvm.start', true);
    let supported = false;
    try {
      const p = await system.properties({ PropertyTypes: ['GuestConnection'] });
      const caps = (p as { GuestConnectionInfo?: { GuestDefinedCapabilities?: JsonObject } })
        .GuestConnectionInfo?.GuestDefinedCapabilities;
      supported = caps?.['NamespaceAddRequestSupported'] === true;
    } catch {
      // hcsshim reads the guest's capabilities from its connection; none means no namespace support
    }
    return new UtilityVm(system, supported, rng);
  }

  /**
   * `SetupNetworkNamespace(nsid)`: the namespace's endpoints (by ID, as HNS lists them), the
   * namespace, `AddNetNS` (a guest `NetworkNamespace` Add when the guest supports it), endpoints
   * ending in `eth0` first (stable sort), then `AddEndpointsToNS`. If adding endpoints fails, the
   * namespace is removed again (best effort) and the error returned; NICs added before stay
   * un-rolled-back, as hcsshim documents.
   */
  async setupNetworkNamespace(hcn: HcnClient, nsid: string, report: UvmStepReporter): Promise<void> {
    const ids = await hcn.getNamespaceEndpointIds(nsid);
    const endpoints: HostComputeEndpoint[] = [];
    for (const id of ids) endpoints.push(await hcn.getEndpointByID(id));
    const ns = await hcn.getNamespaceByID(nsid);
    await this.addNetNS(nsid, ns.toJSON(), report);
    const eth0First = [...endpoints].sort(
      (a, b) => Number(b.Name.endsWith('eth0')) - Number(a.Name.endsWith('eth0')),
    );
    try {
      await this.addEndpointsToNS(nsid, eth0First, report);
    } catch (e) {
      try {
        await this.removeNetNS(hcn, nsid, report);
      } catch {
        // "failed to clean up namespace after failure to add endpoints" is only logged
      }
      throw e;
    }
  }

  /** `AddNetNS`: ErrNetNSAlreadyAttached for a known namespace. */
  private async addNetNS(nsid: string, settings: JsonObject, report: UvmStepReporter): Promise<void> {
    if (this.#namespaces.has(nsid)) throw new RuntimeError(ERR_NETNS_ALREADY_ATTACHED);
    if (this.namespaceSupported) {
      try {
        await this.system.modify({
          GuestRequest: { RequestType: 'Add', ResourceType: 'NetworkNamespace', Settings: settings },
        });
      } catch (e) {
        report('uvm.namespace.add', false, errorText(e));
        throw e;
      }
      report('uvm.namespace.add', true, nsid);
    }
    this.#namespaces.set(nsid, new Map());
  }

  /** `AddEndpointsToNS`: a fresh NIC GUID and `addNIC` per endpoint not yet added. */
  private async addEndpointsToNS(
    nsid: string,
    endpoints: readonly HostComputeEndpoint[],
    report: UvmStepReporter,
  ): Promise<void> {
    const nics = this.#namespaces.get(nsid);
    if (!nics) throw new RuntimeError(ERR_NETNS_NOT_FOUND);
    for (const ep of endpoints) {
      if (nics.has(ep.ID)) continue;
      const nicId = newGuid(this.rng).toLowerCase();
      try {
        await this.addNIC(nicId, ep);
      } catch (e) {
        report('uvm.nic.add', false, `${ep.Name}: ${errorText(e)}`);
        throw e;
      }
      report('uvm.nic.add', true, `${ep.Name} → ${nicId}`);
      nics.set(ep.ID, { id: nicId, endpoint: ep });
    }
  }

  /** `addNIC` for a Windows guest: the guest-only PreAdd, then the host Add with the guest Add. */
  private async addNIC(nicId: string, ep: HostComputeEndpoint): Promise<void> {
    await this.system.modify({
      GuestRequest: {
        RequestType: 'Add',
        ResourceType: 'Network',
        Settings: { AdapterId: nicId, RequestType: 'PreAdd', Settings: ep },
      },
    });
    await this.system.modify({
      ResourcePath: nicPath(nicId),
      RequestType: 'Add',
      Settings: nicSettings(ep),
      GuestRequest: {
        RequestType: 'Add',
        ResourceType: 'Network',
        Settings: { AdapterId: nicId, RequestType: 'Add' },
      },
    });
  }

  /**
   * `RemoveNetNS(nsid)`: silently done for an unknown namespace; otherwise every NIC is removed
   * (the host Remove with the legacy guest Remove, which has no ResourceType), errors collected
   * (`remove nic from uVM "<id>": …`); then the guest namespace is removed, which needs the HCN
   * namespace (a namespace deleted in HNS makes this fail).
   */
  async removeNetNS(hcn: HcnClient, nsid: string, report: UvmStepReporter): Promise<void> {
    const nics = this.#namespaces.get(nsid);
    if (!nics) return;
    const errs: string[] = [];
    for (const [epId, nic] of [...nics]) {
      try {
        await this.system.modify({
          ResourcePath: nicPath(nic.id),
          RequestType: 'Remove',
          Settings: nicSettings(nic.endpoint),
          GuestRequest: { RequestType: 'Remove', Settings: { AdapterId: nic.id, RequestType: 'Remove' } },
        });
        report('uvm.nic.remove', true, `${nic.endpoint.Name} (${nic.id})`);
        nics.delete(epId);
      } catch (e) {
        report('uvm.nic.remove', false, `${nic.endpoint.Name}: ${errorText(e)}`);
        errs.push(errorText(e));
      }
    }
    if (errs.length > 0) throw new RuntimeError(`remove nic from uVM ${q(this.id)}: ${errs.join('\n')}`);
    if (this.namespaceSupported) {
      try {
        const ns = await hcn.getNamespaceByID(nsid);
        await this.system.modify({
          GuestRequest: { RequestType: 'Remove', ResourceType: 'NetworkNamespace', Settings: ns },
        });
      } catch (e) {
        report('uvm.namespace.remove', false, errorText(e));
        throw e;
      }
      report('uvm.namespace.remove', true, nsid);
    }
    this.#namespaces.delete(nsid);
  }

  /** `UtilityVM.Close`: terminate (a stopped VM is fine) and close the handle. */
  async close(): Promise<void> {
    await terminateAndClose(this.system);
  }
}

/** `hcsschema.NetworkAdapter{EndpointId, MacAddress}` (both omitempty). */
function nicSettings(ep: HostComputeEndpoint): JsonObject {
  const s: JsonObject = {};
  if (ep.ID) s['EndpointId'] = ep.ID;
  if (ep.MacAddress) s['MacAddress'] = ep.MacAddress;
  return s;
}
