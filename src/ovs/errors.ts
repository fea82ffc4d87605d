/**
 * Errors of the OpenFlow engine, with the text Open vSwitch gives for the same input: the message
 * `ovs-ofctl` prints after its `ovs-ofctl: ` prefix (lib/ofp-flow.c, lib/meta-flow.c,
 * lib/ofp-actions.c, lib/nx-match.c, lib/learn.c), or an OpenFlow error name (`OFPBMC_BAD_PREREQ`)
 * where the switch, not the parser, refuses a flow.
 */
export class OvsError extends Error {
  override readonly name = 'OvsError';
  /** The text after `ovs-ofctl: `. */
  constructor(message: string) {
    super(message);
  }
  /** The line ovs-ofctl writes to stderr. */
  get ofctl(): string {
    return `ovs-ofctl: ${this.message}`;
  }
}

export const fail = (message: string): never => {
  throw new OvsError(message);
};
