// Two or more Windows hosts on one wire, for tests that walk a packet between them without a
// Cluster: the underlay hands a frame to the host that owns its next hop (else it leaves the
// modelled network), and `walkFrom` sends a packet out of a local port.
import { Conntrack } from '../../src/dataplane/conntrack.js';
import { Walk, type World } from '../../src/dataplane/walk.js';
import type { Host } from '../../src/host/host.js';
import type { Packet } from '../../src/vswitch/contracts.js';

export function wireWorld(hosts: readonly Host[]): World {
  return {
    underlay: {
      send(w, from, p, hop) {
        const to = hosts.find((h) => h.dataplane !== from && h.dataplane.ownsIp(hop));
        if (!to) return w.stop(from.name, 'Underlay', 'Dropped', p, 'ExitsNetwork', 'nobody owns it');
        w.step(from.name, 'Underlay', 'Arrived', p, p, undefined, `to ${to.name}`);
        to.dataplane.receive(w, p);
      },
    },
    conntrack: new Conntrack(),
    seed: 1,
    generation: () => 0,
  };
}

/** A TCP packet from the port `portRef` (endpoint name or ID) of `host` to `dst`, walked on `world`. */
export function walkFrom(world: World, host: Host, portRef: string, dst: string, dstPort = 80): Walk {
  const w = new Walk(world, world.conntrack.child());
  const port = host.dataplane.view().portByRef.get(portRef.toLowerCase());
  if (!port) throw new Error(`no port ${portRef} on ${host.name}`);
  const dstIp = dst.split('.').reduce((acc, x) => acc * 256 + Number(x), 0);
  const p: Packet = {
    srcMac: 0,
    dstMac: 0,
    srcIp: port.ip,
    dstIp,
    proto: 6,
    srcPort: 40000,
    dstPort,
    ttl: 128,
  };
  host.dataplane.sendFromPort(w, port, p);
  return w;
}
