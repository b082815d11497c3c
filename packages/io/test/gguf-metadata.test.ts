// GGUF metadata against a plain encoder (gguf-bytes.ts), property-tested with fast-check: random
// values of every type, arrays nested a few deep, strings long enough that the header crosses the
// growing reads' boundaries. Read through the growing reads or from all the bytes at once, the
// header holds exactly what was written.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from '../src/gguf/header.js';
import { GGUF_VALUE_TYPES, type GgufValue } from '../src/gguf/metadata.js';
import { readGgufHeader } from '../src/gguf/read-header.js';
import { concat, ggufFile, ggufString, u32, u64 } from './gguf-bytes.js';

/** A typed value and its bytes as GGUF writes them (without the leading type id). */
interface Written {
  readonly type: number;
  readonly value: GgufValue;
  readonly bytes: Uint8Array;
}

function number(type: number, size: number, set: (v: DataView, x: never) => void) {
  return (x: number | bigint): Written => {
    const bytes = new Uint8Array(size);
    set(new DataView(bytes.buffer), x as never);
    return { type, value: x, bytes };
  };
}

const scalar: fc.Arbitrary<Written> = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map(number(0, 1, (v, x) => v.setUint8(0, x))),
  fc.integer({ min: -128, max: 127 }).map(number(1, 1, (v, x) => v.setInt8(0, x))),
  fc.integer({ min: 0, max: 65535 }).map(number(2, 2, (v, x) => v.setUint16(0, x, true))),
  fc.integer({ min: -32768, max: 32767 }).map(number(3, 2, (v, x) => v.setInt16(0, x, true))),
  fc.nat({ max: 2 ** 32 - 1 }).map(number(4, 4, (v, x) => v.setUint32(0, x, true))),
  fc.integer().map(number(5, 4, (v, x) => v.setInt32(0, x, true))),
  fc.float({ noNaN: true }).map(number(6, 4, (v, x) => v.setFloat32(0, x, true))),
  fc.boolean().map((b) => ({ type: 7, value: b, bytes: new Uint8Array([b ? 1 : 0]) })),
  fc
    .oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ minLength: 20_000, maxLength: 90_000 }),
    )
    .map((s) => ({ type: 8, value: s, bytes: ggufString(s) })),
  fc.bigInt(0n, 2n ** 64n - 1n).map(number(10, 8, (v, x) => v.setBigUint64(0, x, true))),
  fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map(number(11, 8, (v, x) => v.setBigInt64(0, x, true))),
  fc.double({ noNaN: true }).map(number(12, 8, (v, x) => v.setFloat64(0, x, true))),
);

/** Arrays of one item type, of scalars or of arrays, a few levels deep. */
const value: fc.Arbitrary<Written> = fc.letrec<{ value: Written; array: Written }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array')),
  array: fc.array(tie('value'), { maxLength: 6 }).map((items): Written => {
    // Every item of a GGUF array has the array's one item type: keep those of the first's.
    const itemType = items[0]?.type ?? 0;
    const kept = items.filter((i) => i.type === itemType);
    return {
      type: 9,
      value: { itemType: GGUF_VALUE_TYPES[itemType] as never, items: kept.map((i) => i.value) },
      bytes: concat([u32(itemType), u64(kept.length), ...kept.map((i) => i.bytes)]),
    };
  }),
})).value;

const entries = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), value), {
  selector: ([key]) => key,
  maxLength: 12,
});

describe('GGUF metadata, property-tested', () => {
  it('reads back every value written, through growing reads and at once', async () => {
    await fc.assert(
      fc.asyncProperty(entries, async (written) => {
        const file = ggufFile({
          entries: written.map(([key, w]) => concat([ggufString(key), u32(w.type), w.bytes])),
        });
        let reads = 0;
        const grown = await readGgufHeader(
          file.length,
          async (n) => {
            reads++;
            return file.subarray(0, n);
          },
          file.length,
        );
        const whole = parseGgufHeader(file, file.length);
        const expected = written.map(([key, w]) => ({
          key,
          type: GGUF_VALUE_TYPES[w.type],
          value: w.value,
        }));
        expect(grown.metadata).toEqual(expected);
        expect(whole.metadata).toEqual(expected);
        expect(grown.dataOffset).toBe(file.length);
        // 64 KiB, then 8x: a header under 4.5 MiB takes at most 3 reads.
        expect(reads).toBeLessThanOrEqual(3);
      }),
      { numRuns: 150 },
    );
  });
});
