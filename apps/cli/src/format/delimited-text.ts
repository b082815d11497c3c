import type { TensorStream } from '@tensorops/io/node';
import { elementCount, numberWriter, repeatedText, streamText } from './element-text.js';
import type { ElementValue } from './elements.js';
import { stringCell } from './string-cell.js';
import type { TextBytes } from './text-bytes.js';

// CSV and TSV as numpy.savetxt lays them out, so numpy.loadtxt(f, delimiter=',') reads the values
// back: rank 0 and 1 one value per line, rank 2 one row per line, higher ranks reshaped to
// (-1, last_dim). Numbers are numpy's shortest round-trip text in the tensor's own dtype
// (numberWriter), not savetxt's fixed '%.18e'; bool is 1/0 (what loadtxt reads as bool), complex
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
  const cell = cellWriter(s.dtype, stringCell(options.delimiter, perRow === 1));
  const separator = options.delimiter.charCodeAt(0);
  return streamText(
    s,
    head,
    (i, v, out) => {
      cell(out, v);
      out.byte((i + 1) % perRow === 0 ? NEWLINE : separator);
    },
    '',
  );
}

const NEWLINE = 0x0a;
const PLUS = 0x2b;

function cellWriter(
  dtype: TensorStream['dtype'],
  string: (v: string) => string,
): (out: TextBytes, v: ElementValue) => void {
  const number = numberWriter(dtype);
  return (out, v) => {
    if (typeof v === 'boolean') out.ascii(v ? '1' : '0');
    else if (Array.isArray(v)) {
      const [re, im] = v;
      out.ascii('(');
      number(out, re);
      // The imaginary part carries its own '-' (also -0.0, -inf); the others get a '+'.
      if (!(im < 0 || Object.is(im, -0))) out.byte(PLUS);
      number(out, im);
      out.ascii('j)');
    } else if (typeof v === 'string') out.text(string(v));
    else number(out, v);
  };
}
