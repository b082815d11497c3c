// GGUF metadata values: the thirteen value types, arrays of any of them (arrays of arrays too),
// read as gguf-py's GGUFReader reads them. 64-bit integers are bigints (exact beyond 2^53);
// float32 values are the doubles they convert to exactly.

import { TensorOpsError } from '@tensorops/core';
import { quote } from '../text.js';
import type { GgufCursor } from './cursor.js';

/** gguf-py's GGUFValueType names, lower case, by type id. */
export const GGUF_VALUE_TYPES = [
  'uint8',
  'int8',
  'uint16',
  'int16',
  'uint32',
  'int32',
  'float32',
  'bool',
  'string',
  'array',
  'uint64',
  'int64',
  'float64',
] as const;

export type GgufValueType = (typeof GGUF_VALUE_TYPES)[number];

export interface GgufArray {
  readonly itemType: GgufValueType;
  readonly items: readonly GgufValue[];
}

export type GgufValue = number | bigint | boolean | string | GgufArray;

export interface GgufEntry {
  readonly key: string;
  readonly type: GgufValueType;
  readonly value: GgufValue;
}

/** Arrays nest at most this deep: deeper is refused before any recursion goes further. */
export const GGUF_MAX_ARRAY_NESTING = 64;

/** The fewest bytes one value of each type takes: an array's count must fit the bytes left. */
const MIN_BYTES: Readonly<Record<GgufValueType, number>> = {
  uint8: 1,
  int8: 1,
  bool: 1,
  uint16: 2,
  int16: 2,
  uint32: 4,
  int32: 4,
  float32: 4,
  uint64: 8,
  int64: 8,
  float64: 8,
  string: 8,
  array: 12,
};

function valueType(cursor: GgufCursor, what: string): GgufValueType {
  const at = cursor.position;
  const id = cursor.u32(`${what} type`);
  const type = GGUF_VALUE_TYPES[id];
  if (type === undefined) {
    throw new TensorOpsError(
      'E_FORMAT',
      `GGUF ${what} at offset ${at} has value type ${id}, which GGUF does not define (0 to 12)`,
    );
  }
  return type;
}

function readScalar(cursor: GgufCursor, type: Exclude<GgufValueType, 'array'>, what: string) {
  switch (type) {
    case 'uint8':
      return cursor.u8(what);
    case 'int8':
      return cursor.i8(what);
    case 'uint16':
      return cursor.u16(what);
    case 'int16':
      return cursor.i16(what);
    case 'uint32':
      return cursor.u32(what);
    case 'int32':
      return cursor.i32(what);
    case 'float32':
      return cursor.f32(what);
    case 'bool':
      return cursor.u8(what) !== 0;
    case 'string':
      return cursor.string(what);
    case 'uint64':
      return cursor.u64(what);
    case 'int64':
      return cursor.i64(what);
    case 'float64':
      return cursor.f64(what);
  }
}

function readValue(
  cursor: GgufCursor,
  type: GgufValueType,
  what: string,
  depth: number,
): GgufValue {
  if (type !== 'array') return readScalar(cursor, type, what);
  if (depth >= GGUF_MAX_ARRAY_NESTING) {
    throw new TensorOpsError(
      'E_FORMAT',
      `GGUF ${what} at offset ${cursor.position} nests arrays more than ${GGUF_MAX_ARRAY_NESTING} deep`,
    );
  }
  const itemType = valueType(cursor, `${what} item`);
  const count = cursor.size(
    `${what} length`,
    Math.floor(Math.max(0, cursor.left - 8) / MIN_BYTES[itemType]),
    `more ${itemType} items than the rest of the file can hold`,
  );
  const items: GgufValue[] = new Array(count);
  for (let i = 0; i < count; i++) items[i] = readValue(cursor, itemType, what, depth + 1);
  return { itemType, items };
}

/** One key and its typed value. */
export function readEntry(cursor: GgufCursor, index: number): GgufEntry {
  const key = cursor.string(`metadata key ${index}`);
  const what = `metadata value ${quote(key)}`;
  const type = valueType(cursor, what);
  return { key, type, value: readValue(cursor, type, what, 0) };
}
