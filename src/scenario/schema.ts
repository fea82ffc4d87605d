/**
 * The scenario format's JSON Schema (draft 2020-12), the one source of its rules: `scenarios/
 * schema.json` is this object written out (a test keeps them equal), editors validate against it,
 * and the loader checks a file against it in code (src/scenario/validate.ts: the keywords used
 * here, plus `format` asserted for the formats below). What a schema cannot say — names that must
 * exist, addresses inside prefixes, unique names — the loader checks after it (src/scenario/load.ts).
 *
 * Formats asserted by the loader (other validators ignore unknown formats): `ipv4`, `ipv4-prefix`
 * (an address with a prefix length), `ipv6-prefix` (an IPv6 address with a prefix length), `mac`, `hresult` (a registered HRESULT name or 0x…),
 * `profile` (ws2019, ws2022, ws2025 or an HNS version like 13.1).
 */
import { OVS_TOOLS } from '../host/ovs.js';
import { RESTART_CHOICES } from '../hns/lifecycle.js';
import { DISPOSITIONS } from '../vswitch/contracts.js';

/** The value of the `hnsim` key this loader reads. */
export const SCENARIO_FORMAT = 'scenario/v1';

/** Size bounds: a file over them is refused with a clear error, before anything runs. */
export const LIMITS = {
  /** Bytes of the file. */
  fileBytes: 1024 * 1024,
  /** YAML values (scalars, maps, sequences), after aliases are expanded. */
  values: 200_000,
  /** Nesting depth of maps and sequences. */
  depth: 32,
  /** Alias nodes (`*name`) a file may use. */
  aliases: 100,
  hosts: 100,
  /** Pods after `replicas` are expanded, over the setup and every step. */
  pods: 5000,
  services: 1000,
  steps: 500,
  /** Traces of every `traces` expectation. */
  traces: 2000,
  /** Cells (from × to) of every reachability table. */
  cells: 20_000,
  /** Errors reported for one file (the rest are counted). */
  errors: 50,
} as const;

type Schema = Record<string, unknown>;

const NAME_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';
const POD_REF_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';
const IPV4_PATTERN = '^[0-9]{1,3}(\\.[0-9]{1,3}){3}$';
const PREFIX_PATTERN = '^[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}$';

const text = (description: string, extra: Schema = {}): Schema => ({
  type: 'string',
  maxLength: 4096,
  description,
  ...extra,
});
const name = (description: string): Schema => ({
  type: 'string',
  minLength: 1,
  maxLength: 63,
  pattern: NAME_PATTERN,
  description,
});
const podRef = (description: string): Schema => ({
  type: 'string',
  maxLength: 127,
  pattern: POD_REF_PATTERN,
  description,
});
const ipv4 = (description: string): Schema => ({
  type: 'string',
  pattern: IPV4_PATTERN,
  format: 'ipv4',
  description,
});
const prefix = (description: string): Schema => ({
  type: 'string',
  pattern: PREFIX_PATTERN,
  format: 'ipv4-prefix',
  description,
});
const prefix6 = (description: string): Schema => ({
  type: 'string',
  pattern: '^[0-9A-Fa-f:.]+/[0-9]{1,3}$',
  format: 'ipv6-prefix',
  description,
});
const int = (description: string, minimum: number, maximum: number): Schema => ({
  type: 'integer',
  minimum,
  maximum,
  description,
});
const bool = (description: string): Schema => ({ type: 'boolean', description });
const oneOfStrings = (description: string, values: readonly string[]): Schema => ({
  type: 'string',
  enum: [...values],
  description,
});
const list = (items: Schema, maxItems: number, description: string, extra: Schema = {}): Schema => ({
  type: 'array',
  items,
  maxItems,
  description,
  ...extra,
});
const object = (
  description: string,
  properties: Record<string, Schema>,
  required: readonly string[] = [],
): Schema => ({
  type: 'object',
  description,
  additionalProperties: false,
  ...(required.length ? { required: [...required] } : {}),
  properties,
});
const ref = (def: string, description?: string): Schema => ({
  $ref: `#/$defs/${def}`,
  ...(description ? { description } : {}),
});
/** A free-form JSON document (an HCN document, a conflist, a policy): checked by what reads it. */
const document = (description: string): Schema => ({ type: 'object', description });
const labels = (description: string): Schema => ({
  type: 'object',
  description,
  maxProperties: 64,
  propertyNames: { maxLength: 253, pattern: '^([a-z0-9.-]+/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$' },
  additionalProperties: { type: 'string', maxLength: 253 },
});

