// .gguf files: the fixtures gguf-py wrote (scripts/fixtures/gguf.py, fixtures/gguf/container) read
// from disk, from a stream and from a real HTTP server on 127.0.0.1, and hostile headers built
// byte by byte (gguf-bytes.ts), each refused with one line.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gather, type Tensor, tensorFrom } from '@tensorops/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ggufReader } from '../src/file/gguf-file.js';
import type { ByteSource } from '../src/file/source.js';
import type { GgufArray, GgufValue } from '../src/gguf/metadata.js';
import {
  collectStream,
  gatherFromFile,
  openTensorBytes,
  openTensorFile,
  readDeclaredBytes,
  type TensorFile,
  writeTensorFile,
} from '../src/node/index.js';
import { GGUF_DIR as DIR } from './format-fixtures.js';
import {
  concat,
  entry,
  ggufFile,
  ggufString,
  stringArray,
  type TensorInfo,
  u32,
  u64,
} from './gguf-bytes.js';
import { base64, expectRejection } from './helpers.js';
import { bytesSent, serveFolder, type TestServer } from './http-servers.js';

interface ExpectedTensor {
  name: string;
  type: string;
  shape: number[];
  offset: number;
  nbytes: number;
  values: { dtype: string; shape: number[]; b64: string };
  rows?: number[];
  gathered?: { dtype: string; shape: number[]; b64: string };
}
interface ExpectedFile {
  metadata: { key: string; type: string; value: unknown }[];
  tensors: ExpectedTensor[];
}
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as Record<
  string,
  ExpectedFile
>;
const model = manifest['model.gguf'] as ExpectedFile;
const PLAIN = new Set(['F32', 'F16', 'BF16', 'F64', 'I8', 'I16', 'I32', 'I64']);

/** Our value in the manifest's spelling: 64-bit integers as decimal strings. */
function asManifest(value: GgufValue): unknown {
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'object') {
    return { itemType: value.itemType, items: value.items.map(asManifest) };
  }
  return value;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** The float32 values gguf-py's dequantize gives, as a tensor. */
function expectedValues(t: ExpectedTensor): Tensor {
  return { dtype: 'float32', shape: t.values.shape, data: base64(t.values.b64) };
}

async function withFile<T>(path: string, use: (f: TensorFile) => Promise<T>): Promise<T> {
  const f = await openTensorFile(path);
  try {
    return await use(f);
  } finally {
    await f.close();
  }
}

