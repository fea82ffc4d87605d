/**
 * The host-local IPAM plugin (containernetworking/plugins @3d27709f, v1.9.1,
 * `plugins/ipam/host-local/main.go`; reference cni-windows.md §6): ADD allocates one address per
 * range set (requested ones first) and prints `{ips:[{address,gateway}],routes,dns}` at the
 * config's version; DEL releases by (container, ifname), then by container; CHECK needs an address
 * on disk. v1.9.1 registers no GC or STATUS function ("FIXME"), so the skeleton answers them as Go's
 * skel does for a nil function.
 *
 *   const out = await hostLocal.exec(pluginHost, { env: { CNI_COMMAND: 'ADD', … }, stdin: conf });
 */
import { isoAt } from '../../core/clock.js';
import { CNI_CURRENT, type CniIPConfig, type CniPlugin, type CniResult } from '../../cni/contracts.js';
import { GoError } from '../../cni/gojson.js';
import { printResult } from '../../cni/result.js';
import { pluginMain, type CmdArgs, type PluginContext } from '../../cni/skel.js';
import { VERSION_ALL } from '../../cni/version.js';
import { allocatedAddress, IPAllocator } from './allocator.js';
import { loadIPAMConfig } from './config.js';
import { parseResolvConf } from './dns.js';
import { ipString, type IP } from './ip.js';
import { rangeSetContains } from './range.js';
import { DiskStore } from './store.js';

export { loadIPAMConfig, loadEnvArgs, type IPAMConfig, type LoadedConfig } from './config.js';
export { IPAllocator, RangeIter, allocatedAddress, type AllocatedIP } from './allocator.js';
export { DiskStore, LINE_BREAK, DEFAULT_DATA_DIR, escapedPath, type Store } from './store.js';
export { parseResolvConf } from './dns.js';
export * from './range.js';
export * from './ip.js';

/** What the release builds print for `bv.BuildString("host-local")`. */
const HOST_LOCAL_ABOUT = 'CNI host-local plugin v1.9.1';

/** `log.Printf` to stderr, with Go's default `2009/11/10 23:00:00 ` prefix from the host's clock. */
function logger(ctx: PluginContext): (line: string) => void {
  return (line) => {
    // `2026-01-01T00:00:05.000Z` → `2026/01/01 00:00:05`
    const ts = isoAt(ctx.host.clock.now()).slice(0, 19).replace('T', ' ').replaceAll('-', '/');
    ctx.stderr.write(`${ts} ${line}\n`);
  };
}

/** `cmdCheck`: some address of (container, ifname), or of the container alone, is on disk. */
export async function cmdCheck(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const { conf } = loadIPAMConfig(args.stdinData, args.args);
  const store = DiskStore.open(ctx.host.files, conf.name, conf.dataDir);
  try {
    if (!store.findByID(args.containerID, args.ifName)) {
      throw new GoError(`host-local: Failed to find address added by container ${args.containerID}`);
    }
  } finally {
    store.close();
  }
  return Promise.resolve();
}

/**
 * `cmdAdd`: one address from each range set, a requested address in a set taking precedence; any
 * failure releases what this call took; requested addresses no set took fail the call.
 */
export async function cmdAdd(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const { conf, version } = loadIPAMConfig(args.stdinData, args.args);
  const dns = conf.resolvConf !== '' ? parseResolvConf(ctx.host.files, conf.resolvConf) : undefined;
  const store = DiskStore.open(ctx.host.files, conf.name, conf.dataDir);
  const ips: CniIPConfig[] = [];
  try {
    const allocs: IPAllocator[] = [];
    // Go keeps them in a map keyed by text (ranging over it is random in Go; here it is insertion order)
    const requested = new Map<string, IP>();
    for (const ip of conf.ipArgs) requested.set(ipString(ip), ip);
    const releaseAll = (): void => {
      for (const a of allocs) {
        try {
          a.release(args.containerID, args.ifName);
        } catch {
          // `_ = alloc.Release(...)`
        }
      }
    };
    conf.ranges.forEach((rangeset, idx) => {
      const allocator = new IPAllocator(rangeset, store, idx, logger(ctx));
      let requestedIP: IP | undefined;
      for (const [k, ip] of requested) {
        if (rangeSetContains(rangeset, ip)) {
          requestedIP = ip;
          requested.delete(k);
          break;
        }
      }
      let got;
      try {
        got = allocator.get(args.containerID, args.ifName, requestedIP);
      } catch (e) {
        releaseAll();
        throw new GoError(`failed to allocate for range ${idx}: ${(e as Error).message}`);
      }
      allocs.push(allocator);
      ips.push({
        address: allocatedAddress(got),
        ...(got.gateway ? { gateway: ipString(got.gateway) } : {}),
      });
    });
    if (requested.size !== 0) {
      releaseAll();
      let text = 'failed to allocate all requested IPs:';
      for (const ip of requested.values()) text += ` ${ipString(ip)}`;
      throw new GoError(text);
    }
  } finally {
    store.close();
  }
  const result: CniResult = {
    cniVersion: CNI_CURRENT,
    ips,
    ...(conf.routes !== undefined ? { routes: conf.routes } : {}),
    ...(dns !== undefined ? { dns } : {}),
  };
  printResult(ctx.stdout, result, version);
  return Promise.resolve();
}

/** `cmdDel`: release through every range set's allocator; failures are joined with `;`. */
export async function cmdDel(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const { conf } = loadIPAMConfig(args.stdinData, args.args);
  const store = DiskStore.open(ctx.host.files, conf.name, conf.dataDir);
  const errs: string[] = [];
  try {
    conf.ranges.forEach((rangeset, idx) => {
      try {
        new IPAllocator(rangeset, store, idx).release(args.containerID, args.ifName);
      } catch (e) {
        errs.push((e as Error).message);
      }
    });
  } finally {
    store.close();
  }
  if (errs.length > 0) throw new GoError(errs.join(';'));
  return Promise.resolve();
}

/** The host-local plugin: `skel.PluginMainFuncs({Add, Check, Del}, version.All, …)`. */
export const hostLocal: CniPlugin = pluginMain(
  'host-local',
  { add: cmdAdd, del: cmdDel, check: cmdCheck },
  VERSION_ALL,
  HOST_LOCAL_ABOUT,
);
