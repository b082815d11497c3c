// The globals a data.pkl may name, modelled on torch.load(weights_only=True) for tensors and state
// dicts, and what REDUCE / NEWOBJ of each builds instead of calling it. Any other global is refused
// by name when it is read, before anything could use it.

import { quote } from '../text.js';
import { pickleError } from './pickle-error.js';
import { isKind, kindOf, type PickleValue, type TupleValue } from './pickle-values.js';
import { REBUILDERS } from './tensor-rebuild.js';
import { QSCHEMES, STORAGE_CLASS_DTYPES, TORCH_DTYPE_SIZES } from './torch-dtypes.js';

const emptyDict = (): PickleValue => ({ kind: 'dict', entries: null });

function noArgs(name: string, make: () => PickleValue) {
  return (args: TupleValue): PickleValue => {
    if (args.items.length !== 0) throw pickleError(`${name} with arguments is not supported`);
    return make();
  };
}

/** A builtin value torch.load rebuilds from strings or numbers: kept as its kind only. */
function plainValue(name: string, kind: 'set' | 'bytes' | 'complex', max: number) {
  return (args: TupleValue): PickleValue => {
    if (args.items.length > max) throw pickleError(`${name} takes at most ${max} arguments`);
    for (const item of args.items) {
      const ok =
        item === null ||
        typeof item !== 'object' ||
        item.kind === 'float' ||
        item.kind === 'list' ||
        item.kind === 'bytes';
      if (!ok) throw pickleError(`${name} of ${kindOf(item)} is not supported`);
    }
    return { kind };
  };
}

/** REDUCE of each callable global: the plain record it builds from the argument tuple. */
const CALLS: ReadonlyMap<string, (args: TupleValue) => PickleValue> = new Map<
  string,
  (args: TupleValue) => PickleValue
>([
  ...REBUILDERS,
  ['collections.OrderedDict', noArgs('collections.OrderedDict', emptyDict)],
  ['builtins.set', plainValue('builtins.set', 'set', 1)],
  ['_codecs.encode', plainValue('_codecs.encode', 'bytes', 2)],
  ['builtins.bytearray', plainValue('builtins.bytearray', 'bytes', 2)],
  ['builtins.complex', plainValue('builtins.complex', 'complex', 2)],
]);

/** NEWOBJ of each class global: what `cls.__new__(cls)` gives. */
const CLASSES: ReadonlyMap<string, (args: TupleValue) => PickleValue> = new Map([
  ['collections.OrderedDict', noArgs('collections.OrderedDict', emptyDict)],
  ['builtins.set', noArgs('builtins.set', () => ({ kind: 'set' }))],
]);

/** Globals that are only ever arguments: storage classes, dtypes, qschemes, torch.Tensor. */
const VALUES: ReadonlySet<string> = new Set([
  'torch.Tensor',
  'torch.storage.UntypedStorage',
  ...[...STORAGE_CLASS_DTYPES.keys()].map((name) => `torch.${name}`),
  ...[...TORCH_DTYPE_SIZES.keys()].map((name) => `torch.${name}`),
  ...[...QSCHEMES].map((name) => `torch.${name}`),
]);

/** The global `module.name` (Python 2's `__builtin__` read as `builtins`), if it is allowed. */
export function globalValue(module: string, name: string, offset: number): PickleValue {
  const full = `${module === '__builtin__' ? 'builtins' : module}.${name}`;
  if (!CALLS.has(full) && !CLASSES.has(full) && !VALUES.has(full)) {
    throw pickleError(`global ${quote(full)} at offset ${offset} is not allowed`);
  }
  return { kind: 'global', name: full };
}

function globalName(value: PickleValue): string | undefined {
  return isKind(value, 'global') ? value.name : undefined;
}

function argTuple(args: PickleValue, op: string): TupleValue {
  if (!isKind(args, 'tuple')) {
    throw pickleError(`${op} arguments are ${kindOf(args)}, not a tuple`);
  }
  return args;
}

/** REDUCE: `callable(*args)`, built as a record. */
export function reduceValue(callable: PickleValue, args: PickleValue): PickleValue {
  const name = globalName(callable);
  const call = name === undefined ? undefined : CALLS.get(name);
  if (call === undefined) {
    throw pickleError(
      `REDUCE of ${name === undefined ? kindOf(callable) : quote(name)} is not allowed`,
    );
  }
  return call(argTuple(args, 'REDUCE'));
}

/** NEWOBJ / NEWOBJ_EX: `cls.__new__(cls, *args)`, built as a record. */
export function newObjectValue(cls: PickleValue, args: PickleValue): PickleValue {
  const name = globalName(cls);
  const make = name === undefined ? undefined : CLASSES.get(name);
  if (make === undefined) {
    throw pickleError(`NEWOBJ of ${name === undefined ? kindOf(cls) : quote(name)} is not allowed`);
  }
  return make(argTuple(args, 'NEWOBJ'));
}
