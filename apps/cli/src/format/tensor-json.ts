import type { Dtype, Shape, Tensor } from '@tensorops/core';
import { streamOfTensor, type TensorStream } from '@tensorops/io/node';
import { elementCount, numberWriter, streamText } from './element-text.js';
import type { ElementValue } from './elements.js';
import type { TextBytes } from './text-bytes.js';

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
  const element = elementWriter(s.dtype);
  return streamText(
    s,
    head,
    (i, v, out) => {
      const [open, close] = opensAt(i);
      if (i > 0) out.byte(COMMA);
      for (let k = 0; k < open; k++) out.byte(OPEN);
      element(out, v);
      for (let k = 0; k < close; k++) out.byte(CLOSE);
    },
    tail,
  );
}

const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

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

function elementWriter(dtype: Dtype): (out: TextBytes, v: ElementValue) => void {
  const number = numberWriter(dtype, '"');
  return (out, v) => {
    if (typeof v === 'boolean') out.ascii(v ? 'true' : 'false');
    else if (typeof v === 'string') out.text(JSON.stringify(v));
    else if (Array.isArray(v)) {
      out.byte(OPEN);
      number(out, v[0]);
      out.byte(COMMA);
      number(out, v[1]);
      out.byte(CLOSE);
    } else number(out, v);
  };
}
