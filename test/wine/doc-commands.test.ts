// The `hnsim wine` command lines of README.md, docs/*.md and the --help texts, run under Wine as a
// reader runs them (`npm test` only parses them: test/docs/commands.test.ts, whose extraction and
// runner this uses; the conventions are in test/docs/commands.ts). Lines on the reader's own plugin
// binaries (`~/cni/bin/win-bridge.exe`, `./win-bridge.exe`) run with real ones when
// HNSIM_REAL_PLUGINS_DIR names a folder holding win-bridge.exe and host-local.exe (built from
// containernetworking/plugins, as test/wine/real-plugins.test.ts says): the folder is the reader's
// ~/cni/bin (HOME is the block's folder) and its .exe files sit in the block's folder too. Without
// it, those lines are only parsed, and the test says so.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultPrefixDir } from '../../src/wine/prefix.js';
import {
  helpBlock,
  helpTexts,
  mismatch,
  pageBlocks,
  parseCheck,
  runBlock,
  startCli,
  type Cli,
  type DocBlock,
  type DocCommand,
} from '../docs/commands.js';
import { describeWine } from './kit.js';

const ENV_DIR = process.env['HNSIM_REAL_PLUGINS_DIR'];
const REAL = ENV_DIR ? resolve(ENV_DIR) : undefined;
const HAVE_REAL =
  REAL !== undefined && ['win-bridge.exe', 'host-local.exe'].every((f) => existsSync(join(REAL, f)));

const pageWine = pageBlocks().filter((b) => b.commands.some((c) => c.wine));
const help = await helpTexts();
// the help texts use the files docs/cni.md shows; a real host-local keeps its reservations in the
// block's folder (cni-ipam) rather than in this machine's /var/lib/cni/networks, its default
const files = new Map(pageBlocks().find((b) => b.file === 'docs/cni.md')?.files ?? []);
const conf = files.get('win-bridge.conf');
if (conf !== undefined) {
  const doc = JSON.parse(conf) as { ipam?: Record<string, unknown> };
  if (doc.ipam) doc.ipam['dataDir'] ??= 'cni-ipam';
  files.set('win-bridge.conf', JSON.stringify(doc) + '\n');
}
const helpWine = [...help]
  .map(([name, text]) => helpBlock(name, text, files))
  .filter((b) => b.commands.some((c) => c.wine));

let cli: Cli;
const dirs: string[] = [];

describeWine("the pages' and help texts' hnsim wine lines", () => {
  beforeAll(async () => {
    cli = await startCli();
  }, 120_000);
  afterAll(() => {
    cli.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('has wine lines to run', () => {
    expect(pageWine.length + helpWine.length).toBeGreaterThan(0);
  });

  /** A block's folder: the reader's ~/cni/bin and ./*.exe are the real plugins when given. */
  function blockDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'hnsim-wine-docs-'));
    dirs.push(dir);
    if (HAVE_REAL) {
      mkdirSync(join(dir, 'cni'));
      symlinkSync(REAL!, join(dir, 'cni', 'bin'));
      for (const f of readdirSync(REAL!).filter((n) => n.endsWith('.exe')))
        symlinkSync(join(REAL!, f), join(dir, f));
    }
    return dir;
  }

  const runs = (c: DocCommand): boolean => c.mode === 'run' || (c.mode === 'check' && HAVE_REAL);

  it.each([...pageWine, ...helpWine].map((b) => [`${b.file}:${b.line}`, b] as const))(
    'the block at %s runs under Wine as written',
    async (_, block: DocBlock) => {
      const dir = blockDir();
      const env = {
        // the reader's home is the block's folder; the Wine prefix stays the one in use
        HOME: dir,
        HNSIM_WINE_PREFIX: process.env['HNSIM_WINE_PREFIX'] ?? defaultPrefixDir(process.env),
      };
      const problems: string[] = [];
      for (const ran of await runBlock(block, dir, cli, { env, modes: runs })) {
        const why = mismatch(ran);
        if (why) problems.push(why);
      }
      const notRun = block.commands.filter((c) => c.hnsim && !runs(c));
      for (const c of notRun) {
        const why = await parseCheck(c);
        if (why) problems.push(why);
      }
      if (notRun.length > 0) {
        process.stderr.write(
          `test/wine/doc-commands: ${block.file}:${block.line}: parsed, not run (HNSIM_REAL_PLUGINS_DIR is not set): ` +
            notRun.map((c) => `line ${c.line}`).join(', ') +
            '\n',
        );
      }
      expect(problems).toEqual([]);
    },
    600_000,
  );
});
