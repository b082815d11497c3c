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

type DictKey = string | number | bigint | symbol | object;
type DictEntry = { readonly key: PickleValue; readonly value: PickleValue };

/**
 * A dict or OrderedDict in insertion order. Keys equal as Python compares them (str by value,
 * int/float/bool by number, None) replace the value in place; other keys (tuples, bytes) are never
 * merged, as a state dict never uses them. The map is made on the first entry, so an empty dict
 * costs one small object.
 */
export interface DictValue {
  readonly kind: 'dict';
  entries: Map<DictKey, DictEntry> | null;
}

const NONE_KEY = Symbol('None');
const NO_ENTRIES: ReadonlyMap<DictKey, DictEntry> = new Map();

export function dictSet(dict: DictValue, key: PickleValue, value: PickleValue): void {
  dict.entries ??= new Map();
  dict.entries.set(dictKeyOf(key), { key, value });
}

export function dictEntries(dict: DictValue): ReadonlyMap<DictKey, DictEntry> {
  return dict.entries ?? NO_ENTRIES;
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

type PickleObject = Exclude<PickleValue, null | boolean | number | bigint | string>;

/** Whether `value` is an object of this kind (a tuple, a dict, a global...). */
export function isKind<K extends PickleObject['kind']>(
  value: PickleValue,
  kind: K,
): value is Extract<PickleObject, { kind: K }> {
  return value !== null && typeof value === 'object' && value.kind === kind;
}

/** What a value is, for messages: `str`, `int 7`, `tuple`. */
export function kindOf(value: PickleValue): string {
  if (value === null) return 'None';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
    case 'bigint':
      return `int ${value}`;
    case 'string':
      return 'str';
    default:
      return value.kind;
  }
}

/**
 * The Map key of a dict key: one value for keys Python finds equal (`1`, `1.0`, `True`), the key
 * itself otherwise. A str is its own Map key, so a long key shared through the memo is hashed once.
 */
function dictKeyOf(key: PickleValue): DictKey {
  if (key === null) return NONE_KEY;
  switch (typeof key) {
    case 'string':
    case 'number':
    case 'bigint':
      return key;
    case 'boolean':
      return key ? 1 : 0;
    default: {
      // A NaN, a tuple or bytes is compared by identity; no int equals 1.5 or Infinity.
      if (key.kind !== 'float' || Number.isNaN(key.value)) return key;
      if (!Number.isInteger(key.value)) return key.value;
      return Number.isSafeInteger(key.value) ? key.value : BigInt(key.value);
    }
  }
}
