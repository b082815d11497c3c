// Deterministic inputs for the workloads, .npy files for the peers, and output digests.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { createTensor } from '../../packages/core/dist/index.js';
import { encodeNpyHeader } from '../../packages/io/dist/index.js';

/** xorshift32: the same seed gives the same tensors on every machine and every run. */
export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

/**
 * Random 32-bit patterns, whatever the dtype: float data then holds NaNs with payloads,
 * signalling NaNs, -0 and subnormals, so every peer must copy bits, not values, to verify.
 */
export function randomBits(dtype, shape, seed) {
  const t = createTensor(dtype, shape);
  const words = new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength >>> 2);
  const next = rng(seed);
  for (let i = 0; i < words.length; i++) words[i] = next();
  return t;
}

/** float32 values uniform in [lo, hi), as an embedding table holds them (no NaN, no extremes). */
export function randomFloat32(shape, lo, hi, seed) {
  const t = createTensor('float32', shape);
  const v = new Float32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength >>> 2);
  const next = rng(seed);
  for (let i = 0; i < v.length; i++) v[i] = lo + (next() / 2 ** 32) * (hi - lo);
  return t;
}

/** int64 indices uniform in [0, bound) (bound < 2^32): low words random, high words zero. */
export function randomInt64(shape, bound, seed) {
  const t = createTensor('int64', shape);
  const words = new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength >>> 2);
  const next = rng(seed);
  for (let i = 0; i < words.length; i += 2) words[i] = next() % bound;
  return t;
}

/** int32 values uniform in [lo, hi). */
export function randomInt32(shape, lo, hi, seed) {
  const t = createTensor('int32', shape);
  const v = new Int32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength >>> 2);
  const next = rng(seed);
  for (let i = 0; i < v.length; i++) v[i] = lo + (next() % (hi - lo));
  return t;
}

export function writeNpy(path, tensor) {
  writeSynced(path, [encodeNpyHeader(tensor), tensor.data]);
}

/**
 * A .npy of `shape` whose 32-bit words are drawn from rng(seed), written 64 MiB at a time, so that
 * a table of gigabytes never sits whole in this process. `fill(words, next)` fills one piece
 * (default: every word random; the same bytes as randomBits).
 */
export function writeRandomNpy(path, dtype, shape, seed, fill = fillBits) {
  const header = encodeNpyHeader({ dtype, shape });
  const words = (shape.reduce((a, b) => a * b, 1) * (dtype === 'int64' ? 8 : 4)) / 4;
  const piece = new Uint32Array(Math.min(words, 16 << 20));
  const next = rng(seed);
  writeSynced(path, [header], (write) => {
    for (let done = 0; done < words; done += piece.length) {
      const view = piece.subarray(0, Math.min(piece.length, words - done));
      fill(view, next);
      write(new Uint8Array(view.buffer, 0, view.byteLength));
    }
  });
}

const fillBits = (words, next) => {
  for (let i = 0; i < words.length; i++) words[i] = next();
};

/** A writeRandomNpy fill for int64 ids in [0, bound) (bound < 2^32), as randomInt64 draws them. */
export const idsBelow = (bound) => (words, next) => {
  for (let i = 0; i < words.length; i += 2) {
    words[i] = next() % bound;
    words[i + 1] = 0;
  }
};

/** A text file (UTF-8), on disk before anything is timed (see writeSynced). */
export function writeText(path, text) {
  writeSynced(path, [Buffer.from(text)]);
}

/** Writes `parts`, then what `more(write)` writes, and syncs the file. */
function writeSynced(path, parts, more = () => {}) {
  const fd = openSync(path, 'w');
  const write = (bytes) => {
    // writeSync caps one call at 2 GiB; loop for the large ones.
    for (let off = 0; off < bytes.byteLength; ) {
      off += writeSync(fd, bytes, off, Math.min(1 << 30, bytes.byteLength - off));
    }
  };
  try {
    for (const bytes of parts) write(bytes);
    more(write);
    // On disk before anything is timed: the kernel writes a new file back ~30 s after it was
    // written, and that writeback would run alongside the first rounds that read it.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}
