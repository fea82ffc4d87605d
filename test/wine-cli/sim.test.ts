// src/wine/sim.ts: the TCP face a program's DLLs reach — a running `hnsim serve --listen` checked with
// one call, a host served here for a run, and the temporary face a CNI binary gets from a host
// that has none.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveTcp } from '../../src/api/rpc.js';
import { createHost } from '../../src/host/host.js';
import {
  connectSimulator,
  parseEndpoint,
  registerFace,
  serveSimulator,
  SimulatorUnreachableError,
  withFace,
} from '../../src/wine/sim.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A free port nobody listens on. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A TCP server that is not hnsim; its port. */
async function server(onConnection: (s: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const srv = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    onConnection(s);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  );
  return (srv.address() as AddressInfo).port;
}

describe('parseEndpoint', () => {
  it('takes loopback ADDR:PORT only', () => {
    expect(parseEndpoint('127.0.0.1:40513')).toEqual({ host: '127.0.0.1', port: 40513 });
    expect(parseEndpoint('localhost:1')).toEqual({ host: '127.0.0.1', port: 1 });
    expect(parseEndpoint('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    for (const bad of [
      '0.0.0.0:80',
      '10.0.0.1:80',
      '127.0.0.1',
      '127.0.0.1:0',
      '127.0.0.1:70000',
      ':80',
      'x:y',
    ]) {
      expect(parseEndpoint(bad), bad).toBeUndefined();
    }
  });
});

describe('connectSimulator', () => {
  it('accepts a running hnsim server (one GetVersion call)', async () => {
    const tcp = await serveTcp(createHost({ seed: 1 }), { host: '127.0.0.1', port: 0 });
    closers.push(() => tcp.close());
    const face = await connectSimulator(`localhost:${tcp.port}`);
    expect(face.endpoint).toBe(`127.0.0.1:${tcp.port}`);
    expect(face.host).toBeUndefined();
  });

  it('refuses an address nobody listens on, saying how to start one', async () => {
    const port = await deadPort();
    const err = await connectSimulator(`127.0.0.1:${port}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SimulatorUnreachableError);
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect((err as Error).message).toContain('hnsim serve --listen 127.0.0.1:0');
  });

  it('refuses a server that is not hnsim, and one that does not answer', async () => {
    const other = await server((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await expect(connectSimulator(`127.0.0.1:${other}`)).rejects.toThrow(/not JSON-RPC/);
    const silent = await server(() => undefined);
    await expect(connectSimulator(`127.0.0.1:${silent}`, 200)).rejects.toThrow(/no answer within 200 ms/);
  });
});

describe('serveSimulator and withFace', () => {
  it('serves a host on 127.0.0.1 and registers it as the face withFace uses', async () => {
    const host = createHost({ seed: 2 });
    const face = await serveSimulator(host);
    expect(face.endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await withFace(host, async (e) => e)).toBe(face.endpoint);
    await face.close();
    // closed: withFace starts a temporary face instead
    const temp = await withFace(host, async (e) => e);
    expect(temp).not.toBe(face.endpoint);
  });

  it('a temporary face is shared by concurrent calls and closed after the last', async () => {
    const host = createHost({ seed: 3 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = withFace(host, async (e) => {
      await gate;
      return e;
    });
    const second = await withFace(host, async (e) => e);
    release();
    expect(await first).toBe(second);
    await expect(connectSimulator(second, 500)).rejects.toBeInstanceOf(SimulatorUnreachableError);
  });

  it('a face registered by hand (hnsim serve --listen) is used until unregistered', async () => {
    const host = createHost({ seed: 4 });
    const unregister = registerFace(host, '127.0.0.1:1');
    expect(await withFace(host, async (e) => e)).toBe('127.0.0.1:1');
    unregister();
    expect(await withFace(host, async (e) => e)).not.toBe('127.0.0.1:1');
  });
});
