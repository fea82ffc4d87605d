/**
 * Delegation (containernetworking/cni `pkg/invoke`: `delegate.go`, `exec.go`, `raw_exec.go`;
 * reference cni-windows.md §1.6): a plugin runs another plugin found through its CNI_PATH with its
 * own environment and CNI_COMMAND replaced, and reads what it printed — a result (ADD), nothing
 * (DEL, CHECK, STATUS, GC), or on failure the delegate's error document, re-thrown as a `CniError`
 * with its code, msg and details. Lookup and output-parsing failures are plain Go errors (`GoError`).
 */
import { CniError, type CniResult, type ExecOutput } from './contracts.js';
import type { Json } from '../core/json.js';
import {
  field,
  goMarshal,
  goString,
  goStrconvQuote,
  goStruct,
  goUint,
  goUnmarshal,
  type GoValue,
} from './gojson.js';
import { parsePluginOutput } from './result.js';
import type { PluginContext } from './skel.js';

/** A delegate's stdin: exact bytes, or a JSON value marshalled as Go marshals a map (sorted keys). */
export type NetConfInput = string | Uint8Array | GoValue | Json;

/**
 * The bytes of the last few texts delegated: a plugin that re-serializes its configuration
 * (azure-vnet) hands its IPAM the same text pod after pod, and the same bytes let the delegate's
 * skel find its decoded document again (`goParseShared` remembers per array).
 */
const textBytes = new Map<string, Uint8Array>();
const TEXT_BYTES_MAX = 16;

function confBytes(netconf: NetConfInput): Uint8Array {
  if (typeof netconf === 'string') {
    let b = textBytes.get(netconf);
    if (b === undefined) {
      if (textBytes.size >= TEXT_BYTES_MAX) textBytes.delete(textBytes.keys().next().value!);
      b = Buffer.from(netconf, 'utf8');
      textBytes.set(netconf, b);
    }
    return b;
  }
  if (netconf instanceof Uint8Array) return netconf;
  return Buffer.from(goMarshal(netconf as GoValue), 'utf8');
}

const ERROR_STRUCT = goStruct('types.Error', [
  field('code', goUint),
  field('msg', goString),
  field('details', goString),
]);

/**
 * `RawExec.pluginErr`: what a caller makes of a failed plugin — its error document, or a text built
 * from stderr / the exit status when stdout is empty or not a document.
 */
export function pluginError(out: ExecOutput): CniError {
  const status = `exit status ${out.exitCode}`;
  if (out.stdout.length === 0) {
    if (out.stderr.length === 0) return new CniError(0, `netplugin failed with no error message: ${status}`);
    return new CniError(0, `netplugin failed: ${goStrconvQuote(out.stderr)}: ${status}`);
  }
  try {
    const e = (goUnmarshal(out.stdout, ERROR_STRUCT) ?? {}) as {
      code?: number;
      msg?: string;
      details?: string;
    };
    return new CniError(e.code ?? 0, e.msg ?? '', e.details ?? '');
  } catch (err) {
    return new CniError(
      0,
      `netplugin failed but error parsing its diagnostic message ${goStrconvQuote(out.stdout)}: ${(err as Error).message}`,
    );
  }
}

/** Run `pluginType` with the caller's environment and CNI_COMMAND = `verb`. */
async function delegate(
  ctx: PluginContext,
  pluginType: string,
  netconf: Uint8Array,
  verb: string,
): Promise<ExecOutput> {
  const env = { ...ctx.env, CNI_COMMAND: verb };
  // a child process starts in its parent's working directory
  const cwd = ctx.cwd !== undefined ? { cwd: ctx.cwd } : {};
  const out = await ctx.host.exec(pluginType, { env, stdin: netconf, ...cwd }, ctx.depth + 1);
  if (out.exitCode !== 0) throw pluginError(out);
  // RawExec copies a successful plugin's stderr to the caller's stderr
  if (out.stderr) ctx.stderr.write(out.stderr);
  return out;
}

/**
 * `invoke.DelegateAdd`: the delegate's result, read as `ExecPluginWithResult` does (a result without
 * `cniVersion` is taken to be at the netconf's version), in the current shape with `cniVersion` the
 * version it was printed at.
 */
export async function delegateAdd(
  ctx: PluginContext,
  pluginType: string,
  netconf: NetConfInput,
): Promise<CniResult> {
  const bytes = confBytes(netconf);
  const out = await delegate(ctx, pluginType, bytes, 'ADD');
  return parsePluginOutput(out.stdout, bytes, out);
}

/** `invoke.DelegateDel`. */
export async function delegateDel(
  ctx: PluginContext,
  pluginType: string,
  netconf: NetConfInput,
): Promise<void> {
  await delegate(ctx, pluginType, confBytes(netconf), 'DEL');
}

/** `invoke.DelegateCheck`. */
export async function delegateCheck(
  ctx: PluginContext,
  pluginType: string,
  netconf: NetConfInput,
): Promise<void> {
  await delegate(ctx, pluginType, confBytes(netconf), 'CHECK');
}

/** `invoke.DelegateStatus`. */
export async function delegateStatus(
  ctx: PluginContext,
  pluginType: string,
  netconf: NetConfInput,
): Promise<void> {
  await delegate(ctx, pluginType, confBytes(netconf), 'STATUS');
}

/** `invoke.DelegateGC`. */
export async function delegateGC(
  ctx: PluginContext,
  pluginType: string,
  netconf: NetConfInput,
): Promise<void> {
  await delegate(ctx, pluginType, confBytes(netconf), 'GC');
}
