/**
 * `NeighborDiscovery` network policy (microsoft/SDN `hns.v2.psm1` only; not in hcsshim or the
 * schema; reference hns-hcs.md §2.1): answer neighbor discovery for `TargetIpPrefix` from
 * `SenderIpAddress` / `SenderMacAddress`. An empty SenderMacAddress is omitted (our choice).
 */
import { formatIp, formatPrefix, type IpAddr, type Prefix } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { canonicalMac, optMac, putStr, requiredIp, requiredPrefix } from '../fields.js';

export interface NeighborDiscoverySettings {
  readonly targetIpPrefix: string;
  readonly target: Prefix;
  readonly senderIpAddress: string;
  readonly sender: IpAddr;
  readonly senderMacAddress: string | undefined;
}

function parse(r: Reader): NeighborDiscoverySettings {
  const target = requiredPrefix(r, 'TargetIpPrefix');
  const sender = requiredIp(r, 'SenderIpAddress');
  return {
    targetIpPrefix: target.text,
    target: target.prefix,
    senderIpAddress: sender.text,
    sender: sender.addr,
    senderMacAddress: optMac(r, 'SenderMacAddress'),
  };
}

function serialize(s: NeighborDiscoverySettings): JsonObject {
  const out: JsonObject = { TargetIpPrefix: s.targetIpPrefix, SenderIpAddress: s.senderIpAddress };
  putStr(out, 'SenderMacAddress', s.senderMacAddress);
  return out;
}

export const neighborDiscoveryPolicy: PolicyModule<NeighborDiscoverySettings> = {
  type: 'NeighborDiscovery',
  scopes: ['network'],
  parse,
  serialize,
  key: (s) =>
    [
      formatPrefix(s.target),
      formatIp(s.sender),
      s.senderMacAddress ? canonicalMac(s.senderMacAddress) : '',
    ].join('|'),
};
