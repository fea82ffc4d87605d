/**
 * HCN networks (reference hns-hcs.md §1.1, §6.1–§6.6, §6.8): create with its subnets, MAC pool and
 * vSwitch, modify (policies, DNS, extensions, subnets), delete with its endpoints. Every operation
 * validates first and commits after, inside `hns.atomic` (DESIGN contract 2).
 *
 *   createNetwork(hns, null, { Name: 'nat', Type: 'NAT', SchemaVersion: { Major: 2, Minor: 0 } })
 */
import { hnsError } from '../core/errors.js';
import { newGuid } from '../core/guid.js';
import { Reader, type JsonObject } from '../core/json.js';
import { formatIp, prefixContains, prefixOverlaps, type IpAddr, type Prefix } from '../addr/ip.js';
import { IpPool } from '../addr/pool.js';
import { HYPERV_OUI, MacPool, defaultMacRange, formatMac } from '../addr/mac.js';
import type { MacRangeRec, NetworkAlloc, NetworkRec, RouteRec, SubnetRec, V1NetworkExtras } from './model.js';
import { subnetsOf } from './model.js';
import type { ParsedPolicy, PolicyContext } from './policy/contracts.js';
import type { SetPolicySettings } from './policy/network/set-policy.js';
import type { AclSettings } from './policy/endpoint/acl.js';
import type { TierAclSettings } from './policy/endpoint/tier-acl.js';
import type { RuleMatch } from './policy/rule-match.js';
import { parsePolicies } from './policy/registry.js';
import { argGuid, readDns } from './schema/common.js';
import { parseNetwork, parseSubnetDoc } from './schema/network.js';
import { switchRequestOf, type VSwitchRec } from './adapters.js';
import { switchExtensions, withExtension, type SwitchExtensionState } from './extensions.js';
import type { VSwitchExtensionSettings } from './policy/network/vswitch-extension.js';
import { compareVersion } from './versions.js';
import { applyPolicyRequest, readRequestType, type RequestType } from './policy-request.js';
import { removeEndpoint } from './endpoints.js';
import type { HnsService } from './service.js';

export function getNetwork(hns: HnsService, id: string): NetworkRec {
  const n = hns.store.networks.get(id);
  if (!n) throw hnsError('HCN_E_NETWORK_NOT_FOUND', id);
  return n;
}

/** Create a network; `v1Extras` are v1 fields with no v2 home (HNSCall and v1-shaped documents). */
export function createNetwork(
  hns: HnsService,
  idArg: unknown,
  doc: JsonObject,
  v1Extras?: V1NetworkExtras,
): NetworkRec {
  return hns.atomic(() => {
    const store = hns.store;
    const rng = hns.deps.rng;
    const given = argGuid(idArg);
    const draft = parseNetwork(doc, hns.hostContext);
    const key = store.nameKey(draft.Name);
    if (draft.Name !== '' && store.networkByName.has(key)) {
      throw hnsError('HCN_E_NETWORK_ALREADY_EXISTS', `"${draft.Name}"`);
    }
    let ipams = draft.Ipams;
    let defaultSubnet = false;
    if (ipams.length === 0 && draft.Type === 'NAT') {
      ipams = [{ Type: 'Static', Subnets: [chooseNatSubnet(hns)] }];
      defaultSubnet = true;
    }
    const id = hns.newId(given ?? draft.givenId, 'HCN_E_NETWORK_ALREADY_EXISTS');
    const macRanges = draft.MacRanges.length ? draft.MacRanges : [pickMacRange(hns)];
    const plan = store.nics.plan(switchRequestOf(id, { ...draft, Ipams: ipams }), rng);
    // a network on no switch: the GUID hnsim 0.1 gave it as SwitchGuid is drawn still (unused), so
    // the IDs a seed gives stay those of earlier releases
    if (!plan.switchId) newGuid(rng);
    // VSwitchExtension policies act on the switch the network is on (a new one or the one it joins)
    const target = plan.create?.sw ?? (plan.switchId ? store.nics.switches.get(plan.switchId) : undefined);
    const extensions = applyExtensionPolicies(hns, target, draft.Name || id, draft.Policies);
    const { givenId: _g, ...rest } = draft;
    const rec: NetworkRec = {
      ...rest,
      ID: id,
      Ipams: ipams,
      MacRanges: macRanges,
      // the ID of the network that made the switch (this one, for a new switch); none without one
      SwitchGuid: plan.switchId ?? '',
      LayeredOn: newGuid(rng),
      defaultSubnet,
      // HNS gives an Overlay network a distributed-router MAC (vfp-dataplane.md §5)
      ...(draft.Type === 'Overlay' ? { DrMacAddress: formatMac(drMac(hns, macRanges)) } : {}),
      ...(v1Extras ? { v1Extras } : {}),
      created: hns.deps.clock.now(),
      seq: hns.nextSeq(),
    };
    // commit
    hns.notify('NetworkPreCreate', { ID: id });
    store.nics.commit(plan, extensions);
    store.networks.set(id, rec);
    store.ids.add(id);
    if (rec.Name !== '') store.networkByName.set(key, id);
    store.alloc.set(id, freshAlloc(rec));
    hns.notify('NetworkCreate', { ID: id });
    hns.changed('Network', 'create', id, rec.Name);
    return rec;
  });
}

