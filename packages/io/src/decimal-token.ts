// One number of data text, read a byte at a time so that a token may span chunks and be of any
// length: what is kept is the sign, the first MAX_DIGITS significant digits, whether a non-zero
// digit follows them, and the decimal exponent (saturated). That is enough to round exactly: every
// float64 (and so every midpoint between two float32, float16 or bfloat16 values) has fewer
// significant decimal digits than MAX_DIGITS, so a value past them only breaks a tie, and a
// non-zero digit beyond them says which way.
//
// Grammar (Python's float(), which numpy.loadtxt uses, without underscores): an optional sign,
// digits with an optional `.` (digits on at least one side), an optional exponent `e`/`E`, sign,
// digits; or `inf`, `infinity`, `nan` in any case, with an optional sign. With `json`, JSON's
// stricter number (no `+`, no leading zero, digits on both sides of `.`) and Python json's
// `NaN`, `Infinity`, `-Infinity`. An integer is an optional sign and digits only.

/**
 * Significant digits kept: more than the 767 of the longest exact float64 decimal, so that a
 * non-zero digit past them can only break a tie between two float64 neighbours or narrower values.
 */
const MAX_DIGITS = 800;
/** An exponent saturates here: far beyond where every format is 0 or infinite. */
const EXPONENT_LIMIT = 1e9;
/** Longest word kept (`-infinity`); longer words are no number. */
const MAX_WORD = 9;
/** Beyond this decimal exponent every float64 is infinite, below its negative zero. */
const FLOAT64_EXPONENT_BOUND = 400;

const START = 0;
const SIGN = 1;
const INT = 2;
const POINT = 3; // `.` after digits
const LONE_POINT = 4; // `.` with no digit before it
const FRACTION = 5;
const EXP_MARK = 6;
const EXP_SIGN = 7;
const EXP_DIGITS = 8;
const WORD = 9;
const INVALID = 10;

const ZERO = 0x30;
const NINE = 0x39;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;

/** What a finished token is. */
export type TokenKind = 'integer' | 'decimal' | 'nan' | 'infinity' | 'invalid';

export class DecimalToken {
  negative = false;
  /** Significant digits, from the first non-zero one, at most MAX_DIGITS. */
  digits = '';
  /** A non-zero digit beyond `digits`. */
  sticky = false;
  private state = START;
  private plus = false;
  /** The value is 0.`digits` × 10^(pointPosition + exponent). */
  private pointPosition = 0;
  private exponent = 0;
  private exponentNegative = false;
  private intDigits = 0;
  private leadingZero = false;
  private point = false;
  private fractionDigits = 0;
  private word = '';

  constructor(private readonly json: boolean) {}

  reset(): void {
    this.negative = false;
    this.digits = '';
    this.sticky = false;
    this.state = START;
    this.plus = false;
    this.pointPosition = 0;
    this.exponent = 0;
    this.exponentNegative = false;
    this.intDigits = 0;
    this.leadingZero = false;
    this.point = false;
    this.fractionDigits = 0;
    this.word = '';
  }

  /** Takes the next byte of the token; false once the token can no longer be a number. */
  feed(b: number): boolean {
    const isDigit = b >= ZERO && b <= NINE;
    switch (this.state) {
      case START:
        if (b === MINUS || b === PLUS) {
          this.negative = b === MINUS;
          this.plus = b === PLUS;
          this.state = SIGN;
          return true;
        }
        return this.afterSign(b, isDigit);
      case SIGN:
        return this.afterSign(b, isDigit);
      case INT:
        if (isDigit) return this.intDigit(b);
        if (b === DOT) return this.pointAfter(POINT);
        return this.exponentMark(b);
      case POINT:
      case LONE_POINT:
      case FRACTION:
        if (isDigit) return this.fractionDigit(b);
        return this.state !== LONE_POINT && this.exponentMark(b);
      case EXP_MARK:
        if (b === MINUS || b === PLUS) {
          this.exponentNegative = b === MINUS;
          return this.to(EXP_SIGN);
        }
        return isDigit && this.exponentDigit(b);
      case EXP_SIGN:
      case EXP_DIGITS:
        return isDigit && this.exponentDigit(b);
      case WORD:
        return this.wordByte(b);
      default:
        return false;
    }
  }

