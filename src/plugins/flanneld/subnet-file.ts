/**
 * flanneld's subnet.env writer (`WriteSubnetFile` in flannel-io/flannel @ cdf76059
 * `pkg/subnet/subnet.go`, `writefile_windows.go`: a plain `os.WriteFile` on Windows; reference
 * cni-windows.md §5.1): the cluster network, the lease subnet with its IP incremented by one (the
 * first usable address, `10.244.1.1/24`), the MTU and the ipMasq flag, one `KEY=VALUE` per line.
 *
 *   writeSubnetEnv(host.files, { network: '10.244.0.0/16', subnet: '10.244.1.0/24', mtu: 1450, ipMasq: true });
 */
import type { FileStore } from '../../core/files.js';
import { formatIPv6 } from '../../addr/ip.js';
import { fmt } from '../../vswitch/v4.js';
import { netString, parseCIDRNet, type GoNet } from '../../cni/goip.js';

/** flanneld's default `--subnet-file` (on Windows, `C:\run\flannel\subnet.env`). */
export const DEFAULT_SUBNET_FILE_PATH = '/run/flannel/subnet.env';

export interface SubnetFileOptions {
  /** Where to write (default /run/flannel/subnet.env). */
  readonly path?: string;
  /** `config.Network` (EnableIPv4): the cluster's IPv4 network, `10.244.0.0/16`. */
  readonly network?: string;
  /** The lease's IPv4 subnet, `10.244.1.0/24` (required with `network`). */
  readonly subnet?: string;
  /** `config.IPv6Network` (EnableIPv6). */
  readonly ipv6Network?: string;
  /** The lease's IPv6 subnet (required with `ipv6Network`). */
  readonly ipv6Subnet?: string;
  /** The backend's MTU (host-gw: the interface's; vxlan: the interface's − 50). */
  readonly mtu: number;
  /** `--ip-masq`. */
  readonly ipMasq: boolean;
}

function cidr(text: string, what: string, family: 4 | 6): GoNet {
  const n = parseCIDRNet(text);
  if (!n || (family === 4) !== (n.ip.length === 4))
    throw new Error(`${what} "${text}" is not an IPv${family} CIDR`);
  return n;
}

/** The prefix length of a mask `net.ParseCIDR` made (canonical: its one bits). */
function prefixLen(n: GoNet): number {
  let ones = 0;
  for (const b of n.mask) for (let x = b; x & 0x80; x = (x << 1) & 0xff) ones++;
  return ones;
}

/** `IP4Net.IncrementIP()` then `String()`: `10.244.1.0/24` → `10.244.1.1/24`. */
function firstUsable4(n: GoNet): string {
  const ip = ((n.ip[0]! << 24) | (n.ip[1]! << 16) | (n.ip[2]! << 8) | n.ip[3]!) >>> 0;
  return `${fmt((ip + 1) >>> 0)}/${prefixLen(n)}`;
}

/** `IP6Net.IncrementIP()` then `String()`. */
function firstUsable6(n: GoNet): string {
  let v = 0n;
  for (const b of n.ip) v = (v << 8n) | BigInt(b);
  return `${formatIPv6(v + 1n)}/${prefixLen(n)}`;
}

/** The text `WriteSubnetFile` writes. */
export function subnetEnvText(opts: SubnetFileOptions): string {
  if (!Number.isInteger(opts.mtu)) throw new Error(`mtu must be an integer, got ${String(opts.mtu)}`);
  if (opts.network === undefined && opts.ipv6Network === undefined)
    throw new Error('subnet.env needs network (IPv4) or ipv6Network');
  let b = '';
  if (opts.network !== undefined) {
    if (opts.subnet === undefined) throw new Error('subnet.env with an IPv4 network needs the lease subnet');
    const network = cidr(opts.network, 'network', 4);
    b += `FLANNEL_NETWORK=${netString(network)}\nFLANNEL_SUBNET=${firstUsable4(cidr(opts.subnet, 'subnet', 4))}\n`;
  }
  if (opts.ipv6Network !== undefined) {
    if (opts.ipv6Subnet === undefined)
      throw new Error('subnet.env with an IPv6 network needs the lease ipv6Subnet');
    const network = cidr(opts.ipv6Network, 'ipv6Network', 6);
    b += `FLANNEL_IPV6_NETWORK=${netString(network)}\nFLANNEL_IPV6_SUBNET=${firstUsable6(cidr(opts.ipv6Subnet, 'ipv6Subnet', 6))}\n`;
  }
  b += `FLANNEL_MTU=${opts.mtu}\nFLANNEL_IPMASQ=${opts.ipMasq ? 'true' : 'false'}\n`;
  return b;
}

/** Write subnet.env on the node's disk as flanneld does; returns the text written. */
export function writeSubnetEnv(files: FileStore, opts: SubnetFileOptions): string {
  const text = subnetEnvText(opts);
  files.write(opts.path ?? DEFAULT_SUBNET_FILE_PATH, text);
  return text;
}
