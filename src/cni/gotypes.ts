/**
 * The Go structs of containernetworking/cni `pkg/types` (v1.3.0, reference cni-windows.md §1.4) as
 * `encoding/json` decodes them, once for libcni and every plugin: a config's `types.PluginConf`
 * (alias `types.NetConf`) with its `types.IPAM`, `types.DNS` and `types.GCAttachment`, and the
 * `types.route` a result's or an IPAM config's `types.Route` decodes through. A plugin
 * whose own `NetConf` embeds it promotes these fields (`embedded`), and its Go type names (which
 * `UnmarshalTypeError` prints) come from here.
 */
import {
  field,
  goAny,
  goBool,
  goInt,
  goMap,
  goPtr,
  goSlice,
  goString,
  goStruct,
  type GoField,
  type GoStruct,
  type GoType,
} from './godecode.js';

/** `types.DNS`. */
export const TYPES_DNS = goStruct('types.DNS', [
  field('nameservers', goSlice(goString)),
  field('domain', goString),
  field('search', goSlice(goString)),
  field('options', goSlice(goString)),
]);

/** `types.IPAM`: the `type` of the IPAM plugin (the rest of the object is the plugin's). */
export const TYPES_IPAM = goStruct('types.IPAM', [field('type', goString)]);

/** `types.GCAttachment`. */
export const TYPES_GC_ATTACHMENT = goStruct('types.GCAttachment', [
  field('containerID', goString),
  field('ifname', goString),
]);

/** The fields of `types.PluginConf`, in declaration order. */
export const PLUGIN_CONF_FIELDS: readonly GoField[] = [
  field('cniVersion', goString),
  field('name', goString),
  field('type', goString),
  field('capabilities', goMap(goBool)),
  field('ipam', TYPES_IPAM),
  field('dns', TYPES_DNS),
  field('prevResult', goMap(goAny)),
  field('cni.dev/valid-attachments', goSlice(TYPES_GC_ATTACHMENT)),
];

/** `types.PluginConf`: the fields libcni itself reads (everything else stays in the bytes). */
export const TYPES_PLUGIN_CONF = goStruct('types.PluginConf', PLUGIN_CONF_FIELDS);

/**
 * `types.route`, the struct `types.Route.UnmarshalJSON` decodes into (cni v1.2+: with mtu, advmss,
 * priority, table and scope); `dst` and `gw` are the reader's `types.IPNet` and `net.IP`.
 */
export function typesRouteStruct(dst: GoType, gw: GoType): GoStruct {
  return goStruct('types.route', [
    field('dst', dst),
    field('gw', gw),
    field('mtu', goInt),
    field('advmss', goInt),
    field('priority', goInt),
    field('table', goPtr(goInt)),
    field('scope', goPtr(goInt)),
  ]);
}
