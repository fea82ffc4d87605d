/**
 * `ProviderAddress` policy, network and endpoint scope (reference hns-hcs.md §2.1, §2.2): on a
 * network it binds the network to the adapter with that IP; on an (often remote) endpoint it is
 * the PA (underlay node IP) used for VXLAN encapsulation (vfp-dataplane.md §4, §5). One per object.
 */
import { formatIp, type IpAddr } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { requiredIp } from '../fields.js';

export interface ProviderAddressSettings {
  readonly providerAddress: string;
  readonly address: IpAddr;
}

function parse(r: Reader): ProviderAddressSettings {
  const pa = requiredIp(r, 'ProviderAddress');
  return { providerAddress: pa.text, address: pa.addr };
}

export const providerAddressPolicy: PolicyModule<ProviderAddressSettings> = {
  type: 'ProviderAddress',
  scopes: ['network', 'endpoint'],
  multiple: false,
  parse,
  serialize: (s): JsonObject => ({ ProviderAddress: s.providerAddress }),
  key: (s) => formatIp(s.address),
};
