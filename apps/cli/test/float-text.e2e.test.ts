import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { encodeNpy } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { REPO, tempDir, tensorops } from './helpers.js';

// The built CLI prints floats as numpy's str() does: every float16 bit pattern, written to CSV,
// against the golden text numpy wrote (scripts/fixtures/float_text.py).

describe('show --format csv prints floats as numpy does', () => {
  it('every float16 bit pattern, line for line', () => {
    const golden = gunzipSync(readFileSync(join(REPO, 'fixtures/float-text/float16.txt.gz')));
    const expected = golden.toString('ascii').split('\n');
    const patterns = Uint16Array.from({ length: 0x10000 }, (_, bits) => bits);
    const file = join(tempDir(), 'float16.npy');
    const data = new Uint8Array(patterns.buffer);
    writeFileSync(file, encodeNpy({ dtype: 'float16', shape: [patterns.length], data }));

    const r = tensorops(['show', file, '--format', 'csv'], { timeoutMs: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const printed = r.stdout.toString('ascii').split('\n');
    expect(printed).toHaveLength(expected.length);
    const differing = expected.flatMap((text, bits) =>
      printed[bits] === text
        ? []
        : [`0x${bits.toString(16).padStart(4, '0')}: ${printed[bits]}, numpy ${text}`],
    );
    expect({ count: differing.length, first: differing.slice(0, 5) }).toEqual({
      count: 0,
      first: [],
    });
  });
});
