/**
 * The Azure VM around a node (issue 16; reference azure-cni.md §5.1 and §6): the IP configurations
 * Azure's fabric holds for each of the VM's NICs — the primary address, which the OS adapter
 * carries, and the secondary ones, which no OS interface carries until a plugin hands them to
 * pods — and the two platform addresses a VM reaches without a route: the wireserver
 * (168.63.129.16) and IMDS (169.254.169.254).
 *
 * Over HTTP, the wireserver answers its interface document, the one `azure-vnet-ipam` reads
 * (`GET http://168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1`), in the shape of
 * ACN `cns/wireserver/testdata/interfaces.xml` and the struct `common.XmlDocument` decodes it
 * into: `<Interfaces><Interface MacAddress IsPrimary><IPSubnet Prefix><IPAddress Address
 * IsPrimary/>…`; IMDS answers `/metadata/instance` and `/metadata/versions` (src/host/imds.ts) from
 * these NICs and the VM's `compute` fields. A VM without this configuration is not on Azure: nothing
 * answers there, and a request fails as Go's HTTP client fails on a host that never answers
 * (docs/model.md, "Azure VM", "Azure IMDS").
 *
 *   createHost({ adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', macAddress: '00-0D-3A-…' }],
 *                azure: { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.240.0.5', '10.240.0.6'] }] } });
 */
import { hnsError } from '../core/errors.js';
import { formatIPv4, parseIPv4, parsePrefix, prefixContains, formatPrefix, type Prefix } from '../addr/ip.js';
import { parseMac } from '../addr/mac.js';
import type { NetAdapterRec } from '../hns/adapters.js';
import {
  evaluateNsg,
  parseNsg,
  type AddressSpace,
  type Nsg,
  type NsgDirection,
  type NsgSpec,
} from './nsg.js';
import type { AzureEdge, PlatformAnswer } from '../dataplane/host-scope.js';
import type { Packet } from '../vswitch/contracts.js';
import {
  imdsDocument,
  imdsRequest,
  parseCompute,
  type AzureCompute,
  type AzureComputeSpec,
  type ImdsDocument,
} from './imds.js';
import { goUrlErrorOp, requestUrl } from './url.js';

/**
 * What NMAgent lists as supported on a current Azure host (our choice of list: the two names
 * azure-vnet looks for, both present — SNAT and DNS handled by the platform).
 */
export const DEFAULT_NMAGENT_APIS: readonly string[] = Object.freeze([
  'NetworkManagementSnatSupport',
  'NetworkManagementDNSSupport',
]);

/** The wireserver's address. */
export const WIRESERVER_IP = '168.63.129.16';
/** The Instance Metadata Service's address. */
export const IMDS_IP = '169.254.169.254';
/** The document azure-vnet-ipam asks for (ACN `ipam/azure.go` `azureQueryUrl`). */
export const INTERFACE_INFO_URL = 'http://168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1';

/** One NIC of the VM as `createHost({ azure })` takes it. */
export interface AzureNicSpec {
  /** The host adapter this NIC is (its MAC and primary address are the adapter's). */
  readonly adapter: string;
  /** The NIC's secondary IP configurations: IPv4 addresses inside the adapter's subnet. */
  readonly secondaryIps?: readonly string[];
  /** The network security group on the NIC (src/host/nsg.ts); none: nothing filters the NIC. */
  readonly nsg?: NsgSpec;
  /** The public IPv4 address of the NIC's primary IP configuration (IMDS `publicIpAddress`; default none). */
  readonly publicIp?: string;
}

