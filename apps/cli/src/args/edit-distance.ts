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
  // Three rows (i - 2, i - 1, i), reused; a cell outside a row's band reads as `over`: each row
  // sets the cells just outside its band, which are all the next row reads beyond it.
  const width = b.length + 2;
  let before = new Int32Array(width).fill(over);
  let previous = Int32Array.from({ length: width }, (_, j) => Math.min(j, over));
  let current = new Int32Array(width).fill(over);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    current[0] = Math.min(i, over);
    current[from - 1] = from === 1 ? current[0] : over;
    let rowMin = from === 1 ? (current[0] as number) : over;
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
    current[to + 1] = over;
    if (rowMin > limit) return over;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length] as number;
}

/** The largest distance still read as a typo of `word`: a third of its length, at least one. */
export function typoLimit(word: string): number {
  return Math.max(1, Math.floor(word.length / 3));
}