function freshAlloc(n: NetworkRec): NetworkAlloc {
  const subnets = subnetsOf(n);
  return {
    subnets,
    pools: subnets.map((s) => poolFor(s)),
    macs: new MacPool(n.MacRanges.map((m) => ({ start: m.start, end: m.end }))),
    claims: new Map(),
    endpoints: new Set(),
  };
}

function poolFor(s: SubnetRec): IpPool {
  const reserveGw = s.gateway && (s.Flags & 1) === 0;
  return new IpPool(s.prefix, { reserved: reserveGw && s.gateway ? [s.gateway] : [] });
}

/** HNS picks a private /20 for a NAT network created without Ipams (reference §6.6). */
function chooseNatSubnet(hns: HnsService): SubnetRec {
  const taken: Prefix[] = [];
  for (const n of hns.store.networks.values()) for (const s of subnetsOf(n)) taken.push(s.prefix);
  // 172.16.0.0/12 carved into /20s, starting at a seeded offset, like Docker's default nat (172.29.144.0/20).
  const count = 256;
  const start = hns.deps.rng.nextInt(count);
  for (let i = 0; i < count; i++) {
    const idx = (start + i) % count;
    const addr = ((172 << 24) | (16 << 16)) + idx * 4096;
    const prefix: Prefix = { family: 4, addr: addr >>> 0, len: 20 };
    if (taken.some((t) => prefixOverlaps(t, prefix))) continue;
    const gw: IpAddr = { family: 4, value: (addr + 1) >>> 0 };
    const text = `${formatIp({ family: 4, value: addr >>> 0 })}/20`;
    const route: RouteRec = {
      NextHop: formatIp(gw),
      DestinationPrefix: '0.0.0.0/0',
      dest: { family: 4, addr: 0, len: 0 },
      nextHop: gw,
    };
    return {
      ID: newGuid(hns.deps.rng),
      IpAddressPrefix: text,
      prefix,
      Policies: [],
      Routes: [route],
      Flags: 0,
      IpSubnets: [],
      gateway: gw,
    };
  }
  throw hnsError('HCN_E_SUBNET_NOT_FOUND', 'no free 172.16.0.0/12 subnet for a default NAT network');
}

/** A fresh Hyper-V MAC (00-15-5D) in no network's MacPool range. */
function drMac(hns: HnsService, own: readonly MacRangeRec[]): number {
  const ranges: { start: number; end: number }[] = [...own];
  for (const n of hns.store.networks.values()) ranges.push(...n.MacRanges);
  for (;;) {
    const mac = HYPERV_OUI * 0x1000000 + hns.deps.rng.nextInt(0x1000000);
    if (!ranges.some((r) => mac >= r.start && mac <= r.end)) return mac;
  }
}

/** The MAC pool of a network created without one: a seeded 4096-address range no network uses. */
function pickMacRange(hns: HnsService): MacRangeRec {
  const used = new Set<number>();
  for (const n of hns.store.networks.values()) for (const m of n.MacRanges) used.add(m.start);
  for (let tries = 0; tries < 64; tries++) {
    const r = defaultMacRange(hns.deps.rng);
    if (used.has(r.start)) continue;
    return {
      StartMacAddress: formatMac(r.start),
      EndMacAddress: formatMac(r.end),
      start: r.start,
      end: r.end,
    };
  }
  throw hnsError('HCN_E_INVALID_NETWORK', 'no free default MAC range');
}