describe('model.gguf, written by gguf-py', () => {
  const path = join(DIR, 'model.gguf');

  it('lists every tensor: name, ggml type, numpy shape (ne reversed), offset, bytes', async () => {
    await withFile(path, async (f) => {
      expect(f.format).toBe('gguf');
      expect(f.gguf?.version).toBe(3);
      expect(f.gguf?.alignment).toBe(32);
      expect(f.tensors.map((t) => [t.name, t.formatDtype, t.shape, t.offset, t.nbytes])).toEqual(
        model.tensors.map((t) => [t.name, t.type, t.shape, t.offset, t.nbytes]),
      );
    });
  });

  it('reads every metadata value as GGUFReader does, arrays of arrays included', async () => {
    await withFile(path, async (f) => {
      const ours = (f.gguf?.metadata ?? []).map((e) => ({
        key: e.key,
        type: e.type,
        value: asManifest(e.value),
      }));
      expect(ours).toEqual(model.metadata);
      const tokens = f.gguf?.metadata.find((e) => e.key === 'tokenizer.ggml.tokens');
      expect((tokens?.value as GgufArray | undefined)?.items).toHaveLength(300);
    });
  });

  it('reads plain tensors bit for bit (NaN payloads, -0.0, int64 beyond 2^53), whole and streamed', async () => {
    await withFile(path, async (f) => {
      for (const expected of model.tensors.filter((t) => PLAIN.has(t.type))) {
        const t = f.get(expected.name);
        const loaded = await f.read(t);
        expect(b64(loaded.data), expected.name).toBe(expected.values.b64);
        expect(loaded.shape).toEqual(expected.shape);
        const streamed = await collectStream(f.stream(t));
        expect(b64(streamed.data), expected.name).toBe(expected.values.b64);
      }
      expect(f.get('plain.bf16').dtype).toBe('bfloat16');
      expect(f.get('plain.i64').dtype).toBe('int64');
    });
  });

  it('dequantizes each quantized tensor as gguf.quants.dequantize does, whole and streamed', async () => {
    await withFile(path, async (f) => {
      for (const expected of model.tensors.filter((t) => !PLAIN.has(t.type))) {
        const t = f.get(expected.name);
        expect(t.dtype).toBe('float32');
        expect(t.quantized?.name).toBe(expected.type);
        const loaded = await f.read(t);
        expect(b64(loaded.data), expected.name).toBe(expected.values.b64);
        const stream = f.stream(t);
        expect(stream.nbytes).toBe(loaded.data.length);
        expect(b64((await collectStream(stream)).data), expected.name).toBe(expected.values.b64);
      }
    });
  });

  it('gathers quantized rows along every axis, in chunks of any size', async () => {
    await withFile(path, async (f) => {
      for (const expected of model.tensors.filter((t) => !PLAIN.has(t.type))) {
        const t = f.get(expected.name);
        const values = expectedValues(expected);
        const rank = expected.shape.length;
        for (let axis = -1; axis < rank; axis++) {
          const size = expected.shape[(axis + rank) % rank] as number;
          const picks = [size - 1, 0, size - 1, Math.floor(size / 2)];
          const indices = tensorFrom('int32', [2, 2], picks);
          for (const chunkBytes of [4, 200, 1 << 20]) {
            const out = gatherFromFile(f, t, indices, { axis, chunkBytes });
            expect(out.mode).toBe('rows');
            const got = await collectStream(out);
            const want = gather(values, indices, { axis });
            expect(got.shape, expected.name).toEqual(want.shape);
            expect(b64(got.data), `${expected.name} axis ${axis}`).toBe(b64(want.data));
          }
        }
      }
    });
  });

  it('gathers quantized rows with batch dims, as core gathers the dequantized values', async () => {
    const q3 = model.tensors.find((t) => t.name === 'quant3d.Q4_0') as ExpectedTensor;
    await withFile(path, async (f) => {
      const [batch = 0, rows = 0, cols = 0] = q3.shape;
      for (const [axis, size] of [
        [1, rows],
        [2, cols],
      ] as const) {
        const picks = Array.from({ length: batch * 3 }, (_, i) => (i * 7) % size);
        const indices = tensorFrom('int32', [batch, 3], picks);
        const out = gatherFromFile(f, f.get(q3.name), indices, { axis, batchDims: 1 });
        const want = gather(expectedValues(q3), indices, { axis, batchDims: 1 });
        const got = await collectStream(out);
        expect(got.shape).toEqual(want.shape);
        expect(b64(got.data), `axis ${axis}`).toBe(b64(want.data));
      }
    });
  });

  it('zero-fills out-of-range rows (oob zero) in reused output chunks', async () => {
    const embd = model.tensors.find((t) => t.name === 'token_embd.weight') as ExpectedTensor;
    await withFile(path, async (f) => {
      const indices = tensorFrom('int32', [6], [1, 99, 7, 1, -100, 0]);
      for (const chunkBytes of [256, 600, 1 << 20]) {
        const out = gatherFromFile(f, f.get(embd.name), indices, { oob: 'zero', chunkBytes });
        const parts: Uint8Array[] = [];
        // Each chunk is copied before the next is asked for: the buffers take turns.
        for await (const chunk of out.chunks({ reuse: true })) parts.push(chunk.slice());
        const want = gather(expectedValues(embd), indices, { oob: 'zero' });
        expect(b64(concat(parts)), `chunks of ${chunkBytes}`).toBe(b64(want.data));
      }
    });
  });

  it('gathers token_embd.weight rows as numpy takes them from the dequantized values', async () => {
    const embd = model.tensors.find((t) => t.name === 'token_embd.weight') as ExpectedTensor;
    await withFile(path, async (f) => {
      const t = f.get(embd.name);
      const rows = embd.rows as number[];
      const out = gatherFromFile(f, t, tensorFrom('int64', [rows.length], rows.map(BigInt)));
      expect(b64((await collectStream(out)).data)).toBe(embd.gathered?.b64);
    });
  });
});

