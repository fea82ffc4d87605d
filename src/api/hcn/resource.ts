/**
 * What every typed HCN object shares (hcsshim's hcn resource structs): the client it calls
 * through, hcsshim's Go spelling `Id` for the JSON key `ID`, and marshalling by its field spec.
 */
import type { JsonObject } from '../../core/json.js';
import type { HcnClient } from './client.js';
import { marshal, type Spec } from './marshal.js';

export abstract class HcnResource {
  abstract ID: string;
  readonly #client: HcnClient;
  readonly #spec: Spec;

  protected constructor(client: HcnClient, spec: Spec) {
    this.#client = client;
    this.#spec = spec;
  }

  /** The client this object calls through. */
  get client(): HcnClient {
    return this.#client;
  }

  /** hcsshim's Go field name for `ID`. */
  get Id(): string {
    return this.ID;
  }
  set Id(v: string) {
    this.ID = v;
  }

  /** The document as hcsshim marshals it (omitempty scalars dropped, struct fields kept). */
  toJSON(): JsonObject {
    return marshal(this.#spec, this);
  }
}
