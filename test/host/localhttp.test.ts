// The node's loopback HTTP (src/host/localhttp.ts) and host.httpRequest's routing: an agent's
// listener answers, nothing listening is Go's refused-connection error on Windows (`connectex: No
// connection could be made because the target machine actively refused it.`), a port is one
// listener's, a GET elsewhere goes to the platform, any other request elsewhere times out.
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { ConnectionRefused } from '../../src/host/localhttp.js';

describe('host.http and host.httpRequest', () => {
  it('routes to a listener by port, refuses where none listens, and frees a port when stopped', () => {
    const host = createHost({});
    const seen: string[] = [];
    const stop = host.http.listen(10090, (r) => {
      seen.push(`${r.method} ${r.path} ${r.body}`);
      return { status: 200, body: 'ok' };
    });
    expect(host.httpRequest('post', 'http://localhost:10090/network/x?a=1', '{}')).toEqual({
      status: 200,
      body: 'ok',
    });
    expect(host.httpRequest('GET', 'http://127.0.0.1:10090/')).toEqual({ status: 200, body: 'ok' });
    expect(seen).toEqual(['POST /network/x?a=1 {}', 'GET / ']);
    expect(() => host.http.listen(10090, () => ({ status: 200, body: '' }))).toThrow(
      'listen tcp 127.0.0.1:10090: bind: Only one usage of each socket address',
    );
    expect(() => host.http.listen(0, () => ({ status: 200, body: '' }))).toThrow('port 0 is not 1..65535');
    stop();
    expect(host.http.listening(10090)).toBe(false);
    let err: unknown;
    try {
      host.httpRequest('POST', 'http://localhost:10090/network/requestipconfigs', '{}');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectionRefused);
    expect((err as Error).message).toBe(
      'Post "http://localhost:10090/network/requestipconfigs": dial tcp 127.0.0.1:10090: connectex: No connection could be made because the target machine actively refused it.',
    );
  });

  it('sends a GET elsewhere to the platform and lets any other request elsewhere time out', () => {
    const host = createHost({});
    expect(() =>
      host.httpRequest('GET', 'http://168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1'),
    ).toThrow(
      'Get "http://168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1": dial tcp 168.63.129.16:80: i/o timeout',
    );
    expect(() => host.httpRequest('POST', 'http://10.1.2.3:8080/x', '')).toThrow(
      'Post "http://10.1.2.3:8080/x": dial tcp 10.1.2.3:8080: i/o timeout',
    );
  });
});