describe('other files', () => {
  it('honours general.alignment', async () => {
    const aligned = manifest['aligned.gguf'] as ExpectedFile;
    await withFile(join(DIR, 'aligned.gguf'), async (f) => {
      expect(f.gguf?.alignment).toBe(64);
      expect(f.tensors.map((t) => t.offset)).toEqual(aligned.tensors.map((t) => t.offset));
      for (const expected of aligned.tensors) {
        expect(b64((await f.read(f.get(expected.name))).data)).toBe(expected.values.b64);
      }
    });
  });

  it('refuses a big-endian file in one line', async () => {
    const error = await expectRejection(openTensorFile(join(DIR, 'big-endian.gguf')));
    expect(error.code).toBe('E_FORMAT');
    expect(error.message).toMatch(/big-endian .*only little-endian GGUF files can be read$/);
  });

  it('is read, never written: writing a .gguf is refused before any file is made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tensorops-gguf-write-'));
    try {
      const path = join(dir, 'out.gguf');
      const error = await expectRejection(
        writeTensorFile(path, tensorFrom('float32', [2], [1, 2])),
      );
      expect(error.message).toBe(`${path}: tensorops reads .gguf files and does not write them`);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is recognised by its magic bytes under any name', async () => {
    const bytes = readFileSync(join(DIR, 'aligned.gguf'));
    const f = await openTensorBytes(bytes, 'weights.bin');
    expect(f.format).toBe('gguf');
    await f.close();
  });

  it('a source that ends before the size it claims is refused as truncated, not read again and again', async () => {
    const bytes = readFileSync(join(DIR, 'model.gguf')).subarray(0, 5000);
    let reads = 0;
    const source: ByteSource = {
      label: 'short.gguf',
      size: 1 << 20,
      read: async (target, position) => {
        reads++;
        const part = bytes.subarray(Math.min(position, bytes.length), position + target.length);
        target.set(part);
        return part.length;
      },
      close: async () => {},
    };
    const error = await expectRejection(ggufReader(source));
    expect(error.message).toMatch(/^GGUF .* the file ends after/);
    expect(reads).toBeLessThanOrEqual(2);
  });

  it('from a stream: reads the header, then exactly the data it declares', async () => {
    const bytes = readFileSync(join(DIR, 'model.gguf'));
    const last = model.tensors.reduce((n, t) => Math.max(n, t.offset + t.nbytes), 0);
    // Trailing bytes after the last tensor are never read.
    const stream = Readable.from([bytes, Buffer.alloc(1 << 16, 7)]);
    const declared = await readDeclaredBytes(stream, 'stdin');
    expect(declared.length).toBe(last);
    const f = await openTensorBytes(declared, 'stdin');
    expect(f.tensors.map((t) => t.name)).toEqual(model.tensors.map((t) => t.name));
    const i64 = model.tensors.find((t) => t.name === 'plain.i64') as ExpectedTensor;
    expect(b64((await f.read(f.get('plain.i64'))).data)).toBe(i64.values.b64);
    await f.close();
  });

  it('from a stream that ends inside the data: refused as truncated', async () => {
    const bytes = readFileSync(join(DIR, 'model.gguf'));
    const stream = Readable.from([bytes.subarray(0, 9500)]);
    const error = await expectRejection(readDeclaredBytes(stream, 'stdin'));
    expect(error.message).toMatch(
      /^GGUF tensor 'plain\.f32' data .* runs past the end of the file \(9500 bytes\)$/,
    );
  });
});

const EMBD = model.tensors.find((t) => t.name === 'token_embd.weight') as ExpectedTensor;
const REPEAT = 1000;

describe('over HTTP', () => {
  let dir: string;
  let server: TestServer;
  const tokens = Array.from({ length: 150_000 }, (_, i) => `token-${i}-${'x'.repeat(i % 13)}`);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tensorops-gguf-http-'));
    // token_embd.weight's 8 rows repeated: larger than the header's first read.
    const embd = readFileSync(join(DIR, 'model.gguf')).subarray(
      EMBD.offset,
      EMBD.offset + EMBD.nbytes,
    );
    writeFileSync(
      join(dir, 'embd.gguf'),
      ggufFile({
        tensors: [{ name: EMBD.name, ne: [64, 8 * REPEAT], type: 8, offset: 0 }],
        data: concat(Array.from({ length: REPEAT }, () => embd)),
      }),
    );
    const data = new Uint8Array(64);
    writeFileSync(
      join(dir, 'vocab.gguf'),
      ggufFile({
        entries: [stringArray('tokenizer.ggml.tokens', tokens)],
        tensors: [{ name: 'w', ne: [16], type: 0, offset: 0 }],
        data,
      }),
    );
    server = await serveFolder(dir);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a header of several MB in a few requests, not one per value', async () => {
    const before = server.requests.length;
    const f = await openTensorFile(`${server.url}/vocab.gguf`, { http: { retryMs: 5000 } });
    const requests = server.requests.length - before;
    const vocab = f.gguf?.metadata[0]?.value as GgufArray | undefined;
    expect(vocab?.items).toHaveLength(tokens.length);
    expect(vocab?.items[149_999]).toBe(tokens[149_999]);
    expect(f.size).toBeGreaterThan(2_000_000);
    // 64 KiB, then 8x what is held: 64 KiB, 512 KiB, 4 MiB.
    expect(requests).toBeLessThanOrEqual(3);
    await f.close();
  });

  it('gathers token_embd.weight rows by ranges of the rows it needs', async () => {
    const f = await openTensorFile(`${server.url}/embd.gguf`, { http: { retryMs: 5000 } });
    try {
      const t = f.get(EMBD.name);
      const before = { requests: server.requests.length, bytes: bytesSent(server) };
      const rows = [4006, 4006, 4007, 7999];
      const out = gatherFromFile(f, t, tensorFrom('int32', [4], rows));
      const got = (await collectStream(out)).data;
      const want = gather(expectedValues(EMBD), tensorFrom('int32', [4], [6, 6, 7, 7]));
      expect(b64(got)).toBe(b64(want.data));
      // Rows 4006 and 4007 in one range, 7999 in another: three rows' bytes, in few requests.
      const rowBytes = EMBD.nbytes / 8;
      expect(bytesSent(server) - before.bytes).toBe(3 * rowBytes);
      expect(server.requests.length - before.requests).toBeLessThanOrEqual(2);
    } finally {
      await f.close();
    }
  });
});

