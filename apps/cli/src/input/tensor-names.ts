import { isTensorOpsError, TensorOpsError } from '@tensorops/core';
import type { StoredTensor, TensorFile } from '@tensorops/io/node';
import { printable, truncateMiddle } from '../ui/layout.js';

/** Names an error message quotes before it gives the rest as a count. */
const NAMES_SHOWN = 2;
/** A single quoted name is cut (keeping both ends) so a long one cannot fill the line. */
const NAME_WIDTH = 40;

/**
 * `'a', 'b' and 298 more: tensorops inspect FILE`: a checkpoint's tensor list
 * cut to what fits one error line, with where to see all of it.
 */
export function namesHint(path: string, names: readonly (string | null)[]): string {
  const shown = names
    .slice(0, NAMES_SHOWN)
    .map((n) => `'${truncateMiddle(printable(n ?? ''), NAME_WIDTH)}'`)
    .join(', ');
  if (names.length <= NAMES_SHOWN) return shown;
  return `${shown} and ${names.length - NAMES_SHOWN} more: tensorops inspect ${printable(path)}`;
}

/**
 * The tensor `name` of `file` (undefined: its only one), as `file.get` finds it. When it is
 * missing or ambiguous, the library's message is reworded for the shell: the list of names cut by
 * {@link namesHint}, with how to pick, and a name given to a .npy file is to be dropped.
 */
export function pickTensor(file: TensorFile, name: string | undefined): StoredTensor {
  try {
    return file.get(name);
  } catch (error) {
    if (!isTensorOpsError(error) || error.code !== 'E_TENSOR_NOT_FOUND') throw error;
    const { path, tensors } = file;
    if (file.format === 'npy') {
      if (name === undefined) throw error;
      throw new TensorOpsError(
        'E_TENSOR_NOT_FOUND',
        `${path}: a .npy file holds one unnamed tensor; drop ':${printable(name)}'`,
        { cause: error },
      );
    }
    const unreadable = file.notTensors.filter((o) => o.kind === 'unreadable');
    const all = name === undefined ? [...tensors, ...unreadable] : tensors;
    if (all.length === 0) throw error;
    const names = namesHint(
      path,
      all.map((t) => t.name),
    );
    throw new TensorOpsError(
      'E_TENSOR_NOT_FOUND',
      name === undefined
        ? `${path}: holds ${all.length} tensors (${names}); pick one as ${path}:NAME`
        : `${path}: no tensor '${printable(name)}' (it holds ${names})`,
      { cause: error },
    );
  }
}