  /** What the token read is, once it has ended. */
  kind(): TokenKind {
    switch (this.state) {
      case INT:
        return this.jsonNumberOk() ? 'integer' : 'invalid';
      case POINT:
      case FRACTION:
      case EXP_DIGITS:
        return this.jsonNumberOk() ? 'decimal' : 'invalid';
      case WORD:
        return this.wordKind();
      default:
        return 'invalid';
    }
  }

  /** The decimal exponent of the first significant digit: the value is 0.digits × 10^this. */
  decimalExponent(): number {
    const e = this.exponentNegative ? -this.exponent : this.exponent;
    return this.pointPosition + e;
  }

  /** The float64 nearest the value of a 'decimal' or 'integer' token (JS's parse is exact). */
  toFloat64(): number {
    const sign = this.negative ? -1 : 1;
    // Python's json reads `-0` as the integer 0, which np.array makes +0.0.
    if (this.digits === '') return this.json && this.state === INT ? 0 : sign * 0;
    const e = this.decimalExponent();
    if (e > FLOAT64_EXPONENT_BOUND) return sign * Number.POSITIVE_INFINITY;
    if (e < -FLOAT64_EXPONENT_BOUND) return sign * 0;
    return sign * Number(`0.${this.digits}${this.sticky ? '1' : ''}e${e}`);
  }

  /**
   * The exact value of an 'integer' token, or undefined when it has more than `maxDigits`
   * digits (beyond every integer dtype without converting them).
   */
  toInteger(maxDigits: number): bigint | number | undefined {
    if (this.digits === '') return 0;
    if (this.pointPosition > maxDigits) return undefined;
    // An integer token keeps all its digits: pointPosition ≤ maxDigits < MAX_DIGITS.
    if (this.digits.length <= 15) return (this.negative ? -1 : 1) * Number(this.digits);
    const n = BigInt(this.digits);
    return this.negative ? -n : n;
  }

  private to(state: number): boolean {
    this.state = state;
    return true;
  }

  private pointAfter(state: number): boolean {
    this.point = true;
    return this.to(state);
  }

  private afterSign(b: number, isDigit: boolean): boolean {
    if (isDigit) {
      this.state = INT;
      this.leadingZero = b === ZERO;
      return this.intDigit(b);
    }
    if (b === DOT) return this.pointAfter(LONE_POINT);
    this.state = WORD;
    return this.wordByte(b);
  }

  private significant(b: number): void {
    if (this.digits.length < MAX_DIGITS) this.digits += String.fromCharCode(b);
    else if (b !== ZERO) this.sticky = true;
  }

  private intDigit(b: number): boolean {
    this.intDigits++;
    if (this.digits !== '' || b !== ZERO) {
      this.significant(b);
      this.pointPosition++;
    }
    return true;
  }

  private fractionDigit(b: number): boolean {
    this.state = FRACTION;
    this.fractionDigits++;
    if (this.digits !== '' || b !== ZERO) this.significant(b);
    else this.pointPosition--;
    return true;
  }

  private exponentMark(b: number): boolean {
    if (b !== 0x65 && b !== 0x45) return false;
    return this.to(EXP_MARK);
  }

  private exponentDigit(b: number): boolean {
    this.state = EXP_DIGITS;
    this.exponent = Math.min(this.exponent * 10 + (b - ZERO), EXPONENT_LIMIT);
    return true;
  }

  private wordByte(b: number): boolean {
    const letter = (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
    if (!letter || this.word.length === MAX_WORD) {
      this.state = INVALID;
      return false;
    }
    this.word += String.fromCharCode(b);
    return true;
  }

  private wordKind(): TokenKind {
    if (this.json) {
      if (this.plus) return 'invalid';
      if (this.word === 'Infinity') return 'infinity';
      return this.word === 'NaN' && !this.negative ? 'nan' : 'invalid';
    }
    const lower = this.word.toLowerCase();
    if (lower === 'inf' || lower === 'infinity') return 'infinity';
    return lower === 'nan' ? 'nan' : 'invalid';
  }

  /** JSON's number: no `+`, digits before `.` without a leading zero, digits after it. */
  private jsonNumberOk(): boolean {
    if (!this.json) return true;
    if (this.plus || this.intDigits === 0 || (this.leadingZero && this.intDigits > 1)) return false;
    return !(this.point && this.fractionDigits === 0);
  }
}
