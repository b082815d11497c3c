import { isTensorOpsError, type Tensor, TensorOpsError } from '@tensorops/core';
import { type DataTextDtype, TextValues } from './data-text-values.js';
import { DecimalToken } from './decimal-token.js';
import { ioError } from './file/errors.js';
import { quote } from './text.js';
import {
  BOM,
  CLOSE,
  COMMA,
  isBlank,
  isLineEnd,
  JsonArrayShape,
  OPEN,
  TextPosition,
} from './text-grammar.js';

// Tensors written as text, the counterpart of numpy.loadtxt (and of np.array(json.load(f))):
//
// - Rows: one row per line (a line ends at \n, \r\n or a lone \r), values separated by blanks
//   (space, tab: loadtxt's delimiter=None) or by one delimiter character with optional blanks
//   around each value. `#` starts a comment to the end of the line; lines left blank are skipped;
//   `skipRows` skips the first lines whatever they hold. Shapes as loadtxt's: k values on each of
//   n lines are [n, k] with axes of length 1 squeezed out (one line is [k], one value per line
//   [n], a lone value []), no values at all [0]. Rows of different lengths are an error.
// - JSON: nested arrays of numbers keep their nesting (JsonArrayShape: rectangular, at most 64
//   deep); a lone number is a 0-d tensor.
// - A number is Python's float() grammar (nan, inf, infinity in any case), read exactly
//   (decimal-token.ts): a float is rounded once from its decimal, an integer dtype refuses a
//   fraction or a value out of its range.
//
// The parser takes the text in chunks of any size (a token may span them) and keeps, besides the
// values, only bounded state: the start of the token being read and the counters of the line. So a
// huge file is never one string, a huge line or number costs no memory, and every step is linear.
// Every error is one E_FORMAT line, `LABEL:LINE:COLUMN: what` (1-based; a column counts
// characters, as UTF-8 lead bytes).

/** How data text is read. */
export interface DataTextOptions {
  /** Names the input in errors (`rows.csv`, `stdin`). */
  readonly label: string;
  /** The dtype of the values; float64 (numpy.loadtxt's default) when left out. */
  readonly dtype?: DataTextDtype;
  /** A JSON document instead of rows. */
  readonly json?: boolean;
  /** Rows: the one character between values; left out, any run of blanks. */
  readonly delimiter?: string;
  /** Rows: lines to skip at the start, comments and blank lines included. */
  readonly skipRows?: number;
}

/** Bytes of a token kept for an error to quote (quote() shows fewer characters). */
const QUOTED_BYTES = 64;
const HASH = 0x23;

/** Where the parser is within a line of rows. */
const GAP = 0; // before a value or between values
const COMMENT = 1; // in a comment or a skipped line, to its end

class DataTextParser {
  private readonly values: TextValues;
  private readonly token: DecimalToken;
  private readonly json: JsonArrayShape | undefined;
  private readonly delimiter: number | undefined;
  private skipLeft: number;
  private readonly position = new TextPosition();
  private offset = 0;
  // The token being read.
  private inToken = false;
  private tokenBad = false;
  private tokenLine = 0;
  private tokenColumn = 0;
  private readonly quoted = new Uint8Array(QUOTED_BYTES);
  private quotedLength = 0;
  // Rows.
  private state = GAP;
  private count = 0;
  private afterDelimiter = false;
  private rows = 0;
  private width = -1;
  private firstRowLine = 0;

  constructor(private readonly options: DataTextOptions) {
    this.values = new TextValues(options.dtype ?? 'float64');
    this.token = new DecimalToken(options.json === true);
    this.json = options.json === true ? new JsonArrayShape('a number') : undefined;
    this.delimiter = delimiterByte(options.delimiter);
    this.skipLeft = options.skipRows ?? 0;
    if (this.skipLeft > 0) this.state = COMMENT;
  }

