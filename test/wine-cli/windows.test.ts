// The Windows version a program under `hnsim wine` sees (issue 15), without Wine: which build a
// profile or HNS version maps to (the reference's "HNS version per release" table, vfp-dataplane.md
// §8, and hcsshim's osversion build numbers — literals here, not src/wine/winver.ts's table), the
// registry file Wine's `reg import` gets, the prefix per build (src/wine/prefix.ts) through fake
// Wine tools, and a run choosing it from the node it talks to.
import { existsSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveTcp } from '../../src/api/rpc.js';
import { createHost } from '../../src/host/host.js';
import {
  KEPT_BUILTINS,
  preparePrefix,
  prepareWindowsPrefix,
  startWindowsSession,
  system32,
  wineBuiltinOf,
  windowsPrefixDir,
  WinePrefixError,
} from '../../src/wine/prefix.js';
import { runUnderWine, type PreparedWine } from '../../src/wine/run.js';
import { registryFile, windowsVersionOf } from '../../src/wine/winver.js';
import { cleanup, fakeBuiltin, fakeWine, readyPrefix, script, tempDir } from './fakes.js';

afterEach(cleanup);

const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/home/me' };
const build = (name: string, major: number, minor: number): number =>
  windowsVersionOf({ name, version: { major, minor } }).build;

describe('windowsVersionOf: the build a node of this profile runs', () => {
  it('the named profiles: WS2019 17763, WS2022 20348, WS2025 26100 (hcsshim osversion: LTSC2019, LTSC2022)', () => {
    expect(build('ws2019', 9, 5)).toBe(17763);
    expect(build('ws2022', 15, 0)).toBe(20348);
    expect(build('ws2025', 15, 4)).toBe(26100);
    expect(build('WS2019', 9, 5)).toBe(17763);
    for (const v of ['ws2019', 'ws2022', 'ws2025']) {
      const w = windowsVersionOf({ name: v, version: { major: 0, minor: 0 } });
      expect([w.major, w.minor]).toEqual([10, 0]);
    }
  });

  it('an explicit HNS version: the release that shipped it (reference "HNS version per release")', () => {
    // hns-X.Y profiles, as resolveProfile names them
    expect(build('hns-7.2', 7, 2)).toBe(17134); // 1803: HNSVersion1803 = 7.2
    expect(build('hns-9.2', 9, 2)).toBe(17763); // RS5 plus Remote Subnet DCR
    expect(build('hns-9.5', 9, 5)).toBe(17763); // {9 5} logged on 1809
    expect(build('hns-10.3', 10, 3)).toBe(18362); // 1903 (inferred)
    expect(build('hns-11.10', 11, 10)).toBe(19041); // {11 10} on 10.0.19041.867
    expect(build('hns-12.0', 12, 0)).toBe(20348);
    expect(build('hns-15.1', 15, 1)).toBe(20348);
    expect(build('hns-15.3', 15, 3)).toBe(20348);
    expect(build('hns-15.4', 15, 4)).toBe(26100); // 15.4 on WS2025
    expect(build('hns-16.0', 16, 0)).toBe(26100);
    expect(build('hns-1.0', 1, 0)).toBe(17134);
  });

  it('a host profile object works as it is (its name, else its HNS version)', () => {
    expect(windowsVersionOf(createHost({ profile: 'ws2019' }).profile).build).toBe(17763);
    expect(windowsVersionOf(createHost({ profile: '11.10' }).profile).build).toBe(19041);
    expect(windowsVersionOf(createHost({}).profile).build).toBe(20348); // the default, ws2022
  });

  it('the node reports the same build as its prefix: GetVersion of a "--profile 11.10" node says 19041', () => {
    // an explicit version's build used to follow the nearest named profile (ws2019: 17763) while the
    // prefix said 19041, so a program saw one Windows and asked HNS about another
    for (const [profile, literal] of [
      ['11.10', 19041],
      ['10.3', 18362],
      ['15.1', 20348],
      ['15.4', 26100],
      ['7.2', 17134],
    ] as const) {
      const host = createHost({ profile });
      expect(host.profile.build).toBe(literal);
      expect(windowsVersionOf(host.profile).build).toBe(literal);
    }
  });
});

describe('registryFile', () => {
  it("writes what winecfg /v writes, with the build and a server product, and drops Wine's Version", () => {
    const text = registryFile(windowsVersionOf({ name: 'ws2019', version: { major: 9, minor: 5 } }));
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('Windows Registry Editor Version 5.00');
    const section = (name: string): string[] => {
      const at = lines.indexOf(`[${name}]`);
      expect(at, name).toBeGreaterThan(0);
      const end = lines.indexOf('', at);
      return lines.slice(at + 1, end);
    };
    expect(section('HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Windows NT\\CurrentVersion')).toEqual([
      '"CurrentVersion"="10.0"',
      '"CurrentMajorVersionNumber"=dword:0000000a',
      '"CurrentMinorVersionNumber"=dword:00000000',
      '"CurrentBuild"="17763"',
      '"CurrentBuildNumber"="17763"',
      '"UBR"=dword:00000000',
      '"ProductName"="Windows Server 2019 Datacenter"',
      '"EditionID"="ServerDatacenter"',
      '"InstallationType"="Server"',
      '"ReleaseId"="1809"',
      '"DisplayVersion"=-',
      '"CSDVersion"=-',
    ]);
    expect(section('HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\ProductOptions')).toEqual([
      '"ProductType"="ServerNT"',
    ]);
    expect(section('HKEY_CURRENT_USER\\Software\\Wine')).toEqual(['"Version"=-']);
    const ws2022 = registryFile(windowsVersionOf({ name: 'ws2022', version: { major: 15, minor: 0 } }));
    expect(ws2022).toContain('"DisplayVersion"="21H2"');
    expect(ws2022).toContain('"CurrentBuildNumber"="20348"');
  });
});

