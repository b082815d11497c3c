import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTensor, type Dtype, gather, type Tensor, tensorFrom } from '@tensorops/core';
import { setWasmKernelsEnabled } from '@tensorops/core/internal';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Releasable } from '../src/file/capabilities.js';
import { encodeNpy, encodeSafetensors } from '../src/index.js';
import {
  collectStream,
  gatherFromFile,
  openTensorBytes,
  openTensorFile,
  type TensorFile,
  type TensorStream,
  writeTensorsFile,
} from '../src/node/index.js';
import { bigEndianNpy, expectError } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tensorops-gather-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => setWasmKernelsEnabled(true));

type Container = 'npy' | 'npy-be' | 'safetensors' | 'npz-stored' | 'npz-deflate';

async function fileOf(t: Tensor, container: Container, real: boolean): Promise<TensorFile> {
  let bytes: Uint8Array;
  let ext: string;
  if (container === 'npy' || container === 'npy-be') {
    bytes = container === 'npy' ? encodeNpy(t) : bigEndianNpy(t);
    ext = 'npy';
  } else if (container === 'safetensors') {
    // Another tensor first, so the data does not start at the header's end.
    bytes = encodeSafetensors([
      { name: 'pad', tensor: tensorFrom('uint8', [3], [9, 9, 9]) },
      { name: 'x', tensor: t },
    ]);
    ext = 'safetensors';
  } else {
    const path = join(dir, `t.npz`);
    await writeTensorsFile(
      path,
      [
        { name: 'pad', data: tensorFrom('uint8', [1], [1]) },
        { name: 'x', data: t },
      ],
      { compress: container === 'npz-deflate' },
    );
    return openTensorFile(path);
  }
  if (!real) return openTensorBytes(bytes, `mem.${ext}`);
  const path = join(dir, `t.${ext}`);
  writeFileSync(path, bytes);
  return openTensorFile(path);
}

const DTYPES: Dtype[] = ['uint8', 'bool', 'int16', 'float32', 'float64', 'complex128', 'U3'];

const caseArb = fc
  .record({
    dtype: fc.constantFrom(...DTYPES),
    shape: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 4 }),
    axisSeed: fc.nat(),
    batchSeed: fc.nat(),
    indexShape: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 0, maxLength: 3 }),
    seed: fc.integer(),
    oob: fc.constantFrom('error' as const, 'zero' as const),
    chunkBytes: fc.integer({ min: 1, max: 300 }),
    windowBytes: fc.integer({ min: 1, max: 300 }),
    mode: fc.constantFrom(
      'auto' as const,
      'ranged' as const,
      'scan' as const,
      'sweep' as const,
      'passes' as const,
    ),
    container: fc.constantFrom<Container>(
      'npy',
      'npy-be',
      'safetensors',
      'npz-stored',
      'npz-deflate',
    ),
    reuse: fc.boolean(),
    // WebAssembly kernels for outputs of any size, or none: both paths give the same bytes
    wasm: fc.boolean(),
    // A file that frees what it is told it will not be read again (a pipe's temp copy)
    release: fc.boolean(),
  })
  .map((c) => {
    const r = c.shape.length;
    const axis = c.axisSeed % r;
    const batchDims = Math.min(c.batchSeed % (axis + 1), c.indexShape.length);
    const indexShape = [...c.shape.slice(0, batchDims), ...c.indexShape.slice(batchDims)];
    // .safetensors has no complex128 or strings.
    const container: Container =
      c.container === 'safetensors' && (c.dtype === 'complex128' || c.dtype === 'U3')
        ? 'npy-be'
        : c.container;
    return { ...c, axis, batchDims, indexShape, container };
  });

