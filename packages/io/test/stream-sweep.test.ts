// Gather from a .npy on a pipe, read once, window by window: byte-exact against core's gather for
// any axis, batch dims, byte order and window size; bounded by what the stream holds, never by
// what its header claims. Streams are chunked at random, then real pipes (a spawned `cat`, and a
// FIFO read by descriptor).
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  createTensor,
  type Dtype,
  dtypeSize,
  gather,
  type Tensor,
  tensorFrom,
} from '@tensorops/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeNpy, encodeNpyHeader } from '../src/index.js';
import {
  collectStream,
  gatherFromNpyStream,
  openNpyStream,
  type StreamGatherOptions,
} from '../src/node/index.js';
import { bigEndianNpy, expectRejection } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tensorops-stream-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `bytes` as a stream cut into pieces of the given sizes (cycled). */
function chunked(bytes: Uint8Array, cuts: readonly number[]): Readable {
  const pieces: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = Math.max(1, cuts[i % cuts.length] as number);
    pieces.push(bytes.slice(at, at + n));
    at += n;
  }
  return Readable.from(pieces);
}

async function gatherStream(
  source: Readable | number,
  indices: Tensor,
  options: StreamGatherOptions,
): Promise<{ tensor: Tensor; mode: string }> {
  const npy = await openNpyStream(source, 'stdin');
  try {
    const stream = gatherFromNpyStream(npy, indices, options);
    return { tensor: await collectStream(stream), mode: stream.mode };
  } finally {
    await npy.close();
  }
}

const DTYPES: readonly Dtype[] = ['uint8', 'float32', 'int64', 'complex64', 'U3'];

