import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hex, thrown } from '../../test/assert.js';
import { tensorAt } from '../../test/fixtures.js';
import {
  indexDraws,
  indexValue,
  randomData,
  refGatherElements,
} from '../../test/reference-elements-nd.js';
import type { Dtype } from '../dtype.js';
import { createTensor, type Tensor, tensorFrom } from '../tensor.js';
import { gatherElementsWasm } from '../wasm/gather-elements.js';
import { setWasmKernelsEnabled } from '../wasm/instantiate.js';
import { wasmKernels } from '../wasm/runtime.js';
import { fusedWalk, gatherElements, planGatherElements, runGatherElementsPlan } from './index.js';

// The wasm kernels on for outputs of any size, so that these small cases run them.
beforeEach(() => setWasmKernelsEnabled(true, 0));
afterEach(() => setWasmKernelsEnabled(true));

/** gatherElements with the wasm kernels on or off (the JavaScript fused loops). */
function run(wasm: boolean, data: Tensor, indices: Tensor, axis: number, out?: Tensor): Tensor {
  setWasmKernelsEnabled(wasm, 0);
  try {
    return gatherElements(data, indices, { axis, out });
  } finally {
    setWasmKernelsEnabled(true, 0);
  }
}

/** The planned path (decodeIndices + copy), which gatherElements skips when a fused one applies. */
function planned(data: Tensor, indices: Tensor, axis: number): Tensor {
  const plan = planGatherElements(data, indices, { axis });
  const out = createTensor(data.dtype, plan.outShape);
  runGatherElementsPlan(plan, data.data, out.data);
  return out;
}

/** Staging so small that every walk takes many steps and, for inner > 1, many column tiles. */
const TINY = { stepBytes: 48, tileBytes: 40, minSliceBytes: 8 };

// Shapes large enough for the 8-wide (axis last) and 4-wide (tiled) JS groups and their tails;
// off-axis dims before the axis may be smaller than data's (inner dims must match for the fused
// paths), which makes outer rows that are not adjacent in data.
const fusedCase = fc
  .record({
    dataShape: fc.array(fc.integer({ min: 1, max: 19 }), { minLength: 1, maxLength: 3 }),
    axisDraw: fc.nat(),
    dtype: fc.constantFrom<Dtype>(
      'float32',
      'int32',
      'int16',
      'uint8',
      'float16',
      'float64',
      'int64',
      'bool',
    ),
    indexDtype: fc.constantFrom('int32' as const, 'int64' as const),
    seed: fc.integer(),
    shrink: fc.nat(),
    indicesAxisSize: fc.integer({ min: 0, max: 21 }),
  })
  .chain((base) => {
    const r = base.dataShape.length;
    const axis = base.axisDraw % r;
    const indexShape = base.dataShape.map((d, i) =>
      i === axis ? base.indicesAxisSize : i < axis ? 1 + ((base.shrink + i) % d) : d,
    );
    const n = indexShape.reduce((x, y) => x * y, 1);
    return indexDraws(n).map((draws) => ({
      ...base,
      axis,
      indexShape,
      values: draws.map((d) => indexValue(d, base.dataShape[axis] as number, base.indexDtype)),
    }));
  });

