// An error message cut to one readable line without losing its reason. What makes a message long
// is what it quotes, not what it says: a path (a model cache's can take 160 characters), a URL, a
// quoted name or value. So those are shortened, paths first, and the words between them are kept.

import { isAbsolute, relative } from 'node:path';
import { truncateMiddle } from '../ui/layout.js';

/** A path or URL is never cut below this (its file name, when that fits, stays whole). */
export const PATH_FLOOR = 32;
/** A quoted name or value is never cut below this, nor is anything shorter touched. */
const WORD_FLOOR = 20;
/** Characters a cut path keeps from its start (`/tmp`, `http`), so it still reads as one. */
const PATH_HEAD = 4;

/** One space-separated word of a message: its text, and its punctuation kept off each end. */
interface Word {
  readonly lead: string;
  core: string;
  readonly trail: string;
  readonly kind: 'path' | 'quoted' | 'plain';
}

/**
 * `message` in at most `width` characters. Paths (words with a `/` that are not quoted) inside
 * `cwd` are shown relative to it, then cut in their middle to one common length; if that
 * is not enough, long quoted names and values are cut the same way. Only a message that is still
 * too long, which would have to be made of more than `width` characters of short words, is cut
 * in its middle as a whole.
 */
export function shortenMessage(message: string, width: number, cwd?: string): string {
  if (length(message) <= width) return message;
  const words = message.split(' ').map(parseWord);
  for (const w of words) {
    if (w.kind === 'path' && cwd !== undefined && isAbsolute(w.core)) {
      // Only inside the working folder: `../../..` says less than the start of the path.
      const near = relative(cwd, w.core) || '.';
      if (near.length < w.core.length && near !== '..' && !near.startsWith('../')) w.core = near;
    }
  }
  let line = render(words);
  if (length(line) <= width) return line;
  line = shrink(words, 'path', PATH_FLOOR, width, elidePath);
  if (length(line) <= width) return line;
  line = shrink(words, 'quoted', WORD_FLOOR, width, truncateMiddle);
  return length(line) <= width ? line : truncateMiddle(line, width);
}

/**
 * Cuts every word of `kind` to the longest common length (not below `floor`) that lets the line
 * fit in `width`, keeps the cut in `words`, and returns the line. A binary search over the length:
 * each try renders the line once.
 */
function shrink(
  words: Word[],
  kind: Word['kind'],
  floor: number,
  width: number,
  cut: (text: string, width: number) => string,
): string {
  const cores = words.map((w) => w.core);
  const at = (cap: number) =>
    words.map((w, i) => (w.kind === kind ? cut(cores[i] as string, cap) : (cores[i] as string)));
  const fits = (cap: number) => length(render(words, at(cap))) <= width;
  let low = floor;
  let high = floor;
  for (const w of words) if (w.kind === kind) high = Math.max(high, length(w.core));
  if (fits(high)) return render(words);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  const chosen = at(low);
  words.forEach((w, i) => {
    w.core = chosen[i] as string;
  });
  return render(words);
}

function render(words: readonly Word[], cores: readonly string[] = words.map((w) => w.core)) {
  return words.map((w, i) => `${w.lead}${cores[i]}${w.trail}`).join(' ');
}

// Punctuation a message puts around what it quotes: `(it holds 'a', 'b')`, `FILE: reason`.
const LEAD = new Set(['(', '[']);
const TRAIL = new Set([')', ']', ':', ';', ',', '.']);

function parseWord(text: string): Word {
  let start = 0;
  while (start < text.length && LEAD.has(text[start] as string)) start++;
  let end = text.length;
  while (end > start && TRAIL.has(text[end - 1] as string)) end--;
  const [lead, core, trail] = [text.slice(0, start), text.slice(start, end), text.slice(end)];
  const quoted = core.startsWith("'") || core.startsWith('"');
  const kind = quoted ? 'quoted' : core.includes('/') ? 'path' : 'plain';
  return { lead, core, trail, kind };
}

/**
 * `/tmp/hub/mo…/snapshots/0e9e/model.safetensors`: `path` in `width` characters, its end kept
 * whole from a `/` on (the file's name, and the folders nearest it while they take at most two
 * thirds), its start filling the rest. A file name too long for that is cut in its middle.
 */
export function elidePath(path: string, width: number): string {
  const chars = [...path];
  if (chars.length <= width) return path;
  const room = width - 1; // the characters beside the '…'
  let tail = 0;
  for (let i = chars.length - 1; i > 0; i--) {
    if (chars[i] !== '/') continue;
    const size = chars.length - i;
    if (size > room - PATH_HEAD || (tail > 0 && size > (room * 2) / 3)) break;
    tail = size;
  }
  if (tail === 0) return truncateMiddle(path, width);
  return `${chars.slice(0, room - tail).join('')}…${chars.slice(-tail).join('')}`;
}

/** Length in characters (code points), as a terminal counts them. */
function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
