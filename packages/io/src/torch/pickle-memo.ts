// The pickle machine's memo: values by index. The pickler numbers them 0, 1, 2, ... in order, so
// those go in an array; any other index (a LONG_BINPUT may give 2^31) goes in a Map, so that an
// index is never an array size. Map inserts were most of the reading of a large state dict
// (docs/performance.md, PyTorch checkpoints).

import type { PickleValue } from './pickle-values.js';

export class PickleMemo {
  /** Values at indices 0 to dense.length - 1. */
  private readonly dense: PickleValue[] = [];
  /** Values at other indices, all above dense.length (values are never undefined). */
  private readonly sparse = new Map<number, PickleValue>();

  /** Entries held: the index MEMOIZE gives the next value. */
  get size(): number {
    return this.dense.length + this.sparse.size;
  }

  has(index: number): boolean {
    return index < this.dense.length || this.sparse.has(index);
  }

  /** The value at `index`; has(index) must hold. */
  get(index: number): PickleValue {
    return (index < this.dense.length ? this.dense[index] : this.sparse.get(index)) as PickleValue;
  }

  /** Sets `index` to `value`; true where the index is new (an entry more). */
  set(index: number, value: PickleValue): boolean {
    const { dense, sparse } = this;
    if (index < dense.length) {
      dense[index] = value;
      return false;
    }
    if (index > dense.length) {
      const size = sparse.size;
      sparse.set(index, value);
      return sparse.size > size;
    }
    dense.push(value);
    // An index set before the array reached it moves in as the array grows past it, once.
    for (let next = sparse.get(dense.length); next !== undefined; next = sparse.get(dense.length)) {
      sparse.delete(dense.length);
      dense.push(next);
    }
    return true;
  }
}