/**
 * The switch extensions a network shows (v1 `Extensions`): its switch's, in HNS's order; none on a
 * network without a switch. A switch restored from an old snapshot takes its first network's type.
 */
export function networkExtensions(hns: HnsService, id: string): SwitchExtensionState[] {
  const sw = hns.store.nics.switchOf(id);
  return sw ? switchExtensions(holder(hns, sw), hns.profile.version) : [];
}

function holder(hns: HnsService, sw: VSwitchRec): VSwitchRec {
  if (sw.NetworkType) return sw;
  const first = sw.Networks[0] ? hns.store.networks.get(sw.Networks[0]) : undefined;
  return first ? { ...sw, NetworkType: first.Type } : sw;
}

/**
 * The extension states of `sw` after `entries` are applied in order, each validated by
 * `withExtension`; a network without a switch has no extension to set
 * (HCN_E_SWITCH_EXTENSION_NOT_FOUND).
 */
function extensionsAfter(
  hns: HnsService,
  sw: VSwitchRec | undefined,
  network: string,
  entries: readonly { readonly Id: string; readonly IsEnabled: boolean }[],
): NonNullable<VSwitchRec['Extensions']> {
  if (!sw) throw hnsError('HCN_E_SWITCH_EXTENSION_NOT_FOUND', `network "${network}" is on no vSwitch`);
  let cur = holder(hns, sw);
  for (const e of entries) cur = withExtension(cur, hns.profile.version, e.Id, e.IsEnabled, sw.Name);
  return cur.Extensions ?? [];
}

/**
 * The extension states of `sw` after `VSwitchExtension` policies (each enables or disables its
 * extension; all disable on a Remove); undefined when there are none.
 */
function applyExtensionPolicies(
  hns: HnsService,
  sw: VSwitchRec | undefined,
  networkName: string,
  policies: readonly ParsedPolicy[],
  remove = false,
): VSwitchRec['Extensions'] {
  const entries = policies
    .filter((p) => p.type === 'VSwitchExtension')
    .map((p) => {
      const s = p.settings as VSwitchExtensionSettings;
      return { Id: s.extensionIdCanonical, IsEnabled: remove ? false : s.enable };
    });
  return entries.length ? extensionsAfter(hns, sw, networkName, entries) : undefined;
}

/**
 * Several extension changes at once (v1 `POST /networks/<id>` `{"Extensions":[…]}`): each applied
 * in order to the switch, all validated before the switch changes; nothing changes on an error.
 */
export function setNetworkExtensions(
  hns: HnsService,
  id: string,
  entries: readonly { readonly Id: string; readonly IsEnabled: boolean }[],
): NetworkRec {
  return hns.atomic(() => {
    const n = getNetwork(hns, id);
    if (!entries.length) return n;
    const sw = hns.store.nics.switchOf(id);
    const extensions = extensionsAfter(hns, sw, n.Name || id, entries);
    hns.store.nics.setExtensions(sw!.ID, extensions);
    hns.changed('Network', 'modify', id, 'Extension Update');
    return n;
  });
}

