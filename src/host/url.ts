/**
 * An HTTP URL as a Go program's `net/http` client reads it (Go `net/url` `Parse`, then the
 * client's checks): the scheme matched case-insensitively and printed in lower case, the fragment
 * never sent, the port defaulting to the scheme's (80, 443), the user info never part of the dial
 * address. The node's HTTP (src/host/host.ts, src/host/azure.ts) and its Kubernetes API server
 * (src/host/kubeapi.ts) find where a request goes with it; what Go says of a URL it cannot send
 * is `HttpUrlError` with the client's text.
 *
 *   parseHttpUrl('HTTP://169.254.169.254/metadata/versions#x')
 *   // { scheme: 'http', host: '169.254.169.254', port: 80, hostPort: '169.254.169.254:80',
 *   //   target: '/metadata/versions', href: 'http://169.254.169.254/metadata/versions#x' }
 */

/** An http(s) URL, split. */
export interface HttpUrl {
  readonly scheme: 'http' | 'https';
  /** The host as written (an IPv6 literal without its brackets); empty when the URL has none. */
  readonly host: string;
  readonly port: number;
  /** `host:port` as Go's dialer writes it (`[v6]:port` for an IPv6 literal). */
  readonly hostPort: string;
  /** What the request line carries: the path (`/` when empty) and the query, no fragment. */
  readonly target: string;
  /** The URL as Go prints it in an error: the scheme in lower case, the rest as written. */
  readonly href: string;
}

/** What Go's HTTP client says of a URL it cannot send (a `url.Error`'s text). */
export class HttpUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpUrlError';
  }
}

/** `url.Error`'s Op for a request method, as net/http writes it: `Get`, `Post`, … */
export function goUrlErrorOp(method: string): string {
  return method.charAt(0).toUpperCase() + method.slice(1).toLowerCase();
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

type Split = HttpUrl | { readonly error: string; readonly href: string };

function split(url: string): Split {
  const s = SCHEME.exec(url);
  const scheme = s ? s[1]!.toLowerCase() : '';
  const href = s ? scheme + url.slice(scheme.length) : url;
  if (scheme !== 'http' && scheme !== 'https')
    return { error: `unsupported protocol scheme "${scheme}"`, href };
  const hash = url.indexOf('#');
  let rest = url.slice(s![0].length, hash < 0 ? url.length : hash);
  let authority = '';
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?]/);
    authority = end < 0 ? rest.slice(2) : rest.slice(2, end + 2);
    rest = end < 0 ? '' : rest.slice(end + 2);
  }
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  let host = hostAndPort;
  let port = '';
  const v6 = /^\[([^\]]*)\](.*)$/.exec(hostAndPort);
  const tail = v6 ? v6[2]! : hostAndPort.slice(Math.max(hostAndPort.lastIndexOf(':'), 0));
  if (v6) host = v6[1]!;
  if (tail.startsWith(':')) {
    port = tail.slice(1);
    if (!v6) host = hostAndPort.slice(0, hostAndPort.length - tail.length);
  } else if (tail !== '' && v6) {
    return { error: `invalid port "${tail}" after host`, href };
  }
  if (!/^\d*$/.test(port)) return { error: `invalid port "${tail}" after host`, href };
  if (host === '') return { error: 'http: no Host in request URL', href };
  const n = port === '' ? (scheme === 'https' ? 443 : 80) : Number(port);
  const target = rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
  return { scheme, host, port: n, hostPort: v6 ? `[${host}]:${n}` : `${host}:${n}`, target, href };
}

/** The URL split, or undefined when Go's client could not send a request to it. */
export function parseHttpUrl(url: string): HttpUrl | undefined {
  const u = split(url);
  return 'error' in u ? undefined : u;
}

/**
 * The URL a `method` request goes to, split; a URL Go's client refuses throws `HttpUrlError` with
 * its text (`unsupported protocol scheme "ftp"`, `http: no Host in request URL`, a bad port).
 */
export function requestUrl(method: string, url: string): HttpUrl {
  const u = split(url);
  if (!('error' in u)) return u;
  // a malformed port fails url.Parse in http.NewRequest, before the client names the method
  if (u.error.startsWith('invalid port')) throw new HttpUrlError(`parse "${url}": ${u.error}`);
  throw new HttpUrlError(`${goUrlErrorOp(method)} "${u.href}": ${u.error}`);
}

/** `scheme://host:port` of an http(s) URL, host in lower case, the port written out; undefined otherwise. */
export function urlOrigin(url: string): string | undefined {
  const u = parseHttpUrl(url);
  return u && `${u.scheme}://${u.hostPort.toLowerCase()}`;
}
