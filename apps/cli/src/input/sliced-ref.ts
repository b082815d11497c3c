// The slice of an input: numpy's basic slicing written after the reference
// (`model.safetensors:embed.weight[1000:1010, ::2]`, `data.npy[..., -1]`, `-[0]` for stdin) or
// given by --slice.
// The reference's slice is its final bracket group (splitTrailingSlice), except where the whole
// text names something that exists: a file of that name, or a tensor of that name in the file
// (`h.0.attn[0]`); `NAME[...]` reads such a tensor whole, and with --slice the reference is taken
// as typed. A slice that is not numpy's grammar is a usage error (exit 2); one that does not fit
// the tensor (an index out of range, too many indices) is an error of the data (exit 1).

import {
  type FittedSlice,
  firstEntries,
  fitSlice,
  parseSlice,
  type Slice,
  splitTrailingSlice,
} from '@tensorops/io';
import type { TensorFile } from '@tensorops/io/node';
import { isOpenable } from '@tensorops/io/node/internal';
import type { Options } from 'yargs';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';

/** `--slice`, which show, convert and the gathers take for their (data) input. */
export const SLICE_FLAG = {
  slice: {
    type: 'string',
    requiresArg: true,
    describe:
      "read only part of the input, by numpy's basic slicing: '1000:1010, ::2', '-1', '..., 0' (the same as REF[1000:1010, ::2])",
  },
} as const satisfies Record<string, Options>;

/** A reference split from its slice. `typed` is the reference as typed, `ref` without the slice. */
export interface SlicedRef {
  readonly ref: string;
  readonly typed: string;
  /** The slice's text as written after the reference (brackets included). */
  readonly text?: string;
  readonly slice?: Slice;
}

/** `-` or `-[SLICE]`: standard input, sliced or not. */
export function isStdinRef(ref: string): boolean {
  return isStdio(ref) || isStdio(splitTrailingSlice(ref)?.ref ?? '');
}

/** The slice text parsed, its errors usage errors naming `where`. */
function parsed(text: string, where: string): Slice {
  try {
    return parseSlice(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/^slice: /, '') : String(error);
    throw usageError(`${where}: ${message}`);
  }
}

/** Splits `typed` from its slice, or takes --slice (`flag`) and the reference as typed. */
export function splitSlicedRef(typed: string, flag: unknown): SlicedRef {
  if (flag !== undefined) return { ref: typed, typed, slice: parsed(String(flag), '--slice') };
  const split = splitTrailingSlice(typed);
  if (split === undefined || isOpenable(typed)) return { ref: typed, typed };
  return { ref: split.ref, typed, text: split.slice, slice: parsed(split.slice, 'slice') };
}

/**
 * The tensor name to pick and the slice to apply once the file is open: when the name with the
 * slice's text names a tensor of the file, that tensor, whole.
 */
export function nameAndSlice(
  file: TensorFile,
  name: string | undefined,
  sliced: SlicedRef,
): { name: string | undefined; slice: Slice | undefined } {
  if (sliced.text !== undefined && name !== undefined) {
    const whole = name + sliced.text;
    if (file.tensors.some((t) => t.name === whole)) return { name: whole, slice: undefined };
  }
  return { name, slice: sliced.slice };
}

/**
 * The picks of `slice` (none: all of it) then `--head` (`[:N]` of the result) on a tensor of
 * `shape`; undefined when neither is given.
 */
export function fitted(
  shape: readonly number[],
  slice: Slice | undefined,
  head: number | undefined,
): FittedSlice | undefined {
  if (slice === undefined && head === undefined) return undefined;
  const picks = fitSlice(slice ?? { items: [] }, shape);
  if (head === undefined) return picks;
  if (picks.shape.length === 0) throw usageError('--head needs a tensor of at least one dimension');
  return firstEntries(picks, head);
}
