/**
 * Field readers shared by the policy modules (reference hns-hcs.md §2, vfp-dataplane.md §2): IPs,
 * prefixes, MACs, GUIDs and the comma lists HNS uses for addresses, ports and protocol numbers.
 * Every failure goes through the module's Reader, so it throws HCN_E_INVALID_POLICY with a path.
 */
import { formatPrefix, parseIp, parsePrefix, type IpAddr, type Prefix } from '../../addr/ip.js';
import { formatMac, parseMac } from '../../addr/mac.js';
import { parseGuid } from '../../core/guid.js';
import { isJsonObject, type Json, type JsonObject, type Reader } from '../../core/json.js';
import { supports } from '../versions.js';
import type { PolicyContext } from './contracts.js';

export const UINT16_MAX = 0xffff;
export const UINT32_MAX = 0xffffffff;
/** uint64 fields are read as JS numbers; beyond 2^53-1 a JSON number is no longer exact. */
export const UINT64_SAFE_MAX = Number.MAX_SAFE_INTEGER;

/** An inclusive port range; a single port `80` is `{first: 80, last: 80}`. */
export interface PortRange {
  readonly first: number;
  readonly last: number;
}

/**
 * An address condition of an ACL-like rule: CIDR prefixes (a plain IP is a host prefix) and
 * SetPolicy IP-set ids. Both empty = any address (the field was absent or empty).
 */
export interface AddressMatch {
  readonly prefixes: readonly Prefix[];
  readonly setIds: readonly string[];
}

/** A token that names a SetPolicy set (e.g. NPM's `azure-npm-3216600258`) rather than an address. */
export const SET_ID_RE = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const DECIMAL_RE = /^[0-9]{1,10}$/;
const SID_RE = /^S-1(-[0-9]{1,10}){1,15}$/;

// ---------------------------------------------------------------------------------------------
// Scalars

/** A string field; absent, null and "" all read as undefined (hcsshim omits empty strings). */
export function optString(r: Reader, key: string): string | undefined {
  const v = r.optStr(key);
  return v === '' ? undefined : v;
}

export function requiredString(r: Reader, key: string): string {
  const v = optString(r, key);
  if (v === undefined) r.fail(`${key} is required`);
  return v;
}

/** An unsigned integer field, 0 when absent (Go zero value). Never returns -0. */
export function uintField(r: Reader, key: string, max: number): number {
  const v = r.optUint(key, max);
  return v === undefined || v === 0 ? 0 : v;
}

export function boolField(r: Reader, key: string): boolean {
  return r.optBool(key) ?? false;
}

/** A field that must be an IP address (v4 dotted quad or v6), kept as written plus parsed. */
export interface IpField {
  readonly text: string;
  readonly addr: IpAddr;
}

export function optIp(r: Reader, key: string): IpField | undefined {
  const text = optString(r, key);
  if (text === undefined) return undefined;
  const addr = parseIp(text);
  if (!addr) r.fail(`${key} "${text}" is not an IP address`);
  return { text, addr };
}

export function requiredIp(r: Reader, key: string): IpField {
  const v = optIp(r, key);
  if (!v) r.fail(`${key} is required`);
  return v;
}

export interface PrefixField {
  readonly text: string;
  readonly prefix: Prefix;
}

/** A CIDR prefix field `a.b.c.d/n` / `x::/n`; host bits are cleared in `prefix`. */
export function optPrefix(r: Reader, key: string): PrefixField | undefined {
  const text = optString(r, key);
  if (text === undefined) return undefined;
  const prefix = toPrefix(text);
  if (!prefix || !text.includes('/')) r.fail(`${key} "${text}" is not an IP prefix`);
  return { text, prefix };
}

export function requiredPrefix(r: Reader, key: string): PrefixField {
  const v = optPrefix(r, key);
  if (!v) r.fail(`${key} is required`);
  return v;
}

/** An IP or a CIDR prefix as one prefix (an IP is a /32 or /128), or undefined. */
export function toPrefix(text: string): Prefix | undefined {
  if (text.includes('/')) {
    const p = parsePrefix(text);
    if (!p) return undefined;
    return p.family === 4 ? { family: 4, addr: p.addr, len: p.len } : { family: 6, addr: p.addr, len: p.len };
  }
  const ip = parseIp(text);
  if (!ip) return undefined;
  return hostPrefix(ip);
}

export function hostPrefix(ip: IpAddr): Prefix {
  return ip.family === 4 ? { family: 4, addr: ip.value, len: 32 } : { family: 6, addr: ip.value, len: 128 };
}

/**
 * A MAC address, kept exactly as written: the dash form HNS uses (`00-15-5D-0A-B7-C6`) or the colon
 * form Go's `net.HardwareAddr.String()` writes (`00:15:5d:0a:b7:c6`, what flannel sends), either case.
 */