/** The VM's NICs as Azure's fabric knows them, the primary NIC first. */
export interface AzureVmSpec {
  readonly nics: readonly AzureNicSpec[];
  /**
   * The VNet's address space: what an NSG's VirtualNetwork tag stands for (default: the NICs'
   * subnets).
   */
  readonly addressSpace?: readonly string[];
  /**
   * The API names NMAgent lists at the wireserver's `GetSupportedApis` (default: a current host's,
   * with `NetworkManagementSnatSupport` and `NetworkManagementDNSSupport`); multitenant azure-vnet
   * decides SNAT for DNS and on the host from them.
   */
  readonly nmagentApis?: readonly string[];
  /**
   * The VM's own fields IMDS serves under `compute` (src/host/imds.ts): name, location, vmId,
   * vmSize, resourceGroupName, subscriptionId, zone, tags — each optional, with a default.
   */
  readonly compute?: AzureComputeSpec;
}

/** What `AzureVm.parse` needs of the host for the VM's defaults (its name and id). */
export interface AzureHostContext {
  readonly hostName: string;
  readonly seed: number;
}

/**
 * The host a caller of `AzureVm.parse`/`fromState` (or of the constructor, from JavaScript) that
 * names none gets the `compute` defaults of: createHost's defaults, name `node-1` and seed 1.
 */
const DEFAULT_CONTEXT: AzureHostContext = { hostName: 'node-1', seed: 1 };

/** One NIC as the fabric holds it. */
export interface AzureNic {
  readonly adapter: string;
  /** Twelve upper-case hex digits, as the wireserver writes a MAC. */
  readonly mac: string;
  readonly isPrimary: boolean;
  readonly subnet: Prefix;
  readonly primaryIp: string;
  readonly secondaryIps: readonly string[];
  readonly nsg?: Nsg;
  /** The NSG as it was given (what a snapshot keeps). */
  readonly nsgSpec?: NsgSpec;
  readonly publicIp?: string;
}

/** The VM as a host snapshot keeps it (the NICs as parsed: an adapter bound to a switch loses its address). */
export interface AzureVmState {
  readonly nics: readonly {
    readonly adapter: string;
    readonly mac: string;
    readonly subnet: string;
    readonly primaryIp: string;
    readonly secondaryIps: readonly string[];
    readonly nsg?: NsgSpec;
    readonly publicIp?: string;
  }[];
  readonly addressSpace: readonly string[];
  readonly nmagentApis?: readonly string[];
  readonly compute?: AzureCompute;
}

/** An HTTP request's headers, name → value (names matched case-insensitively where read). */
export type HttpHeaders = Readonly<Record<string, string>>;

/** What a platform address answered: the HTTP status and body. */
export interface PlatformReply {
  readonly status: number;
  readonly body: string;
}

/** A request to a platform address that nothing answers: Go's HTTP client error text. */
export class PlatformUnreachable extends Error {
  constructor(url: string, hostPort: string, method = 'GET') {
    super(`${goUrlErrorOp(method)} "${url}": dial tcp ${hostPort}: i/o timeout`);
    this.name = 'PlatformUnreachable';
  }
}

function specError(what: string): never {
  throw hnsError('E_INVALIDARG', `azure: ${what}`);
}

/** The VM's NIC configuration, checked against the host's adapters. */
export class AzureVm {
  private constructor(
    readonly nics: readonly AzureNic[],
    /** The VNet's address space as intervals (the VirtualNetwork tag). */
    readonly addressSpace: AddressSpace,
    /** What NMAgent's GetSupportedApis lists. */
    readonly nmagentApis: readonly string[] = DEFAULT_NMAGENT_APIS,
    /** The VM's own fields (IMDS `compute`; default: those of a host with createHost's defaults). */
    readonly compute: AzureCompute = parseCompute(undefined, DEFAULT_CONTEXT),
  ) {}

