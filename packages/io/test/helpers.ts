import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Dtype,
  dtypeSize,
  isTensorOpsError,
  type Tensor,
  type TensorOpsError,
} from '@tensorops/core';
import { expect } from 'vitest';
import { encodeNpyHeader } from '../src/index.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/npy');

export interface ValidFixture {
  file: string;
  dtype: string;
  shape: number[];
  descr: string;
  fortranOrder: boolean;
  version: [number, number];
  canonical: boolean;
  data: string;
}

export interface InvalidFixture {
  file: string;
  code: string;
  includes: string;
}

export interface Manifest {
  numpy: string;
  longHeader: {
    file: string;
    dtype: string;
    rank: number;
    version: [number, number];
    data: string;
  };
  valid: ValidFixture[];
  invalid: InvalidFixture[];
}

export const manifest: Manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8'));

export function fixtureBytes(file: string): Uint8Array {
  const buf = readFileSync(join(FIXTURES, file));
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

export function base64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** Runs `fn`, expecting a TensorOpsError; returns it for further checks. */
export function expectError(fn: () => unknown): TensorOpsError {
  try {
    fn();
  } catch (error) {
    expect(isTensorOpsError(error), String(error)).toBe(true);
    return error as TensorOpsError;
  }
  throw new Error('expected a TensorOpsError, nothing was thrown');
}

export async function expectRejection(promise: Promise<unknown>): Promise<TensorOpsError> {
  try {
    await promise;
  } catch (error) {
    expect(isTensorOpsError(error), String(error)).toBe(true);
    return error as TensorOpsError;
  }
  throw new Error('expected a TensorOpsError, the promise resolved');
}

/** Alignment a typed-array view of this item size needs. */
export function alignmentOf(itemSize: number): number {
  return Math.min(8, itemSize & -itemSize) || 1;
}

/** Builds a .npy file from a header dict text, padded like numpy pads (v1.0). */
export function npyWithHeader(
  dict: string,
  data: Uint8Array = new Uint8Array(0),
  major = 1,
): Uint8Array {
  const body = new TextEncoder().encode(dict);
  const fieldEnd = major === 1 ? 10 : 12;
  const pad = 64 - ((fieldEnd + body.length + 1) % 64);
  const headerLength = body.length + 1 + pad;
  const out = new Uint8Array(fieldEnd + headerLength + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, headerLength, true);
  else view.setUint32(8, headerLength, true);
  out.set(body, fieldEnd);
  out.fill(0x20, fieldEnd + body.length, fieldEnd + headerLength - 1);
  out[fieldEnd + headerLength - 1] = 0x0a;
  out.set(data, fieldEnd + headerLength);
  return out;
}

/** Bytes per swapped unit when big-endian (complex: halves; U strings: UTF-32 units). */
export function unitOf(dtype: Dtype): number {
  if (dtype.startsWith('U')) return 4;
  if (dtype.startsWith('complex')) return dtypeSize(dtype) / 2;
  return dtypeSize(dtype);
}

/** A big-endian .npy of `t`, written by hand: '>' descr and every unit's bytes reversed. */
export function bigEndianNpy(t: Tensor): Uint8Array {
  const header = encodeNpyHeader(t);
  const text = new TextDecoder('latin1').decode(header);
  const at = text.indexOf("'descr': '<");
  if (at >= 0) header[at + 10] = 0x3e;
  const data = new Uint8Array(t.data);
  const unit = unitOf(t.dtype);
  for (let i = 0; i + unit <= data.length; i += unit) data.subarray(i, i + unit).reverse();
  const out = new Uint8Array(header.length + data.length);
  out.set(header);
  out.set(data, header.length);
  return out;
}
