// The GGUF dequantizers against gguf-py: every type's golden blocks (scripts/fixtures/gguf_quants.py)
// must come out with gguf.quants.dequantize's exact float32 bits, NaN payloads and signed zeros
// included; the types gguf-py refuses are refused by name; wrong lengths are one clear error.
// Q8_0 and Q4_K have WebAssembly kernels too: every check runs on both paths.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setWasmKernelsEnabled } from '@tensorops/core/internal';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dequantize, dequantizeInto } from '../src/gguf/dequantize.js';
import { type GgmlType, ggmlType } from '../src/gguf/ggml-types.js';
import { wasmQuantKernels } from '../src/gguf/quants/wasm-kernels.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/gguf/quants');

interface Manifest {
  types: { type: string; blocks: number; starts: Record<string, number> }[];
  refused: string[];
}
const MANIFEST = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as Manifest;

const BY_NAME = new Map<string, GgmlType>();
for (let id = 0; id < 256; id++) {
  const type = ggmlType(id);
  if (type !== undefined) BY_NAME.set(type.name, type);
}

function typeNamed(name: string): GgmlType {
  const type = BY_NAME.get(name);
  if (type === undefined) throw new Error(`no ggml type ${name}`);
  return type;
}

function bytesOf(file: string): Uint8Array {
  const buffer = readFileSync(join(DIR, file));
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function bitsOf(values: Float32Array): Uint32Array {
  return new Uint32Array(values.buffer, values.byteOffset, values.length);
}

/** The elements whose bits differ, as `index: got expected` in hex, at most a few. */
function mismatches(got: Uint32Array, expected: Uint32Array): string[] {
  const found: string[] = [];
  for (let i = 0; i < expected.length && found.length < 4; i++)
    if (got[i] !== expected[i])
      found.push(`${i}: ${got[i]?.toString(16)} ${expected[i]?.toString(16)}`);
  return found;
}

for (const path of ['JavaScript', 'WebAssembly'] as const) {
  describe(`${path} kernels`, () => {
    // WebAssembly for outputs of any size, or not at all; the default again afterwards.
    beforeAll(() => setWasmKernelsEnabled(path === 'WebAssembly', 0));
    afterAll(() => setWasmKernelsEnabled(true));

    it(`runs Q8_0 and Q4_K ${path === 'WebAssembly' ? 'in' : 'without'} WebAssembly`, () => {
      const kernels = wasmQuantKernels(1 << 20);
      expect(kernels === null ? [] : Object.keys(kernels).sort()).toEqual(
        path === 'WebAssembly' ? ['Q4_K', 'Q8_0'] : [],
      );
    });

    describe('dequantize, bit for bit as gguf-py', () => {
      it('has a golden for every block type gguf-py dequantizes', () => {
        expect(MANIFEST.types.map((t) => t.type).sort()).toEqual(
          [
            ...['Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0', 'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K'],
            ...['IQ2_XXS', 'IQ2_XS', 'IQ2_S', 'IQ3_XXS', 'IQ3_S', 'IQ1_S', 'IQ1_M', 'IQ4_NL'],
            ...['IQ4_XS', 'TQ1_0', 'TQ2_0', 'MXFP4', 'NVFP4'],
          ].sort(),
        );
      });

      for (const { type: name, blocks: count, starts } of MANIFEST.types) {
        it(`${name}: random, raw, special-scale${starts.quantized === undefined ? '' : ' and quantized'} blocks`, () => {
          const type = typeNamed(name);
          const blocks = bytesOf(`${name}.blocks`);
          const expected = bytesOf(`${name}.f32`);
          expect(blocks.length).toBe(count * type.typeSize);
          const got = dequantize(type, blocks, count * type.blockSize);
          expect(got.length * 4).toBe(expected.length);
          const want = new Uint32Array(expected.slice().buffer);
          expect(mismatches(bitsOf(got), want)).toEqual([]);

          // The same from blocks at an odd offset into the middle of a larger output, whose other
          // elements stay as they were.
          const shifted = new Uint8Array(blocks.length + 1).subarray(1);
          shifted.set(blocks);
          const wide = new Uint32Array(want.length + 7).fill(0xdeadbeef);
          const into = new Float32Array(wide.buffer, 12, want.length);
          dequantizeInto(type, shifted, count * type.blockSize, into);
          expect(mismatches(bitsOf(into), want)).toEqual([]);
          expect([...wide.subarray(0, 3), ...wide.subarray(3 + want.length)]).toEqual(
            new Array(7).fill(0xdeadbeef),
          );
        });
      }

      it('refuses by name every block type gguf-py refuses, and the plain types', () => {
        expect(MANIFEST.refused.length).toBeGreaterThan(0);
        for (const name of [...MANIFEST.refused, 'F32', 'F16', 'BF16', 'I8', 'F64']) {
          const type = typeNamed(name);
          const call = () => dequantize(type, new Uint8Array(type.typeSize), type.blockSize);
          expect(call).toThrow(expect.objectContaining({ code: 'E_DTYPE' }));
          expect(call).toThrow(`GGUF type ${name} cannot be dequantized`);
        }
      });

      it('refuses a count that is not whole blocks, or bytes that are not exactly those blocks', () => {
        const q4k = typeNamed('Q4_K');
        const q80 = typeNamed('Q8_0');
        const cases: [GgmlType, number, number, string][] = [
          [q4k, 144, 255, '255 elements is not a whole number of blocks of 256'],
          [q4k, 143, 256, '256 elements take 144 bytes (1 blocks of 144), got 143'],
          [q4k, 145, 256, 'got 145'],
          [q80, 68, 32, '32 elements take 34 bytes'],
          [q80, 0, -32, '-32 elements'],
          [q80, 0, 0.5, '0.5 elements'],
          [q80, 0, Number.NaN, 'NaN elements'],
        ];
        for (const [type, length, count, message] of cases) {
          const call = () => dequantize(type, new Uint8Array(length), count);
          expect(call).toThrow(expect.objectContaining({ code: 'E_FORMAT' }));
          expect(call).toThrow(message);
        }
        expect(dequantize(q80, new Uint8Array(0), 0)).toEqual(new Float32Array(0));
        for (const length of [31, 33]) {
          const call = () => dequantizeInto(q80, new Uint8Array(34), 32, new Float32Array(length));
          expect(call).toThrow(expect.objectContaining({ code: 'E_VALUE' }));
          expect(call).toThrow(`Q8_0: 32 elements do not fit an output of ${length}`);
        }
      });
    });

    /** float16 bits to their value, by the definition (sign, exponent, mantissa), for finite bits. */
    function halfValue(bits: number): number {
      const sign = bits & 0x8000 ? -1 : 1;
      const exponent = (bits >> 10) & 31;
      const mantissa = bits & 1023;
      if (exponent === 31) return mantissa === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
      if (exponent === 0) return sign * mantissa * 2 ** -24;
      return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
    }

    const notNaN = fc
      .integer({ min: 0, max: 0xffff })
      .filter((h) => (h & 0x7c00) !== 0x7c00 || (h & 1023) === 0);

    /**
     * Random blocks of type `name` that start with `scaleCount` float16 scales (finite or infinite),
     * the rest random bytes, dequantize to what `reference` writes into each block's slice of the
     * expected output from the scales' values and the rest of the block.
     */
    function assertMatchesReference(
      name: string,
      scaleCount: number,
      maxBlocks: number,
      reference: (scales: number[], rest: Uint8Array, expected: Float32Array) => void,
    ): void {
      const type = typeNamed(name);
      const restBytes = type.typeSize - 2 * scaleCount;
      const block = fc.tuple(
        fc.array(notNaN, { minLength: scaleCount, maxLength: scaleCount }),
        fc.uint8Array({ minLength: restBytes, maxLength: restBytes }),
      );
      fc.assert(
        fc.property(fc.array(block, { maxLength: maxBlocks }), (raw) => {
          const blocks = new Uint8Array(raw.length * type.typeSize);
          const expected = new Float32Array(raw.length * type.blockSize);
          raw.forEach(([halves, rest], b) => {
            blocks.set([...halves.flatMap((h) => [h & 255, h >> 8]), ...rest], b * type.typeSize);
            const slice = expected.subarray(b * type.blockSize, (b + 1) * type.blockSize);
            reference(halves.map(halfValue), rest, slice);
          });
          const got = dequantize(type, blocks, raw.length * type.blockSize);
          expect(bitsOf(got)).toEqual(bitsOf(expected));
        }),
      );
    }

    describe('dequantize against a reference written from the block layout', () => {
      it('Q8_0: element j is int8 byte 2 + j times the float16 scale in bytes 0..1', () => {
        assertMatchesReference('Q8_0', 1, 6, ([d], qs, expected) => {
          for (let j = 0; j < 32; j++) {
            const q = qs[j] as number;
            expected[j] = Math.fround((q > 127 ? q - 256 : q) * (d as number));
          }
        });
      });

      it('Q4_1: element j is nibble j of bytes 4..19 (low nibbles first) times d, rounded, plus m', () => {
        assertMatchesReference('Q4_1', 2, 6, ([d, m], qs, expected) => {
          for (let j = 0; j < 32; j++) {
            const q = j < 16 ? (qs[j] as number) & 15 : (qs[j - 16] as number) >> 4;
            expected[j] = Math.fround(Math.fround((d as number) * q) + (m as number));
          }
        });
      });

      it("Q4_K: llama.cpp's loop (get_scale_min_k4, 64 elements a step), rounded as numpy rounds", () => {
        const scaleMin = (j: number, q: Uint8Array): [number, number] =>
          j < 4
            ? [(q[j] as number) & 63, (q[j + 4] as number) & 63]
            : [
                ((q[j + 4] as number) & 0xf) | (((q[j - 4] as number) >> 6) << 4),
                ((q[j + 4] as number) >> 4) | (((q[j] as number) >> 6) << 4),
              ];
        assertMatchesReference('Q4_K', 2, 4, ([d, dmin], rest, expected) => {
          const scales = rest.subarray(0, 12);
          const q = rest.subarray(12);
          let y = 0;
          for (let j = 0, is = 0; j < 256; j += 64, is += 2) {
            const [sc1, m1] = scaleMin(is, scales);
            const [sc2, m2] = scaleMin(is + 1, scales);
            const d1 = Math.fround((d as number) * sc1);
            const min1 = Math.fround((dmin as number) * m1);
            const d2 = Math.fround((d as number) * sc2);
            const min2 = Math.fround((dmin as number) * m2);
            const at = j / 2;
            for (let l = 0; l < 32; l++)
              expected[y++] = Math.fround(Math.fround(d1 * ((q[at + l] as number) & 0xf)) - min1);
            for (let l = 0; l < 32; l++)
              expected[y++] = Math.fround(Math.fround(d2 * ((q[at + l] as number) >> 4)) - min2);
          }
        });
      });
    });
  });
}
