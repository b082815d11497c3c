// The rules of a PyTorch checkpoint (torch.save's zip format), pure: which archive members it has,
// what its dtypes are in tensorops, and where a tensor's elements lie in its storage. A view's
// layout (storage offset, shape, strides) is checked against its storage with exact integer
// arithmetic before anything is sized by it: every product and sum stays a safe integer or the
// tensor is refused.

import { type Dtype, NUMERIC_DTYPES, TensorOpsError } from '@tensorops/core';
import { quote } from './text.js';
import type { TorchTensorRecord } from './torch/pickle-records.js';
import { TORCH_DTYPE_SIZES, VALUES_PER_ELEMENT } from './torch/torch-dtypes.js';

/** The legacy (pre-zip) format starts by pickling this number with protocol 2 (LONG1, 10 bytes). */
const LEGACY_PREFIX = [
  0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19,
];

/** True when `head` starts as a legacy torch.save stream does (as far as `head` goes, 4 bytes at least). */
export function isLegacyTorch(head: Uint8Array): boolean {
  if (head.length < 4) return false;
  return LEGACY_PREFIX.every((b, i) => i >= head.length || head[i] === b);
}

export interface TorchDtype {
  /** Undefined for a dtype tensorops cannot hold (complex32, quantized): listed, never read. */
  readonly dtype: Dtype | undefined;
  /** Bytes of one storage element. */
  readonly itemSize: number;
  /** Values in one storage element: 2 or 4 for the packed quantized dtypes, else 1. */
  readonly valuesPerElement: number;
}

/**
 * What a torch dtype name the pickle reader admitted is in tensorops (torch's names are tensorops'
 * own), with its storage's element size.
 */
export function torchDtype(name: string): TorchDtype {
  return {
    dtype: (NUMERIC_DTYPES as readonly string[]).includes(name) ? (name as Dtype) : undefined,
    itemSize: TORCH_DTYPE_SIZES.get(name) as number,
    valuesPerElement: VALUES_PER_ELEMENT.get(name) ?? 1,
  };
}

/** The members of one checkpoint: everything under the archive's one top folder. */
export interface TorchLayout {
  /** `archive/` (the folder holding data.pkl), with its slash. */
  readonly prefix: string;
  readonly pickle: string;
  /** Absent: little-endian, as torch writes it on every machine it runs on. */
  readonly byteorder: string | undefined;
}

/** Finds data.pkl; refuses TorchScript archives (code and constants, not a state dict). */
export function torchLayout(names: readonly string[]): TorchLayout {
  const pickles = names.filter((n) => /^[^/]+\/data\.pkl$/.test(n) || n === 'data.pkl');
  if (pickles.length !== 1) {
    throw new TensorOpsError(
      'E_FORMAT',
      pickles.length === 0
        ? 'not a torch checkpoint: the zip archive has no data.pkl'
        : `torch checkpoint has ${pickles.length} data.pkl members; expected one`,
    );
  }
  const pickle = pickles[0] as string;
  const prefix = pickle.slice(0, -'data.pkl'.length);
  if (names.some((n) => n === `${prefix}constants.pkl` || n.startsWith(`${prefix}code/`))) {
    throw new TensorOpsError(
      'E_FORMAT',
      'a TorchScript archive (torch.jit.save: code and constants), not a state dict; tensorops reads torch.save checkpoints',
    );
  }
  const order = `${prefix}byteorder`;
  return { prefix, pickle, byteorder: names.includes(order) ? order : undefined };
}

/** The byte order the `byteorder` record names. */
export function torchByteOrder(text: string | undefined): 'little' | 'big' {
  if (text === undefined || text === 'little') return 'little';
  if (text === 'big') return 'big';
  throw new TensorOpsError(
    'E_FORMAT',
    `torch byteorder record says ${quote(text.slice(0, 32))}; expected 'little' or 'big'`,
  );
}

function overflow(name: string, what: string): never {
  throw new TensorOpsError(
    'E_SHAPE',
    `tensor ${quote(name)}: ${what} overflows (beyond 2^53 elements)`,
  );
}

function safe(n: number, name: string, what: string): number {
  if (!Number.isSafeInteger(n)) overflow(name, what);
  return n;
}

/** Where a tensor's elements lie in its storage, in elements of the storage's dtype. */
export interface TorchView {
  readonly elements: number;
  /** The first element the view touches, and one past the last (equal when it has none). */
  readonly first: number;
  readonly end: number;
  /** True when the view's elements are the storage's [first, end) in C order. */
  readonly contiguous: boolean;
}

/**
 * Checks a tensor's view of its storage: non-negative integers, no overflow, within the storage's
 * `numel` elements. Linear in the rank.
 */
export function torchView(t: TorchTensorRecord, numel: number): TorchView {
  const { name, shape, strides, storageOffset } = t;
  if (shape.length !== strides.length) {
    throw new TensorOpsError(
      'E_FORMAT',
      `tensor ${quote(name)} has ${shape.length} dimensions and ${strides.length} strides`,
    );
  }
  for (const n of [storageOffset, ...shape, ...strides]) {
    if (!Number.isSafeInteger(n)) overflow(name, 'a size, stride or offset');
    if (n < 0)
      throw new TensorOpsError(
        'E_FORMAT',
        `tensor ${quote(name)} has a negative size, stride or offset (${n})`,
      );
  }
  let elements = 1;
  let last = storageOffset;
  let contiguous = true;
  let expected = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    const size = shape[d] as number;
    const stride = strides[d] as number;
    elements = safe(elements * size, name, 'the shape product');
    if (size > 0)
      last = safe(
        last + safe((size - 1) * stride, name, 'a stride product'),
        name,
        'the view span',
      );
    if (size !== 1 && stride !== expected) contiguous = false;
    expected = safe(expected * size, name, 'the shape product');
  }
  const view =
    elements === 0
      ? { elements, first: storageOffset, end: storageOffset, contiguous: true }
      : { elements, first: storageOffset, end: last + 1, contiguous };
  if (view.end > numel || view.first > numel) {
    throw new TensorOpsError(
      'E_FORMAT',
      `tensor ${quote(name)} views elements [${view.first}, ${view.end}) of a storage of ${numel}: past its end`,
    );
  }
  return view;
}

/**
 * The view's elements in C order, copied from `span` (the storage's elements [first, end)): runs
 * of the innermost dimension when it is contiguous, single elements otherwise.
 */
export function gatherView(
  t: TorchTensorRecord,
  view: TorchView,
  span: Uint8Array,
  itemSize: number,
): Uint8Array {
  const out = new Uint8Array(view.elements * itemSize);
  if (view.elements === 0) return out;
  // Dimensions of size 1 move nothing; the rest number at most 53, as the element count is safe,
  // which bounds the recursion below.
  const dims = t.shape
    .map((size, d) => [size, t.strides[d] as number] as const)
    .filter(([size]) => size !== 1);
  const [innerSize, innerStride] = dims.at(-1) ?? [1, 1];
  const run = innerStride === 1 ? innerSize * itemSize : itemSize;
  const outer = innerStride === 1 ? dims.slice(0, -1) : dims;
  let at = 0;
  const walk = (d: number, from: number): void => {
    if (d === outer.length) {
      out.set(span.subarray(from * itemSize, from * itemSize + run), at);
      at += run;
      return;
    }
    const [size, stride] = outer[d] as readonly [number, number];
    for (let i = 0; i < size; i++) walk(d + 1, from + i * stride);
  };
  walk(0, 0);
  return out;
}
