import { tensorFrom } from '@tensorops/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliStream } from '../run/cli-io.js';

// A terminal where colour is on: chalk, loaded by the first render below, sees a colour level.
const saved = process.env.FORCE_COLOR;
process.env.FORCE_COLOR = '1';
const { renderTensorView } = await import('./render.js');
afterAll(() => {
  if (saved === undefined) delete process.env.FORCE_COLOR;
  else process.env.FORCE_COLOR = saved;
});

function terminal(): { stream: CliStream; written: () => string } {
  const chunks: string[] = [];
  const stream: CliStream = {
    isTTY: true,
    columns: 80,
    write(chunk, callback) {
      chunks.push(String(chunk));
      callback?.();
      return true;
    },
  };
  return { stream, written: () => chunks.join('') };
}

describe('renderTensorView (colour on)', () => {
  it('colours the view, and --no-color in the same process still writes plain text', async () => {
    const t = tensorFrom('int8', [3], [1, 2, 3]);
    const on = terminal();
    const processEnv: Record<string, string | undefined> = {};
    await renderTensorView(t, 'r', {
      stdout: on.stream,
      env: { TERM: 'xterm-256color' },
      processEnv,
    });
    expect(processEnv.FORCE_COLOR).toBeUndefined();
    expect(on.written()).toBe(
      [
        '\u001b[1mr\u001b[22m  \u001b[36mint8\u001b[39m  [3]  3 B',
        '[1, 2, 3]',
        '\u001b[2mmin\u001b[22m \u001b[33m1\u001b[39m  \u001b[2mmax\u001b[22m \u001b[33m3\u001b[39m  \u001b[2mmean\u001b[22m \u001b[33m2.0\u001b[39m',
        '\u001b[2mhist\u001b[22m \u001b[32m▄█\u001b[39m',
        '',
      ].join('\n'),
    );
    const off = terminal();
    await renderTensorView(t, 'r', { stdout: off.stream, env: {}, color: false, processEnv });
    expect(off.written()).toBe('r  int8  [3]  3 B\n[1, 2, 3]\nmin 1  max 3  mean 2.0\nhist ▄█\n');
  });
});
