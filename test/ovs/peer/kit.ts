/**
 * The real-OVS suite's kit (`npm run test:ovs`, issue 17 §4): a `describe` that skips with a clear
 * message when Open vSwitch is not installed (or fails, under HNSIM_OVS_REQUIRED=1 as CI sets it),
 * and one peer per test file.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ovsMissing, ovsPeer, type OvsPeer } from './peer.js';

/** CI sets it: a missing OVS fails the suite instead of skipping it. */
export const OVS_REQUIRED = process.env['HNSIM_OVS_REQUIRED'] === '1';

/** `describe` for tests that need a real ovs-vswitchd. */
export function describeOvs(name: string, fn: () => void): void {
  const missing = ovsMissing();
  if (missing === undefined) describe(name, fn);
  else if (OVS_REQUIRED) {
    describe(name, () => {
      it('has Open vSwitch (HNSIM_OVS_REQUIRED=1)', () => {
        throw new Error(missing);
      });
    });
  } else {
    process.stderr.write(`test/ovs/peer: skipping "${name}": ${missing}\n`);
    describe.skip(`${name} — skipped: ${missing}`, fn);
  }
}

/**
 * One daemon pair for the calling file: started before its tests, stopped after them. The
 * returned getter is valid inside tests.
 */
export function usePeer(setup?: (peer: OvsPeer) => Promise<void>): () => OvsPeer {
  let peer: OvsPeer | undefined;
  beforeAll(async () => {
    peer = await ovsPeer();
    if (setup) await setup(peer);
  }, 60_000);
  afterAll(async () => {
    await peer?.stop();
  });
  return () => {
    if (!peer) throw new Error('the OVS peer is not running');
    return peer;
  };
}

/** Renumbers `recirc(0xN)` and `recirc_id=0xN` by order of appearance (vswitchd's ids only grow). */
export function normalizeRecirc(text: string): string {
  const ids = new Map<string, number>();
  return text.replace(/recirc(\(|_id=)0x([0-9a-f]+)/g, (_m, sep: string, id: string) => {
    if (id === '0' && sep === '_id=') return `recirc_id=0x0`;
    let n = ids.get(id);
    if (n === undefined) ids.set(id, (n = ids.size + 1));
    return `recirc${sep}0x${n.toString(16)}`;
  });
}
