/**
 * HostComputeRoute (SDN route) documents (reference hns-hcs.md §1.5). hcsshim reads and writes the
 * settings under `Setting`; the official schema and microsoft/SDN use `Routes`. Both are accepted;
 * `Setting` is emitted.
 */
import { hnsError } from '../../core/errors.js';
import { parseGuid } from '../../core/guid.js';
import { Reader, type JsonObject } from '../../core/json.js';
import { parseIp, parsePrefix } from '../../addr/ip.js';
import type { SchemaVersion, SdnRouteRec, SdnRouteSettingRec } from '../model.js';
import { readGuid, readSchemaVersion, writeSchemaVersion } from './common.js';

export interface SdnRouteDraft {
  readonly givenId?: string;
  readonly HostComputeEndpoints: readonly string[];
  readonly Setting: readonly SdnRouteSettingRec[];
  readonly SchemaVersion: SchemaVersion;
  readonly HostComputeNetwork?: string;
}

export function parseSdnRoute(doc: JsonObject): SdnRouteDraft {
  const r = new Reader(doc, 'HCN_E_INVALID_JSON');
  const givenId = readGuid(r, 'ID');
  const HostComputeEndpoints = r.strs('HostComputeEndpoints').map((s) => {
    const g = parseGuid(s);
    if (!g) throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', `HostComputeEndpoints "${s}"`);
    return g;
  });
  if (r.has('Setting') && r.has('Routes')) throw r.err('give either Setting or Routes, not both');
  const key = r.has('Routes') ? 'Routes' : 'Setting';
  const Setting = r.objs(key, 'HCN_E_INVALID_POLICY').map((s) => {
    const DestinationPrefix = s.optStr('DestinationPrefix') ?? '';
    const NextHop = s.optStr('NextHop') ?? '';
    const dest = parsePrefix(DestinationPrefix);
    if (!dest) throw hnsError('HCN_E_INVALID_PREFIX', `${s.path}.DestinationPrefix "${DestinationPrefix}"`);
    if (NextHop) {
      const nh = parseIp(NextHop);
      if (!nh) throw hnsError('HCN_E_INVALID_IP', `${s.path}.NextHop "${NextHop}"`);
      if (nh.family !== dest.family) throw s.err('NextHop and DestinationPrefix families differ');
    }
    return {
      DestinationPrefix,
      NextHop,
      NeedEncap: s.optBool('NeedEncap') ?? false,
      AutomaticEndpointMonitor: s.optBool('AutomaticEndpointMonitor') ?? false,
    };
  });
  const HostComputeNetwork = readGuid(r, 'HostComputeNetwork');
  return {
    ...(givenId ? { givenId } : {}),
    HostComputeEndpoints,
    Setting,
    SchemaVersion: readSchemaVersion(r),
    ...(HostComputeNetwork ? { HostComputeNetwork } : {}),
  };
}

export function serializeSdnRoute(rt: SdnRouteRec): JsonObject {
  const out: JsonObject = { ID: rt.ID };
  if (rt.HostComputeEndpoints.length) out.HostComputeEndpoints = [...rt.HostComputeEndpoints];
  if (rt.Setting.length) {
    out.Setting = rt.Setting.map((s) => {
      const o: JsonObject = {
        DestinationPrefix: s.DestinationPrefix,
        NextHop: s.NextHop,
        NeedEncap: s.NeedEncap,
      };
      if (s.AutomaticEndpointMonitor) o.AutomaticEndpointMonitor = true;
      return o;
    });
  }
  out.SchemaVersion = writeSchemaVersion(rt.SchemaVersion);
  if (rt.HostComputeNetwork) out.HostComputeNetwork = rt.HostComputeNetwork;
  return out;
}
