/**
 * The forwarding-extension seam (src/dataplane/extension.ts; reference ovs-windows.md §1.2, §5 #3
 * and #4): with the Open vSwitch Extension enabled on the Transparent network's switch, VFP does not
 * forward there — with no OVS datapath bound the switch is a black hole for pods and for the host's
 * own traffic through the management vNIC (antrea-io/antrea#5052: without the userspace slow path
 * "host network will be unavailable"); a bound datapath gets every packet entering the switch; a
 * reboot disables the extension (antrea docs/windows.md Known issues). The enabling request is
 * Antrea's EnableHNSNetworkExtension body (pkg/agent/util/net_windows.go).
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { SwitchDatapath } from '../../src/dataplane/extension.js';
import type { JsonObject } from '../../src/core/json.js';
import { HnsV1Client } from '../../src/api/hnsv1/client.js';

const OVS = '583CC151-73EC-4A6A-8B47-578297AD7623';
const NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.77.100/24',
  gateway: '192.168.77.1',
  macAddress: '00-0D-3A-11-22-33',
};
const DEAD = 'no OVS datapath is bound: the host network is dead';

function v1(host: Host, method: string, path: string, body?: unknown): JsonObject {
  const r = host.api.HNSCall(method, path, body === undefined ? '' : JSON.stringify(body));
  if (!r.ok) throw new Error(r.message);
  const out = r.result;
  if (out['Success'] !== true) throw new Error(JSON.stringify(out));
  return (out['Output'] ?? {}) as JsonObject;
}

/** A network through v1 on an adapter, with endpoints (no policies: Antrea's and win-bridge's shape). */
function v1Network(
  host: Host,
  doc: { Name: string; Type: string; adapter: string; prefix: string; gateway: string },
  endpoints: readonly (readonly [string, string])[],
): string {
  const net = String(
    v1(host, 'POST', '/networks/', {
      Name: doc.Name,
      Type: doc.Type,
      NetworkAdapterName: doc.adapter,
      Subnets: [{ AddressPrefix: doc.prefix, GatewayAddress: doc.gateway }],
    })['ID'],
  );
  for (const [name, ip] of endpoints)
    v1(host, 'POST', '/endpoints/', {
      Name: name,
      VirtualNetwork: net,
      IPAddress: ip,
      GatewayAddress: doc.gateway,
    });
  return net;
}

const ANTREA = {
  Name: 'antrea-hnsnetwork',
  Type: 'Transparent',
  adapter: 'Ethernet',
  prefix: '10.10.0.0/24',
  gateway: '10.10.0.1',
};

/** Antrea's node: the Transparent network on the uplink, two pods' endpoints (no policies). */
function antreaNode(): { host: Host; net: string } {
  const host = createHost({ seed: 7, adapters: [NIC] });
  const net = v1Network(host, ANTREA, [
    ['web-7975-274540', '10.10.0.10'],
    ['db-5f7c-0a1b2c', '10.10.0.11'],
  ]);
  return { host, net };
}

const enable = (host: Host, net: string, on = true) =>
  v1(host, 'POST', `/networks/${net}`, { Extensions: [{ Id: OVS, IsEnabled: on }] });

const podToPod = (host: Host) =>
  host.trace({ from: 'web-7975-274540', to: '10.10.0.11', protocol: 'tcp', destinationPort: 80 });
const hostOut = (host: Host) =>
  host.trace({ from: 'host', to: '8.8.8.8', protocol: 'udp', destinationPort: 53 });

function lastStep(t: ReturnType<Host['trace']>) {
  return t.observations[t.observations.length - 1]!;
}