export function modifyNetwork(hns: HnsService, id: string, doc: JsonObject): NetworkRec {
  return hns.atomic(() => {
    const n = getNetwork(hns, id);
    const sw = hns.store.nics.switchOf(id);
    let extensions: VSwitchRec['Extensions'];
    const r = new Reader(doc, 'HCN_E_INVALID_JSON');
    const resourceType = r.optStr('ResourceType') ?? '';
    const requestType = readRequestType(r);
    const settings = r.optObj('Settings') ?? new Reader({}, 'HCN_E_INVALID_JSON', '$.Settings');
    let next: NetworkRec;
    switch (resourceType) {
      case 'Policy': {
        const ctx: PolicyContext = { version: hns.profile.version, scope: 'network', networkType: n.Type };
        const policies = parsePolicies(settings.optArr('Policies'), ctx);
        next = { ...n, Policies: applyPolicyRequest(n.Policies, policies, requestType) };
        checkSetReferences(hns, n, next.Policies, policies, requestType);
        if (requestType !== 'Refresh')
          extensions = applyExtensionPolicies(hns, sw, n.Name || id, policies, requestType === 'Remove');
        break;
      }
      case 'DNS': {
        const dns = readDns(new Reader({ Dns: settings.obj }, 'HCN_E_INVALID_JSON'));
        if (requestType === 'Remove') next = { ...n, Dns: { Search: [], ServerList: [], Options: [] } };
        else if (requestType === 'Refresh') next = n;
        else next = { ...n, Dns: dns };
        break;
      }
      case 'Extension': {
        // {"Id","IsEnabled"} (hns-hcs.md §1.5): the switch's extension; Remove disables it
        const extId = argGuid(settings.optStr('Id') ?? '');
        if (!extId) throw settings.err('Id is required');
        const enabled = settings.optBool('IsEnabled') ?? false;
        const refresh = requestType === 'Refresh';
        const after = extensionsAfter(
          hns,
          sw,
          n.Name || id,
          refresh ? [] : [{ Id: extId, IsEnabled: requestType !== 'Remove' && enabled }],
        );
        if (!refresh) extensions = after;
        next = n;
        break;
      }
      case 'Subnet': {
        next = modifySubnets(hns, n, settings, requestType);
        break;
      }
      default:
        throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `network ResourceType "${resourceType}"`);
    }
    // commit
    if (extensions && sw) hns.store.nics.setExtensions(sw.ID, extensions);
    if (next !== n || extensions) {
      hns.store.networks.set(id, next);
      if (next.Ipams !== n.Ipams) resyncPools(hns, n, next);
      hns.changed('Network', 'modify', id, `${resourceType} ${requestType}`);
    }
    return next;
  });
}

/**
 * IP-set references on a network (reference vfp-dataplane.md §2.5): a NESTEDIPSET added or updated
 * must name sets that exist (HCN_E_POLICY_NOT_FOUND), and a set still named by a NESTEDIPSET, a
 * NetworkACL or an ACL/TierAcl of one of the network's endpoints cannot be removed
 * (HCN_E_ENTITY_HAS_REFERENCES). Azure NPM orders its calls so (members first; ACLs cleared
 * before sets), and ACN's own HNS fake enforces both rules.
 */
function checkSetReferences(
  hns: HnsService,
  n: NetworkRec,
  next: readonly ParsedPolicy[],
  given: readonly ParsedPolicy[],
  requestType: RequestType,
): void {
  const sets = (ps: readonly ParsedPolicy[]) =>
    ps.filter((p) => p.type === 'SetPolicy').map((p) => p.settings as SetPolicySettings);
  const nextSets = sets(next);
  if (requestType === 'Add' || requestType === 'Update') {
    const ids = new Set(nextSets.map((s) => s.id));
    for (const s of sets(given)) {
      for (const m of s.memberSetIds) {
        if (!ids.has(m))
          throw hnsError('HCN_E_POLICY_NOT_FOUND', `set ${s.id} names a missing member set ${m}`);
      }
    }
    return;
  }
  if (requestType !== 'Remove') return;
  const removed = new Set(sets(given).map((s) => s.id));
  if (!removed.size) return;
  const referrers: string[] = [];
  for (const s of nextSets) for (const m of s.memberSetIds) if (removed.has(m)) referrers.push(`set ${s.id}`);
  for (const p of next) if (p.type === 'NetworkACL' && namesSet(p, removed)) referrers.push('a NetworkACL');
  for (const epId of hns.store.alloc.get(n.ID)?.endpoints ?? []) {
    const e = hns.store.endpoints.get(epId)!;
    if (e.Policies.some((p) => namesSet(p, removed))) referrers.push(`endpoint ${epId}`);
  }
  if (referrers.length) {
    throw hnsError(
      'HCN_E_ENTITY_HAS_REFERENCES',
      `${[...removed].join(', ')} still used by ${referrers.join(', ')}`,
    );
  }
}

/** Whether an ACL, NetworkACL or TierAcl policy names one of `ids` in its address fields. */
function namesSet(p: ParsedPolicy, ids: ReadonlySet<string>): boolean {
  const hit = (m: RuleMatch) =>
    m.local.setIds.some((x) => ids.has(x)) || m.remote.setIds.some((x) => ids.has(x));
  if (p.type === 'ACL' || p.type === 'NetworkACL') return hit(p.settings as AclSettings);
  if (p.type === 'TierAcl') return (p.settings as TierAclSettings).rules.some(hit);
  return false;
}

