import { describe, expect, it } from 'vitest';
import yargs, { type Argv } from 'yargs';
import { renderHelpOnlyWhenShown, usageOf } from './yargs-help.js';

const LONG = 'a description long enough to wrap at forty columns but not at a hundred and twenty';

function parser(): Argv {
  return yargs()
    .scriptName('t')
    .exitProcess(false)
    .strict()
    .command('cmd <file>', 'a command', (y) =>
      y.positional('file', { type: 'string' }).option('flag', { type: 'string', describe: LONG }),
    )
    .help();
}

function parse(p: Argv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    p.parse(args, {}, (error, _argv, output) => (error ? reject(error) : resolve(output)));
  });
}

describe('the yargs help workaround', () => {
  it('is needed: yargs renders a command help, reading the width, before it runs the command', async () => {
    const p = parser();
    const usage = usageOf(p) as ReturnType<typeof usageOf> & { hasCachedHelpMessage(): boolean };
    let widthRead = false;
    const read = usage.getWrap.bind(usage);
    usage.getWrap = () => {
      widthRead = true;
      return read();
    };
    expect(await parse(p, ['cmd', 'x.npy'])).toBe('');
    expect(usage.hasCachedHelpMessage()).toBe(true);
    expect(widthRead).toBe(true);
  });

  it('skips that render, and never asks for the width, in a run that shows no help', async () => {
    const p = parser();
    let asked = 0;
    renderHelpOnlyWhenShown(p, () => {
      asked++;
      return 80;
    });
    const usage = usageOf(p) as ReturnType<typeof usageOf> & { hasCachedHelpMessage(): boolean };
    expect(await parse(p, ['cmd', 'x.npy'])).toBe('');
    expect(usage.hasCachedHelpMessage()).toBe(false);
    expect(asked).toBe(0);
  });

  it('renders help when it is shown, as wide as the width given then', async () => {
    for (const width of [40, 120]) {
      const p = parser();
      let asked = 0;
      renderHelpOnlyWhenShown(p, () => {
        asked++;
        return width;
      });
      const help = await parse(p, ['cmd', '--help']);
      expect(asked).toBeGreaterThan(0);
      expect(help).toContain('--flag');
      const lines = help.split('\n');
      expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(width);
      expect(lines.some((l) => l.includes(LONG))).toBe(width === 120);
    }
  });
});