export const HNS_KINDS = ['networks', 'endpoints', 'namespaces', 'loadbalancers', 'routes'] as const;
export const AUDIT_KINDS = [
  'endpoint-unused',
  'namespace-without-container',
  'ip-reservation-orphaned',
  'remote-endpoint-unreferenced',
  'cni-cache-stale',
  'flannel-config-stale',
  'endpoint-reference-stale',
  'store-inconsistent',
] as const;
export const DELETE_KINDS = ['endpoint', 'network', 'namespace', 'loadbalancer'] as const;
/** The RestartPolicy choices a `keep` block takes (the service's own table). */
export const KEEP_CHOICES = RESTART_CHOICES;

const keep = object(
  'What survives (defaults: docs/model.md, "Service restart, reboot, snapshots")',
  Object.fromEntries(
    Object.entries(KEEP_CHOICES).map(([k, v]) => [k, oneOfStrings(`What happens to ${k}`, v)]),
  ),
);

const nic = object(
  'A physical network adapter of a standalone host',
  {
    name: text('Adapter name, e.g. Ethernet', { minLength: 1, maxLength: 64 }),
    ipAddress: prefix('Its IPv4 address with prefix length, e.g. 10.0.0.4/24'),
    gateway: ipv4('Default gateway'),
    macAddress: { type: 'string', pattern: '^[0-9A-Fa-f]{2}([-:][0-9A-Fa-f]{2}){5}$', format: 'mac' },
    mtu: int('MTU', 576, 9216),
    macSpoofing: bool('Whether the NIC allows MAC spoofing'),
  },
  ['name'],
);

