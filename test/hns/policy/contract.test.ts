/**
 * The shared contract battery (STYLE.md "Shared contract tests"): every policy module, in every
 * scope it allows, must round-trip its valid samples exactly, reject bad settings with
 * HCN_E_INVALID_POLICY, refuse other scopes and missing features with HCN_E_INVALID_POLICY_TYPE,
 * and never touch its input.
 */
import { describe, expect, it } from 'vitest';
import { HnsError } from '../../../src/core/errors.js';
import type { Json, JsonObject } from '../../../src/core/json.js';
import type { PolicyContext, PolicyModule, PolicyScope } from '../../../src/hns/policy/contracts.js';
import {
  parsePolicy,
  POLICY_MODULES,
  POLICY_TYPES,
  policyClaims,
  policyKey,
  serializePolicy,
} from '../../../src/hns/policy/index.js';
import { supports, type HnsVersion } from '../../../src/hns/versions.js';
import { SAMPLES, TYPES_WITHOUT_BAD_SETTINGS } from './samples.js';

const INVALID_POLICY = 0x803b000d;
const INVALID_POLICY_TYPE = 0x803b000e;
const FULL: HnsVersion = { major: 15, minor: 4 };
const SCOPES: readonly PolicyScope[] = ['network', 'endpoint', 'subnet'];

/** The v1-only types (VNET, Isolation) parse only where a policy came through v1. */
function ctx(scope: PolicyScope, version: HnsVersion = FULL, v1 = true): PolicyContext {
  return { version, scope, networkType: 'Overlay', v1 };
}

function hresultOf(f: () => unknown): number | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HnsError);
    return (e as HnsError).hresult;
  }
  return undefined;
}

/** Versions to look for one that lacks a module's feature. */
const OLD_VERSIONS: readonly HnsVersion[] = [
  { major: 7, minor: 1 },
  { major: 9, minor: 2 },
  { major: 10, minor: 0 },
  { major: 13, minor: 0 },
  { major: 14, minor: 0 },
];

describe('policy contract battery', () => {
  it('has samples for every module and every module in a type list', () => {
    for (const m of POLICY_MODULES) {
      expect(SAMPLES[m.type], m.type).toBeDefined();
      expect(SAMPLES[m.type]!.valid.length, m.type).toBeGreaterThan(0);
      if (!TYPES_WITHOUT_BAD_SETTINGS.includes(m.type))
        expect(SAMPLES[m.type]!.bad.length, m.type).toBeGreaterThan(0);
      for (const s of m.scopes) expect(POLICY_TYPES[s]).toContain(m.type);
    }
    expect(Object.keys(SAMPLES).sort()).toEqual(POLICY_MODULES.map((m) => m.type).sort());
    const lower = POLICY_MODULES.map((m) => m.type.toLowerCase());
    expect(new Set(lower).size, 'Type names unique, case-insensitively').toBe(lower.length);
  });

  describe.each(POLICY_MODULES.map((m): [string, PolicyModule] => [m.type, m]))('%s', (type, m) => {
    const samples = SAMPLES[type]!;

    describe.each(m.scopes.map((s) => [s]))('in %s scope', (scope) => {
      it.each(samples.valid.map((s, i): [number, JsonObject] => [i, s]))(
        'valid sample %i round-trips to the same record and the same JSON',
        (_i, settings) => {
          const before = JSON.stringify(settings);
          const p1 = parsePolicy({ Type: type, Settings: settings }, ctx(scope));
          expect(JSON.stringify(settings)).toBe(before); // input untouched
          expect(p1.type).toBe(m.type);
          const j1 = serializePolicy(p1);
          expect(Object.keys(j1)).toEqual(['Type', 'Settings']);
          expect(j1['Type']).toBe(m.type);
          // pure JSON: survives stringify/parse unchanged
          expect(JSON.parse(JSON.stringify(j1))).toEqual(j1);
          const p2 = parsePolicy(j1, ctx(scope));
          expect(p2).toEqual(p1);
          expect(JSON.stringify(serializePolicy(p2))).toBe(JSON.stringify(j1));
          expect(policyKey(p2)).toBe(policyKey(p1));
          expect(policyKey(p1).startsWith(`${m.type}/`)).toBe(true);
          expect(policyClaims(p2)).toEqual(policyClaims(p1));
        },
      );

      if (samples.bad.length > 0) {
        it.each(samples.bad.map((s): [string, JsonObject] => [JSON.stringify(s), s]))(
          'bad settings %s → HCN_E_INVALID_POLICY',
          (_s, settings) => {
            expect(hresultOf(() => parsePolicy({ Type: type, Settings: settings }, ctx(scope)))).toBe(
              INVALID_POLICY,
            );
          },
        );
      }

      it.each([[5], ['{}'], [[]], [true]] as [Json][])(
        'Settings %j (not an object) → HCN_E_INVALID_POLICY',
        (bad) => {
          expect(hresultOf(() => parsePolicy({ Type: type, Settings: bad }, ctx(scope)))).toBe(
            INVALID_POLICY,
          );
        },
      );

      it('treats missing and null Settings as {}', () => {
        const outcome = (raw: Json) => {
          try {
            return { ok: serializePolicy(parsePolicy(raw, ctx(scope))) };
          } catch (e) {
            return { err: (e as HnsError).hresult };
          }
        };
        const empty = outcome({ Type: type, Settings: {} });
        expect(outcome({ Type: type })).toEqual(empty);
        expect(outcome({ Type: type, Settings: null })).toEqual(empty);
      });

      it('matches the Type case-insensitively and emits the Windows spelling', () => {
        for (const spelled of [type.toLowerCase(), type.toUpperCase()]) {
          const p = parsePolicy({ Type: spelled, Settings: samples.valid[0]! }, ctx(scope));
          expect(p.type).toBe(m.type);
          expect(serializePolicy(p)['Type']).toBe(m.type);
        }
      });
    });

    const otherScopes = SCOPES.filter((s) => !m.scopes.includes(s));
    if (otherScopes.length > 0) {
      it.each(otherScopes.map((s) => [s]))('is HCN_E_INVALID_POLICY_TYPE in %s scope', (scope) => {
        expect(hresultOf(() => parsePolicy({ Type: type, Settings: samples.valid[0]! }, ctx(scope)))).toBe(
          INVALID_POLICY_TYPE,
        );
      });
    }

    if (m.v1Only) {
      it('exists only through v1: an HCN v2 document naming it is HCN_E_INVALID_POLICY_TYPE', () => {
        const raw = { Type: type, Settings: samples.valid[0]! };
        expect(hresultOf(() => parsePolicy(raw, ctx(m.scopes[0]!, FULL, false)))).toBe(INVALID_POLICY_TYPE);
      });
    }

    if (m.feature) {
      const feature = m.feature;
      it(`is HCN_E_INVALID_POLICY_TYPE on a host without feature ${feature}`, () => {
        const old = OLD_VERSIONS.find((v) => !supports(v, feature));
        expect(old, 'a version lacking the feature').toBeDefined();
        const raw = { Type: type, Settings: samples.valid[0]! };
        expect(hresultOf(() => parsePolicy(raw, ctx(m.scopes[0]!, old)))).toBe(INVALID_POLICY_TYPE);
      });
    }
  });
});
