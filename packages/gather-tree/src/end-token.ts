import {
  bfloat16ToNumber,
  type Dtype,
  float16ToNumber,
  formatShape,
  isIntegerDtype,
  type Tensor,
  TensorOpsError,
  tensorFrom,
  tensorValues,
} from '@tensorops/core';
import { integerRange } from '@tensorops/core/internal';

/** Dtypes GatherTree accepts for step ids (and therefore produces). */
export type StepDtype =
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'float32'
  | 'float64';

export const STEP_DTYPES: readonly StepDtype[] = [
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'float32',
  'float64',
];

export function isStepDtype(dtype: Dtype): dtype is StepDtype {
  return (STEP_DTYPES as readonly string[]).includes(dtype);
}

/** The end marker: a plain number, a bigint (exact for 64-bit ids) or a scalar tensor. */
export type EndToken = number | bigint | Tensor;

/** The end token converted exactly into the step dtype. */
export interface ResolvedEndToken {
  /** Exact value: bigint for int64/uint64, number otherwise (-0 kept for float dtypes). */
  readonly value: number | bigint;
  /** Its little-endian element bytes in the step dtype. */
  readonly bits: Uint8Array;
}

/**
 * Converts `endToken` into `dtype` without rounding. A value the dtype cannot hold exactly
 * (2.5 or 2^40 for int32, 2^24+1 for float32, NaN anywhere) could never match a step id,
 * so it is an E_VALUE error rather than a silently useless marker.
 */
export function resolveEndToken(
  endToken: EndToken,
  dtype: StepDtype,
  op: string,
  input = 'step_ids',
): ResolvedEndToken {
  const raw = typeof endToken === 'object' ? scalarValue(endToken, op) : endToken;
  const range = isIntegerDtype(dtype) ? integerRange(dtype) : undefined;
  if (range !== undefined) {
    const exact = typeof raw === 'bigint' ? raw : Number.isInteger(raw) ? BigInt(raw) : undefined;
    if (exact === undefined || exact < range[0] || exact > range[1]) {
      throw new TensorOpsError(
        'E_VALUE',
        `${op}: end_token ${show(raw)} does not fit ${input} dtype ${dtype} (integers in [${range[0]}, ${range[1]}])`,
      );
    }
    const value = dtype === 'int64' || dtype === 'uint64' ? exact : Number(exact);
    return { value, bits: tensorFrom(dtype, [], [value]).data };
  }
  const value = typeof raw === 'bigint' ? Number(raw) : raw;
  const fits =
    Number.isInteger(value) &&
    (typeof raw !== 'bigint' || BigInt(value) === raw) &&
    (dtype === 'float64' || Math.fround(value) === value);
  if (!fits) {
    throw new TensorOpsError(
      'E_VALUE',
      `${op}: end_token ${show(raw)} does not fit ${input} dtype ${dtype} (integral values ${dtype} holds exactly)`,
    );
  }
  return { value, bits: tensorFrom(dtype, [], [value]).data };
}

function scalarValue(t: Tensor, op: string): number | bigint {
  if (t.shape.length !== 0) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${op}: end_token must be a scalar (shape []), got shape ${formatShape(t.shape)}`,
    );
  }
  if (t.dtype === 'float16' || t.dtype === 'bfloat16') {
    const bits = (t.data[0] as number) | ((t.data[1] as number) << 8);
    return t.dtype === 'float16' ? float16ToNumber(bits) : bfloat16ToNumber(bits);
  }
  if (isStepDtype(t.dtype)) return tensorValues(t)[0] as number | bigint;
  throw new TensorOpsError(
    'E_DTYPE',
    `${op}: end_token must have an integer or float dtype, got ${t.dtype}`,
  );
}

/** A value for messages; keeps the sign of -0. */
export function show(v: number | bigint): string {
  return Object.is(v, -0) ? '-0' : String(v);
}
