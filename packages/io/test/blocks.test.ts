import { setWasmKernelsEnabled } from '@tensorops/core/internal';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { blockMover } from '../src/fast/passes/block-mover.js';

afterEach(() => setWasmKernelsEnabled(true));

describe('the block mover (wasm/blocks.wat)', () => {
  it('moves block order[slot] from offsets[i] - base to its place in the first or second chunk, for offsets past 2^32', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }), // blockBytes
        fc.integer({ min: 1, max: 12 }), // blocks in the window
        fc.integer({ min: 0, max: 24 }), // blocks in the pass
        fc.integer({ min: 0, max: 24 }), // split
        fc.constantFrom(0, 2 ** 32 + 3, 2 ** 45 + 7), // the window's source offset
        fc.integer(),
        (blockBytes, inWindow, count, splitSeed, windowAt, seed) => {
          const split = Math.min(splitSeed, count);
          let s = seed >>> 0 || 1;
          const next = (n: number): number => {
            s ^= s << 13;
            s ^= s >>> 17;
            s ^= s << 5;
            return (s >>> 0) % n;
          };
          // Memory: the window, then the second chunk before the first (any order works).
          const windowBytes = inWindow * blockBytes;
          const secondAt = windowBytes + 5;
          const firstAt = secondAt + (count - split) * blockBytes + 3;
          const orderAt = Math.ceil((firstAt + split * blockBytes) / 8) * 8;
          const offsetsAt = orderAt + 8 * count;
          const mover = blockMover(offsetsAt + 8 * count, Number.POSITIVE_INFINITY);
          if (mover === null) throw new Error('the block mover did not instantiate');
          const mem = new Uint8Array(mover.memory);
          for (let i = 0; i < windowBytes; i++) mem[i] = next(256);
          mem.fill(0xee, windowBytes, orderAt);
          const order = new Int32Array(mover.memory, orderAt, count);
          const offsets = new Float64Array(mover.memory, offsetsAt, count);
          // Every block of the pass in a shuffled order, each from a random block of the window.
          for (let i = 0; i < count; i++) order[i] = i;
          for (let i = count - 1; i > 0; i--) {
            const j = next(i + 1);
            [order[i], order[j]] = [order[j] as number, order[i] as number];
          }
          for (let i = 0; i < count; i++) offsets[i] = windowAt + next(inWindow) * blockBytes;
          const want = mem.slice();
          for (let i = 0; i < count; i++) {
            const from = (offsets[i] as number) - windowAt;
            const to = i < split ? firstAt + i * blockBytes : secondAt + (i - split) * blockBytes;
            want.copyWithin(to, from, from + blockBytes);
          }
          const from = count > 0 ? next(count) : 0;
          // Slots [0, from) and then [from, count): two calls, as the passes make one per window.
          mover.moveBlocks(
            orderAt,
            offsetsAt,
            0,
            from,
            windowAt,
            firstAt,
            secondAt,
            split,
            blockBytes,
          );
          mover.moveBlocks(
            orderAt,
            offsetsAt,
            from,
            count,
            windowAt,
            firstAt,
            secondAt,
            split,
            blockBytes,
          );
          expect(Buffer.from(mem).equals(Buffer.from(want))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is null where WebAssembly is turned off, so the passes move blocks in JavaScript', () => {
    setWasmKernelsEnabled(false);
    expect(blockMover(1 << 20, Number.POSITIVE_INFINITY)).toBeNull();
  });
});
