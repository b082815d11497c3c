import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BadTensor,
  badTensor,
  codeOf,
  itRefusesBadTensors,
} from '../../../test/bad-tensors.js';
import { thrown } from '../test/assert.js';
import { checkTensor } from './check-tensor.js';
import { gather, planGather } from './gather.js';
import { gatherElements, planGatherElements } from './gather-elements/index.js';
import { gatherND, planGatherND } from './gather-nd.js';
import { createTensor, type Tensor, tensorFrom, tensorValues } from './tensor.js';

const asTensor = (bad: BadTensor): Tensor => bad.tensor as Tensor;
const index0 = tensorFrom('int32', [1], [0]);
const data4 = tensorFrom('float32', [4], [1, 2, 3, 4]);

// Every entry point that takes a tensor, with the bad one in each place it can go.
const ENTRY_POINTS: ReadonlyArray<readonly [string, (t: Tensor) => unknown]> = [
  // Without data createTensor allocates, so a missing data is handed in as null.
  [
    'createTensor',
    (t) => createTensor(t.dtype, t.shape, t.data ?? (null as unknown as Uint8Array)),
  ],
  ['tensorValues', (t) => tensorValues(t)],
  ['gather data', (t) => gather(t, index0)],
  ['gather indices', (t) => gather(data4, t)],
  ['gather out', (t) => gather(data4, index0, { out: t })],
  ['planGather indices', (t) => planGather(data4, t)],
  ['gatherElements data', (t) => gatherElements(t, index0)],
  ['gatherElements indices', (t) => gatherElements(data4, t)],
  ['gatherElements out', (t) => gatherElements(data4, index0, { out: t })],
  ['planGatherElements indices', (t) => planGatherElements(data4, t)],
  ['gatherND data', (t) => gatherND(t, tensorFrom('int32', [1, 1], [0]))],
  ['gatherND indices', (t) => gatherND(data4, t)],
  ['planGatherND indices', (t) => planGatherND(data4, t)],
];

describe('a tensor with the wrong bytes, dims or dtype (docs/design.md §2.2)', () => {
  itRefusesBadTensors(ENTRY_POINTS);

  it('the plans check the layout of data they do not read', () => {
    fc.assert(
      fc.property(
        badTensor().filter((b) => !b.why.startsWith('data') && !b.why.endsWith('bytes')),
        (bad) => {
          for (const plan of [planGather, planGatherElements, planGatherND]) {
            expect(
              codeOf(() => plan(asTensor(bad), index0)),
              bad.why,
            ).toBe(bad.code);
          }
        },
      ),
    );
  });

  it('names what is wrong and how to hand in a typed array', () => {
    const f32 = new Float32Array([1.5, 2, 3, 4, 5, 6]);
    const plainJs = { dtype: 'float32', shape: [3, 2], data: f32 } as unknown as Tensor;
    expect(thrown(() => gather(plainJs, index0))).toEqual({
      code: 'E_DTYPE',
      message:
        "Gather: data data must be a Uint8Array of little-endian bytes, got Float32Array (view a typed array's bytes with new Uint8Array(a.buffer, a.byteOffset, a.byteLength))",
    });
    expect(thrown(() => createTensor('float32', [3, 2], f32 as unknown as Uint8Array)).code).toBe(
      'E_DTYPE',
    );
    const viewed = createTensor('float32', [3, 2], new Uint8Array(f32.buffer));
    expect(tensorValues(gather(viewed, index0))).toEqual([1.5, 2]);
    expect(thrown(() => gatherND(data4, { ...index0, data: new Uint8Array(3) }))).toEqual({
      code: 'E_SHAPE',
      message: 'GatherND: indices of dtype int32 and shape [1] needs 4 bytes, got 3',
    });
    expect(
      thrown(() =>
        checkTensor({ dtype: 'int8', shape: [2, Number.NaN], data: new Uint8Array(2) }, 'x'),
      ),
    ).toEqual({
      code: 'E_SHAPE',
      message: 'x shape [2,NaN] has an invalid dimension NaN',
    });
  });

  it('takes a Buffer (a Uint8Array) and a byte view at any offset', () => {
    const buffer = Buffer.alloc(20);
    const t = createTensor('int32', [4], buffer.subarray(3, 19));
    expect(tensorValues(gather(t, tensorFrom('int32', [2], [3, 0])))).toEqual([0, 0]);
  });
});