  /**
   * Build from `createHost`'s `azure` option (`host`: the name and seed the defaults derive from); a
   * bad spec is E_INVALIDARG naming the problem.
   */
  static parse(
    spec: AzureVmSpec,
    adapters: readonly NetAdapterRec[],
    host: AzureHostContext = DEFAULT_CONTEXT,
  ): AzureVm {
    if (typeof spec !== 'object' || spec === null || !Array.isArray(spec.nics))
      specError('nics must be a list');
    for (const k of Object.keys(spec))
      if (k !== 'nics' && k !== 'addressSpace' && k !== 'nmagentApis' && k !== 'compute')
        specError(`unknown key "${k}" (nics, addressSpace, nmagentApis, compute)`);
    const compute = parseCompute(spec.compute, host);
    if (
      spec.nmagentApis !== undefined &&
      (!Array.isArray(spec.nmagentApis) || !spec.nmagentApis.every((x: unknown) => typeof x === 'string'))
    )
      specError('nmagentApis must be a list of API names');
    if (spec.nics.length === 0) specError('a VM has at least one NIC');
    const taken = new Set<string>();
    const used = new Set<number>();
    const list: readonly AzureNicSpec[] = spec.nics;
    const nics = list.map((n, i): AzureNic => {
      if (typeof n !== 'object' || n === null || Array.isArray(n)) specError(`nic ${i} must be an object`);
      for (const k of Object.keys(n)) {
        if (k !== 'adapter' && k !== 'secondaryIps' && k !== 'nsg' && k !== 'publicIp')
          specError(`nic ${i}: unknown key "${k}" (adapter, secondaryIps, nsg, publicIp)`);
      }
      if (typeof n.adapter !== 'string') specError(`nic ${i}: adapter must be the name of a host adapter`);
      if (n.secondaryIps !== undefined && !Array.isArray(n.secondaryIps))
        specError(`nic ${i}: secondaryIps must be a list of IPv4 addresses`);
      if (n.publicIp !== undefined && (typeof n.publicIp !== 'string' || parseIPv4(n.publicIp) === undefined))
        specError(`nic ${i}: publicIp ${JSON.stringify(n.publicIp)} is not an IPv4 address`);
      const a = adapters.find((x) => x.Name.toLowerCase() === n.adapter.toLowerCase());
      if (!a) specError(`nic ${i}: no host adapter "${n.adapter}"`);
      if (taken.has(a.Name.toLowerCase())) specError(`nic ${i}: adapter "${a.Name}" is named twice`);
      taken.add(a.Name.toLowerCase());
      if (!a.IPv4) specError(`nic ${i}: adapter "${a.Name}" has no IPv4 address`);
      const subnet = parsePrefix(`${a.IPv4.IPAddress}/${a.IPv4.PrefixLength}`)!;
      used.add(a.IPv4.addr);
      const secondaryIps = (n.secondaryIps ?? []).map((s: unknown) => {
        const v = typeof s === 'string' ? parseIPv4(s) : undefined;
        if (v === undefined) specError(`nic ${i}: secondary IP ${JSON.stringify(s)} is not an IPv4 address`);
        if (!prefixContains(subnet, { family: 4, value: v })) {
          specError(
            `nic ${i}: secondary IP ${String(s)} is outside the NIC's subnet ${formatPrefix(subnet)}`,
          );
        }
        if (used.has(v)) specError(`nic ${i}: IP ${String(s)} is configured twice`);
        used.add(v);
        return formatIPv4(v);
      });
      const mac = parseMac(a.MacAddress)!;
      return {
        adapter: a.Name,
        mac: mac.toString(16).toUpperCase().padStart(12, '0'),
        isPrimary: i === 0,
        subnet,
        primaryIp: a.IPv4.IPAddress,
        secondaryIps,
        ...(n.nsg !== undefined ? { nsg: parseNsg(`nic ${i} nsg`, n.nsg), nsgSpec: n.nsg } : {}),
        ...(n.publicIp !== undefined ? { publicIp: formatIPv4(parseIPv4(n.publicIp)!) } : {}),
      };
    });
    let space: { lo: number; hi: number }[];
    if (spec.addressSpace === undefined) {
      space = nics.map((n) => ({
        lo: n.subnet.addr as number,
        hi: (n.subnet.addr as number) + 2 ** (32 - n.subnet.len) - 1,
      }));
    } else {
      if (!Array.isArray(spec.addressSpace) || spec.addressSpace.length === 0)
        specError('addressSpace must be a non-empty list of IPv4 CIDRs');
      space = spec.addressSpace.map((c: unknown) => {
        const p = typeof c === 'string' ? parsePrefix(c) : undefined;
        if (!p || p.family !== 4) specError(`addressSpace: ${JSON.stringify(c)} is not an IPv4 CIDR`);
        return { lo: p.addr, hi: p.addr + 2 ** (32 - p.len) - 1 };
      });
    }
    return new AzureVm(nics, space, spec.nmagentApis ? [...spec.nmagentApis] : DEFAULT_NMAGENT_APIS, compute);
  }