  /** Reads the next bytes of the text. */
  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (this.offset < BOM.length && this.atBom(b)) continue;
      if (!this.position.advance(b)) continue;
      if (isLineEnd(b)) this.lineEnd();
      else if (this.json === undefined) this.rowByte(b);
      else this.jsonByte(b, this.json);
    }
  }

  /** Ends the text: the tensor read, or the error of what is missing. */
  end(): Tensor {
    if (this.offset > 0 && this.offset < BOM.length) {
      this.fail(1, 1, 'a broken byte order mark at the start');
    }
    this.position.end();
    if (this.json !== undefined) {
      if (this.inToken) this.finishToken();
      this.check(this.json.end());
      return this.values.tensor(this.json.shape());
    }
    this.lineEnd();
    if (this.rows === 0) return this.values.tensor([0]);
    return this.values.tensor([this.rows, this.width].filter((n) => n !== 1));
  }

  /** The UTF-8 byte order mark at the very start is skipped; true while `b` is part of it. */
  private atBom(b: number): boolean {
    const at = this.offset++;
    if (b === BOM[at]) return true;
    if (at > 0) this.fail(1, 1, 'a broken byte order mark at the start');
    this.offset = BOM.length;
    return false;
  }

  private rowByte(b: number): void {
    if (this.state === COMMENT) return;
    if (this.inToken) {
      if (!(isBlank(b) || b === this.delimiter || b === HASH)) {
        this.feedToken(b);
        return;
      }
      this.finishToken();
    }
    if (b === this.delimiter) {
      if (this.count === 0 || this.afterDelimiter)
        this.failHere('expected a value before the delimiter');
      this.afterDelimiter = true;
      return;
    }
    if (isBlank(b)) return;
    if (b === HASH) {
      this.state = COMMENT;
      return;
    }
    if (this.delimiter !== undefined && this.count > 0 && !this.afterDelimiter) {
      this.failHere(`expected ${quote(String.fromCharCode(this.delimiter))} between values`);
    }
    if (this.count === this.width) {
      this.failHere(
        `this row has more than ${this.width} values, the first row (line ${this.firstRowLine}) ${this.width}`,
      );
    }
    this.afterDelimiter = false;
    this.startToken(b);
  }

  private jsonByte(b: number, shape: JsonArrayShape): void {
    if (this.inToken) {
      if (!(isBlank(b) || b === COMMA || b === OPEN || b === CLOSE)) {
        this.feedToken(b);
        return;
      }
      this.finishToken();
    }
    if (isBlank(b)) return;
    if (b === OPEN) this.check(shape.open());
    else if (b === CLOSE) this.check(shape.close());
    else if (b === COMMA) this.check(shape.comma());
    else {
      this.check(shape.leaf());
      this.startToken(b);
    }
  }

  /** A line ends (or the text): the row it held is counted and checked. */
  private lineEnd(): void {
    if (this.json !== undefined) {
      if (this.inToken) this.finishToken();
      return;
    }
    if (this.state === COMMENT && this.skipLeft > 0) {
      this.skipLeft--;
      if (this.skipLeft > 0) return;
    } else if (this.inToken) this.finishToken();
    this.state = GAP;
    if (this.afterDelimiter) this.failHere('expected a value after the delimiter');
    if (this.count > 0) {
      if (this.width === -1) {
        this.width = this.count;
        this.firstRowLine = this.position.line;
      } else if (this.count < this.width) {
        this.failHere(
          `this row has ${this.count} value${this.count === 1 ? '' : 's'}, the first row (line ${this.firstRowLine}) ${this.width}`,
        );
      }
      this.rows++;
    }
    this.count = 0;
  }

  private startToken(b: number): void {
    this.inToken = true;
    this.tokenBad = false;
    this.tokenLine = this.position.line;
    this.tokenColumn = this.position.column;
    this.quotedLength = 0;
    this.token.reset();
    this.feedToken(b);
  }

  private feedToken(b: number): void {
    if (this.quotedLength < QUOTED_BYTES) this.quoted[this.quotedLength++] = b;
    else if (this.tokenBad) this.refuseToken('is not a number');
    if (!this.tokenBad && !this.token.feed(b)) this.tokenBad = true;
  }

  private finishToken(): void {
    this.inToken = false;
    const kind = this.token.kind();
    if (this.tokenBad || kind === 'invalid') this.refuseToken('is not a number');
    const problem = this.values.push(this.token, kind);
    if (problem !== undefined) this.refuseToken(problem);
    this.count++;
  }

  private refuseToken(problem: string): never {
    const bytes = this.quoted.subarray(0, this.quotedLength);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    this.fail(this.tokenLine, this.tokenColumn, `${quote(text)} ${problem}`);
  }

  private check(problem: string | undefined): void {
    if (problem !== undefined) this.failHere(problem);
  }

  private failHere(message: string): never {
    this.fail(this.position.line, this.position.column, message);
  }

  private fail(line: number, column: number, message: string): never {
    throw new TensorOpsError('E_FORMAT', `${this.options.label}:${line}:${column}: ${message}`);
  }
}

/** The byte of a delimiter option: one ASCII character that cannot be part of a number. */
function delimiterByte(delimiter: string | undefined): number | undefined {
  if (delimiter === undefined) return undefined;
  const b = delimiter.charCodeAt(0);
  const usable =
    delimiter.length === 1 &&
    b < 0x80 &&
    b !== HASH &&
    !isLineEnd(b) &&
    !/[0-9A-Za-z.+-]/.test(delimiter);
  if (!usable) {
    throw new TensorOpsError(
      'E_USAGE',
      `a delimiter is one ASCII character that is not part of a number, '#' or a line end; got ${quote(delimiter)}`,
    );
  }
  return b;
}

/** Parses a whole data text (a string or UTF-8 bytes). */
export function parseDataText(input: Uint8Array | string, options: DataTextOptions): Tensor {
  const parser = new DataTextParser(options);
  parser.push(typeof input === 'string' ? utf8(input) : input);
  return parser.end();
}

/**
 * Reads a data text from chunks as they arrive (a file or a pipe), never holding it whole. A
 * failing stream is an E_IO error naming the label.
 */
export async function readDataText(
  chunks: AsyncIterable<Uint8Array | string>,
  options: DataTextOptions,
): Promise<Tensor> {
  const parser = new DataTextParser(options);
  try {
    for await (const chunk of chunks) parser.push(typeof chunk === 'string' ? utf8(chunk) : chunk);
  } catch (cause) {
    if (isTensorOpsError(cause)) throw cause;
    throw ioError(options.label, 'read', cause);
  }
  return parser.end();
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
