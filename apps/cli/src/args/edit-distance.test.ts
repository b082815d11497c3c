import { describe, expect, it } from 'vitest';
import { editDistanceWithin } from './edit-distance.js';

/** The full table, for reference: optimal string alignment distance. */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

describe('editDistanceWithin', () => {
  it('agrees with the full table up to the limit, and says limit + 1 above it', () => {
    // Every pair of short words over a small alphabet, so that each kind of edit is met.
    const words = [''];
    for (let n = 1; n <= 4; n++) {
      for (let k = 0; k < 3 ** n; k++) {
        words.push([...k.toString(3).padStart(n, '0')].map((c) => 'abc'[Number(c)]).join(''));
      }
    }
    for (const a of words) {
      for (const b of words) {
        const exact = reference(a, b);
        for (const limit of [0, 1, 2, 3]) {
          expect(editDistanceWithin(a, b, limit), `${a} ${b} ${limit}`).toBe(
            Math.min(exact, limit + 1),
          );
        }
      }
    }
  });
});
