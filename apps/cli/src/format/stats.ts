import {
  bfloat16ToNumber,
  type Dtype,
  float16ToNumber,
  shapeSize,
  type Tensor,
} from '@tensorops/core';

/** Summary statistics of a numeric tensor, over its finite values. */
export interface TensorStats {
  /** All elements. */
  readonly count: number;
  readonly finite: number;
  readonly nan: number;
  readonly posInf: number;
  readonly negInf: number;
  /** Smallest / largest finite value (bigint for int64/uint64, exact); undefined without one. */
  readonly min: number | bigint | undefined;
  readonly max: number | bigint | undefined;
  /** Mean of the finite values, compensated (Neumaier) summation; undefined without one. */
  readonly mean: number | undefined;
  /**
   * Counts of the finite values in equal bins over [min, max] (the last bin closed), as
   * np.histogram(values, bins, range=(min, max)) counts them in float64; [] without a finite value.
   * Integer and bool tensors get at most max - min + 1 bins, one per integer, so that no bin is
   * empty only because it falls between two integers.
   */
  readonly histogram: readonly number[];
}

type Reader = (i: number) => number;

const STAT_DTYPES: ReadonlySet<Dtype> = new Set<Dtype>([
  'bool',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'float16',
  'bfloat16',
  'float32',
  'float64',
]);

/** True for the dtypes tensorStats summarises: bool, integers, float16/bfloat16/float32/float64. */
export function hasStats(dtype: Dtype): boolean {
  return STAT_DTYPES.has(dtype);
}

/**
 * Statistics of `t`, or undefined for dtypes without an order (complex, strings, float8).
 * Two sweeps over the data and no allocation per element: the first finds the counts, the extremes
 * and the sum; the second bins the finite values, which needs the range the first one found.
 */
export function tensorStats(t: Tensor, bins = 16): TensorStats | undefined {
  if (!hasStats(t.dtype)) return undefined;
  const n = shapeSize(t.shape);
  if (t.dtype === 'int64' || t.dtype === 'uint64') return int64Stats(t, n, bins);
  const read = numberReader(t);
  if (read === undefined) return undefined;

  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  const sum = new Neumaier();
  for (let i = 0; i < n; i++) {
    const x = read(i);
    if (Number.isNaN(x)) nan++;
    else if (x === Number.POSITIVE_INFINITY) posInf++;
    else if (x === Number.NEGATIVE_INFINITY) negInf++;
    else {
      if (x < min) min = x;
      if (x > max) max = x;
      sum.add(x);
    }
  }
  const finite = n - nan - posInf - negInf;
  const base = { count: n, finite, nan, posInf, negInf };
  if (finite === 0)
    return { ...base, min: undefined, max: undefined, mean: undefined, histogram: [] };
  const integral = !t.dtype.startsWith('float') && t.dtype !== 'bfloat16';
  const k = integral ? Math.min(bins, max - min + 1) : bins;
  const { histogram, mean } = secondSweep(read, n, finite, min, max, k, sum.value());
  return { ...base, min, max, mean, histogram };
}

/** int64/uint64: exact extremes from the two 32-bit halves (no BigInt per element). */
function int64Stats(t: Tensor, n: number, bins: number): TensorStats {
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const signed = t.dtype === 'int64';
  const high: Reader = signed
    ? (i) => view.getInt32(i * 8 + 4, true)
    : (i) => view.getUint32(i * 8 + 4, true);
  const low: Reader = (i) => view.getUint32(i * 8, true);
  // hi * 2^32 is exact and adding lo rounds once: the nearest double to the integer.
  const read: Reader = (i) => high(i) * 4294967296 + low(i);
  let minHi = Number.POSITIVE_INFINITY;
  let minLo = 0;
  let maxHi = Number.NEGATIVE_INFINITY;
  let maxLo = 0;
  const sum = new Neumaier();
  for (let i = 0; i < n; i++) {
    const hi = high(i);
    const lo = low(i);
    // (signed high word, unsigned low word) compares like the 64-bit integer.
    if (hi < minHi || (hi === minHi && lo < minLo)) {
      minHi = hi;
      minLo = lo;
    }
    if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
      maxHi = hi;
      maxLo = lo;
    }
    sum.add(hi * 4294967296 + lo);
  }
  const base = { count: n, finite: n, nan: 0, posInf: 0, negInf: 0 };
  if (n === 0) return { ...base, min: undefined, max: undefined, mean: undefined, histogram: [] };
  const min = (BigInt(minHi) << 32n) + BigInt(minLo);
  const max = (BigInt(maxHi) << 32n) + BigInt(maxLo);
  const k = max - min < BigInt(bins) ? Number(max - min) + 1 : bins;
  const { histogram, mean } = secondSweep(read, n, n, Number(min), Number(max), k, sum.value());
  return { ...base, min, max, mean, histogram };
}

