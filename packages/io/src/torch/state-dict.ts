// A data.pkl's value as a state dict: tensors under string keys of dicts, nested dicts joined by
// `.` as state_dict() writes them (`{"model": {"fc.weight": t}}` -> `model.fc.weight`), in the
// order the dicts list them. The root may be a dict (a state dict, or one wrapping it under
// `model` / `state_dict` beside optimizer state and numbers) or a lone tensor (torch.save(tensor)),
// named ''.
//
// Counted in otherEntries and not entered: any value that is neither a dict nor a tensor (numbers,
// strings, lists, tuples, sets), and any entry whose key is not a string. So the tensors of an
// optimizer's state (a dict keyed by parameter index, a list of param_groups) and tensors inside
// lists or tuples are not state-dict tensors: their names would not be the state dict's keys.
//
// The walk is iterative. It refuses dicts nested deeper than MAX_DEPTH, more steps than the
// pickle has bytes (a pickle can share one dict many times over, or hold itself), and names longer
// in all than NAME_CHARS_PER_BYTE times its bytes, so it stays linear in the pickle.

import { quote } from '../text.js';
import { pickleError } from './pickle-error.js';
import type { TorchPickle, TorchTensorRecord } from './pickle-records.js';
import {
  type DictValue,
  dictEntries,
  isKind,
  type PickleValue,
  type TensorValue,
} from './pickle-values.js';

const MAX_DEPTH = 64;
const NAME_CHARS_PER_BYTE = 4;

interface Frame {
  readonly prefix: string;
  readonly depth: number;
  readonly entries: Iterator<{ key: PickleValue; value: PickleValue }>;
}

class Flattener {
  readonly tensors: TorchTensorRecord[] = [];
  otherEntries = 0;
  private readonly names = new Set<string>();
  private readonly storages = new Map<string, { dtype: string; numel: number }>();
  private steps: number;
  private nameChars: number;

  constructor(inputBytes: number) {
    this.steps = inputBytes;
    this.nameChars = NAME_CHARS_PER_BYTE * inputBytes;
  }

  private step(): void {
    this.steps -= 1;
    if (this.steps < 0) {
      throw pickleError('the state dict repeats shared dicts more than the pickle has bytes');
    }
  }

  private name(prefix: string, key: string): string {
    this.nameChars -= prefix.length + key.length;
    if (this.nameChars < 0) {
      throw pickleError(
        `the state dict's names are longer than ${NAME_CHARS_PER_BYTE} times its bytes`,
      );
    }
    return prefix + key;
  }

  private storage(tensor: TensorValue) {
    const { key, dtype, numel } = tensor.storage;
    const seen = this.storages.get(key);
    if (seen === undefined) this.storages.set(key, { dtype, numel });
    else if (seen.dtype !== dtype || seen.numel !== numel) {
      throw pickleError(
        `storage ${quote(key)} is both ${seen.numel} ${seen.dtype} and ${numel} ${dtype}`,
      );
    }
    return { key, dtype, numel };
  }

  addTensor(name: string, tensor: TensorValue): void {
    if (this.names.has(name)) throw pickleError(`the state dict names ${quote(name)} twice`);
    this.names.add(name);
    this.tensors.push({
      name,
      storage: this.storage(tensor),
      storageOffset: tensor.storageOffset,
      shape: tensor.shape,
      strides: tensor.strides,
    });
  }

  walk(root: DictValue): void {
    const frames: Frame[] = [
      { prefix: '', depth: 1, entries: dictEntries(root)[Symbol.iterator]() },
    ];
    for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
      const next = frame.entries.next();
      if (next.done) {
        frames.pop();
        continue;
      }
      const { key, value } = next.value;
      this.step();
      if (typeof key !== 'string' || !(isKind(value, 'tensor') || isKind(value, 'dict'))) {
        this.otherEntries += 1;
        continue;
      }
      const name = this.name(frame.prefix, key);
      if (isKind(value, 'tensor')) {
        this.addTensor(name, value);
      } else if (frame.depth >= MAX_DEPTH) {
        throw pickleError(`dicts nest deeper than ${MAX_DEPTH} levels under ${quote(name)}`);
      } else {
        frames.push({
          prefix: `${name}.`,
          depth: frame.depth + 1,
          entries: dictEntries(value)[Symbol.iterator](),
        });
      }
    }
  }
}

export function stateDictOf(root: PickleValue, inputBytes: number): TorchPickle {
  const flattener = new Flattener(inputBytes);
  if (isKind(root, 'dict')) flattener.walk(root);
  else if (isKind(root, 'tensor')) {
    flattener.addTensor('', root);
  } else flattener.otherEntries = 1;
  return { tensors: flattener.tensors, otherEntries: flattener.otherEntries };
}
