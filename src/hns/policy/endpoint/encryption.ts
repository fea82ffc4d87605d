/**
 * `Encryption` endpoint policy (HNS schema 2.1, no hcsshim struct; reference hns-hcs.md §2.2):
 * IPsec between two endpoint sets, authenticated by pre-shared key or certificate. Fields follow
 * HNS_Schema `EncryptionPolicySetting`; empty fields are omitted on output (our choice).
 */
import type { Prefix } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import {
  canonicalPorts,
  canonicalPrefixes,
  optString,
  parsePortList,
  parseProtocolList,
  prefixList,
  putList,
  putStr,
  requiredString,
  stringList,
  type PortRange,
} from '../fields.js';
import type { PolicyContext } from '../contracts.js';

export const ENCRYPTION_METHODS = ['Ipsec'] as const;
export const AUTHENTICATION_TYPES = ['PresharedKey', 'Certificate'] as const;
export type AuthenticationType = (typeof AUTHENTICATION_TYPES)[number];

export interface AuthenticationMethodSettings {
  readonly type: AuthenticationType;
  /** PresharedKey: `Key`; Certificate: `CertificateName`. */
  readonly secret: string;
}

export interface EncryptionSettings {
  /** As written; the only method is `Ipsec`. */
  readonly encryptionMethodType: 'Ipsec' | undefined;
  /** In priority order; at least one (our choice). */
  readonly authenticationMethods: readonly AuthenticationMethodSettings[];
  readonly name: string | undefined;
  /** As written and parsed; empty = any. */
  readonly endpoints1: readonly string[];
  readonly endpoints1Prefixes: readonly Prefix[];
  readonly endpoints2: readonly string[];
  readonly endpoints2Prefixes: readonly Prefix[];
  /** As written (protocol numbers); [] in `protocolSet` = any. */
  readonly protocolType: string | undefined;
  readonly protocolSet: readonly number[];
  readonly endpoint1Ports: readonly string[];
  readonly endpoint1PortRanges: readonly PortRange[];
  readonly endpoint2Ports: readonly string[];
  readonly endpoint2PortRanges: readonly PortRange[];
}

function parseAuth(r: Reader): AuthenticationMethodSettings {
  const type = r.optEnum('Type', AUTHENTICATION_TYPES);
  if (type === undefined) r.fail('Type is required (PresharedKey or Certificate)');
  const settings = r.optObj('Settings');
  if (!settings) r.fail('Settings is required');
  const secret = requiredString(settings, type === 'PresharedKey' ? 'Key' : 'CertificateName');
  return { type, secret };
}

function ports(r: Reader, key: string, items: readonly string[]): PortRange[] {
  return items.flatMap((p, i) => parsePortList(r, `${key}[${i}]`, p));
}

function parse(r: Reader, ctx: PolicyContext): EncryptionSettings {
  const encryptionMethodType = r.optEnum('EncryptionMethodType', ENCRYPTION_METHODS);
  const authenticationMethods = r.objs('AuthenticationMethods').map(parseAuth);
  if (authenticationMethods.length === 0) r.fail('AuthenticationMethods needs at least one method');
  const endpoints1 = stringList(r, 'Endpoints1');
  const endpoints2 = stringList(r, 'Endpoints2');
  const protocolType = optString(r, 'ProtocolType');
  const endpoint1Ports = stringList(r, 'Endpoint1Ports');
  const endpoint2Ports = stringList(r, 'Endpoint2Ports');
  return {
    encryptionMethodType,
    authenticationMethods,
    name: optString(r, 'Name'),
    endpoints1,
    endpoints1Prefixes: prefixList(r, 'Endpoints1', endpoints1),
    endpoints2,
    endpoints2Prefixes: prefixList(r, 'Endpoints2', endpoints2),
    protocolType,
    protocolSet: parseProtocolList(r, 'ProtocolType', protocolType, ctx),
    endpoint1Ports,
    endpoint1PortRanges: ports(r, 'Endpoint1Ports', endpoint1Ports),
    endpoint2Ports,
    endpoint2PortRanges: ports(r, 'Endpoint2Ports', endpoint2Ports),
  };
}

function serialize(s: EncryptionSettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'EncryptionMethodType', s.encryptionMethodType);
  out['AuthenticationMethods'] = s.authenticationMethods.map((a): JsonObject => ({
    Type: a.type,
    Settings: a.type === 'PresharedKey' ? { Key: a.secret } : { CertificateName: a.secret },
  }));
  putStr(out, 'Name', s.name);
  putList(out, 'Endpoints1', s.endpoints1);
  putList(out, 'Endpoints2', s.endpoints2);
  putStr(out, 'ProtocolType', s.protocolType);
  putList(out, 'Endpoint1Ports', s.endpoint1Ports);
  putList(out, 'Endpoint2Ports', s.endpoint2Ports);
  return out;
}

export const encryptionPolicy: PolicyModule<EncryptionSettings> = {
  type: 'Encryption',
  scopes: ['endpoint'],
  parse,
  serialize,
  key: (s) =>
    [
      s.name ?? '',
      s.authenticationMethods.map((a) => `${a.type}:${a.secret}`).join(','),
      canonicalPrefixes(s.endpoints1Prefixes),
      canonicalPrefixes(s.endpoints2Prefixes),
      s.protocolSet.join(','),
      canonicalPorts(s.endpoint1PortRanges),
      canonicalPorts(s.endpoint2PortRanges),
    ].join('|'),
};
