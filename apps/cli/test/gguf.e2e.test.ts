// .gguf files through the built CLI: inspect, show, convert and gather against the fixtures gguf-py
// wrote (scripts/fixtures/gguf.py), from disk, a FIFO and a real HTTP server on 127.0.0.1.

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeNpy, decodeSafetensors } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { GGUF_DIR } from '../../../packages/io/test/format-fixtures.js';
import { ggufFile } from '../../../packages/io/test/gguf-bytes.js';
import { bytesSent, serveFolderPerTest } from '../../../packages/io/test/http-servers.js';
import { BIN, repoArg, tempDir, tensorops, tensoropsAsync } from './helpers.js';

interface Expected {
  name: string;
  type: string;
  shape: number[];
  offset: number;
  nbytes: number;
  values: { dtype: string; b64: string };
  rows?: number[];
  gathered?: { b64: string };
}
const manifest = JSON.parse(readFileSync(join(GGUF_DIR, 'manifest.json'), 'utf8')) as Record<
  string,
  { metadata: { key: string; value: unknown }[]; tensors: Expected[] }
>;
const model = manifest['model.gguf'] as (typeof manifest)[string];
const MODEL = repoArg('fixtures', 'gguf', 'container', 'model.gguf');
const EMBD = model.tensors.find((t) => t.name === 'token_embd.weight') as Expected;
const PLAIN = ['F32', 'F16', 'F64', 'I8', 'I16', 'I32', 'I64'];
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** float32 bits of bfloat16 bits: the exact widening. */
function widenedBf16(bits: Uint8Array): string {
  const words = new Uint16Array(bits.buffer, bits.byteOffset, bits.length / 2);
  return b64(new Uint8Array(Uint32Array.from(words, (w) => w << 16).buffer));
}

describe('inspect', () => {
  it('lists tensors (ggml type, shape ne reversed) and metadata, long arrays summarised', () => {
    const r = tensorops(['inspect', MODEL]);
    expect(r.stderr).toBe('');
    const text = r.stdout.toString();
    expect(text).toMatch(
      new RegExp(`token_embd\\.weight +Q8_0 +\\[8, 64\\] +544 +${EMBD.offset} +Q8_0`),
    );
    expect(text).toContain('plain.bf16         bfloat16');
    expect(text).toContain(
      'tokenizer.ggml.tokens (array of 300 string): ["tok0▁é", "tok1▁é", "tok2▁é", "tok3▁é", "tok4▁é", "tok5▁é", "tok6▁é", "tok7▁é", …]',
    );
    expect(text).toContain('test.uint64 (uint64): 18446744073709551615');
    expect(text).toContain('test.float64 (float64): -0');
  });

  it('--json gives the first items of each array, --metadata all of them', () => {
    const summary = JSON.parse(tensorops(['inspect', MODEL, '--json']).stdout.toString());
    const tokens = (doc: typeof summary) =>
      doc.gguf.metadata.find((e: { key: string }) => e.key === 'tokenizer.ggml.tokens').value;
    expect(summary.format).toBe('gguf');
    expect(tokens(summary).length).toBe(300);
    expect(tokens(summary).items).toHaveLength(8);
    const whole = JSON.parse(
      tensorops(['inspect', MODEL, '--json', '--metadata']).stdout.toString(),
    );
    const expected = model.metadata.find((e) => e.key === 'tokenizer.ggml.tokens')?.value as {
      items: string[];
    };
    expect(tokens(whole).items).toEqual(expected.items);
    const u64 = whole.gguf.metadata.find((e: { key: string }) => e.key === 'test.uint64');
    expect(u64).toEqual({ key: 'test.uint64', type: 'uint64', value: '18446744073709551615' });
    expect(whole.tensors.map((t: { name: string }) => t.name)).toEqual(
      model.tensors.map((t) => t.name),
    );
  });

  it('--verify reads every tensor, dequantizing the quantized ones', () => {
    const r = tensorops(['inspect', MODEL, '--verify']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^tensorops: verified .*model\.gguf: 33 tensors, .* read \(each tensor fills its declared size\)\n$/,
    );
  });

  it('--help says a GGUF shape is ne reversed', () => {
    expect(tensorops(['inspect', '--help']).stdout.toString()).toMatch(
      /GGUF shape is numpy order, its ne\s+reversed/,
    );
  });
});

describe('convert', () => {
  it('writes every plain type to .npy and .safetensors bit for bit, bfloat16 as float32 in .npy', () => {
    const dir = tempDir();
    for (const t of model.tensors.filter((e) => PLAIN.includes(e.type) || e.type === 'BF16')) {
      const npy = join(dir, `${t.name}.npy`);
      const r = tensorops(['convert', `${MODEL}:${t.name}`, npy]);
      expect(r.status, r.stderr).toBe(0);
      const loaded = decodeNpy(readFileSync(npy));
      expect(loaded.shape).toEqual(t.shape);
      const bits = Buffer.from(t.values.b64, 'base64');
      expect(b64(loaded.data), t.name).toBe(t.type === 'BF16' ? widenedBf16(bits) : t.values.b64);
    }
    const all = join(dir, 'plain.safetensors');
    const r = tensorops(['convert', MODEL, all]);
    expect(r.status, r.stderr).toBe(0);
    const decoded = decodeSafetensors(readFileSync(all));
    for (const t of model.tensors) {
      const got = decoded.tensors.find((e) => e.name === t.name)?.tensor;
      expect(b64(got?.data ?? new Uint8Array()), t.name).toBe(t.values.b64);
    }
  });

  it('--keep-quantized writes the blocks as uint8 rows, the ggml type in __metadata__', () => {
    const out = join(tempDir(), 'q.safetensors');
    const r = tensorops(['convert', `${MODEL}:token_embd.weight`, out, '--keep-quantized']);
    expect(r.status, r.stderr).toBe(0);
    const decoded = decodeSafetensors(readFileSync(out));
    expect(decoded.metadata).toEqual({ 'ggml_type.token_embd.weight': 'Q8_0' });
    const [entry] = decoded.tensors;
    expect(entry?.tensor.dtype).toBe('uint8');
    expect(entry?.tensor.shape).toEqual([8, 68]);
    const raw = readFileSync(MODEL).subarray(EMBD.offset, EMBD.offset + EMBD.nbytes);
    expect(b64(entry?.tensor.data ?? new Uint8Array())).toBe(b64(raw));
    const npy = tensorops([
      'convert',
      `${MODEL}:token_embd.weight`,
      join(tempDir(), 'q.npy'),
      '--keep-quantized',
    ]);
    expect(npy.status).toBe(0);
    expect(npy.stderr).toContain('__metadata__ (1 key) not written: .npy has no place for it');
  });
});

