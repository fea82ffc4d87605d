/**
 * host-local's `parseResolvConf` (containernetworking/plugins @3d27709f
 * `plugins/ipam/host-local/dns.go`; reference cni-windows.md §6) over the node's simulated disk:
 * `nameserver`, `domain`, `search` and `options` lines, `#`/`;` comments skipped, lines read as
 * `bufio.Scanner` reads them. A missing file is Go's `*PathError` with the Windows text.
 */
import type { CniDns } from '../../cni/contracts.js';
import { GoError } from '../../cni/gojson.js';
import type { FileStore } from '../../core/files.js';
import { goTrimSpace } from './store.js';

/** `bufio.MaxScanTokenSize`: a longer line stops the scanner. */
const MAX_TOKEN = 64 * 1024;

/** `strings.Fields`: split on runs of white space. */
function fields(line: string): string[] {
  return goTrimSpace(line)
    .split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/)
    .filter((f) => f !== '');
}

/** The parent directory of a path (`/a/b` → `/a`). */
function parentOf(path: string): string {
  const p = path.replace(/\\/g, '/').replace(/\/+$/, '');
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/**
 * `parseResolvConf(filename)`. `os.Open` of a missing file fails with ERROR_FILE_NOT_FOUND, or
 * ERROR_PATH_NOT_FOUND when its directory is missing too; reading a directory fails with
 * ERROR_INVALID_FUNCTION.
 */
export function parseResolvConf(files: FileStore, filename: string): CniDns {
  const data = files.read(filename);
  if (data === undefined) {
    if (files.isDirectory(filename)) throw new GoError(`read ${filename}: Incorrect function.`);
    const dirExists = parentOf(filename) === '/' || files.isDirectory(parentOf(filename));
    throw new GoError(
      `open ${filename}: ${dirExists ? 'The system cannot find the file specified.' : 'The system cannot find the path specified.'}`,
    );
  }
  const nameservers: string[] = [];
  const search: string[] = [];
  const options: string[] = [];
  let domain = '';
  const lines = data.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const raw of lines) {
    // ScanLines drops a trailing \r; a line over the token limit is an error
    if (Buffer.byteLength(raw, 'utf8') > MAX_TOKEN) throw new GoError('bufio.Scanner: token too long');
    const line = goTrimSpace(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (line.length === 0 || line[0] === '#' || line[0] === ';') continue;
    const f = fields(line);
    if (f.length < 2) continue;
    switch (f[0]) {
      case 'nameserver':
        nameservers.push(f[1]!);
        break;
      case 'domain':
        domain = f[1]!;
        break;
      case 'search':
        search.push(...f.slice(1));
        break;
      case 'options':
        options.push(...f.slice(1));
        break;
    }
  }
  return {
    ...(nameservers.length ? { nameservers } : {}),
    ...(domain !== '' ? { domain } : {}),
    ...(search.length ? { search } : {}),
    ...(options.length ? { options } : {}),
  };
}
