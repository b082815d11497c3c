// A gather from a quantized GGUF tensor, whose bytes are blocks of values, not values: it reads
// whole rows (ne0 elements, ne0 / blockSize blocks, contiguous) and dequantizes them. Along any
// axis but the last, an output block is whole rows, and only the rows the indices pick are read,
// each once per chunk (over HTTP in one batch of ranges, which neighbouring rows share). Along
// the last axis every row is read, a chunk of rows at a time, and its picked elements kept.

import { ZERO_FILL } from '@tensorops/core/internal';
import { dequantizeInto } from '../../gguf/dequantize.js';
import type { GgmlType } from '../../gguf/ggml-types.js';
import { dequantizeRows, quantizedRow } from '../gguf-file.js';
import type { ChunkOptions } from '../tensor-stream.js';
import type { RunContext } from './context.js';
import { chunkAllocator } from './output-chunks.js';
import { type PendingRead, runReads } from './reads.js';

/**
 * Output chunk size of a whole-rows gather: its rows are computed, not copied, so a larger chunk
 * saves only write calls, while each fresh mebibyte of the two chunk buffers costs page faults.
 */
const ROWS_CHUNK_BYTES = 1 << 20;

export function quantizedGather(
  ctx: RunContext,
  type: GgmlType,
  options?: ChunkOptions,
): AsyncIterable<Uint8Array> {
  const row = quantizedRow(ctx.stored, type);
  const innerElements = ctx.plan.blockBytes / 4;
  return innerElements % row.length === 0 && row.length > 0
    ? wholeRows(
        { ...ctx, chunkBytes: Math.min(ctx.chunkBytes, ROWS_CHUNK_BYTES) },
        type,
        row,
        innerElements / row.length,
        options,
      )
    : elementsOfRows(ctx, type, row);
}

type Row = ReturnType<typeof quantizedRow>;

/**
 * Output blocks of `rowsPerBlock` whole rows. Per output chunk: the distinct source blocks it
 * needs, in file order, read into one buffer (a run of neighbours in one read), then each output
 * block dequantized from its source straight into its place in the chunk.
 */
async function* wholeRows(
  ctx: RunContext,
  type: GgmlType,
  row: Row,
  rowsPerBlock: number,
  options: ChunkOptions | undefined,
): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  const sourceBytes = rowsPerBlock * row.bytes;
  const perChunk = Math.max(1, Math.floor(ctx.chunkBytes / Math.max(1, blockBytes)));
  const total = batch * outer * perBatch;
  // Two output buffers taking turns where the consumer allows it (a chunk is at most chunkBytes
  // unless one output block is larger).
  const shared = chunkAllocator(ctx, options);
  const allocate = (length: number): Uint8Array =>
    length <= Math.min(ctx.chunkBytes, ctx.nbytes) ? shared(length) : new Uint8Array(length);
  for (let first = 0; first < total; first += perChunk) {
    const count = Math.min(perChunk, total - first);
    // Source block of each output block in this chunk; -1: zero-filled.
    const sources = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const i = first + k;
      const j = i % perBatch;
      const region = (i - j) / perBatch; // b * outer + o
      const p = positions[Math.floor(region / outer) * perBatch + j] as number;
      sources[k] = p === ZERO_FILL ? -1 : region * axisSize + p;
    }
    const distinct = [...new Set(sources)].filter((s) => s >= 0).sort((x, y) => x - y);
    const slot = new Map(distinct.map((s, n) => [s, n]));
    const blocks = new Uint8Array(distinct.length * sourceBytes);
    const reads: PendingRead[] = [];
    for (let n = 0; n < distinct.length; ) {
      let run = 1;
      while (n + run < distinct.length && distinct[n + run] === (distinct[n] as number) + run)
        run++;
      reads.push({
        position: ctx.offset + (distinct[n] as number) * sourceBytes,
        target: blocks.subarray(n * sourceBytes, (n + run) * sourceBytes),
      });
      n += run;
    }
    await runReads(ctx, reads);
    const out = allocate(count * blockBytes);
    const values = new Float32Array(out.buffer, out.byteOffset, out.length / 4);
    const inner = blockBytes / 4;
    for (let k = 0; k < count; k++) {
      const n = slot.get(sources[k] as number);
      if (n === undefined) out.fill(0, k * blockBytes, (k + 1) * blockBytes);
      else {
        const source = blocks.subarray(n * sourceBytes, (n + 1) * sourceBytes);
        dequantizeInto(
          type,
          source,
          inner,
          values.subarray(k * inner, (k + 1) * inner),
          ctx.nbytes,
        );
      }
    }
    yield out;
  }
}

/** The gather axis is the last: each region is one row, read and dequantized whole. */
async function* elementsOfRows(
  ctx: RunContext,
  type: GgmlType,
  row: Row,
): AsyncIterable<Uint8Array> {
  const { batch, outer, perBatch, positions } = ctx.plan;
  const rows = batch * outer;
  const rowsPerChunk = Math.max(
    1,
    Math.floor(ctx.chunkBytes / Math.max(4, row.length * 4, perBatch * 4)),
  );
  for (let first = 0; first < rows; first += rowsPerChunk) {
    const count = Math.min(rowsPerChunk, rows - first);
    const read = {
      position: ctx.offset + first * row.bytes,
      target: new Uint8Array(count * row.bytes),
    };
    await runReads(ctx, [read]);
    const bytes = dequantizeRows(type, read.target, count * row.length);
    // As 32-bit words, not floats: a NaN is copied with its payload.
    const values = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const out = new Uint32Array(count * perBatch);
    for (let r = 0; r < count; r++) {
      const b = Math.floor((first + r) / outer);
      for (let j = 0; j < perBatch; j++) {
        const p = positions[b * perBatch + j] as number;
        // Zero-filled positions stay 0.
        if (p !== ZERO_FILL) out[r * perBatch + j] = values[r * row.length + p] as number;
      }
    }
    yield new Uint8Array(out.buffer);
  }
}
