/**
 * ovn-kubernetes' historical native Windows node (docs/ovn-kubernetes.md "Native (historical) node";
 * reference ovs-windows.md §1.1, §1.5, §2.4, §3): Open vSwitch on a Transparent HNS network,
 * `ovnkube` in node mode, `ovn-k8s-cni-overlay.exe` attaching pods, `ovn-controller` programming
 * br-int, Geneve or STT between nodes. Removed upstream by ovn-org/ovn-kubernetes `83b2fc743`
 * (2020-07-23); the facts are read at its parent `0eb00c4a1` ([O20]) and, for the Ansible role, at
 * `b9feda6e2` ([OA], parent of `f2dbc63c5`):
 *
 * - the node (`contrib/roles/windows/kubernetes/tasks/setup_sdn.yml`, `setup_ovs_hns.yml`,
 *   `vars/windows.yml`): `New-HnsNetwork -Name external -Type Transparent -AddressPrefix <subnet>
 *   -Gateway <subnet .1> -AdapterName <NIC>`, the OVS extension enabled (`Enable-OVSOnHNSNetwork`),
 *   the NIC on a bridge, `external_ids:system-id`, `ovn-encap-ip`, `ovn-encap-type`;
 * - the management port (`go-controller/pkg/node/management-port_windows.go` and its _test.go):
 *   `k8s-<node>` (internal, `mtu_request=1400`, `external-ids:iface-id=k8s-<node>`), `.2` of the
 *   node subnet, MTU by netsh, `route -p add <cluster CIDR> … <.1> METRIC 2 IF <index>` and the same
 *   for the service CIDR (the name became `ovn-k8s-mp0` in `264bc9419`, 2020-03-26);
 * - a pod (`go-controller/pkg/cni/helper_windows.go` ConfigureInterface): the HNS v1 endpoint
 *   `<namespace>_<pod>` with `IPAddress`, `MacAddress` (dashes), `PrefixLength`, `DNSServerList`,
 *   `DNSSuffix` and no policies, `HotAttachEndpoint(sandbox, endpoint)`, then
 *   `ovs-vsctl --may-exist add-port br-int <name> -- set interface <name> type=internal -- set
 *   interface <name> external_ids:attached_mac=… external_ids:iface-id=<ns>_<pod>
 *   external_ids:ip_address=<ip/len>` and `Set-NetIPInterface … -NlMtuBytes <mtu>`;
 * - the tunnels (openvswitch/ovs @ 0c4caeb114 `ovn/controller/encaps.c`): one port per other
 *   chassis, `ovn-<first 6 of its system-id>-0`, `options:remote_ip`, `options:key=flow`,
 *   `external_ids:ovn-chassis-id`.
 *
 * The OpenFlow flows are **hnsim's stand-in for ovn-controller**, not OVN's logical flows compiled:
 * a small pipeline (table names of our own, `NATIVE_TABLES`) that gives the dispositions OVN's
 * topology gives — the node switch (L2), `ovn_cluster_router` (routing between node subnets
 * through the tunnels), the management port, the gateway router's SNAT to the node address (OVS
 * `ct(commit,nat(src))`), and load balancers as a `select` group with `ct(commit,nat(dst))`.
 */
import { hnsError, HnsError } from '../core/errors.js';
import { isJsonObject, type JsonObject } from '../core/json.js';
import { sha1Hex } from '../core/sha1.js';
import { formatMac } from '../addr/mac.js';
import { errorOf, type HcnResult } from '../api/flat.js';
import type { Host } from '../host/host.js';
import { fmt, fmtPrefix, ip4, maskOf, type Prefix4 } from '../vswitch/v4.js';
import { OVS_EXTENSION_ID } from '../hns/extensions.js';

/** The HNS network the Ansible role creates (`vars/windows.yml` `sdn_info.sdn_network_name`). */
export const NATIVE_HNS_NETWORK = 'external';
/** OVN's integration bridge (helper_windows.go adds pods to `br-int`). */
const NATIVE_BRIDGE = 'br-int';
/** `config.Default.MTU` (1400; management-port_windows_test.go `mtu`). */
const NATIVE_MTU = 1400;
/** The tunnel types of the historical Windows nodes (setup_ovs_hns.yml; ovn-kubernetes#297). */
export type OvnEncapType = 'geneve' | 'stt';

