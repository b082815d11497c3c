// streamGatherElementsByRows: the gather along the last axis with data and indices read from
// their files by blocks of rows and the output handed on a block at a time. Each stream must give
// the bytes of core's gatherElements on the whole tensors, and, where an index is out of range,
// its error (named by the index's place in the whole tensor) after the blocks before it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTensor,
  gatherElements,
  NUMERIC_DTYPES,
  type OobMode,
  type Tensor,
} from '@tensorops/core';
import { encodeNpy } from '@tensorops/io';
import { openTensorFile } from '@tensorops/io/node';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { streamGatherElementsByRows } from './gather-elements-rows.js';

const dir = mkdtempSync(join(tmpdir(), 'tensorops-elements-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Random bit patterns (NaN payloads and -0 among them), the same every run (xorshift32). */
function bits(t: Tensor, seed: number): Tensor {
  let s = seed;
  for (let i = 0; i < t.data.length; i++) {
    if (i % 4 === 0) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
    }
    t.data[i] = (s >>> (8 * (i % 4))) & 0xff;
  }
  return t;
}

/** int64 or int32 indices in [-size, size), random. */
function indices(dtype: 'int64' | 'int32', shape: number[], size: number, seed: number): Tensor {
  const t = createTensor(dtype, shape);
  const r = bits(createTensor('uint32', shape), seed).data;
  const words = new Uint32Array(r.buffer, r.byteOffset, r.byteLength / 4);
  const values = Array.from(words, (w) => (w % (2 * size)) - size);
  if (dtype === 'int64') new BigInt64Array(t.data.buffer).set(values.map(BigInt));
  else new Int32Array(t.data.buffer).set(values);
  return t;
}

function saved(t: Tensor | Uint8Array): string {
  const path = join(dir, `t${files++}.npy`);
  writeFileSync(path, t instanceof Uint8Array ? t : encodeNpy(t));
  return path;
}

/** The stream's chunks (copied as they come) and the error that ended it, if any. */
async function streamed(
  data: Tensor,
  ids: Tensor | Uint8Array,
  axis: number,
  oob: OobMode,
  reuse = false,
  blockBytes?: number,
) {
  const file = await openTensorFile(saved(data));
  try {
    const [stored] = file.tensors;
    if (stored === undefined) throw new Error('the data file holds no tensor');
    const s = await streamGatherElementsByRows(file, stored, saved(ids), axis, oob, blockBytes);
    if (s === undefined) return undefined;
    const chunks: Uint8Array[] = [];
    const buffers = new Set<ArrayBufferLike>();
    let error: unknown;
    try {
      for await (const chunk of s.stream.chunks({ reuse })) {
        buffers.add(chunk.buffer);
        chunks.push(chunk.slice());
      }
    } catch (e) {
      error = e;
    } finally {
      await s.close();
    }
    return { stream: s.stream, chunks, buffers: buffers.size, error };
  } finally {
    await file.close();
  }
}

function whole(data: Tensor, ids: Tensor, axis: number, oob: OobMode): Tensor | Error {
  try {
    return gatherElements(data, ids, { axis, oob });
  } catch (e) {
    return e as Error;
  }
}

describe('streamGatherElementsByRows', () => {
  // 2100 rows of 512 int64 indices: 8.6 MB, blocks of 1024 rows (4 MiB), so three blocks.
  const data = bits(createTensor('float32', [2100, 700]), 1);
  const ids = indices('int64', [2100, 512], 700, 2);

  it('gives the whole gather’s bytes, a block at a time, in one reused buffer when asked', async () => {
    const want = whole(data, ids, -1, 'error') as Tensor;
    for (const reuse of [false, true]) {
      const got = await streamed(data, ids, 1, 'error', reuse);
      expect(got?.error).toBeUndefined();
      expect(got?.stream.shape).toEqual([2100, 512]);
      expect(got?.stream.nbytes).toBe(want.data.length);
      expect(got?.chunks.length).toBe(3);
      expect(got?.buffers).toBe(reuse ? 1 : 3);
      expect(Buffer.concat(got?.chunks ?? []).equals(want.data)).toBe(true);
    }
  });

  it('int32 indices, rank 3, and data wider or narrower than the indices', async () => {
    const small = indices('int32', [2100, 3], 700, 3);
    const got = await streamed(data, small, -1, 'error');
    expect(
      Buffer.concat(got?.chunks ?? []).equals((whole(data, small, 1, 'error') as Tensor).data),
    ).toBe(true);
    const d3 = bits(createTensor('float32', [3, 4, 10]), 4);
    const i3 = indices('int64', [3, 4, 25], 10, 5);
    const got3 = await streamed(d3, i3, 2, 'error');
    expect(got3?.stream.shape).toEqual([3, 4, 25]);
    expect(
      Buffer.concat(got3?.chunks ?? []).equals((whole(d3, i3, 2, 'error') as Tensor).data),
    ).toBe(true);
  });

  it('an index out of range in the third block: two blocks, then the whole gather’s error', async () => {
    const bad = createTensor('int64', ids.shape, new Uint8Array(ids.data));
    new BigInt64Array(bad.data.buffer)[2050 * 512 + 7] = 700n;
    const want = whole(data, bad, 1, 'error') as Error;
    expect(want.message).toContain('at indices[2050,7]');
    const got = await streamed(data, bad, 1, 'error');
    expect(got?.chunks.length).toBe(2);
    expect(got?.error).toBeInstanceOf(Error);
    expect((got?.error as Error | undefined)?.message).toBe(want.message);
    const zeros = await streamed(data, bad, 1, 'zero');
    expect(zeros?.error).toBeUndefined();
    expect(
      Buffer.concat(zeros?.chunks ?? []).equals((whole(data, bad, 1, 'zero') as Tensor).data),
    ).toBe(true);
  });

  it('declines what it does not take: another axis, big-endian indices, other leading dims', async () => {
    expect(await streamed(data, ids, 0, 'error')).toBeUndefined();
    const le = encodeNpy(ids);
    const header = Buffer.from(le.subarray(0, le.length - ids.data.length)).toString('latin1');
    const swapped = Buffer.from(ids.data);
    swapped.swap64();
    const big = Buffer.concat([Buffer.from(header.replace("'<i8'", "'>i8'"), 'latin1'), swapped]);
    expect(await streamed(data, big, 1, 'error')).toBeUndefined();
    expect(await streamed(data, indices('int64', [2000, 4], 700, 6), 1, 'error')).toBeUndefined();
  });
});

describe('streamGatherElementsByRows against the whole gather, on random cases', () => {
  // The numeric dtypes a .npy holds (not bfloat16 or float8: ml_dtypes' names are not .npy's).
  const NPY_DTYPES = NUMERIC_DTYPES.filter((d) => d !== 'bfloat16' && !d.startsWith('float8'));
  // Any of their bits, rank 1-3, the last axis, index values some out of range, blocks of
  // a few rows (blockBytes from 1 byte up): every case splits into blocks, most into several.
  const cases = fc
    .record({
      lead: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 0, maxLength: 2 }),
      dataWidth: fc.integer({ min: 1, max: 6 }),
      width: fc.integer({ min: 1, max: 7 }),
      dtype: fc.constantFrom(...NPY_DTYPES),
      indexDtype: fc.constantFrom('int32' as const, 'int64' as const),
      oob: fc.constantFrom('error' as const, 'zero' as const),
      outOfRange: fc.boolean(),
      blockBytes: fc.integer({ min: 1, max: 96 }),
      reuse: fc.boolean(),
      seed: fc.integer({ min: 1, max: 0x7fffffff }),
    })
    .map((c) => ({ ...c, axis: c.lead.length }));

  it('the same bytes, or the same error after the blocks before it', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const data = bits(createTensor(c.dtype, [...c.lead, c.dataWidth]), c.seed);
        // In range, or (with outOfRange) up to twice the axis on either side.
        const size = c.outOfRange ? 2 * c.dataWidth : c.dataWidth;
        const ids = indices(c.indexDtype, [...c.lead, c.width], size, c.seed ^ 0x5bd1e995);
        const want = whole(data, ids, c.axis, c.oob);
        const got = await streamed(data, ids, c.axis, c.oob, c.reuse, c.blockBytes);
        expect(got).toBeDefined();
        if (want instanceof Error) {
          expect((got?.error as Error | undefined)?.message).toBe(want.message);
          return;
        }
        expect(got?.error).toBeUndefined();
        expect(got?.stream.nbytes).toBe(want.data.length);
        expect(Buffer.concat(got?.chunks ?? []).equals(want.data)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
