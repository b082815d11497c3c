import { describe, expect, it } from 'vitest';
import { gather } from './gather.js';
import { tensorFrom, tensorValues } from './tensor.js';

describe('gather smoke', () => {
  it('gathers rows', () => {
    const out = gather(tensorFrom('int32', [3, 2], [1, 2, 3, 4, 5, 6]), tensorFrom('int64', [2], [2, -3]));
    expect(out.shape).toEqual([2, 2]);
    expect(tensorValues(out)).toEqual([5, 6, 1, 2]);
  });
});