describe('gatherElements: the fused paths (wasm, JavaScript) equal the planned path and the reference', () => {
  it('runs the wasm kernels in Node (so the cases below compare two different paths)', () => {
    expect(wasmKernels(1)).not.toBeNull();
  });

  it('bytes, and the same first out-of-range error in C order', () => {
    fc.assert(
      fc.property(fusedCase, (c) => {
        const data = randomData(c.dtype, c.dataShape, c.seed);
        const indices = tensorFrom(c.indexDtype, c.indexShape, c.values);
        const ref = refGatherElements(data, indices, c.axis, 'error');
        const walk = fusedWalk(data, indices, { axis: c.axis });
        expect(walk).not.toBeNull();
        // The wasm walk alone, with staging so small that it takes many steps and tiles.
        const runTiny = () => {
          const out = createTensor(c.dtype, c.indexShape);
          const w = walk as NonNullable<typeof walk>;
          return { out, result: gatherElementsWasm(w, data.data, indices.data, out.data, TINY) };
        };
        if (ref.ok) {
          const want = hex(ref.tensor.data);
          for (const wasm of [true, false]) {
            const out = run(wasm, data, indices, c.axis);
            expect(out.shape).toEqual(ref.tensor.shape);
            expect(hex(out.data)).toBe(want);
            const into = createTensor(c.dtype, c.indexShape);
            into.data.fill(0xa5);
            expect(run(wasm, data, indices, c.axis, into)).toBe(into);
            expect(hex(into.data)).toBe(want);
          }
          expect(hex(planned(data, indices, c.axis).data)).toBe(want);
          const tiny = runTiny();
          expect(tiny.result).toBe('done');
          expect(hex(tiny.out.data)).toBe(want);
          return;
        }
        for (const wasm of [true, false]) {
          const e = thrown(() => run(wasm, data, indices, c.axis));
          expect(e).toEqual({ code: 'E_INDEX_RANGE', message: ref.message });
        }
        expect(thrown(() => planned(data, indices, c.axis)).message).toBe(ref.message);
        expect(runTiny().result).toBe('invalid');
      }),
      { numRuns: 300 },
    );
  });

  it('rejects int64 values whose high word is not the sign extension of the low word', () => {
    const data = randomData('float32', [2, 12], 3);
    for (const bad of [
      2n ** 32n + 1n,
      -(2n ** 32n) + 1n,
      2n ** 31n,
      -(2n ** 31n) - 1n,
      2n ** 63n - 1n,
      -(2n ** 63n),
    ]) {
      for (const at of [0, 7, 8, 11, 23]) {
        const values = new Array<bigint>(24).fill(1n);
        values[at] = bad;
        values[23] = values[23] === 1n ? -12n : (values[23] as bigint);
        const indices = tensorFrom('int64', [2, 12], values);
        for (const axis of [1, 0]) {
          const dataA = axis === 1 ? data : randomData('float32', [12, 2], 5);
          const idxA = axis === 1 ? indices : tensorFrom('int64', [12, 2], values);
          const row = axis === 1 ? Math.floor(at / 12) : Math.floor(at / 2);
          const col = axis === 1 ? at % 12 : at % 2;
          for (const wasm of [true, false]) {
            expect(thrown(() => run(wasm, dataA, idxA, axis)).message).toBe(
              `GatherElements: index ${bad} out of range [-12, 11] at indices[${row},${col}] (axis=${axis})`,
            );
          }
        }
      }
    }
  });

  it('maps negative indices; oob zero, other index dtypes and odd item sizes take the planned path', () => {
    const data = tensorFrom('int32', [9], [10, 11, 12, 13, 14, 15, 16, 17, 18]);
    const idx = tensorFrom('int64', [9], [-1, -9, 0, 8, -2, 3, 4, 5, -5]);
    for (const wasm of [true, false]) {
      expect([...new Int32Array(run(wasm, data, idx, 0).data.buffer)]).toEqual([
        18, 10, 10, 18, 17, 13, 14, 15, 14,
      ]);
      // unaligned data: no JS fused loop (word width 1); the wasm kernel does not care
      expect(hex(run(wasm, tensorAt(data, 1), idx, 0).data)).toBe(
        hex(run(true, data, idx, 0).data),
      );
    }
    expect(fusedWalk(data, idx, { oob: 'zero' })).toBeNull();
    expect(fusedWalk(data, tensorFrom('int16', [9], [0, 0, 0, 0, 0, 0, 0, 0, 0]), {})).toBeNull();
    expect(fusedWalk(createTensor('complex128', [9]), idx, {})).toBeNull(); // 16-byte items
  });

  it('keeps every bit of float64 and int64 items (NaN payloads, -0, beyond 2^53)', () => {
    const bits = [0x7ff0000000000001n, 0xfff8dead0000beefn, 0x8000000000000000n, 2n ** 53n + 1n];
    const data = createTensor('float64', [4]);
    const view = new DataView(data.data.buffer);
    for (const [i, b] of bits.entries()) view.setBigUint64(i * 8, b, true);
    const out = gatherElements(data, tensorFrom('int32', [6], [3, 2, 1, 0, -1, -4]));
    const got = [0, 1, 2, 3, 4, 5].map((i) =>
      new DataView(out.data.buffer).getBigUint64(i * 8, true),
    );
    expect(got).toEqual([bits[3], bits[2], bits[1], bits[0], bits[3], bits[0]]);
  });
});

describe('the out option', () => {
  const data = tensorFrom('int32', [2, 3], [1, 2, 3, 4, 5, 6]);
  const idx = tensorFrom('int64', [2, 2], [2, 0, 1, 1]);

  it('writes into the given tensor and returns it', () => {
    const out = createTensor('int32', [2, 2]);
    expect(gatherElements(data, idx, { axis: 1, out })).toBe(out);
    expect([...new Int32Array(out.data.buffer)]).toEqual([3, 1, 5, 5]);
  });

  it('zero-fills out-of-range elements of a dirty out with oob zero', () => {
    const out = createTensor('int32', [2, 2]);
    out.data.fill(0xff);
    gatherElements(data, tensorFrom('int64', [2, 2], [2, 7, -9, 1]), { axis: 1, oob: 'zero', out });
    expect([...new Int32Array(out.data.buffer)]).toEqual([3, 0, 0, 5]);
  });

  it('refuses an out of the wrong dtype, shape or size, or one that overlaps an input', () => {
    const cases: Array<[Tensor, string]> = [
      [createTensor('float32', [2, 2]), 'out must be int32 [2,2], got float32 [2,2]'],
      [createTensor('int32', [4]), 'out must be int32 [2,2], got int32 [4]'],
      [
        { dtype: 'int32', shape: [2, 2], data: new Uint8Array(8) },
        'out of dtype int32 and shape [2,2] needs 16 bytes, got 8',
      ],
      [
        { dtype: 'int32', shape: [2, 2], data: data.data.subarray(8, 24) },
        'out must not share bytes with an input',
      ],
    ];
    for (const [out, message] of cases) {
      expect(thrown(() => gatherElements(data, idx, { axis: 1, out }))).toEqual({
        code: 'E_SHAPE',
        message: `GatherElements: ${message}`,
      });
    }
  });
});
