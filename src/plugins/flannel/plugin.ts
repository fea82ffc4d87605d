/**
 * The flannel CNI meta-plugin on Windows (flannel-io/cni-plugin @ 092e6d26 `flannel.go`,
 * `flannel_windows.go`; reference cni-windows.md §5.1, pitfall P15): ADD reads its config and
 * flanneld's subnet.env, builds the delegate config, saves it under `<dataDir>/<sandboxID>` and
 * delegates ADD, printing the delegate's result unchanged; DEL delegates with the saved bytes (no
 * file: nothing to do) and removes them on success; CHECK does nothing; every spec version.
 *
 *   registry.register(flannel).register(winBridge).register(hostLocal);
 *   // stdin {"name":"cbr0","cniVersion":"0.3.0","type":"flannel","delegate":{"type":"win-bridge"}}
 */
import { CniError, type CniPlugin } from '../../cni/contracts.js';
import { delegateAdd, delegateDel } from '../../cni/invoke.js';
import { printResult } from '../../cni/result.js';
import { pluginMain, type CmdArgs, type PluginContext } from '../../cni/skel.js';
import { VERSION_ALL } from '../../cni/version.js';
import { GoPanic } from '../../cni/gopanic.js';
import { loadFlannelNetConf, savedDelegateType } from './conf.js';
import { checkedDelegate, delegateBytes, sandboxContainerId, windowsDelegate } from './delegate.js';
import { GoPathError, osMkdirAll, osReadFile, osRemove, osWriteFile, winJoin } from './disk.js';
import { loadSubnetEnv } from './subnet-env.js';

/**
 * What `main` prints for `fullVer` (`CNI Plugin %s version %s (%s/%s) commit %s`): the release
 * build sets Program, Version and the commit's first 8 characters (`scripts/build_flannel.sh`).
 */
export const FLANNEL_ABOUT = 'CNI Plugin flannel version v1.9.1-flannel1 (windows/amd64) commit 092e6d26';

/** Wrap a Go error as `fmt.Errorf("<prefix>%w<suffix>")` does: a `CniError` keeps its identity. */
function wrapped(prefix: string, e: unknown, suffix = ''): Error {
  if (e instanceof GoPanic) return e;
  return new Error(`${prefix}${e instanceof Error ? e.message : String(e)}${suffix}`);
}

/** `cmdAdd` + Windows `doCmdAdd` + `delegateAdd`. */
async function cmdAdd(args: CmdArgs, ctx: PluginContext): Promise<void> {
  let conf;
  try {
    conf = loadFlannelNetConf(args.stdinData);
  } catch (e) {
    throw wrapped('failed to load flannel netconf file: ', e);
  }
  let fenv;
  try {
    fenv = loadSubnetEnv(ctx.host.files, conf.subnetFile);
  } catch (e) {
    throw wrapped(
      "failed to load flannel 'subnet.env' file: ",
      e,
      '. Check the flannel pod log for this node.',
    );
  }
  const delegate = windowsDelegate(conf, checkedDelegate(conf), fenv);
  const sandboxId = sandboxContainerId(args.containerID, args.netns);

  const bytes = delegateBytes(delegate);
  ctx.stderr.write('delegateAdd: netconf sent to delegate plugin:\n');
  ctx.stderr.write(bytes);
  // saveScratchNetConf: MkdirAll(dataDir), then write <dataDir>\<sandboxID> (not removed if ADD fails)
  osMkdirAll(ctx.host.files, conf.dataDir);
  osWriteFile(ctx.host.files, winJoin(conf.dataDir, sandboxId), bytes);

  let result;
  try {
    result = await delegateAdd(ctx, delegate['type'] as string, bytes);
  } catch (e) {
    // skel's errors.As finds the delegate's *types.Error inside "failed to delegate add: %w" and
    // prints it unwrapped; any other failure (lookup, unreadable output) keeps flannel's prefix
    if (e instanceof CniError) throw e;
    throw wrapped('failed to delegate add: ', e);
  }
  // result.Print(): the delegate's result at its own version
  printResult(ctx.stdout, result, result.cniVersion);
}

/** `cmdDel` + Windows `doCmdDel`. */
async function cmdDel(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const conf = loadFlannelNetConf(args.stdinData);
  const path = winJoin(conf.dataDir, sandboxContainerId(args.containerID, args.netns));
  let saved: string;
  try {
    saved = osReadFile(ctx.host.files, path);
  } catch (e) {
    // per spec, resources already gone are not an error: the delegate is not called
    if (e instanceof GoPathError && e.notExist) return;
    throw e;
  }
  let type: string;
  try {
    type = savedDelegateType(saved);
  } catch (e) {
    throw wrapped('failed to parse netconf: ', e);
  }
  await delegateDel(ctx, type, saved);
  // cleanup(err) with err == nil: remove the saved config, ignoring errors
  osRemove(ctx.host.files, path);
}

/** `cmdCheck`: a TODO upstream, so CHECK succeeds (after skel's version checks). */
async function cmdCheck(): Promise<void> {}

/**
 * The plugin. Go panics (flannel indexes FLANNEL_NETWORK without checking it has one, and
 * `SplitN`'s result without checking for `=`) kill the process: exit status 2, nothing on stdout,
 * the panic on stderr with the command function as the goroutine's frame.
 */
export const flannel: CniPlugin = pluginMain(
  'flannel',
  { add: cmdAdd, del: cmdDel, check: cmdCheck },
  VERSION_ALL,
  FLANNEL_ABOUT,
  // `main.cmdAdd(...)` for ADD
  { panicFrame: (cmd) => `main.cmd${cmd.charAt(0)}${cmd.slice(1).toLowerCase()}(...)` },
);
