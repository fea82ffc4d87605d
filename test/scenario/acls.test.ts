/**
 * The scenario expectation `acls` (docs/scenarios.md): a pod's ACLs analysed whole, the rules
 * expected shadowed (and redundant) compared with what the analysis finds — on the shipped
 * scenarios/acl-analysis.yaml (allow-sub at 600 is shadowed by block-web at 500; allow-dns at 900
 * is redundant beside allow-all-out at 1000), then the same file expecting no shadowed rule, and a
 * pod the file does not have (refused when the file is loaded).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/scenario/index.js';
import { root } from '../cli/hnsim.js';

const TEXT = readFileSync(join(root, 'scenarios/acl-analysis.yaml'), 'utf8');
const WANT = '- { pod: default/web, shadowed: [allow-sub], redundant: [allow-sub, allow-dns] }';

const results = async (text: string) =>
  (await runScenario(loadScenario(text, 'acl-analysis.yaml'))).checkpoints.flatMap((c) =>
    c.results.filter((r) => r.kind === 'acls'),
  );

describe('expect.acls', () => {
  it('holds on the shipped scenario', async () => {
    expect(TEXT).toContain(WANT);
    const [r] = await results(TEXT);
    expect(r).toMatchObject({
      ok: true,
      label: 'default/web: shadowed allow-sub; redundant allow-dns, allow-sub',
    });
  });

  it('expecting no shadowed and no redundant rule: fails, naming each rule and why', async () => {
    const [r] = await results(TEXT.replace(WANT, '- { pod: default/web, shadowed: [], redundant: [] }'));
    expect(r!.ok).toBe(false);
    expect(r!.problems).toEqual([
      'expected shadowed none, found allow-sub:',
      'allow-sub (Allow 600) decides nothing: block-web take(s) its packets',
      'expected redundant none, found allow-dns, allow-sub:',
      'allow-sub (Allow 600) could go: no verdict would change',
      'allow-dns (Allow 900) could go: no verdict would change',
    ]);
  });

  it('expecting the wrong rules: says what each expected one does instead', async () => {
    const [r] = await results(
      TEXT.replace(WANT, '- { pod: default/web, shadowed: [block-web, nope], redundant: [allow-all-in] }'),
    );
    expect(r!.problems).toEqual([
      'expected shadowed block-web, nope, found allow-sub:',
      'allow-sub (Allow 600) decides nothing: block-web take(s) its packets',
      'block-web (Block 500) is not shadowed: it decides TCP to 10.244.2.3 port 80 from 10.244.0.0/16 except 10.244.3.7',
      'nope: the port has no such rule',
      'expected redundant allow-all-in, found allow-dns, allow-sub:',
      'allow-sub (Allow 600) could go: no verdict would change',
      'allow-dns (Allow 900) could go: no verdict would change',
      'allow-all-in (Allow 1000) is needed: removing it changes any protocol except TCP to 10.244.2.3; TCP to 10.244.2.3 port 0-79, 81-65535; … and 1 more',
    ]);
  });

  it('a pod the file does not have is refused when the file is loaded', () => {
    expect(() =>
      loadScenario(TEXT.replace(WANT, '- { pod: default/nope, shadowed: [] }'), 'acl-analysis.yaml'),
    ).toThrow(/expect\.acls\[0\]\.pod: no pod default\/nope in this scenario/);
  });
});