const host = object(
  'A node',
  {
    name: name('Node name (unique)'),
    os: oneOfStrings('windows (default) or linux (cluster nodes only)', ['windows', 'linux']),
    profile: text('HNS version profile: ws2019, ws2022, ws2025 or an HNS version such as 13.1', {
      format: 'profile',
    }),
    segment: name('Cluster: the underlay segment the node sits on (default nodes)'),
    podSubnet: prefix("Cluster: the node's pod subnet (default: the next /24 of the pod CIDR)"),
    macSpoofing: bool('Cluster, Windows: whether the NIC allows MAC spoofing (default true)'),
    flannel: object(
      'Cluster: the flanneld backend that sets the node up (its HNS network, routes)',
      {
        backend: oneOfStrings('host-gw (L2Bridge network cbr0) or vxlan (Overlay network flannel.<vni>)', [
          'host-gw',
          'vxlan',
        ]),
        vni: int('VXLAN VNI (Windows default 4096, Linux 1)', 1, 16_777_215),
        port: int('VXLAN UDP port (Windows default 4789, Linux 8472)', 1, 65535),
        mtu: int('Linux: the VXLAN interface MTU (default 1450)', 576, 9216),
        ipMasq: bool(
          'flanneld --ip-masq: FLANNEL_IPMASQ in subnet.env, which the flannel CNI plugin hands on as ipMasq (default false)',
        ),
      },
      ['backend'],
    ),
    nics: list(nic, 8, 'Standalone host: its network adapters (default one Ethernet)', { minItems: 1 }),
    networks: list(
      document('An HCN network document (HcnCreateNetwork), created at boot in order'),
      16,
      'Standalone host: HNS networks',
    ),
    runtime: oneOfStrings('Windows: the pod runtime (default containerd)', ['containerd', 'dockershim']),
    cni: {
      description:
        "Windows: the CNI network pods are attached to — the mapping, azure (a node of an Azure cluster: AgentBaker's conflist for the cluster, as when cni is left out there) or antrea (a cluster node: Antrea's agent instead of flannel, docs/antrea.md) or ovn-kubernetes (a cluster node, Windows or Linux: ovn-kubernetes' hybrid overlay instead of flannel, docs/ovn-kubernetes.md). Without it, a cluster node has its pods programmed straight into HNS (as win-bridge/win-overlay would, with no runtime)",
      oneOf: [
        {
          type: 'string',
          enum: ['azure', 'antrea', 'ovn-kubernetes'],
          description:
            "azure: AKS's conflist for this Azure cluster; antrea: a cluster node under Antrea (its agent's CNI server attaches the node's pods); ovn-kubernetes: a cluster node in ovn-kubernetes' hybrid overlay (the ovnKubernetes key)",
        },
        object(
          'The CNI network',
          {
            conflist: document(
              "The network configuration list, as in /etc/cni/net.d (required, except on a node of an Azure cluster: default AKS's, for the cluster)",
            ),
            azureVnetRelease: oneOfStrings(
              'The Azure CNI release the azure-vnet binary follows: v1.8.12 (default: always L2Bridge) or v1.5.50 (mode tunnel or empty: L2Tunnel)',
              ['v1.8.12', 'v1.5.50'],
            ),
          },
          [],
        ),
      ],
    },
    antrea: object(
      'Cluster, Windows: Antrea instead of flannel (cni: antrea implies it): its agent prepares the node (antrea-hnsnetwork, br-int, antrea-gw0) and attaches its pods',
      {
        tunnelType: oneOfStrings('The tunnel between nodes (default geneve)', ['geneve', 'vxlan', 'stt']),
      },
      [],
    ),
    ovnKubernetes: object(
      "Cluster: ovn-kubernetes instead of flannel (cni: ovn-kubernetes implies it). Windows: hybrid-overlay-node's Overlay network OVNKubernetesHybridOverlayNetwork (VNI 4097) and WMCO's win-overlay settings, pods programmed as win-overlay would; Linux: an OVN node whose br-ext reaches the Windows nodes by VXLAN VNI 4097",
      {
        vxlanPort: int('--hybrid-overlay-vxlan-port: the VXLAN UDP port (default 4789)', 1, 65535),
        mode: oneOfStrings(
          "Windows: hybrid-overlay (default, today) or native — the historical OVS-based node removed upstream in 2020 (Transparent network external, br-int, ovn-k8s-cni-overlay, Geneve or STT between native nodes; its flows are hnsim's stand-in for ovn-controller, docs/ovn-kubernetes.md)",
          ['hybrid-overlay', 'native'],
        ),
        encapType: oneOfStrings('native: the tunnel between native nodes (ovn-encap-type, default geneve)', [
          'geneve',
          'stt',
        ]),
      },
      [],
    ),
    azure: document(
      'Standalone host: the Azure VM it is — {"nics":[{"adapter","secondaryIps":[…],"nsg":{"name","rules":[…]},"publicIp"}],"addressSpace":[…],"compute":{"name","location","vmId","vmSize","resourceGroupName","subscriptionId","zone","tags":{…}}}; node of an Azure cluster: {"maxPods":N,"nsg":{"name","rules":[…]}} (docs/model.md "Azure VM", "Azure IMDS", "Azure NSG")',
    ),
    cns: document(
      'Standalone Azure host: Azure CNS started on it before its pods — {"ncs":[{"id","primaryIp","gateway","secondaryIps":[…]}],"multitenancy":[{"pod","id","vlan","ip","gateway",…}]} (docs/cni.md "CNS")',
    ),
  },
  ['name'],
);

const portMapping = object(
  'A CRI port mapping (hostPort)',
  {
    containerPort: int('Port in the container', 1, 65535),
    hostPort: int('Port on the node', 1, 65535),
    protocol: oneOfStrings('TCP (default) or UDP', ['TCP', 'UDP']),
    hostIp: ipv4('Node address to bind (default all)'),
  },
  ['containerPort'],
);

const pod = object(
  'A pod',
  {
    name: name('Pod name; with replicas, the prefix of <name>-0, <name>-1, …'),
    namespace: name('Kubernetes namespace (default default)'),
    node: name('The node it runs on'),
    labels: labels('Labels (services select pods by them)'),
    replicas: int('How many pods of this shape (default 1: the name as given)', 1, 1000),
    isolation: oneOfStrings('process (default) or hyperv (a utility VM per pod)', ['process', 'hyperv']),
    hostProcess: bool("A HostProcess pod: runs in the node's network, no CNI call"),
    hostname: name('Hostname (DNS with subdomain)'),
    subdomain: name('Subdomain (a headless service name)'),
    portMappings: list(portMapping, 16, 'Host ports (CNI portMappings capability)'),
    containers: list(
      object('A workload container', { name: name('Container name'), image: text('Image') }, ['name']),
      8,
      'Workload containers (default one, app)',
    ),
    retries: int('Times kubelet retries RunPodSandbox after a failure (default 0)', 0, 10),
    policies: list(
      document('An HCN endpoint policy'),
      32,
      'Cluster node without cni: extra HNS endpoint policies (ACLs, …)',
    ),
    expect: object(
      'What should happen to the pod (default: it runs)',
      {
        phase: oneOfStrings('Running (default) or Failed', ['Running', 'Failed']),
        error: text('Failed: a piece of the runtime error message'),
      },
      ['phase'],
    ),
  },
  ['name', 'node'],
);

