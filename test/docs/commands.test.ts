// Every command line of README.md, docs/*.md and the help texts, run as a reader runs it (the
// conventions are in test/docs/commands.ts and docs/cli.md, "Commands in these pages"): in a fresh
// folder with the files the page shows, exiting as the page says and printing what it shows. A
// failure names the page (or help text) and line. `hnsim wine` lines and commands on the reader's
// own files are parsed, not run; the Wine suite runs the wine ones (test/wine/doc-commands.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  helpBlock,
  helpTexts,
  mismatch,
  pageBlocks,
  pageInline,
  refusedOptions,
  parseCheck,
  runBlock,
  startCli,
  undescribedOptions,
  type Cli,
  type DocBlock,
  type DocCommand,
} from './commands.js';

let cli: Cli;
beforeAll(async () => {
  cli = await startCli();
}, 120_000);

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-docs-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  cli.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Run what `npm test` runs of a block, parse-check the rest; the problems, by place. */
async function check(block: DocBlock): Promise<string[]> {
  const problems: string[] = [];
  const runs = (c: DocCommand): boolean => c.mode === 'run' && !c.wine;
  for (const ran of await runBlock(block, freshDir(), cli, { modes: runs })) {
    const why = mismatch(ran);
    if (why) problems.push(why);
  }
  for (const c of block.commands.filter((c) => c.hnsim && !runs(c))) {
    const why = await parseCheck(c);
    if (why) problems.push(why);
  }
  return problems;
}

/** Pages whose commands another test runs and compares exactly (in-process). */
const EXACT: ReadonlyMap<string, string> = new Map([['docs/tutorial.md', 'test/docs/tutorial.test.ts']]);

const blocks = pageBlocks();
const inline = pageInline();
const help = await helpTexts();

describe('the pages: README.md and docs/*.md', () => {
  it('have command lines to run', () => {
    expect(blocks.length).toBeGreaterThan(5);
    expect(inline.commands.length).toBeGreaterThan(3);
  });

  it('write `npx hnsim …` in their commands (a bare hnsim is not on PATH in a checkout)', () => {
    const bare = [...blocks.flatMap((b) => b.commands), ...inline.commands]
      .filter((c) => c.bare)
      .map((c) => `${c.file}:${c.line}: ${c.text}`);
    expect(bare).toEqual([]);
  });

  it.each(blocks.filter((b) => !EXACT.has(b.file)).map((b) => [`${b.file}:${b.line}`, b] as const))(
    'the block at %s runs as written',
    async (_, block) => {
      expect(await check(block)).toEqual([]);
    },
  );

  it('the whole `npx hnsim …` commands of their sentences run', async () => {
    const problems: string[] = [];
    for (const c of inline.commands) {
      const files = blocks.find((b) => b.file === c.file)?.files ?? new Map<string, string>();
      const block: DocBlock = { file: c.file, line: c.line, commands: [c], files, bareHnsim: false };
      problems.push(...(await check(block)));
    }
    expect(problems).toEqual([]);
  });

  it('name commands and options that exist in their synopses and references', async () => {
    const problems: string[] = [];
    for (const r of inline.references) {
      if (r.command === undefined) continue;
      const text = help.get(r.command === 'help' ? 'hnsim --help' : `hnsim ${r.command} --help`);
      if (text === undefined) {
        problems.push(`${r.file}:${r.line}: \`${r.text}\`: no command "${r.command}"`);
        continue;
      }
      for (const o of r.options) {
        if (!new RegExp(`(^|[\\s[,])${o}\\b`, 'm').test(text))
          problems.push(`${r.file}:${r.line}: \`${r.text}\`: hnsim ${r.command} has no ${o}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the help texts', () => {
  // the files the help examples use are the ones docs/cni.md shows
  const files = blocks.find((b) => b.file === 'docs/cni.md')?.files ?? new Map<string, string>();

  it('cover every command', () => {
    expect([...help.keys()]).toEqual(
      expect.arrayContaining(['hnsim --help', 'hnsim run --help', 'hnsim call --help', 'hnsim wine --help']),
    );
    expect(files.size).toBeGreaterThan(0);
  });

  it.each([...help].map(([name, text]) => [name, text] as const))(
    '%s: its examples run',
    async (name, text) => {
      expect(await check(helpBlock(name, text, files))).toEqual([]);
    },
  );

  it.each([...help].map(([name, text]) => [name, text] as const))(
    '%s: every option of its usage lines is described',
    (_, text) => {
      expect(undescribedOptions(text)).toEqual([]);
    },
  );

  it.each([...help].filter(([name]) => name !== 'hnsim --help').map(([name, text]) => [name, text] as const))(
    '%s: every option it names is one the command takes',
    async (name, text) => {
      expect(await refusedOptions(name.split(' ')[1]!, text)).toEqual([]);
    },
  );
});
