// What a CSV of float32 values holds, for comparing two writers that print the same values in
// different ways (tensorops' shortest digits, numpy.savetxt's '%.18e'): every cell read as a
// float64 (nan and inf as numpy writes them), rounded to float32, and its bits hashed with the
// row and column counts. The file is read through one reused buffer, as npyDigest reads .npy.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

const SPECIAL = new Map([
  ['nan', Number.NaN],
  ['inf', Number.POSITIVE_INFINITY],
  ['-inf', Number.NEGATIVE_INFINITY],
]);

/** `ROWSxCOLS sha256` of the float32 bits of a CSV's cells; throws on a cell that is no number. */
export function csvFloat32Digest(path) {
  const hash = createHash('sha256');
  const values = new Float32Array(1 << 16);
  let filled = 0;
  let rows = 0;
  let columns = -1;
  const line = (text) => {
    const cells = text.split(',');
    if (columns === -1) columns = cells.length;
    if (cells.length !== columns) throw new Error(`${path}: row ${rows} has ${cells.length} cells`);
    for (const cell of cells) {
      const x = SPECIAL.get(cell) ?? (cell === '' ? Number.NaN : Number(cell));
      if (Number.isNaN(x) && cell !== 'nan') throw new Error(`${path}: '${cell}' is no number`);
      values[filled++] = x;
      if (filled === values.length) {
        hash.update(new Uint8Array(values.buffer));
        filled = 0;
      }
    }
    rows++;
  };
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(2 ** 20);
    let rest = '';
    for (let at = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, at);
      if (n === 0) break;
      at += n;
      const lines = (rest + buffer.toString('latin1', 0, n)).split('\n');
      rest = lines.pop() ?? '';
      for (const text of lines) line(text);
    }
    if (rest !== '') line(rest);
  } finally {
    closeSync(fd);
  }
  hash.update(new Uint8Array(values.buffer, 0, filled * 4));
  return `${rows}x${columns} ${hash.digest('hex')}`;
}
