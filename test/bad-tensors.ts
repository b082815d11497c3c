// Tensors a plain-JavaScript caller could hand to any public entry point, each wrong in one way,
// with the error code the library must answer with (docs/design.md §2.2). Plain objects and
// fast-check only, so every package's tests can use it against its own built dependencies.
import fc from 'fast-check';
import { expect, it } from 'vitest';

export interface TensorLike {
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly data: unknown;
}

export interface BadTensor {
  readonly why: string;
  readonly code: 'E_SHAPE' | 'E_DTYPE';
  readonly tensor: TensorLike;
}

const ITEM_SIZES: Readonly<Record<string, number>> = {
  uint8: 1,
  int8: 1,
  int16: 2,
  float16: 2,
  int32: 4,
  float32: 4,
  int64: 8,
  float64: 8,
};

/** Typed arrays and other objects that are not a Uint8Array, built over `bytes`' buffer. */
const NOT_BYTES: ReadonlyArray<readonly [string, (bytes: Uint8Array) => unknown]> = [
  ['Int8Array', (b) => new Int8Array(b.buffer, b.byteOffset, b.byteLength)],
  ['Uint8ClampedArray', (b) => new Uint8ClampedArray(b.buffer, b.byteOffset, b.byteLength)],
  ['Float32Array', (b) => new Float32Array(b.byteLength)],
  ['Float64Array', (b) => new Float64Array(b.byteLength)],
  ['BigInt64Array', (b) => new BigInt64Array(b.byteLength)],
  ['Uint16Array', (b) => new Uint16Array(b.byteLength)],
  ['DataView', (b) => new DataView(b.buffer, b.byteOffset, b.byteLength)],
  ['ArrayBuffer', (b) => b.slice().buffer],
  ['Array', (b) => Array.from(b)],
  ['undefined', () => undefined],
  ['string', (b) => 'x'.repeat(b.byteLength)],
];

const BAD_DIMS = [-1, -7, 0.5, 2.25, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53];

/**
 * A tensor of `dtypes` (default: a few of every width) with 1-3 dims of 1-4, wrong in one way:
 * data too short or too long, data another typed array or object, a dim negative, fractional,
 * NaN, infinite or unsafe, or a dtype name that does not exist.
 */
export function badTensor(
  dtypes: readonly string[] = Object.keys(ITEM_SIZES),
): fc.Arbitrary<BadTensor> {
  const valid = fc
    .record({
      dtype: fc.constantFrom(...dtypes),
      shape: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
    })
    .map(({ dtype, shape }) => {
      const n = shape.reduce((a, d) => a * d, 1) * (ITEM_SIZES[dtype] ?? 1);
      return { dtype, shape, data: new Uint8Array(n) };
    });
  return fc.oneof(
    fc.tuple(valid, fc.integer({ min: 1, max: 9 }), fc.boolean()).map(([t, k, longer]) => {
      const n = Math.max(0, t.data.byteLength + (longer ? k : -Math.min(k, t.data.byteLength)));
      const short = n === t.data.byteLength ? n + 1 : n;
      return {
        why: `${short} bytes`,
        code: 'E_SHAPE' as const,
        tensor: { ...t, data: new Uint8Array(short) },
      };
    }),
    fc.tuple(valid, fc.constantFrom(...NOT_BYTES)).map(([t, [name, make]]) => ({
      why: `data as ${name}`,
      code: 'E_DTYPE' as const,
      tensor: { ...t, data: make(t.data) },
    })),
    fc.tuple(valid, fc.nat(), fc.constantFrom(...BAD_DIMS)).map(([t, at, dim]) => {
      const shape = [...t.shape];
      shape[at % shape.length] = dim;
      return { why: `dim ${dim}`, code: 'E_SHAPE' as const, tensor: { ...t, shape } };
    }),
    valid.map((t) => ({
      why: 'dtype float128',
      code: 'E_DTYPE' as const,
      tensor: { ...t, dtype: 'float128' },
    })),
  );
}

/** The error code `fn` throws (a TensorOpsError's), or 'none' if it returns. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (e as Error).name === 'TensorOpsError') return code;
    throw e;
  }
  return 'none';
}

/**
 * One property test per entry point: handed any bad tensor (in the place the entry point puts it),
 * it throws the bad tensor's code.
 */
export function itRefusesBadTensors<T>(
  entryPoints: ReadonlyArray<readonly [string, (t: T) => unknown]>,
  numRuns = 150,
): void {
  it.each(entryPoints)('%s refuses a bad tensor with E_SHAPE / E_DTYPE', (_, call) => {
    fc.assert(
      fc.property(badTensor(), (bad) => {
        expect(
          codeOf(() => call(bad.tensor as T)),
          bad.why,
        ).toBe(bad.code);
      }),
      { numRuns },
    );
  });
}
