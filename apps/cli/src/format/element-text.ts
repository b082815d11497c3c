import { type Dtype, dtypeSize, float8ToNumber, isFloat8Dtype, type Shape } from '@tensorops/core';
import type { TensorStream } from '@tensorops/io/node';
import { type ElementValue, elementReader } from './elements.js';
import { type FloatDtype, isFloatDtype, writeReprFloat } from './float-text.js';
import { RefusedElement, refusedElementError } from './refused-element.js';
import { TextBytes } from './text-bytes.js';

// Text output of a tensor (JSON, CSV, TSV), produced a block of elements at a time from the
// stream's chunks, so memory stays at one chunk plus one block of text however large the tensor.
// Each block is written straight into bytes (TextBytes): no string per element.
// Strings are read exactly (never with a replacement character); an element the text cannot hold
// is one error naming its position.

/** Elements formatted into one text block: small enough to bound memory, large to amortise. */
const BLOCK_ELEMENTS = 1 << 14;

/**
 * Writes the text for the element at flat index `index` (separators and brackets included); it
 * throws RefusedElement for a value its format cannot hold.
 */
export type ElementPiece = (index: number, value: ElementValue, out: TextBytes) => void;

/**
 * The UTF-8 text `head`, then `piece` of every element in order, then `tail`. A consumer that
 * stops early (the reader went away) stops the reading of the stream with it. The head goes out
 * with the first block of elements, so an element refused in that block leaves no output at all.
 */
export async function* streamText(
  s: TensorStream,
  head: string,
  piece: ElementPiece,
  tail: string,
): AsyncGenerator<Uint8Array> {
  const out = new TextBytes();
  out.text(head);
  const size = dtypeSize(s.dtype);
  if (size === 0) {
    // Zero-width strings (U0, S0) have no bytes to read: every element is the empty one.
    const empty = elementReader({ dtype: s.dtype, shape: [1], data: new Uint8Array(0) })(0);
    yield* blocksOf(s.shape, 0, elementCount(s.shape), piece, () => empty, out);
  }
  let first = 0;
  for await (const chunk of s.chunks({ reuse: true })) {
    if (size === 0) break;
    const count = chunk.byteLength / size;
    const read = elementReader({ dtype: s.dtype, shape: [count], data: chunk }, 'exact');
    yield* blocksOf(s.shape, first, count, piece, read, out);
    first += count;
  }
  out.text(tail);
  const last = out.take();
  if (last.byteLength > 0) yield last;
}

/** The text of `count` elements (flat indices from `first` in `shape`), a block at a time. */
function* blocksOf(
  shape: Shape,
  first: number,
  count: number,
  piece: ElementPiece,
  read: (i: number) => ElementValue,
  out: TextBytes,
): Generator<Uint8Array> {
  for (let start = 0; start < count; start += BLOCK_ELEMENTS) {
    const end = Math.min(count, start + BLOCK_ELEMENTS);
    let i = start;
    try {
      for (; i < end; i++) piece(first + i, read(i), out);
    } catch (error) {
      throw error instanceof RefusedElement ? refusedElementError(error, first + i, shape) : error;
    }
    yield out.take();
  }
}

const encoder = new TextEncoder();

/** `count` repetitions of `text`, a block at a time (the rows of an empty tensor). */
export function* repeatedText(text: string, count: number): Generator<Uint8Array> {
  for (let done = 0; done < count; done += BLOCK_ELEMENTS) {
    yield encoder.encode(text.repeat(Math.min(BLOCK_ELEMENTS, count - done)));
  }
}

/** The element count of a shape. */
export function elementCount(shape: Shape): number {
  return shape.reduce((n, d) => n * d, 1);
}

/** Writes one number (an element, or one part of a complex one) into a text block. */
export type NumberWriter = (out: TextBytes, x: number | bigint) => void;

/**
 * Numbers of `dtype` as numpy prints them: integers exactly, floats with the shortest digits that
 * read back to the same value in the tensor's own dtype (float32 keeps float32 digits), `nan`,
 * `inf`, `-inf` (between `quote`s, for formats that have no such numbers). float8 values, which no
 * shortest-digits routine covers here, get their exact float32 digits.
 */
export function numberWriter(dtype: Dtype, quote = ''): NumberWriter {
  if (isFloat8Dtype(dtype)) {
    const float = floatWriter('float32', quote);
    return (out, x) => float(out, float8ToNumber(dtype, x as number));
  }
  const floatDtype: FloatDtype | undefined = isFloatDtype(dtype)
    ? dtype
    : dtype === 'complex64'
      ? 'float32'
      : dtype === 'complex128'
        ? 'float64'
        : undefined;
  if (floatDtype !== undefined) return floatWriter(floatDtype, quote);
  return (out, x) => {
    if (typeof x === 'bigint') out.ascii(x.toString());
    else if (x < 0) {
      out.byte(MINUS);
      out.digits(-x);
    } else out.digits(x);
  };
}

const MINUS = 0x2d;

function floatWriter(dtype: FloatDtype, quote: string): NumberWriter {
  return (out, x) => {
    if (Number.isFinite(x)) writeReprFloat(out, x as number, dtype);
    else {
      out.ascii(quote);
      writeReprFloat(out, x as number, dtype);
      out.ascii(quote);
    }
  };
}
