/**
 * `L4Proxy` policy, network and endpoint scope (HNS `L4Proxy` feature: 9.5-9.x, 10.5-10.x,
 * 11.11-11.x, 12.1-12.x, ≥ 13.1): VFP redirection of traffic to IP/Port/Protocol towards a local
 * proxy `Destination` (reference hns-hcs.md §2.1, §9.5). hcsshim spells the list and flag
 * `Exceptions`/`OutboundNAT`, the schema and microsoft/SDN `ExceptionList`/`OutboundNat`; both are
 * read, hcsshim's are emitted.
 */
import { formatIp, formatPrefix, parseIp, type IpAddr, type Prefix } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import {
  canonicalPrefixes,
  optPortString,
  optString,
  prefixList,
  putBool,
  putList,
  putNum,
  putStr,
  toPrefix,
  uintField,
  UINT32_MAX,
  parsePortNumber,
  aliasedStringList,
} from '../fields.js';

/** hcsshim `ProtocolType`: Unknown 0, ICMPv4 1, IGMP 2, TCP 6, UDP 17, ICMPv6 58. */
export const L4_PROXY_PROTOCOLS: ReadonlySet<number> = new Set([0, 1, 2, 6, 17, 58]);

export interface L4ProxySettings {
  /** Matched destination (IP or prefix) as written, and parsed; undefined = any. */
  readonly ip: string | undefined;
  readonly ipPrefix: Prefix | undefined;
  /** Matched destination port as written (a string in both schema and hcsshim), and parsed. */
  readonly port: string | undefined;
  readonly portNumber: number | undefined;
  /** ProtocolType; 0 = unknown / any. */
  readonly protocol: number;
  readonly exceptions: readonly string[];
  readonly exceptionPrefixes: readonly Prefix[];
  /** Where traffic is redirected (`ip`, `ip:port`, `[v6]:port`); always serialised, "" allowed. */
  readonly destination: string;
  readonly destinationAddr: IpAddr | undefined;
  readonly destinationPort: number | undefined;
  readonly outboundNat: boolean;
}

function parseDestination(r: Reader, text: string): { addr?: IpAddr; port?: number } {
  if (text === '') return {};
  const direct = parseIp(text);
  if (direct) return { addr: direct };
  const m = /^\[([^\]]+)\]:([0-9]+)$/.exec(text) ?? /^([^:]+):([0-9]+)$/.exec(text);
  const addr = m ? parseIp(m[1]!) : undefined;
  const port = m ? parsePortNumber(m[2]!) : undefined;
  if (!addr || port === undefined) r.fail(`Destination "${text}" is not ip, ip:port or [ipv6]:port`);
  return { addr, port };
}

function readOutboundNat(r: Reader): boolean {
  const a = r.optBool('OutboundNAT');
  const b = r.optBool('OutboundNat');
  if (a !== undefined && b !== undefined && a !== b) r.fail('OutboundNAT and OutboundNat disagree');
  return a ?? b ?? false;
}

function parse(r: Reader): L4ProxySettings {
  const ip = optString(r, 'IP');
  const ipPrefix = ip === undefined ? undefined : toPrefix(ip);
  if (ip !== undefined && !ipPrefix) r.fail(`IP "${ip}" is not an IP address or prefix`);
  const port = optPortString(r, 'Port');
  const protocol = uintField(r, 'Protocol', UINT32_MAX);
  if (!L4_PROXY_PROTOCOLS.has(protocol))
    r.fail(`Protocol ${protocol} is not a ProtocolType (0, 1, 2, 6, 17, 58)`);
  const exceptions = aliasedStringList(r, 'Exceptions', 'ExceptionList');
  const destination = r.optStr('Destination') ?? '';
  const dest = parseDestination(r, destination);
  return {
    ip,
    ipPrefix,
    port: port?.text,
    portNumber: port?.port,
    protocol,
    exceptions,
    exceptionPrefixes: prefixList(r, 'Exceptions', exceptions),
    destination,
    destinationAddr: dest.addr,
    destinationPort: dest.port,
    outboundNat: readOutboundNat(r),
  };
}

/** hcsshim `L4ProxyPolicySetting` order; `Destination` has no omitempty. */
function serialize(s: L4ProxySettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'IP', s.ip);
  putStr(out, 'Port', s.port);
  putNum(out, 'Protocol', s.protocol);
  putList(out, 'Exceptions', s.exceptions);
  out['Destination'] = s.destination;
  putBool(out, 'OutboundNAT', s.outboundNat);
  return out;
}

export const l4ProxyPolicy: PolicyModule<L4ProxySettings> = {
  type: 'L4Proxy',
  scopes: ['network', 'endpoint'],
  feature: 'L4Proxy',
  parse,
  serialize,
  key: (s) =>
    [
      s.ipPrefix ? formatPrefix(s.ipPrefix) : '',
      s.portNumber ?? '',
      s.protocol,
      canonicalPrefixes(s.exceptionPrefixes),
      s.destinationAddr ? formatIp(s.destinationAddr) : '',
      s.destinationPort ?? '',
      s.outboundNat,
    ].join('|'),
};