describe('the prefix per Windows build', () => {
  const ws2019 = windowsVersionOf({ name: 'ws2019', version: { major: 9, minor: 5 } });
  const ws2025 = windowsVersionOf({ name: 'ws2025', version: { major: 15, minor: 4 } });

  it('is made once: the registry files copied, drive C: shared, the build imported, then marked', async () => {
    const fake = fakeWine();
    const base = readyPrefix(join(tempDir(), 'prefix'));
    writeFileSync(join(base, 'user.reg'), 'USER\n');
    const p = await prepareWindowsPrefix({ base, tools: fake.tools, windows: ws2019, env });
    expect(p).toEqual({ dir: join(base, 'hnsim-windows', '10.0.17763'), windows: ws2019, created: true });
    expect(p.dir).toBe(windowsPrefixDir(base, ws2019));
    expect(readFileSync(join(p.dir, 'user.reg'), 'utf8')).toBe('USER\n');
    expect(realpathSync(join(p.dir, 'drive_c'))).toBe(realpathSync(join(base, 'drive_c')));
    expect(realpathSync(join(p.dir, 'dosdevices', 'c:'))).toBe(realpathSync(join(base, 'drive_c')));
    expect(readlinkSync(join(p.dir, 'dosdevices', 'z:'))).toBe('/');
    expect(readFileSync(join(p.dir, 'imported.reg'), 'utf8')).toContain('"CurrentBuildNumber"="17763"');
    const calls = fake.log();
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatch(/^wine reg import Z:\\.*\\hnsim-windows\.reg /);
    expect(calls[1]).toMatch(/^wineserver -w /);
    // again: nothing to do
    expect((await prepareWindowsPrefix({ base, tools: fake.tools, windows: ws2019, env })).created).toBe(
      false,
    );
    expect(fake.log()).toHaveLength(2);
  });

  it('two builds at once each get theirs; one build asked twice at once is made once', async () => {
    const fake = fakeWine();
    const base = readyPrefix(join(tempDir(), 'prefix'));
    const made = await Promise.all([
      prepareWindowsPrefix({ base, tools: fake.tools, windows: ws2019, env }),
      prepareWindowsPrefix({ base, tools: fake.tools, windows: ws2025, env }),
      prepareWindowsPrefix({ base, tools: fake.tools, windows: ws2019, env }),
    ]);
    expect(made.map((m) => m.dir.slice(base.length))).toEqual([
      '/hnsim-windows/10.0.17763',
      '/hnsim-windows/10.0.26100',
      '/hnsim-windows/10.0.17763',
    ]);
    expect(made.filter((m) => m.created)).toHaveLength(2);
    expect(fake.log().filter((l) => l.startsWith('wine reg import'))).toHaveLength(2);
    expect(readFileSync(join(made[1]!.dir, 'imported.reg'), 'utf8')).toContain('"CurrentBuild"="26100"');
  });

  it('a failing reg import is a WinePrefixError and leaves nothing behind', async () => {
    const fake = fakeWine();
    const base = readyPrefix(join(tempDir(), 'prefix'));
    const err = await prepareWindowsPrefix({
      base,
      tools: fake.tools,
      windows: ws2019,
      env: { ...env, FAKE_REG_EXIT: '1' },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WinePrefixError);
    expect((err as Error).message).toContain('reg import exited with status 1');
    expect(existsSync(windowsPrefixDir(base, ws2019))).toBe(false);
    expect(readFileSync(join(base, 'system.reg'), 'utf8')).toBe('WINE REGISTRY Version 2\n');
  });

  it("a server this run starts gets Wine's services from a clean process, which checks the build", async () => {
    const fake = fakeWine();
    const base = readyPrefix(join(tempDir(), 'prefix'));
    const p = await prepareWindowsPrefix({ base, tools: fake.tools, windows: ws2019, env });
    const dirty = { ...env, FAKE_WINESERVER_EXIT: '0', WINEDLLOVERRIDES: 'iphlpapi=n', HNSIM_ENDPOINT: '1' };
    expect(await startWindowsSession(fake.tools, p.dir, ws2019, 60, dirty)).toBe(true);
    const calls = fake.log().slice(2);
    expect(calls[0]).toBe(`wineserver -p60 WINEPREFIX=${p.dir}`);
    expect(calls[1]).toBe(
      `wine reg query HKLM\\Software\\Microsoft\\Windows NT\\CurrentVersion /v CurrentBuildNumber WINEPREFIX=${p.dir} WINEDEBUG=-all`,
    );
    expect(calls).toHaveLength(2); // the build is there: nothing imported again
    // the program's DLL overrides and simulator stay out of Wine's services
    expect(readFileSync(join(p.dir, 'query.env'), 'utf8')).toBe(
      'WINEDLLOVERRIDES=mscoree,mshtml=;winemenubuilder.exe=d HNSIM_ENDPOINT=\n',
    );
    // a registry that lost the build (a Wine update) gets it again
    writeFileSync(join(p.dir, 'imported.reg'), '"CurrentBuildNumber"="7601"\r\n');
    await startWindowsSession(fake.tools, p.dir, ws2019, 60, dirty);
    expect(fake.log().at(-1)).toMatch(/^wine reg import Z:.*hnsim-windows\.reg WINEPREFIX=/);
    expect(readFileSync(join(p.dir, 'imported.reg'), 'utf8')).toContain('"CurrentBuildNumber"="17763"');
    // a server already running is left as it is
    const before = fake.log().length;
    expect(await startWindowsSession(fake.tools, p.dir, ws2019, 60, env)).toBe(false);
    expect(fake.log().slice(before)).toEqual([`wineserver -p60 WINEPREFIX=${p.dir}`]);
  });
});

describe("Wine's iphlpapi.dll, kept", () => {
  it("is saved as iphlpapi_wine.dll before hnsim's goes in, and found there after", async () => {
    const fake = fakeWine();
    const dir = readyPrefix(join(tempDir(), 'prefix'));
    expect(KEPT_BUILTINS['iphlpapi.dll']).toBe('iphlpapi_wine.dll');
    expect(wineBuiltinOf(dir, 'iphlpapi.dll')).toBe(join(system32(dir), 'iphlpapi.dll'));
    const out = tempDir();
    const ours = join(out, 'iphlpapi.dll');
    writeFileSync(ours, 'hnsim v1');
    await preparePrefix({ dir, tools: fake.tools, dlls: [ours] });
    expect(readFileSync(join(system32(dir), 'iphlpapi_wine.dll')).equals(fakeBuiltin())).toBe(true);
    expect(readFileSync(join(system32(dir), 'iphlpapi.dll'), 'utf8')).toBe('hnsim v1');
    expect(wineBuiltinOf(dir, 'iphlpapi.dll')).toBe(join(system32(dir), 'iphlpapi_wine.dll'));
    // a new build of ours replaces ours, not the kept copy
    writeFileSync(ours, 'hnsim v2');
    await preparePrefix({ dir, tools: fake.tools, dlls: [ours] });
    expect(readFileSync(join(system32(dir), 'iphlpapi_wine.dll')).equals(fakeBuiltin())).toBe(true);
    expect(readFileSync(join(system32(dir), 'iphlpapi.dll'), 'utf8')).toBe('hnsim v2');
  });
});

describe('runUnderWine: the Windows of the node the program talks to', () => {
  function setup(): { wine: PreparedWine; dir: string } {
    const fake = fakeWine();
    const dir = readyPrefix(join(tempDir(), 'prefix'));
    return { wine: { tools: fake.tools, prefix: { dir, created: false, copied: [] } }, dir };
  }
  const prog = (): string => script(join(tempDir(), 'prog.exe'), 'echo "$WINEPREFIX"');

  it("runs in the prefix of the node's build: asked of the simulator (GetVersion), or given", async () => {
    const { wine, dir } = setup();
    const host = createHost({ profile: 'ws2019' });
    const tcp = await serveTcp(host, { host: '127.0.0.1', port: 0 });
    try {
      const asked = await runUnderWine({ program: prog(), env, endpoint: `127.0.0.1:${tcp.port}`, wine });
      expect(asked.stdout.trim()).toBe(`${dir}/hnsim-windows/10.0.17763`);
    } finally {
      await tcp.close();
    }
    const given = await runUnderWine({
      program: prog(),
      env,
      windows: windowsVersionOf({ name: 'hns-11.10', version: { major: 11, minor: 10 } }),
      wine,
    });
    expect(given.stdout.trim()).toBe(`${dir}/hnsim-windows/10.0.19041`);
    const none = await runUnderWine({ program: prog(), env, wine });
    expect(none.stdout.trim()).toBe(`${dir}/hnsim-windows/10.0.20348`);
  });

  it('two runs for two builds at once each see their own prefix', async () => {
    const { wine, dir } = setup();
    const [a, b] = await Promise.all(
      (['ws2019', 'ws2025'] as const).map((name) =>
        runUnderWine({
          program: prog(),
          env,
          windows: windowsVersionOf({ name, version: { major: 0, minor: 0 } }),
          wine,
        }),
      ),
    );
    expect([a!.stdout.trim(), b!.stdout.trim()]).toEqual([
      `${dir}/hnsim-windows/10.0.17763`,
      `${dir}/hnsim-windows/10.0.26100`,
    ]);
  });
});
