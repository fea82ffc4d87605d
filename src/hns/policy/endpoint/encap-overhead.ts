/**
 * `EncapOverhead` endpoint policy: bytes of encapsulation header to subtract from the endpoint MTU
 * (50 for VXLAN on overlay; reference hns-hcs.md §2.2, vfp-dataplane.md §5). One per endpoint.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { putNum, uintField, UINT16_MAX } from '../fields.js';

export interface EncapOverheadSettings {
  /** uint16 bytes; 0 = not given. */
  readonly overhead: number;
}

export const encapOverheadPolicy: PolicyModule<EncapOverheadSettings> = {
  type: 'EncapOverhead',
  scopes: ['endpoint'],
  multiple: false,
  parse: (r: Reader) => ({ overhead: uintField(r, 'Overhead', UINT16_MAX) }),
  serialize: (s) => {
    const out: JsonObject = {};
    putNum(out, 'Overhead', s.overhead);
    return out;
  },
  key: (s) => String(s.overhead),
};
