// Property: random checkpoints (nested dicts of tensors, numbers, strings and lists, storages
// shared between views), written as pickles the way torch.save lays them out, read back to the
// records a plain recursive walk of the same tree gives.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTorchPickle, type TorchTensorRecord } from '../src/torch/pickle-records.js';

interface Storage {
  key: string;
  /** A legacy typed storage class, or null for an UntypedStorage read through `_rebuild_tensor_v3`. */
  storageClass: string | null;
  dtype: string;
  itemSize: number;
  numel: number;
}

interface Tensor {
  storage: number;
  offset: number;
  shape: number[];
  strides: number[];
  parameter: boolean;
}

type Node =
  | { kind: 'tensor'; tensor: Tensor }
  | { kind: 'dict'; entries: [string | number, Node][] }
  | { kind: 'int'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'list'; items: Node[] };

const DTYPES: [string | null, string, number][] = [
  ['FloatStorage', 'float32', 4],
  ['HalfStorage', 'float16', 2],
  ['BFloat16Storage', 'bfloat16', 2],
  ['LongStorage', 'int64', 8],
  ['BoolStorage', 'bool', 1],
  [null, 'float8_e5m2', 1],
  [null, 'uint16', 2],
];

const storageArb = fc
  .record({ dtype: fc.nat(DTYPES.length - 1), numel: fc.integer({ min: 1, max: 40 }) })
  .map(({ dtype, numel }) => {
    const [storageClass, name, itemSize] = DTYPES[dtype] as [string | null, string, number];
    return { storageClass, dtype: name, itemSize, numel };
  });

/** A view inside a storage of `numel` elements: its last element is at most numel - 1. */
const tensorArb = (storages: number, numels: number[]) =>
  fc
    .record({
      storage: fc.nat(storages - 1),
      dims: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
      strides: fc.array(fc.nat(4), { minLength: 3, maxLength: 3 }),
      offset: fc.nat(40),
      parameter: fc.boolean(),
    })
    .map(({ storage, dims, strides, offset, parameter }) => {
      const numel = numels[storage] as number;
      const used = dims.map((_, i) => strides[i] as number);
      const reach = dims.reduce((sum, d, i) => sum + (d - 1) * (used[i] as number), 0);
      return {
        storage,
        offset: Math.min(offset, Math.max(0, numel - 1 - reach)),
        shape: reach < numel ? dims : [],
        strides: reach < numel ? used : [],
        parameter,
      };
    });

const KEY = fc.stringMatching(/^[a-z0-9_é€]{0,6}$/);

const treeArb = (storages: number, numels: number[]) =>
  fc.letrec<{ node: Node; dict: Node }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tensorArb(storages, numels).map((tensor): Node => ({ kind: 'tensor', tensor })),
      fc.integer().map((value): Node => ({ kind: 'int', value })),
      KEY.map((value): Node => ({ kind: 'str', value })),
      fc.array(tie('node'), { maxLength: 3 }).map((items): Node => ({ kind: 'list', items })),
      tie('dict'),
    ),
    dict: fc
      .uniqueArray(fc.tuple(fc.oneof(KEY, fc.nat(300)), tie('node')), {
        maxLength: 5,
        selector: ([key]) => key,
      })
      .map((entries): Node => ({ kind: 'dict', entries })),
  })).dict;

const checkpointArb = fc.array(storageArb, { minLength: 1, maxLength: 4 }).chain((storages) =>
  fc.record({
    storages: fc.constant(storages.map((s, i): Storage => ({ ...s, key: String(i) }))),
    root: treeArb(
      storages.length,
      storages.map((s) => s.numel),
    ),
    protocol: fc.constantFrom(2, 4),
    batched: fc.boolean(),
  }),
);

/** The obviously correct walk: recursion over the tree as generated. */
function expected(
  storages: Storage[],
  node: Node,
  prefix = '',
): { tensors: TorchTensorRecord[]; other: number } {
  const tensors: TorchTensorRecord[] = [];
  let other = 0;
  if (node.kind !== 'dict') throw new Error('the root is a dict');
  for (const [key, value] of node.entries) {
    if (typeof key !== 'string') other += 1;
    else if (value.kind === 'tensor') {
      const s = storages[value.tensor.storage] as Storage;
      tensors.push({
        name: prefix + key,
        storage: { key: s.key, dtype: s.dtype, numel: s.numel },
        storageOffset: value.tensor.offset,
        shape: value.tensor.shape,
        strides: value.tensor.strides,
      });
    } else if (value.kind === 'dict') {
      const inner = expected(storages, value, `${prefix}${key}.`);
      tensors.push(...inner.tensors);
      other += inner.other;
    } else other += 1;
  }
  return { tensors, other };
}

