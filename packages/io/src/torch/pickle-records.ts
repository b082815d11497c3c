// What a torch checkpoint's data.pkl says, once read without executing anything: the tensors of
// the state dict, each naming its storage (a `data/KEY` member of the archive), and a count of
// the entries that are not tensors.

import { runPickle } from './pickle-vm.js';
import { stateDictOf } from './state-dict.js';

/** torch's dtype name without the `torch.` prefix: `float32`, `bfloat16`, `float8_e4m3fn`, `bool`. */
export type TorchDtypeName = string;

export interface TorchStorageRef {
  /** The archive member `<prefix>/data/<key>` holds the storage's bytes. */
  readonly key: string;
  readonly dtype: TorchDtypeName;
  /** Elements of `dtype` the pickle declares the storage to hold. */
  readonly numel: number;
}

export interface TorchTensorRecord {
  /** The state dict key; nested dicts joined by `.` as state_dict() writes them. */
  readonly name: string;
  readonly storage: TorchStorageRef;
  /** In elements of the storage's dtype. */
  readonly storageOffset: number;
  readonly shape: readonly number[];
  /** In elements. */
  readonly strides: readonly number[];
}

export interface TorchPickle {
  /** In the order the pickle lists them. */
  readonly tensors: readonly TorchTensorRecord[];
  /**
   * Entries of the state dict (after flattening) that are not tensors: numbers, strings, lists,
   * and entries under keys that are not strings (an optimizer's per-parameter state).
   */
  readonly otherEntries: number;
}

/**
 * Reads a data.pkl: only the opcodes torch.save emits and only the globals
 * torch.load(weights_only=True) allows; anything else throws E_FORMAT naming it. Nothing is called.
 */
export function readTorchPickle(bytes: Uint8Array): TorchPickle {
  return stateDictOf(runPickle(bytes), bytes.length);
}
