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
import { formatIPv6 } from '../../addr/ip.js';
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
export const COMPARISON_ERROR = -2;

/** A version `CompareK8sVer` compares against: a release, `major.minor` (ACN's is 1.16). */
export interface K8sRelease {
  readonly major: number;
  readonly minor: number;
}

/**
 * Masterminds/semver v1.5.0 `NewVersion`'s pattern (its `SemVerRegex`, anchored): up to three
 * numbers, an optional pre-release and build metadata. `CompareK8sVer` builds its input as
 * `major + "." + <minor's first digits>`, so only a server's odd `major` reaches past the numbers
 * (`1-rc` makes `1-rc.16`: major 1, pre-release `rc.16`).
 */
const SEMVER =
  /^v?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const INT64_MAX = '9223372036854775807';

/** `strconv.ParseInt(s, 10, 64)` of a run of digits: its digits without leading zeros, or undefined past int64. */
function int64Digits(s: string): string | undefined {
  const d = s.replace(/^0+(?=.)/, '');
  return d.length < INT64_MAX.length || (d.length === INT64_MAX.length && d <= INT64_MAX) ? d : undefined;
}

/** Two non-negative integers written without leading zeros, compared (-1, 0, 1). */
function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/**
 * `CompareK8sVer(server, release)`: -1, 0, 1, or -2 when the server's `major` and `minor` do not
 * make a version (no digits in `minor`; not semver; a number past int64). Masterminds' `Compare`:
 * major, minor, patch as integers, then a pre-release sorts below the release it precedes — the
 * only pre-release rule that applies, as `release` (ACN's minimum, 1.16) has none.
 */
export function compareK8sVer(
  server: { readonly major: string; readonly minor: string },
  release: K8sRelease,
): number {
  const digits = /[0-9]+/.exec(server.minor);
  const m = digits ? SEMVER.exec(`${server.major}.${digits[0]}`) : null;
  if (!m) return COMPARISON_ERROR;
  const nums = [m[1]!, m[2] ?? '0', m[3] ?? '0'].map(int64Digits);
  const other = [String(release.major), String(release.minor), '0'];
  for (let i = 0; i < 3; i++) {
    const n = nums[i];
    if (n === undefined) return COMPARISON_ERROR;
    const d = compareDigits(n, other[i]!);
    if (d !== 0) return d;
  }
  return m[4] ? LESS_THAN : EQUAL_TO;
}

/** `k8sMajorVerForNewPolicyDef`.`k8sMinorVerForNewPolicyDef`: the server must be newer than 1.16. */
export const MINIMUM_DUAL_STACK_VERSION: K8sRelease = { major: 1, minor: 16 };

/** `loadKubernetesConfig`'s version check: throws upstream's error unless the server is above 1.16. */
export function checkServerVersion(server: { readonly major: string; readonly minor: string }): void {
  const c = compareK8sVer(server, MINIMUM_DUAL_STACK_VERSION);
  if (c === EQUAL_TO || c === LESS_THAN) throw new Error('Incompatible Kubernetes version for dual stack');
  if (c === COMPARISON_ERROR) throw new Error('Error comparing Kubernetes API versions');
}
