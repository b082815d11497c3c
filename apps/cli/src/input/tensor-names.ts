import { isTensorOpsError, TensorOpsError } from '@tensorops/core';
import type { StoredTensor, TensorFile } from '@tensorops/io/node';
import { editDistanceWithin, typoLimit } from '../args/edit-distance.js';
import { MAX_ERROR_CHARS } from '../run/exit-codes.js';
import { PATH_FLOOR } from '../run/shorten-message.js';
import { printable, truncateMiddle } from '../ui/layout.js';

// A name of the file in an error line is quoted whole or left to a count, never cut: the names
// quoted take only the room the rest of the line leaves once its paths are cut to their floor
// (run/shorten-message.ts), so shortening the line never reaches them.

/** Names an error message quotes before it gives the rest as a count. */
const NAMES_SHOWN = 2;
/** Names suggested for a mistyped one, the closest first. */
const SUGGESTIONS = 3;
/** A typed name longer than this gets no suggestion (the search stays linear in the names). */
const LONGEST_TYPO = 64;
/**
 * Edits a suggested name may be away from the typed one, at most: a long name's slips are few,
 * and each edit allowed widens the band every name of the file is compared within.
 */
const MOST_EDITS = 4;
/** A typed name is quoted back cut to this width, so that it leaves room for the file's names. */
const TYPED_WIDTH = 48;

function length(text: string): number {
  return [...text].length;
}

/**
 * Characters an error line has for quoted names, when its other text is `rest` quoting `path`
 * `times` times: what is left of the line once each path is cut to its floor.
 */
function roomBeside(rest: string, path: string, times: number): number {
  const cut = path.includes('/') ? Math.max(0, length(path) - PATH_FLOOR) : 0;
  return MAX_ERROR_CHARS - length(rest) + cut * times;
}

/** `'a', 'b'`: at most `most` names quoted whole, in order, while they fit `room`. */
function quoteWhole(names: readonly string[], most: number, room: number): string[] {
  const quoted: string[] = [];
  let left = room;
  for (const name of names) {
    if (quoted.length === most) break;
    const q = `'${printable(name)}'`;
    // Each name after the first takes a separator too.
    const takes = length(q) + (quoted.length === 0 ? 0 : 4);
    if (takes > left) continue;
    quoted.push(q);
    left -= takes;
  }
  return quoted;
}

/**
 * `'a', 'b' and 298 more: tensorops inspect FILE`: a checkpoint's tensor list cut to what fits
 * the error line whose other text is `rest`, with where to see all of it.
 */
export function namesHint(path: string, names: readonly (string | null)[], rest: string): string {
  const shown = printable(path);
  const frame = ` and ${names.length} more: tensorops inspect ${shown}`;
  const times = rest.split(path).length;
  const room = roomBeside(rest + frame, path, times);
  const quoted = quoteWhole(
    names.map((n) => n ?? ''),
    NAMES_SHOWN,
    room,
  );
  if (quoted.length === names.length) return quoted.join(', ');
  const more = `${names.length - quoted.length} more: tensorops inspect ${shown}`;
  return quoted.length === 0 ? more : `${quoted.join(', ')} and ${more}`;
}

/**
 * The names nearest `typed` by edit distance (a typo: at most a third of its length and
 * {@link MOST_EDITS} edits apart), and the names that end with `.typed` (a prefix left off, taken
 * as {@link MOST_EDITS} edits away), closest first, then in file order.
 */
export function closestNames(typed: string, names: readonly string[]): string[] {
  if (typed.length === 0 || typed.length > LONGEST_TYPO) return [];
  const limit = Math.min(typoLimit(typed), MOST_EDITS);
  // The best so far, closest first; once full, a name must beat the last to get in, so the
  // limit it is measured against shrinks.
  const best: { name: string; distance: number }[] = [];
  for (const name of names) {
    const full = best.length === SUGGESTIONS;
    const within = full ? (best.at(-1)?.distance ?? 0) - 1 : limit;
    if (within < 0 || name === typed) continue;
    const distance = name.endsWith(`.${typed}`) ? limit : editDistanceWithin(typed, name, within);
    if (distance > within) continue;
    if (full) best.pop();
    const at = best.findIndex((b) => b.distance > distance);
    best.splice(at === -1 ? best.length : at, 0, { name, distance });
  }
  return best.map((b) => b.name);
}

/** `'a', 'b' or 'c'`. */
function oneOf(quoted: readonly string[]): string {
  const last = quoted.length - 1;
  return last === 0
    ? (quoted[0] as string)
    : `${quoted.slice(0, last).join(', ')} or ${quoted[last]}`;
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
    if (name === undefined) {
      const rest = `${path}: holds ${all.length} tensors (); pick one as ${path}:NAME`;
      const names = namesHint(
        path,
        all.map((t) => t.name),
        rest,
      );
      throw new TensorOpsError(
        'E_TENSOR_NOT_FOUND',
        `${path}: holds ${all.length} tensors (${names}); pick one as ${path}:NAME`,
        { cause: error },
      );
    }
    const missing = `${path}: no tensor '${truncateMiddle(printable(name), TYPED_WIDTH)}'`;
    const closest = closestNames(
      name,
      all.map((t) => t.name ?? ''),
    );
    const suggested = quoteWhole(
      closest,
      SUGGESTIONS,
      roomBeside(`${missing}; did you mean ?`, path, 1),
    );
    if (suggested.length > 0) {
      throw new TensorOpsError(
        'E_TENSOR_NOT_FOUND',
        `${missing}; did you mean ${oneOf(suggested)}?`,
        {
          cause: error,
        },
      );
    }
    const names = namesHint(
      path,
      all.map((t) => t.name),
      `${missing} (it holds )`,
    );
    throw new TensorOpsError('E_TENSOR_NOT_FOUND', `${missing} (it holds ${names})`, {
      cause: error,
    });
  }
}
