/**
 * Port rule listings in the shape of `vfpctrl /port <id> /list-rule` (data: src/vswitch/rules.ts).
 * The shape follows vfpctrl output quoted in public sources:
 *
 *   - mrolmedo/rke2windows `README.md` (vfpctrl /port … /layer ACL_ENDPOINT_LAYER /list-rule on a
 *     Calico pod): ` ITEM LIST` over `===========`; `GROUP : …` blocks with `Friendly name`,
 *     `Priority`, `Direction : IN`, `Type : IPv4`, `Conditions:` / `<none>`, `Match type :
 *     Priority-based match`; `RULE : …` blocks with `Friendly name`, `Priority : 900`, `Flags : 8195
 *     terminating stateful`, `Type : allow`, `Conditions:` / `Source IP : 10.156.233.218` (an In
 *     rule's RemoteAddresses), `Flow TTL: 240`, `FlagsEx : 0`;
 *   - projectcalico/calico#5800 (via reference vfp-dataplane.md §2.1): `Destination ports :
 *     3000-3000`;
 *   - microsoft/SDN `Kubernetes/windows/debug/networkhealth.ps1` and TroubleShootContainerNetworking
 *     (`LAYER :` / `GROUP :` lines of /list-layer and /list-group; conditions Protocols, Source IP,
 *     Source ports, Destination IP, Destination ports; rule types dynnat, lbnat);
 *   - microsoft/SdnDiagnostics `Get-VfpPortRule` (its vfpctrl parser: `Encap Destination(s):` with
 *     `{key=value, …}`, `Rule Data:`, `Modify:`, the closing `Command list-rule succeeded!`) and its
 *     VfpLayer (Layer, Flags, Priority) and VfpGroup (Group, Direction, Type, MatchType) classes.
 *
 * Ours, where no source shows the text: the `PORT :` header, layer `Flags : stateful|stateless`
 * (vfpctrl's /add-layer words), rule flags by name only (8195's other bits are undocumented), the
 * `NOT` of OutBoundNAT exceptions, and `Key : value` lines for what a rule does.
 *
 *   console.log(renderPortRules(listPortRules(host.dataplane.view(), 'pod-a')));
 */
import type {
  GroupDirection,
  PortGroup,
  PortLayer,
  PortRule,
  PortRules,
  RuleConditions,
} from '../vswitch/rules.js';
import type { RenderOptions } from './table.js';

const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

/** Conditions as vfpctrl names them: Source/Destination by the group's direction. */
function conditionLines(c: RuleConditions, dir: GroupDirection): string[] {
  const inbound = dir === 'IN';
  const srcIp = inbound ? c.remoteAddresses : c.localAddresses;
  const dstIp = inbound ? c.localAddresses : c.remoteAddresses;
  const srcPorts = inbound ? c.remotePorts : c.localPorts;
  const dstPorts = inbound ? c.localPorts : c.remotePorts;
  const out: string[] = [];
  if (c.protocols !== undefined) out.push(`Protocols : ${c.protocols}`);
  if (srcIp !== undefined) out.push(`Source IP : ${srcIp || '(no IPv4 address)'}`);
  if (srcPorts !== undefined) out.push(`Source ports : ${srcPorts}`);
  if (dstIp !== undefined) out.push(`Destination IP : ${dstIp || '(no IPv4 address)'}`);
  if (c.remoteAddressesNotIn !== undefined)
    out.push(`${inbound ? 'Source' : 'Destination'} IP : NOT ${c.remoteAddressesNotIn}`);
  if (c.destinationPrefix !== undefined) out.push(`Destination IP : ${c.destinationPrefix}`);
  if (dstPorts !== undefined) out.push(`Destination ports : ${dstPorts}`);
  return out;
}

const ENCAP_KEYS: Record<string, string> = { PA: 'DestinationIP', VNI: 'VNI', 'DR MAC': 'DestinationMAC' };

