/**
 * The browser tests' suite kit (issue 18): skip or fail without Chromium (as test/wine/kit.ts does
 * without Wine), and screenshots compared with committed baselines.
 *
 *   describeUi('the quick-start page', () => {
 *     it('…', async () => {
 *       matchBaseline('first-step', await page.screenshot());
 *     });
 *   });
 *
 * Baselines: test/ui-browser/baselines/NAME.png. `HNSIM_UPDATE_BASELINES=1 npm run test:ui`
 * rewrites them from this run instead of comparing (look at the new pictures before committing
 * them). A comparison that fails leaves the actual picture and a diff picture (differing pixels in
 * red) in the system's temporary folder and names them in the message.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { describe, it } from 'vitest';
import { chromiumMissing, ROOT, UI_REQUIRED } from './browser.js';

export * from './browser.js';

/**
 * `describe` for a suite that needs the browser: skipped with the reason when Chromium is missing,
 * or, under HNSIM_UI_REQUIRED=1, one failing test saying what to install.
 */
export function describeUi(name: string, fn: () => void): void {
  const missing = chromiumMissing();
  if (missing === undefined) {
    describe(name, fn);
  } else if (UI_REQUIRED) {
    describe(name, () => {
      it('has Chromium (HNSIM_UI_REQUIRED=1)', () => {
        throw new Error(missing);
      });
    });
  } else {
    process.stderr.write(`test/ui-browser: skipping "${name}": ${missing.split('\n').join(' ')}\n`);
    describe.skip(`${name} — skipped: ${missing.split('\n')[0]}`, fn);
  }
}

export const BASELINES = join(ROOT, 'test', 'ui-browser', 'baselines');
export const UPDATE_BASELINES = process.env['HNSIM_UPDATE_BASELINES'] === '1';

/**
 * The tolerance of a screenshot comparison. A pixel differs when pixelmatch's colour distance
 * (YIQ, 0..1) is above PIXEL_THRESHOLD — 0.1, pixelmatch's default: below it a person sees no
 * difference — and it is not an anti-aliasing pixel (pixelmatch recognises those: the soft edge of
 * a glyph or a line, which another build of Chromium or FreeType may shade differently). A picture
 * matches when at most MAX_DIFF_RATIO of its pixels differ: 0.1 % of 1280 × 800 = 1024 pixels.
 *
 * What it catches: a box moved, added or missing, a layout change, a theme or stylesheet not
 * applied, a panel gone — thousands of pixels each. What it lets through: anti-aliasing and
 * sub-pixel text placement (Chromium renders in software here: the same build on the same machine
 * gives identical pictures run after run), and small text edits (a changed character is ~10-25
 * pixels once glyph edges are discounted). Text is not what the screenshots are for: the other
 * browser tests compare every narrated word, label, JSON document and hop with the simulator's.
 */
export const PIXEL_THRESHOLD = 0.1;
export const MAX_DIFF_RATIO = 0.001;

export interface Comparison {
  readonly differing: number;
  readonly total: number;
  /** Where the actual and diff pictures were left, when they differ. */
  readonly saved?: { readonly actual: string; readonly diff: string };
}

/** Compares two PNG pictures (same size), pixelmatch's way; undefined sizes differ. */
export function comparePng(
  actual: Buffer,
  expected: Buffer,
): { differing: number; total: number; diff: PNG } {
  const a = PNG.sync.read(actual);
  const e = PNG.sync.read(expected);
  if (a.width !== e.width || a.height !== e.height) {
    throw new Error(
      `the pictures differ in size: ${a.width}×${a.height}, the baseline ${e.width}×${e.height}`,
    );
  }
  const diff = new PNG({ width: a.width, height: a.height });
  const differing = pixelmatch(a.data, e.data, diff.data, a.width, a.height, {
    threshold: PIXEL_THRESHOLD,
    includeAA: false,
  });
  return { differing, total: a.width * a.height, diff };
}

/**
 * Compares a screenshot with baselines/NAME.png; throws, naming the pictures left behind, when
 * more than MAX_DIFF_RATIO of its pixels differ or the baseline is missing. With
 * HNSIM_UPDATE_BASELINES=1 the screenshot becomes the baseline.
 */
export function matchBaseline(name: string, png: Buffer): Comparison {
  const path = join(BASELINES, `${name}.png`);
  if (UPDATE_BASELINES) {
    mkdirSync(BASELINES, { recursive: true });
    writeFileSync(path, png);
    const total = PNG.sync.read(png).width * PNG.sync.read(png).height;
    return { differing: 0, total };
  }
  if (!existsSync(path)) {
    const saved = save(name, png, undefined);
    throw new Error(
      `no baseline ${path} (this run's picture: ${saved.actual}); ` +
        'HNSIM_UPDATE_BASELINES=1 npm run test:ui writes the baselines',
    );
  }
  const { differing, total, diff } = comparePng(png, readFileSync(path));
  if (differing <= total * MAX_DIFF_RATIO) {
    if (differing > 0)
      process.stderr.write(`screenshot ${name}: ${differing} pixels differ (within the tolerance)\n`);
    return { differing, total };
  }
  const saved = save(name, png, diff);
  throw new Error(
    `screenshot ${name}: ${differing} of ${total} pixels differ from ${path} ` +
      `(at most ${Math.floor(total * MAX_DIFF_RATIO)} allowed); this run's picture: ${saved.actual}, ` +
      `the difference in red: ${saved.diff}. If the change is intended: HNSIM_UPDATE_BASELINES=1 npm run test:ui`,
  );
}

let outDir: string | undefined;
function save(name: string, png: Buffer, diff: PNG | undefined): { actual: string; diff: string } {
  outDir ??= mkdtempSync(join(tmpdir(), 'hnsim-ui-shots-'));
  const actual = join(outDir, `${name}.actual.png`);
  const diffPath = join(outDir, `${name}.diff.png`);
  writeFileSync(actual, png);
  if (diff) writeFileSync(diffPath, PNG.sync.write(diff));
  return { actual, diff: diffPath };
}