/**
 * The stand-in pipeline's tables (our names, not OVN's): classification by port, the logical
 * switch's conntrack zone, Services, routing (switch + cluster router), the gateway's SNAT, the
 * gateway's un-SNAT of replies from the uplink, and the way out to the uplink.
 */
const NATIVE_TABLES = [
  'PhysicalIn',
  'ConntrackIn',
  'ServiceLB',
  'Routing',
  'GatewaySNAT',
  'GatewayIn',
  'ToUplink',
] as const;
type Table = (typeof NATIVE_TABLES)[number];
const T = (t: Table): number => NATIVE_TABLES.indexOf(t);
/** Conntrack zones of the stand-in (ours): the node switch's, and the gateway router's SNAT. */
const ZONE_SWITCH = 1;
const ZONE_GATEWAY = 2;

/** `<namespace>_<pod>`: the endpoint, OVS port and `iface-id` (helper_windows.go). */
export function nativeEndpointName(namespace: string, pod: string): string {
  return `${namespace}_${pod}`;
}

/** `util.K8sPrefix + node` (management-port_windows_test.go `mgtPort`; before 264bc9419). */
function managementPortName(node: string): string {
  return `k8s-${node.toLowerCase()}`;
}

/** OVN's router port MAC for an address (ovn-kubernetes' later `IPAddrToHWAddr`: `0a:58:` + the address). */
function routerMac(ip: number): string {
  return formatMac(0x0a5800000000 + ip)
    .toLowerCase()
    .replace(/-/g, ':');
}

/** A pod's MAC (OVN's annotation in reality): `0a:58:` + its address, as ovn-kubernetes allocates. */
function nativePodMac(ip: number): string {
  return routerMac(ip);
}

export interface NativePeer {
  readonly name: string;
  readonly nodeIp: number;
  readonly podSubnet: Prefix4;
  /** Its chassis (`external_ids:system-id`). */
  readonly systemId: string;
  /** Its node switch's tunnel key (the VNI in the stand-in). */
  readonly datapathKey: number;
}

export interface NativeService {
  readonly key: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP';
  readonly endpoints: readonly { readonly ip: string; readonly port: number }[];
}

export interface NativePod {
  readonly namespace: string;
  readonly name: string;
  readonly sandbox: string;
  readonly endpointId: string;
  readonly ip: number;
  readonly mac: string;
}

export interface NativeNodeOptions {
  readonly name: string;
  readonly podSubnet: Prefix4;
  readonly clusterCidr: Prefix4;
  readonly serviceCidr: Prefix4;
  readonly encapType: OvnEncapType;
  /** The node switch's tunnel key (ours: 2 for the first native node, as the test vector's `metadata=0x2`). */
  readonly datapathKey: number;
  /** The node's DNS for pods (kubelet's, through the CNI config). */
  readonly dns?: (namespace: string) => { servers: readonly string[]; search: readonly string[] };
}