function ruleBlock(r: PortRule, dir: GroupDirection, head: (s: string) => string): string[] {
  const pad = ' '.repeat(8);
  const lines = [
    head(`    RULE : ${r.name}`),
    `${pad}Friendly name : ${r.name}${r.implicit ? ' (implicit)' : ''}`,
    `${pad}Priority : ${r.priority}`,
    `${pad}Flags : ${r.flags.length ? r.flags.join(' ') : 'none'}`,
    `${pad}Type : ${r.type}`,
    `${pad}Conditions:`,
  ];
  const conds = conditionLines(r.conditions, dir);
  for (const c of conds.length ? conds : ['<none>']) lines.push(`${pad}    ${c}`);
  if (r.flowTtl !== undefined) lines.push(`${pad}Flow TTL: ${r.flowTtl}`);
  if (r.action === 'Encap') {
    const dest = Object.entries(ENCAP_KEYS)
      .filter(([k]) => r.data[k] !== undefined)
      .map(([k, name]) => `${name}=${r.data[k]}`)
      .join(', ');
    if (r.data['Encap type']) lines.push(`${pad}Encap type : ${r.data['Encap type']}`);
    lines.push(`${pad}Encap Destination(s):`, `${pad}    {${dest}}`);
    for (const [k, v] of Object.entries(r.data))
      if (!(k in ENCAP_KEYS) && k !== 'Encap type') lines.push(`${pad}${k} : ${v}`);
  } else {
    for (const [k, v] of Object.entries(r.data)) lines.push(`${pad}${k} : ${v}`);
  }
  lines.push(`${pad}FlagsEx : 0`, '');
  return lines;
}

function groupBlock(g: PortGroup, head: (s: string) => string): string[] {
  const pad = ' '.repeat(6);
  const lines = [
    head(`  GROUP : ${g.name}`),
    `${pad}Friendly name : ${g.name}`,
    `${pad}Priority : ${g.priority}`,
    `${pad}Direction : ${g.direction}`,
    `${pad}Type : IPv4`,
    `${pad}  Conditions:`,
    `${pad}      <none>`,
    `${pad}Match type : ${g.matchType}`,
    '',
  ];
  for (const r of g.rules) lines.push(...ruleBlock(r, g.direction, head));
  return lines;
}

function layerBlock(l: PortLayer, head: (s: string) => string): string[] {
  const pad = ' '.repeat(4);
  const lines = [
    head(`LAYER : ${l.name}`),
    `${pad}Friendly name : ${l.vfp ? l.name : 'Windows Filtering Platform (Host ACL rules; not a VFP layer)'}`,
    `${pad}Flags : ${l.stateful ? 'stateful' : 'stateless'}`,
    `${pad}Priority : ${l.priority}`,
    '',
  ];
  for (const g of l.groups) lines.push(...groupBlock(g, head));
  return lines;
}

/**
 * One port's listing (or several, one after another: listHostRules' host vNICs and uplink), as
 * vfpctrl prints `/port <id> /list-rule`. Bold LAYER/GROUP/RULE lines only with `color`.
 */
export function renderPortRules(rules: PortRules | readonly PortRules[], opts: RenderOptions = {}): string {
  const list: readonly PortRules[] = Array.isArray(rules) ? rules : [rules as PortRules];
  const head = (s: string) => (opts.color ? BOLD + s + RESET : s);
  const out: string[] = [];
  for (const r of list) {
    const p = r.port;
    out.push(head(`PORT : ${p.id}`), `    Friendly name : ${p.name || p.id}`, `    Kind : ${p.kind}`);
    if (p.network) out.push(`    Network : ${p.network.name || p.network.id} (${p.network.type})`);
    if (p.mac) out.push(`    MAC address : ${p.mac}`);
    if (p.ip) out.push(`    IP address : ${p.ip}`);
    out.push('', ' ITEM LIST', '===========', '');
    if (r.forwarding) {
      const f = r.forwarding;
      out.push(
        '  (remote endpoint: no VFP port; the local ports of its overlay network encapsulate to it)',
        `    Provider address : ${f.providerAddress}`,
        `    VNI : ${f.vni}`,
        `    Encap rule : ${f.rule}`,
        '',
      );
    } else if (!r.layers.length) {
      out.push('  <none>', '');
    }
    for (const l of r.layers) out.push(...layerBlock(l, head));
    out.push('Command list-rule succeeded!', '');
  }
  return out.join('\n').replace(/\n+$/, '\n');
}
