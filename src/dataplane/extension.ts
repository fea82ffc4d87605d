/**
 * The forwarding-extension seam of a vSwitch (reference ovs-windows.md §1.2; docs/ovs.md "The HNS
 * side"): when a switch has a forwarding extension enabled in VFP's place (the Open vSwitch
 * Extension), VFP does not forward on it — every packet entering the switch (from a port, from the
 * host through its vNIC, from the wire through the uplink) is handed to the datapath bound to that
 * switch, which decides where it goes. The host binds one with `HostPlane.bindSwitchDatapath`
 * (src/ovs provides the OVS bridge); with none bound (no `ovs-vswitchd`), nothing forwards: the
 * walk ends at the switch, the host's own traffic included (pitfall #4, antrea-io/antrea#5052).
 *
 *   plane.bindSwitchDatapath(switchId, { name: 'br-int', ingress: (w, plane, sw, at, p) => … });
 */
import type { Packet, RuleRef } from '../vswitch/contracts.js';
import type { HostInterfaceView, PortView, SwitchView } from '../vswitch/view.js';
import type { HostPlane } from './plane.js';
import type { Walk } from './walk.js';

/** Where a packet enters the switch. */
export type SwitchIngress =
  /** From a container's (or a host endpoint's) port, on its way out of it. */
  | { readonly kind: 'port'; readonly port: PortView }
  /**
   * From the host's TCP/IP stack through one of the switch's host vNICs: `vnic` (the management
   * vNIC when not given).
   */
  | { readonly kind: 'hostVnic'; readonly vnic?: HostInterfaceView }
  /** From the wire, through the switch's physical adapter. */
  | { readonly kind: 'uplink' };

/**
 * What forwards a switch's packets in VFP's place: an OVS bridge bound to the switch. It records
 * its own steps on the walk and ends it (or hands the packet on through the plane's stages).
 */
export interface SwitchDatapath {
  /** The bridge's name (`br-int`), for the steps that name it. */
  readonly name: string;
  ingress(w: Walk, plane: HostPlane, sw: SwitchView, at: SwitchIngress, p: Packet): void;
  /** A number that moves whenever a packet's fate through it could (its flows, its state). */
  generation?(): number;
}

function extensionRef(sw: SwitchView): RuleRef {
  const ext = sw.forwardingExtension!;
  return { kind: 'SwitchExtension', id: ext.id, name: ext.name };
}

/**
 * Whether the switch's forwarding extension takes the packet (true: the walk went there, through
 * its datapath or into the black hole). False on a switch without one: VFP forwards as before.
 */
export function extensionTakes(
  plane: HostPlane,
  w: Walk,
  switchId: string | undefined,
  at: SwitchIngress,
  p: Packet,
): boolean {
  if (!switchId) return false;
  const sw = plane.view().switches.get(switchId);
  if (!sw?.forwardingExtension) return false;
  const dp = plane.switchDatapath(switchId);
  const ref = extensionRef(sw);
  if (!dp) {
    if (at.kind === 'port') w.count(plane.name, at.port.id, 'droppedOut');
    w.stop(
      plane.name,
      'vSwitch',
      'Dropped',
      p,
      'NoRoute',
      `${sw.forwardingExtension.name} is enabled on vSwitch ${sw.networks[0]?.name || sw.id} and no OVS datapath is bound: the host network is dead (${at.kind === 'uplink' ? 'from the wire' : at.kind === 'hostVnic' ? 'from the host' : 'from a port'})`,
      ref,
    );
    return true;
  }
  w.step(plane.name, 'vSwitch', 'ToExtension', p, p, ref, `to ${dp.name}, the datapath bound to the switch`);
  dp.ingress(w, plane, sw, at, p);
  return true;
}
