import { setWasmKernelsEnabled } from '@tensorops/core/internal';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hex } from '../../../../test/hex.js';
import { backtrackWasm, WASM_MAX_BEAMS } from './wasm-walk.js';

beforeEach(() => setWasmKernelsEnabled(true, 0));
afterEach(() => setWasmKernelsEnabled(true));

/** A [T, B, K] walk problem with items of `itemBytes` random bytes and valid parents. */
const problem = fc
  .record({
    T: fc.integer({ min: 1, max: 9 }),
    B: fc.integer({ min: 1, max: 4 }),
    K: fc.integer({ min: 1, max: WASM_MAX_BEAMS }),
    itemBytes: fc.constantFrom(1, 2, 4, 8),
    // 1: one row per kernel call; 400: a few rows; the default: the whole tensor at once
    blockBytes: fc.constantFrom(1, 400, undefined),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  })
  .map((p) => {
    let s = p.seed;
    const next = (m: number): number => {
      s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
      return (s >>> 8) % m;
    };
    const n = p.T * p.B * p.K;
    // Few distinct items (bytes 0x80 or 0x81 each), so beams meet the end token often.
    const src = Uint8Array.from({ length: n * p.itemBytes }, () => 0x80 + next(2));
    const parents = Int32Array.from({ length: n }, () => next(p.K));
    const lengths = Int32Array.from({ length: p.B }, () => next(p.T + 1));
    const endBits = Uint8Array.from({ length: p.itemBytes }, () => 0x80 + next(2));
    return { ...p, src, parents, lengths, endBits };
  });

type Problem = typeof problem extends fc.Arbitrary<infer P> ? P : never;

/** The walk beam by beam: traced items, end_token bits past the length, and the stops. */
function referenceWalk(p: Problem) {
  const { T, B, K, itemBytes, src, parents, lengths, endBits } = p;
  const out = new Uint8Array(src.length);
  const stops = new Int32Array(B * K);
  const item = (i: number) => src.subarray(i * itemBytes, (i + 1) * itemBytes);
  for (let b = 0; b < B; b++) {
    const len = lengths[b] as number;
    for (let k = 0; k < K; k++) {
      let beam = k;
      let stop = len;
      for (let t = T - 1; t >= 0; t--) {
        const at = (t * B + b) * K + k;
        if (t >= len) {
          out.set(endBits, at * itemBytes);
          continue;
        }
        const from = (t * B + b) * K + beam;
        out.set(item(from), at * itemBytes);
        if (hex(item(from)) === hex(endBits)) stop = t + 1;
        beam = parents[from] as number;
      }
      stops[b * K + k] = stop;
    }
  }
  return { out, stops };
}

describe('backtrackWasm', () => {
  it('walks like the beam-by-beam reference, in blocks of any number of rows', () => {
    fc.assert(
      fc.property(problem, (p) => {
        const dst = new Uint8Array(p.src.length).fill(0xa5);
        const stops = backtrackWasm(p, p.itemBytes, p.src, dst, p.endBits, p.blockBytes);
        const want = referenceWalk(p);
        expect(hex(dst)).toBe(hex(want.out));
        expect(Array.from(stops ?? [])).toEqual(Array.from(want.stops));
      }),
      { numRuns: 400 },
    );
  });

  it('returns null, leaving the error to the JavaScript walk, at a followed bad parent', () => {
    const T = 3;
    const B = 2;
    const K = 4;
    const parents = new Int32Array(T * B * K);
    parents[(2 * B + 1) * K + 3] = K; // row 2, batch 1, beam 3: traced by beam 3 from the top
    const src = new Uint8Array(T * B * K * 4);
    const lengths = Int32Array.of(T, T);
    const dst = new Uint8Array(src.length);
    const end = new Uint8Array(4);
    expect(backtrackWasm({ T, B, K, lengths, parents }, 4, src, dst, end, 1)).toBeNull();
    // the same parent where batch 1 is too short to follow it
    const short = Int32Array.of(T, 2);
    expect(backtrackWasm({ T, B, K, lengths: short, parents }, 4, src, dst, end, 1)).not.toBeNull();
  });

  it('is not taken for beams wider than 16, for empty tensors, or with WebAssembly off', () => {
    const walk = (K: number, T = 2) => {
      const n = T * K;
      return backtrackWasm(
        { T, B: 1, K, lengths: Int32Array.of(T), parents: new Int32Array(n) },
        4,
        new Uint8Array(n * 4),
        new Uint8Array(n * 4),
        new Uint8Array(4),
      );
    };
    expect(walk(16)).not.toBeNull();
    expect(walk(17)).toBeNull();
    expect(walk(3, 0)).toBeNull();
    setWasmKernelsEnabled(false);
    expect(walk(16)).toBeNull();
  });
});
