// F8_E4M3FNUZ / F8_E5M2FNUZ as the official safetensors package writes them, and their float32
// values as ml_dtypes computes them (fixtures/checkpoints, scripts/fixtures/checkpoints.py).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeSafetensors, widenToFloat32 } from '../src/index.js';
import { openTensorFile } from '../src/node/index.js';
import { bytesOf, CHECKPOINTS_DIR } from './format-fixtures.js';

const FILE = join(CHECKPOINTS_DIR, 'fnuz.safetensors');
const ML_DTYPES = JSON.parse(readFileSync(join(CHECKPOINTS_DIR, 'fnuz.json'), 'utf8')) as Record<
  string,
  string[]
>;

describe('F8_E4M3FNUZ and F8_E5M2FNUZ', () => {
  for (const [dtype, formatDtype] of [
    ['float8_e4m3fnuz', 'F8_E4M3FNUZ'],
    ['float8_e5m2fnuz', 'F8_E5M2FNUZ'],
  ] as const) {
    it(`${formatDtype} loads as ${dtype}, every code, and widens to ml_dtypes' float32 values`, async () => {
      const f = await openTensorFile(FILE);
      const stored = f.get(dtype);
      expect([stored.formatDtype, stored.dtype, stored.shape]).toEqual([
        formatDtype,
        dtype,
        [16, 16],
      ]);
      const t = await f.read(stored);
      await f.close();
      expect(Array.from(t.data)).toEqual(Array.from({ length: 256 }, (_, i) => i));
      const bits = new Uint32Array(widenToFloat32(t).data.slice().buffer);
      const table = ML_DTYPES[dtype] as string[];
      for (let code = 0; code < 256; code++) {
        const got = (bits[code] as number).toString(16).padStart(8, '0');
        // 0x80, the one NaN, has no sign to keep: core gives its canonical quiet NaN, ml_dtypes a
        // negative one. Every other code matches bit for bit (+0 at 0x00 and nowhere else).
        if (code === 0x80) expect([got, table[code]]).toEqual(['7fc00000', 'ffc00000']);
        else expect(got, `code 0x${code.toString(16)}`).toBe(table[code]);
      }
    });
  }

  it('re-encodes byte for byte as the official writer laid the file out', async () => {
    const f = await openTensorFile(FILE);
    const tensors = [];
    for (const s of f.tensors) tensors.push({ name: s.name as string, tensor: await f.read(s) });
    await f.close();
    const again = encodeSafetensors(tensors, f.metadata);
    expect(Buffer.from(again).equals(Buffer.from(bytesOf(FILE)))).toBe(true);
  });
});
