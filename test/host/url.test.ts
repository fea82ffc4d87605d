/**
 * src/host/url.ts: an HTTP URL as Go's net/http client reads it. Expected values from Go's
 * behaviour: net/url `Parse` lower-cases the scheme (`url.Scheme = strings.ToLower(url.Scheme)`),
 * cuts the fragment before the query and the authority, takes the port after the host's last
 * colon (`parseHost`: "invalid port %q after host"); net/http's client names the request in its
 * errors as `url.Error{Op: "Get", URL: req.URL.String()}`, refuses `unsupported protocol scheme %q`
 * and `http: no Host in request URL`; the dialer writes `host:port`, `[v6]:port` for IPv6.
 */
import { describe, expect, it } from 'vitest';
import { parseHttpUrl, requestUrl, urlOrigin } from '../../src/host/url.js';

describe('parseHttpUrl', () => {
  it('reads the scheme case-insensitively, prints it lower-case, and never sends the fragment', () => {
    expect(parseHttpUrl('HTTP://169.254.169.254/metadata/instance?api-version=2021-02-01#top')).toEqual({
      scheme: 'http',
      host: '169.254.169.254',
      port: 80,
      hostPort: '169.254.169.254:80',
      target: '/metadata/instance?api-version=2021-02-01',
      href: 'http://169.254.169.254/metadata/instance?api-version=2021-02-01#top',
    });
  });

  it('defaults the port by scheme, keeps a written one, and leaves user info out of the dial address', () => {
    expect(parseHttpUrl('https://169.254.169.254/x')?.hostPort).toBe('169.254.169.254:443');
    expect(parseHttpUrl('Http://168.63.129.16:32526/vmSettings')?.hostPort).toBe('168.63.129.16:32526');
    expect(parseHttpUrl('http://user:pw@168.63.129.16/')?.hostPort).toBe('168.63.129.16:80');
    expect(parseHttpUrl('http://[FD00::1]:8080/v')?.hostPort).toBe('[FD00::1]:8080');
    expect(parseHttpUrl('http://h:/')?.port).toBe(80);
  });

  it('the request target: "/" for an empty path, the query kept, "#…" and what follows dropped', () => {
    expect(parseHttpUrl('http://h')?.target).toBe('/');
    expect(parseHttpUrl('http://h?a=1')?.target).toBe('/?a=1');
    expect(parseHttpUrl('http://h#/not/a/path')?.target).toBe('/');
    expect(parseHttpUrl('http://h/a/b?c=d&e#f?g')?.target).toBe('/a/b?c=d&e');
  });

  it('is undefined for what Go’s client cannot send', () => {
    for (const u of ['ftp://h/', '169.254.169.254/metadata', 'http:///x', 'http:x', 'http://h:8o/'])
      expect(parseHttpUrl(u), u).toBeUndefined();
  });
});

describe('requestUrl', () => {
  it('throws Go’s text for a URL the client refuses', () => {
    expect(() => requestUrl('GET', 'FTP://h/x')).toThrow(
      'Get "ftp://h/x": unsupported protocol scheme "ftp"',
    );
    expect(() => requestUrl('post', '169.254.169.254/m')).toThrow(
      'Post "169.254.169.254/m": unsupported protocol scheme ""',
    );
    expect(() => requestUrl('GET', 'http:///metadata')).toThrow(
      'Get "http:///metadata": http: no Host in request URL',
    );
    expect(() => requestUrl('GET', 'http://h:8o/')).toThrow(
      'parse "http://h:8o/": invalid port ":8o" after host',
    );
  });
});

describe('urlOrigin', () => {
  it('is scheme://host:port in lower case, the port written out', () => {
    expect(urlOrigin('HTTPS://API.Example:6443/api')).toBe('https://api.example:6443');
    expect(urlOrigin('http://10.0.0.1')).toBe('http://10.0.0.1:80');
    expect(urlOrigin('https://[fd00::1]/')).toBe('https://[fd00::1]:443');
    expect(urlOrigin('tcp://10.0.0.1:443')).toBeUndefined();
  });
});
