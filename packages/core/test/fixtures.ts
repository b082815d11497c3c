import { readFileSync } from 'node:fs';
import { createTensor, parseDtype, type Tensor } from '../src/index.js';

/** Repository-level fixtures/ folder (written by scripts/fixtures/*.py; tests never run Python). */
export const FIXTURES_DIR = new URL('../../../fixtures/', import.meta.url);

interface TensorJson {
  readonly dtype: string;
  readonly shape: number[];
  readonly b64: string;
}

/** A tensor written by scripts/fixtures/_common.py: numpy dtype name, shape, little-endian bytes. */
export function tensorFromJson(json: TensorJson): Tensor {
  // A fresh copy: Buffer.from may hand back a slice of its shared pool at any byteOffset.
  const bytes = new Uint8Array(Buffer.from(json.b64, 'base64'));
  return createTensor(parseDtype(json.dtype), json.shape, bytes);
}

export interface GatherCase {
  readonly name: string;
  readonly data: Tensor;
  readonly indices: Tensor;
  readonly axis: number;
  readonly batchDims: number;
  readonly expected: Tensor;
}

export function readFixture<T = unknown>(relativePath: string): T {
  return JSON.parse(readFileSync(new URL(relativePath, FIXTURES_DIR), 'utf8')) as T;
}

export function loadGatherCases(): GatherCase[] {
  const raw =
    readFixture<
      Array<{
        name: string;
        data: TensorJson;
        indices: TensorJson;
        axis: number;
        batchDims: number;
        expected: TensorJson;
      }>
    >('gather/cases.json');
  return raw.map((c) => ({
    name: c.name,
    data: tensorFromJson(c.data),
    indices: tensorFromJson(c.indices),
    axis: c.axis,
    batchDims: c.batchDims,
    expected: tensorFromJson(c.expected),
  }));
}

export function loadFloat16Table(): { values: Tensor; float16: Tensor } {
  const [entry] = readFixture<Array<{ values: TensorJson; float16: TensorJson }>>(
    'gather/float16-bits.json',
  );
  if (entry === undefined) throw new Error('gather/float16-bits.json is empty');
  return { values: tensorFromJson(entry.values), float16: tensorFromJson(entry.float16) };
}

/**
 * The same bytes at `offset` inside a larger buffer whose other bytes are 0xA5, so a kernel that
 * ignores byteOffset or reads past the view sees garbage.
 */
export function placeAt(bytes: Uint8Array, offset: number): Uint8Array {
  const buffer = new Uint8Array(offset + bytes.byteLength + 7).fill(0xa5);
  const view = buffer.subarray(offset, offset + bytes.byteLength);
  view.set(bytes);
  return view;
}

/** The tensor with its bytes moved to `offset` within a garbage-filled buffer. */
export function tensorAt(t: Tensor, offset: number): Tensor {
  return { dtype: t.dtype, shape: t.shape, data: placeAt(t.data, offset) };
}
