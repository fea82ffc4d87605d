/**
 * Stand-ins for Wine's tools, so the logic of src/wine runs without Wine: shell scripts that log how
 * they were called. The fake `wine` runs a "program" (a shell script named *.exe) with sh, as Wine
 * runs a Windows program, and fakes `wineboot -u` by writing a registry file; the fake `wineserver`
 * logs its arguments and exits with $FAKE_WINESERVER_EXIT (default 2: already running).
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
  const wine = script(
    join(dir, 'wine'),
    `echo "wine $* WINEPREFIX=$WINEPREFIX WINEDEBUG=$WINEDEBUG" >> '${logFile}'
if [ "$1" = wineboot ]; then
  sleep 0.3
  mkdir -p "$WINEPREFIX/drive_c/windows/system32"
  echo 'WINE REGISTRY Version 2' > "$WINEPREFIX/system.reg"
  exit \${FAKE_WINEBOOT_EXIT:-0}
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

/** A "ready" prefix (marker and registry written) without Wine. */
export function readyPrefix(dir: string): string {
  mkdirSync(join(dir, 'drive_c', 'windows', 'system32'), { recursive: true });
  writeFileSync(join(dir, 'system.reg'), 'WINE REGISTRY Version 2\n');
  writeFileSync(join(dir, '.hnsim-prefix'), 'test\n');
  return dir;
}
