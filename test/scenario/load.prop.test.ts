/**
 * The loader under random damage: mutations of valid scenario files — of their text (characters
 * cut, YAML punctuation inserted, lines doubled or swapped) and of their tree (a value replaced by
 * any JSON, a key dropped or added) — never crash it: each mutant loads, or is refused with
 * ScenarioLoadError issues that all carry a line and column inside the file, and (for mutants that
 * are still YAML) the path of what is wrong. Mutants that load also run without an unexpected
 * exception (a refusal of the simulator is a ScenarioSetupError).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  loadScenario,
  runScenario,
  ScenarioLoadError,
  ScenarioSetupError,
  type Scenario,
} from '../../src/scenario/index.js';
import { runs } from '../runs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BASES = ['quick-start.yaml', 'hns-restart.yaml', 'nat-port-mappings.yaml'].map((f) =>
  readFileSync(join(root, 'scenarios', f), 'utf8'),
);

type Outcome = { ok: true; scenario: Scenario } | { ok: false; error: ScenarioLoadError };

/** Load, failing the property on anything but a ScenarioLoadError with well-placed issues. */
function load(text: string): Outcome {
  try {
    return { ok: true, scenario: loadScenario(text, 'm.yaml') };
  } catch (e) {
    if (!(e instanceof ScenarioLoadError)) throw e;
    const lineCount = text.split('\n').length;
    expect(e.issues.length).toBeGreaterThan(0);
    for (const i of e.issues) {
      expect(i.file).toBe('m.yaml');
      expect(i.line).toBeGreaterThanOrEqual(1);
      expect(i.line).toBeLessThanOrEqual(lineCount + 1);
      expect(i.col).toBeGreaterThanOrEqual(1);
      expect(i.message.length).toBeGreaterThan(0);
    }
    return { ok: false, error: e };
  }
}

const PUNCTUATION = [
  ':',
  '-',
  '[',
  ']',
  '{',
  '}',
  '&a',
  '*a',
  '!!',
  '#',
  "'",
  '"',
  '\n',
  '  ',
  '|',
  '>',
  '%',
  '@',
  'x',
  '1',
  ',',
  '? ',
];

const textMutation = (base: string) =>
  fc.oneof(
    fc
      .record({
        at: fc.nat(base.length),
        cut: fc.integer({ min: 1, max: 20 }),
      })
      .map(({ at, cut }) => base.slice(0, at) + base.slice(at + cut)),
    fc
      .record({
        at: fc.nat(base.length),
        add: fc
          .array(fc.constantFrom(...PUNCTUATION), { minLength: 1, maxLength: 4 })
          .map((xs) => xs.join('')),
      })
      .map(({ at, add }) => base.slice(0, at) + add + base.slice(at)),
    fc.record({ a: fc.nat(), b: fc.nat() }).map(({ a, b }) => {
      const lines = base.split('\n');
      const i = a % lines.length;
      const j = b % lines.length;
      const out = [...lines];
      [out[i], out[j]] = [out[j]!, out[i]!];
      return out.join('\n');
    }),
    fc.nat().map((a) => {
      const lines = base.split('\n');
      const i = a % lines.length;
      return [...lines.slice(0, i + 1), lines[i]!, ...lines.slice(i + 1)].join('\n');
    }),
  );

type Tree = unknown;

/** Every path of a tree (to values inside maps and lists). */
function paths(t: Tree, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(t)) t.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (t && typeof t === 'object')
    for (const [k, v] of Object.entries(t)) out.push(...paths(v, [...prefix, k]));
  return out;
}

function mutateAt(
  t: Tree,
  path: readonly (string | number)[],
  f: (parent: unknown, key: string | number) => void,
): Tree {
  const copy = structuredClone(t);
  if (path.length === 0) return copy;
  let parent: unknown = copy;
  for (const k of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[k];
  f(parent, path[path.length - 1]!);
  return copy;
}

const anyJson = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const anyKey = fc.oneof(
  fc.constantFrom(
    'name',
    'node',
    'hosts',
    'pods',
    'expect',
    'replicas',
    'cni',
    'flannel',
    '__proto__',
    'steps',
  ),
  fc.string({ maxLength: 8 }),
);

const treeMutation = (tree: Tree) => {
  const all = paths(tree);
  return fc
    .record({ which: fc.nat(all.length - 1), kind: fc.nat(2), value: anyJson, key: anyKey })
    .map(({ which, kind, value, key }) => {
      const path = all[which]!;
      if (kind === 0 || path.length === 0)
        return path.length === 0
          ? value
          : mutateAt(tree, path, (p, k) => ((p as Record<string | number, unknown>)[k] = value));
      if (kind === 1)
        return mutateAt(tree, path, (p, k) => {
          if (Array.isArray(p)) p.splice(k as number, 1);
          else delete (p as Record<string, unknown>)[k as string];
        });
      return mutateAt(tree, path, (p, k) => {
        const target = (p as Record<string | number, unknown>)[k];
        if (target && typeof target === 'object' && !Array.isArray(target))
          Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
      });
    });
};

describe('the loader under random mutations', () => {
  it.each(BASES.map((b, i) => [i, b] as const))(
    'text mutations of base %i: loads, or issues with positions',
    (_i, base) => {
      fc.assert(
        fc.property(textMutation(base), (text) => void load(text)),
        { numRuns: runs(30, 1_500) },
      );
    },
  );

  it.each(BASES.map((b, i) => [i, b] as const))(
    'tree mutations of base %i: loads, or issues with paths',
    (_i, base) => {
      const tree = parse(base) as Tree;
      fc.assert(
        fc.property(treeMutation(tree), (mutant) => {
          const r = load(stringify(mutant));
          if (r.ok) return;
          for (const i of r.error.issues)
            expect(
              i.path !== '' ||
                /missing required key|a scenario is a mapping|this hnsim reads/.test(i.message),
              `${i.path}: ${i.message}`,
            ).toBe(true);
        }),
        { numRuns: runs(30, 1_500) },
      );
    },
  );

  it('mutants that load also run: they meet their expectations or not, or the simulator refuses them', async () => {
    const tree = parse(BASES[0]!) as Tree;
    await fc.assert(
      fc.asyncProperty(treeMutation(tree), async (mutant) => {
        const r = load(stringify(mutant));
        if (!r.ok) return;
        try {
          await runScenario(r.scenario);
        } catch (e) {
          if (!(e instanceof ScenarioSetupError)) throw e;
          expect(e.at.line).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: runs(8, 400) },
    );
  });
});
