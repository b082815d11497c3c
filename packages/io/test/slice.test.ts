import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Dtype, dtypeSize, type Tensor } from '@tensorops/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectStream,
  fitSlice,
  openTensorBlob,
  parseSlice,
  sliceOfStored,
  sliceOfTensor,
  splitTrailingSlice,
  type TensorFile,
} from '../src/index.js';
import { openTensorFile, writeTensorFile } from '../src/node/index.js';
import { checkpointsManifest, copyShardedCheckpoint } from './format-fixtures.js';
import { base64, expectError } from './helpers.js';
import { bytesSent, serveFolder } from './http-servers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tensorops-slice-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('parseSlice', () => {
  it('reads numpy basic indexing', () => {
    expect(parseSlice('1000:1010, ::2').items).toEqual([
      { kind: 'range', start: 1000, stop: 1010, step: 1 },
      { kind: 'range', start: undefined, stop: undefined, step: 2 },
    ]);
    expect(parseSlice('[ -1 , ..., 3:-1:-2 ]').items).toEqual([
      { kind: 'index', index: -1, text: '-1' },
      { kind: 'ellipsis' },
      { kind: 'range', start: 3, stop: -1, step: -2 },
    ]);
    expect(parseSlice('1,').items).toEqual([{ kind: 'index', index: 1, text: '1' }]);
    expect(parseSlice(':').items).toEqual([
      { kind: 'range', start: undefined, stop: undefined, step: 1 },
    ]);
    expect(parseSlice('1::').items).toEqual([
      { kind: 'range', start: 1, stop: undefined, step: 1 },
    ]);
    expect(parseSlice('()').items).toEqual([]);
    expect(parseSlice('[]').items).toEqual([]);
    expect(parseSlice('').items).toEqual([]);
  });

  it('clamps absurd numbers and quotes them cut', () => {
    const [item] = parseSlice('99999999999999999999999999999999999999').items;
    expect(item).toEqual({
      kind: 'index',
      index: Number.MAX_SAFE_INTEGER,
      text: '999999999999999999999999…',
    });
    expect(parseSlice('-99999999999999999999:').items[0]).toMatchObject({
      start: -Number.MAX_SAFE_INTEGER,
    });
  });

  it.each([
    ['1:2:0', 'the step is 0 (it must not be) at column 5'],
    ['..., ...', "a second '...' (a slice holds at most one) at column 6"],
    ['[1:[2]]', 'brackets inside a slice'],
    ['1 2', "expected ',' or the end, got '2' at column 3"],
    ['a', "expected an integer, ':' or '...', got 'a' at column 1"],
    ['1,,2', 'two commas with no item between them at column 3'],
    [',', "got ',' at column 1"],
    ['-', 'expected digits after the sign at column 2'],
    ['[1:2', "expected ']' to close the slice"],
    ['(1)', "expected ')' (only the empty tuple () is read) at column 2"],
    ['1.5', "got '.' at column 2"],
    ['None', "got 'N' at column 1"],
  ])('refuses %j as a usage error naming the column', (text, message) => {
    const error = expectError(() => parseSlice(text));
    expect(error.code).toBe('E_USAGE');
    expect(error.message).toContain(message);
  });

  it('reads 10^5 commas in one pass and the fit refuses them in one line', () => {
    const text = Array.from({ length: 100_001 }, () => '0').join(',');
    const slice = parseSlice(text);
    expect(slice.items.length).toBe(100_001);
    const error = expectError(() => fitSlice(slice, [3, 4]));
    expect(error.code).toBe('E_SHAPE');
    expect(error.message).toBe(
      'slice: too many indices: the tensor has 2 dimensions, the slice indexes 100001',
    );
  });
});

describe('fitSlice', () => {
  it('clips bounds and refuses an index outside its axis, naming axis and size', () => {
    expect(fitSlice(parseSlice('99999999999999999999:'), [5]).shape).toEqual([0]);
    expect(fitSlice(parseSlice('-99999999999999999999:'), [5]).shape).toEqual([5]);
    expect(fitSlice(parseSlice('::-99999999999999999999'), [5]).axes).toEqual([
      { kind: 'range', start: 4, step: -Number.MAX_SAFE_INTEGER, count: 1 },
    ]);
    const error = expectError(() => fitSlice(parseSlice(':, -4'), [2, 3]));
    expect(error.code).toBe('E_INDEX_RANGE');
    expect(error.message).toBe('slice: index -4 is out of bounds for axis 1 with size 3');
  });

  it('takes only [...] and the empty index on a 0-d tensor', () => {
    expect(fitSlice(parseSlice('...'), []).shape).toEqual([]);
    expect(fitSlice(parseSlice('()'), []).shape).toEqual([]);
    expect(expectError(() => fitSlice(parseSlice('0'), [])).message).toBe(
      'slice: too many indices: the tensor has 0 dimensions, the slice indexes 1',
    );
    expect(expectError(() => fitSlice(parseSlice(':'), [])).code).toBe('E_SHAPE');
  });
});

