// The values the pickle machine builds. Nothing here is a Python object: an allowed global stays a
// name, and what torch would construct from it (a storage, a tensor) is a plain record.

/** A global the allow-list admits, by its dotted name (`torch._utils._rebuild_tensor_v2`). */
export interface GlobalValue {
  readonly kind: 'global';
  readonly name: string;
}

export interface ListValue {
  readonly kind: 'list';
  readonly items: PickleValue[];
}

export interface TupleValue {
  readonly kind: 'tuple';
  readonly items: readonly PickleValue[];
}

/**
 * A dict or OrderedDict in insertion order. Keys equal as Python compares them (str by value,
 * int/float/bool by number, None) replace the value in place; other keys (tuples, bytes) are never
 * merged, as a state dict never uses them.
 */
export interface DictValue {
  readonly kind: 'dict';
  readonly entries: Map<string | object, { key: PickleValue; value: PickleValue }>;
}

/** A Python float (ints are numbers when safe, else bigints). */
export interface FloatValue {
  readonly kind: 'float';
  readonly value: number;
}

/** A value kept only as a kind: set, frozenset, bytes, bytearray, complex. */
export interface OpaqueValue {
  readonly kind: 'set' | 'frozenset' | 'bytes' | 'complex';
}

/** A persistent id `('storage', storage_type, key, location, numel)`. */
export interface StorageValue {
  readonly kind: 'storage';
  readonly key: string;
  /** The dtype of the storage type; `uint8` for an UntypedStorage, whose numel is in bytes. */
  readonly dtype: string;
  readonly untyped: boolean;
  readonly numel: number;
}

export interface TensorValue {
  readonly kind: 'tensor';
  readonly storage: StorageValue;
  readonly dtype: string;
  readonly storageOffset: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
}

export type PickleValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | FloatValue
  | GlobalValue
  | ListValue
  | TupleValue
  | DictValue
  | OpaqueValue
  | StorageValue
  | TensorValue;

export type PickleObject = Exclude<PickleValue, null | boolean | number | bigint | string>;

/** What a value is, for messages: `str`, `int`, `tuple`, `global torch.float32`. */
export function kindOf(value: PickleValue): string {
  if (value === null) return 'None';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
    case 'bigint':
      return 'int';
    case 'string':
      return 'str';
    default:
      return value.kind;
  }
}

/** The key two dict keys share when Python finds them equal (`1`, `1.0`, `True`); else the key itself. */
export function dictKeyOf(key: PickleValue): string | object {
  if (key === null) return 'none';
  switch (typeof key) {
    case 'string':
      return `s${key}`;
    case 'boolean':
      return key ? 'n1' : 'n0';
    case 'bigint':
    case 'number':
      return `n${key}`;
    default:
      if (key.kind !== 'float' || Number.isNaN(key.value)) return key;
      return Number.isInteger(key.value) ? `n${BigInt(key.value)}` : `n${key.value}`;
  }
}