  /** What a host snapshot keeps of the VM. */
  toState(): AzureVmState {
    return {
      nics: this.nics.map((n) => ({
        adapter: n.adapter,
        mac: n.mac,
        subnet: formatPrefix(n.subnet),
        primaryIp: n.primaryIp,
        secondaryIps: [...n.secondaryIps],
        ...(n.nsgSpec !== undefined ? { nsg: n.nsgSpec } : {}),
        ...(n.publicIp !== undefined ? { publicIp: n.publicIp } : {}),
      })),
      addressSpace: this.addressSpace.map((r) => `${formatIPv4(r.lo)}/${32 - Math.log2(r.hi - r.lo + 1)}`),
      ...(this.nmagentApis !== DEFAULT_NMAGENT_APIS ? { nmagentApis: [...this.nmagentApis] } : {}),
      compute: { ...this.compute, tags: { ...this.compute.tags } },
    };
  }

  /**
   * The VM a snapshot kept (`host`: for the `compute` defaults of a snapshot written before it was
   * kept); a malformed one is E_INVALIDARG naming the problem.
   */
  static fromState(state: unknown, host: AzureHostContext = DEFAULT_CONTEXT): AzureVm {
    const o = state as Partial<AzureVmState> | null;
    if (
      typeof o !== 'object' ||
      o === null ||
      !Array.isArray(o.nics) ||
      o.nics.length === 0 ||
      !Array.isArray(o.addressSpace)
    )
      specError('snapshot: azure must be {"nics":[…],"addressSpace":[…]}');
    const nics = o.nics.map((n, i): AzureNic => {
      const subnet = typeof n?.subnet === 'string' ? parsePrefix(n.subnet) : undefined;
      const ok =
        typeof n?.adapter === 'string' &&
        typeof n.mac === 'string' &&
        /^[0-9A-F]{12}$/.test(n.mac) &&
        subnet !== undefined &&
        subnet.family === 4 &&
        typeof n.primaryIp === 'string' &&
        parseIPv4(n.primaryIp) !== undefined &&
        Array.isArray(n.secondaryIps) &&
        n.secondaryIps.every((x: unknown) => typeof x === 'string' && parseIPv4(x) !== undefined) &&
        (n.publicIp === undefined || (typeof n.publicIp === 'string' && parseIPv4(n.publicIp) !== undefined));
      if (!ok) specError(`snapshot: azure nic ${i} is malformed`);
      return {
        adapter: n.adapter,
        mac: n.mac,
        isPrimary: i === 0,
        subnet,
        primaryIp: n.primaryIp,
        secondaryIps: [...n.secondaryIps],
        ...(n.nsg !== undefined ? { nsg: parseNsg(`nic ${i} nsg`, n.nsg), nsgSpec: n.nsg } : {}),
        ...(n.publicIp !== undefined ? { publicIp: n.publicIp } : {}),
      };
    });
    const space = o.addressSpace.map((c) => {
      const p = typeof c === 'string' ? parsePrefix(c) : undefined;
      if (!p || p.family !== 4) specError(`snapshot: addressSpace ${JSON.stringify(c)} is not an IPv4 CIDR`);
      return { lo: p.addr, hi: p.addr + 2 ** (32 - p.len) - 1 };
    });
    const apis = Array.isArray(o.nmagentApis)
      ? o.nmagentApis.filter((x): x is string => typeof x === 'string')
      : undefined;
    const compute = parseCompute(o.compute, host, 'snapshot: ');
    return new AzureVm(nics, space, apis ?? DEFAULT_NMAGENT_APIS, compute);
  }

