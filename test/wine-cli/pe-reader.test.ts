/**
 * The PE reader the Wine build checks its DLLs with (test/wine/build.test.ts reads real ones): what
 * is not a PE image is refused, naming why.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPeExports, readPeImports } from '../../src/wine/build.js';

const scratch = mkdtempSync(join(tmpdir(), 'hnsim-pe-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('PE reader', () => {
  it('refuses a file that is not a PE image', () => {
    const f = join(scratch, 'not-pe.dll');
    writeFileSync(f, 'MZ but nothing else');
    expect(() => readPeExports(f)).toThrow(/not a PE image/);
    expect(() => readPeImports(f)).toThrow(/not a PE image/);
  });
});