const service = object(
  'A Kubernetes service, programmed by kube-proxy (winkernel on Windows nodes)',
  {
    name: name('Service name'),
    namespace: name('Kubernetes namespace (default default)'),
    type: oneOfStrings('ClusterIP (default), NodePort or LoadBalancer', [
      'ClusterIP',
      'NodePort',
      'LoadBalancer',
    ]),
    clusterIP: text('The ClusterIP (default: the next free one), or None (headless)', {
      pattern: '^([0-9]{1,3}(\\.[0-9]{1,3}){3}|None)$',
    }),
    ports: list(
      object(
        'A service port',
        {
          port: int('Service port', 1, 65535),
          targetPort: int('Pod port (default the port)', 1, 65535),
          protocol: oneOfStrings('TCP (default) or UDP', ['TCP', 'UDP']),
          nodePort: int('NodePort', 1, 65535),
          name: name('Port name'),
        },
        ['port'],
      ),
      16,
      'Ports',
      { minItems: 1 },
    ),
    selector: labels('Pods it selects'),
    externalIPs: list(ipv4('An external IP'), 8, 'External IPs'),
    loadBalancerIP: ipv4('The load balancer IP'),
    sessionAffinity: oneOfStrings('None (default) or ClientIP', ['None', 'ClientIP']),
    externalTrafficPolicy: oneOfStrings('Cluster (default) or Local', ['Cluster', 'Local']),
  },
  ['name', 'ports', 'selector'],
);

const endpointRef = text(
  'A pod (namespace/name), a node, a node/endpoint name, svc:namespace/name, an IPv4 address, an external host or a DNS name',
  { minLength: 1, maxLength: 253 },
);

const trace = object(
  'One packet traced, and what should become of it',
  {
    name: text('A label for the row (default from → to)'),
    from: endpointRef,
    to: endpointRef,
    protocol: oneOfStrings('TCP (default), UDP or ICMP', ['TCP', 'UDP', 'ICMP']),
    port: int("Destination port (default: the service's port, else 80)", 0, 65535),
    sourcePort: int('Source port (default 50000)', 0, 65535),
    expect: oneOfStrings('The disposition the trace must end in', DISPOSITIONS),
    reply: oneOfStrings("The reply's disposition (the reply is traced when this is given)", DISPOSITIONS),
    changes: list(
      text('A packet change as the flows table words it: DNAT a:p→b:q, SNAT a→b, VXLAN VNI …, MAC→host MAC'),
      16,
      'The packet changes on the way, exactly and in order',
    ),
    decidedBy: object('The step that decided the verdict (the last one), and the policy behind it', {
      component: text('ACL, LB, NAT, Routing, Encap, HostStack, Underlay, DNS, …'),
      policy: text('The HNS policy Type: ACL, OutBoundNAT, PortMapping, …'),
      name: text('The HNS object or rule name'),
    }),
  },
  ['from', 'to', 'expect'],
);

const reachability = object(
  'A truth table: every source to every target, expected against observed (cyclonus)',
  {
    name: text('A label for the table'),
    protocol: oneOfStrings('TCP (default), UDP or ICMP', ['TCP', 'UDP', 'ICMP']),
    port: int("Destination port (default: the service's port, else 80)", 0, 65535),
    from: list(endpointRef, 200, 'Sources (rows)', { minItems: 1 }),
    to: list(endpointRef, 200, 'Targets (columns)', { minItems: 1 }),
    default: oneOfStrings('What every cell expects unless listed: allow or deny', ['allow', 'deny']),
    allow: list(text('"SOURCE -> TARGET"'), 1000, 'Cells expected to connect'),
    deny: list(text('"SOURCE -> TARGET"'), 1000, 'Cells expected not to connect'),
    ignoreLoopback: bool('Skip cells whose source and target are the same'),
  },
  ['from', 'to', 'default'],
);

