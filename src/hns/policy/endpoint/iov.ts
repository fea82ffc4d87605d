/**
 * `Iov` endpoint policy (HNS schema 2.9; hcsshim constant `IOV` = "Iov"): SR-IOV offload settings
 * of the endpoint's port (reference hns-hcs.md §2.2). `InterruptModeration` is a uint32 in hcsshim
 * and a string enum in the schema; both are accepted and the hcsshim number is emitted.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { putNum, uintField, UINT32_MAX } from '../fields.js';

/** hcsshim `InterruptModerationValue` ↔ schema `IovInterruptModerationType`. */
export const IOV_INTERRUPT_MODERATION: Readonly<Record<string, number>> = {
  IovInterruptModerationDefault: 0,
  IovInterruptModerationAdaptive: 1,
  IovInterruptModerationOff: 2,
  IovInterruptModerationLow: 100,
  IovInterruptModerationMedium: 200,
  IovInterruptModerationHigh: 300,
};
const MODERATION_VALUES = new Set(Object.values(IOV_INTERRUPT_MODERATION));

export interface IovSettings {
  /** 0 disables IOV offload. */
  readonly iovOffloadWeight: number;
  readonly queuePairsRequested: number;
  /** 0 Default, 1 Adaptive, 2 Off, 100 Low, 200 Medium, 300 High. */
  readonly interruptModeration: number;
}

function readModeration(r: Reader): number {
  const raw = r.raw('InterruptModeration');
  if (typeof raw === 'string') {
    const v = IOV_INTERRUPT_MODERATION[raw];
    if (v === undefined) r.fail(`InterruptModeration "${raw}" is not an IovInterruptModerationType`);
    return v;
  }
  const v = uintField(r, 'InterruptModeration', UINT32_MAX);
  if (!MODERATION_VALUES.has(v)) r.fail(`InterruptModeration ${v} is not one of 0, 1, 2, 100, 200, 300`);
  return v;
}

function parse(r: Reader): IovSettings {
  return {
    iovOffloadWeight: uintField(r, 'IovOffloadWeight', UINT32_MAX),
    queuePairsRequested: uintField(r, 'QueuePairsRequested', UINT32_MAX),
    interruptModeration: readModeration(r),
  };
}

function serialize(s: IovSettings): JsonObject {
  const out: JsonObject = {};
  putNum(out, 'IovOffloadWeight', s.iovOffloadWeight);
  putNum(out, 'QueuePairsRequested', s.queuePairsRequested);
  putNum(out, 'InterruptModeration', s.interruptModeration);
  return out;
}

export const iovPolicy: PolicyModule<IovSettings> = {
  type: 'Iov',
  scopes: ['endpoint'],
  multiple: false,
  parse,
  serialize,
  key: (s) => [s.iovOffloadWeight, s.queuePairsRequested, s.interruptModeration].join('|'),
};
