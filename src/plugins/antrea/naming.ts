/**
 * Antrea's interface names (pkg/agent/util/net.go `GenerateContainerInterfaceName`): up to 8
 * characters of the pod name (leading `-` trimmed when it was cut), `-`, then the first 6 hex
 * digits of SHA-1 of the container ID — on Windows the infra (sandbox) container's. At most 15
 * characters; the HNS endpoint and the OVS port both take it (reference ovs-windows.md §1.5).
 *
 *   containerInterfaceName('pod0', '261a1970-5b6c-11ed-8caf-000c294e5d03'); // 'pod0-6631b7'
 */
import { sha1Hex } from '../../core/sha1.js';

const PREFIX_LENGTH = 8;
const KEY_LENGTH = 15 - (PREFIX_LENGTH + 1);

export function containerInterfaceName(podName: string, containerId: string): string {
  const prefix =
    podName.length > PREFIX_LENGTH ? podName.slice(0, PREFIX_LENGTH).replace(/^-+/, '') : podName;
  return `${prefix}-${sha1Hex(containerId).slice(0, KEY_LENGTH)}`;
}
