import { describe, expect, it } from 'vitest';
import { loadGatherCases, tensorAt } from '../test/fixtures.js';
import { referenceGather } from '../test/reference.js';
import { gather } from './gather.js';

// Golden cases from numpy (scripts/fixtures/gather.py): np.take over every numpy dtype, ranks
// 1-4, every axis, batch_dims, scalar / boundary / negative indices and 0-size dimensions.
const cases = loadGatherCases();

describe('gather matches numpy golden fixtures', () => {
  it('loads a non-trivial fixture set', () => {
    expect(cases.length).toBeGreaterThan(250);
    const dtypes = new Set(cases.map((c) => c.data.dtype));
    for (const d of ['bool', 'uint64', 'float16', 'complex128', 'U3', 'S2'])
      expect(dtypes).toContain(d);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const out = gather(c.data, c.indices, { axis: c.axis, batchDims: c.batchDims });
    expect(out.dtype).toBe(c.expected.dtype);
    expect(out.shape).toEqual(c.expected.shape);
    expect(Buffer.from(out.data).toString('hex')).toBe(
      Buffer.from(c.expected.data).toString('hex'),
    );
  });

  it('gives the same bytes with data and indices at odd byte offsets', () => {
    for (const [n, c] of cases.entries()) {
      const out = gather(tensorAt(c.data, 1 + (n % 7)), tensorAt(c.indices, 1 + ((n * 3) % 7)), {
        axis: c.axis,
        batchDims: c.batchDims,
      });
      expect(out.data, c.name).toEqual(c.expected.data);
    }
  });

  it('the slow reference agrees with numpy too (so the property tests rest on solid ground)', () => {
    for (const c of cases) {
      const ref = referenceGather(c.data, c.indices, { axis: c.axis, batchDims: c.batchDims });
      if (!ref.ok) throw new Error(`${c.name}: ${ref.message}`);
      expect(ref.tensor.shape, c.name).toEqual(c.expected.shape);
      expect(ref.tensor.data, c.name).toEqual(c.expected.data);
    }
  });
});
