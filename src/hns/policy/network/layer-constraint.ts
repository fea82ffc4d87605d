/**
 * `LayerConstraint` network policy: layers this network on another one's switch layer, by id
 * (reference hns-hcs.md §2.1; ncproxy reads `Health.Extra.LayeredOn`). One per network.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { requiredGuid } from '../fields.js';

export interface LayerConstraintSettings {
  readonly layerId: string;
  readonly layerIdCanonical: string;
}

function parse(r: Reader): LayerConstraintSettings {
  const id = requiredGuid(r, 'LayerId');
  return { layerId: id.text, layerIdCanonical: id.canonical };
}

export const layerConstraintPolicy: PolicyModule<LayerConstraintSettings> = {
  type: 'LayerConstraint',
  scopes: ['network'],
  multiple: false,
  parse,
  serialize: (s): JsonObject => ({ LayerId: s.layerId }),
  key: (s) => s.layerIdCanonical,
};
