/**
 * Go's `os` file calls as a Windows binary sees them, over the node's simulated disk (`FileStore`):
 * `os.Open`/`os.ReadFile`/`os.MkdirAll`/`os.WriteFile`/`os.Remove` with their `*PathError` texts
 * (`open C:\x: The system cannot find the file specified.`) and `os.IsNotExist`. flannel keeps
 * its delegate configs here and reads flanneld's subnet.env (reference cni-windows.md §5.1).
 */
import type { FileStore } from '../../core/files.js';

/** The Windows error texts Go's `syscall.Errno.Error()` prints, and Go's invented ENOTDIR. */
const ERRNO_TEXT = {
  ERROR_FILE_NOT_FOUND: 'The system cannot find the file specified.',
  ERROR_PATH_NOT_FOUND: 'The system cannot find the path specified.',
  ERROR_ACCESS_DENIED: 'Access is denied.',
  ERROR_INVALID_FUNCTION: 'Incorrect function.',
  ENOTDIR: 'not a directory',
} as const;
export type GoErrno = keyof typeof ERRNO_TEXT;

/** Go's `*os.PathError`: `<op> <path>: <errno text>`. */
export class GoPathError extends Error {
  constructor(
    readonly op: string,
    readonly path: string,
    readonly errno: GoErrno,
  ) {
    super(`${op} ${path}: ${ERRNO_TEXT[errno]}`);
    this.name = 'GoPathError';
  }

  /** `os.IsNotExist(err)`. */
  get notExist(): boolean {
    return this.errno === 'ERROR_FILE_NOT_FOUND' || this.errno === 'ERROR_PATH_NOT_FOUND';
  }
}

function isSep(c: string | undefined): boolean {
  return c === '\\' || c === '/';
}

/** The volume name of a Windows path (`C:`), or ''. */
function volumeName(p: string): string {
  return /^[A-Za-z]:/.test(p) ? p.slice(0, 2) : '';
}

/**
 * `filepath.Join` on Windows: the non-empty elements joined by `\`, then `Clean` (separators become
 * `\`, repeats collapse, `.` and `..` resolve).
 */
export function winJoin(...elems: string[]): string {
  const joined = elems.filter((e) => e !== '').join('\\');
  if (joined === '') return '';
  const vol = volumeName(joined);
  const rest = joined.slice(vol.length).replace(/\//g, '\\');
  const rooted = rest.startsWith('\\');
  const parts: string[] = [];
  for (const seg of rest.split('\\')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
    } else parts.push(seg);
  }
  const body = parts.join('\\');
  if (rooted) return `${vol}\\${body}`;
  return body === '' ? `${vol}.` : `${vol}${body}`;
}

type Kind = 'file' | 'dir' | 'none';

function kindOf(files: FileStore, path: string): Kind {
  if (files.exists(path)) return 'file';
  if (files.isDirectory(path)) return 'dir';
  return 'none';
}

/** The errno Windows gives for a missing `path`: file not found when its directory exists. */
function missingErrno(files: FileStore, path: string): GoErrno {
  const trimmed = path.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('\\'), trimmed.lastIndexOf('/'));
  const parent = cut <= volumeName(trimmed).length ? '/' : trimmed.slice(0, cut);
  return parent === '/' || files.isDirectory(parent) ? 'ERROR_FILE_NOT_FOUND' : 'ERROR_PATH_NOT_FOUND';
}

/**
 * `os.ReadFile(path)` (and `os.Open` + reading, with `op` `open` for the open step): a missing
 * file fails at open; a directory opens and then fails to read (`read <path>: Incorrect function.`).
 */
export function osReadFile(files: FileStore, path: string): string {
  // syscall.Open refuses the empty path with ERROR_FILE_NOT_FOUND before asking Windows
  if (path === '') throw new GoPathError('open', path, 'ERROR_FILE_NOT_FOUND');
  switch (kindOf(files, path)) {
    case 'file':
      return files.read(path)!;
    case 'dir':
      throw new GoPathError('read', path, 'ERROR_INVALID_FUNCTION');
    case 'none':
      throw new GoPathError('open', path, missingErrno(files, path));
  }
}

/**
 * `os.MkdirAll(path)`: nothing to do where the directory exists (directories on the simulated disk
 * exist while they hold a file, and a write creates them); a file in the way → `mkdir <p>: not a
 * directory`, naming the path or the ancestor that is a file, as Go's recursion finds it.
 */
export function osMkdirAll(files: FileStore, path: string): void {
  const kind = kindOf(files, path);
  if (kind === 'dir') return;
  if (kind === 'file') throw new GoPathError('mkdir', path, 'ENOTDIR');
  let i = path.length - 1;
  while (i >= 0 && isSep(path[i])) i--;
  while (i >= 0 && !isSep(path[i])) i--;
  if (i < 0) i = 0;
  const parent = path.slice(0, i);
  if (parent.length > volumeName(path).length) osMkdirAll(files, parent);
}

/**
 * `os.WriteFile`-like create/truncate/write (flannel's `writeAndSyncFile`): a directory at `path`
 * cannot be opened for writing (`open <p>: Access is denied.`).
 */
export function osWriteFile(files: FileStore, path: string, data: string): void {
  if (path === '') throw new GoPathError('open', path, 'ERROR_FILE_NOT_FOUND');
  if (kindOf(files, path) === 'dir') throw new GoPathError('open', path, 'ERROR_ACCESS_DENIED');
  files.write(path, data);
}

/** `os.Remove(path)` with its error ignored (as flannel's cleanup does): true if a file went. */
export function osRemove(files: FileStore, path: string): boolean {
  return files.remove(path);
}
