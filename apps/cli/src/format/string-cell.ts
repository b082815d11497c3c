import type { Delimiter } from './delimited-text.js';
import { codePoint } from './elements.js';
import { RefusedElement } from './refused-element.js';

// A string as one CSV / TSV cell, written as it is so that numpy.loadtxt(f, delimiter=D,
// dtype=...) reads the file (UTF-8) back to the same string. loadtxt quotes nothing (quotechar=None),
// cuts every line at its first '#' (comments='#'), skips empty lines and turns the text of an S cell
// back into bytes through Latin-1, so an S byte is written as the character of its code. Quotes,
// blanks at either end, other control and separator characters read back as they are. Refused,
// each with the reason: the delimiter, a line break, '#', a lone surrogate (UTF-8 has none), an
// empty string alone on its line, and NUL (a text file holding one is binary to text tools).

/** The cell text of a string; it throws RefusedElement when the cell would not read back. */
export function stringCell(delimiter: Delimiter, aloneOnLine: boolean): (v: string) => string {
  // In a `u` regex a surrogate pair is one code point, so \p{Cs} matches lone surrogates only.
  const refused = delimiter === ',' ? /[\0\n\r#,]|\p{Cs}/u : /[\0\n\r#\t]|\p{Cs}/u;
  return (v) => {
    if (v === '' && aloneOnLine) {
      throw new RefusedElement(
        'is empty and alone on its line, which numpy.loadtxt skips; write .json or .npy',
      );
    }
    const found = refused.exec(v);
    if (found === null) return v;
    throw new RefusedElement(`${why(found[0])}; write .json or .npy`);
  };
}

function why(c: string): string {
  switch (c) {
    case ',':
      return 'holds a comma, which would split its cell';
    case '\t':
      return 'holds a tab, which would split its cell';
    case '\n':
    case '\r':
      return 'holds a line break, which would end its row';
    case '#':
      return "holds '#', where numpy.loadtxt starts a comment";
    case '\0':
      return 'holds a NUL, which would make the file binary to text tools';
    default:
      return `holds the lone surrogate ${codePoint(c.charCodeAt(0))}, which UTF-8 cannot encode`;
  }
}
