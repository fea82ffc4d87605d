/**
 * How windows-container-networking prints its result (`res.GetAsVersion(cniVersion)` then
 * `result.Print()`, libcni v1.1.2 `pkg/types/{020,040,100}` built with Go 1.21; reference
 * cni-windows.md §4.3 "Result"): `json.MarshalIndent(r, "", "    ")` of the struct at the config's
 * version — 1.0.0 in `types100` field order with `"dns": {}` (v1.1.2 has no map round-trip), 0.3.0 /
 * 0.4.0 with `ips[].version` from the address family, 0.2.0 as `ip4`/`ip6`. The MAC is Go's
 * `string(net.HardwareAddr)`: six raw bytes, escaped as `encoding/json` escapes them.
 */
import { goIndent } from '../../cni/gojson.js';
import { goIPString, goNetString } from './gonet.js';
import type { WcnResult } from './cni.js';

const HEX = '0123456789abcdef';

/**
 * Go 1.21 `encoding/json` string encoding of raw bytes (HTML-safe): `\"`, `\\`, `\n`, `\r`, `\t`,
 * other control bytes as `\u00XX`, `<`, `>`, `&`, U+2028 and U+2029 as `\uXXXX`, and every byte of
 * an invalid UTF-8 sequence as the six characters `\ufffd`.
 */
export function goQuoteBytes(bytes: Uint8Array): string {
  const text = Buffer.from(bytes);
  let out = '"';
  let i = 0;
  while (i < text.length) {
    const b = text[i]!;
    if (b < 0x80) {
      if (b === 0x22) out += '\\"';
      else if (b === 0x5c) out += '\\\\';
      else if (b === 0x0a) out += '\\n';
      else if (b === 0x0d) out += '\\r';
      else if (b === 0x09) out += '\\t';
      else if (b < 0x20 || b === 0x3c || b === 0x3e || b === 0x26) out += `\\u00${HEX[b >> 4]}${HEX[b & 15]}`;
      else out += String.fromCharCode(b);
      i++;
      continue;
    }
    const size = utf8Size(text, i);
    if (size === 0) {
      out += '\\ufffd';
      i++;
      continue;
    }
    const ch = text.subarray(i, i + size).toString('utf8');
    const cp = ch.codePointAt(0)!;
    out += cp === 0x2028 || cp === 0x2029 ? `\\u${cp.toString(16)}` : ch;
    i += size;
  }
  return `${out}"`;
}

/** The length of the valid UTF-8 sequence at `i` (`utf8.DecodeRune` rules), or 0 if invalid. */
function utf8Size(b: Uint8Array, i: number): number {
  const b0 = b[i]!;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const x = b[i + k];
    return x !== undefined && x >= lo && x <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

const q = (s: string): string => goQuoteBytes(Buffer.from(s, 'utf8'));

/** `ip.Address.IP.To4() != nil ? "4" : "6"` (libcni's 1.0.0 → 0.4.0 conversion). */
const family = (ip: WcnResult['ips'][number]): '4' | '6' => (ip.address.ip?.family === 4 ? '4' : '6');

function interfacesText(r: WcnResult): string {
  return r.interfaces
    .map((i) => {
      const mac = i.mac && i.mac.length > 0 ? `,"mac":${goQuoteBytes(i.mac)}` : '';
      return `{"name":${q(i.name)}${mac}}`;
    })
    .join(',');
}

function gatewayText(ip: WcnResult['ips'][number]): string {
  return ip.gateway ? `,"gateway":${q(goIPString(ip.gateway))}` : '';
}

/**
 * The text WCN prints for `version` (one of its supported versions). Throws Go's conversion error
 * (`cannot convert: no valid IP addresses`) when a 0.2.0 result would have no address.
 */
export function wcnResultText(r: WcnResult, version: string): string {
  let compact: string;
  if (version === '1.0.0' || version === '0.3.0' || version === '0.3.1' || version === '0.4.0') {
    // 0.3.x / 0.4.0 add each address's `version`; otherwise the two layouts are the same
    const versionText = (ip: WcnResult['ips'][number]): string =>
      version === '1.0.0' ? '' : `"version":"${family(ip)}",`;
    const ips = r.ips.map(
      (ip) => `{${versionText(ip)}"interface":0,"address":${q(goNetString(ip.address))}${gatewayText(ip)}}`,
    );
    compact =
      `{"cniVersion":${q(version)}` +
      (r.interfaces.length ? `,"interfaces":[${interfacesText(r)}]` : '') +
      (ips.length ? `,"ips":[${ips.join(',')}]` : '') +
      `,"dns":{}}`;
  } else {
    const ip4 = r.ips.find((ip) => family(ip) === '4');
    const ip6 = r.ips.find((ip) => family(ip) === '6');
    if (!ip4 && !ip6) throw new Error('cannot convert: no valid IP addresses');
    const ipc = (ip: WcnResult['ips'][number]): string =>
      `{"ip":${q(goNetString(ip.address))}${gatewayText(ip)}}`;
    compact =
      `{"cniVersion":${q(version)}` +
      (ip4 ? `,"ip4":${ipc(ip4)}` : '') +
      (ip6 ? `,"ip6":${ipc(ip6)}` : '') +
      `,"dns":{}}`;
  }
  return goIndent(compact);
}
