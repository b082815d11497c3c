import { afterEach, describe, expect, it } from 'vitest';
import { hex } from '../../test/assert.js';
import { STAGING_MAX_BYTES, setWasmKernelsEnabled, WASM_MIN_OUTPUT_BYTES } from './instantiate.js';
import { wasmKernels } from './runtime.js';

afterEach(() => setWasmKernelsEnabled(true));

function kernels() {
  const k = wasmKernels(Number.POSITIVE_INFINITY);
  if (k === null) throw new Error('WebAssembly kernels did not instantiate');
  return k;
}

/** Little-endian bytes of `values` as `bytes`-wide two's complement integers. */
function ints(values: readonly bigint[], bytes: number): Uint8Array {
  const out = new Uint8Array(values.length * bytes);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => {
    if (bytes === 8) view.setBigInt64(i * 8, v, true);
    else view.setInt32(i * 4, Number(v), true);
  });
  return out;
}

describe('the take kernels', () => {
  for (const indexBytes of [4, 8]) {
    for (const itemBytes of [1, 2, 4, 8]) {
      it(`take_i${indexBytes * 8}_${itemBytes}: rows, negative indices, every bit of the items`, () => {
        const k = kernels();
        const mem = k.staging(4096) as Uint8Array;
        // data: 2 rows of 3 items whose bytes are all distinct (0x80 + i: high bits set, so a
        // float move that canonicalised NaNs or sign-extended bytes would show)
        const data = 16;
        for (let i = 0; i < 6 * itemBytes; i++) mem[data + i] = 0x80 + i;
        const idx = 256;
        mem.set(ints([2n, -3n, 1n, -1n, 0n, 0n], indexBytes), idx);
        const out = 512;
        mem.fill(0xee, out, out + 6 * itemBytes);
        const take = k.take[indexBytes]?.[itemBytes];
        // 2 rows x 3: row a reads data row a (rowStep = a row), position p at p * itemBytes
        expect(take?.(data, 3 * itemBytes, itemBytes, 0, idx, 3 * indexBytes, out, 2, 3, 3)).toBe(
          0,
        );
        const item = (row: number, p: number) =>
          hex(mem.subarray(data + (row * 3 + p) * itemBytes, data + (row * 3 + p + 1) * itemBytes));
        const got = hex(mem.subarray(out, out + 6 * itemBytes));
        expect(got).toBe(
          [item(0, 2), item(0, 0), item(0, 1), item(1, 2), item(1, 0), item(1, 0)].join(''),
        );
      });

      it(`take_i${indexBytes * 8}_${itemBytes}: returns k + 1 at the first bad index and writes nothing after it`, () => {
        const k = kernels();
        const mem = k.staging(4096) as Uint8Array;
        const bad =
          indexBytes === 8 ? [3n, -4n, 2n ** 32n, -(2n ** 63n)] : [3n, -4n, 2n ** 31n - 1n];
        for (const value of bad) {
          mem.set(ints([0n, 1n, value, 0n], indexBytes), 256);
          mem.fill(0xee, 512, 512 + 4 * itemBytes);
          const take = k.take[indexBytes]?.[itemBytes];
          expect(take?.(16, 0, itemBytes, 0, 256, 0, 512, 1, 4, 3)).toBe(3);
          expect(hex(mem.subarray(512 + 2 * itemBytes, 512 + 4 * itemBytes))).toBe(
            'ee'.repeat(2 * itemBytes),
          );
        }
      });
    }
  }
});

describe('the gather kernels', () => {
  for (const itemBytes of [1, 2, 4, 8]) {
    it(`gather_${itemBytes}: every width around the four-at-a-time loop, rows, every bit of the items`, () => {
      const k = kernels();
      const mem = k.staging(8192) as Uint8Array;
      const rowItems = 11;
      const data = 16;
      for (let i = 0; i < 2 * rowItems * itemBytes; i++) mem[data + i] = 0x80 + (i % 128);
      const item = (row: number, p: number) => {
        const at = data + (row * rowItems + p) * itemBytes;
        return hex(mem.subarray(at, at + itemBytes));
      };
      for (let width = 0; width <= 9; width++) {
        const positions = Array.from({ length: width }, (_, j) => (j * 7 + 3) % rowItems);
        const idx = 1024;
        mem.set(ints(positions.map(BigInt), 4), idx);
        const out = 2048;
        // One item of sentinel past the output: the kernel must stop at rows x width.
        mem.fill(0xee, out, out + (2 * width + 1) * itemBytes);
        k.gather[itemBytes]?.(data, rowItems * itemBytes, idx, out, 2, width);
        const want = [0, 1].flatMap((row) => positions.map((p) => item(row, p)));
        expect(hex(mem.subarray(out, out + 2 * width * itemBytes))).toBe(want.join(''));
        const past = out + 2 * width * itemBytes;
        expect(hex(mem.subarray(past, past + itemBytes))).toBe('ee'.repeat(itemBytes));
      }
    });
  }
});

describe('the staging memory', () => {
  it('grows to what is asked, keeps its bytes, and refuses more than the cap', () => {
    const k = kernels();
    const small = k.staging(100) as Uint8Array;
    small[99] = 42;
    const big = k.staging(3 * 65536 + 1) as Uint8Array;
    expect(big.byteLength).toBeGreaterThanOrEqual(3 * 65536 + 1);
    expect(big[99]).toBe(42);
    expect(k.staging(STAGING_MAX_BYTES + 1)).toBeNull();
  });

  it('is off while setWasmKernelsEnabled(false), and for small outputs unless asked', () => {
    setWasmKernelsEnabled(false);
    expect(wasmKernels(2 ** 30)).toBeNull();
    setWasmKernelsEnabled(true);
    expect(wasmKernels(WASM_MIN_OUTPUT_BYTES)).not.toBeNull();
    expect(wasmKernels(WASM_MIN_OUTPUT_BYTES - 1)).toBeNull();
    setWasmKernelsEnabled(true, 0);
    expect(wasmKernels(1)).not.toBeNull();
  });
});