/** A chassis' system-id: a GUID (setup_ovs_hns.yml `New-Guid`), derived from the node name here. */
function nativeSystemId(node: string): string {
  const h = sha1Hex(`ovn-chassis/${node}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** ovn-controller's tunnel port name for a chassis (encaps.c `tunnel_create_name`). */
function tunnelPortName(systemId: string): string {
  return `ovn-${systemId.slice(0, 6)}-0`;
}

export class OvnNativeNode {
  /** What was run on the node, in order (the commands of management-port_windows_test.go and the rest). */
  readonly commands: string[] = [];
  readonly systemId: string;
  readonly routerIp: number;
  readonly managementIp: number;
  networkId = '';
  nodeIp = 0;
  uplink = '';
  hostVnic = '';
  readonly #peers = new Map<string, NativePeer>();
  readonly #pods = new Map<string, NativePod>();
  #services: readonly NativeService[] = [];
  #nextPod = 3;
  #uplinkMac = '';

  constructor(
    readonly host: Host,
    readonly options: NativeNodeOptions,
  ) {
    this.systemId = nativeSystemId(options.name);
    this.routerIp = (options.podSubnet.addr + 1) >>> 0;
    this.managementIp = (options.podSubnet.addr + 2) >>> 0;
  }

  get managementPort(): string {
    return managementPortName(this.options.name);
  }

  // ───────────── the node: the Ansible role, then ovnkube's management port ─────────────

  start(): void {
    const host = this.host;
    const nic = host.adapters().find((a) => a['Kind'] === 'Physical' && a['IPv4Address'] !== undefined);
    if (!nic)
      throw hnsError('HCN_E_ADAPTER_NOT_FOUND', 'ovn-kubernetes: no physical adapter with an address');
    this.uplink = String(nic['Name']);
    this.nodeIp = ip4(String(nic['IPv4Address'])) ?? 0;
    this.#uplinkMac = String(nic['MacAddress']).toLowerCase().replace(/-/g, ':');
    const subnet = fmtPrefix(this.options.podSubnet);
    // setup_sdn.yml: New-HnsNetwork -Name external -AddressPrefix -Gateway -Type Transparent -AdapterName
    this.commands.push(
      `New-HnsNetwork -Name ${NATIVE_HNS_NETWORK} -AddressPrefix ${subnet} -Gateway ${fmt(this.routerIp)} -Type Transparent -AdapterName "${this.uplink}"`,
    );
    const net = this.v1('POST', '/networks/', {
      Name: NATIVE_HNS_NETWORK,
      Type: 'Transparent',
      NetworkAdapterName: this.uplink,
      Subnets: [{ AddressPrefix: subnet, GatewayAddress: fmt(this.routerIp) }],
    });
    this.networkId = String(net['ID']);
    this.hostVnic = `vEthernet (${this.uplink})`;
    // setup_ovs_hns.yml, in its order: ovs-vswitchd stopped, the bridge and the NIC (`--no-wait`),
    // Enable-OVSOnHNSNetwork, ovs-vswitchd started
    this.vsctl(['--no-wait', '--may-exist', 'add-br', NATIVE_BRIDGE]);
    this.vsctl(['--no-wait', '--may-exist', 'add-port', NATIVE_BRIDGE, this.uplink]);
    this.commands.push(`Enable-OVSOnHNSNetwork ${this.networkId}`);
    this.v1('POST', `/networks/${this.networkId}`, {
      Extensions: [{ Id: OVS_EXTENSION_ID, IsEnabled: true }],
    });
    host.ovs.start();
    // (upstream: a second bridge `vEthernet (<NIC>)` holds the NIC and adopts this vNIC as LOCAL;
    // hnsim folds it into br-int: docs/ovn-kubernetes.md)
    this.vsctl([
      '--may-exist',
      'add-port',
      NATIVE_BRIDGE,
      this.hostVnic,
      '--',
      'set',
      'interface',
      this.hostVnic,
      'type=internal',
    ]);
    this.vsctl(`set Open_vSwitch . external_ids:system-id="${this.systemId}"`);
    this.vsctl(
      `set Open_vSwitch . external_ids:ovn-encap-ip=${fmt(this.nodeIp)} external_ids:ovn-encap-type="${this.options.encapType}"`,
    );
    this.createManagementPort();
    host.ovs.setTableNames(NATIVE_BRIDGE, NATIVE_TABLES);
    this.program();
  }

  /** management-port.go createManagementPort + management-port_windows.go createPlatformManagementPort. */
  private createManagementPort(): void {
    const mp = this.managementPort;
    this.vsctl(
      `--timeout=15 -- --may-exist add-port ${NATIVE_BRIDGE} ${mp} -- set interface ${mp} type=internal mtu_request=${NATIVE_MTU} external-ids:iface-id=${mp}`,
    );
    this.vsctl(`--timeout=15 --if-exists get interface ${mp} mac_in_use`);
    // (ovn-nbctl lsp-add <node> k8s-<node> -- lsp-set-addresses …: OVN's northbound, not modelled)
    const len = this.options.podSubnet.len;
    this.commands.push(`powershell Enable-NetAdapter ${mp}`);
    // Get-NetIPAddress answers for the new vNIC (its link-local address), so the test expects the removal
    this.commands.push(`powershell Get-NetIPAddress -InterfaceAlias ${mp}`);
    this.commands.push(`powershell Remove-NetIPAddress -InterfaceAlias ${mp} -Confirm:$false`);
    this.host.setAdapterAddress(mp, undefined);
    this.commands.push(
      `powershell New-NetIPAddress -IPAddress ${fmt(this.managementIp)} -PrefixLength ${len} -InterfaceAlias ${mp}`,
    );
    this.host.setAdapterAddress(mp, `${fmt(this.managementIp)}/${len}`);
    this.commands.push(`netsh interface ipv4 set subinterface ${mp} mtu=${NATIVE_MTU} store=persistent`);
    const idx = this.host.adapters().find((a) => a['Name'] === mp)?.['ifIndex'];
    this.commands.push(`powershell $(Get-NetAdapter | Where { $_.Name -Match "${mp}" }).ifIndex`);
    for (const p of [this.options.clusterCidr, this.options.serviceCidr]) {
      this.commands.push(`route print -4 ${fmt(p.addr)}`);
      this.commands.push(
        `route -p add ${fmt(p.addr)} mask ${fmt(maskOf(p.len))} ${fmt(this.routerIp)} METRIC 2 IF ${String(idx ?? '?')}`,
      );
      this.host.removeRoute(fmtPrefix(p));
      this.host.addRoute({
        destinationPrefix: fmtPrefix(p),
        nextHop: fmt(this.routerIp),
        interfaceAlias: mp,
        metric: 2,
      });
    }
    this.vsctl(`--timeout=15 --if-exists get interface ${mp} ofport`);
  }

  // ───────────── peers (ovn-controller's encaps.c: a tunnel port per other chassis) ─────────────

  setPeers(peers: readonly NativePeer[]): void {
    const want = new Map(peers.map((p) => [tunnelPortName(p.systemId), p]));
    for (const [port, p] of this.#peers)
      if (!want.has(port) || want.get(port)!.nodeIp !== p.nodeIp)
        this.vsctl(`--if-exists del-port ${NATIVE_BRIDGE} ${port}`);
    for (const [port, p] of want) {
      const old = this.#peers.get(port);
      if (old && old.nodeIp === p.nodeIp) continue;
      // local_ip: hnsim's Windows datapath needs it to find the VTEP (encaps.c sets only remote_ip and key)
      this.vsctl(
        `--may-exist add-port ${NATIVE_BRIDGE} ${port} -- set interface ${port} type=${this.options.encapType} options:remote_ip=${fmt(p.nodeIp)} options:key=flow options:local_ip=${fmt(this.nodeIp)} -- set port ${port} external_ids:ovn-chassis-id="${p.systemId}"`,
      );
    }
    this.#peers.clear();
    for (const [port, p] of want) this.#peers.set(port, p);
    this.program();
  }

  // ───────────── pods (ovn-k8s-cni-overlay → ovnkube's ConfigureInterface) ─────────────

  /**
   * A pod's ADD: the runtime's sandbox container first (Docker creates and starts it, then calls the
   * CNI plugin with its ID), then the address and MAC OVN would annotate (here: the next address of
   * the node subnet from .3, `0a:58:<ip>`), the v1 endpoint, its hot attach to the sandbox, the OVS
   * port, the MTU. A failure undoes what this call created and nothing else (helper_windows.go's
   * deferred delete of the endpoint; the runtime's removal of the sandbox it made): a sandbox ID
   * already in use fails HcsCreateComputeSystem (HCS_E_SYSTEM_ALREADY_EXISTS) before anything changes,
   * and the container that holds it is left alone.
   */
  addPod(namespace: string, name: string, sandbox: string): NativePod {
    const epName = nativeEndpointName(namespace, name);
    if (this.#pods.has(epName)) return this.#pods.get(epName)!;
    const ip = (this.options.podSubnet.addr + this.#nextPod) >>> 0;
    const last = this.options.podSubnet.addr + 2 ** (32 - this.options.podSubnet.len) - 1;
    if (ip >= last) throw hnsError('E_INVALIDARG', `pod subnet of ${this.options.name} is full`);
    const mac = nativePodMac(ip);
    const dns = this.options.dns?.(namespace) ?? { servers: [], search: [] };
    const doc = nativeEndpointDoc({
      name: epName,
      networkId: this.networkId,
      ip: fmt(ip),
      mac,
      prefixLength: this.options.podSubnet.len,
      dns,
    });
    // what this call created, so that a failure undoes exactly that
    let createdSandbox = false;
    let endpointId: string | undefined;
    try {
      // the (Docker, schema 1) sandbox container
      this.hcs(
        'sandbox',
        this.host.api.HcsCreateComputeSystem(sandbox, {
          SystemType: 'Container',
          Name: sandbox,
          Owner: 'docker',
          EndpointList: [],
        }),
      );
      createdSandbox = true;
      this.hcs('sandbox', this.host.api.HcsStartComputeSystem(sandbox, ''));
      endpointId = String(this.v1('POST', '/endpoints/', doc)['ID']);
      // HotAttachEndpoint(sandboxID, endpointID)
      this.hcs(
        'hot attach',
        this.host.api.HcsModifyComputeSystem(sandbox, {
          ResourceType: 'Network',
          RequestType: 'Add',
          Settings: endpointId,
        }),
      );
      // one ovs-vsctl transaction, the last step that can fail: a failed one added no port
      this.vsctl(nativePortCommand(epName, mac, `${fmt(ip)}/${this.options.podSubnet.len}`));
      this.commands.push(
        `powershell Set-NetIPInterface -IncludeAllCompartments -InterfaceAlias "vEthernet (${epName})" -NlMtuBytes ${NATIVE_MTU}`,
      );
    } catch (e) {
      if (createdSandbox) {
        this.host.api.HcsTerminateComputeSystem(sandbox, '');
        this.host.api.HcsCloseComputeSystem(sandbox);
      }
      if (endpointId !== undefined) this.host.api.HNSCall('DELETE', `/endpoints/${endpointId}`, '');
      throw e;
    }
    this.#nextPod++;
    const pod: NativePod = { namespace, name, sandbox, endpointId, ip, mac };
    this.#pods.set(epName, pod);
    this.program();
    return pod;
  }

  /**
   * PlatformSpecificCleanup: `del-port br-int <ns>_<pod>`, then the endpoint by name; the runtime
   * stops its sandbox and closes it (the ID is free again for the pod's next sandbox).
   */
  removePod(namespace: string, name: string): void {
    const epName = nativeEndpointName(namespace, name);
    const pod = this.#pods.get(epName);
    if (!pod) return;
    this.#pods.delete(epName);
    this.host.ovs.vsctl(['del-port', NATIVE_BRIDGE, epName]);
    this.host.api.HcsTerminateComputeSystem(pod.sandbox, '');
    this.host.api.HcsCloseComputeSystem(pod.sandbox);
    this.host.api.HNSCall('DELETE', `/endpoints/${pod.endpointId}`, '');
    this.program();
  }

  pods(): readonly NativePod[] {
    return [...this.#pods.values()];
  }

  setServices(services: readonly NativeService[]): void {
    this.#services = services;
    this.program();
  }

  // ───────────── the stand-in for ovn-controller's flows ─────────────

  /** An interface's ofport as ovs-vswitchd bound it (-1: not bound), from the bridge, not an ovs-vsctl call per port. */
  private ofport(name: string): number {
    return this.host.ovs.bridge(NATIVE_BRIDGE)?.portByName(name) ?? -1;
  }

  /** The stand-in pipeline's flows now (`table=<number>`; `NATIVE_TABLES` names them). */
  flows(): string[] {
    const up = this.ofport(this.uplink);
    const vnic = this.ofport(this.hostVnic);
    const mp = this.ofport(this.managementPort);
    const mpMac = this.adapterMac(this.managementPort);
    const rtr = routerMac(this.routerIp);
    const node = fmt(this.nodeIp);
    const subnet = fmtPrefix(this.options.podSubnet);
    const f: string[] = [];
    const add = (t: Table, prio: number, match: string, actions: string) =>
      f.push(`table=${T(t)},priority=${prio},${match},actions=${actions}`);
    // PhysicalIn: the node's own traffic passes between the uplink and its vNIC; what comes for the
    // node address is first looked up in the gateway's zone (replies to SNATed pod traffic)
    add(
      'PhysicalIn',
      200,
      `ip,in_port=${up},nw_dst=${node}`,
      `ct(table=${T('GatewayIn')},zone=${ZONE_GATEWAY},nat)`,
    );
    add('PhysicalIn', 100, `in_port=${up}`, `output:${vnic}`);
    add('PhysicalIn', 100, `in_port=${vnic}`, `output:${up}`);
    add('PhysicalIn', 100, `ip,in_port=${mp}`, `goto_table:${T('ConntrackIn')}`);
    for (const p of this.#pods.values()) {
      const port = this.ofport(nativeEndpointName(p.namespace, p.name));
      if (!(port > 0)) continue;
      // port security: the pod's MAC and address only
      add(
        'PhysicalIn',
        100,
        `ip,in_port=${port},dl_src=${p.mac},nw_src=${fmt(p.ip)}`,
        `goto_table:${T('ConntrackIn')}`,
      );
    }
    for (const port of this.#peers.keys()) {
      const n = this.ofport(port);
      if (n > 0) add('PhysicalIn', 100, `ip,in_port=${n}`, `goto_table:${T('ConntrackIn')}`);
    }
    f.push(`table=${T('PhysicalIn')},priority=0,actions=drop`);
    // ConntrackIn: the node switch's zone (un-DNATs Service replies)
    add('ConntrackIn', 100, 'ip', `ct(table=${T('ServiceLB')},zone=${ZONE_SWITCH},nat)`);
    // ServiceLB: OVN's load balancers — a select group, DNAT committed in the switch's zone
    this.#services.forEach((s, k) => {
      if (!s.endpoints.length) return;
      add(
        'ServiceLB',
        100,
        `ct_state=+new+trk,${s.protocol.toLowerCase()},nw_dst=${s.clusterIP},tp_dst=${s.port}`,
        `group:${k + 1}`,
      );
    });
    f.push(`table=${T('ServiceLB')},priority=0,actions=goto_table:${T('Routing')}`);
    // Routing: the node switch (L2 to its pods), the cluster router (its subnet, the management
    // port, the node, the other nodes' subnets through their tunnels), else the gateway
    for (const p of this.#pods.values()) {
      const port = this.ofport(nativeEndpointName(p.namespace, p.name));
      if (!(port > 0)) continue;
      add('Routing', 300, `ip,dl_dst=${p.mac},nw_dst=${fmt(p.ip)}`, `output:${port}`);
      add(
        'Routing',
        200,
        `ip,nw_dst=${fmt(p.ip)}`,
        `set_field:${rtr}->eth_src,set_field:${p.mac}->eth_dst,output:${port}`,
      );
    }
    for (const dst of [this.managementIp, this.nodeIp])
      add(
        'Routing',
        200,
        `ip,nw_dst=${fmt(dst)}`,
        `set_field:${rtr}->eth_src,set_field:${mpMac}->eth_dst,output:${mp}`,
      );
    for (const [port, peer] of this.#peers) {
      const n = this.ofport(port);
      if (!(n > 0)) continue;
      add(
        'Routing',
        150,
        `ip,nw_dst=${fmtPrefix(peer.podSubnet)}`,
        `set_field:${rtr}->eth_src,set_field:0x${peer.datapathKey.toString(16)}->tun_id,output:${n}`,
      );
    }
    add('Routing', 100, `ip,nw_dst=${subnet}`, 'drop');
    f.push(`table=${T('Routing')},priority=0,actions=goto_table:${T('GatewaySNAT')}`);
    // GatewaySNAT: GR_<node>'s SNAT of the node's pods to the node address
    add(
      'GatewaySNAT',
      100,
      `ip,nw_src=${subnet}`,
      `ct(commit,table=${T('ToUplink')},zone=${ZONE_GATEWAY},nat(src=${node}))`,
    );
    f.push(`table=${T('GatewaySNAT')},priority=0,actions=drop`);
    // GatewayIn: a reply to SNATed traffic (un-SNATed) is routed to its pod; the rest is the node's
    add('GatewayIn', 100, 'ct_state=+est+trk', `resubmit(,${T('Routing')})`);
    add('GatewayIn', 100, 'ct_state=+rel+trk', `resubmit(,${T('Routing')})`);
    f.push(`table=${T('GatewayIn')},priority=0,actions=output:${vnic}`);
    add('ToUplink', 100, 'ip', `set_field:${this.#uplinkMac}->eth_src,output:${up}`);
    return f;
  }

  /** The stand-in's Service groups (`select`, one bucket per endpoint). */
  groups(): string[] {
    return this.#services.flatMap((s, k) =>
      s.endpoints.length
        ? [
            `group_id=${k + 1},type=select,${s.endpoints
              .map(
                (e) =>
                  `bucket=bucket_id:${s.endpoints.indexOf(e)},actions=ct(commit,table=${T('Routing')},zone=${ZONE_SWITCH},nat(dst=${e.ip}:${e.port}))`,
              )
              .join(',')}`,
          ]
        : [],
    );
  }

  /** Replace the bridge's flows and groups with the stand-in's. */
  program(): void {
    const br = this.host.ovs.bridge(NATIVE_BRIDGE);
    if (!br) return;
    br.delFlows('');
    br.delGroups('');
    for (const g of this.groups()) br.addGroup(g);
    br.addFlows(this.flows().join('\n'));
  }

  // ───────────── helpers ─────────────

  private adapterMac(name: string): string {
    const a = this.host.adapters().find((x) => x['Name'] === name);
    return String(a?.['MacAddress'] ?? '00-00-00-00-00-00')
      .toLowerCase()
      .replace(/-/g, ':');
  }

  private v1(method: string, path: string, body?: unknown): JsonObject {
    const r = this.host.api.HNSCall(method, path, body === undefined ? '' : JSON.stringify(body));
    if (!r.ok) throw new HnsError(r.hr, `ovn-kubernetes: ${method} ${path}: ${r.message}`);
    if (r.result['Success'] !== true)
      throw hnsError('E_FAIL', `ovn-kubernetes: ${method} ${path}: ${String(r.result['Error'] ?? '')}`);
    const out = r.result['Output'];
    return isJsonObject(out) ? out : {};
  }

  /**
   * A failed HCS call keeps its HRESULT (HCS_E_SYSTEM_ALREADY_EXISTS, HCS_E_SYSTEM_NOT_FOUND, …) and
   * its detail, said once.
   */
  private hcs(step: string, r: HcnResult<unknown>): void {
    if (r.ok) return;
    const e = errorOf(r);
    throw new HnsError(e.hresult, `ovn-kubernetes: ${step}${e.detail === undefined ? '' : `: ${e.detail}`}`);
  }

  private vsctl(command: string | readonly string[]): string {
    const text = typeof command === 'string' ? command : command.join(' ');
    this.commands.push(`ovs-vsctl ${text}`);
    const r = this.host.ovs.vsctl(command);
    if (r.status !== 0) throw hnsError('E_FAIL', `ovn-kubernetes: ovs-vsctl: ${r.stderr.trim()}`);
    return r.stdout;
  }
}

