/**
 * Stand-ins for Wine's tools, so the logic of src/wine runs without Wine: shell scripts that log how
 * they were called. The fake `wine` runs a "program" (a shell script named *.exe) with sh, as Wine
 * runs a Windows program, fakes `wineboot -u` by writing a registry file and a Wine builtin
 * iphlpapi.dll (a PE file with Wine's "Wine builtin DLL" mark, exporting nothing), and fakes `reg
 * import` (it keeps the file as `imported.reg` in the prefix) and `reg query … /v
 * CurrentBuildNumber` (it answers from that file, and writes its environment to `query.env`); the fake `wineserver` logs its arguments and
 * exits with $FAKE_WINESERVER_EXIT (default 2: already running).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WineTools } from '../../src/wine/doctor.js';

const made: string[] = [];

/** A temporary directory, removed by cleanup(). */
export function tempDir(prefix = 'hnsim-wine-cli-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

export function cleanup(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Write an executable script. */
export function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

export interface FakeWine {
  readonly dir: string;
  readonly tools: WineTools;
  /** Every call of the fake tools, one line each. */
  log(): string[];
}

/** Fake `wine` and `wineserver` in a new directory. */
export function fakeWine(): FakeWine {
  const dir = tempDir();
  const logFile = join(dir, 'calls.log');
  writeFileSync(logFile, '');
  const FAKE_BUILTIN = join(dir, 'iphlpapi.dll');
  writeFileSync(FAKE_BUILTIN, fakeBuiltin());
  const wine = script(
    join(dir, 'wine'),
    `printf '%s\\n' "wine $* WINEPREFIX=$WINEPREFIX WINEDEBUG=$WINEDEBUG" >> '${logFile}'
if [ "$1" = --version ]; then
  echo 'wine-8.0 (fake)'
  exit 0
fi
if [ "$1" = wineboot ]; then
  sleep 0.3
  mkdir -p "$WINEPREFIX/drive_c/windows/system32"
  echo 'WINE REGISTRY Version 2' > "$WINEPREFIX/system.reg"
  cp '${FAKE_BUILTIN}' "$WINEPREFIX/drive_c/windows/system32/iphlpapi.dll"
  exit \${FAKE_WINEBOOT_EXIT:-0}
fi
if [ "$1" = reg ] && [ "$2" = import ]; then
  f=$(printf '%s' "$3" | sed 's/^Z://' | tr '\\\\' /)
  cp "$f" "$WINEPREFIX/imported.reg"
  exit \${FAKE_REG_EXIT:-0}
fi
if [ "$1" = reg ] && [ "$2" = query ]; then
  echo "WINEDLLOVERRIDES=$WINEDLLOVERRIDES HNSIM_ENDPOINT=$HNSIM_ENDPOINT" > "$WINEPREFIX/query.env"
  b=$(grep -a '"CurrentBuildNumber"' "$WINEPREFIX/imported.reg" | sed 's/.*="\\([0-9]*\\)".*/\\1/')
  echo "    CurrentBuildNumber    REG_SZ    $b"
  exit 0
fi
prog="$1"; shift
exec sh "$prog" "$@"`,
  );
  const wineserver = script(
    join(dir, 'wineserver'),
    `echo "wineserver $* WINEPREFIX=$WINEPREFIX" >> '${logFile}'
[ "$1" = -w ] && exit 0
exit \${FAKE_WINESERVER_EXIT:-2}`,
  );
  return {
    dir,
    tools: { wine, wineserver },
    log: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
  };
}

/** A "ready" prefix (marker, registry and Wine's iphlpapi.dll written) without Wine. */
export function readyPrefix(dir: string): string {
  mkdirSync(join(dir, 'drive_c', 'windows', 'system32'), { recursive: true });
  writeFileSync(join(dir, 'system.reg'), 'WINE REGISTRY Version 2\n');
  writeFileSync(join(dir, '.hnsim-prefix'), 'test\n');
  writeFileSync(join(dir, 'drive_c', 'windows', 'system32', 'iphlpapi.dll'), fakeBuiltin());
  return dir;
}

/**
 * The smallest PE image readPeExports reads (no export table) with Wine's builtin mark at 0x40: a
 * stand-in for Wine's iphlpapi.dll.
 */
export function fakeBuiltin(): Buffer {
  const b = Buffer.alloc(0x200);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x80, 0x3c); // e_lfanew
  b.write('Wine builtin DLL', 0x40, 'latin1');
  b.write('PE\0\0', 0x80, 'latin1');
  b.writeUInt16LE(0x8664, 0x84); // Machine
  b.writeUInt16LE(0, 0x86); // no sections
  b.writeUInt16LE(0xf0, 0x94); // SizeOfOptionalHeader
  b.writeUInt16LE(0x20b, 0x98); // PE32+
  b.writeUInt32LE(16, 0x98 + 108); // NumberOfRvaAndSizes; every directory empty
  return b;
}
