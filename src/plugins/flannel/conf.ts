/**
 * The flannel CNI plugin's network configuration (`NetConf` and `loadFlannelNetConf` in
 * flannel-io/cni-plugin @ 092e6d26 `flannel.go`; reference cni-windows.md §5.1): libcni's
 * `types.NetConf` embedded, its `ipam` shadowed by a free-form map, plus `subnetFile` (default
 * /run/flannel/subnet.env), `dataDir` (default /var/lib/cni/flannel), `delegate` and
 * `runtimeConfig`, decoded with Go's `encoding/json` rules and error texts.
 */
import {
  embedded,
  field,
  goAny,
  goMap,
  goString,
  goStruct,
  goUnmarshal,
  type GoType,
} from '../../cni/gojson.js';
import { PLUGIN_CONF_FIELDS } from '../../cni/gotypes.js';
import type { Json, JsonObject } from '../../core/json.js';

export const DEFAULT_SUBNET_FILE = '/run/flannel/subnet.env';
export const DEFAULT_DATA_DIR = '/var/lib/cni/flannel';

/**
 * flannel's `main.NetConf`: libcni's `types.NetConf` embedded (Go ≥ 1.24 — flannel builds with Go
 * 1.24.3, `scripts/version.sh` — names it in a field path: `Go struct field NetConf.NetConf.type`),
 * its `ipam` shadowed by flannel's own free-form map, then flannel's fields.
 */
const NET_CONF: GoType = goStruct('main.NetConf', [
  ...embedded(
    ['NetConf'],
    PLUGIN_CONF_FIELDS.filter((f) => f.json !== 'ipam'),
  ),
  field('ipam', goMap(goAny)),
  field('subnetFile', goString),
  field('dataDir', goString),
  field('delegate', goMap(goAny)),
  field('runtimeConfig', goMap(goAny)),
]);

/** libcni's `types.NetConf`, as flannel's DEL reads the saved delegate config back. */
const TYPES_NET_CONF: GoType = goStruct('types.NetConf', PLUGIN_CONF_FIELDS);

/** The parts of the decoded config flannel uses (Go zero values where the input set nothing). */
export interface FlannelNetConf {
  readonly cniVersion: string;
  readonly name: string;
  readonly type: string;
  readonly subnetFile: string;
  readonly dataDir: string;
  /** `nil` (undefined) when absent or `null`. */
  readonly delegate: JsonObject | undefined;
  readonly runtimeConfig: JsonObject | undefined;
  readonly ipam: JsonObject | undefined;
}

/**
 * `loadFlannelNetConf(bytes)`: defaults, then `json.Unmarshal` over them (a JSON `null` leaves a
 * default in place). Errors read `failed to load netconf: <Go's json error>`.
 */
export function loadFlannelNetConf(bytes: Uint8Array | string): FlannelNetConf {
  let doc: Record<string, unknown>;
  try {
    doc = (goUnmarshal(bytes, NET_CONF) ?? {}) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`failed to load netconf: ${(e as Error).message}`);
  }
  const str = (k: string, dflt = ''): string => (typeof doc[k] === 'string' ? (doc[k] as string) : dflt);
  const obj = (k: string): JsonObject | undefined => (doc[k] as JsonObject | undefined) ?? undefined;
  return {
    cniVersion: str('cniVersion'),
    name: str('name'),
    type: str('type'),
    subnetFile: str('subnetFile', DEFAULT_SUBNET_FILE),
    dataDir: str('dataDir', DEFAULT_DATA_DIR),
    delegate: obj('delegate'),
    runtimeConfig: obj('runtimeConfig'),
    ipam: obj('ipam'),
  };
}

/** `json.Unmarshal(netConfBytes, &types.NetConf{})` on a saved delegate config: its `type`. */
export function savedDelegateType(bytes: string): string {
  const doc = (goUnmarshal(bytes, TYPES_NET_CONF) ?? {}) as Record<string, Json | undefined>;
  const t = doc['type'];
  return typeof t === 'string' ? t : '';
}
