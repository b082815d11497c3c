import type { Tensor } from '@tensorops/core';
import type { TensorStream } from '@tensorops/io/node';
import { usageError } from '../args/usage-errors.js';

/** A tensor to write: its name (undefined: the sink picks one) and its data. */
export interface Entry {
  readonly name: string | undefined;
  readonly data: Tensor | TensorStream;
}

/** The one entry of a sink that holds one tensor; several are a usage error naming `what`. */
export function onlyEntry(entries: readonly Entry[], what: string): Entry {
  const [only, ...rest] = entries;
  if (only === undefined || rest.length > 0) {
    throw usageError(
      `${what} holds one tensor and there are ${entries.length}; write a .npz or .safetensors file`,
    );
  }
  return only;
}