  /** The IMDS document (src/host/imds.ts), made once like the wireserver's. */
  #imds: ImdsDocument | undefined;

  imdsDocument(): ImdsDocument {
    return (this.#imds ??= imdsDocument(this.compute, this.nics));
  }

  /** The wireserver's `getinterfaceinfov1` document. */
  /** The document, made once (the VM's NIC configuration does not change). */
  #xml: string | undefined;

  interfaceInfoXml(): string {
    return (this.#xml ??= this.#interfaceInfoXml());
  }

  #interfaceInfoXml(): string {
    const lines = ['<Interfaces>'];
    for (const n of this.nics) {
      lines.push(`    <Interface MacAddress="${n.mac}" IsPrimary="${n.isPrimary}">`);
      lines.push(`        <IPSubnet Prefix="${formatPrefix(n.subnet)}">`);
      lines.push(`            <IPAddress Address="${n.primaryIp}" IsPrimary="true"/>`);
      for (const ip of n.secondaryIps)
        lines.push(`            <IPAddress Address="${ip}" IsPrimary="false"/>`);
      lines.push('        </IPSubnet>');
      lines.push('    </Interface>');
    }
    lines.push('</Interfaces>');
    return `${lines.join('\n')}\n`;
  }
}

/**
 * An HTTP request from the node (a process in its default compartment, so from its primary IP) to a
 * platform address: on an Azure VM, a GET to the wireserver gets its interface document (200) or
 * NMAgent's supported APIs, 404 for another wireserver path; any request to IMDS on port 80 gets
 * IMDS's answer (src/host/imds.ts: `Metadata: true` required, `headers` matched case-insensitively).
 * The URL is read as Go's client reads it (src/host/url.ts: the scheme in any case, the fragment not
 * sent); both listen on plain HTTP port 80 only, so an `https://` URL dials port 443 and times out.
 * A VM not on Azure, another verb to the wireserver and any other host never answer:
 * `PlatformUnreachable`; a URL Go's client refuses (no http(s) scheme, no host) is `HttpUrlError`.
 */
export function platformRequest(
  vm: AzureVm | undefined,
  method: string,
  url: string,
  headers: HttpHeaders = {},
): PlatformReply {
  const u = requestUrl(method, url);
  const listening = vm !== undefined && u.scheme === 'http' && u.port === 80;
  if (listening && u.host === IMDS_IP) return imdsRequest(vm.imdsDocument(), method, u.target, headers);
  if (listening && u.host === WIRESERVER_IP && method.toUpperCase() === 'GET') {
    if (`http://${WIRESERVER_IP}${u.target}` === INTERFACE_INFO_URL)
      return { status: 200, body: vm.interfaceInfoXml() };
    // NMAgent's supported APIs (nmagent/responses.go SupportedAPIsResponseXML)
    if (/^\/machine\/plugins\/?\?comp=nmagent&type=GetSupportedApis$/.test(u.target))
      return {
        status: 200,
        body: `<SupportedAPIsResponseXML>${vm.nmagentApis.map((a) => `<type>${a}</type>`).join('')}</SupportedAPIsResponseXML>`,
      };
    return { status: 404, body: '' };
  }
  throw new PlatformUnreachable(u.href, u.hostPort, method);
}

export const WIRESERVER_V4 = parseIPv4(WIRESERVER_IP)!;
export const IMDS_V4 = parseIPv4(IMDS_IP)!;
const TCP = 6;
const UDP = 17;

/**
 * The Azure host answers 168.63.129.16 (the wireserver: DNS on UDP/TCP 53, the HTTP agent
 * endpoints on TCP 80 and 32526) and 169.254.169.254 (IMDS: HTTP on TCP 80, only from the VM's
 * primary IP — what makes OutBoundNAT, or a destination OutBoundNAT, necessary for pods: AKS #3128)
 * for the VM whose NIC sent the packet; NSGs do not filter them (Azure's platform rule; the
 * endpoint ACLs AKS adds are what blocks pods from the wireserver's TCP 80 and 32526). Undefined
 * for any other destination. Reference azure-cni.md §6; docs/model.md "Azure VM".
 */
export function platformAnswer(
  vm: AzureVm,
  p: { readonly srcIp: number; readonly dstIp: number; readonly proto: number; readonly dstPort: number },
): PlatformAnswer | undefined {
  if (p.dstIp === WIRESERVER_V4) {
    const dns = (p.proto === UDP || p.proto === TCP) && p.dstPort === 53;
    const http = p.proto === TCP && (p.dstPort === 80 || p.dstPort === 32526);
    const at = { name: 'wireserver', address: WIRESERVER_IP };
    if (dns) return { ...at, delivered: true, detail: 'the wireserver answers DNS (53)' };
    if (http) return { ...at, delivered: true, detail: `the wireserver's agent endpoint (TCP ${p.dstPort})` };
    return {
      ...at,
      delivered: false,
      detail: 'nothing listens there on the wireserver (DNS 53, TCP 80 and 32526 only)',
    };
  }
  if (p.dstIp === IMDS_V4) {
    const at = { name: 'imds', address: IMDS_IP };
    if (p.proto !== TCP || p.dstPort !== 80) {
      return { ...at, delivered: false, detail: 'IMDS answers HTTP on TCP 80 only' };
    }
    const primary = parseIPv4(vm.nics[0]!.primaryIp);
    if (p.srcIp !== primary) {
      return {
        ...at,
        delivered: false,
        detail: `IMDS answers only the VM's primary IP (${vm.nics[0]!.primaryIp}), not ${formatIPv4(p.srcIp)}`,
      };
    }
    return { ...at, delivered: true, detail: 'the Instance Metadata Service (TCP 80)' };
  }
  return undefined;
}

/**
 * The VM's virtualization host as the dataplane's edge sees it: the platform addresses it answers,
 * the NSG verdict on the NIC a packet crosses (the NIC holding the VM's address on that side;
 * undefined when the NIC has no NSG), and the addresses the VM's NICs hold.
 */
export function azureEdge(vm: AzureVm): AzureEdge {
  const owner = new Map<number, AzureNic>();
  for (const n of vm.nics) {
    owner.set(parseIPv4(n.primaryIp)!, n);
    for (const ip of n.secondaryIps) owner.set(parseIPv4(ip)!, n);
  }
  return {
    platform: (p) => platformAnswer(vm, p),
    owns: (ip) => owner.has(ip),
    nsg: (direction: NsgDirection, p: Packet) => {
      const nic = owner.get(direction === 'Outbound' ? p.srcIp : p.dstIp) ?? vm.nics[0]!;
      if (!nic.nsg) return undefined;
      const v = evaluateNsg(nic.nsg, direction, p, vm.addressSpace);
      const r = v.rule;
      return {
        allowed: v.allowed,
        rule: {
          kind: 'NSG',
          id: v.nsg,
          name: r.name,
          ruleId: r.name,
          policy: 'SecurityRule',
          priority: r.priority,
          layer: 'NSG',
          rule: `${direction} ${r.priority} ${r.name} ${r.access}`,
        },
        detail: `${nic.adapter}'s NSG ${v.nsg}: ${r.defaultRule ? 'default rule ' : ''}${r.name} (${r.priority}) ${r.access === 'Allow' ? 'allows' : 'denies'} it`,
      };
    },
  };
}
