/**
 * The flannel CNI plugin's network configuration (`NetConf` and `loadFlannelNetConf` in
 * flannel-io/cni-plugin @ 092e6d26 `flannel.go`; reference cni-windows.md §5.1): libcni's
 * `types.NetConf` embedded, its `ipam` shadowed by a free-form map, plus `subnetFile` (default
 * /run/flannel/subnet.env), `dataDir` (default /var/lib/cni/flannel), `delegate` and
 * `runtimeConfig`, decoded with Go's `encoding/json` rules and error texts.
 */
import {
  field,
  goAny,
  goBool,
  goMap,
  goSlice,
  goString,
  goStruct,
  goUnmarshal,
  type GoType,
} from '../../cni/gojson.js';
import type { Json, JsonObject } from '../../core/json.js';

export const DEFAULT_SUBNET_FILE = '/run/flannel/subnet.env';
export const DEFAULT_DATA_DIR = '/var/lib/cni/flannel';

/** `types.DNS`. */
const DNS: GoType = goStruct('types.DNS', [
  field('nameservers', goSlice(goString)),
  field('domain', goString),
  field('search', goSlice(goString)),
  field('options', goSlice(goString)),
]);

/** `types.GCAttachment`. */
const GC_ATTACHMENT: GoType = goStruct('types.GCAttachment', [
  field('containerID', goString),
  field('ifname', goString),
]);

/** The fields of the embedded `types.NetConf` (containernetworking/cni v1.3.0 `pkg/types/types.go`). */
const EMBEDDED = [
  'cniVersion',
  'name',
  'type',
  'capabilities',
  'dns',
  'prevResult',
  'cni.dev/valid-attachments',
];

/** flannel's `main.NetConf`: the embedded fields first, then its own; its `ipam` wins over libcni's. */
const NET_CONF: GoType = goStruct('main.NetConf', [
  field('cniVersion', goString),
  field('name', goString),
  field('type', goString),
  field('capabilities', goMap(goBool)),
  field('dns', DNS),
  field('prevResult', goMap(goAny)),
  field('cni.dev/valid-attachments', goSlice(GC_ATTACHMENT)),
  field('ipam', goMap(goAny)),
  field('subnetFile', goString),
  field('dataDir', goString),
  field('delegate', goMap(goAny)),
  field('runtimeConfig', goMap(goAny)),
]);

/** libcni's `types.NetConf`, as flannel's DEL reads the saved delegate config back. */
const TYPES_NET_CONF: GoType = goStruct('types.NetConf', [
  field('cniVersion', goString),
  field('name', goString),
  field('type', goString),
  field('capabilities', goMap(goBool)),
  field('ipam', goStruct('types.IPAM', [field('type', goString)])),
  field('dns', DNS),
  field('prevResult', goMap(goAny)),
  field('cni.dev/valid-attachments', goSlice(GC_ATTACHMENT)),
]);

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
 * Go ≥ 1.24 (flannel builds with Go 1.24.3, `scripts/version.sh`) names the embedded struct in a
 * field path: `Go struct field NetConf.NetConf.type of type string`.
 */
function withEmbeddedPath(message: string): string {
  return message.replace(
    /( into Go struct field [^.\s]+\.)([^\s]+)( of type )/,
    (all, head: string, path: string, tail: string) => {
      const first = EMBEDDED.find((f) => path === f || path.startsWith(`${f}.`));
      return first ? `${head}NetConf.${path}${tail}` : all;
    },
  );
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
    throw new Error(`failed to load netconf: ${withEmbeddedPath((e as Error).message)}`);
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
