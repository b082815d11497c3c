// What a person sees: the real bin inside a pseudo-terminal made by util-linux `script`, so that
// stdout and stderr are both TTYs exactly as in an interactive shell.
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { encodeNpyHeader } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir, tensorops } from './helpers.js';

const ESC = '\u001b[';
/** SGR colour sequences, to compare a coloured screen's text with an uncoloured one. */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const fx = (name: string): string => join(REPO, 'fixtures', 'cli', `${name}.npy`);
const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

interface PtyRun {
  readonly status: number | null;
  /** Everything the terminal received, \r\n line ends turned into \n. */
  readonly screen: string;
}

/** Runs `tensorops ARGS` on a fresh pty of `cols` columns (0: a pty that reports no width). */
function inPty(args: readonly string[], env: Record<string, string> = {}, cols = 0): PtyRun {
  const command = `stty cols ${cols} rows 40; ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  const r = spawnSync('script', ['-qfec', command, '/dev/null'], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', TERM: 'xterm-256color', ...env },
    encoding: 'utf8',
  });
  return { status: r.status, screen: r.stdout.replaceAll('\r\n', '\n') };
}

const view = ['gather', fx('data'), fx('idx'), '--axis', '1'];

describe('on a terminal', () => {
  it('shows a readable view instead of binary, in colour', () => {
    const r = inPty(view);
    expect(r.status).toBe(0);
    expect(r.screen).toContain(ESC);
    const plain = r.screen.replace(SGR, '');
    expect(
      plain.startsWith('gather  float32  [3,2,2,4]  192 B\n[[[[ 1.2300394 , -0.13596202,'),
    ).toBe(true);
    expect(plain).toContain('[ 1.4470148 ,  1.0554383 ,         nan, -1.3910667 ]]],');
    expect(plain).toMatch(
      /min -2\.8686948 {2}max 1\.4470148 {2}mean -0\.22206409 {2}nan 1 {2}\+inf 0 {2}-inf 2\n/,
    );
    expect(plain).toMatch(/hist [▁▂▃▄▅▆▇█ ]+\n/);
    expect(plain).not.toContain('NUMPY');
  });

  it('NO_COLOR, --no-color and TERM=dumb switch colour off; TERM=dumb also uses ASCII bars', () => {
    const colour = inPty(view).screen.replace(SGR, '');
    for (const [env, extra] of [
      [{ NO_COLOR: '1' }, []],
      [{}, ['--no-color']],
    ] as const) {
      const r = inPty([...view, ...extra], env);
      expect(r.status).toBe(0);
      expect(r.screen).not.toContain(ESC);
      expect(r.screen).toBe(colour);
    }
    const dumb = inPty(view, { TERM: 'dumb' });
    expect(dumb.screen).not.toContain(ESC);
    expect(dumb.screen).toMatch(/\nhist [_.\-=# ]+\n$/);
  });

  it('fits a narrow terminal: no line wider than 30 columns', () => {
    const r = inPty(view, { NO_COLOR: '1' }, 30);
    expect(r.status).toBe(0);
    for (const line of r.screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(30);
    expect(r.screen).toContain('…');
  });

  it('inspect shows a table with totals', () => {
    const r = inPty(['inspect', fx('data')], { NO_COLOR: '1' });
    expect(r.status).toBe(0);
    expect(r.screen).toContain('float32  [3,5,4]  240 B');
    expect(r.screen).toContain('1 tensor  240 B total');
  });

  it('inspect of a torch checkpoint names the tensors sharing a storage and counts the rest', () => {
    const r = inPty(['inspect', join(REPO, 'fixtures', 'torch', 'views.pt')], { NO_COLOR: '1' });
    expect(r.status).toBe(0);
    expect(r.screen).toContain('  storage 1 is shared by emb.weight, lm_head.weight\n');
    expect(r.screen).toContain(
      '  storage 0 is shared by base, row_slice, transposed, every_other, column\n',
    );
    expect(r.screen).toContain('  and 3 entries that are not tensors\n');
  });

  it('--help is as wide as the terminal, at most 100 columns, wrapped between words', () => {
    for (const cols of [60, 160]) {
      const r = inPty(['--help'], {}, cols);
      expect(r.status).toBe(0);
      const lines = r.screen.trimEnd().split('\n');
      expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(Math.min(cols, 100));
      // The paragraph on NAME is wrapped greedily: a line breaks only where the next word
      // would not fit, never where the text happened to hold a newline.
      const width = Math.min(cols, 100);
      const start = lines.findIndex((l) => l.startsWith('Tensors:'));
      const end = lines.indexOf('', start);
      const paragraph = lines.slice(start, end);
      expect(paragraph.join(' ')).toContain("NAME is everything after the file's path, ':' and");
      for (const [i, line] of paragraph.slice(0, -1).entries()) {
        const next = (paragraph[i + 1] as string).split(' ')[0] as string;
        expect(line.trimEnd().length + 1 + next.length).toBeGreaterThan(width);
      }
      const examples = inPty(['inspect', '--help'], {}, cols).screen.split('\n');
      expect(Math.max(...examples.map((l) => l.length))).toBeLessThanOrEqual(Math.min(cols, 100));
    }
  });

  it('an error is still one plain line', () => {
    const r = inPty(['gather', fx('data'), fx('idx'), '--axis', '0']);
    expect(r.status).toBe(1);
    expect(r.screen).toBe(
      'tensorops: error: Gather: index 4 out of range [-3, 2] at indices[0,0] (axis=0)\n',
    );
  });
});

describe('the progress bar', () => {
  /** A sparse 96 MiB float32 .npy: large enough for the streaming file executor. */
  function bigNpy(dir: string): string {
    const path = join(dir, 'big.npy');
    const header = encodeNpyHeader({ dtype: 'float32', shape: [24576, 1024] });
    const fd = openSync(path, 'w');
    writeSync(fd, header);
    ftruncateSync(fd, header.byteLength + 24576 * 1024 * 4);
    closeSync(fd);
    return path;
  }

  it('draws on stderr for streamed work, then clears its line', () => {
    const dir = tempDir();
    const out = join(dir, 'rows.npy');
    const r = inPty(['gather', bigNpy(dir), fx('idx'), '-o', out], {
      TENSOROPS_PROGRESS_DELAY: '0',
    });
    expect(r.status).toBe(0);
    expect(r.screen).toMatch(/^\rgather [█░]+ +\d+% [\d.]+ (B|KiB)\/16\.0 KiB/);
    expect(r.screen).toMatch(/\r {20,}\r$/);
    expect(readFileSync(out).byteLength).toBe(128 + 2 * 2 * 1024 * 4);
  });

  it('stays silent with --quiet, before the delay, and when stderr is not a terminal', () => {
    const dir = tempDir();
    const big = bigNpy(dir);
    const quiet = inPty(['gather', big, fx('idx'), '-q', '-o', join(dir, 'a.npy')], {
      TENSOROPS_PROGRESS_DELAY: '0',
    });
    expect(quiet.screen).toBe('');
    const quick = inPty(['gather', big, fx('idx'), '-o', join(dir, 'b.npy')]);
    expect(quick.screen).toBe('');
    const piped = tensorops(['gather', big, fx('idx'), '-o', join(dir, 'c.npy')], {
      env: { TENSOROPS_PROGRESS_DELAY: '0' },
    });
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe('');
  });
});
