import { type Dtype, dtypeSize, float8ToNumber, isFloat8Dtype, type Shape } from '@tensorops/core';
import type { TensorStream } from '@tensorops/io/node';
import { type ElementValue, elementReader } from './elements.js';
import { type FloatDtype, isFloatDtype, reprFloat } from './float-text.js';
import { RefusedElement, refusedElementError } from './refused-element.js';

// Text output of a tensor (JSON, CSV, TSV), produced a block of elements at a time from the
// stream's chunks, so memory stays at one chunk plus one block of text however large the tensor.
// Strings are read exactly (never with a replacement character); an element the text cannot hold
// is one error naming its position.

/** Elements formatted into one text block: small enough to bound memory, large to amortise. */
const BLOCK_ELEMENTS = 1 << 14;

/**
 * The text for the element at flat index `index` (separators and brackets included); it throws
 * RefusedElement for a value its format cannot hold.
 */
export type ElementPiece = (index: number, value: ElementValue) => string;

const encoder = new TextEncoder();

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
  let pending = head;
  const size = dtypeSize(s.dtype);
  if (size === 0) {
    // Zero-width strings (U0, S0) have no bytes to read: every element is the empty one.
    const empty = elementReader({ dtype: s.dtype, shape: [1], data: new Uint8Array(0) })(0);
    for (const block of blocksOf(s.shape, 0, elementCount(s.shape), piece, () => empty)) {
      yield encoder.encode(pending + block);
      pending = '';
    }
  }
  let first = 0;
  for await (const chunk of s.chunks({ reuse: true })) {
    if (size === 0) break;
    const count = chunk.byteLength / size;
    const read = elementReader({ dtype: s.dtype, shape: [count], data: chunk }, 'exact');
    for (const block of blocksOf(s.shape, first, count, piece, read)) {
      yield encoder.encode(pending + block);
      pending = '';
    }
    first += count;
  }
  if (pending + tail !== '') yield encoder.encode(pending + tail);
}

/** The text of `count` elements (flat indices from `first` in `shape`), a block at a time. */
function* blocksOf(
  shape: Shape,
  first: number,
  count: number,
  piece: ElementPiece,
  read: (i: number) => ElementValue,
): Generator<string> {
  for (let start = 0; start < count; start += BLOCK_ELEMENTS) {
    const end = Math.min(count, start + BLOCK_ELEMENTS);
    let text = '';
    let i = start;
    try {
      for (; i < end; i++) text += piece(first + i, read(i));
    } catch (error) {
      throw error instanceof RefusedElement ? refusedElementError(error, first + i, shape) : error;
    }
    yield text;
  }
}

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

/**
 * A number as numpy prints it: integers exactly, floats with the shortest digits that read back to
 * the same value in the tensor's own dtype (float32 keeps float32 digits), `nan`, `inf`, `-inf`.
 * float8 values, which no shortest-digits routine covers here, get their exact float32 digits.
 */
export function numberText(x: number | bigint, dtype: Dtype): string {
  if (typeof x === 'bigint') return x.toString();
  if (isFloat8Dtype(dtype)) return reprFloat(float8ToNumber(dtype, x), 'float32');
  const floatDtype: FloatDtype | undefined = isFloatDtype(dtype)
    ? dtype
    : dtype === 'complex64'
      ? 'float32'
      : dtype === 'complex128'
        ? 'float64'
        : undefined;
  return floatDtype === undefined ? String(x) : reprFloat(x, floatDtype);
}
