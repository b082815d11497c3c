// The kernel workloads W1-W7. Each one builds its inputs from a fixed seed and says
// how tensorops, numpy (bench/numpy-peer.py) and onnxruntime compute the same output.
import { createTensor } from '../../packages/core/dist/index.js';
import { randomBits, randomInt32, randomInt64 } from './data.mjs';

/**
 * Sizes: full (the issue's) and --quick (a smoke test of the harness, well under a minute).
 * `kernel(api)` returns the tensorops call (fresh output, the public function) or undefined when
 * that package/export is not built yet; the workload then prints "n/a (not built)".
 * `into(api)` returns the same work into a caller's preallocated output (the ops' `out` option),
 * the counterpart of np.take(..., out=) and of onnxruntime's preallocated outputs.
 */
export const WORKLOADS = [
  {
    id: 'W1',
    title: ({ n, c }) => `gather axis 0, f32 [${n},${c}], i64 [${n}]`,
    sizes: { full: { n: 1_000_000, c: 64 }, quick: { n: 50_000, c: 64 } },
    make: ({ n, c }) => ({
      data: randomBits('float32', [n, c], 1),
      indices: randomInt64([n], n, 2),
    }),
    kernel: (api) => api.core?.gather && ((x) => api.core.gather(x.data, x.indices, { axis: 0 })),
    into: (api) => opInto(api, 'gather', { axis: 0 }),
    numpy: { op: 'gather', params: { axis: 0, batchDims: 0 } },
    ort: () => ({ op: 'Gather', attrs: { axis: 0 } }),
  },
  {
    id: 'W2',
    title: ({ n, r }) => `gather axis 1, f32 [${r},${n}], i64 [${n}]`,
    sizes: { full: { n: 1_000_000, r: 64 }, quick: { n: 50_000, r: 64 } },
    make: ({ n, r }) => ({
      data: randomBits('float32', [r, n], 3),
      indices: randomInt64([n], n, 4),
    }),
    kernel: (api) => api.core?.gather && ((x) => api.core.gather(x.data, x.indices, { axis: 1 })),
    into: (api) => opInto(api, 'gather', { axis: 1 }),
    numpy: { op: 'gather', params: { axis: 1, batchDims: 0 } },
    ort: () => ({ op: 'Gather', attrs: { axis: 1 } }),
  },
  {
    id: 'W3',
    title: ({ b, o, a, j }) => `gather axis 2 batch_dims 1, f32 [${b},${o},${a}], i64 [${b},${j}]`,
    sizes: {
      full: { b: 32, o: 128, a: 4096, j: 2048 },
      quick: { b: 8, o: 64, a: 1024, j: 512 },
    },
    make: ({ b, o, a, j }) => ({
      data: randomBits('float32', [b, o, a], 5),
      indices: randomInt64([b, j], a, 6),
    }),
    kernel: (api) =>
      api.core?.gather && ((x) => api.core.gather(x.data, x.indices, { axis: 2, batchDims: 1 })),
    into: (api) => opInto(api, 'gather', { axis: 2, batchDims: 1 }),
    numpy: { op: 'gather', params: { axis: 2, batchDims: 1 } },
    // ONNX Gather has no batch_dims: GatherElements on axis 2 with the indices broadcast over
    // dim 1 computes the same output. The broadcast copy is made before timing (in onnxruntime's
    // favour).
    ort: (x) => ({
      op: 'GatherElements',
      attrs: { axis: 2 },
      inputs: { data: x.data, indices: broadcastBatchIndices(x.indices, x.data.shape[1]) },
      note: 'GatherElements on indices pre-broadcast to [b,o,j]',
    }),
  },
  {
    id: 'W4',
    title: ({ n }) => `gather-elements axis 1, f32 [${n},${n}], i64 [${n},${n}]`,
    sizes: { full: { n: 4096 }, quick: { n: 1024 } },
    make: ({ n }) => ({
      data: randomBits('float32', [n, n], 7),
      indices: randomInt64([n, n], n, 8),
    }),
    kernel: (api) =>
      api.core?.gatherElements && ((x) => api.core.gatherElements(x.data, x.indices, { axis: 1 })),
    into: (api) => opInto(api, 'gatherElements', { axis: 1 }),
    numpy: { op: 'gather_elements', params: { axis: 1 } },
    ort: () => ({ op: 'GatherElements', attrs: { axis: 1 } }),
  },
  {
    id: 'W5',
    title: ({ n }) => `gather-elements axis 0, f32 [${n},${n}], i64 [${n},${n}]`,
    sizes: { full: { n: 4096 }, quick: { n: 1024 } },
    make: ({ n }) => ({
      data: randomBits('float32', [n, n], 9),
      indices: randomInt64([n, n], n, 10),
    }),
    kernel: (api) =>
      api.core?.gatherElements && ((x) => api.core.gatherElements(x.data, x.indices, { axis: 0 })),
    into: (api) => opInto(api, 'gatherElements', { axis: 0 }),
    numpy: { op: 'gather_elements', params: { axis: 0 } },
    ort: () => ({ op: 'GatherElements', attrs: { axis: 0 } }),
  },
  {
    id: 'W6',
    title: ({ s, m }) => `gather-nd f32 [${s},${s},${s}], i64 [${m},2]`,
    sizes: { full: { s: 256, m: 500_000 }, quick: { s: 64, m: 100_000 } },
    make: ({ s, m }) => ({
      data: randomBits('float32', [s, s, s], 11),
      indices: randomInt64([m, 2], s, 12),
    }),
    kernel: (api) => api.core?.gatherND && ((x) => api.core.gatherND(x.data, x.indices)),
    into: (api) => opInto(api, 'gatherND', {}),
    numpy: { op: 'gather_nd', params: {} },
    ort: () => ({ op: 'GatherND', attrs: { batch_dims: 0 } }),
  },
  {
    id: 'W7',
    title: ({ t, b, k }) => `gather-tree i32 [${t},${b},${k}]`,
    sizes: { full: { t: 256, b: 256, k: 16 }, quick: { t: 64, b: 64, k: 16 } },
    make: ({ t, b, k }) => ({
      // A small vocabulary so that end tokens (id 1) occur and the end-token pass has work.
      step: randomInt32([t, b, k], 0, 1000, 13),
      parent: randomInt32([t, b, k], 0, k, 14),
      len: randomInt32([b], Math.floor(t / 2), t + 1, 15),
      end: 1,
    }),
    kernel: (api) =>
      api.gatherTree?.gatherTree &&
      ((x) => api.gatherTree.gatherTree(x.step, x.parent, x.len, x.end)),
    into: (api) =>
      api.gatherTree?.gatherTree &&
      api.core?.createTensor &&
      ((x, dst, shape) =>
        api.gatherTree.gatherTree(x.step, x.parent, x.len, x.end, {
          out: api.core.createTensor(x.step.dtype, shape, dst),
        })),
    numpy: { op: 'gather_tree', params: { end: 1 } },
    ort: null, // no ONNX operator (GatherTree is OpenVINO / TF Addons only)
  },
];

/**
 * The op writing into `dst` through its `out` option, as a caller reusing outputs would. The
 * output tensor wraps `dst` with the shape of the op's fresh output (`shape`, filled in by the
 * harness from the first fresh call). Index checks stay inside the timed call.
 */
function opInto(api, name, opts) {
  const op = api.core?.[name];
  if (!op || !api.core.createTensor) return undefined;
  return (x, dst, shape) =>
    op(x.data, x.indices, { ...opts, out: api.core.createTensor(x.data.dtype, shape, dst) });
}

/** [b, j] int64 indices repeated over a new dim 1 of size `o`: [b, o, j], copied as bytes. */
function broadcastBatchIndices(indices, o) {
  const [b, j] = indices.shape;
  const out = createTensor('int64', [b, o, j]);
  const row = j * 8;
  for (let bi = 0; bi < b; bi++) {
    const src = indices.data.subarray(bi * row, (bi + 1) * row);
    for (let oi = 0; oi < o; oi++) out.data.set(src, (bi * o + oi) * row);
  }
  return out;
}
