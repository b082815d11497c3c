// Files larger than memory: gather reads only the rows it needs. The big files here are sparse
// (8 GiB that take no disk space and read as zeros where nothing was written): loading one whole
// would need an 8 GiB buffer, more than Node can allocate, so a passing gather proves the ranged
// path; /usr/bin/time, where present, pins the peak memory.

import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type Tensor, tensorFrom } from '@tensorops/core';
import { decodeNpy, encodeNpyHeader } from '@tensorops/io';
import { readTensorFile, writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, tensorops } from './helpers.js';

const ROWS = 2 ** 21;
const COLS = 1024;
const ROW_BYTES = COLS * 4;
const WRITTEN = [0, 5, 1_000_000, ROWS - 1];
const PICK = [5, ROWS - 1, 0, 1_000_000, 7, -1, 5];

/** Row r holds r * 1024 + c (int32), written in `order` byte order; other rows are holes. */
function row(r: number, big: boolean): Buffer {
  const b = Buffer.alloc(ROW_BYTES);
  for (let c = 0; c < COLS; c++) {
    if (big) b.writeInt32BE(r * COLS + c, c * 4);
    else b.writeInt32LE(r * COLS + c, c * 4);
  }
  return b;
}

function sparseFile(path: string, header: Uint8Array, big = false): void {
  const fd = openSync(path, 'w');
  writeSync(fd, header, 0, header.length, 0);
  for (const r of WRITTEN) writeSync(fd, row(r, big), 0, ROW_BYTES, header.length + r * ROW_BYTES);
  ftruncateSync(fd, header.length + ROWS * ROW_BYTES);
  closeSync(fd);
}

function expected(): Tensor {
  const values: number[] = [];
  for (const p of PICK) {
    const r = p < 0 ? p + ROWS : p;
    for (let c = 0; c < COLS; c++) values.push(WRITTEN.includes(r) ? r * COLS + c : 0);
  }
  return tensorFrom('int32', [PICK.length, COLS], values);
}

async function indicesFile(dir: string): Promise<string> {
  const path = join(dir, 'ids.npy');
  await writeTensorsFile(path, [{ name: 'x', data: tensorFrom('int64', [PICK.length], PICK) }]);
  return path;
}

function safetensorsHeader(): Uint8Array {
  const json = `{"pad":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},"emb":{"dtype":"I32","shape":[${ROWS},${COLS}],"data_offsets":[3,${3 + ROWS * ROW_BYTES}]}}`;
  const padded = json.padEnd(Math.ceil(json.length / 8) * 8, ' ');
  const out = Buffer.alloc(8 + padded.length + 3);
  out.writeBigUInt64LE(BigInt(padded.length));
  out.write(padded, 8);
  out.set([1, 2, 3], 8 + padded.length);
  return out;
}

describe('gather on files larger than memory', () => {
  it('8 GiB .npy: -o writes exactly the picked rows', async () => {
    const dir = tempDir();
    const data = join(dir, 'huge.npy');
    sparseFile(data, encodeNpyHeader({ dtype: 'int32', shape: [ROWS, COLS] }));
    const out = join(dir, 'rows.npy');
    const r = tensorops(['gather', data, await indicesFile(dir), '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = await readTensorFile(out);
    expect(Buffer.from(got.data).equals(Buffer.from(expected().data))).toBe(true);
  });

  it('8 GiB big-endian .npy, piped: byte-swapped on the way out', async () => {
    const dir = tempDir();
    const data = join(dir, 'huge-be.npy');
    const header = encodeNpyHeader({ dtype: 'int32', shape: [ROWS, COLS] });
    header[Buffer.from(header).indexOf("'<i4'") + 1] = 0x3e;
    sparseFile(data, header, true);
    const r = tensorops(['gather', data, await indicesFile(dir)]);
    expect(r.status).toBe(0);
    const got = decodeNpy(new Uint8Array(r.stdout));
    expect(Buffer.from(got.data).equals(Buffer.from(expected().data))).toBe(true);
  });

  it('8 GiB .safetensors tensor by name, into a .safetensors output', async () => {
    const dir = tempDir();
    const data = join(dir, 'model.safetensors');
    sparseFile(data, safetensorsHeader());
    const out = join(dir, 'rows.safetensors');
    const r = tensorops(['gather', `${data}:emb`, await indicesFile(dir), '-o', `${out}:picked`]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = await readTensorFile(out, 'picked');
    expect(Buffer.from(got.data).equals(Buffer.from(expected().data))).toBe(true);
  });

  it('a 72 MiB stored .npz member (above the ranged-read threshold) gathers the right rows', async () => {
    const dir = tempDir();
    const rows = 18432;
    const values = new Int32Array(rows * COLS);
    for (let i = 0; i < values.length; i++) values[i] = i;
    const data = join(dir, 'big.npz');
    await writeTensorsFile(data, [
      {
        name: 'emb',
        data: { dtype: 'int32', shape: [rows, COLS], data: new Uint8Array(values.buffer) },
      },
      { name: 'bias', data: tensorFrom('int8', [1], [1]) },
    ]);
    const idx = join(dir, 'i.npy');
    await writeTensorsFile(idx, [
      { name: 'x', data: tensorFrom('int32', [3], [rows - 1, 0, 9000]) },
    ]);
    const r = tensorops(['gather', `${data}:emb`, idx, '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout.toString());
    expect(doc.shape).toEqual([3, COLS]);
    expect(doc.data[0][0]).toBe((rows - 1) * COLS);
    expect(doc.data[2][COLS - 1]).toBe(9000 * COLS + COLS - 1);
  });

  it.skipIf(!existsSync('/usr/bin/time'))(
    'peak memory stays far below the file size (/usr/bin/time)',
    async () => {
      const dir = tempDir();
      const data = join(dir, 'huge.npy');
      sparseFile(data, encodeNpyHeader({ dtype: 'int32', shape: [ROWS, COLS] }));
      const r = spawnSync(
        '/usr/bin/time',
        [
          '-f',
          '%M',
          process.execPath,
          BIN,
          'gather',
          data,
          await indicesFile(dir),
          '-o',
          join(dir, 'o.npy'),
        ],
        {
          encoding: 'utf8',
        },
      );
      expect(r.status).toBe(0);
      const peakKiB = Number(r.stderr.trim().split('\n').at(-1));
      expect(peakKiB).toBeGreaterThan(0);
      expect(peakKiB).toBeLessThan(200 * 1024);
    },
  );
});