export function optMac(r: Reader, key: string): string | undefined {
  const text = optString(r, key);
  if (text === undefined) return undefined;
  if (parseMac(text) === undefined) r.fail(`${key} "${text}" is not a MAC address (xx-xx-xx-xx-xx-xx)`);
  return text;
}

export function requiredMac(r: Reader, key: string): string {
  const v = optMac(r, key);
  if (v === undefined) r.fail(`${key} is required`);
  return v;
}

/** Canonical form of a MAC written either way (`00-15-5D-0A-B7-C6`), for keys and comparisons. */
export function canonicalMac(mac: string): string {
  const n = parseMac(mac);
  return n === undefined ? mac.toUpperCase() : formatMac(n);
}

export interface GuidField {
  readonly text: string;
  /** Upper-case, no braces (src/core/guid.ts). */
  readonly canonical: string;
}

export function optGuid(r: Reader, key: string): GuidField | undefined {
  const text = optString(r, key);
  if (text === undefined) return undefined;
  const canonical = parseGuid(text);
  if (!canonical) r.fail(`${key} "${text}" is not a GUID`);
  return { text, canonical };
}

export function requiredGuid(r: Reader, key: string): GuidField {
  const v = optGuid(r, key);
  if (!v) r.fail(`${key} is required`);
  return v;
}

/** A port number written as a decimal string (`"80"`), e.g. L4Proxy `Port`, L4WFPPROXY ports. */
export interface PortStringField {
  readonly text: string;
  readonly port: number;
}

export function parsePortNumber(text: string): number | undefined {
  if (!DECIMAL_RE.test(text)) return undefined;
  const n = Number(text);
  return n <= UINT16_MAX ? n : undefined;
}

export function optPortString(r: Reader, key: string): PortStringField | undefined {
  const text = optString(r, key);
  if (text === undefined) return undefined;
  const port = parsePortNumber(text);
  if (port === undefined) r.fail(`${key} "${text}" is not a port number 0..65535`);
  return { text, port };
}

/** A Windows security identifier `S-1-5-21-…`. */
export function optSid(r: Reader, key: string): string | undefined {
  const text = optString(r, key);
  if (text === undefined) return undefined;
  if (!SID_RE.test(text)) r.fail(`${key} "${text}" is not a SID (S-1-…)`);
  return text;
}

/** An array of strings; absent = []. Empty strings inside are rejected. */
export function stringList(r: Reader, key: string): string[] {
  const v = r.optArr(key);
  if (v === undefined) return [];
  return v.map((item, i) => {
    if (typeof item !== 'string' || item === '') r.fail(`${key}[${i}] must be a non-empty string`);
    return item;
  });
}

/**
 * An array of IPs or CIDR prefixes (OutBoundNAT Exceptions/Destinations, L4Proxy exceptions…).
 * Items `skip` selects are left out (errors still name an item by its index in `items`).
 */
export function prefixList(
  r: Reader,
  key: string,
  items: readonly string[],
  skip?: (item: string) => boolean,
): Prefix[] {
  const out: Prefix[] = [];
  items.forEach((item, i) => {
    if (skip?.(item)) return;
    const p = toPrefix(item);
    if (!p) r.fail(`${key}[${i}] "${item}" is not an IP address or prefix`);
    out.push(p);
  });
  return out;
}

/**
 * A deployment template's placeholder left in place of an address (`<your service cidr>`, the
 * Calico `config.ps1` value of containerd#5729): text with white space, which no address or prefix
 * has. HNS takes such an OutBoundNAT exception or SDNRoute prefix and degrades the endpoint instead
 * of refusing the policy (docs/model.md, "Endpoints").
 */
export function isTemplatePlaceholder(text: string): boolean {
  return /\s/.test(text);
}

/**
 * A list field that also has a legacy spelling (`ExceptionList` in v1 and in the HNS schema for
 * L4Proxy). Either is accepted; both at once must agree.
 */
export function aliasedStringList(r: Reader, key: string, alias: string): string[] {
  const a = stringList(r, key);
  const b = stringList(r, alias);
  if (r.has(key) && r.has(alias) && a.join('\n') !== b.join('\n')) r.fail(`${key} and ${alias} disagree`);
  return r.has(key) ? a : b;
}

// ---------------------------------------------------------------------------------------------
// Comma lists (ACL-style fields)

function tokens(r: Reader, key: string, text: string): string[] {
  return text.split(',').map((t, i) => {
    const s = t.trim();
    if (s === '') r.fail(`${key} "${text}" has an empty entry at position ${i}`);
    return s;
  });
}

