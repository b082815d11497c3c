import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createProgress, type ProgressOptions, progressLine } from './progress.js';

/** A stderr stand-in that records writes, and a clock the test moves by hand. */
function harness(options: Partial<ProgressOptions> = {}, columns = 40) {
  let clock = 1000;
  const writes: string[] = [];
  const stream = {
    columns,
    write(chunk: string): boolean {
      writes.push(chunk);
      return true;
    },
  };
  const progress = createProgress({
    stream,
    enabled: true,
    label: 'gather',
    total: 100,
    now: () => clock,
    ...options,
  });
  return {
    progress,
    writes,
    stream,
    at(ms: number): void {
      clock = 1000 + ms;
    },
  };
}

const bar = (full: number, empty: number): string => '█'.repeat(full) + '░'.repeat(empty);

describe('createProgress', () => {
  it('shows nothing for work that ends within 300 ms', () => {
    const h = harness();
    for (let ms = 0; ms < 300; ms += 10) {
      h.at(ms);
      h.progress.update(ms / 3);
    }
    h.at(299);
    h.progress.update(100);
    h.progress.finish();
    expect(h.writes).toEqual([]);
  });

  it('asks an enabled function once, only when the bar would first be drawn', () => {
    let asked = 0;
    const enabled = (answer: boolean) => () => {
      asked++;
      return answer;
    };
    const quick = harness({ enabled: enabled(true) });
    quick.at(299);
    quick.progress.update(99);
    quick.progress.finish();
    expect(asked).toBe(0);
    const off = harness({ enabled: enabled(false) });
    for (const ms of [300, 500, 900]) {
      off.at(ms);
      off.progress.update(ms / 10);
    }
    off.progress.finish();
    expect(asked).toBe(1);
    expect(off.writes).toEqual([]);
    const on = harness({ enabled: enabled(true) });
    for (const ms of [300, 500]) {
      on.at(ms);
      on.progress.update(ms / 10);
    }
    expect(asked).toBe(2);
    expect(on.writes).toHaveLength(2);
  });

  it('draws at the first update after 300 ms, then clears its line at finish', () => {
    const h = harness();
    h.at(300);
    h.progress.update(45);
    expect(h.writes).toEqual([`\rgather ${bar(9, 11)}  45% 45/100`]);
    h.progress.finish();
    expect(h.writes[1]).toBe(`\r${' '.repeat(39)}\r`);
    // Finished: later updates and a second finish write nothing.
    h.at(1000);
    h.progress.update(50);
    h.progress.finish();
    expect(h.writes).toHaveLength(2);
  });

  it('redraws at most every 100 ms however often it is told', () => {
    const h = harness();
    for (let ms = 0; ms <= 1000; ms++) {
      h.at(ms);
      h.progress.update(ms / 10);
    }
    // 300, 400, ..., 1000.
    expect(h.writes).toHaveLength(8);
    expect(h.writes[0]).toBe(`\rgather ${bar(6, 14)}  30% 30/100`);
    expect(h.writes[7]).toBe(`\rgather ${bar(19, 0)} 100% 100/100`);
  });

  it('pads over a longer previous line instead of using an escape sequence', () => {
    const h = harness({ total: 0 });
    h.at(300);
    h.progress.update(123456);
    h.at(400);
    h.progress.update(7);
    expect(h.writes).toEqual(['\rgather 123456', '\rgather 7     ']);
    expect(h.writes.join('').includes('\u001b')).toBe(false);
  });

  it('writes nothing at all when disabled (not a TTY, or --quiet)', () => {
    const h = harness({ enabled: false });
    for (const ms of [0, 500, 5000]) {
      h.at(ms);
      h.progress.update(ms);
    }
    h.progress.finish();
    expect(h.writes).toEqual([]);
  });

  it('follows the terminal width, and a 0-column pty counts as 80', () => {
    const h = harness({}, 0);
    h.at(300);
    h.progress.update(50);
    expect(h.writes[0]).toBe(`\rgather ${bar(15, 15)}  50% 50/100`);
    h.stream.columns = 20;
    h.at(400);
    h.progress.update(60);
    // Too narrow for a bar: the numbers stay, padded over the longer line before.
    expect(h.writes[1]).toBe(`\r${'gather  60% 60/100'.padEnd(49)}`);
  });

  it('calls much faster than the clock moves read the clock only now and then', () => {
    let clock = 0;
    let reads = 0;
    const writes: string[] = [];
    const progress = createProgress({
      stream: { write: (s: string) => writes.push(s), columns: 40 },
      enabled: true,
      label: 'x',
      total: 1e6,
      now: () => {
        reads++;
        return clock;
      },
    });
    // 1e6 calls over one (fake) second: 1 µs apart.
    for (let i = 0; i < 1e6; i++) {
      clock += 0.001;
      progress.update(i);
    }
    expect(reads).toBeLessThan(2000);
    expect(writes.length).toBeGreaterThanOrEqual(5);
    expect(writes.length).toBeLessThanOrEqual(8);
  });
});

describe('progressLine', () => {
  it('bytes, ASCII bars, and a label too long for the width', () => {
    const options = { label: 'read', total: 3 * 1024 * 1024, unit: 'bytes' as const };
    expect(progressLine(options, 1024 * 1024, 50)).toBe(
      `read ${bar(7, 14)}  33% 1.00 MiB/3.00 MiB`,
    );
    expect(progressLine({ ...options, ascii: true }, 1024 * 1024, 50)).toBe(
      `read ${'#'.repeat(7)}${'-'.repeat(14)}  33% 1.00 MiB/3.00 MiB`,
    );
    expect(progressLine({ label: 'x'.repeat(30), total: 10 }, 5, 20)).toBe('x'.repeat(19));
  });
});

describe('the progress bar stays off the pipeline path', () => {
  it('imports neither Ink nor React (directly or through its imports)', () => {
    const seen = new Set<string>();
    const visit = (url: URL): void => {
      if (seen.has(url.href)) return;
      seen.add(url.href);
      const source = readFileSync(url, 'utf8');
      for (const match of source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)) {
        const spec = match[1] as string;
        expect(spec === 'ink' || spec === 'react' || spec.startsWith('react/')).toBe(false);
        if (spec.startsWith('.')) visit(new URL(spec.replace(/\.js$/, '.ts'), url));
      }
    };
    visit(new URL('./progress.ts', import.meta.url));
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });
});