const expectations = object('Expectations, checked where they appear', {
  pods: list(
    object(
      "A pod's state",
      {
        pod: podRef('namespace/name'),
        phase: oneOfStrings('Running, Failed or Absent (never created, or deleted)', [
          'Running',
          'Failed',
          'Absent',
        ]),
        ip: ipv4('Its IP'),
        error: text('Failed: a piece of the last error'),
      },
      ['pod', 'phase'],
    ),
    1000,
    'Pod states',
  ),
  traces: list(trace, LIMITS.traces, 'Traces with expected dispositions'),
  reachability: list(reachability, 50, 'Truth tables'),
  hns: list(
    object(
      "Assertions on a node's HNS objects, as HNS returns them (hnsim show --format json)",
      {
        node: name('The node'),
        kind: oneOfStrings('Object kind', HNS_KINDS),
        where: document('A partial document the objects asserted on match (default: all of the kind)'),
        count: int('How many match', 0, 100_000),
        has: document('A partial document every matching object must match'),
      },
      ['node', 'kind'],
    ),
    200,
    'HNS state assertions',
  ),
  acls: list(
    object(
      "A pod's ACLs analysed whole, every packet at once (docs/analysis.md)",
      {
        pod: podRef('namespace/name'),
        shadowed: list(
          text('A rule: its Id (else its VFP rule name)'),
          1000,
          'The rules that decide no packet though they match some, in any order; [] = none',
        ),
        redundant: list(
          text('A rule: its Id (else its VFP rule name)'),
          1000,
          'The rules whose removal would change no verdict, in any order; [] = none',
        ),
      },
      ['pod', 'shadowed'],
    ),
    100,
    'ACL analyses of pods',
  ),
  reach: list(
    object(
      'Reach exactly: every packet from a source to a destination at once (docs/analysis.md)',
      {
        name: text('A label (default from → to)'),
        from: endpointRef,
        to: endpointRef,
        exactly: text(
          'The packets delivered whatever a load balancer picks, as a flow spec: "TCP port 80, 443; UDP port 53; ICMP", "TCP port 8000-8080 from port 1024-65535", "any protocol" or "nothing"',
          { minLength: 1 },
        ),
      },
      ['from', 'to', 'exactly'],
    ),
    200,
    'Reachability, exactly',
  ),
  reachUnchanged: list(
    object(
      'Unchanged reachability: every packet of these pairs gets what it got at an earlier point of the run (docs/analysis.md)',
      {
        name: text('A label'),
        since: {
          description:
            'previous (the previous expect step, else the set-up), setup, the title of an earlier step (the state once it ran), or a step count (the state after that many steps, as --at N)',
          oneOf: [text('previous, setup or an earlier step title', { minLength: 1 }), int('Steps', 0, 500)],
        },
        from: list(endpointRef, 200, 'Sources (default: every running pod)', { minItems: 1 }),
        to: list(endpointRef, 200, 'Destinations (default: every running pod and every service)', {
          minItems: 1,
        }),
      },
      ['since'],
    ),
    50,
    'Differential reachability against an earlier point',
  ),
  audit: list(
    object(
      "The node's leak audit (host.audit())",
      {
        node: name('The node (default: every Windows node)'),
        findings: list(
          oneOfStrings('A finding kind', AUDIT_KINDS),
          1000,
          'The kinds of the findings, one per finding, in any order; [] = clean',
        ),
      },
      ['findings'],
    ),
    100,
    'Audits',
  ),
});

const step = (key: string, value: Schema): Schema => ({
  type: 'object',
  additionalProperties: false,
  required: [key],
  properties: { [key]: value, title: text('A heading for the step in the narration') },
});

const nodeOnly = (description: string): Schema => object(description, { node: name('The node') }, ['node']);

