import { statSync } from 'node:fs';
import { openTensorFile } from '@tensorops/io/node';

// Completing FILE:NAME for a local tensor file, from its header (or zip directory) only.

/** The ref being typed: its file, the start of a name, and what the shell replaces. */
interface TypedRef {
  readonly file: string;
  readonly start: string;
  /** What each candidate begins with, for the word the shell will replace. */
  readonly lead: string;
}

/**
 * The FILE:START the last words spell. bash breaks words at `:` (COMP_WORDBREAKS), so it sends
 * `FILE`, `:` and `START` (or `FILE`, `:`) and replaces only the last word: a candidate is then
 * the name (`:NAME` right after the `:`). zsh and fish send `FILE:START` whole.
 */
function typedRef(words: readonly string[]): TypedRef | undefined {
  const last = words.at(-1) ?? '';
  const [before, beforeThat] = [words.at(-2), words.at(-3)];
  if (last === ':' && before !== undefined) return { file: before, start: '', lead: ':' };
  if (before === ':' && beforeThat !== undefined)
    return { file: beforeThat, start: last, lead: '' };
  // The file is the shortest start before a `:` that names one (a file's name may hold a `:`).
  for (let colon = last.indexOf(':'); colon > 0; colon = last.indexOf(':', colon + 1)) {
    const file = last.slice(0, colon);
    if (isRegularFile(file)) return { file, start: last.slice(colon + 1), lead: `${file}:` };
  }
  return undefined;
}

/**
 * The names of the tensors in the local file being typed as `FILE:` that start with what
 * follows the `:`, as the shell's candidates (`:` escaped for zsh, whose candidates are
 * `value:description`); undefined when the last word is no such ref (a URL, a file that is not
 * there or cannot be read as a tensor file).
 */
export async function tensorNameCandidates(
  words: readonly string[],
  zsh: boolean,
): Promise<string[] | undefined> {
  const ref = typedRef(words);
  if (ref === undefined || !isRegularFile(ref.file)) return undefined;
  let names: string[];
  try {
    const file = await openTensorFile(ref.file);
    try {
      names = file.tensors.flatMap((t) => (t.name === null ? [] : [t.name]));
    } finally {
      await file.close();
    }
  } catch {
    return undefined;
  }
  return names
    .filter((name) => name.startsWith(ref.start) && !name.includes('\n'))
    .map((name) => {
      const candidate = ref.lead + name;
      return zsh ? candidate.replaceAll(':', '\\:') : candidate;
    });
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
