/**
 * flanneld's start on one Windows node as `main.go` runs it (flannel-io/flannel @ cdf76059): the
 * backend's `RegisterNetwork` with the node's lease, then `HandleSubnetFile` (subnet.env with the
 * backend's MTU and `--ip-masq`); lease events go to the returned backend afterwards. Reference
 * cni-windows.md §5.1–§5.3.
 *
 *   const fl = await startFlanneld(host, { type: 'vxlan', network: '10.244.0.0/16',
 *     lease: { subnet: '10.244.1.0/24', publicIp: '10.0.0.11' } });
 *   await fl.backend.onLeaseAdded(otherNode.lease);
 */
import type { Host } from '../../host/host.js';
import { flanneldHost } from './host.js';
import { FlanneldHostGw, type FlanneldOptions } from './hostgw.js';
import type { Lease } from './lease.js';
import { subnetEnvText, writeSubnetEnv } from './subnet-file.js';
import { FlanneldVxlan } from './vxlan.js';
import { FlanneldVxlanLegacy } from './vxlan-legacy.js';

export type FlanneldBackendType = 'host-gw' | 'vxlan' | 'vxlan-2018';

export interface FlanneldNodeOptions extends FlanneldOptions {
  /** The backend (`Backend.Type`; `vxlan-2018` is the e6fc2a29 design). */
  readonly type: FlanneldBackendType;
  /** net-conf.json's `Network`. */
  readonly network: string;
  /** The lease the subnet manager gave this node. */
  readonly lease: Lease;
  /** `--ip-masq` (default false): only written to subnet.env on Windows. */
  readonly ipMasq?: boolean;
  /** `--subnet-file` (default /run/flannel/subnet.env). */
  readonly subnetFile?: string;
}

export interface FlanneldNode {
  readonly backend: FlanneldHostGw | FlanneldVxlan | FlanneldVxlanLegacy;
  /** The lease to publish to other nodes (vxlan: with its VNI and VtepMAC). */
  readonly lease: Lease;
  readonly mtu: number;
  /** The subnet.env text written. */
  readonly subnetEnv: string;
}

/** Register the backend's network for the node's lease, then write subnet.env. */
export async function startFlanneld(host: Host, opts: FlanneldNodeOptions): Promise<FlanneldNode> {
  // bad input is refused before anything changes on the node
  subnetEnvText({ network: opts.network, subnet: opts.lease.subnet, mtu: 0, ipMasq: false });
  const fh = flanneldHost(host);
  let backend: FlanneldNode['backend'];
  switch (opts.type) {
    case 'host-gw':
      backend = new FlanneldHostGw(fh, opts);
      break;
    case 'vxlan':
      backend = new FlanneldVxlan(fh, opts);
      break;
    case 'vxlan-2018':
      backend = new FlanneldVxlanLegacy(fh, opts);
      break;
    default:
      throw new Error(`unknown flanneld backend type ${JSON.stringify(opts.type)}`);
  }
  const { lease, mtu } = await backend.setup(opts.lease);
  const subnetEnv = writeSubnetEnv(host.files, {
    ...(opts.subnetFile !== undefined ? { path: opts.subnetFile } : {}),
    network: opts.network,
    subnet: lease.subnet,
    mtu,
    ipMasq: opts.ipMasq ?? false,
  });
  return { backend, lease, mtu, subnetEnv };
}