describe('hostile headers: one line each, nothing sized by the header', () => {
  const f32 = (name: string, n: number, offset: number): TensorInfo => ({
    name,
    ne: [n],
    type: 0,
    offset,
  });
  const cases: [string, Uint8Array, RegExp][] = [
    [
      'a tensor count of 2^63',
      ggufFile({ tensorCount: 2n ** 63n }),
      /tensor count .* is 9223372036854775808: more tensor infos than the file can hold/,
    ],
    [
      'a metadata count of 2^63',
      ggufFile({ entryCount: 2n ** 63n }),
      /metadata count .* more metadata entries than the file can hold/,
    ],
    [
      'a string longer than the file',
      ggufFile({ entries: [concat([u64(2n ** 40n), u32(0)])] }),
      /metadata key 0 length .* longer than the rest of the file/,
    ],
    [
      'arrays nested 10^6 deep',
      ggufFile({
        entries: [
          concat([
            ggufString('deep'),
            u32(9),
            ...Array.from({ length: 1_000_000 }, () => concat([u32(9), u64(1)])),
          ]),
        ],
      }),
      /nests arrays more than 64 deep/,
    ],
    [
      'an unknown value type',
      ggufFile({ entries: [entry('k', 13, u32(0))] }),
      /value type 13, which GGUF does not define/,
    ],
    [
      'an unknown tensor type',
      ggufFile({ tensors: [{ name: 'w', ne: [4], type: 99, offset: 0 }] }),
      /ggml type 99, which ggml does not define/,
    ],
    [
      'dimensions whose product overflows',
      ggufFile({
        tensors: [{ name: 'w', ne: [64, 64, 64, 64], type: 0, offset: 0 }],
      }),
      /tensor 'w' of dimensions .* is larger than the file/,
    ],
    [
      'data past the end',
      ggufFile({ tensors: [f32('w', 4, 32)], data: new Uint8Array(16) }),
      /tensor 'w' data \(16 bytes at offset \d+\) runs past the end of the file/,
    ],
    [
      'overlapping tensors',
      ggufFile({ tensors: [f32('a', 16, 0), f32('b', 8, 32)], data: new Uint8Array(128) }),
      /tensors 'a' and 'b' overlap/,
    ],
    [
      'a misaligned offset',
      ggufFile({ tensors: [f32('a', 4, 4)], data: new Uint8Array(64) }),
      /tensor 'a' offset 4 is not a multiple of the alignment 32/,
    ],
    [
      'a name given twice',
      ggufFile({ tensors: [f32('w', 4, 0), f32('w', 4, 32)], data: new Uint8Array(64) }),
      /tensor name 'w' is given twice/,
    ],
    [
      'a key given twice',
      ggufFile({ entries: [entry('k', 4, u32(1)), entry('k', 4, u32(2))] }),
      /metadata key 'k' is given twice/,
    ],
    [
      'a truncated file',
      ggufFile({ entries: [entry('k', 4, u32(1))] }).subarray(0, 30),
      /the file ends after/,
    ],
    [
      'invalid UTF-8',
      ggufFile({ entries: [entry('k', 8, ggufString(new Uint8Array([0xc3, 0x28])))] }),
      /metadata value 'k' at offset \d+ is not valid UTF-8/,
    ],
    [
      'an alignment of 0',
      ggufFile({ entries: [entry('general.alignment', 4, u32(0))] }),
      /general\.alignment is not a uint32 power of two/,
    ],
    ['version 1', ggufFile({ version: 1 }), /version 1 is not supported/],
    [
      'rows not a whole number of blocks',
      ggufFile({
        tensors: [{ name: 'q', ne: [16], type: 8, offset: 0 }],
        data: new Uint8Array(64),
      }),
      /rows of 16 elements, not a multiple of its blocks of 32/,
    ],
  ];
  for (const [what, bytes, message] of cases) {
    it(`refuses ${what}`, async () => {
      const error = await expectRejection(openTensorBytes(bytes, 'x.gguf'));
      expect(error.message).toMatch(/^x\.gguf: GGUF /);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('\n');
      expect(['E_FORMAT', 'E_DTYPE']).toContain(error.code);
    });
  }
});
