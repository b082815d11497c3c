import { setWasmKernelsEnabled } from '@tensorops/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { hex } from '../../../../test/hex.js';
import { treeKernels } from './runtime.js';

afterEach(() => setWasmKernelsEnabled(true));

function kernels() {
  const k = treeKernels(Number.POSITIVE_INFINITY);
  if (k === null) throw new Error('the GatherTree WebAssembly module did not instantiate');
  return k;
}

describe('the tree kernels', () => {
  /**
   * A staged block of all T rows of [T, B, K] step ids (item bytes each, every byte
   * distinct with the high bit set) and int32 parents, laid out as the kernel reads them.
   */
  function stage(itemBytes: number, T: number, B: number, K: number) {
    const k = kernels();
    const mem = k.staging(1 << 16) as Uint8Array;
    const words = new Int32Array(mem.buffer, 0, 1 << 14);
    const lens = 0;
    const trace = 256;
    const stops = 1024;
    const rowBytes = B * K * itemBytes;
    const src = 4096;
    // par 4-aligned for the test's int32 view (the kernel itself takes any alignment)
    const par = src + Math.ceil((T * rowBytes + 128) / 16) * 16;
    const out = par + T * B * K * 4 + 128;
    mem.fill(0, 0, out);
    for (let i = 0; i < T * rowBytes; i++) mem[src + i] = 0x80 | (i % 127);
    return { k, mem, words, lens, trace, stops, rowBytes, src, par, out };
  }

  for (const itemBytes of [1, 2, 4, 8]) {
    it(`tree_${itemBytes}: every beam width 1-16, lengths, parents, exact row stores`, () => {
      let stopped = 0;
      for (let K = 1; K <= 16; K++) {
        const T = 4;
        const B = 3;
        const s = stage(itemBytes, T, B, K);
        const { mem, words } = s;
        const lengths = [T, 2, 0];
        lengths.forEach((len, b) => {
          words[s.lens / 4 + b] = len;
          for (let j = 0; j < 16; j++) {
            mem[s.trace + 16 * b + j] = j < K ? j : 0;
            words[s.stops / 4 + 16 * b + j] = len;
          }
        });
        // parents[t, b, j] = (j * 5 + t + b) % K; row 0 holds garbage that must never be read
        for (let t = 0; t < T; t++) {
          for (let i = 0; i < B * K; i++) {
            const b = Math.floor(i / K);
            const j = i % K;
            words[s.par / 4 + t * B * K + i] = t === 0 ? -99 : (j * 5 + t + b) % K;
          }
        }
        const outBytes = T * s.rowBytes;
        mem.fill(0xee, s.out, s.out + outBytes + 64);
        // end_token: the bytes of beam 1 of batch 0 at row 1, so some beams meet it
        const endAt = s.src + (1 * B * K + Math.min(1, K - 1)) * itemBytes;
        let end = 0n;
        for (let i = itemBytes - 1; i >= 0; i--)
          end = (end << 8n) | BigInt(mem[endAt + i] as number);
        const endHex = hex(mem.subarray(endAt, endAt + itemBytes));
        const stepsHex = (t: number, b: number, j: number) => {
          const at = s.src + ((t * B + b) * K + j) * itemBytes;
          return hex(mem.subarray(at, at + itemBytes));
        };
        // The walk, element by element
        const want: string[] = new Array(T * B * K);
        const wantStops: number[] = [];
        lengths.forEach((len, b) => {
          for (let j = 0; j < K; j++) {
            let beam = j;
            let stop = len;
            for (let t = T - 1; t >= 0; t--) {
              const at = (t * B + b) * K + j;
              if (t >= len) {
                want[at] = endHex;
                continue;
              }
              want[at] = stepsHex(t, b, beam);
              if (want[at] === endHex) stop = t + 1;
              if (t > 0) beam = words[s.par / 4 + (t * B + b) * K + beam] as number;
            }
            wantStops.push(stop);
          }
        });
        const tree = s.k.tree[itemBytes];
        expect(tree?.(s.src, s.par, s.out, 0, T, B, K, s.lens, s.trace, s.stops, end)).toBe(0);
        expect(hex(mem.subarray(s.out, s.out + outBytes))).toBe(want.join(''));
        // nothing past the last row
        expect(hex(mem.subarray(s.out + outBytes, s.out + outBytes + 64))).toBe('ee'.repeat(64));
        const gotStops = lengths.flatMap((_, b) =>
          Array.from({ length: K }, (_, j) => words[s.stops / 4 + 16 * b + j]),
        );
        expect(gotStops).toEqual(wantStops);
        if (wantStops.some((stop, i) => stop < (lengths[Math.floor(i / K)] as number))) stopped++;
      }
      // end_token must really be met for the stops to be checked
      expect(stopped).toBeGreaterThan(8);
    });

    it(`tree_${itemBytes}: returns 1 at a followed parent outside [0, K), ignores unfollowed ones`, () => {
      const K = 5;
      for (const bad of [K, -1, 127, 128, 2 ** 31 - 1, -(2 ** 31), 70000]) {
        for (const followed of [true, false]) {
          const s = stage(itemBytes, 2, 1, K);
          s.words[s.lens / 4] = 2;
          for (let j = 0; j < 16; j++) s.mem[s.trace + j] = j < K ? j : 0;
          // row 1: beam 0 points at `bad`. Lanes past K trace beam 0 too, so an unfollowed bad
          // beam 0 (no beam traces it) tests that those lanes are never checked.
          for (let j = 0; j < K; j++) s.words[s.par / 4 + K + j] = j === 0 ? bad : 1;
          if (!followed) s.mem[s.trace] = 1;
          const r = s.k.tree[itemBytes]?.(
            s.src,
            s.par,
            s.out,
            0,
            2,
            1,
            K,
            s.lens,
            s.trace,
            s.stops,
            0n,
          );
          expect({ bad, followed, r }).toEqual({ bad, followed, r: followed ? 1 : 0 });
        }
      }
    });
  }
});
