/**
 * `VSwitchExtension` network policy: enables or disables a Hyper-V switch extension on the
 * network's switch (reference hns-hcs.md §2.1). One policy per extension id.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { boolField, putBool, requiredGuid } from '../fields.js';

export interface VSwitchExtensionSettings {
  readonly extensionId: string;
  readonly extensionIdCanonical: string;
  readonly enable: boolean;
}

function parse(r: Reader): VSwitchExtensionSettings {
  const id = requiredGuid(r, 'ExtensionID');
  return { extensionId: id.text, extensionIdCanonical: id.canonical, enable: boolField(r, 'Enable') };
}

function serialize(s: VSwitchExtensionSettings): JsonObject {
  const out: JsonObject = { ExtensionID: s.extensionId };
  putBool(out, 'Enable', s.enable);
  return out;
}

export const vSwitchExtensionPolicy: PolicyModule<VSwitchExtensionSettings> = {
  type: 'VSwitchExtension',
  scopes: ['network'],
  parse,
  serialize,
  key: (s) => s.extensionIdCanonical,
};
