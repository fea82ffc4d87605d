/**
 * What a CNI plugin runs against on a simulated node (contracts.ts `PluginHost`): the typed HCN,
 * HNS v1 and HCS clients bound to `host.transport` (so the fault layer applies), the node's disk,
 * clock and events, and `exec`, which finds a plugin through CNI_PATH as `pkg/invoke` does and runs
 * it, emitting one `cni.exec` event per invocation. A plugin that throws out of its exec (a bug)
 * exits 1 with a 999 error document, as a crashed binary would fail its caller.
 */
import { HcnClient } from '../api/hcn/client.js';
import { HcsClient } from '../api/hcs/client.js';
import { HnsV1Client } from '../api/hnsv1/client.js';
import type { Host } from '../host/host.js';
import type { Clock } from '../core/clock.js';
import type { EventBus } from '../core/events.js';
import type { FileStore } from '../core/files.js';
import type { HostProfile } from '../hns/versions.js';
import type { HttpHeaders } from '../host/azure.js';
import type { PipeHandler } from '../host/pipes.js';
import {
  CniError,
  CniErrorCode,
  type CniPlugin,
  type ExecOutput,
  type ExecRequest,
  type NetInterface,
  type PlatformReply,
  type PluginHost,
} from './contracts.js';
import type { FoundPlugin, PluginRegistry } from './registry.js';
import { splitPathList } from './registry.js';
import { errorText } from './result.js';
import { macString, parseMAC } from './gomac.js';

/** A `PluginHost` that can also find plugins itself (the runner uses it for libcni's lookup order). */
export interface CniHost extends PluginHost {
  readonly registry: PluginRegistry;
  /** `invoke.FindInPath` over the registry. */
  find(pluginType: string, paths: readonly string[]): FoundPlugin;
  /** Run a plugin already found, with the `cni.exec` event (depth 0 for a runtime's call). */
  run(plugin: CniPlugin, request: ExecRequest, depth: number): Promise<ExecOutput>;
}

/** Read the error document a failed plugin printed (for the event), if it is one. */
function errorOf(stdout: string): { code?: number; message?: string } {
  try {
    const doc = JSON.parse(stdout) as unknown;
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
      const o = doc as Record<string, unknown>;
      const code = typeof o['code'] === 'number' ? o['code'] : undefined;
      const msg = typeof o['msg'] === 'string' ? o['msg'] : undefined;
      const details = typeof o['details'] === 'string' && o['details'] ? `; ${o['details']}` : '';
      return { code, message: msg !== undefined ? `${msg}${details}` : undefined };
    }
  } catch {
    // not an error document: the event carries only the exit code
  }
  return {};
}

/** An adapter's MAC as `net.HardwareAddr.String()` prints it, by its text (a host has a few). */
const goMacs = new Map<string, string>();
function goMac(text: string): string {
  let m = goMacs.get(text);
  if (m === undefined) {
    if (goMacs.size >= 4096) goMacs.clear();
    m = macString(parseMAC(text));
    goMacs.set(text, m);
  }
  return m;
}

class NodePluginHost implements CniHost {
  readonly name: string;
  readonly profile: HostProfile;
  readonly hcn: HcnClient;
  readonly hns: HnsV1Client;
  readonly hcs: HcsClient;
  readonly files: FileStore;
  readonly clock: Clock;
  readonly events: EventBus;

  constructor(
    private readonly host: Host,
    readonly registry: PluginRegistry,
  ) {
    this.name = host.name;
    this.profile = host.profile;
    this.hcn = HcnClient.forHost(host);
    this.hcs = HcsClient.forHost(host);
    this.hns = new HnsV1Client(host.transport, this.hcs);
    this.files = host.files;
    this.clock = host.clock;
    this.events = host.events;
  }

  /** The last interface list, and the HNS tables' generation it was read at. */
  private ifaces: { readonly generation: number; readonly list: readonly NetInterface[] } | undefined;

  /**
   * `net.Interfaces()`: the host's adapters, read again only after the HNS tables change (every
   * change of a NIC, vSwitch, host vNIC or host-compartment endpoint moves their generation); a
   * plugin asks once or twice per invocation.
   */
  interfaces(): readonly NetInterface[] {
    const generation = this.host.hns.store.generation;
    if (this.ifaces?.generation !== generation) this.ifaces = { generation, list: this.readInterfaces() };
    return this.ifaces.list;
  }

  private readInterfaces(): readonly NetInterface[] {
    const list = this.host.adapters().map((a) => {
      const v4 = a['IPv4Address'];
      const bound = !(a['Kind'] === 'Physical' && a['VSwitchId']);
      return Object.freeze({
        name: String(a['Name']),
        mac: goMac(String(a['MacAddress'] ?? '')),
        addrs:
          bound && typeof v4 === 'string' && v4 !== '' ? [`${v4}/${String(a['PrefixLength'] ?? 32)}`] : [],
      });
    });
    return Object.freeze(list);
  }

  platformGet(url: string, headers?: HttpHeaders): PlatformReply {
    return this.host.platformGet(url, headers);
  }

  httpRequest(method: string, url: string, body = '', headers?: HttpHeaders): PlatformReply {
    return this.host.httpRequest(method, url, body, headers);
  }

  dialPipe(path: string): PipeHandler {
    return this.host.pipes.dial(path);
  }

  find(pluginType: string, paths: readonly string[]): FoundPlugin {
    return this.registry.find(pluginType, paths);
  }

  /** `exec`: find through the request's CNI_PATH (a miss rejects with Go's find error), then run. */
  async exec(pluginType: string, request: ExecRequest, depth: number): Promise<ExecOutput> {
    const found = this.find(pluginType, splitPathList(request.env['CNI_PATH'] ?? ''));
    return this.run(found.plugin, request, depth);
  }

  async run(plugin: CniPlugin, request: ExecRequest, depth: number): Promise<ExecOutput> {
    let out: ExecOutput;
    try {
      out = await plugin.exec(this, request, depth);
    } catch (e) {
      const err =
        e instanceof CniError
          ? e
          : new CniError(CniErrorCode.Internal, e instanceof Error ? e.message : String(e));
      out = { exitCode: 1, stdout: errorText(err), stderr: '' };
    }
    // (an event no one listens to is not built)
    if (this.events.listenerCount('cni.exec') === 0) return out;
    const env = request.env;
    const failed = out.exitCode !== 0 ? errorOf(out.stdout) : {};
    this.events.emit('cni.exec', {
      plugin: plugin.type,
      command: env['CNI_COMMAND'] ?? '',
      containerId: env['CNI_CONTAINERID'] ?? '',
      ifName: env['CNI_IFNAME'] ?? '',
      netns: env['CNI_NETNS'] ?? '',
      exitCode: out.exitCode,
      ...(failed.code !== undefined ? { code: failed.code } : {}),
      ...(failed.message !== undefined ? { message: failed.message } : {}),
      depth,
      time: this.clock.now(),
    });
    return out;
  }
}

/** The plugin host of one node: typed clients on `host.transport`, plugins from `registry`. */
export function pluginHost(host: Host, registry: PluginRegistry): CniHost {
  return new NodePluginHost(host, registry);
}
