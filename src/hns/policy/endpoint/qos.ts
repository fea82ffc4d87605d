/**
 * `QOS` endpoint policy: an egress bandwidth cap on the endpoint (reference hns-hcs.md §2.2).
 * hcsshim always serialises `MaximumOutgoingBandwidthInBytes` (no omitempty), so it is always
 * emitted; uint64 values are exact only up to 2^53-1 in JSON numbers.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { uintField, UINT64_SAFE_MAX } from '../fields.js';

export interface QosSettings {
  /** Bytes per second; 0 = no cap given. */
  readonly maximumOutgoingBandwidthInBytes: number;
}

function parse(r: Reader): QosSettings {
  return {
    maximumOutgoingBandwidthInBytes: uintField(r, 'MaximumOutgoingBandwidthInBytes', UINT64_SAFE_MAX),
  };
}

function serialize(s: QosSettings): JsonObject {
  return { MaximumOutgoingBandwidthInBytes: s.maximumOutgoingBandwidthInBytes };
}

export const qosPolicy: PolicyModule<QosSettings> = {
  type: 'QOS',
  scopes: ['endpoint'],
  multiple: false,
  parse,
  serialize,
  key: (s) => String(s.maximumOutgoingBandwidthInBytes),
};
