// One pass over a .safetensors header in its usual shape, without a generic JSON tree: a header of
// 10^5 tensors would otherwise become 10^5 Maps and an object per number before a single entry is
// checked. The scan accepts only what the strict path (strict-json.ts, then the entry checks of
// safetensors.ts) accepts, with the same result: an object whose values are `__metadata__` (an
// object of strings) or tensor entries ({dtype, shape, data_offsets} in any order, each once,
// integers of plain digits below 10^15). At the first thing outside that shape it returns
// undefined and writes no message: the caller then runs the strict path, which gives the exact
// error (or the answer, for the rare header it leaves to that path, such as an integer of 16
// digits). A key repeated at the top level or in `__metadata__` is the one error it reports, as
// the key and its offset: everything before it was valid JSON, so the strict parser would stop
// there too, and a header of 10^6 tensors whose last key repeats the first is not read twice.
// Every character is read once, so the scan is linear in the header.

import { isWellFormed } from './well-formed.js';

const METADATA_KEY = '__metadata__';

/** Digits the scan reads as an exact integer: below 10^15 < 2^53 any product of ten stays exact. */
const MAX_DIGITS = 15;

/** Builds one entry from a tensor's fields, or returns undefined (e.g. an unknown dtype). */
export type EntryMaker<E> = (
  name: string,
  formatDtype: string,
  shape: number[],
  begin: number,
  end: number,
) => E | undefined;

/** A key that appears twice in one object, the second time with its opening quote at `at`. */
export interface RepeatedKey {
  readonly repeatedKey: string;
  readonly at: number;
}

export interface ScannedHeader<E> {
  /** In the header's key order. */
  readonly entries: E[];
  /** Null-prototype; null when the header has no `__metadata__`. */
  readonly metadata: Record<string, string> | null;
}

/** Thrown inside the scan at anything it leaves to the strict path; caught at its entry point. */
const ELSEWHERE = Symbol('left to the strict path');

/** Thrown inside the scan at a repeated key; caught at its entry point. */
class Repeated {
  constructor(readonly found: RepeatedKey) {}
}

class HeaderScan<E> {
  private pos = 0;
  /** The integers of the array being read. */
  private readonly scratch: number[] = [];
  /** The last `data_offsets` read. */
  private begin = 0;
  private end = 0;

  constructor(
    private readonly text: string,
    private readonly makeEntry: EntryMaker<E>,
  ) {}

  header(): ScannedHeader<E> {
    const entries: E[] = [];
    let metadata: Record<string, string> | null = null;
    const names = new Set<string>();
    this.expect(0x7b); // {
    if (this.peek() === 0x7d) this.pos++;
    else {
      for (;;) {
        const at = this.at();
        const key = this.key();
        if (key === METADATA_KEY) {
          if (metadata !== null) throw new Repeated({ repeatedKey: key, at });
          metadata = this.metadata();
        } else {
          if (names.has(key)) throw new Repeated({ repeatedKey: key, at });
          names.add(key);
          entries.push(this.entry(key));
        }
        if (!this.more(0x7d)) break;
      }
    }
    if (this.peek() !== undefined) throw ELSEWHERE;
    return { entries, metadata };
  }

  /** Where the next token starts. */
  private at(): number {
    this.peek();
    return this.pos;
  }

  /** The next character code after white space, or undefined at the end; does not consume it. */
  private peek(): number | undefined {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else return Number.isNaN(c) ? undefined : c;
    }
  }

  private expect(code: number): void {
    if (this.peek() !== code) throw ELSEWHERE;
    this.pos++;
  }

  /** After a member: true on ',', false on `close`. */
  private more(close: number): boolean {
    const c = this.peek();
    this.pos++;
    if (c === 0x2c) return true;
    if (c === close) return false;
    throw ELSEWHERE;
  }

  /** `"key" :` */
  private key(): string {
    const key = this.string();
    this.expect(0x3a);
    return key;
  }

  private string(): string {
    if (this.peek() !== 0x22) throw ELSEWHERE;
    const t = this.text;
    const start = ++this.pos;
    let i = start;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === 0x22) break;
      if (!(c >= 0x20)) throw ELSEWHERE; // a control character, or the end (NaN)
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    this.pos = i + 1;
    if (!escaped) return t.slice(start, i);
    // JSON.parse decodes one string literal exactly, but lets lone surrogates through.
    let s: string;
    try {
      s = JSON.parse(t.slice(start - 1, i + 1)) as string;
    } catch {
      throw ELSEWHERE;
    }
    if (!isWellFormed(s)) throw ELSEWHERE;
    return s;
  }

  private integer(): number {
    this.peek();
    const t = this.text;
    const start = this.pos;
    let n = 0;
    let i = start;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) {
        n = n * 10 + (c - 0x30);
        i++;
      } else break;
    }
    const digits = i - start;
    if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && t.charCodeAt(start) === 0x30)) {
      throw ELSEWHERE;
    }
    const next = t.charCodeAt(i);
    if (next === 0x2e || next === 0x65 || next === 0x45) throw ELSEWHERE; // . e E
    this.pos = i;
    return n;
  }

  /**
   * `[int, ...]`, as an array of exactly its length: one grown by push keeps room for 16, and a
   * header of 10^5 shapes would hold that spare room for the life of the file.
   */
  private integers(): number[] {
    this.expect(0x5b); // [
    const read = this.scratch;
    read.length = 0;
    if (this.peek() === 0x5d) this.pos++;
    else {
      do read.push(this.integer());
      while (this.more(0x5d));
    }
    return read.slice();
  }

  /** `[begin, end]` into `this.begin` and `this.end`, without an array per tensor. */
  private offsets(): void {
    this.expect(0x5b); // [
    this.begin = this.integer();
    if (!this.more(0x5d)) throw ELSEWHERE; // one offset: the strict path words it
    this.end = this.integer();
    if (this.more(0x5d)) throw ELSEWHERE; // three or more
  }

  private entry(name: string): E {
    this.expect(0x7b);
    let dtype: string | undefined;
    let shape: number[] | undefined;
    let offsets = false;
    do {
      const key = this.key();
      if (key === 'dtype' && dtype === undefined) dtype = this.string();
      else if (key === 'shape' && shape === undefined) shape = this.integers();
      else if (key === 'data_offsets' && !offsets) {
        this.offsets();
        offsets = true;
      } else throw ELSEWHERE;
    } while (this.more(0x7d));
    if (dtype === undefined || shape === undefined || !offsets) throw ELSEWHERE;
    const entry = this.makeEntry(name, dtype, shape, this.begin, this.end);
    if (entry === undefined) throw ELSEWHERE;
    return entry;
  }

  private metadata(): Record<string, string> {
    this.expect(0x7b);
    const out: Record<string, string> = Object.create(null);
    if (this.peek() === 0x7d) {
      this.pos++;
      return out;
    }
    do {
      const at = this.at();
      const key = this.key();
      if (out[key] !== undefined) throw new Repeated({ repeatedKey: key, at });
      out[key] = this.string();
    } while (this.more(0x7d));
    return out;
  }
}

/**
 * The tensors and metadata of a header text in the usual shape, the first key it repeats, or
 * undefined for the strict path to decide (see the file's header).
 */
export function scanSafetensorsHeader<E>(
  text: string,
  makeEntry: EntryMaker<E>,
): ScannedHeader<E> | RepeatedKey | undefined {
  try {
    return new HeaderScan(text, makeEntry).header();
  } catch (e) {
    if (e === ELSEWHERE) return undefined;
    if (e instanceof Repeated) return e.found;
    throw e;
  }
}
