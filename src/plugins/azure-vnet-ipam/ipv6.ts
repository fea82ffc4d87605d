/**
 * The IPAM's `ipv6NodeIpam` source (ACN v1.8.12 `ipam/ipv6Ipam.go`; reference azure-cni.md §2.7),
 * what `azure-vnet-ipamv6` runs with: the node's IPv6 pod CIDR from the Kubernetes API, its first
 * /120 as one pool of the `local` space, every address of it but the subnet's first two as the
 * pool's records (the gateway is host 1, as for every pool).
 *
 * The source asks only while the stored `local` space has no pool (`isLoaded`, decided when the
 * source starts): client-go from `c:\k\config` (kube.ts), the server's version, which must be
 * above 1.16, then the node named as the host in lower case. Its errors are upstream's texts; the
 * manager only logs them, as `refreshSource` does, so a plugin then fails on the empty space
 * ("Invalid address space").
 */
import { formatIPv6, parseIPv6 } from '../../addr/ip.js';
import { goCidrError, goFormatIP, goParseCIDR } from '../../cni/goip.js';

/** `defaultIPv6SubnetMaskSizeLimit`: the part of the node's pod CIDR the pool takes. */
export const IPV6_SUBNET_SIZE_LIMIT = '/120';

/** The node's pool as `retrieveKubernetesPodIPs` builds it: the subnet's text and its addresses. */
export interface NodePodIps {
  /** `<pod CIDR address>/120`, the address as the pod CIDR writes it (not masked). */
  readonly prefix: string;
  /** Every address of the masked subnet from its third on. */
  readonly addresses: readonly string[];
}

/** The error `retrieveKubernetesPodIPs` returns for a node without an IPv6 pod CIDR (upstream's words). */
export const NO_IPV6_POD_CIDR =
  '[ipam] Failed to retrieve subnet, node does an IPv6 subnet allocated from Kubernetes';

/**
 * `retrieveKubernetesPodIPs(node, limit)`: the first of `spec.podCIDRs` whose address is not IPv4
 * (one Go cannot parse counts, and then nothing is found), cut to `limit`.
 */
export function retrieveKubernetesPodIps(
  podCIDRs: readonly string[],
  limit: string = IPV6_SUBNET_SIZE_LIMIT,
): NodePodIps {
  let nodeIp: string | undefined;
  for (const cidr of podCIDRs) {
    const n = goParseCIDR(cidr);
    // a nil net.IP's To4() is nil too: the loop stops at an unparsable entry with nothing found
    if (!n || n.ip.family === 6) {
      nodeIp = n ? goFormatIP(n.ip) : undefined;
      break;
    }
  }
  if (nodeIp === undefined) throw new Error(NO_IPV6_POD_CIDR);
  const prefix = `${nodeIp}${limit}`;
  const parsed = goParseCIDR(prefix);
  if (!parsed || parsed.ip.family !== 6) throw new Error(goCidrError(prefix));
  const hostBits = BigInt(128 - parsed.bits);
  const first = (parsed.ip.v6 >> hostBits) << hostBits;
  const count = 1n << hostBits;
  const addresses: string[] = [];
  // the subnet's address and host 1 are skipped
  for (let i = 2n; i < count; i++) addresses.push(formatIPv6(first + i));
  return { prefix, addresses };
}

/** `CompareK8sVer`'s results. */
export const LESS_THAN = -1;
export const EQUAL_TO = 0;
export const GREATER_THAN = 1;
export const COMPARISON_ERROR = -2;

/** Masterminds `semver.NewVersion`'s pattern (`v` prefix, up to three numbers, pre-release, metadata). */
const SEMVER =
  /^v?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

interface SemVer {
  readonly nums: readonly bigint[];
  readonly pre: string;
}

function semver(major: string, minor: string): SemVer | undefined {
  // the minor's first run of digits (`16+` → 16)
  const digits = /[0-9]+/.exec(minor);
  if (!digits) return undefined;
  const m = SEMVER.exec(`${major}.${digits[0]}`);
  if (!m) return undefined;
  return { nums: [BigInt(m[1]!), BigInt(m[2] ?? '0'), BigInt(m[3] ?? '0')], pre: m[4] ?? '' };
}

/** Semver's pre-release order: none above any; dot parts compared numerically when both are numbers. */
function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^[0-9]+$/.test(x);
    const ny = /^[0-9]+$/.test(y);
    if (nx && ny) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (nx) return -1;
    if (ny) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** `CompareK8sVer(first, second)`: -1, 0, 1, or -2 when either does not make a version. */
export function compareK8sVer(
  first: { readonly major: string; readonly minor: string },
  second: { readonly major: string; readonly minor: string },
): number {
  const a = semver(first.major, first.minor);
  const b = semver(second.major, second.minor);
  if (!a || !b) return COMPARISON_ERROR;
  for (let i = 0; i < 3; i++) {
    if (a.nums[i]! !== b.nums[i]!) return a.nums[i]! < b.nums[i]! ? LESS_THAN : GREATER_THAN;
  }
  return Math.sign(comparePre(a.pre, b.pre));
}

/** `k8sMajorVerForNewPolicyDef`.`k8sMinorVerForNewPolicyDef`: the server must be newer than 1.16. */
export const MINIMUM_DUAL_STACK_VERSION = { major: '1', minor: '16' } as const;

/** `loadKubernetesConfig`'s version check: throws upstream's error unless the server is above 1.16. */
export function checkServerVersion(server: { readonly major: string; readonly minor: string }): void {
  const c = compareK8sVer(server, MINIMUM_DUAL_STACK_VERSION);
  if (c === EQUAL_TO || c === LESS_THAN) throw new Error('Incompatible Kubernetes version for dual stack');
  if (c === COMPARISON_ERROR) throw new Error('Error comparing Kubernetes API versions');
}

/** An address text of the pool as the manager keys it (canonical IPv6). */
export function canonicalV6(text: string): string | undefined {
  const v = parseIPv6(text);
  return v === undefined ? undefined : formatIPv6(v);
}