/**
 * `LocalAddresses` / `RemoteAddresses`: comma list of IPs and CIDR prefixes, and (where the rule
 * may reference SetPolicy sets) set ids. `"Any"`/`"*"` are rejected as HNS does (hcsshim#1059):
 * any address is written by omitting the field.
 */
export function parseAddressList(
  r: Reader,
  key: string,
  text: string | undefined,
  allowSetIds: boolean,
): AddressMatch {
  if (text === undefined) return { prefixes: [], setIds: [] };
  const prefixes: Prefix[] = [];
  const setIds: string[] = [];
  for (const tok of tokens(r, key, text)) {
    const p = toPrefix(tok);
    if (p) {
      prefixes.push(p);
      continue;
    }
    const lower = tok.toLowerCase();
    if (allowSetIds && SET_ID_RE.test(tok) && lower !== 'any' && lower !== '*') {
      setIds.push(tok);
      continue;
    }
    r.fail(`${key} entry "${tok}" is not an IP address or prefix${allowSetIds ? ' or an IP-set id' : ''}`);
  }
  return { prefixes, setIds };
}

/** `LocalPorts` / `RemotePorts`: `"80"`, `"80,8080"`, `"1000-2000"`, mixed. */
export function parsePortList(r: Reader, key: string, text: string | undefined): PortRange[] {
  if (text === undefined) return [];
  return tokens(r, key, text).map((tok) => {
    const dash = tok.indexOf('-');
    if (dash < 0) {
      const p = parsePortNumber(tok);
      if (p === undefined) r.fail(`${key} entry "${tok}" is not a port 0..65535`);
      return { first: p, last: p };
    }
    const first = parsePortNumber(tok.slice(0, dash).trim());
    const last = parsePortNumber(tok.slice(dash + 1).trim());
    if (first === undefined || last === undefined || first > last) {
      r.fail(`${key} entry "${tok}" is not a port range first-last`);
    }
    return { first, last };
  });
}

/** Protocol number meaning "any" in HNS ACLs (Calico, NPM: "HNS thinks 256 as ANY"). */
export const PROTOCOL_ANY = 256;
/** VXLAN pseudo-protocol in ACLs, HNS ≥ 11.0 (`AclSupportForProtocol252`). */
export const PROTOCOL_VXLAN = 252;

/**
 * `Protocols`: comma list of IP protocol numbers 0..255, or 256 = any. Returns the set, sorted and
 * de-duplicated; [] means any protocol. 252 needs HNS ≥ 11.0.
 */
export function parseProtocolList(
  r: Reader,
  key: string,
  text: string | undefined,
  ctx: PolicyContext,
): number[] {
  if (text === undefined) return [];
  const set = new Set<number>();
  for (const tok of tokens(r, key, text)) {
    if (!DECIMAL_RE.test(tok) || Number(tok) > PROTOCOL_ANY) {
      r.fail(`${key} entry "${tok}" is not a protocol number 0..256`);
    }
    const n = Number(tok);
    if (n === PROTOCOL_VXLAN && !supports(ctx.version, 'AclSupportForProtocol252')) {
      r.fail(`${key} protocol 252 needs HNS 11.0 or later`);
    }
    if (n === PROTOCOL_ANY) return [];
    set.add(n);
  }
  return [...set].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------
// Canonical text for keys (no bigint ever reaches JSON.stringify)

export function canonicalAddressMatch(m: AddressMatch): string {
  const p = m.prefixes.map(formatPrefix).sort();
  const s = [...m.setIds].sort();
  return [...p, ...s].join(',');
}

export function canonicalPorts(ranges: readonly PortRange[]): string {
  return ranges
    .map((x) => (x.first === x.last ? `${x.first}` : `${x.first}-${x.last}`))
    .sort()
    .join(',');
}

export function canonicalPrefixes(prefixes: readonly Prefix[]): string {
  return prefixes.map(formatPrefix).join(',');
}

// ---------------------------------------------------------------------------------------------
// Output helpers: Go `omitempty` semantics for the fields hcsshim marks so.

export function putStr(out: JsonObject, key: string, v: string | undefined): void {
  if (v !== undefined && v !== '') out[key] = v;
}

export function putNum(out: JsonObject, key: string, v: number): void {
  if (v !== 0) out[key] = v;
}

export function putBool(out: JsonObject, key: string, v: boolean): void {
  if (v) out[key] = true;
}

export function putList(out: JsonObject, key: string, v: readonly string[]): void {
  if (v.length > 0) out[key] = [...v];
}

/** A deep copy of an opaque JSON object, with keys sorted, for modules that do not interpret it. */
export function canonicalJson(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonicalJson);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) {
      // defineProperty, so a "__proto__" key stays a plain own property
      Object.defineProperty(out, k, {
        value: canonicalJson(v[k]!),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  if (typeof v === 'number' && Object.is(v, -0)) return 0;
  return v;
}
