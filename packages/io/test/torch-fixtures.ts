// What scripts/fixtures/torch.py wrote into fixtures/torch/expected.json: per checkpoint, its
// tensors as torch.load(weights_only=True) reads them; per hostile archive, its error fragment.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tensor } from '@tensorops/core';

export const TORCH_FIXTURES = join(import.meta.dirname, '../../../fixtures/torch');

export interface ExpectedTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: number[];
  readonly b64: string;
  /** Whether another tensor of the file views the same storage. */
  readonly shared: boolean;
}

export interface ExpectedFile {
  readonly tensors: ExpectedTensor[];
  readonly otherEntries: number;
}

/** A tensor of a dtype tensorops cannot hold, by its torch dtype name (`complex32`, `qint8`). */
export interface UnheldTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: number[];
  /** The bytes of its storage, which it views whole. */
  readonly nbytes: number;
}

export const expected = JSON.parse(
  readFileSync(join(TORCH_FIXTURES, 'expected.json'), 'utf8'),
) as Record<string, ExpectedFile> & {
  hostile: Record<string, { error: string; creates?: string }>;
  unheld: Record<string, { tensors: (ExpectedTensor | UnheldTensor)[]; otherEntries: number }>;
};

/** The golden tensor `name` of checkpoint `file` (a key of expected.json). */
export function goldenTensor(file: string, name: string): Tensor {
  const t = expected[file]?.tensors.find((e) => e.name === name);
  if (t === undefined) throw new Error(`no fixture tensor ${file}:${name}`);
  return expectedTensor(t);
}

/** The tensor an expected.json entry describes. */
export function expectedTensor(t: ExpectedTensor): Tensor {
  return {
    dtype: t.dtype as Tensor['dtype'],
    shape: t.shape,
    data: new Uint8Array(Buffer.from(t.b64, 'base64')),
  };
}
