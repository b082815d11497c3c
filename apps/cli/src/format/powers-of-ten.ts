/** base^0 .. base^(count-1) by repeated multiplication: exact while below 2^53. */
export function powers(base: number, count: number): number[] {
  const out = [1];
  for (let i = 1; i < count; i++) out.push((out[i - 1] as number) * base);
  return out;
}

/** 10^0 .. 10^22: every power of ten that float64 holds exactly. */
export const POW10: readonly number[] = powers(10, 23);
