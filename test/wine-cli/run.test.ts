// src/wine/run.ts with a fake `wine` that runs shell scripts as "programs": what the program gets
// (the caller's environment, HNSIM_ENDPOINT, Wine's variables, its arguments and stdin), what comes
// back (exit code, stdout, stderr), and the failure paths (no program, a timeout, a pipe a Wine
// service keeps open: reference wine-shim.md §1).
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkProgram,
  HNSIM_DLL_OVERRIDES,
  runUnderWine,
  WineProgramError,
  type PreparedWine,
} from '../../src/wine/run.js';
import { cleanup, fakeWine, readyPrefix, script, tempDir } from './fakes.js';

afterEach(cleanup);

function setup(): { wine: PreparedWine; dir: string; log: () => string[] } {
  const fake = fakeWine();
  const dir = readyPrefix(join(tempDir(), 'prefix'));
  return { wine: { tools: fake.tools, prefix: { dir, created: false, copied: [] } }, dir, log: fake.log };
}

/** A "Windows program": a shell script the fake wine runs. */
function program(body: string): string {
  return script(join(tempDir(), 'prog.exe'), body);
}

const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/home/me', MY_VAR: 'kept' };

describe('runUnderWine', () => {
  it('passes the environment, HNSIM_ENDPOINT, the arguments and stdin; returns exit code and output', async () => {
    const { wine, dir, log } = setup();
    const prog = program(
      `echo "MY_VAR=$MY_VAR"; echo "HNSIM_ENDPOINT=$HNSIM_ENDPOINT"; echo "WINEPREFIX=$WINEPREFIX"
echo "WINEDEBUG=$WINEDEBUG"; echo "WINEDLLOVERRIDES=$WINEDLLOVERRIDES"; echo "ARGS=$*"
read line; echo "STDIN=$line"; echo oops >&2; exit 3`,
    );
    const out = await runUnderWine({
      program: prog,
      args: ['a b', '-test.v'],
      env,
      stdin: '{"cniVersion":"1.0.0"}\n',
      endpoint: '127.0.0.1:40513',
      wine,
    });
    expect(out.exitCode).toBe(3);
    expect(out.timedOut).toBe(false);
    expect(out.stderr).toBe('oops\n');
    expect(out.stdout.split('\n')).toEqual([
      'MY_VAR=kept',
      'HNSIM_ENDPOINT=127.0.0.1:40513',
      // no simulator answers there: the default profile's Windows, ws2022's build
      `WINEPREFIX=${dir}/hnsim-windows/10.0.20348`,
      'WINEDEBUG=-all',
      'WINEDLLOVERRIDES=computenetwork,vmcompute,computecore,iphlpapi=n',
      'ARGS=a b -test.v',
      'STDIN={"cniVersion":"1.0.0"}',
      '',
    ]);
    // the build's prefix written (Wine's reg import, then the server's exit saves the registry),
    // then its persistent wineserver, for a minute after the last program
    const calls = log();
    expect(calls[0]).toMatch(
      /^wine reg import Z:\\.*\\hnsim-windows\\10\.0\.20348\.tmp-\d+\\hnsim-windows\.reg WINEPREFIX=.*10\.0\.20348\.tmp-\d+ WINEDEBUG=-all$/,
    );
    expect(calls[1]).toMatch(/^wineserver -w WINEPREFIX=.*10\.0\.20348\.tmp-\d+$/);
    expect(calls[2]).toBe(`wineserver -p60 WINEPREFIX=${dir}/hnsim-windows/10.0.20348`);
  });

  it("keeps the caller's WINEDEBUG and WINEDLLOVERRIDES (hnsim's DLLs native first)", async () => {
    const { wine } = setup();
    const prog = program('echo "$WINEDEBUG|$WINEDLLOVERRIDES"');
    const out = await runUnderWine({
      program: prog,
      env: { ...env, WINEDEBUG: '+loaddll', WINEDLLOVERRIDES: 'mscoree=d' },
      wine,
    });
    expect(out.stdout).toBe(`+loaddll|${HNSIM_DLL_OVERRIDES};mscoree=d\n`);
  });

  it('--keep-wineserver starts it with -p (until wineserver -k)', async () => {
    const { wine, dir, log } = setup();
    await runUnderWine({ program: program('exit 0'), env, wine, keepWineserver: true });
    expect(log().filter((l) => l.startsWith('wineserver -p'))).toEqual([
      `wineserver -p WINEPREFIX=${dir}/hnsim-windows/10.0.20348`,
    ]);
  });

  it('streams output to writables and pipes a stdin stream', async () => {
    const { wine } = setup();
    const stdout = new PassThrough();
    const chunks: string[] = [];
    stdout.on('data', (b: Buffer) => chunks.push(b.toString()));
    const out = await runUnderWine({
      program: program('cat; echo done'),
      env,
      stdin: Readable.from(['one\n', 'two\n']),
      stdout,
      wine,
    });
    expect(out.stdout).toBe('');
    expect(chunks.join('')).toBe('one\ntwo\ndone\n');
  });

  it('runs in the given directory', async () => {
    const { wine } = setup();
    const cwd = tempDir();
    const out = await runUnderWine({ program: program('pwd'), env, cwd, wine });
    expect(out.stdout.trim()).toBe(cwd);
  });

  it('kills the program (its process group) after timeoutMs', async () => {
    const { wine } = setup();
    const started = performance.now();
    const out = await runUnderWine({ program: program('sleep 30'), env, timeoutMs: 300, wine });
    expect(out.timedOut).toBe(true);
    expect(out.exitCode).toBe(128 + 9);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('does not wait for a pipe a left-behind process holds open (a Wine service, the reference trap)', async () => {
    const { wine } = setup();
    const started = performance.now();
    // the "program" leaves a daemon behind holding stdout and stderr, and exits
    const out = await runUnderWine({ program: program('echo hi; (setsid sleep 3 &) ; exit 0'), env, wine });
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe('hi\n');
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('an abort signal stops the program', async () => {
    const { wine } = setup();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const out = await runUnderWine({ program: program('sleep 30'), env, signal: ac.signal, wine });
    expect(out.signal).toBe('SIGTERM');
    expect(out.exitCode).toBe(128 + 15);
  });
});

describe('runUnderWine: the caller going away', () => {
  it('an abort signalled while the prefix was being prepared still stops the program', async () => {
    const { wine } = setup();
    const ac = new AbortController();
    ac.abort();
    const out = await runUnderWine({ program: program('sleep 30'), env, signal: ac.signal, wine });
    expect(out.signal).toBe('SIGTERM');
    expect(out.exitCode).toBe(128 + 15);
  });

  it('a reader that went away (hnsim wine … | head) drops the output; the program runs on', async () => {
    const { wine } = setup();
    let unhandled = 0;
    const gone = new (class extends Writable {
      // an 'error' nobody listens to would crash the process (`hnsim wine … | head`): count it instead
      override emit(event: string | symbol, ...args: unknown[]): boolean {
        if (event === 'error' && this.listenerCount('error') === 0) {
          unhandled++;
          return false;
        }
        return super.emit(event, ...args);
      }
    })({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const out = await runUnderWine({
      program: program('echo one; sleep 0.2; echo two; echo err >&2; exit 4'),
      env,
      stdout: gone,
      wine,
    });
    expect(out.exitCode).toBe(4);
    expect(out.stderr).toBe('err\n');
    expect(unhandled).toBe(0);
    expect(gone.listenerCount('error')).toBe(0);
  });
});

describe('checkProgram', () => {
  it('127 for a missing program, 126 for a directory; Windows paths are left to Wine', () => {
    const missing = (() => {
      try {
        checkProgram('/nonexistent/x.exe');
      } catch (e) {
        return e;
      }
    })();
    expect(missing).toBeInstanceOf(WineProgramError);
    expect((missing as WineProgramError).exitCode).toBe(127);
    expect(() => checkProgram(tempDir())).toThrow(/not a file/);
    expect(() => checkProgram('C:\\windows\\system32\\cmd.exe')).not.toThrow();
    expect(() => checkProgram('Z:/usr/bin/x.exe')).not.toThrow();
  });

  it('runUnderWine rejects a missing program before running anything', async () => {
    const { wine, log } = setup();
    await expect(runUnderWine({ program: 'nope.exe', cwd: tempDir(), env, wine })).rejects.toMatchObject({
      exitCode: 127,
    });
    expect(log()).toEqual([]);
  });
});
