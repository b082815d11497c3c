// What the first bytes of a file say it is, for the error that refuses it as a tensor file. It
// names a kind of file and never shows the bytes: the file may be anything (a shard that is a
// link to a secret among them), and its first bytes are not the user's to see through tensorops.

/** Magic numbers of files that are mistaken for tensor files, and what each one is. */
const SIGNATURES: readonly (readonly [readonly number[], string])[] = [
  [[0x50, 0x4b, 0x03, 0x04], 'a zip archive'],
  [[0x1f, 0x8b], 'gzip data'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'zstd data'],
  [[0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a], 'an HDF5 file'],
  [[0x47, 0x47, 0x55, 0x46], 'a GGUF file'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x7f, 0x45, 0x4c, 0x46], 'an ELF executable'],
];

/**
 * `it is empty`, `it looks like text`, `it looks like a zip archive`...: what `head`, the first
 * bytes of a file, say it is; undefined when they say nothing known.
 */
export function looksLike(head: Uint8Array): string | undefined {
  if (head.length === 0) return 'it is empty';
  for (const [magic, kind] of SIGNATURES) {
    if (magic.length <= head.length && magic.every((b, i) => head[i] === b)) {
      return `it looks like ${kind}`;
    }
  }
  // torch.save's older format and joblib: a pickle's PROTO opcode and protocol 2 to 5.
  if (head[0] === 0x80 && (head[1] as number) >= 2 && (head[1] as number) <= 5) {
    return 'it looks like a Python pickle';
  }
  if (!head.every(isText)) return undefined;
  const first = head.find((b) => !isBlank(b));
  if (first === 0x7b || first === 0x5b) return 'it looks like JSON text';
  if (first === 0x3c) return 'it looks like HTML or XML text';
  return 'it looks like text';
}

/** Printable ASCII or a blank: what a text file's first bytes are. */
function isText(b: number): boolean {
  return (b >= 0x20 && b < 0x7f) || isBlank(b);
}

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}