describe('gatherFromNpyStream', () => {
  it('matches core gather bit for bit: any axis, batch dims, byte order, window and chunk', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          dtype: fc.constantFrom(...DTYPES),
          shape: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
          axisSeed: fc.nat(),
          batchDims: fc.constantFrom(0, 1),
          picks: fc.array(fc.integer({ min: -8, max: 8 }), { minLength: 0, maxLength: 7 }),
          oob: fc.constantFrom('error', 'zero') as fc.Arbitrary<'error' | 'zero'>,
          big: fc.boolean(),
          windowItems: fc.integer({ min: 1, max: 40 }),
          chunkItems: fc.integer({ min: 1, max: 40 }),
          cuts: fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 5 }),
          seed: fc.nat(),
        }),
        async (c) => {
          const dtype = c.dtype;
          const data = createTensor(dtype, c.shape);
          for (let i = 0; i < data.data.length; i++) data.data[i] = (c.seed + i * 131) & 255;
          const batchDims = Math.min(c.batchDims, c.shape.length - 1);
          const axis = batchDims + (c.axisSeed % (c.shape.length - batchDims));
          const axisSize = c.shape[axis] as number;
          const picks = c.picks.map((p) => (c.oob === 'zero' ? p : p % axisSize));
          const indices =
            batchDims === 0
              ? tensorFrom('int64', [picks.length], picks)
              : tensorFrom(
                  'int64',
                  [c.shape[0] as number, picks.length],
                  Array.from({ length: (c.shape[0] as number) * picks.length }, (_, i) => {
                    return picks[i % picks.length] as number;
                  }),
                );
          const options = { axis, batchDims, oob: c.oob };
          const expected = gather(data, indices, options);
          const bytes = c.big ? bigEndianNpy(data) : encodeNpy(data);
          const item = dtypeSize(dtype);
          const got = await gatherStream(chunked(bytes, c.cuts), indices, {
            ...options,
            windowBytes: c.windowItems * item,
            chunkBytes: c.chunkItems * item,
          });
          expect(got.mode).toBe('stream-sweep');
          expect(got.tensor.dtype).toBe(expected.dtype);
          expect(got.tensor.shape).toEqual(expected.shape);
          expect(Buffer.compare(got.tensor.data, expected.data)).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('blocks longer than the window, and buckets wider than a window when picks are few', async () => {
    // [3, 5000] uint8 along axis 0: rows of 5000 bytes through 7-byte windows.
    const data = createTensor('uint8', [3, 5000]);
    for (let i = 0; i < data.data.length; i++) data.data[i] = (i * 7) & 255;
    const indices = tensorFrom('int64', [4], [2, 0, 2, 1]);
    const expected = gather(data, indices, { axis: 0 });
    const got = await gatherStream(chunked(encodeNpy(data), [999]), indices, { windowBytes: 7 });
    expect(Buffer.compare(got.tensor.data, expected.data)).toBe(0);
    // 200 000 one-byte windows, 2 picks: the buckets span many windows each.
    const long = createTensor('uint8', [200_000]);
    for (let i = 0; i < long.data.length; i++) long.data[i] = i % 251;
    const two = tensorFrom('int64', [2], [199_999, 3]);
    const got2 = await gatherStream(chunked(encodeNpy(long), [4096]), two, { windowBytes: 1 });
    expect([...got2.tensor.data]).toEqual([199_999 % 251, 3]);
  });

  it('Fortran order is read whole once (a transpose needs all of it), then gathered', async () => {
    const data = tensorFrom('int32', [3, 2], [1, 2, 3, 4, 5, 6]);
    const bytes = encodeNpy(data);
    // Buffer's latin1, not TextDecoder('latin1'), which is windows-1252 (0x93 becomes U+201C).
    const text = Buffer.from(bytes).toString('latin1');
    // The same values in Fortran order: column-major data with fortran_order True.
    const header = Buffer.from(
      text.slice(0, 128).replace("'fortran_order': False", "'fortran_order': True "),
      'latin1',
    );
    const columns = new Int32Array([1, 3, 5, 2, 4, 6]);
    const fortran = Buffer.concat([header, new Uint8Array(columns.buffer)]);
    const indices = tensorFrom('int64', [2], [2, 0]);
    const got = await gatherStream(chunked(fortran, [5]), indices, { axis: 0 });
    expect(got.mode).toBe('loaded');
    expect([...new Int32Array(got.tensor.data.slice().buffer)]).toEqual([5, 6, 1, 2]);
  });

  it('a stream that ends before its declared data is E_FORMAT from the output stream', async () => {
    const data = createTensor('float32', [64, 4]);
    const bytes = encodeNpy(data);
    const npy = await openNpyStream(chunked(bytes.subarray(0, bytes.length - 5), [100]), 'stdin');
    const stream = gatherFromNpyStream(npy, tensorFrom('int64', [1], [63]), { windowBytes: 64 });
    const error = await expectRejection(collectStream(stream));
    expect(error.code).toBe('E_FORMAT');
    expect(error.message).toMatch(/^stdin: \.npy data truncated: header claims 1024 bytes/);
  });

  it('a header claiming a terabyte costs what the stream holds: no allocation by the header', async () => {
    const header = encodeNpyHeader({ dtype: 'uint8', shape: [2, 2 ** 40] });
    const bytes = Buffer.concat([header, new Uint8Array(1 << 20)]);
    const npy = await openNpyStream(chunked(bytes, [65536]), 'stdin');
    // Output: one row of 2^40 bytes, held in chunks made only as data arrives to fill them.
    const stream = gatherFromNpyStream(npy, tensorFrom('int64', [1], [0]), {});
    expect(stream.nbytes).toBe(2 ** 40);
    const drain = async () => {
      for await (const _ of stream.chunks());
    };
    const error = await expectRejection(drain());
    expect(error.message).toMatch(
      /truncated: header claims 2199023255552 bytes, .* after 1048576$/,
    );
  });

  it('reads nothing past the declared data, however much follows', async () => {
    const data = createTensor('uint8', [8, 8]);
    data.data.fill(5);
    let pulled = 0;
    const endless = Readable.from(
      (async function* () {
        yield encodeNpy(data);
        for (;;) {
          pulled++;
          yield new Uint8Array(1 << 16);
        }
      })(),
    );
    const got = await gatherStream(endless, tensorFrom('int64', [1], [7]), { windowBytes: 16 });
    expect([...got.tensor.data]).toEqual(new Array(8).fill(5));
    expect(pulled).toBeLessThan(4);
  });

  it('from real pipes: a spawned cat, and a FIFO read by descriptor straight into the windows', async () => {
    const data = createTensor('int16', [300, 17]);
    for (let i = 0; i < data.data.length; i++) data.data[i] = (i * 13) & 255;
    const file = join(dir, 'pipe.npy');
    writeFileSync(file, encodeNpy(data));
    const indices = tensorFrom('int64', [5], [299, 0, -1, 150, 7]);
    const expected = gather(data, indices, { axis: 0 });
    const cat = spawn('cat', [file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const viaCat = await gatherStream(cat.stdout, indices, { windowBytes: 34 * 3 });
    expect(Buffer.compare(viaCat.tensor.data, expected.data)).toBe(0);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', 'cat "$0" > "$1"', file, fifo], { stdio: 'inherit' });
    // Opening the read end blocks until the writer opens its end; the descriptor stays blocking.
    const fd = openSync(fifo, 'r');
    try {
      const viaFd = await gatherStream(fd, indices, { windowBytes: 340 });
      expect(Buffer.compare(viaFd.tensor.data, expected.data)).toBe(0);
    } finally {
      closeSync(fd);
      writer.kill();
    }
  });
});
