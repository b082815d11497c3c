import type { TensorStream } from '@tensorops/io/node';
import { elementCount, numberText, repeatedText, streamText } from './element-text.js';
import type { ElementValue } from './elements.js';
import { stringCell } from './string-cell.js';

// CSV and TSV as numpy.savetxt lays them out, so numpy.loadtxt(f, delimiter=',') reads the values
// back: rank 0 and 1 one value per line, rank 2 one row per line, higher ranks reshaped to
// (-1, last_dim). Numbers are numpy's shortest round-trip text in the tensor's own dtype
// (numberText), not savetxt's fixed '%.18e'; bool is 1/0 (what loadtxt reads as bool), complex
// `(re+imj)`; strings as they are, or refused (stringCell). The optional header is a `#` comment,
// which loadtxt skips.

export type Delimiter = ',' | '\t';

export interface DelimitedOptions {
  readonly delimiter: Delimiter;
  /** A first line `# dtype D, shape [..]`. */
  readonly header: boolean;
}

export function delimitedChunks(
  s: TensorStream,
  options: DelimitedOptions,
): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  const head = options.header ? `# dtype ${s.dtype}, shape [${s.shape.join(',')}]\n` : '';
  const perRow = s.shape.length <= 1 ? 1 : (s.shape[s.shape.length - 1] as number);
  if (perRow === 0) {
    // savetxt writes an empty line for every row of zero columns.
    const rows = elementCount(s.shape.slice(0, -1));
    return (function* () {
      yield new TextEncoder().encode(head);
      yield* repeatedText('\n', rows);
    })();
  }
  const cell = cellText(s.dtype, stringCell(options.delimiter, perRow === 1));
  const { delimiter } = options;
  return streamText(
    s,
    head,
    (i, v) => `${cell(v)}${(i + 1) % perRow === 0 ? '\n' : delimiter}`,
    '',
  );
}

function cellText(
  dtype: TensorStream['dtype'],
  string: (v: string) => string,
): (v: ElementValue) => string {
  return (v) => {
    if (typeof v === 'boolean') return v ? '1' : '0';
    if (Array.isArray(v)) {
      const im = numberText(v[1], dtype);
      return `(${numberText(v[0], dtype)}${im.startsWith('-') ? '' : '+'}${im}j)`;
    }
    if (typeof v === 'string') return string(v);
    return numberText(v, dtype);
  };
}