describe('splitTrailingSlice', () => {
  it('takes the final balanced bracket group', () => {
    expect(splitTrailingSlice('m.safetensors:h.0.attn[0][1:2]')).toEqual({
      ref: 'm.safetensors:h.0.attn[0]',
      slice: '[1:2]',
    });
    expect(splitTrailingSlice('x.npy[1:[2]]')).toEqual({ ref: 'x.npy', slice: '[1:[2]]' });
    expect(splitTrailingSlice('x.npy')).toBeUndefined();
    expect(splitTrailingSlice('x.npy1:2]')).toBeUndefined();
    expect(splitTrailingSlice('[1:2]')).toBeUndefined();
  });
});

// --- The reader against a slow, obviously correct reference ---------------------------------

/** Positions Python's list slicing picks from range(size), by walking every candidate. */
function pythonPositions(
  size: number,
  start: number | undefined,
  stop: number | undefined,
  step: number,
): number[] {
  const all = Array.from({ length: size }, (_, i) => i);
  const norm = (v: number, low: number, high: number) =>
    Math.min(high, Math.max(low, v < 0 ? v + size : v));
  if (step > 0) {
    const a = start === undefined ? 0 : norm(start, 0, size);
    const b = stop === undefined ? size : norm(stop, 0, size);
    return all.filter((i) => i >= a && i < b && (i - a) % step === 0);
  }
  const a = start === undefined ? size - 1 : norm(start, -1, size - 1);
  const b = stop === undefined ? -1 : norm(stop, -1, size - 1);
  return all.filter((i) => i <= a && i > b && (a - i) % -step === 0).reverse();
}

type Item = { index: number } | { start?: number; stop?: number; step?: number } | '...';

function itemText(item: Item): string {
  if (item === '...') return '...';
  if ('index' in item) return String(item.index);
  const s = (v: number | undefined) => (v === undefined ? '' : String(v));
  return `${s(item.start)}:${s(item.stop)}${item.step === undefined ? '' : `:${item.step}`}`;
}

/** Element by element: each output element's source offset, from per-axis position lists. */
function referenceSlice(t: Tensor, items: readonly Item[]): Tensor {
  const rank = t.shape.length;
  const plain = items.filter((i) => i !== '...').length;
  const expanded: Item[] = [];
  for (const item of items) {
    if (item === '...') for (let k = plain; k < rank; k++) expanded.push({});
    else expanded.push(item);
  }
  while (expanded.length < rank) expanded.push({});
  const lists: { positions: number[]; keeps: boolean }[] = expanded.map((item, k) => {
    const size = t.shape[k] as number;
    if (item !== '...' && 'index' in item) {
      return { positions: [item.index < 0 ? item.index + size : item.index], keeps: false };
    }
    const r = item as { start?: number; stop?: number; step?: number };
    return { positions: pythonPositions(size, r.start, r.stop, r.step ?? 1), keeps: true };
  });
  const item = dtypeSize(t.dtype);
  const strides = t.shape.map((_, k) => t.shape.slice(k + 1).reduce((a, b) => a * b, 1));
  const out: number[] = [];
  const walk = (k: number, offset: number) => {
    if (k === rank) {
      for (let b = 0; b < item; b++) out.push(t.data[offset * item + b] as number);
      return;
    }
    const list = lists[k] as { positions: number[] };
    for (const p of list.positions) walk(k + 1, offset + p * (strides[k] as number));
  };
  walk(0, 0);
  return {
    dtype: t.dtype,
    shape: lists.filter((l) => l.keeps).map((l) => l.positions.length),
    data: new Uint8Array(out),
  };
}

const DTYPES: readonly Dtype[] = ['uint8', 'int16', 'float32', 'float64', 'bfloat16', 'complex64'];

const tensorArb = fc
  .record({
    dtype: fc.constantFrom(...DTYPES),
    shape: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 0, maxLength: 4 }),
    seed: fc.integer({ min: 0, max: 255 }),
  })
  .map(({ dtype, shape, seed }): Tensor => {
    const n = shape.reduce((a, b) => a * b, 1) * dtypeSize(dtype);
    const data = new Uint8Array(n);
    for (let i = 0; i < n; i++) data[i] = (i * 31 + seed) & 0xff;
    return { dtype, shape, data };
  });

const bound = fc.option(fc.integer({ min: -8, max: 8 }), { nil: undefined });