describe('the OVS extension enabled with no datapath bound: a black hole', () => {
  it('pod → pod on the switch is delivered before, dropped at the extension after', () => {
    const { host, net } = antreaNode();
    expect(podToPod(host).disposition).toBe('Delivered');
    enable(host, net);
    const t = podToPod(host);
    expect(t.disposition).toBe('NoRoute');
    const last = lastStep(t);
    expect(last).toMatchObject({
      component: 'vSwitch',
      action: 'Dropped',
      rule: { kind: 'SwitchExtension', id: OVS, name: 'Open vSwitch Extension' },
    });
    expect(last.detail).toContain(DEAD);
    // no VFP layer ran on the port: the drop is the first step after the container's own
    expect(t.observations.some((o) => o.component === 'ACL' || o.component === 'NAT')).toBe(false);
  });

  it('the host’s own traffic through the management vNIC dies too (the documented pitfall)', () => {
    const { host, net } = antreaNode();
    const before = hostOut(host);
    expect(before.disposition).not.toBe('NoRoute');
    enable(host, net);
    const t = hostOut(host);
    expect(t.disposition).toBe('NoRoute');
    expect(lastStep(t).rule).toEqual({ kind: 'SwitchExtension', id: OVS, name: 'Open vSwitch Extension' });
    expect(lastStep(t).detail).toContain(DEAD);
    // host → pod as well
    const toPod = host.trace({ from: 'host', to: '10.10.0.10', protocol: 'tcp', destinationPort: 80 });
    expect(toPod.disposition).toBe('NoRoute');
    expect(lastStep(toPod).detail).toContain(DEAD);
  });

  it('the host to a pod on an internal (NAT) switch: the host vNIC hands its packet to the switch, which drops it', () => {
    const host = createHost({ seed: 7, adapters: [NIC] });
    const nat = String(
      v1(host, 'POST', '/networks/', {
        Name: 'nat',
        Type: 'NAT',
        Subnets: [{ AddressPrefix: '172.20.0.0/24', GatewayAddress: '172.20.0.1' }],
      })['ID'],
    );
    v1(host, 'POST', '/endpoints/', { Name: 'c1', VirtualNetwork: nat, IPAddress: '172.20.0.10' });
    const toPod = () => host.trace({ from: 'host', to: '172.20.0.10', protocol: 'tcp', destinationPort: 80 });
    expect(toPod().disposition).toBe('Delivered');
    enable(host, nat);
    const t = toPod();
    expect(t.disposition).toBe('NoRoute');
    expect(lastStep(t).detail).toContain(DEAD);
  });

  it('a frame from the wire to a pod or to the node dies at the extension too', () => {
    const { host, net } = antreaNode();
    const inbound = () =>
      host.trace({ from: '192.168.77.50', to: '10.10.0.10', protocol: 'tcp', destinationPort: 80 });
    expect(inbound().disposition).toBe('Delivered');
    enable(host, net);
    const t = inbound();
    expect(t.disposition).toBe('NoRoute');
    expect(lastStep(t).detail).toContain(`${DEAD} (from the wire)`);
    const toNode = host.trace({
      from: '192.168.77.50',
      to: '192.168.77.100',
      protocol: 'tcp',
      destinationPort: 22,
    });
    expect(toNode.disposition).toBe('NoRoute');
  });

  it("hcsshim's HNSNetworkRequest (Antrea's call) through the typed v1 client enables it", async () => {
    const { host, net } = antreaNode();
    const client = new HnsV1Client(host.transport);
    await client.hnsNetworkRequest('POST', net, `{"Extensions":[{"Id":"${OVS}","IsEnabled":true}]}`);
    expect(podToPod(host).disposition).toBe('NoRoute');
  });

  it('an HNS service restart and a snapshot keep the state; a restore brings it back', () => {
    const { host, net } = antreaNode();
    enable(host, net);
    const snap = host.snapshot();
    host.restartHns();
    expect(hostOut(host).disposition).toBe('NoRoute');
    enable(host, net, false);
    expect(hostOut(host).disposition).not.toBe('NoRoute');
    host.restore(JSON.parse(JSON.stringify(snap)));
    expect(lastStep(hostOut(host)).detail).toContain(DEAD);
  });

  it('disabling the extension gives the host back what it had', () => {
    const { host, net } = antreaNode();
    const before = [podToPod(host), hostOut(host)].map((t) => [t.disposition, t.at]);
    enable(host, net);
    enable(host, net, false);
    expect([podToPod(host), hostOut(host)].map((t) => [t.disposition, t.at])).toEqual(before);
  });

  it('a reboot disables the extension: the network kept, traffic flows again', () => {
    const { host, net } = antreaNode();
    const before = hostOut(host);
    enable(host, net);
    host.reboot();
    const ovs = (v1(host, 'GET', `/networks/${net}`)['Extensions'] as JsonObject[]).find(
      (e) => e['Id'] === OVS,
    );
    expect(ovs).toEqual({ Id: OVS, IsEnabled: false, Name: 'Open vSwitch Extension' });
    const after = hostOut(host);
    expect([after.disposition, after.at]).toEqual([before.disposition, before.at]);
  });

  it('an L2Bridge switch beside it is untouched (VFP forwards there as before)', () => {
    const host = createHost({
      seed: 7,
      adapters: [NIC, { name: 'Ethernet 2', ipAddress: '192.168.88.100/24' }],
    });
    v1Network(
      host,
      {
        Name: 'cbr0',
        Type: 'L2Bridge',
        adapter: 'Ethernet 2',
        prefix: '10.244.1.0/24',
        gateway: '10.244.1.1',
      },
      [
        ['a', '10.244.1.10'],
        ['b', '10.244.1.11'],
      ],
    );
    const trans = v1Network(host, ANTREA, []);
    const before = host.trace({ from: 'a', to: '10.244.1.11', protocol: 'tcp', destinationPort: 80 });
    enable(host, trans);
    const after = host.trace({ from: 'a', to: '10.244.1.11', protocol: 'tcp', destinationPort: 80 });
    expect(after.disposition).toBe('Delivered');
    expect(after.observations).toEqual(before.observations);
  });
});

describe('a datapath bound to the switch gets its packets', () => {
  it('each entry point reaches the bound datapath, which decides; unbinding makes it dead again', () => {
    const { host, net } = antreaNode();
    enable(host, net);
    const seen: string[] = [];
    const dp: SwitchDatapath = {
      name: 'br-int',
      ingress(w, plane, sw, at, p) {
        seen.push(`${sw.id}:${at.kind}`);
        w.step(plane.name, 'vSwitch', 'Forwarded', p, p, undefined, 'the test datapath');
        w.finish('Delivered', plane.name, p, 'datapath');
      },
    };
    host.dataplane.bindSwitchDatapath(net, dp);
    const t = podToPod(host);
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('datapath');
    const hand = t.observations.find((o) => o.action === 'ToExtension');
    expect(hand).toMatchObject({ component: 'vSwitch', rule: { kind: 'SwitchExtension', id: OVS } });
    expect(hand!.detail).toContain('br-int');
    expect(hostOut(host).at).toBe('datapath');
    const fromWire = host.trace({
      from: '192.168.77.50',
      to: '10.10.0.10',
      protocol: 'tcp',
      destinationPort: 80,
    });
    expect(fromWire.at).toBe('datapath');
    expect(seen).toEqual([`${net}:port`, `${net}:hostVnic`, `${net}:uplink`]);
    host.dataplane.bindSwitchDatapath(net, undefined);
    expect(lastStep(podToPod(host)).detail).toContain(DEAD);
  });
});
