// The determinism rule of the lint setup: Math.random, Date.now and new Date() only in src/core.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const code = 'export const a = Math.random();\nexport const b = Date.now();\nexport const c = new Date();\n';

async function messages(filePath: string): Promise<string[]> {
  const eslint = new ESLint();
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe('lint: determinism', () => {
  it('forbids randomness and wall time outside src/core', async () => {
    for (const file of ['src/hns/x.ts', 'test/x.test.ts', 'bench/x.ts']) {
      expect(await messages(file)).toEqual([
        'no-restricted-properties',
        'no-restricted-properties',
        'no-restricted-syntax',
      ]);
    }
  });

  it('allows them in src/core', async () => {
    expect(await messages('src/core/x.ts')).toEqual([]);
  });
});
