// src/wine/doctor.ts without Wine: where it looks (Debian 12's /usr/lib/wine/wine64, PATH,
// $HNSIM_WINE, $WINESERVER, the loader's sibling) and what it says when something is missing — the
// package names and apt command of reference wine-shim.md §1.
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  doctorMessage,
  findMingw,
  findWine,
  installCommand,
  wineDoctor,
  WINE_CANDIDATES,
} from '../../src/wine/doctor.js';
import { cleanup, script, tempDir } from './fakes.js';

afterEach(cleanup);

/** A PATH directory holding executables of these names. */
function binDir(names: string[]): string {
  const d = tempDir();
  for (const n of names) script(join(d, n), 'exit 0');
  return d;
}

describe('findWine', () => {
  it('looks first at Debian 12 loader path, which has no /usr/bin/wine64 (reference §1)', () => {
    expect(WINE_CANDIDATES[0]).toBe('/usr/lib/wine/wine64');
  });

  it('takes $HNSIM_WINE, and a wineserver beside it', () => {
    const d = binDir(['wine64', 'wineserver']);
    expect(findWine({ HNSIM_WINE: join(d, 'wine64'), PATH: '' })).toEqual({
      wine: join(d, 'wine64'),
      wineserver: join(d, 'wineserver'),
    });
  });

  it('a $HNSIM_WINE that does not exist is missing (no fallback to another Wine)', () => {
    const d = binDir(['wine64', 'wineserver']);
    expect(findWine({ HNSIM_WINE: '/nonexistent/wine64', PATH: d }).wine).toBeUndefined();
  });

  it('takes $WINESERVER (Wine own variable) over the sibling', () => {
    const d = binDir(['wine64', 'wineserver']);
    const other = binDir(['my-wineserver']);
    const found = findWine({ HNSIM_WINE: join(d, 'wine64'), WINESERVER: join(other, 'my-wineserver') });
    expect(found.wineserver).toBe(join(other, 'my-wineserver'));
  });

  it('a file that is not executable is not a tool', () => {
    const d = binDir([]);
    const f = join(d, 'wine64');
    script(f, 'exit 0');
    chmodSync(f, 0o644);
    expect(findWine({ HNSIM_WINE: f }).wine).toBeUndefined();
  });

  it('finds mingw-w64 gcc on PATH', () => {
    const d = binDir(['x86_64-w64-mingw32-gcc']);
    expect(findMingw({ PATH: d })).toBe(join(d, 'x86_64-w64-mingw32-gcc'));
    expect(findMingw({ PATH: '' })).toBeUndefined();
  });
});

describe('wineDoctor', () => {
  it('is ok with all three tools', () => {
    const d = binDir(['wine64', 'wineserver']);
    const r = wineDoctor(
      { HNSIM_WINE: join(d, 'wine64') },
      { mingw: () => '/usr/bin/x86_64-w64-mingw32-gcc' },
    );
    expect(r.ok).toBe(true);
    expect(r.missing).toEqual([]);
  });

  it('names what is missing and the Debian packages (wine64, gcc-mingw-w64-x86-64)', () => {
    const r = wineDoctor({ HNSIM_WINE: '/nonexistent/wine64', PATH: '' }, { mingw: () => undefined });
    expect(r.ok).toBe(false);
    expect(r.missing.map((m) => m.package)).toEqual(['wine64', 'gcc-mingw-w64-x86-64']);
    expect(installCommand(r)).toBe('apt-get update && apt-get install -y wine64 gcc-mingw-w64-x86-64');
    const text = doctorMessage(r);
    expect(text).toContain('Wine');
    expect(text).toContain('x86_64-w64-mingw32-gcc');
    expect(text).toContain('$HNSIM_WINE=/nonexistent/wine64');
    expect(text.split('\n').at(-1)).toBe(
      '  apt-get update && apt-get install -y wine64 gcc-mingw-w64-x86-64',
    );
  });

  it('asks only for the missing package', () => {
    const d = binDir(['wine64', 'wineserver']);
    const r = wineDoctor({ HNSIM_WINE: join(d, 'wine64') }, { mingw: () => undefined });
    expect(installCommand(r)).toBe('apt-get update && apt-get install -y gcc-mingw-w64-x86-64');
    const onlyWine = wineDoctor({ HNSIM_WINE: '/nonexistent' }, { mingw: () => '/x/gcc' });
    expect(installCommand(onlyWine)).toBe('apt-get update && apt-get install -y wine64');
  });

  it('a loader without its wineserver is Wine missing', () => {
    const d = binDir(['wine64']);
    const r = wineDoctor(
      { HNSIM_WINE: join(d, 'wine64'), PATH: '', WINESERVER: '/nonexistent' },
      { needMingw: false },
    );
    expect(r.missing.map((m) => m.what)).toEqual(["Wine's server (wineserver)"]);
  });
});
