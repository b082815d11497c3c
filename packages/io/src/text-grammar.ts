// The grammar that index text (index-text.ts) and data text (data-text.ts) share: the bytes that
// separate values and end lines, the UTF-8 byte order mark, and the structure of a JSON array of
// scalars (nested, rectangular, at most 64 deep) checked token by token, without recursion, so
// that either parser can feed it from a whole buffer or from chunks.

export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const TAB = 0x09;
export const COMMA = 0x2c;
export const OPEN = 0x5b;
export const CLOSE = 0x5d;

export const isBlank = (b: number) => b === SPACE || b === TAB;
export const isLineEnd = (b: number) => b === LF || b === CR;

/** The UTF-8 byte order mark, skipped where a text starts. */
export const BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * The 1-based line and column of each byte as the bytes pass. A line ends at \n, \r\n or a lone
 * \r, and the line end has a position of its own (after the line's last character); the \n of a
 * \r\n has none. A column is a character: a continuation byte after a lead byte starts none.
 */
export class TextPosition {
  line = 1;
  column = 0;
  private previous = LF;
  private lineEnded = false;

  /** Moves to byte `b`; false for the \n of a \r\n, which is no character. */
  advance(b: number): boolean {
    if (b === LF && this.previous === CR) {
      this.previous = LF;
      return false;
    }
    if (this.lineEnded) {
      this.line++;
      this.column = 0;
      this.lineEnded = false;
    }
    if ((b & 0xc0) !== 0x80 || this.previous < 0x80) this.column++;
    this.previous = b;
    this.lineEnded = isLineEnd(b);
    return true;
  }

  /** Moves past the last byte: the position of the end of the text. */
  end(): void {
    this.advance(SPACE);
  }
}

/**
 * Deepest JSON array read: numpy's limit on dimensions (NPY_MAXDIMS), so that the nesting a parse
 * keeps track of stays small however many `[` the input opens.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The structure of one JSON array of scalars as its tokens arrive: `open` for `[`, `close` for
 * `]`, `comma`, `leaf` for a scalar, `end` at the end of the input. Each returns the problem with
 * that token (to be reported at its position), or undefined when it fits. Every array at one depth
 * has the same length, and scalars sit only at the deepest level; a lone scalar is a 0-d value.
 * Memory is bounded by MAX_JSON_DEPTH however deep the input tries to go.
 */
export class JsonArrayShape {
  private readonly dims: number[] = [];
  private readonly counts: number[] = [];
  private leafDepth = -1;
  private maxDepth = 0;
  private expectValue = true;
  private afterComma = false;
  private finished = false;

  /** `leafName` is what a scalar is called in messages: `an integer`, `a number`. */
  constructor(private readonly leafName: string) {}

  open(): string | undefined {
    const depth = this.counts.length;
    const problem = this.beforeValue();
    if (problem !== undefined) return problem;
    if (this.leafDepth !== -1 && depth >= this.leafDepth) {
      return `expected ${this.leafName}, not an array`;
    }
    if (depth === MAX_JSON_DEPTH) return `arrays nested deeper than ${MAX_JSON_DEPTH} levels`;
    this.counts.push(0);
    this.maxDepth = Math.max(this.maxDepth, this.counts.length);
    this.expectValue = true;
    this.afterComma = false;
    return undefined;
  }

  close(): string | undefined {
    if (this.finished) return 'unexpected text after the JSON array';
    const depth = this.counts.length;
    if (depth === 0) return "unexpected ']'";
    if (this.afterComma) return "expected a value after ','";
    const count = this.counts.pop() as number;
    const known = this.dims[depth - 1];
    if (known === undefined) this.dims[depth - 1] = count;
    else if (known !== count) {
      return `ragged array: ${count} items here, ${known} in an earlier one`;
    }
    this.valueDone();
    return undefined;
  }

  comma(): string | undefined {
    if (this.finished) return 'unexpected text after the JSON array';
    if (this.counts.length === 0 || this.expectValue) return "expected a value before ','";
    this.expectValue = true;
    this.afterComma = true;
    return undefined;
  }

  leaf(): string | undefined {
    const problem = this.beforeValue();
    if (problem !== undefined) return problem;
    const depth = this.counts.length;
    if (this.leafDepth === -1) {
      if (depth < this.maxDepth) return `expected an array, not ${this.leafName}`;
      this.leafDepth = depth;
    } else if (depth !== this.leafDepth) return `expected an array, not ${this.leafName}`;
    this.valueDone();
    return undefined;
  }

  end(): string | undefined {
    if (this.finished) return undefined;
    return this.maxDepth === 0 ? `no value: expected ${this.leafName} or an array` : "expected ']'";
  }

  /** The shape, once `end` has accepted the input. */
  shape(): number[] {
    return this.dims.slice(0, this.maxDepth);
  }

  private beforeValue(): string | undefined {
    if (this.finished) return 'unexpected text after the JSON array';
    if (!this.expectValue) return "expected ',' or ']'";
    return undefined;
  }

  private valueDone(): void {
    const depth = this.counts.length;
    if (depth === 0) this.finished = true;
    else this.counts[depth - 1] = (this.counts[depth - 1] as number) + 1;
    this.expectValue = false;
    this.afterComma = false;
  }
}
