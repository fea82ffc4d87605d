/**
 * The pieces of Go's `net`, `strconv` and `fmt` that windows-container-networking's behaviour hangs
 * on (reference cni-windows.md §4; Go 1.21, the toolchain of WCN @ b96345f): nil-able `net.IP` /
 * `net.IPNet` and their `String()` (`<nil>`), `IP.Mask`, and `%v` of hcsshim v0.8.26's
 * `*hcn.HostComputeEndpoint` (it appears inside WCN's error messages). `net.ParseMAC`, `strconv`
 * and panics are in `src/cni/` (`gomac.ts`, `gostrconv.ts`, `gopanic.ts`).
 */
import type { Json } from '../../core/json.js';
import { goFormatIP, goParseCIDR, goParseIP, type GoIP } from '../../cni/goip.js';
import type { HostComputeEndpointDoc } from '../../api/hcn/endpoint.js';

export type { GoIP } from '../../cni/goip.js';

/** A CIDR mask: `ones` leading one bits in a mask of `width` bits (Go keeps 4- or 16-byte masks). */
export interface GoMask {
  readonly ones: number;
  readonly width: 32 | 128;
}

/** `net.IPNet` where either half may be nil (a zero `net.IPNet{}`). */
export interface GoNet {
  readonly ip: GoIP | undefined;
  readonly mask: GoMask | undefined;
}

export const ZERO_NET: GoNet = { ip: undefined, mask: undefined };

const V4_MAPPED = 0xffffn << 32n;
const V6_ALL = (1n << 128n) - 1n;

export function v4(n: number): GoIP {
  const v = n >>> 0;
  return { family: 4, v4: v, v6: V4_MAPPED | BigInt(v) };
}

function v6(n: bigint): GoIP {
  const v = n & V6_ALL;
  if (v >> 32n === 0xffffn) return { family: 4, v4: Number(v & 0xffffffffn), v6: v };
  return { family: 6, v4: 0, v6: v };
}

/** `net.IP.String()` of a possibly nil address. */
export function goIPString(ip: GoIP | undefined): string {
  return ip ? goFormatIP(ip) : '<nil>';
}

/** `net.ParseIP` (Go 1.21: netip rules, no zones); undefined is Go's nil. */
export function parseIP(s: string): GoIP | undefined {
  return goParseIP(s);
}

/**
 * `net.ParseCIDR(s)`: the address as written and the masked network; undefined when Go would
 * return `invalid CIDR address: s`.
 */
export function parseCIDR(s: string): { ip: GoIP; net: GoNet } | undefined {
  const n = goParseCIDR(s);
  if (!n) return undefined;
  const mask: GoMask = { ones: n.bits, width: n.maskBits };
  return { ip: n.ip, net: { ip: maskIP(n.ip, mask), mask } };
}

/** `types.ParseCIDR`: like `net.ParseCIDR` but the IPNet keeps the address as written. */
export function parseTypesCIDR(s: string): GoNet | undefined {
  const n = goParseCIDR(s);
  if (!n) return undefined;
  return { ip: n.ip, mask: { ones: n.bits, width: n.maskBits } };
}

/**
 * `ip.Mask(mask)`. Go holds parsed addresses in 16 bytes: a 4-byte mask applies to an IPv4 (or
 * v4-mapped) address and gives 4 bytes; a 16-byte mask applies to all 16 bytes; an IPv6 address
 * with a 4-byte mask gives nil.
 */
export function maskIP(ip: GoIP, mask: GoMask): GoIP | undefined {
  if (mask.width === 32) {
    if (ip.family !== 4) return undefined;
    const m = mask.ones === 0 ? 0 : (0xffffffff << (32 - mask.ones)) >>> 0;
    return v4((ip.v4 & m) >>> 0);
  }
  const m = mask.ones === 0 ? 0n : (V6_ALL << BigInt(128 - mask.ones)) & V6_ALL;
  return v6(ip.v6 & m);
}

/** `mask.Size()`: the ones count (a nil mask gives 0). */
export function maskOnes(mask: GoMask | undefined): number {
  return mask ? mask.ones : 0;
}

/** `ip.Equal(x)` (nil equals nothing but nil's empty counterpart). */
export function ipEqual(a: GoIP | undefined, b: GoIP | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.v6 === b.v6;
}

/**
 * The address with its fourth byte set to `value` (`ip[3] = value`): on Go's 4-byte form that is
 * the last octet; on a 16-byte IPv6 address it is byte 3 from the top.
 */
