// One verdict line: a ratio against its upper bound. The ratio is printed with the digits that
// show which side of the bound it is on, so that a miss never prints as the bound itself.

export function verdict(name, value, limit) {
  if (typeof value !== 'number' || Number.isNaN(value)) return `${name}: not measured`;
  let digits = 2;
  while (digits < 6 && value > limit && Number(value.toFixed(digits)) <= limit) digits++;
  return `${name}: ${value.toFixed(digits)}x (target <= ${limit}x) ${value <= limit ? 'met' : 'MISSED'}`;
}
