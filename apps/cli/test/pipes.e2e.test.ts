import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { encodeNpy } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir, tensorops } from './helpers.js';

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

describe('pipelines', () => {
  it('a reader that closes the pipe early (| head) is a normal exit, with nothing on stderr', () => {
    const dir = tempDir();
    const data = join(dir, 'data.npy');
    const idx = join(dir, 'idx.npy');
    // 8 MiB of output: far more than the pipe buffer, so the write is cut off mid-way.
    const rows = 2048;
    spawnSync(process.execPath, [
      '--input-type=module',
      '-e',
      `import { writeFileSync } from 'node:fs';
       import { encodeNpy } from ${JSON.stringify(join(REPO, 'packages/io/dist/index.js'))};
       writeFileSync(${JSON.stringify(data)}, encodeNpy({ dtype: 'float32', shape: [${rows}, 1024], data: new Uint8Array(${rows * 4096}) }));
       const ids = new BigInt64Array(${rows}).map((_, i) => BigInt(i));
       writeFileSync(${JSON.stringify(idx)}, encodeNpy({ dtype: 'int64', shape: [${rows}], data: new Uint8Array(ids.buffer) }));`,
    ]);
    const cmd = `${quote(process.execPath)} ${quote(BIN)} gather ${quote(data)} ${quote(idx)} | head -c 100 > /dev/null; echo "\${PIPESTATUS[0]}"`;
    const r = spawnSync('bash', ['-c', cmd], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('0\n');
  });

  it('a header that claims terabytes fails at once, without allocating, and leaves no output', () => {
    const dir = tempDir();
    const out = join(dir, 'out.npy');
    const r = tensorops(['gather', join(REPO, 'fixtures/npy/terabytes.npy'), '-', '-o', out], {
      input: encodeNpy({ dtype: 'int32', shape: [1], data: new Uint8Array(4) }),
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tensorops: error: .*terabytes\.npy.*\n$/);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(existsSync(out)).toBe(false);
  });

  it('data shorter than its shape is a data error naming the file', () => {
    const r = tensorops([
      'gather',
      join(REPO, 'fixtures/npy/short-data.npy'),
      join(REPO, 'fixtures/cli/idx.npy'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tensorops: error: .*short-data\.npy.*\n$/);
    expect(r.stdout.length).toBe(0);
  });
});
