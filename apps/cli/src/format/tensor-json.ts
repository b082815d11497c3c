import type { Dtype, Shape, Tensor } from '@tensorops/core';
import { streamOfTensor, type TensorStream } from '@tensorops/io/node';
import { elementCount, numberText, streamText } from './element-text.js';
import type { ElementValue } from './elements.js';

// The `--json` document of a tensor: {"dtype", "shape", "data"} with data nested like the shape.
// 64-bit integers are exact number literals (JSON allows any length); NaN and the infinities,
// which JSON lacks, are the strings "nan", "inf", "-inf". Strings keep every code unit: a NUL is
// \u0000 and a lone surrogate \udXXX (JSON.stringify escapes both); a U code unit JSON cannot hold is
// refused (elementReader 'exact'). Written a block at a time.

/** The document as UTF-8 chunks. */
export function tensorJsonChunks(s: TensorStream): AsyncIterable<Uint8Array> {
  const head = `{"dtype":${JSON.stringify(s.dtype)},"shape":${JSON.stringify(s.shape)},"data":`;
  const tail = '}\n';
  const zeroAt = s.shape.indexOf(0);
  if (zeroAt >= 0) return emptyJson(head, s.shape.slice(0, zeroAt), tail);
  const opensAt = nesting(s.shape);
  return streamText(
    s,
    head,
    (i, v) => {
      const [open, close] = opensAt(i);
      return `${i > 0 ? ',' : ''}${'['.repeat(open)}${jsonElement(v, s.dtype)}${']'.repeat(close)}`;
    },
    tail,
  );
}

/** The whole document as one string (small tensors, tests). */
export async function tensorJson(t: Tensor): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of tensorJsonChunks(streamOfTensor(t))) text += decoder.decode(chunk);
  return text;
}

/**
 * How many brackets open before and close after the element at a flat index: one for every
 * dimension whose index is at its first (last) position there.
 */
function nesting(shape: Shape): (index: number) => [open: number, close: number] {
  const spans: number[] = [];
  let span = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    span *= shape[d] as number;
    spans.push(span);
  }
  return (i) => {
    let open = 0;
    let close = 0;
    for (const s of spans) {
      if (i % s === 0) open++;
      if ((i + 1) % s === 0) close++;
    }
    return [open, close];
  };
}

/** A tensor with a zero dimension: `[]` at every position of the dimensions before it. */
async function* emptyJson(head: string, outer: Shape, tail: string): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  yield encoder.encode(head);
  const count = elementCount(outer);
  const opensAt = nesting(outer);
  if (outer.length === 0) yield encoder.encode('[]');
  else {
    // Every outer position holds `[]`; the ones that open or close a row add brackets around it.
    for (let i = 0; i < count; i++) {
      const [open, close] = opensAt(i);
      yield encoder.encode(`${i > 0 ? ',' : ''}${'['.repeat(open)}[]${']'.repeat(close)}`);
    }
  }
  yield encoder.encode(tail);
}

function jsonElement(v: ElementValue, dtype: Dtype): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${jsonNumber(v[0], dtype)},${jsonNumber(v[1], dtype)}]`;
  return jsonNumber(v, dtype);
}

function jsonNumber(x: number | bigint, dtype: Dtype): string {
  const text = numberText(x, dtype);
  return text === 'nan' || text === 'inf' || text === '-inf' ? `"${text}"` : text;
}
