/**
 * A set of packets written by hand, for "reaches exactly" checks (the matcher `toReachExactly`,
 * the scenario expectation `reach`): clauses separated by `;`, each a protocol with optional port
 * lists, read against a source and a destination whose addresses the answer fixes:
 *
 *   TCP port 80, 443; UDP port 53; ICMP
 *   TCP port 8000-8080 from port 1024-65535
 *   any protocol            (every packet)
 *   nothing                 (no packet)
 *
 * `port` lists the destination ports, `from port` the source ports (TCP and UDP only; absent = any).
 * A protocol is TCP, UDP, ICMP, `protocol N` (0..255) or `any protocol`. Errors are E_INVALIDARG
 * naming the clause.
 */
import { FALSE } from './bdd.js';
import { ACL_FIELDS, type AclSpace } from './space.js';
import { hnsError } from '../core/errors.js';

const NAMED: Readonly<Record<string, number>> = { tcp: 6, udp: 17, icmp: 1 };

function bad(clause: string, why: string): never {
  throw hnsError('E_INVALIDARG', `packet set "${clause}": ${why}`);
}

function portList(clause: string, text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) bad(clause, `"${part.trim()}" is not a port or a range a-b`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (lo > 65535 || hi > 65535 || lo > hi) bad(clause, `${part.trim()} is not within 0..65535 in order`);
    out.push([lo, hi]);
  }
  return out;
}

/**
 * The set a spec names in `space` (the source's space: local = source), within `scope` (the
 * pair's packets). Ports on a protocol without them are refused.
 */
export function flowSpecSet(space: AclSpace, spec: string, scope: number): number {
  const b = space.bdd;
  const text = spec.trim();
  if (/^nothing$/i.test(text)) return FALSE;
  let u = FALSE;
  for (const raw of text.split(';')) {
    const clause = raw.trim();
    if (!clause) bad(spec, 'an empty clause');
    const m = /^(any protocol|protocol\s+(\d+)|tcp|udp|icmp)\b\s*(.*)$/i.exec(clause);
    if (!m) bad(clause, 'start with TCP, UDP, ICMP, "protocol N" or "any protocol"');
    let proto: number | undefined;
    if (m[2] !== undefined) {
      proto = Number(m[2]);
      if (proto > 255) bad(clause, `protocol ${proto} is not within 0..255`);
    } else if (m[1]!.toLowerCase() !== 'any protocol') proto = NAMED[m[1]!.toLowerCase()];
    let rest = m[3]!.trim();
    let dst: [number, number][] | undefined;
    let src: [number, number][] | undefined;
    const dm = /^port\s+([\d,\s-]+?)(?=\s+from\b|$)/i.exec(rest);
    if (dm) {
      dst = portList(clause, dm[1]!);
      rest = rest.slice(dm[0].length).trim();
    }
    const sm = /^from\s+port\s+([\d,\s-]+)$/i.exec(rest);
    if (sm) {
      src = portList(clause, sm[1]!);
      rest = '';
    }
    if (rest) bad(clause, `cannot read "${rest}" (expected "port LIST" then "from port LIST")`);
    if ((dst || src) && proto !== 6 && proto !== 17) bad(clause, 'only TCP and UDP have ports');
    let c = proto === undefined ? scope : b.and(scope, space.value('proto', proto));
    if (dst) c = b.and(c, b.orAll(dst.map(([lo, hi]) => b.range(ACL_FIELDS.remotePort.first, 16, lo, hi))));
    if (src) c = b.and(c, b.orAll(src.map(([lo, hi]) => b.range(ACL_FIELDS.localPort.first, 16, lo, hi))));
    u = b.or(u, c);
  }
  return u;
}