export function setByte3(ip: GoIP, value: number): GoIP {
  if (ip.family === 4) return v4(((ip.v4 & 0xffffff00) | (value & 255)) >>> 0);
  const shift = BigInt((15 - 3) * 8);
  return v6((ip.v6 & ~(0xffn << shift)) | (BigInt(value & 255) << shift));
}

/** The address plus one in its last byte, wrapping within the byte (`ip[3]++` on 4 bytes). */
export function incByte3(ip: GoIP): GoIP {
  return v4(((ip.v4 & 0xffffff00) | ((ip.v4 + 1) & 255)) >>> 0);
}

/** `net.IPNet.String()`: `<nil>` when the address or mask is nil or their lengths disagree. */
export function goNetString(n: GoNet): string {
  const { ip, mask } = n;
  if (!ip || !mask) return '<nil>';
  if (mask.width === 32) {
    if (ip.family !== 4) return '<nil>';
    return `${goFormatIP(ip)}/${mask.ones}`;
  }
  // a 16-byte mask on an IPv4 address: its last four bytes are used
  if (ip.family === 4) return `${goFormatIP(ip)}/${Math.max(0, mask.ones - 96)}`;
  return `${goFormatIP(ip)}/${mask.ones}`;
}

// ─────────────────────────────────────────── fmt ─────────────────────────────────────────────

/** `%v` of a `[]byte` (`json.RawMessage`): `[123 34 …]`. */
function bytesV(text: string | undefined): string {
  if (text === undefined) return '[]';
  return `[${Array.from(Buffer.from(text, 'utf8')).join(' ')}]`;
}

/** `%v` of a float64: `%g` at the shortest precision, exponent form when it is < -4 or >= 6. */
function floatV(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mant, e] = n.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** `%v` of a value decoded into `interface{}` (maps print with sorted keys). */
export function goAnyV(v: Json | undefined): string {
  if (v === undefined || v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goAnyV).join(' ')}]`;
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return floatV(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  const keys = Object.keys(v).sort();
  return `map[${keys.map((k) => `${k}:${goAnyV(v[k])}`).join(' ')}]`;
}

function listV(list: readonly string[] | undefined): string {
  return `[${(list ?? []).join(' ')}]`;
}

/**
 * `%v` of hcsshim v0.8.26's `*hcn.HostComputeEndpoint`: `&{Id Name HostComputeNetwork
 * HostComputeNamespace Policies IpConfigurations Dns Routes MacAddress Flags Health SchemaVersion}`,
 * policy settings as byte lists of their compact JSON (`json.RawMessage`), Health as `{Data Extra}`.
 */
export function goEndpointV(ep: HostComputeEndpointDoc): string {
  const raw = (j: Json | undefined): string =>
    bytesV(j === undefined || j === null ? undefined : JSON.stringify(j));
  const policies = (ep.Policies ?? []).map((p) => `{${p.Type} ${raw(p.Settings)}}`).join(' ');
  const ipconfs = (ep.IpConfigurations ?? [])
    .map((c) => `{${c.IpAddress ?? ''} ${c.PrefixLength ?? 0}}`)
    .join(' ');
  const dns = ep.Dns ?? {};
  const routes = (ep.Routes ?? [])
    .map((r) => `{${r.NextHop ?? ''} ${r.DestinationPrefix ?? ''} ${r.Metric ?? 0}}`)
    .join(' ');
  const health = ep.Health ?? {};
  const extra = health.Extra ?? {};
  const healthV =
    `{${goAnyV(health.Data)} {${raw(extra.Resources)} ${raw(extra.SharedContainers)} ` +
    `${extra.LayeredOn ?? ''} ${extra.SwitchGuid ?? ''} ${extra.UtilityVM ?? ''} ${extra.VirtualMachine ?? ''}}}`;
  const sv = ep.SchemaVersion ?? { Major: 0, Minor: 0 };
  return (
    `&{${ep.ID ?? ''} ${ep.Name ?? ''} ${ep.HostComputeNetwork ?? ''} ${ep.HostComputeNamespace ?? ''} ` +
    `[${policies}] [${ipconfs}] {${dns.Domain ?? ''} ${listV(dns.Search)} ${listV(dns.ServerList)} ${listV(dns.Options)}} ` +
    `[${routes}] ${ep.MacAddress ?? ''} ${ep.Flags ?? 0} ${healthV} {${sv.Major} ${sv.Minor}}}`
  );
}