function modifySubnets(
  hns: HnsService,
  n: NetworkRec,
  settings: Reader,
  requestType: RequestType,
): NetworkRec {
  if (compareVersion(hns.profile.schema, { major: 2, minor: 6 }) < 0)
    throw hnsError('HCN_E_REQUEST_UNSUPPORTED', 'Subnet modification needs HCN schema 2.6');
  const subs = settings
    .objs('Subnets', 'HCN_E_INVALID_SUBNET')
    .map((s) => parseSubnetDoc(s, hns.hostContext, n.Type));
  const existing = subnetsOf(n);
  const alloc = hns.store.alloc.get(n.ID)!;
  if (requestType === 'Add') {
    for (const s of subs) {
      if (existing.some((e) => prefixOverlaps(e.prefix, s.prefix))) {
        throw hnsError('HCN_E_INVALID_SUBNET', `${s.IpAddressPrefix} overlaps an existing subnet`);
      }
    }
    const ipams = n.Ipams.length
      ? n.Ipams.map((i, k) => (k === 0 ? { ...i, Subnets: [...i.Subnets, ...subs] } : i))
      : [{ Type: 'Static' as const, Subnets: subs }];
    return { ...n, Ipams: ipams };
  }
  if (requestType === 'Remove') {
    const drop = new Set<string>();
    for (const s of subs) {
      const idx = existing.findIndex((e) => e.IpAddressPrefix === s.IpAddressPrefix);
      if (idx < 0) throw hnsError('HCN_E_SUBNET_NOT_FOUND', s.IpAddressPrefix);
      if (alloc.pools[idx]!.used > 0)
        throw hnsError('HCN_E_ENTITY_HAS_REFERENCES', `${s.IpAddressPrefix} has endpoints`);
      drop.add(s.IpAddressPrefix);
    }
    return {
      ...n,
      Ipams: n.Ipams.map((i) => ({ ...i, Subnets: i.Subnets.filter((s) => !drop.has(s.IpAddressPrefix)) })),
    };
  }
  throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `Subnet ${requestType}`);
}

/** After subnets change, keep the pools of surviving subnets and create pools for new ones. */
function resyncPools(hns: HnsService, before: NetworkRec, after: NetworkRec): void {
  const store = hns.store;
  const alloc = store.alloc.get(after.ID)!;
  const old = subnetsOf(before);
  const pools = subnetsOf(after).map((s) => {
    const i = old.findIndex((o) => o.IpAddressPrefix === s.IpAddressPrefix);
    return i >= 0 ? alloc.pools[i]! : poolFor(s);
  });
  alloc.pools.splice(0, alloc.pools.length, ...pools);
  alloc.subnets.splice(0, alloc.subnets.length, ...subnetsOf(after));
  // endpoint subnet indexes follow the new order
  for (const epId of alloc.endpoints) {
    const e = store.endpoints.get(epId)!;
    const subs = subnetsOf(after);
    const cfgs = e.IpConfigurations.map((c) => ({
      ...c,
      subnet: subs.findIndex((s) => prefixContains(s.prefix, c.addr)),
    }));
    store.endpoints.set(epId, { ...e, IpConfigurations: cfgs });
  }
}

/**
 * Delete a network. Its endpoints go with it (the v1 test TestEndpointStatsAll deletes a network
 * with a live endpoint and expects success), whatever load balancers, SDN routes or v1 policy lists
 * name them: those stay, still naming the endpoints (and the network), until deleted
 * (microsoft/Windows-Containers#79, moby/libnetwork#2524; docs/model.md "Networks").
 */
export function deleteNetwork(hns: HnsService, id: string): void {
  hns.atomic(() => {
    const store = hns.store;
    const n = getNetwork(hns, id);
    const alloc = store.alloc.get(id)!;
    hns.notify('NetworkPreDelete', { ID: id });
    for (const epId of [...alloc.endpoints]) removeEndpoint(hns, epId);
    store.networks.delete(id);
    store.ids.delete(id);
    store.alloc.delete(id);
    store.nics.release(id);
    if (n.Name !== '' && store.networkByName.get(store.nameKey(n.Name)) === id) {
      store.networkByName.delete(store.nameKey(n.Name));
    }
    hns.notify('NetworkDelete', { ID: id });
    hns.changed('Network', 'delete', id, n.Name);
  });
}
