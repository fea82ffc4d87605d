/**
 * `VSID` subnet policy: the virtual subnet id (VXLAN VNI) of an overlay subnet, e.g.
 * `{"IsolationId":5000}` in hcsshim's overlay tests (reference hns-hcs.md §2.1, §6.14,
 * vfp-dataplane.md §5). `IsolationId` is always serialised. One per subnet.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { uintField, UINT32_MAX } from '../fields.js';

/**
 * Valid VSIDs: 24-bit, 4096..16777214 (Hyper-V Network Virtualization reserves 0..4095; flannel and
 * Calico on Windows require VNI ≥ 4096). Our choice to enforce it, docs/model.md.
 */
export const VSID_MIN = 4096;
export const VSID_MAX = 16777214;

export interface VsidSettings {
  readonly isolationId: number;
}

/** Reads a VSID-valued `IsolationId` (also used by RemoteSubnetRoute). */
export function readVsid(r: Reader, key = 'IsolationId'): number {
  const id = uintField(r, key, UINT32_MAX);
  if (id < VSID_MIN || id > VSID_MAX) r.fail(`${key} ${id} is not a VSID ${VSID_MIN}..${VSID_MAX}`);
  return id;
}

export const vsidPolicy: PolicyModule<VsidSettings> = {
  type: 'VSID',
  scopes: ['subnet'],
  multiple: false,
  parse: (r: Reader) => ({ isolationId: readVsid(r) }),
  serialize: (s): JsonObject => ({ IsolationId: s.isolationId }),
  key: (s) => String(s.isolationId),
};
