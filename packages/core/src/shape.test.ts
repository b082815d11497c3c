import { describe, expect, it } from 'vitest';
import { TensorOpsError } from './errors.js';
import {
  checkShape,
  formatPosition,
  formatShape,
  normalizeAxis,
  shapeSize,
  shapesEqual,
  sizeBetween,
  stridesOf,
} from './shape.js';

describe('shape helpers', () => {
  it('shapeSize: product of dims, 1 for a scalar, 0 with any 0 dim', () => {
    expect(shapeSize([])).toBe(1);
    expect(shapeSize([2, 3, 4])).toBe(24);
    expect(shapeSize([2, 0, 4])).toBe(0);
  });

  it('sizeBetween: product of a slice of dims', () => {
    expect(sizeBetween([2, 3, 4, 5], 1, 3)).toBe(12);
    expect(sizeBetween([2, 3, 4, 5], 2)).toBe(20);
    expect(sizeBetween([2, 3], 1, 1)).toBe(1);
    expect(sizeBetween([2, 3], 2)).toBe(1);
  });

  it('stridesOf: C-order strides in elements', () => {
    expect(stridesOf([2, 3, 4])).toEqual([12, 4, 1]);
    expect(stridesOf([5])).toEqual([1]);
    expect(stridesOf([])).toEqual([]);
    expect(stridesOf([3, 0, 2])).toEqual([0, 2, 1]);
  });

  it('shapesEqual compares rank and every dim', () => {
    expect(shapesEqual([2, 3], [2, 3])).toBe(true);
    expect(shapesEqual([], [])).toBe(true);
    expect(shapesEqual([2, 3], [3, 2])).toBe(false);
    expect(shapesEqual([2, 3], [2, 3, 1])).toBe(false);
    expect(shapesEqual([2], [])).toBe(false);
  });

  it('formatShape and formatPosition use the message notation', () => {
    expect(formatShape([2, 3])).toBe('[2,3]');
    expect(formatShape([])).toBe('[]');
    expect(formatPosition(5, [2, 3])).toBe('[1,2]');
    expect(formatPosition(0, [2, 3])).toBe('[0,0]');
    expect(formatPosition(23, [2, 3, 4])).toBe('[1,2,3]');
    expect(formatPosition(7, [8])).toBe('[7]');
    expect(formatPosition(0, [])).toBe('[]');
  });
});

describe('normalizeAxis', () => {
  it('accepts exactly [-rank, rank-1]', () => {
    for (let rank = 1; rank <= 5; rank++) {
      for (let axis = -rank; axis < rank; axis++) {
        expect(normalizeAxis(axis, rank, 'Gather')).toBe(axis < 0 ? axis + rank : axis);
      }
    }
  });

  it('rejects rank and -rank-1 (an off-by-one check would let them through)', () => {
    for (let rank = 1; rank <= 5; rank++) {
      for (const axis of [rank, -rank - 1]) {
        expect(() => normalizeAxis(axis, rank, 'Gather')).toThrow(
          new TensorOpsError(
            'E_AXIS',
            `Gather: axis ${axis} out of range [${-rank}, ${rank - 1}] for rank ${rank}`,
          ),
        );
        try {
          normalizeAxis(axis, rank, 'Gather');
        } catch (e) {
          expect((e as TensorOpsError).code).toBe('E_AXIS');
        }
      }
    }
  });

  it('rejects non-integers and any axis of a rank-0 tensor, naming the parameter', () => {
    expect(() => normalizeAxis(1.5, 3, 'Gather')).toThrow(
      'Gather: axis 1.5 out of range [-3, 2] for rank 3',
    );
    expect(() => normalizeAxis(Number.POSITIVE_INFINITY, 3, 'Gather')).toThrow(
      /axis Infinity out of range/,
    );
    expect(() => normalizeAxis(0, 0, 'GatherElements')).toThrow(
      'GatherElements: axis 0 out of range none (rank 0) for rank 0',
    );
    expect(() => normalizeAxis(2, 2, 'Concat', 'dim')).toThrow(
      'Concat: dim 2 out of range [-2, 1] for rank 2',
    );
  });
});

describe('checkShape', () => {
  it('accepts non-negative safe integers', () => {
    expect(() => checkShape([])).not.toThrow();
    expect(() => checkShape([0, 1, 2 ** 40])).not.toThrow();
  });

  it('rejects negative, fractional, NaN and unsafe dims with E_SHAPE', () => {
    for (const bad of [[-1], [2, 1.5], [Number.NaN], [2 ** 53], [Number.POSITIVE_INFINITY]]) {
      let caught: unknown;
      try {
        checkShape(bad, 'data shape');
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(TensorOpsError);
      expect((caught as TensorOpsError).code).toBe('E_SHAPE');
      expect((caught as TensorOpsError).message).toMatch(
        /^data shape \[.*\] has an invalid dimension /,
      );
    }
  });
});