export const SCENARIO_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:hnsim:scenario:v1',
  title: 'hnsim scenario',
  description:
    'A declarative Windows container-networking scenario: nodes, their networks and CNI, pods, services, faults, and what should happen (docs/scenarios.md).',
  type: 'object',
  additionalProperties: false,
  required: ['hnsim', 'name', 'hosts'],
  properties: {
    hnsim: { const: SCENARIO_FORMAT, description: 'The format and its version' },
    name: text('Scenario name', { minLength: 1, maxLength: 128 }),
    description: text('What it shows, for the narration'),
    seed: int('Seed of every ID and choice (default 1)', 0, 4_294_967_295),
    profile: text('Default HNS profile of Windows nodes (default ws2022)', { format: 'profile' }),
    cluster: object('Makes the hosts one Kubernetes cluster on an underlay (src/cluster)', {
      podCidr: prefix('Pod network (default 10.244.0.0/16)'),
      serviceCidr: prefix('Service network (default 10.96.0.0/12)'),
      podCidrV6: prefix6(
        "Dual-stack: the IPv6 pod network, /63 or shorter; node i's IPv6 pod CIDR in the cluster's Kubernetes API is its i-th /64 (what azure-vnet's ipv6nat IPAM reads), and an Azure cluster (node-subnet mode) gets AgentBaker's dual-stack conflist",
      ),
      serviceCidrV6: prefix6(
        "Dual-stack: the IPv6 service network (with podCidrV6; default fd12:3456:789a:1::/108, AKS's)",
      ),
      domain: text('Cluster domain (default cluster.local)', { pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' }),
      dnsServiceIp: ipv4("kube-dns's ClusterIP (default the service CIDR's .10)"),
      dsr: bool('kube-proxy --enable-dsr (default false)'),
      coreDns: object(
        'CoreDNS pods (kube-system/coredns-N, k8s-app: kube-dns) and the kube-dns service',
        { node: name('Where they run'), replicas: int('How many (default 1)', 1, 16) },
        ['node'],
      ),
      azure: object(
        'An Azure VNet cluster (AKS): nodes are Azure VMs on the VNet subnet (underlay.nodeSubnet, default 10.224.0.0/16) running pods through azure-vnet; service CIDR default 10.0.0.0/16',
        {
          mode: oneOfStrings(
            "How pods get addresses: node-subnet (default: the NICs' secondary IPs, azure-vnet-ipam) or overlay (each node a /24 of cluster.podCidr, handed out by its CNS, routed to it by the VNet)",
            ['node-subnet', 'overlay'],
          ),
          addressSpace: list(
            prefix('A VNet address prefix'),
            16,
            "The VNet's address space (default 10.224.0.0/12)",
            {
              minItems: 1,
            },
          ),
          maxPods: int('Node-subnet: secondary IPs on each node NIC (AKS --max-pods, default 30)', 1, 250),
        },
      ),
    }),
    underlay: object('The network between the nodes (cluster only)', {
      nodeSubnet: prefix('The nodes segment (default 10.0.0.0/24; router .1, nodes from .10)'),
      routing: oneOfStrings(
        'How host-gw nodes reach each other: host-gw (host routes, default) or tor (routes on the router)',
        ['host-gw', 'tor'],
      ),
      segments: list(
        object(
          'Another L2 segment, joined by the router at .1',
          { name: name('Name'), prefix: prefix('Prefix') },
          ['name', 'prefix'],
        ),
        16,
        'More segments',
      ),
      routes: list(
        object(
          'A route on the underlay router',
          { destinationPrefix: prefix('Destination'), nextHop: ipv4('Next hop') },
          ['destinationPrefix', 'nextHop'],
        ),
        256,
        'Router routes',
      ),
      externals: list(
        object(
          'A host outside the cluster',
          {
            name: text('Name', { minLength: 1, maxLength: 253 }),
            ip: ipv4('Address'),
            dnsName: text('DNS name'),
          },
          ['name', 'ip'],
        ),
        64,
        'Outside hosts',
      ),
    }),
    hosts: list(host, LIMITS.hosts, 'The nodes', { minItems: 1 }),
    pods: list(ref('pod'), LIMITS.pods, 'Pods started at set-up, in order'),
    services: list(ref('service'), LIMITS.services, 'Services created at set-up'),
    networkPolicies: list(
      document(
        'A Kubernetes NetworkPolicy (networking.k8s.io/v1 spec, flattened): {namespace (default), name, podSelector: {labels}, policyTypes: [Ingress, Egress], ingress: [{from: [{podSelector, namespaceSelector, ipBlock: {cidr, except}}], ports: [{protocol, port, endPort}]}], egress: [{to: […], ports: […]}]}; enforced by Antrea nodes (docs/antrea.md)',
      ),
      256,
      'NetworkPolicies created at set-up, after the services',
    ),
    steps: list(ref('step'), LIMITS.steps, 'What happens after set-up, in order'),
    expect: ref('expectations', 'Checked at the end'),
  },
  $defs: {
    pod,
    service,
    expectations,
    step: {
      description: 'One action (exactly one key, plus an optional title)',
      oneOf: [
        step('note', text('A paragraph of narration')),
        step('addPod', ref('pod')),
        step('deletePod', podRef('The pod: namespace/name (StopPodSandbox, RemovePodSandbox)')),
        step('addService', ref('service')),
        step('deleteService', podRef('The service: namespace/name')),
        step(
          'restartHns',
          object(
            'Restart the HNS service on a node',
            { node: name('The node'), downtimeMs: int('Simulated downtime', 0, 3_600_000), keep },
            ['node'],
          ),
        ),
        step('reboot', object('Reboot a node', { node: name('The node'), keep }, ['node'])),
        step('restartHcs', nodeOnly('Stop the Host Compute Service (every compute system exits)')),
        step(
          'deleteObject',
          object(
            'Delete an HNS object behind everyone’s back (hnsdiag delete)',
            {
              node: name('The node'),
              kind: oneOfStrings('Object kind', DELETE_KINDS),
              name: text('The object name (networks, endpoints)'),
              pod: podRef('The pod whose endpoint or namespace it is'),
              vip: ipv4('Load balancers: a frontend VIP'),
            },
            ['node', 'kind'],
          ),
        ),
        step(
          'fail',
          object(
            'Make HNS/HCS calls on a node fail (the fault layer)',
            {
              node: name('The node'),
              method: text('A flat API method, or a prefix ending in *', {
                pattern: '^(Hcn|Hcs|HNS)[A-Za-z]*\\*?$',
              }),
              hresult: text('A registered HRESULT name or 0x…', { format: 'hresult' }),
              times: int('Only the first N matching calls (default every one)', 1, 1000),
              name: text('Only calls on the object with this name'),
            },
            ['node', 'method', 'hresult'],
          ),
        ),
        step('clearFaults', nodeOnly('Remove every fault rule of a node')),
        step(
          'advance',
          object('Let simulated time pass on every node', { ms: int('Milliseconds', 0, 86_400_000) }, ['ms']),
        ),
        step(
          'call',
          object(
            'Call the flat API on a node (hnsim call)',
            {
              node: name('The node'),
              method: text('The method, e.g. HcnCreateLoadBalancer', { pattern: '^(Hcn|Hcs|HNS)[A-Za-z]*$' }),
              params: list(
                {},
                8,
                "Its arguments; a string $(network NAME), $(endpoint NAME), $(namespace POD) or $(loadbalancer VIP) is that object's ID on the node",
              ),
              expect: text('S_OK (default) or the HRESULT it must fail with', { format: 'hresult' }),
            },
            ['node', 'method'],
          ),
        ),
        step(
          'ovs',
          object(
            'Run an Open vSwitch command on a node (hnsim ovs): ovs-vsctl, ovs-ofctl, ovs-appctl, or start/stop ovs-vswitchd',
            {
              node: name('The node'),
              tool: oneOfStrings('The tool', OVS_TOOLS),
              args: list(text('One argument'), 200, "The tool's arguments, as on its command line"),
              status: int('The exit status it must have (default 0)', 0, 255),
              stdout: list(text('A piece of text'), 50, 'Pieces of text its output must contain'),
            },
            ['node', 'tool'],
          ),
        ),
        step(
          'renameAdapter',
          object(
            "Rename a host network adapter (Rename-NetAdapter), as Antrea renames the Transparent network's vNIC to br-int",
            { node: name('The node'), name: text('The adapter name'), to: text('Its new name') },
            ['node', 'name', 'to'],
          ),
        ),
        step('expect', ref('expectations')),
      ],
    },
  },
} as const;

/** The step kinds, in the schema's order. */
export const STEP_KINDS = [
  'note',
  'addPod',
  'deletePod',
  'addService',
  'deleteService',
  'restartHns',
  'reboot',
  'restartHcs',
  'deleteObject',
  'fail',
  'clearFaults',
  'advance',
  'call',
  'ovs',
  'renameAdapter',
  'expect',
] as const;