describe('gather and show', () => {
  it('gathers token embeddings as numpy takes them from the dequantized rows', () => {
    const out = join(tempDir(), 'rows.npy');
    const r = tensorops([
      'gather',
      `${MODEL}:token_embd.weight`,
      '--indices',
      (EMBD.rows as number[]).join(','),
      '-o',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(b64(decodeNpy(readFileSync(out)).data)).toBe(EMBD.gathered?.b64);
  });

  it('show --head reads and dequantizes the first rows only', () => {
    const r = tensorops(['show', `${MODEL}:token_embd.weight`, '--head', '2', '--format', 'npy']);
    expect(r.stderr).toBe('');
    const head = decodeNpy(r.stdout);
    expect(head.shape).toEqual([2, 64]);
    const values = Buffer.from(EMBD.values.b64, 'base64');
    expect(b64(head.data)).toBe(b64(values.subarray(0, 2 * 64 * 4)));
  });

  it('shows plain tensors exactly, int64 beyond 2^53 included', () => {
    const r = tensorops(['show', `${MODEL}:plain.i64`]);
    expect(r.stdout.toString()).toBe(
      '9007199254740993\t-9007199254740993\t9223372036854775807\t-9223372036854775808\n4294967297\t-1\t4611686018427387907\t-1099511627783\n',
    );
  });

  it('reads a .gguf from a FIFO as far as its header declares', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'model.gguf');
    execFileSync('mkfifo', [fifo]);
    const writer = createWriteStream(fifo);
    writer.on('error', () => {});
    writer.end(readFileSync(MODEL));
    const r = await tensoropsAsync(['show', `${fifo}:plain.i64`]);
    expect(r.stderr).toBe('');
    expect(r.stdout.toString().split('\n')[0]).toBe(
      '9007199254740993\t-9007199254740993\t9223372036854775807\t-9223372036854775808',
    );
  });

  it('reads a .gguf that is a regular file on stdin by ranges', () => {
    const file = join(tempDir(), 'one.gguf');
    const values = new Float32Array([1.5, -0, 3.25, 4]);
    writeFileSync(
      file,
      ggufFile({
        tensors: [{ name: 'w', ne: [4], type: 0, offset: 0 }],
        data: new Uint8Array(values.buffer),
      }),
    );
    const r = spawnSync(
      'sh',
      ['-c', 'exec "$NODE" "$0" gather - --indices 2,1 --json < "$1"', BIN, file],
      {
        env: { PATH: process.env.PATH ?? '', NODE: process.execPath },
      },
    );
    expect(r.stderr.toString()).toBe('');
    expect(r.stdout.toString()).toBe('{"dtype":"float32","shape":[2],"data":[3.25,-0.0]}\n');
  });

  it('inspect - lists a .gguf piped on stdin from its header', () => {
    const r = tensorops(['inspect', '-', '--json'], { input: readFileSync(MODEL) });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout.toString());
    expect(report.format).toBe('gguf');
    expect(report.tensors.map((t: { name: string }) => t.name)).toEqual(
      model.tensors.map((t) => t.name),
    );
  });

  it('a .gguf piped on stdin is refused in one line, as a .safetensors is', () => {
    const r = tensorops(['show', '-'], { input: readFileSync(MODEL) });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tensorops: error: .*it looks like a GGUF file\)?\n$/);
  });
});

describe('over HTTP', () => {
  const serve = serveFolderPerTest();

  it('inspects in one request and gathers rows from the URL', async () => {
    const dir = tempDir();
    copyFileSync(MODEL, join(dir, 'model.gguf'));
    const server = await serve(dir);
    const url = `${server.url}/model.gguf`;
    const listed = await tensoropsAsync(['inspect', url, '--json']);
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout.toString()).tensors).toHaveLength(model.tensors.length);
    expect(server.requests).toHaveLength(1);
    expect(bytesSent(server)).toBe(readFileSync(MODEL).length);
    const out = join(tempDir(), 'rows.npy');
    const r = await tensoropsAsync(['gather', `${url}:plain.f32`, '--indices', '3,0', '-o', out]);
    expect(r.stderr).toBe('');
    const f32 = model.tensors.find((t) => t.name === 'plain.f32') as Expected;
    const rows = Buffer.from(f32.values.b64, 'base64');
    expect(b64(decodeNpy(readFileSync(out)).data)).toBe(
      b64(Buffer.concat([rows.subarray(72, 96), rows.subarray(0, 24)])),
    );
  });
});
