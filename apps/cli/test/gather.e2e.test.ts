import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDir, REPO, tempDir, tensorops } from './helpers.js';

const fx = (name: string): string => join(REPO, 'fixtures', 'cli', `${name}.npy`);
const golden = (name: string): Buffer => readFileSync(fx(name));

describe("tensorops gather: outputs are numpy's bytes exactly", () => {
  it('-o writes the same .npy file np.save writes for np.take(axis=1)', () => {
    const dir = tempDir();
    const out = join(dir, 'out.npy');
    const r = tensorops(['gather', fx('data'), fx('idx'), '--axis', '1', '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBe(0);
    expect(readFileSync(out).equals(golden('take_axis1'))).toBe(true);
    expect(listDir(dir)).toEqual(['out.npy']);
  });

  it('piped stdout carries the .npy bytes (batch dims, negative axis)', () => {
    const r = tensorops(['gather', fx('data'), fx('bidx'), '--axis', '-1', '--batch-dims', '1']);
    expect(r.status).toBe(0);
    expect(r.stdout.equals(golden('take_axis2_batch1'))).toBe(true);
  });

  it('reads the indices from stdin with -', () => {
    const r = tensorops(['gather', fx('data'), '-', '--axis', '0'], {
      input: golden('idx_axis0_i32'),
    });
    expect(r.status).toBe(0);
    expect(r.stdout.equals(golden('take_axis0'))).toBe(true);
  });

  it('reads the data from stdin with - and writes to stdout with -o -', () => {
    const r = tensorops(['gather', '-', fx('idx_big_take'), '-o', '-'], { input: golden('big') });
    expect(r.status).toBe(0);
    expect(r.stdout.equals(golden('big_take'))).toBe(true);
  });

  it('--json prints one document with exact int64 values', () => {
    const r = tensorops(['gather', fx('big'), fx('idx_big_take'), '--json']);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe(
      '{"dtype":"int64","shape":[5],"data":[12345,9223372036854775807,-9223372036854775808,9007199254740993,9007199254740993]}\n',
    );
  });

  it('--oob zero fills zeros for out-of-range indices', () => {
    const r = tensorops(['gather', fx('big'), fx('idx_alias'), '--oob', 'zero', '--json']);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe(
      '{"dtype":"int64","shape":[2],"data":[-9223372036854775808,0]}\n',
    );
  });
});

describe('tensorops gather: errors are one line, exit 1 or 2, and leave no output', () => {
  function expectFailure(
    args: string[],
    status: number,
    message: string,
    input?: Uint8Array,
  ): void {
    const dir = tempDir();
    const out = join(dir, 'out.npy');
    const r = tensorops([...args, '-o', out], input ? { input } : {});
    expect(r.status).toBe(status);
    expect(r.stderr).toBe(`tensorops: error: ${message}\n`);
    expect(r.stdout.length).toBe(0);
    expect(existsSync(out)).toBe(false);
    expect(listDir(dir)).toEqual([]);
  }

  it('index out of range names the value, position and range', () => {
    expectFailure(
      ['gather', fx('data'), fx('idx'), '--axis', '0'],
      1,
      'Gather: index 4 out of range [-3, 2] at indices[0,0] (axis=0)',
    );
  });

  it('2^32+1 does not alias 1', () => {
    expectFailure(
      ['gather', fx('big'), fx('idx_alias')],
      1,
      'Gather: index 4294967297 out of range [-4, 3] at indices[1] (axis=0)',
    );
  });

  it('float indices are refused', () => {
    expectFailure(
      ['gather', fx('data'), fx('idx_float')],
      1,
      'Gather: indices must have an integer dtype, got float32',
    );
  });

  it('axis out of range', () => {
    expectFailure(
      ['gather', fx('data'), fx('idx'), '--axis', '3'],
      1,
      'Gather: axis 3 out of range [-3, 2] for rank 3',
    );
  });

  it('a non-integer --axis is a usage error', () => {
    expectFailure(
      ['gather', fx('data'), fx('idx'), '--axis', 'abc'],
      2,
      "--axis takes an integer, got 'abc'",
    );
  });

  it('an unknown flag is a usage error', () => {
    expectFailure(
      ['gather', fx('data'), fx('idx'), '--axes', '1'],
      2,
      'unknown option --axes; did you mean --axis?',
    );
  });

  it('a missing file names the path', () => {
    const r = tensorops(['gather', 'nope.npy', fx('idx')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tensorops: error: .*nope\.npy.*\n$/);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  it('a truncated .npy on stdin is a data error', () => {
    const truncated = golden('idx').subarray(0, 100);
    expectFailure(
      ['gather', fx('data'), '-'],
      1,
      '.npy header truncated: needs 128 bytes, only 100 available',
      truncated,
    );
  });

  it('stdin may be used once', () => {
    expectFailure(['gather', '-', '-'], 2, 'standard input (-) can be used for one input only');
  });

  it('no stack trace unless TENSOROPS_DEBUG=1', () => {
    const args = ['gather', fx('data'), fx('idx'), '--axis', '9'];
    expect(tensorops(args).stderr.split('\n')).toHaveLength(2);
    expect(tensorops(args, { env: { TENSOROPS_DEBUG: '1' } }).stderr).toContain('at ');
  });

  it('an existing output file is left untouched after an error', () => {
    const dir = tempDir();
    const out = join(dir, 'out.npy');
    writeFileSync(out, 'keep me');
    const r = tensorops(['gather', fx('data'), fx('idx'), '--axis', '0', '-o', out]);
    expect(r.status).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
    expect(listDir(dir)).toEqual(['out.npy']);
  });
});

describe('tensorops: help, version, and the pipeline path', () => {
  it('--help for gather shows the examples', () => {
    const r = tensorops(['gather', '--help']);
    expect(r.status).toBe(0);
    const text = r.stdout.toString();
    expect(text).toContain(
      '  # np.take(data, idx, axis=1)\n  tensorops gather data.npy idx.npy --axis 1 -o out.npy\n',
    );
    expect(text).toContain('--batch-dims');
    expect(text).toContain('--oob');
  });

  it('--version prints the package version', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'apps/cli/package.json'), 'utf8'));
    const r = tensorops(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe(`${pkg.version}\n`);
  });

  it('a piped gather never loads ink or react', () => {
    const dir = tempDir();
    const log = join(dir, 'modules.log');
    const hook = join(dir, 'hook.mjs');
    const register = join(dir, 'register.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}`,
    );
    writeFileSync(
      register,
      `import { register } from 'node:module'; register(${JSON.stringify(`file://${hook}`)});`,
    );
    const r = tensorops(['gather', fx('data'), fx('idx'), '--axis', '1'], {
      nodeArgs: ['--import', register],
    });
    expect(r.status).toBe(0);
    expect(r.stdout.equals(golden('take_axis1'))).toBe(true);
    const modules = readFileSync(log, 'utf8');
    expect(modules).toContain('/apps/cli/dist/tensorops.cjs'); // the hook saw the bin load
    expect(modules).not.toContain('/apps/cli/dist/ui.mjs');
    expect(modules).not.toMatch(/\/(ink|react|react-reconciler)\//);
  });
});

describe('tensorops: usage', () => {
  it('with no arguments prints a short usage listing every command on stderr, exit 2', () => {
    const r = tensorops([]);
    expect(r.status).toBe(2);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr.startsWith('usage: tensorops <command> [options]\n\n')).toBe(true);
    for (const name of [
      'gather',
      'gather-elements',
      'gather-nd',
      'gather-tree',
      'beams',
      'inspect',
      'convert',
    ]) {
      expect(r.stderr).toContain(`\n  tensorops ${name} `);
    }
    expect(r.stderr.endsWith("Run 'tensorops <command> --help' for options and examples.\n")).toBe(
      true,
    );
  });

  it('an unknown command suggests the closest one', () => {
    const r = tensorops(['gathr', 'a.npy', 'b.npy']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("tensorops: error: unknown command 'gathr'; did you mean gather?\n");
    expect(tensorops(['inspct', 'a.npy']).stderr).toBe(
      "tensorops: error: unknown command 'inspct'; did you mean inspect?\n",
    );
  });

  it('every command has --help with examples', () => {
    for (const name of [
      'gather',
      'gather-elements',
      'gather-nd',
      'gather-tree',
      'beams',
      'inspect',
      'convert',
    ]) {
      const r = tensorops([name, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout.toString()).toMatch(
        new RegExp(`Examples:\\n  # .+\\n  (cat .+\\| )?tensorops ${name} `),
      );
    }
  });
});
