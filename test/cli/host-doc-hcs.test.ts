// `--host FILE` carries the HCS API choice (and dataplane options) to `hnsim serve`, so JSON-RPC
// users can have vmcompute's 0xC037… spelling (reference hcs-lifecycle.md §0).
import { describe, expect, it } from 'vitest';
import { serveWithHostDoc as serve } from './hnsim.js';

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
