/**
 * flanneld's subnet.env as the flannel CNI plugin reads it (`loadFlannelSubnetEnv` in
 * flannel-io/cni-plugin @ 092e6d26 `flannel.go`; reference cni-windows.md §5.1): `KEY=VALUE` lines
 * read with Go's `bufio.Scanner`, networks parsed with `net.ParseCIDR` (so FLANNEL_SUBNET's
 * `10.244.1.1/24` becomes the network `10.244.1.0/24`), FLANNEL_NETWORK de-duplicated, and the
 * exact errors: a parse error as Go prints it, or `<file> is missing FLANNEL_…`.
 */
import type { FileStore } from '../../core/files.js';
import { osReadFile } from './disk.js';
import { indexOutOfRange } from '../../cni/gopanic.js';
import { goCidrError, ipEqual, parseCIDRNet, type GoNet } from '../../cni/goip.js';
import { parseUint10 } from '../../cni/gostrconv.js';

/** What subnet.env says; a field is absent when its line is. */
export interface SubnetEnv {
  /** FLANNEL_NETWORK, de-duplicated, in order (`nws`). */
  readonly networks: readonly GoNet[];
  /** FLANNEL_SUBNET as a network (`sn`). */
  readonly subnet?: GoNet;
  readonly ipv6Networks: readonly GoNet[];
  readonly ipv6Subnet?: GoNet;
  readonly mtu?: number;
  readonly ipMasq?: boolean;
}

/** A subnet.env that could not be read: `message` is the Go error text (before flannel wraps it). */
export class SubnetEnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubnetEnvError';
  }
}

/** `bufio.MaxScanTokenSize`: a line this long (in bytes, without its newline) stops the scanner. */
const MAX_TOKEN = 64 * 1024;

/**
 * `isSubnetAlreadyPresent`: same IP (`IP.Equal`) and the same mask bytes, compared over the new
 * network's mask length (a longer new mask than an existing one indexes past it: Go panics).
 */
function alreadyPresent(list: readonly GoNet[], nw: GoNet): boolean {
  for (const have of list) {
    if (!ipEqual(nw.ip, have.ip)) continue;
    let same = true;
    for (let i = 0; i < nw.mask.length; i++) {
      if (i >= have.mask.length) throw indexOutOfRange(i, have.mask.length);
      if (nw.mask[i] !== have.mask[i]) {
        same = false;
        break;
      }
    }
    if (same) return true;
  }
  return false;
}

function parseList(value: string): GoNet[] {
  // strings.Split("", ",") is [""], which ParseCIDR rejects
  const out: GoNet[] = [];
  for (const cidr of value.split(',')) {
    const nw = parseCIDRNet(cidr);
    if (!nw) throw new SubnetEnvError(goCidrError(cidr));
    if (!alreadyPresent(out, nw)) out.push(nw);
  }
  return out;
}

function parseOne(value: string): GoNet {
  const nw = parseCIDRNet(value);
  if (!nw) throw new SubnetEnvError(goCidrError(value));
  return nw;
}

/** `se.missing()`: the keys that are absent, in flannel's order and pairing. */
function missingKeys(se: SubnetEnv): string {
  const m: string[] = [];
  if (se.networks.length === 0 && se.ipv6Networks.length === 0)
    m.push('FLANNEL_NETWORK', 'FLANNEL_IPV6_NETWORK');
  if (!se.subnet && !se.ipv6Subnet) m.push('FLANNEL_SUBNET', 'FLANNEL_IPV6_SUBNET');
  if (se.mtu === undefined) m.push('FLANNEL_MTU');
  if (se.ipMasq === undefined) m.push('FLANNEL_IPMASQ');
  return m.join(', ');
}

/**
 * Parse subnet.env text read from `fileName` (the name is only used in the "missing" message).
 * Lines are processed in order and the first bad one decides; a known key with no `=` indexes past
 * `SplitN`'s one part and panics (a `GoPanic`), as the Go code does.
 */
export function parseSubnetEnv(text: string, fileName: string): SubnetEnv {
  let networks: GoNet[] = [];
  let subnet: GoNet | undefined;
  let ipv6Networks: GoNet[] = [];
  let ipv6Subnet: GoNet | undefined;
  let mtu: number | undefined;
  let ipMasq: boolean | undefined;
  const lines = text.split('\n');
  // the scanner yields no token for the empty text after a final newline
  if (lines[lines.length - 1] === '') lines.pop();
  for (const raw of lines) {
    if (Buffer.byteLength(raw, 'utf8') >= MAX_TOKEN)
      throw new SubnetEnvError('bufio.Scanner: token too long');
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    const known = [
      'FLANNEL_NETWORK',
      'FLANNEL_SUBNET',
      'FLANNEL_IPV6_NETWORK',
      'FLANNEL_IPV6_SUBNET',
      'FLANNEL_MTU',
      'FLANNEL_IPMASQ',
    ];
    if (!known.includes(key)) continue;
    if (eq < 0) throw indexOutOfRange(1, 1);
    const value = line.slice(eq + 1);
    switch (key) {
      case 'FLANNEL_NETWORK':
        networks = parseList(value);
        break;
      case 'FLANNEL_SUBNET':
        subnet = parseOne(value);
        break;
      case 'FLANNEL_IPV6_NETWORK':
        ipv6Networks = parseList(value);
        break;
      case 'FLANNEL_IPV6_SUBNET':
        ipv6Subnet = parseOne(value);
        break;
      case 'FLANNEL_MTU': {
        const r = parseUint10(value, 32);
        if ('error' in r) throw new SubnetEnvError(r.error);
        mtu = r.value;
        break;
      }
      case 'FLANNEL_IPMASQ':
        ipMasq = value === 'true';
        break;
    }
  }
  const se: SubnetEnv = {
    networks,
    ipv6Networks,
    ...(subnet ? { subnet } : {}),
    ...(ipv6Subnet ? { ipv6Subnet } : {}),
    ...(mtu !== undefined ? { mtu } : {}),
    ...(ipMasq !== undefined ? { ipMasq } : {}),
  };
  const m = missingKeys(se);
  if (m !== '') throw new SubnetEnvError(`${fileName} is missing ${m}`);
  return se;
}

/**
 * `loadFlannelSubnetEnv(fn)`: open `fn` on the node's disk (Go's `os.Open` errors, e.g. `open
 * /run/flannel/subnet.env: The system cannot find the path specified.`), then parse it.
 */
export function loadSubnetEnv(files: FileStore, fileName: string): SubnetEnv {
  let text: string;
  try {
    text = osReadFile(files, fileName);
  } catch (e) {
    throw new SubnetEnvError((e as Error).message);
  }
  return parseSubnetEnv(text, fileName);
}