function rand(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/**
 * `file` with a release that holds its caller to its word: once told that no byte at or after a
 * position will be read again, a read reaching there fails the gather. Each release is pushed to
 * `released`.
 */
function releasing(file: TensorFile, released: number[]): TensorFile & Releasable {
  let from = Number.POSITIVE_INFINITY;
  return {
    ...file,
    readAt(target, position) {
      if (position + target.length > from) {
        const end = position + target.length;
        return Promise.reject(new Error(`read [${position}, ${end}) after a release at ${from}`));
      }
      return file.readAt(target, position);
    },
    release(position) {
      released.push(position);
      from = Math.min(from, position);
    },
  };
}

async function collectCopies(s: TensorStream, reuse: boolean): Promise<Uint8Array> {
  // With reuse the producer may refill a chunk once the next one is asked for, not before: each
  // chunk is held for a while before its copy, as a file writer holds it across its write, while a
  // producer one chunk ahead runs.
  const parts: Uint8Array[] = [];
  for await (const chunk of s.chunks({ reuse })) {
    if (reuse) await new Promise((resolve) => setTimeout(resolve, 1));
    parts.push(new Uint8Array(chunk));
  }
  return new Uint8Array(Buffer.concat(parts));
}

describe('gatherFromFile', () => {
  it('matches core gather for any shape, axis, batch dims, dtype, container, chunk size and strategy', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const next = rand(c.seed);
        const data = createTensor(c.dtype, c.shape);
        for (let i = 0; i < data.data.length; i++) data.data[i] = Math.floor(next() * 256);
        const size = c.shape[c.axis] as number;
        const count = c.indexShape.reduce((a, b) => a * b, 1);
        const values = Array.from({ length: count }, () => {
          const span = c.oob === 'zero' ? size * 2 + 2 : size * 2;
          return BigInt(
            Math.floor(next() * Math.max(1, span)) - (c.oob === 'zero' ? size + 1 : size),
          );
        });
        const indices = tensorFrom('int64', c.indexShape, values);
        const options = { axis: c.axis, batchDims: c.batchDims, oob: c.oob };
        let expected: Tensor;
        try {
          expected = gather(data, indices, options);
        } catch {
          return; // invalid for core (e.g. an index into an empty axis): planned the same way below
        }
        const opened = await fileOf(data, c.container, false);
        const file = c.release ? releasing(opened, []) : opened;
        setWasmKernelsEnabled(c.wasm, 0);
        try {
          const s = gatherFromFile(
            file,
            file.get(c.container.startsWith('npy') ? undefined : 'x'),
            indices,
            {
              ...options,
              chunkBytes: c.chunkBytes,
              windowBytes: c.windowBytes,
              mode: c.mode,
            },
          );
          if (c.mode !== 'auto' && !c.container.startsWith('npz-deflate'))
            expect(s.mode).toBe(c.mode);
          expect(s.dtype).toBe(expected.dtype);
          expect(s.shape).toEqual(expected.shape);
          const got = await collectCopies(s, c.reuse);
          expect(Buffer.from(got).toString('hex')).toBe(Buffer.from(expected.data).toString('hex'));
        } finally {
          await file.close();
        }
      }),
      { numRuns: 600 },
    );
  });

  it('reads real files the same way (every strategy, every rangeable container)', async () => {
    const data = tensorFrom(
      'float32',
      [50, 7],
      Array.from({ length: 350 }, (_, i) => i * 0.5),
    );
    const indices = tensorFrom('int32', [4, 2], [3, 4, 49, 0, -1, 10, 11, 12]);
    for (const container of ['npy', 'npy-be', 'safetensors', 'npz-stored'] as const) {
      for (const mode of ['ranged', 'scan', 'sweep', 'passes'] as const) {
        for (const axis of [0, 1]) {
          const idx = axis === 0 ? indices : tensorFrom('int32', [3], [6, 0, -7]);
          const file = await fileOf(data, container, true);
          const stored = file.get(container.startsWith('npy') ? undefined : 'x');
          expect(stored.offset).not.toBeNull();
          const got = await collectStream(
            gatherFromFile(file, stored, idx, { axis, mode, chunkBytes: 64, windowBytes: 100 }),
          );
          await file.close();
          expect(Buffer.from(got.data).equals(Buffer.from(gather(data, idx, { axis }).data))).toBe(
            true,
          );
        }
      }
    }
  });

  it('validates axis, batch dims and every index before reading anything', async () => {
    const file = await fileOf(tensorFrom('int16', [3, 2], [1, 2, 3, 4, 5, 6]), 'npy', false);
    const stored = file.get();
    expect(
      expectError(() => gatherFromFile(file, stored, tensorFrom('int8', [1], [3]))).message,
    ).toBe('Gather: index 3 out of range [-3, 2] at indices[0] (axis=0)');
    expect(() => gatherFromFile(file, stored, tensorFrom('int8', [1], [0]), { axis: 2 })).toThrow(
      /axis 2 out of range/,
    );
    await file.close();
  });

  it('reports a file that shrank under it as truncated, naming the path', async () => {
    const path = join(dir, 'shrink.npy');
    writeFileSync(
      path,
      encodeNpy(
        tensorFrom(
          'int32',
          [1000],
          Array.from({ length: 1000 }, (_, i) => i),
        ),
      ),
    );
    const file = await openTensorFile(path);
    writeFileSync(
      path,
      encodeNpy(
        tensorFrom(
          'int32',
          [500],
          Array.from({ length: 500 }, (_, i) => i),
        ),
      ),
    );
    // With [0, 999] and small windows, the first window is whole and the short read is one a
    // pass started ahead, while the blocks of the first moved.
    const cases = [
      { picks: [999], options: {} },
      { picks: [0, 999], options: { chunkBytes: 256, windowBytes: 128 } },
    ];
    for (const { picks, options } of cases) {
      for (const mode of ['ranged', 'scan', 'sweep', 'passes'] as const) {
        const indices = tensorFrom('int32', [picks.length], picks);
        const s = gatherFromFile(file, file.get(), indices, { ...options, mode });
        await expect(collectStream(s)).rejects.toThrow(`${path}: data truncated`);
      }
    }
    await file.close();
  });

  it('picks the strategy by cost: ranged for few picks, scan, sweep or passes for dense ones', async () => {
    const rows = 65536;
    const data = createTensor('uint8', [rows, 16]);
    for (let i = 0; i < data.data.length; i++) data.data[i] = (i * 7 + (i >> 8)) & 255;
    const file = await fileOf(data, 'npy', true);
    const picks = (n: number, span: number) => {
      const next = rand(n + span);
      return tensorFrom(
        'int32',
        [n],
        Array.from({ length: n }, () => Math.floor(next() * span)),
      );
    };
    const cases = [
      // 3 reads of 16 bytes cost less than reading 1 MiB
      { indices: picks(3, rows), options: {}, mode: 'ranged' },
      // 50 000 scattered reads: one sequential read of the whole tensor is cheaper
      { indices: picks(50000, rows), options: {}, mode: 'scan' },
      // the same picks from the first 4096 rows only: one 64 KiB window instead of 1 MiB
      { indices: picks(50000, 4096), options: { windowBytes: 64 << 10 }, mode: 'sweep' },
      // with 32 KiB chunks: 4 passes over the 1 MiB in 16 KiB windows hold far less fresh memory
      { indices: picks(50000, rows), options: { chunkBytes: 32 << 10 }, mode: 'passes' },
    ] as const;
    for (const { indices, options, mode } of cases) {
      const s = gatherFromFile(file, file.get(), indices, options);
      expect(s.mode).toBe(mode);
      const got = await collectStream(s);
      expect(Buffer.from(got.data).equals(Buffer.from(gather(data, indices).data))).toBe(true);
    }
    await file.close();
  });

  it('never refills a reused chunk the consumer still holds (many chunks, every strategy, on disk and in memory)', async () => {
    const data = createTensor('uint8', [50, 3]);
    for (let i = 0; i < data.data.length; i++) data.data[i] = i;
    const indices = tensorFrom(
      'int64',
      [200],
      Array.from({ length: 200 }, (_, i) => BigInt((i * 7) % 50)),
    );
    const want = Buffer.from(gather(data, indices, { axis: 0 }).data).toString('hex');
    for (const real of [true, false]) {
      const file = await fileOf(data, 'npy', real);
      try {
        for (const mode of ['ranged', 'scan', 'sweep', 'passes'] as const) {
          // Chunks of 4 rows (passes: 16 rows, four a pass in a ring of five, so that passes
          // wrap around the ring's end) of 200: many turns of the reused buffers.
          const options = { axis: 0, mode, chunkBytes: 12, windowBytes: 50 };
          const got = await collectCopies(gatherFromFile(file, file.get(), indices, options), true);
          expect(
            Buffer.from(got).toString('hex'),
            `${mode}, ${real ? 'on disk' : 'in memory'}`,
          ).toBe(want);
        }
      } finally {
        await file.close();
      }
    }
  });

  it('reads the windows of the last of several passes last first, releasing what it has passed', async () => {
    // [200, 16] uint8 rows picked in a scattered order: 16-byte blocks, pass chunks of 256 bytes
    // (16 blocks; 13 chunks, four per pass: 4 passes, the last of 8 blocks) and windows of 32
    // bytes (two rows, 100 windows).
    const data = createTensor('uint8', [200, 16]);
    for (let i = 0; i < data.data.length; i++) data.data[i] = (i * 31) & 255;
    const ids = (n: number) =>
      tensorFrom(
        'int32',
        [n],
        Array.from({ length: n }, (_, i) => (i * 73) % 200),
      );
    const options = { axis: 0, mode: 'passes', chunkBytes: 64, windowBytes: 32 } as const;
    const opened = await fileOf(data, 'npy', true);
    const { offset } = opened.get();
    try {
      const released: number[] = [];
      const file = releasing(opened, released);
      const got = await collectCopies(gatherFromFile(file, file.get(), ids(200), options), true);
      expect(Buffer.from(got).equals(Buffer.from(gather(data, ids(200)).data))).toBe(true);
      // The windows that hold the last pass's rows (192..199 of the output), from the highest
      // down; each release keeps one block past the window, which the window before it reaches.
      const last = [...new Set(Array.from({ length: 8 }, (_, i) => (((192 + i) * 73) % 200) >> 1))];
      last.sort((a, b) => b - a);
      expect(last.length).toBeGreaterThan(4);
      expect(released).toEqual(last.map((w) => (offset as number) + w * 32 + 16));

      // One pass (the first, which reads what a pipe's copy has just written): nothing released.
      const none: number[] = [];
      const again = releasing(opened, none);
      const one = await collectCopies(gatherFromFile(again, again.get(), ids(30), options), true);
      expect(Buffer.from(one).equals(Buffer.from(gather(data, ids(30)).data))).toBe(true);
      expect(none).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('can be left early: no read is left running and nothing is reported unhandled', async () => {
    const data = createTensor('int32', [1000, 4]);
    for (let i = 0; i < data.data.length; i++) data.data[i] = i & 255;
    const file = await fileOf(data, 'npy', true);
    const indices = tensorFrom(
      'int32',
      [500],
      Array.from({ length: 500 }, (_, i) => (i * 37) % 1000),
    );
    const expected = gather(data, indices).data;
    for (const mode of ['ranged', 'scan', 'sweep', 'passes'] as const) {
      const s = gatherFromFile(file, file.get(), indices, { mode, chunkBytes: 256 });
      for await (const chunk of s.chunks({ reuse: true })) {
        // 256-byte chunks; a passes run produces chunks four times as large
        expect(chunk.length).toBe(mode === 'passes' ? 1024 : 256);
        expect(Buffer.from(chunk).equals(Buffer.from(expected.subarray(0, chunk.length)))).toBe(
          true,
        );
        break;
      }
    }
    await file.close();
  });
});
