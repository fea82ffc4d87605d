/**
 * skel decodes stdin once for `validateConfig` and the version check (containernetworking/cni @
 * 3f51e880 pkg/skel/skel.go both read StdinData), and keeps the document of bytes it saw before.
 * The answers are those of decoding the bytes each time: a JSON string document is a type error
 * (not text parsed again), `null` is version 0.1.0, and bytes changed in place are read again.
 */
import { describe, expect, it } from 'vitest';
import { cniEnv, fakePlugin, testNode } from './fake-plugins.js';

async function exec(stdin: string | Uint8Array, versions?: string[]) {
  const fake = fakePlugin('p', versions ? { versions } : {});
  const { node } = testNode(fake.plugin);
  const out = await fake.plugin.exec(node, { env: cniEnv('ADD'), stdin }, 0);
  return { out, doc: out.stdout ? (JSON.parse(out.stdout) as unknown) : undefined, fake };
}

describe('skel reads stdin once', () => {
  it('a JSON string document fails the name check as a type error', async () => {
    const { out, doc } = await exec('"x"');
    expect(out.exitCode).toBe(1);
    expect(doc).toEqual({
      code: 6,
      msg: 'error unmarshall network config: json: cannot unmarshal string into Go value of type struct { Name string "json:\\"name\\"" }',
    });
  });

  it('the same bytes twice, then changed in place: each run sees what the bytes say', async () => {
    const bytes = new Uint8Array(Buffer.from('{"cniVersion":"1.0.0","name":"net"}', 'utf8'));
    const first = await exec(bytes, ['1.0.0']);
    expect(first.out.exitCode).toBe(0);
    expect((await exec(bytes, ['1.0.0'])).out.exitCode).toBe(0);
    bytes[Buffer.from(bytes).indexOf('1.0.0') + 2] = 0x39; // 1.0.0 → 1.9.0
    const changed = await exec(bytes, ['1.0.0']);
    expect(changed.doc).toEqual({
      code: 1,
      msg: 'incompatible CNI versions',
      details: 'config is "1.9.0", plugin supports ["1.0.0"]',
    });
  });
});
