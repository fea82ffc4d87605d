// `--host FILE` carries the HCS API choice (and dataplane options) to `hnsim serve`, so JSON-RPC
// users can have vmcompute's 0xC037… spelling (reference hcs-lifecycle.md §0).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHnsim } from './hnsim.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function serve(
  hostDoc: unknown,
  request: unknown,
): Promise<{ status: number | null; out: string; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-hostdoc-'));
  dirs.push(dir);
  const file = join(dir, 'host.json');
  writeFileSync(file, JSON.stringify(hostDoc));
  const r = await runHnsim(['serve', '--host', file], { input: JSON.stringify(request) + '\n' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

const START_MISSING = { jsonrpc: '2.0', id: 1, method: 'HcsStartComputeSystem', params: ['nope'] };

describe('hnsim serve --host FILE with "hcs"', () => {
  it('"api":"vmcompute" spells a missing system 0xC037010E ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND', async () => {
    const r = await serve({ hcs: { api: 'vmcompute' } }, START_MISSING);
    expect(r.status).toBe(0);
    const resp = JSON.parse(r.out) as { error: { data: { hresult: number; name: string } } };
    expect(resp.error.data).toMatchObject({ hresult: 0xc037010e, name: 'ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND' });
  });

  it('by default (computecore) the same failure is 0x8037010E HCS_E_SYSTEM_NOT_FOUND', async () => {
    const r = await serve({}, START_MISSING);
    const resp = JSON.parse(r.out) as { error: { data: { hresult: number; name: string } } };
    expect(resp.error.data).toMatchObject({ hresult: 0x8037010e, name: 'HCS_E_SYSTEM_NOT_FOUND' });
  });

  it('an unknown api is a command error naming the key', async () => {
    const r = await serve({ hcs: { api: 'hcsv3' } }, START_MISSING);
    expect(r.status).toBe(1);
    expect(r.err).toContain('hcs.api must be "computecore" or "vmcompute"');
  });
});