/** A slice that fits `shape`: ranges of any bounds, in-range indices, at most one `...`. */
function sliceArb(shape: readonly number[]): fc.Arbitrary<Item[]> {
  const axisItem = (size: number): fc.Arbitrary<Item> => {
    const range = fc.record(
      {
        start: bound,
        stop: bound,
        step: fc.option(
          fc.integer({ min: -4, max: 4 }).filter((s) => s !== 0),
          { nil: undefined },
        ),
      },
      { requiredKeys: [] },
    );
    if (size === 0) return range;
    return fc.oneof(
      range,
      fc.integer({ min: -size, max: size - 1 }).map((index) => ({ index })),
    );
  };
  // `count` items; with `...` at `at`, the items after it index the last axes.
  return fc
    .tuple(fc.integer({ min: 0, max: shape.length }), fc.nat(), fc.boolean())
    .chain(([count, at0, ellipsis]) => {
      const at = ellipsis ? at0 % (count + 1) : count;
      const axisOf = (k: number) => (k < at ? k : shape.length - count + k);
      const items = Array.from({ length: count }, (_, k) => axisItem(shape[axisOf(k)] as number));
      return fc
        .tuple(...items)
        .map((picked) =>
          ellipsis ? [...picked.slice(0, at), '...' as const, ...picked.slice(at)] : picked,
        );
    });
}

async function sliceOfFile(file: TensorFile, text: string): Promise<Tensor> {
  const stored = file.get(file.format === 'npy' ? undefined : 'x');
  const fitted = fitSlice(parseSlice(text), stored.shape);
  return collectStream(sliceOfStored(file, stored, fitted));
}

