// The values the pickle machine builds. Nothing here is a Python object: an allowed global stays a
// name, and what torch would construct from it (a storage, a tensor) is a plain record.

/** A global the allow-list admits, by its dotted name (`torch._utils._rebuild_tensor_v2`). */
export interface GlobalValue {
  readonly kind: 'global';
  readonly name: string;
}

/** A list, kept as its kind only: nothing reads a list's items. */
export interface ListValue {
  readonly kind: 'list';
}

export interface TupleValue {
  readonly kind: 'tuple';
  readonly items: readonly PickleValue[];
}

type DictKey = string | number | bigint | symbol | object;
/** An entry, with the key as dictKeyOf gives it. */
type DictEntry = { readonly at: DictKey; readonly key: PickleValue; readonly value: PickleValue };

/**
 * A dict or OrderedDict in insertion order. Keys equal as Python compares them (str by value,
 * int/float/bool by number, None) replace the value in place; other keys (tuples, bytes) are never
 * merged, as a state dict never uses them. An empty dict is one small object; a small one keeps
 * its entries in an array, searched in order, as a Map costs a few hundred bytes however few
 * entries it holds (a hostile pickle makes a dict for each byte or two); a larger one, a Map.
 */
export interface DictValue {
  readonly kind: 'dict';
  entries: DictEntry[] | Map<DictKey, DictEntry> | null;
}

/** Entries a dict keeps in an array before it makes a Map. */
const SMALL_DICT = 8;
const NONE_KEY = Symbol('None');

/** Sets `key` to `value`; true where the key is new (an entry more), false where it replaced one. */
export function dictSet(dict: DictValue, key: PickleValue, value: PickleValue): boolean {
  const entry = { at: dictKeyOf(key), key, value };
  const { entries } = dict;
  if (entries === null) {
    dict.entries = [entry];
    return true;
  }
  if (!Array.isArray(entries)) {
    const added = !entries.has(entry.at);
    entries.set(entry.at, entry);
    return added;
  }
  // dictKeyOf's keys are never NaN, so === is the Map's SameValueZero.
  const same = entries.findIndex((e) => e.at === entry.at);
  if (same >= 0) entries[same] = entry;
  else if (entries.length < SMALL_DICT) entries.push(entry);
  else dict.entries = new Map([...entries, entry].map((e) => [e.at, e]));
  return same < 0;
}

/** The entries, in insertion order. */
export function dictEntries(dict: DictValue): Iterable<DictEntry> {
  const { entries } = dict;
  return entries === null ? [] : Array.isArray(entries) ? entries : entries.values();
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