/**
 * helper_windows.go's `hcsshim.HNSEndpoint` for a pod as `json.Marshal` writes it, in the struct's
 * field order with its `omitempty` fields left out when empty (vendored hcsshim
 * `internal/hns/hnsendpoint.go` at 0eb00c4a1): Name, VirtualNetwork, MacAddress (dashes),
 * IPAddress, DNSSuffix, DNSServerList, PrefixLength — no Policies and no GatewayAddress (the
 * network's subnet gateway, .1, is the pod's).
 */
export function nativeEndpointDoc(a: {
  name: string;
  networkId: string;
  ip: string;
  mac: string;
  prefixLength: number;
  dns: { readonly servers: readonly string[]; readonly search: readonly string[] };
}): JsonObject {
  const suffix = a.dns.search.join(',');
  const servers = a.dns.servers.join(',');
  return {
    Name: a.name,
    VirtualNetwork: a.networkId,
    MacAddress: a.mac.replace(/:/g, '-'),
    IPAddress: a.ip,
    ...(suffix ? { DNSSuffix: suffix } : {}),
    ...(servers ? { DNSServerList: servers } : {}),
    PrefixLength: a.prefixLength,
  };
}

/** helper_windows.go's `ovs-vsctl` for a pod's port (its arguments in order). */
function nativePortCommand(name: string, mac: string, ipWithLen: string): string[] {
  return [
    '--may-exist',
    'add-port',
    NATIVE_BRIDGE,
    name,
    '--',
    'set',
    'interface',
    name,
    'type=internal',
    '--',
    'set',
    'interface',
    name,
    `external_ids:attached_mac=${mac}`,
    `external_ids:iface-id=${name}`,
    `external_ids:ip_address=${ipWithLen}`,
  ];
}
