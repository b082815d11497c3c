import { TensorOpsError } from './errors.js';

/** Item sizes in bytes of the fixed-size dtypes, by their numpy / ml_dtypes names. */
export const DTYPE_SIZES = {
  bool: 1,
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  uint64: 8,
  float16: 2,
  bfloat16: 2,
  float32: 4,
  float64: 8,
  complex64: 8,
  complex128: 16,
  float8_e4m3fn: 1,
  float8_e4m3fnuz: 1,
  float8_e5m2: 1,
  float8_e5m2fnuz: 1,
  float8_e8m0fnu: 1,
} as const;

export type NumericDtype = keyof typeof DTYPE_SIZES;

/**
 * Fixed-width strings as numpy stores them: `U<n>` is n UTF-32 code units (4n bytes),
 * `S<n>` is n raw bytes. Kernels treat them as opaque elements of their item size.
 */
export type StringDtype = `U${number}` | `S${number}`;

export type Dtype = NumericDtype | StringDtype;

export type IntegerDtype =
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64';

const INTEGER_DTYPES: ReadonlySet<string> = new Set<IntegerDtype>([
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
]);

export const NUMERIC_DTYPES = Object.keys(DTYPE_SIZES) as readonly NumericDtype[];

export function isIntegerDtype(dtype: Dtype): dtype is IntegerDtype {
  return INTEGER_DTYPES.has(dtype);
}

/** The values an integer dtype holds: [min, max], both included. */
export function integerRange(dtype: IntegerDtype): readonly [bigint, bigint] {
  const bits = BigInt(DTYPE_SIZES[dtype] * 8);
  return dtype[0] === 'u' ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
}

export function isStringDtype(dtype: Dtype): dtype is StringDtype {
  return !isNumericName(dtype);
}

// Object.hasOwn, not `in`: names come from files and flags, and `'toString' in {}` is true.
function isNumericName(name: string): name is NumericDtype {
  return Object.hasOwn(DTYPE_SIZES, name);
}

/** Bytes per element. */
export function dtypeSize(dtype: Dtype): number {
  if (isNumericName(dtype)) return DTYPE_SIZES[dtype];
  const width = stringWidth(dtype);
  if (width === undefined) throw new TensorOpsError('E_DTYPE', `unknown dtype '${dtype}'`);
  return dtype[0] === 'U' ? width * 4 : width;
}

/** Checks a dtype name from an untrusted source (a file header, a flag). */
export function parseDtype(name: string): Dtype {
  if (isNumericName(name)) return name;
  if (stringWidth(name) !== undefined) return name as StringDtype;
  throw new TensorOpsError('E_DTYPE', `unknown dtype '${name}'`);
}

function stringWidth(name: string): number | undefined {
  if (name.length < 2 || (name[0] !== 'U' && name[0] !== 'S')) return undefined;
  const digits = name.slice(1);
  for (const ch of digits) if (ch < '0' || ch > '9') return undefined;
  if (digits.length > 1 && digits[0] === '0') return undefined;
  const width = Number(digits);
  // Width 0 (`U0`, `S0`) is what numpy reads from such a header: elements of no bytes, each ''.
  return width <= 0x3fffffff ? width : undefined;
}
