import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hex } from '../../test/assert.js';
import { referenceGather } from '../../test/reference.js';
import { randomData } from '../../test/reference-elements-nd.js';
import type { Dtype } from '../dtype.js';
import { gather, gatherStrategy, planGather, runGatherPlan } from '../gather.js';
import { createTensor, tensorFrom } from '../tensor.js';
import { gatherWasm } from './gather.js';
import { setWasmKernelsEnabled } from './instantiate.js';

// The wasm kernels on for outputs of any size, so that these small cases run them.
beforeEach(() => setWasmKernelsEnabled(true, 0));
afterEach(() => setWasmKernelsEnabled(true));

/** Staging so small that every row is its own step. */
const TINY = { stepBytes: 8, tileBytes: 8, minSliceBytes: 1 };

// Gathers along the last axis ([batch dims, outer dims, axis], one-item blocks): the plans that
// gather() sends to the wasm kernel when they are dense.
const lastAxisCase = fc
  .record({
    shape: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 3 }),
    batchDraw: fc.nat(),
    perBatch: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 0, maxLength: 2 }),
    dtype: fc.constantFrom<Dtype>('uint8', 'bool', 'float16', 'float32', 'int64', 'float64'),
    indexDtype: fc.constantFrom('int32' as const, 'int64' as const, 'uint8' as const),
    seed: fc.integer(),
  })
  .chain((c) => {
    const axis = c.shape.length - 1;
    const batchDims = c.batchDraw % (axis + 1);
    const indexShape = [...c.shape.slice(0, batchDims), ...c.perBatch];
    const n = indexShape.reduce((a, b) => a * b, 1);
    const size = c.shape[axis] as number;
    return fc
      .array(fc.integer({ min: -size, max: size - 1 }), { minLength: n, maxLength: n })
      .map((values) => ({ ...c, axis, batchDims, indexShape, values }));
  });

describe('Gather through the wasm take kernel', () => {
  it('equals the JavaScript walk and the reference, in one step per row and as gather() runs it', () => {
    fc.assert(
      fc.property(lastAxisCase, (c) => {
        const data = randomData(c.dtype, c.shape, c.seed);
        const values = c.indexDtype === 'uint8' ? c.values.map((v) => Math.max(v, 0)) : c.values;
        const indices = tensorFrom(c.indexDtype, c.indexShape, values);
        const options = { axis: c.axis, batchDims: c.batchDims };
        const ref = referenceGather(data, indices, options);
        if (!ref.ok) throw new Error(ref.message);
        const want = hex(ref.tensor.data);
        const plan = planGather(data, indices, options);
        const js = createTensor(c.dtype, plan.outShape);
        runGatherPlan(plan, data.data, js.data);
        expect(hex(js.data)).toBe(want);
        const tiny = createTensor(c.dtype, plan.outShape);
        expect(gatherWasm(plan, data.data, tiny.data, TINY)).toBe(true);
        expect(hex(tiny.data)).toBe(want);
        expect(hex(gather(data, indices, options).data)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('a dense row gather with batch dims is touch-rows and gives the reference bytes with wasm on and off', () => {
    const data = randomData('float32', [4, 8, 512], 1);
    const values = Array.from({ length: 4 * 256 }, (_, i) => (i * 7919) % 512);
    const indices = tensorFrom('int64', [4, 256], values);
    const options = { axis: 2, batchDims: 1 };
    expect(gatherStrategy(planGather(data, indices, options))).toBe('touch-rows');
    const ref = referenceGather(data, indices, options);
    if (!ref.ok) throw new Error(ref.message);
    for (const on of [true, false]) {
      setWasmKernelsEnabled(on, 0);
      expect(hex(gather(data, indices, options).data)).toBe(hex(ref.tensor.data));
    }
  });

  it('declines blocks the kernel has no width for, and runs nothing when turned off', () => {
    const wide = randomData('complex128', [2, 3], 2);
    const plan = planGather(wide, tensorFrom('int32', [2], [2, 0]), { axis: 1 });
    expect(gatherWasm(plan, wide.data, new Uint8Array(64))).toBe(false);
    const data = randomData('float32', [2, 3], 3);
    const small = planGather(data, tensorFrom('int32', [2], [2, 0]), { axis: 1 });
    setWasmKernelsEnabled(false);
    const dst = new Uint8Array(16);
    expect(gatherWasm(small, data.data, dst)).toBe(false);
    expect(hex(dst)).toBe('00'.repeat(16));
  });
});
