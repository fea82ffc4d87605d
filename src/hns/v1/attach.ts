/**
 * HNS v1 endpoint attach/detach (`POST /endpoints/<id>/attach|detach`, reference hns-hcs.md §3.2):
 * `EndpointAttachDetachRequest {"ContainerId","SystemType":"Container"|"VirtualMachine"|"Host",
 * "CompartmentId","VirtualNicName"}`, mapped onto the same store as HCN:
 * - Container: `ContainerId` joins / leaves the endpoint's `SharedContainers` (what hcsshim's
 *   `IsAttached` reads). `CompartmentId` is accepted and not used (the container's compartment is
 *   HCS's business).
 * - Host: the endpoint joins the namespace whose compartment (`NamespaceId`) is `CompartmentId`
 *   (0 or absent = 1, the default compartment); when compartment 1 has no namespace yet, a
 *   `HostDefault` one is created for it; another compartment without a namespace is ERROR_NOT_FOUND.
 *   Detach leaves whatever namespace the endpoint is in.
 * - VirtualMachine: a VM switch port (HCN `Port` Add/Remove); the VM ID is the GUID before `--`
 *   in `VirtualNicName` (`<vmId>--<endpointId>`, reference §1.2).
 * Choices are ours where the reference is silent (docs/model.md). Validation precedes every change.
 */
import { hnsError } from '../../core/errors.js';
import { newGuid, parseGuid } from '../../core/guid.js';
import { Reader, type JsonObject } from '../../core/json.js';
import type { NamespaceRec } from '../model.js';
import { isRemote } from '../schema/endpoint.js';
import type { HnsService } from '../service.js';

export type SystemType = 'Container' | 'VirtualMachine' | 'Host';
const SYSTEM_TYPES: readonly SystemType[] = ['Container', 'VirtualMachine', 'Host'];

/** The compartment of the host's default namespace. */
export const DEFAULT_COMPARTMENT = 1;

export interface AttachRequest {
  readonly systemType: SystemType;
  readonly containerId: string | undefined;
  readonly compartmentId: number;
  readonly virtualNicName: string | undefined;
}

/** Parse an EndpointAttachDetachRequest; a missing or unknown SystemType is E_INVALIDARG. */
export function readAttachRequest(body: JsonObject): AttachRequest {
  const r = new Reader(body, 'HCN_E_INVALID_JSON', '$');
  const t = r.optStr('SystemType') ?? '';
  const systemType = SYSTEM_TYPES.find((s) => s.toLowerCase() === t.toLowerCase());
  if (!systemType)
    throw hnsError('E_INVALIDARG', `SystemType "${t}" is not Container, VirtualMachine or Host`);
  const containerId = r.optStr('ContainerId');
  const virtualNicName = r.optStr('VirtualNicName');
  return {
    systemType,
    containerId: containerId === '' ? undefined : containerId,
    compartmentId: r.optUint('CompartmentId', 0xffff) ?? 0,
    virtualNicName: virtualNicName === '' ? undefined : virtualNicName,
  };
}

/** The first namespace (in creation order) whose compartment is `compartmentId`. */
export function namespaceOfCompartment(hns: HnsService, compartmentId: number): NamespaceRec | undefined {
  for (const ns of hns.store.namespaces.values()) if (ns.NamespaceId === compartmentId) return ns;
  return undefined;
}

function sameContainer(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export function attachEndpoint(hns: HnsService, id: string, req: AttachRequest): void {
  hns.atomic(() => {
    const e = hns.getEndpoint(id);
    if (isRemote(e)) throw hnsError('HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', id);
    switch (req.systemType) {
      case 'Container': {
        const cid = req.containerId;
        if (!cid) throw hnsError('E_INVALIDARG', 'ContainerId is required to attach a container');
        if (e.SharedContainers.some((c) => sameContainer(c, cid))) {
          throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', `container ${cid}`);
        }
        hns.setSharedContainers(id, [...e.SharedContainers, cid]);
        return;
      }
      case 'Host': {
        const compartment = req.compartmentId || DEFAULT_COMPARTMENT;
        const existing = namespaceOfCompartment(hns, compartment);
        if (e.HostComputeNamespace) {
          if (existing && existing.ID === e.HostComputeNamespace) {
            throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', `compartment ${compartment}`);
          }
          throw hnsError(
            'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS',
            `${id} is in namespace ${e.HostComputeNamespace}`,
          );
        }
        if (!existing && compartment !== DEFAULT_COMPARTMENT) {
          throw hnsError('ERROR_NOT_FOUND', `no namespace for compartment ${compartment}`);
        }
        const ns = existing ?? hns.createNamespace(null, { Type: 'HostDefault' }, { isDefault: true });
        hns.modifyNamespace(ns.ID, {
          ResourceType: 'Endpoint',
          RequestType: 'Add',
          Settings: { EndpointId: id },
        });
        return;
      }
      case 'VirtualMachine': {
        const nic = req.virtualNicName;
        if (!nic) throw hnsError('E_INVALIDARG', 'VirtualNicName is required to attach a virtual machine');
        const vmId = parseGuid(nic.split('--')[0] ?? '');
        if (!vmId) throw hnsError('E_INVALIDARG', `VirtualNicName "${nic}" is not "<vmId>--<endpointId>"`);
        if (e.VmPort) throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', id);
        const portId = newGuid(hns.deps.rng);
        hns.modifyEndpoint(id, {
          ResourceType: 'Port',
          RequestType: 'Add',
          Settings: { PortId: portId, VirtualMachineId: vmId, VirtualNicName: nic },
        });
        return;
      }
    }
  });
}

export function detachEndpoint(hns: HnsService, id: string, req: AttachRequest): void {
  hns.atomic(() => {
    const e = hns.getEndpoint(id);
    switch (req.systemType) {
      case 'Container': {
        const cid = req.containerId;
        if (!cid) throw hnsError('E_INVALIDARG', 'ContainerId is required to detach a container');
        if (!e.SharedContainers.some((c) => sameContainer(c, cid))) {
          throw hnsError('HCN_E_ENDPOINT_NOT_ATTACHED', `container ${cid}`);
        }
        hns.setSharedContainers(
          id,
          e.SharedContainers.filter((c) => !sameContainer(c, cid)),
        );
        return;
      }
      case 'Host': {
        if (!e.HostComputeNamespace)
          throw hnsError('HCN_E_ENDPOINT_NOT_ATTACHED', `${id} is in no compartment`);
        hns.modifyNamespace(e.HostComputeNamespace, {
          ResourceType: 'Endpoint',
          RequestType: 'Remove',
          Settings: { EndpointId: id },
        });
        return;
      }
      case 'VirtualMachine': {
        if (!e.VmPort) throw hnsError('HCN_E_ENDPOINT_NOT_ATTACHED', `${id} has no VM port`);
        hns.modifyEndpoint(id, { ResourceType: 'Port', RequestType: 'Remove', Settings: {} });
        return;
      }
    }
  });
}