/** Writes pickles as CPython's pickler does for torch.save's objects, globals memoized. */
class Pickler {
  private readonly out: number[] = [];
  private readonly memo = new Map<string, number>();

  constructor(
    private readonly protocol: number,
    private readonly batched: boolean,
    private readonly storages: Storage[],
  ) {}

  private bytes(...values: number[]) {
    this.out.push(...values);
  }

  private u32(n: number) {
    this.bytes(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
  }

  private text(value: string) {
    const utf8 = new TextEncoder().encode(value);
    if (this.protocol >= 4 && utf8.length < 256) this.bytes(0x8c, utf8.length);
    else {
      this.bytes(0x58);
      this.u32(utf8.length);
    }
    this.bytes(...utf8);
  }

  private int(value: number) {
    if (value >= 0 && value < 256) this.bytes(0x4b, value);
    else {
      this.bytes(0x4a);
      this.u32(value >>> 0);
    }
  }

  /** A global, written once and fetched from the memo after. */
  private global(module: string, name: string) {
    const full = `${module}\n${name}\n`;
    const index = this.memo.get(full);
    if (index !== undefined) {
      this.bytes(0x6a);
      this.u32(index);
      return;
    }
    if (this.protocol >= 4) {
      this.text(module);
      this.text(name);
      this.bytes(0x93);
    } else this.bytes(0x63, ...new TextEncoder().encode(full));
    this.memo.set(full, this.memo.size);
    this.bytes(0x72);
    this.u32(this.memo.size - 1);
  }

  private ints(values: number[]) {
    this.bytes(0x28);
    for (const v of values) this.int(v);
    this.bytes(0x74);
  }

  private tensor(t: Tensor) {
    const s = this.storages[t.storage] as Storage;
    if (t.parameter) this.global('torch._utils', '_rebuild_parameter');
    if (t.parameter) this.bytes(0x28);
    this.global(
      'torch._utils',
      s.storageClass === null ? '_rebuild_tensor_v3' : '_rebuild_tensor_v2',
    );
    this.bytes(0x28, 0x28);
    this.text('storage');
    if (s.storageClass === null) this.global('torch.storage', 'UntypedStorage');
    else this.global('torch', s.storageClass);
    this.text(s.key);
    this.text('cpu');
    this.int(s.storageClass === null ? s.numel * s.itemSize : s.numel);
    this.bytes(0x74, 0x51);
    this.int(t.offset);
    this.ints(t.shape);
    this.ints(t.strides);
    this.bytes(0x89);
    this.global('collections', 'OrderedDict');
    this.bytes(0x29, 0x52);
    if (s.storageClass === null) this.global('torch', s.dtype);
    this.bytes(0x74, 0x52);
    if (t.parameter) {
      this.bytes(0x88);
      this.global('collections', 'OrderedDict');
      this.bytes(0x29, 0x52, 0x74, 0x52);
    }
  }

  node(node: Node) {
    switch (node.kind) {
      case 'tensor':
        return this.tensor(node.tensor);
      case 'int':
        return this.int(node.value);
      case 'str':
        return this.text(node.value);
      case 'list':
        this.bytes(0x5d, 0x28);
        for (const item of node.items) this.node(item);
        return this.bytes(0x65);
      case 'dict':
        this.bytes(0x7d);
        if (this.batched) this.bytes(0x28);
        for (const [key, value] of node.entries) {
          if (typeof key === 'string') this.text(key);
          else this.int(key);
          this.node(value);
          if (!this.batched) this.bytes(0x73);
        }
        if (this.batched) this.bytes(0x75);
    }
  }

  done(): Uint8Array {
    return Uint8Array.from([0x80, this.protocol, ...this.out, 0x2e]);
  }
}

describe('random checkpoints', () => {
  it('read back as the recursive walk of the tree gives them', () => {
    fc.assert(
      fc.property(checkpointArb, ({ storages, root, protocol, batched }) => {
        const pickler = new Pickler(protocol, batched, storages);
        pickler.node(root);
        const { tensors, other } = expected(storages, root);
        expect(readTorchPickle(pickler.done())).toEqual({ tensors, otherEntries: other });
      }),
      { numRuns: 500 },
    );
  });
});