describe('sliceOfStored reads what the reference picks', () => {
  it('on .npy, .safetensors, .npz (stored and deflated), a Blob, and in memory', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        tensorArb.chain((t) => fc.tuple(fc.constant(t), sliceArb(t.shape))),
        fc.constantFrom('npy', 'safetensors', 'npz', 'npz-deflate', 'blob'),
        async ([t, items], where) => {
          const text = items.map(itemText).join(', ');
          const expected = referenceSlice(t, items);
          const inMemory = sliceOfTensor(t, fitSlice(parseSlice(text), t.shape));
          expect(inMemory).toEqual({ ...expected, data: expected.data });
          // .npy and .npz have no bfloat16.
          if (where.startsWith('np') && t.dtype === 'bfloat16') return;
          const ext = where === 'blob' ? 'safetensors' : where.replace('-deflate', '');
          const path = join(dir, `p${n++}.${ext}`);
          await writeTensorFile(path, t, {
            name: 'x',
            compress: where === 'npz-deflate',
            widen: false,
          });
          const file =
            where === 'blob'
              ? await openTensorBlob(new Blob([readFileSync(path)]), { label: path })
              : await openTensorFile(path);
          try {
            const got = await sliceOfFile(file, text);
            expect(got.shape).toEqual(expected.shape);
            expect(got.dtype).toBe(t.dtype);
            expect(Buffer.from(got.data).equals(Buffer.from(expected.data))).toBe(true);
          } finally {
            await file.close();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Runs `check` on `path` opened as a file and as a Blob (which reads by batches of ranges). */
async function onFileAndBlob(path: string, check: (file: TensorFile) => Promise<void>) {
  const opens = [
    () => openTensorFile(path),
    () => openTensorBlob(new Blob([readFileSync(path)]), { label: path }),
  ];
  for (const open of opens) {
    const file = await open();
    try {
      await check(file);
    } finally {
      await file.close();
    }
  }
}

describe('sliceOfStored reads only the bytes the slice needs', () => {
  const ROWS = 4096;
  const COLS = 64;
  const table = (): Tensor => {
    const values = new Float32Array(ROWS * COLS).map((_, i) => i * 0.5);
    return { dtype: 'float32', shape: [ROWS, COLS], data: new Uint8Array(values.buffer) };
  };

  it('over HTTP: 10 rows of every other column of a 1 MiB table, in one request', async () => {
    const t = table();
    await writeTensorFile(join(dir, 'table.safetensors'), t, { name: 'x' });
    const server = await serveFolder(dir);
    const file = await openTensorFile(`${server.url}/table.safetensors`);
    try {
      const afterHeader = server.requests.length;
      const sentBefore = bytesSent(server);
      const got = await sliceOfFile(file, '1000:1010, ::2');
      expect(
        Buffer.from(got.data).equals(
          Buffer.from(referenceSlice(t, [{ start: 1000, stop: 1010 }, { step: 2 }]).data),
        ),
      ).toBe(true);
      expect(server.requests.length - afterHeader).toBe(1);
      // The ten rows' span (the columns between are fetched along), not the table.
      expect(bytesSent(server) - sentBefore).toBe(10 * COLS * 4 - 4);
    } finally {
      await file.close();
      await server.close();
    }
  });

  it('across output chunks: runs longer than a chunk, rows reversed', async () => {
    // 3 rows of 3 MiB: the result of [::-1, 1:] is two 8 MiB chunks cut inside a run.
    const cols = 3 << 18;
    const values = new Float32Array(3 * cols).map((_, i) => i);
    const t: Tensor = { dtype: 'float32', shape: [3, cols], data: new Uint8Array(values.buffer) };
    const path = join(dir, 'wide.safetensors');
    await writeTensorFile(path, t, { name: 'x' });
    const file = await openTensorFile(path);
    try {
      const got = await sliceOfFile(file, '::-1, 1:');
      const expected = referenceSlice(t, [{ step: -1 }, { start: 1 }]);
      expect(got.shape).toEqual([3, cols - 1]);
      expect(Buffer.from(got.data).equals(Buffer.from(expected.data))).toBe(true);
    } finally {
      await file.close();
    }
  });

  it('more runs than one chunk keeps, on a file and a Blob', async () => {
    // 300,000 runs of one element each: the chunks close at MAX_FILLS runs.
    const n = 900_000;
    const t: Tensor = {
      dtype: 'int32',
      shape: [n],
      data: new Uint8Array(new Int32Array(n).map((_, i) => i * 3 + 1).buffer),
    };
    const path = join(dir, 'long.npy');
    await writeTensorFile(path, t);
    const expected = referenceSlice(t, [{ start: -2, step: -3 }]);
    await onFileAndBlob(path, async (file) => {
      const got = await sliceOfFile(file, '-2::-3');
      expect(got.shape).toEqual([300_000]);
      expect(Buffer.from(got.data).equals(Buffer.from(expected.data))).toBe(true);
    });
  });

  it('runs too far apart for one span, each read alone, on a file and a Blob', async () => {
    // Every 1100th element of a row: 4400 bytes apart, more than 4 KiB.
    const t: Tensor = {
      dtype: 'float32',
      shape: [40, 5000],
      data: new Uint8Array(new Float32Array(40 * 5000).map((_, i) => i).buffer),
    };
    const path = join(dir, 'rows.safetensors');
    await writeTensorFile(path, t, { name: 'x' });
    await onFileAndBlob(path, async (file) => {
      for (const [text, items] of [
        ['::-1, ::1100', [{ step: -1 }, { step: 1100 }]],
        [
          '1::2, 4000::-1100',
          [
            { start: 1, step: 2 },
            { start: 4000, step: -1100 },
          ],
        ],
        ['::-1, 3', [{ step: -1 }, { index: 3 }]],
      ] as const) {
        const got = await sliceOfFile(file, text);
        const expected = referenceSlice(t, items as unknown as Item[]);
        expect(got.shape).toEqual(expected.shape);
        expect(Buffer.from(got.data).equals(Buffer.from(expected.data)), text).toBe(true);
      }
    });
  });

  it('a column of a 32 MiB table: its spans read in batches, on a file and a Blob', async () => {
    const t: Tensor = {
      dtype: 'float32',
      shape: [8192, 1024],
      data: new Uint8Array(new Float32Array(8192 * 1024).map((_, i) => i).buffer),
    };
    const path = join(dir, 'table.npy');
    await writeTensorFile(path, t);
    const expected = referenceSlice(t, [{}, { index: 5 }]);
    await onFileAndBlob(path, async (file) => {
      const got = await sliceOfFile(file, ':, 5');
      expect(Buffer.from(got.data).equals(Buffer.from(expected.data))).toBe(true);
    });
  });

  it('in a sharded checkpoint, from the shard that holds the tensor', async () => {
    const shards = await mkdtemp(join(dir, 'sharded-'));
    copyShardedCheckpoint(shards);
    const file = await openTensorFile(join(shards, checkpointsManifest.index));
    try {
      for (const e of checkpointsManifest.tensors.filter((x) => x.shape.length === 2)) {
        const t: Tensor = { dtype: e.dtype as Dtype, shape: e.shape, data: base64(e.b64) };
        const stored = file.get(e.name);
        const fitted = fitSlice(parseSlice('-3:, 1::3'), stored.shape);
        const got = await collectStream(sliceOfStored(file, stored, fitted));
        const expected = referenceSlice(t, [{ start: -3 }, { start: 1, step: 3 }]);
        expect(Buffer.from(got.data).equals(Buffer.from(expected.data)), e.name).toBe(true);
      }
    } finally {
      await file.close();
    }
  });
});
