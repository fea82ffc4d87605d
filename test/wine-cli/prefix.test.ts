// src/wine/prefix.ts with fake Wine tools: where the prefix goes, the lock that keeps two processes
// from creating one prefix twice, creation (wineboot -u, then wineserver -w so the registry reaches
// the disk), DLLs copied into system32 only when they change, and the persistent wineserver.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defaultPrefixDir,
  preparePrefix,
  prefixReady,
  staleDlls,
  startWineserver,
  system32,
  WinePrefixError,
  withLock,
} from '../../src/wine/prefix.js';
import { cleanup, fakeWine, readyPrefix, tempDir } from './fakes.js';

afterEach(cleanup);

describe('defaultPrefixDir', () => {
  it('is $HNSIM_WINE_PREFIX, else $XDG_CACHE_HOME/hnsim/wine-prefix, else ~/.cache/hnsim/wine-prefix', () => {
    expect(defaultPrefixDir({ HNSIM_WINE_PREFIX: '/p/x', XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe('/p/x');
    expect(defaultPrefixDir({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe('/c/hnsim/wine-prefix');
    expect(defaultPrefixDir({ HOME: '/h' })).toBe('/h/.cache/hnsim/wine-prefix');
    expect(defaultPrefixDir({ XDG_CACHE_HOME: '', HOME: '/h' })).toBe('/h/.cache/hnsim/wine-prefix');
  });
});

describe('withLock', () => {
  it('runs one holder at a time', async () => {
    const lock = join(tempDir(), 'p.lock');
    const events: string[] = [];
    const job = (name: string) =>
      withLock(lock, 5000, async () => {
        events.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 150));
        events.push(`${name}-`);
      });
    await Promise.all([job('a'), job('b')]);
    expect([events.slice(0, 2), events.slice(2)].map((p) => p[0]!.slice(0, 1) === p[1]!.slice(0, 1))).toEqual(
      [true, true],
    );
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose process is gone', async () => {
    const lock = join(tempDir(), 'p.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeFileSync(lock, `${dead}\n`);
    await expect(withLock(lock, 2000, async () => 'mine')).resolves.toBe('mine');
  });

  it('times out on a live holder, naming it', async () => {
    const lock = join(tempDir(), 'p.lock');
    writeFileSync(lock, `${process.pid}\n`); // this very process: alive
    const err = await withLock(lock, 300, async () => 'never').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WinePrefixError);
    expect((err as Error).message).toContain(`held by process ${process.pid}`);
  });

  it('releases the lock when the work fails', async () => {
    const lock = join(tempDir(), 'p.lock');
    await expect(
      withLock(lock, 1000, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(existsSync(lock)).toBe(false);
  });
});

/** Two fake DLLs. */
function dlls(dir: string, contents: Record<string, string>): string[] {
  mkdirSync(dir, { recursive: true });
  return Object.entries(contents).map(([name, text]) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  });
}

describe('preparePrefix', () => {
  it('creates a prefix once: wineboot -u quietly, then waits for the server to save the registry', async () => {
    const fake = fakeWine();
    const dir = join(tempDir(), 'prefix');
    const built = dlls(join(tempDir(), 'out'), { 'computenetwork.dll': 'A', 'vmcompute.dll': 'B' });
    const p = await preparePrefix({
      dir,
      tools: fake.tools,
      dlls: built,
      env: { PATH: process.env['PATH'] },
    });
    expect(p).toEqual({ dir, created: true, copied: ['computenetwork.dll', 'vmcompute.dll'] });
    expect(fake.log()).toEqual([
      `wine wineboot -u WINEPREFIX=${dir} WINEDEBUG=-all`,
      `wineserver -w WINEPREFIX=${dir}`,
    ]);
    expect(prefixReady(dir)).toBe(true);
    expect(readFileSync(join(system32(dir), 'computenetwork.dll'), 'utf8')).toBe('A');
    // again: nothing to do, no Wine tool run, no lock
    const again = await preparePrefix({ dir, tools: fake.tools, dlls: built });
    expect(again).toEqual({ dir, created: false, copied: [] });
    expect(fake.log()).toHaveLength(2);
  });

  it('two at once create the prefix once (the lock)', async () => {
    const fake = fakeWine();
    const dir = join(tempDir(), 'prefix');
    const built = dlls(join(tempDir(), 'out'), { 'computenetwork.dll': 'A' });
    const [a, b] = await Promise.all([
      preparePrefix({ dir, tools: fake.tools, dlls: built }),
      preparePrefix({ dir, tools: fake.tools, dlls: built }),
    ]);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(fake.log().filter((l) => l.startsWith('wine wineboot'))).toHaveLength(1);
  });

  it('copies a DLL only when it changed', async () => {
    const fake = fakeWine();
    const dir = readyPrefix(join(tempDir(), 'prefix'));
    const out = join(tempDir(), 'out');
    let built = dlls(out, { 'computenetwork.dll': 'v1', 'vmcompute.dll': 'v1' });
    expect((await preparePrefix({ dir, tools: fake.tools, dlls: built })).copied).toEqual([
      'computenetwork.dll',
      'vmcompute.dll',
    ]);
    const before = statSync(join(system32(dir), 'vmcompute.dll')).mtimeMs;
    built = dlls(out, { 'computenetwork.dll': 'v2', 'vmcompute.dll': 'v1' });
    expect(staleDlls(dir, built)).toEqual([built[0]]);
    expect((await preparePrefix({ dir, tools: fake.tools, dlls: built })).copied).toEqual([
      'computenetwork.dll',
    ]);
    expect(readFileSync(join(system32(dir), 'computenetwork.dll'), 'utf8')).toBe('v2');
    expect(statSync(join(system32(dir), 'vmcompute.dll')).mtimeMs).toBe(before);
    expect(fake.log()).toEqual([]); // a ready prefix runs no Wine tool
  });

  it('a wineboot failure is a WinePrefixError, and the prefix is not marked ready', async () => {
    const fake = fakeWine();
    const dir = join(tempDir(), 'prefix');
    const err = await preparePrefix({
      dir,
      tools: fake.tools,
      dlls: [],
      env: { ...process.env, FAKE_WINEBOOT_EXIT: '1' },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WinePrefixError);
    expect((err as Error).message).toMatch(/wineboot exited with status 1/);
    expect(prefixReady(dir)).toBe(false);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});

describe('startWineserver', () => {
  it('starts a persistent server (-p60 by default, -p to keep it), and accepts a running one', async () => {
    const fake = fakeWine();
    const dir = tempDir();
    expect(await startWineserver(fake.tools, dir, 60, { ...process.env, FAKE_WINESERVER_EXIT: '0' })).toBe(
      true,
    );
    expect(
      await startWineserver(fake.tools, dir, 'forever', { ...process.env, FAKE_WINESERVER_EXIT: '2' }),
    ).toBe(false);
    expect(fake.log()).toEqual([`wineserver -p60 WINEPREFIX=${dir}`, `wineserver -p WINEPREFIX=${dir}`]);
    await expect(
      startWineserver(fake.tools, dir, 60, { ...process.env, FAKE_WINESERVER_EXIT: '1' }),
    ).rejects.toBeInstanceOf(WinePrefixError);
  });
});
