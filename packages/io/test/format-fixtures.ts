// The .npz and .safetensors fixtures (scripts/fixtures/npz.py, safetensors.py) and their manifests.

import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tensor } from '@tensorops/core';
import { expect } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures');
export const NPZ_DIR = join(ROOT, 'npz');
export const SAFETENSORS_DIR = join(ROOT, 'safetensors');
/** Written by gguf-py (scripts/fixtures/gguf.py). */
export const GGUF_DIR = join(ROOT, 'gguf/container');
/** Written by the official safetensors package and ml_dtypes (scripts/fixtures/checkpoints.py). */
export const CHECKPOINTS_DIR = join(ROOT, 'checkpoints');

export interface ExpectedTensor {
  name: string;
  dtype: string;
  shape: number[];
  fortranOrder?: boolean;
  b64?: string;
  sha256?: string;
}

export interface NpzManifest {
  numpy: string;
  valid: { file: string; compression: 'stored' | 'deflate'; tensors: ExpectedTensor[] }[];
  invalid: { file: string; code: string; includes: string }[];
}

export interface SafetensorsManifest {
  valid: {
    file: string;
    canonical: boolean;
    metadata: Record<string, string> | null;
    tensors: (ExpectedTensor & {
      stDtype: string;
      dtype: string | null;
      offset: number;
      nbytes: number;
    })[];
  }[];
  invalid: { file: string; code: string; includes: string }[];
}

export const npzManifest: NpzManifest = JSON.parse(
  readFileSync(join(NPZ_DIR, 'manifest.json'), 'utf8'),
);
export const safetensorsManifest: SafetensorsManifest = JSON.parse(
  readFileSync(join(SAFETENSORS_DIR, 'manifest.json'), 'utf8'),
);

export function bytesOf(path: string): Uint8Array {
  const b = readFileSync(path);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** Asserts a loaded tensor equals the manifest's expectation, byte for byte. */
export function expectTensor(t: Tensor, e: ExpectedTensor, where: string): void {
  expect(t.dtype, where).toBe(e.dtype);
  expect(t.shape, where).toEqual(e.shape);
  if (e.b64 !== undefined) expect(Buffer.from(t.data).toString('base64'), where).toBe(e.b64);
  else expect(createHash('sha256').update(t.data).digest('hex'), where).toBe(e.sha256);
}

/** The sharded checkpoint of fixtures/checkpoints (scripts/fixtures/checkpoints.py). */
export interface CheckpointsManifest {
  index: string;
  totalSize: number;
  tensors: (ExpectedTensor & { shard: string; stDtype: string; b64: string })[];
  invalid: { file: string; includes: string; verifyOnly: boolean }[];
}

export const SHARDED_DIR = join(CHECKPOINTS_DIR, 'sharded');

/** Copies the well-formed sharded checkpoint (its index and three shards) into `dir`. */
export function copyShardedCheckpoint(dir: string): void {
  for (const file of [
    'model.safetensors.index.json',
    'model-00001-of-00003.safetensors',
    'model-00002-of-00003.safetensors',
    'model-00003-of-00003.safetensors',
  ]) {
    copyFileSync(join(SHARDED_DIR, file), join(dir, file));
  }
}
export const checkpointsManifest: CheckpointsManifest = JSON.parse(
  readFileSync(join(CHECKPOINTS_DIR, 'manifest.json'), 'utf8'),
);