/** Bins the finite values (np.histogram's edge rules); recomputes the mean if the sum overflowed. */
function secondSweep(
  read: Reader,
  n: number,
  finite: number,
  min: number,
  max: number,
  bins: number,
  total: number,
): { histogram: number[]; mean: number } {
  const counts = new Array<number>(Math.max(0, bins)).fill(0);
  let lo = min;
  let hi = max;
  if (lo === hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  // Past ±8.9e307 the width overflows; halving every value is exact and keeps the bins the same.
  const scale = Number.isFinite(hi - lo) ? 1 : 0.5;
  lo *= scale;
  hi *= scale;
  const width = hi - lo;
  const step = width / bins;
  const edge = (k: number): number => (k === bins ? hi : k * step + lo);
  const binOf = (v: number): number => {
    // Only a single value too large for ±0.5 to widen the range gets here with no width.
    if (width === 0) return Math.floor(bins / 2);
    let k = Math.trunc(((v - lo) / width) * bins);
    if (k >= bins) k = bins - 1;
    // The division can land one bin off near an edge; the edges themselves decide, as in numpy.
    if (v < edge(k)) k--;
    else if (k !== bins - 1 && v >= edge(k + 1)) k++;
    return k;
  };
  // A sum of finite values can still overflow; then the mean is summed as x / count instead.
  const rescue = Number.isFinite(total) ? undefined : new Neumaier();
  for (let i = 0; i < n && (bins > 0 || rescue !== undefined); i++) {
    const x = read(i);
    if (x - x !== 0) continue; // NaN and ±Inf
    if (rescue !== undefined) rescue.add(x / finite);
    if (bins <= 0) continue;
    const k = binOf(x * scale);
    counts[k] = (counts[k] as number) + 1;
  }
  return { histogram: counts, mean: rescue === undefined ? total / finite : rescue.value() };
}

/** Neumaier's compensated sum: exact to about one rounding whatever the order of the values. */
class Neumaier {
  private sum = 0;
  private compensation = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (Math.abs(this.sum) >= Math.abs(x)) this.compensation += this.sum - t + x;
    else this.compensation += x - t + this.sum;
    this.sum = t;
  }

  value(): number {
    return this.sum + this.compensation;
  }
}

/** Element i as a number, from a typed array when the bytes are aligned for one (LE host, as core). */
function numberReader(t: Tensor): Reader | undefined {
  const { buffer, byteOffset, byteLength } = t.data;
  const view = new DataView(buffer, byteOffset, byteLength);
  const typed = <T extends ArrayLike<number>>(
    Ctor: new (b: ArrayBufferLike, o: number, l: number) => T,
    width: number,
  ): T | undefined =>
    byteOffset % width === 0 ? new Ctor(buffer, byteOffset, byteLength / width) : undefined;
  const bytes = t.data;
  switch (t.dtype) {
    case 'bool':
      return (i) => ((bytes[i] as number) !== 0 ? 1 : 0);
    case 'uint8':
      return (i) => bytes[i] as number;
    case 'int8':
      return (i) => view.getInt8(i);
    case 'int16': {
      const a = typed(Int16Array, 2);
      return a ? (i) => a[i] as number : (i) => view.getInt16(i * 2, true);
    }
    case 'uint16': {
      const a = typed(Uint16Array, 2);
      return a ? (i) => a[i] as number : (i) => view.getUint16(i * 2, true);
    }
    case 'int32': {
      const a = typed(Int32Array, 4);
      return a ? (i) => a[i] as number : (i) => view.getInt32(i * 4, true);
    }
    case 'uint32': {
      const a = typed(Uint32Array, 4);
      return a ? (i) => a[i] as number : (i) => view.getUint32(i * 4, true);
    }
    case 'float16':
      return (i) => float16ToNumber(view.getUint16(i * 2, true));
    case 'bfloat16':
      return (i) => bfloat16ToNumber(view.getUint16(i * 2, true));
    case 'float32': {
      const a = typed(Float32Array, 4);
      return a ? (i) => a[i] as number : (i) => view.getFloat32(i * 4, true);
    }
    case 'float64': {
      const a = typed(Float64Array, 8);
      return a ? (i) => a[i] as number : (i) => view.getFloat64(i * 8, true);
    }
    default:
      return undefined;
  }
}

const BLOCKS = '▁▂▃▄▅▆▇█';
const ASCII_LEVELS = '_.-=#';

/**
 * A one-line bar chart of histogram counts: an empty bin is a space, any other bin at least the
 * lowest bar, heights linear in the count. `ascii` (TERM=dumb) uses `_.-=#`.
 */
export function sparkline(counts: readonly number[], ascii = false): string {
  const levels = ascii ? ASCII_LEVELS : BLOCKS;
  let top = 0;
  for (const c of counts) if (c > top) top = c;
  let out = '';
  for (const c of counts) {
    if (c === 0) out += ' ';
    else out += levels[Math.max(1, Math.ceil((c / top) * levels.length)) - 1];
  }
  return out;
}
