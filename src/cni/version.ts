/**
 * CNI spec version arithmetic as containernetworking/cni `pkg/version` does it (`ParseVersion`,
 * `GreaterThanOrEqualTo`, `GreaterThan`, the `Reconciler`'s exact-match check and its
 * `config is "X", plugin supports ["A" "B"]` details, `PluginInfo.Encode`). Reference: cni-windows.md
 * §1.1–1.2.
 */
import { CNI_CURRENT, CNI_VERSIONS } from './contracts.js';
import { GoError, goMarshal, GoOrdered, goQuotedList, goStrconvQuote } from './gojson.js';

/** `version.All`. */
export const VERSION_ALL: readonly string[] = CNI_VERSIONS;

/** `version.Current()`. */
export const versionCurrent = (): string => CNI_CURRENT;

/** `strconv.Atoi`, with its error texts. */
function atoi(s: string): number {
  // up to 15 digits always fits int64 (and a double)
  if (SHORT_INT.test(s)) return Number(s);
  const err = (why: string): GoError => new GoError(`strconv.Atoi: parsing ${goStrconvQuote(s)}: ${why}`);
  if (!/^[+-]?[0-9]+$/.test(s)) throw err('invalid syntax');
  const n = Number(s);
  // int64 on the platforms CNI runs on
  if (
    BigInt(s.replace(/^\+/, '')) > 9223372036854775807n ||
    BigInt(s.replace(/^\+/, '')) < -9223372036854775808n
  ) {
    throw err('value out of range');
  }
  return n;
}

const SHORT_INT = /^[+-]?[0-9]{1,15}$/;

function versionPart(part: string, what: string): number {
  try {
    return atoi(part);
  } catch (e) {
    throw new GoError(
      `failed to convert ${what} version part ${goStrconvQuote(part)}: ${(e as Error).message}`,
    );
  }
}

/** `version.ParseVersion`: "" is 0.1.0; up to three dot-separated integers. */
export function parseVersion(version: string): [number, number, number] {
  if (version === '') return [0, 1, 0];
  const parts = version.split('.');
  if (parts.length >= 4) throw new GoError(`invalid version ${goStrconvQuote(version)}: too many parts`);
  const major = versionPart(parts[0]!, 'major');
  const minor = parts.length >= 2 ? versionPart(parts[1]!, 'minor') : 0;
  const micro = parts.length >= 3 ? versionPart(parts[2]!, 'micro') : 0;
  return [major, minor, micro];
}

/** Versions parsed before (a handful of distinct strings in any run; failures are not kept). */
const parsedVersions = new Map<string, readonly [number, number, number]>();

function parsedVersion(version: string): readonly [number, number, number] {
  let v = parsedVersions.get(version);
  if (v === undefined) {
    v = parseVersion(version);
    if (parsedVersions.size >= 256) parsedVersions.clear();
    parsedVersions.set(version, v);
  }
  return v;
}

function cmp(a: string, b: string): number {
  const [a1, a2, a3] = parsedVersion(a);
  const [b1, b2, b3] = parsedVersion(b);
  return a1 !== b1 ? a1 - b1 : a2 !== b2 ? a2 - b2 : a3 - b3;
}

/** `version.GreaterThanOrEqualTo` (throws the parse error as a GoError). */
export const versionGte = (version: string, other: string): boolean => cmp(version, other) >= 0;

/** `version.GreaterThan`. */
export const versionGt = (version: string, other: string): boolean => cmp(version, other) > 0;

/** `Reconciler.CheckRaw`: the details text when `configVersion` is not exactly one of `supported`. */
export function incompatibleDetails(configVersion: string, supported: readonly string[]): string | undefined {
  if (supported.includes(configVersion)) return undefined;
  return `config is ${goStrconvQuote(configVersion)}, plugin supports ${goQuotedList(supported)}`;
}

/** `PluginInfo.Encode`: `json.NewEncoder(w).Encode(p)` (compact, newline-terminated). */
export function versionInfoText(supported: readonly string[]): string {
  const e: [string, string | string[]][] = [['cniVersion', versionCurrent()]];
  if (supported.length) e.push(['supportedVersions', [...supported]]);
  return `${goMarshal(new GoOrdered(e))}\n`;
}

/** `version.PluginDecoder.Decode` of a plugin's VERSION output. */
export function decodeVersionInfo(text: string): { cniVersion: string; supportedVersions: string[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new GoError(`decoding version info: ${(e as Error).message}`);
  }
  const o = (doc ?? {}) as Record<string, unknown>;
  const cniVersion = typeof o['cniVersion'] === 'string' ? o['cniVersion'] : '';
  const supported = Array.isArray(o['supportedVersions'])
    ? (o['supportedVersions'] as unknown[]).map(String)
    : [];
  if (cniVersion === '') throw new GoError('decoding version info: missing field cniVersion');
  if (supported.length === 0) {
    if (cniVersion === '0.2.0') return { cniVersion, supportedVersions: ['0.1.0', '0.2.0'] };
    throw new GoError('decoding version info: missing field supportedVersions');
  }
  return { cniVersion, supportedVersions: supported };
}
