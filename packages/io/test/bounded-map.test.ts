// mapBounded: real promises settled by real timers, with the steps that run counted as they go.

import { describe, expect, it } from 'vitest';
import { mapBounded } from '../src/file/bounded-map.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A step that records how many run at once and which items started. */
function counted<R>(body: (item: number) => Promise<R>) {
  const seen = { running: 0, most: 0, started: [] as number[], finished: [] as number[] };
  const step = async (item: number): Promise<R> => {
    seen.started.push(item);
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    try {
      return await body(item);
    } finally {
      seen.running--;
      seen.finished.push(item);
    }
  };
  return { seen, step };
}

describe('mapBounded', () => {
  it('runs every item, at most `limit` at once, and keeps the results in list order', async () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const { seen, step } = counted(async (i) => {
      await sleep((i * 7) % 5);
      return i * i;
    });
    const outcome = await mapBounded(items, 8, step);
    expect(outcome).toEqual({ ok: true, results: items.map((i) => i * i) });
    expect(seen.most).toBe(8);
    expect(seen.started).toEqual(items);
  });

  it('runs fewer at once when the list is shorter than the limit, and nothing for none', async () => {
    const { seen, step } = counted(async (i) => {
      await sleep(5);
      return i;
    });
    expect(await mapBounded([1, 2, 3], 8, step)).toEqual({ ok: true, results: [1, 2, 3] });
    expect(seen.most).toBe(3);
    expect(await mapBounded([], 8, step)).toEqual({ ok: true, results: [] });
  });

  it('after a failure starts nothing more, waits for the running steps, and reports the earliest failure', async () => {
    // Item 2 fails late, item 5 fails first: a loop one by one would have stopped at item 2.
    const { seen, step } = counted(async (i) => {
      if (i === 2) {
        await sleep(40);
        throw new Error('two');
      }
      if (i === 5) throw new Error('five');
      await sleep(20);
      return `r${i}`;
    });
    const items = Array.from({ length: 100 }, (_, i) => i);
    const outcome = await mapBounded(items, 8, step);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect((outcome.error as Error).message).toBe('two');
    // Items 0-7 started at once; item 5's failure stopped the rest.
    expect(seen.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...seen.finished].sort((a, b) => a - b)).toEqual(seen.started);
    expect(seen.running).toBe(0);
    expect(outcome.results).toEqual([
      ...['r0', 'r1', undefined, 'r3', 'r4', undefined, 'r6', 'r7'],
      ...Array(92).fill(undefined),
    ]);
  });
});
