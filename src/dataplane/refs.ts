/**
 * The rule references a step of the packet path names (reference vfp-dataplane.md §5): the
 * Network's or the Endpoint's policy, its index, the VFP layer and the rule.
 */
import type { RuleRef } from '../vswitch/contracts.js';
import type { NetworkView, PortView } from '../vswitch/view.js';

/** A Network's rule reference (its name when it has one), with the step's policy, layer and rule. */
export function networkRef(net: NetworkView, rest: Omit<RuleRef, 'kind' | 'id' | 'name'>): RuleRef {
  return net.name
    ? { kind: 'Network', id: net.id, name: net.name, ...rest }
    : { kind: 'Network', id: net.id, ...rest };
}

/** An Endpoint's rule reference: a policy of the port (and its index), the layer and the rule. */
export function portRef(
  port: PortView,
  policy: string,
  index: number | undefined,
  layer: string,
  rule: string,
): RuleRef {
  return {
    kind: 'Endpoint',
    id: port.id,
    ...(port.name ? { name: port.name } : {}),
    policy,
    ...(index !== undefined ? { index } : {}),
    layer,
    rule,
  };
}
