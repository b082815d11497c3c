// How far a typed word is from a known one, for "did you mean".

/**
 * The edit distance between `a` and `b` (Levenshtein, a transposition counted as one edit: optimal
 * string alignment), or `limit + 1` for any distance above `limit`. Only the cells within `limit`
 * of the diagonal are computed and a row past `limit` ends the count, so a pair costs at most
 * `a.length × (2 × limit + 1)` steps whatever `b`'s length.
 */
export function editDistanceWithin(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  const width = b.length + 1;
  let before = new Int32Array(width).fill(over);
  let previous = Int32Array.from({ length: width }, (_, j) => Math.min(j, over));
  let current = new Int32Array(width);
  for (let i = 1; i <= a.length; i++) {
    current.fill(over);
    if (i <= limit) current[0] = i;
    let rowMin = current[0] as number;
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (before[j - 2] as number) + 1);
      }
      current[j] = Math.min(d, over);
      rowMin = Math.min(rowMin, current[j] as number);
    }
    if (rowMin > limit) return over;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length] as number;
}

/** The largest distance still read as a typo of `word`: a third of its length, at least one. */
export function typoLimit(word: string): number {
  return Math.max(1, Math.floor(word.length / 3));
}
