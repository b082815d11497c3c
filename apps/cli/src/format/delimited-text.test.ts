import { createTensor, type Tensor, tensorFrom } from '@tensorops/core';
import { streamOfTensor } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { type DelimitedOptions, delimitedChunks } from './delimited-text.js';

async function text(t: Tensor, options: Partial<DelimitedOptions> = {}): Promise<string> {
  const decoder = new TextDecoder();
  let out = '';
  const chunks = delimitedChunks(streamOfTensor(t), { delimiter: ',', header: false, ...options });
  for await (const chunk of chunks) out += decoder.decode(chunk);
  return out;
}

describe('delimitedChunks', () => {
  it('lays out ranks as numpy.savetxt: 1-D one value per line, higher ranks (-1, last)', async () => {
    expect(await text(tensorFrom('int32', [3], [1, 2, 3]))).toBe('1\n2\n3\n');
    expect(await text(tensorFrom('int32', [], [7]))).toBe('7\n');
    expect(await text(tensorFrom('int32', [2, 1, 2], [1, 2, 3, 4]), { delimiter: '\t' })).toBe(
      '1\t2\n3\t4\n',
    );
  });

  it('writes rows of zero columns as empty lines, and an empty 1-D tensor as nothing', async () => {
    expect(await text(createTensor('float32', [2, 0]))).toBe('\n\n');
    expect(await text(createTensor('float32', [0]))).toBe('');
    expect(await text(createTensor('float32', [0, 3]), { header: true })).toBe(
      '# dtype float32, shape [0,3]\n',
    );
  });

  it('writes numbers in their own dtype: float32 digits, exact int64, numpy nan/inf', async () => {
    const f = tensorFrom('float32', [1, 4], [0.1, Number.NaN, -Number.POSITIVE_INFINITY, -0]);
    expect(await text(f)).toBe('0.1,nan,-inf,-0.0\n');
    const i = tensorFrom('int64', [2], [2n ** 53n + 1n, -(2n ** 63n)]);
    expect(await text(i)).toBe('9007199254740993\n-9223372036854775808\n');
    expect(await text(tensorFrom('bool', [1, 2], [1, 0]))).toBe('1,0\n');
  });

  it('refuses a string that would split its cell', async () => {
    const bytes = new Uint8Array([0x61, 0x2c]); // "a,"
    await expect(text(createTensor('S2', [1], bytes))).rejects.toThrow(
      'the string at [0] holds a comma, which would split its cell; write .json or .npy',
    );
    expect(await text(createTensor('S2', [1], bytes), { delimiter: '\t' })).toBe('a,\n');
  });

  it('yields in blocks, so a large tensor is never one string', async () => {
    const t = createTensor('uint8', [100_000]);
    const sizes: number[] = [];
    for await (const chunk of delimitedChunks(streamOfTensor(t), { delimiter: ',', header: false }))
      sizes.push(chunk.byteLength);
    expect(sizes.length).toBeGreaterThan(4);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(200_000);
  });
});
