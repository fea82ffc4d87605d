/**
 * Go's `net.HardwareAddr` (reference cni-windows.md §4, §5.3): `net.ParseMAC` for the notations Go
 * reads, `HardwareAddr.String()`, and the `*net.AddrError` text of a bad address. Used by WCN's
 * endpoint MACs and flanneld's VXLAN backend.
 */
import { hexVal } from './gostrconv.js';

/** `xtoi2(s, e)`: two hex digits, then `e` (or the end). */
function xtoi2(s: string, e: string): number | undefined {
  if (s.length > 2 && s[2] !== e) return undefined;
  if (s.length < 2) return undefined;
  const hi = hexVal(s.charCodeAt(0));
  const lo = hexVal(s.charCodeAt(1));
  if (hi < 0 || lo < 0) return undefined;
  return hi * 16 + lo;
}

/** The text of Go's `*net.AddrError` for a bad MAC. */
export function macError(s: string): string {
  return s === '' ? 'invalid MAC address' : `address ${s}: invalid MAC address`;
}

/**
 * `net.ParseMAC`: IEEE 802 MAC-48, EUI-48, EUI-64 or 20-octet InfiniBand addresses, with `:` or
 * `-` between octets or `.` between groups of four digits. Undefined where Go errors.
 */
export function parseMAC(s: string): Uint8Array | undefined {
  if (s.length < 14) return undefined;
  if (s[2] === ':' || s[2] === '-') {
    if ((s.length + 1) % 3 !== 0) return undefined;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return undefined;
    const hw = new Uint8Array(n);
    for (let x = 0, i = 0; i < n; i++, x += 3) {
      const b = xtoi2(s.slice(x), s[2]);
      if (b === undefined) return undefined;
      hw[i] = b;
    }
    return hw;
  }
  if (s[4] === '.') {
    if ((s.length + 1) % 5 !== 0) return undefined;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return undefined;
    const hw = new Uint8Array(n);
    for (let x = 0, i = 0; i < n; i += 2, x += 5) {
      const a = xtoi2(s.slice(x, x + 2), '\0');
      const b = xtoi2(s.slice(x + 2), s[4]);
      if (a === undefined || b === undefined) return undefined;
      hw[i] = a;
      hw[i + 1] = b;
    }
    return hw;
  }
  return undefined;
}

/** `net.HardwareAddr.String()`: lower-case hex octets joined by `:` (empty for none). */
export function macString(hw: Uint8Array | undefined): string {
  if (!hw) return '';
  return [...hw].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/**
 * `fmt.Sprintf("%v-%02x-%02x-%02x-%02x", prefix, ip[0], ip[1], ip[2], ip[3])`: the MAC the Windows
 * agents make up from an IPv4 address (flannel's and kube-proxy's `conjureMac`, win-overlay's
 * endpoint MAC): the prefix as given, then the octets in lower-case hex.
 */
export function conjureMac(prefix: string, ip: number): string {
  const o = [(ip >>> 24) & 255, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255];
  return `${prefix}-${o.map((b) => b.toString(16).padStart(2, '0')).join('-')}`;
}
