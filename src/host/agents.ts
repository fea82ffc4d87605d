/**
 * Node agents in the host's snapshot (issue 16): a service that runs on the node beside HNS — Azure
 * CNS (src/plugins/cns), the Antrea agent (src/plugins/antrea/agent.ts) — keeps its configuration
 * and state under `agents.<kind>` of `host.snapshot()`, and `host.restore()` brings it back, so a
 * state file's node (`hnsim cni --state`, `hnsim call --state`, JSON-RPC Snapshot/Restore) still
 * runs it in the next process.
 *
 * The host knows agents only through this contract (the agents live in plugins/, above host/): an
 * agent kind registers how its section is read back when its module loads, and the running agent
 * of a kind is recorded in `host.agents`.
 *
 *   registerNodeAgentKind({ kind: 'cns', read: (host, state) => () => rebuild(host, state) });
 *   host.agents.set('cns', agent);      // in the snapshot from now on
 */
import { hnsError } from '../core/errors.js';
import { isJsonObject, type JsonObject } from '../core/json.js';
import type { Host } from './host.js';

/** An agent running on a node whose state belongs to the node's snapshot. */
export interface NodeAgent {
  /** Its section of the host snapshot: plain JSON that its kind's `read` accepts. */
  toState(): JsonObject;
  /** Let go of the node (stop listening): a restore or a newer agent of its kind replaces it. */
  detach(): void;
}

/** How an agent kind comes back from a snapshot. */
export interface NodeAgentKind {
  /** The key of its section under the snapshot's `agents` (`cns`). */
  readonly kind: string;
  /**
   * Check a section against the node without changing anything (a bad one: `E_INVALIDARG` naming
   * what is wrong); the function returned builds the agent on the node, called only once the whole
   * snapshot checked out and the agent it replaces has let go.
   */
  read(host: Host, state: unknown): () => NodeAgent;
}

/** Every agent kind loaded in this process (each registers itself when its module loads). */
const kinds = new Map<string, NodeAgentKind>();

/** Make a kind's snapshot sections restorable (idempotent: its module may load more than once). */
export function registerNodeAgentKind(kind: NodeAgentKind): void {
  kinds.set(kind.kind, kind);
}

/** The agents running on one node, by kind (one of each kind). */
export class NodeAgents {
  readonly #byKind = new Map<string, NodeAgent>();

  get(kind: string): NodeAgent | undefined {
    return this.#byKind.get(kind);
  }

  /** Record the node's agent of a kind; the one it replaces lets go of the node. */
  set(kind: string, agent: NodeAgent): void {
    const old = this.#byKind.get(kind);
    if (old && old !== agent) old.detach();
    this.#byKind.set(kind, agent);
  }

  /** Drop the node's agent of a kind (it lets go of the node): no longer in the snapshot. */
  delete(kind: string): boolean {
    const a = this.#byKind.get(kind);
    a?.detach();
    return this.#byKind.delete(kind);
  }

  /** The snapshot's `agents` section: each agent's state by kind; undefined when there are none. */
  toState(): JsonObject | undefined {
    if (this.#byKind.size === 0) return undefined;
    const out: JsonObject = {};
    for (const [k, a] of [...this.#byKind].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
      out[k] = a.toState();
    }
    return out;
  }

  /**
   * Check a snapshot's `agents` section (undefined: a snapshot without agents, which a node of
   * older hnsim wrote — none run after the restore); the function returned replaces the node's
   * agents with the section's. Nothing changes until it is called.
   */
  read(host: Host, section: unknown): () => void {
    if (section !== undefined && !isJsonObject(section))
      throw hnsError('E_INVALIDARG', 'snapshot: agents must be an object of agent states by kind');
    const makers: [string, () => NodeAgent][] = [];
    for (const [k, state] of Object.entries(section ?? {})) {
      const kind = kinds.get(k);
      if (!kind)
        throw hnsError(
          'E_INVALIDARG',
          `snapshot: no node agent of kind "${k}" is loaded (known: ${[...kinds.keys()].sort().join(', ') || 'none'})`,
        );
      makers.push([k, kind.read(host, state)]);
    }
    return () => {
      for (const a of this.#byKind.values()) a.detach();
      this.#byKind.clear();
      for (const [k, make] of makers) this.#byKind.set(k, make());
    };
  }
}
