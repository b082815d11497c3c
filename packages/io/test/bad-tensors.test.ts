import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Tensor, tensorFrom } from '@tensorops/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type BadTensor, badTensor, itRefusesBadTensors } from '../../../test/bad-tensors.js';
import { encodeNpy, encodeNpyChunks, encodeSafetensors, widenToFloat32 } from '../src/index.js';
import { streamOfTensor, writeTensorFile } from '../src/node/index.js';

const asTensor = (bad: BadTensor): Tensor => bad.tensor as Tensor;
const dir = mkdtempSync(join(tmpdir(), 'tensorops-bad-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The encoders copy `data` into a file's bytes: a Float32Array there would be truncated value by
// value, and short data would write a short file (docs/design.md §2.2).
const ENCODERS: ReadonlyArray<readonly [string, (t: Tensor) => unknown]> = [
  ['encodeNpy', (t) => encodeNpy(t)],
  ['encodeNpyChunks', (t) => encodeNpyChunks(t)],
  [
    'encodeSafetensors',
    (t) =>
      encodeSafetensors([
        { name: 'ok', tensor: tensorFrom('int8', [1], [1]) },
        { name: 'x', tensor: t },
      ]),
  ],
  ['streamOfTensor', (t) => streamOfTensor(t)],
  ['widenToFloat32', (t) => widenToFloat32(t)],
];

describe('io refuses a tensor with the wrong bytes, dims or dtype', () => {
  itRefusesBadTensors(ENCODERS);

  it('writeTensorFile refuses before it creates a file', async () => {
    await fc.assert(
      fc.asyncProperty(
        badTensor(),
        fc.constantFrom('npy', 'npz', 'safetensors'),
        async (bad, ext) => {
          const error = await writeTensorFile(join(dir, `out.${ext}`), asTensor(bad)).then(
            () => undefined,
            (e: { code?: string }) => e,
          );
          expect(error?.code, bad.why).toBe(bad.code);
          expect(readdirSync(dir)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a Float32Array of values is refused, not written as truncated bytes', () => {
    const f32 = new Float32Array([1.5, 2, 3, 4, 5, 6]);
    const plainJs = { dtype: 'float32', shape: [3, 2], data: f32 } as unknown as Tensor;
    expect(() => encodeNpy(plainJs)).toThrow(/^tensor data must be a Uint8Array/);
    expect(() => encodeSafetensors([{ name: 'w', tensor: plainJs }])).toThrow(
      /^tensor 'w' data must be a Uint8Array/,
    );
  });
});
