import { describe, expect, it } from 'vitest';
import { coalesceReads, MAX_OVERREAD } from '../src/remote/coalesce.js';

const read = (position: number, length: number) => ({ position, target: new Uint8Array(length) });
const spans = (reads: ReturnType<typeof read>[], maxSpan = 1 << 30) =>
  coalesceReads(reads, maxSpan).map((q) => [q.start, q.end, q.reads.length]);

describe('coalesceReads', () => {
  it('merges adjacent and overlapping ranges, in position order', () => {
    expect(spans([read(100, 10), read(0, 100), read(50, 10)])).toEqual([[0, 110, 3]]);
  });

  it('fetches a gap along only while the request stays within 10% of the bytes wanted', () => {
    expect(spans([read(0, 100), read(110, 100)])).toEqual([[0, 210, 2]]);
    expect(spans([read(0, 100), read(130, 100)])).toEqual([
      [0, 100, 1],
      [130, 230, 1],
    ]);
  });

  it('never exceeds 1.1x the wanted bytes in total, nor maxSpan per request', () => {
    const reads = Array.from({ length: 500 }, (_, i) => read((i * 7919) % 100_000, 1 + (i % 97)));
    const requests = coalesceReads(reads, 4096);
    let wanted = 0;
    const covered = new Set<number>();
    for (const r of reads) for (let b = 0; b < r.target.length; b++) covered.add(r.position + b);
    wanted = covered.size;
    const sent = requests.reduce((n, q) => n + (q.end - q.start), 0);
    expect(sent).toBeLessThanOrEqual(MAX_OVERREAD * wanted);
    for (const q of requests) expect(q.end - q.start).toBeLessThanOrEqual(4096);
    for (const r of reads) {
      const q = requests.find((x) => x.reads.includes(r));
      expect(
        q !== undefined && q.start <= r.position && r.position + r.target.length <= q.end,
      ).toBe(true);
    }
  });
});
