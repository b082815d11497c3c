// The main entry's Blob and URL readers (the code the browser runs, see browser.test.ts) in Node,
// which has Blob, File and fetch: every numpy .npz fixture reads as it does from disk, the
// malformed ones fail with the same code, and gathers read only the slices they need.

import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { collectStream, gatherFromFile, openTensorBlob } from '../src/index.js';
import { openTensorFile } from '../src/node/index.js';
import { bytesOf, expectTensor, NPZ_DIR, npzManifest } from './format-fixtures.js';
import { expectRejection } from './helpers.js';

const fileOf = (name: string): File => new File([bytesOf(join(NPZ_DIR, name))], name);

/** A File that records the length of every slice read from it. */
class CountedFile extends File {
  readonly slices: number[] = [];
  override slice(start?: number, end?: number, type?: string): Blob {
    this.slices.push((end ?? this.size) - (start ?? 0));
    return super.slice(start, end, type);
  }
}

/** Reads every tensor and asks for every member that is not one, as the Node reader's test does. */
async function readEverything(f: Awaited<ReturnType<typeof openTensorBlob>>): Promise<void> {
  try {
    for (const t of f.tensors) await f.read(t);
    for (const o of f.notTensors) f.get(o.name);
  } finally {
    await f.close();
  }
}

describe('openTensorBlob', () => {
  it("reads every valid .npz numpy wrote, stored and deflated, as numpy's manifest says", async () => {
    for (const v of npzManifest.valid) {
      const f = await openTensorBlob(fileOf(v.file));
      try {
        expect(f.path).toBe(v.file);
        expect(f.tensors.map((t) => t.name)).toEqual(v.tensors.map((t) => t.name));
        for (const e of v.tensors)
          expectTensor(await f.read(f.get(e.name)), e, `${v.file}:${e.name}`);
      } finally {
        await f.close();
      }
    }
  });

  it('refuses every malformed .npz with the code the Node reader gives', async () => {
    for (const bad of npzManifest.invalid) {
      const web = await expectRejection(
        (async () => readEverything(await openTensorBlob(fileOf(bad.file))))(),
      );
      expect(web.code, bad.file).toBe(bad.code);
      expect(web.message.startsWith(`${bad.file}: `), web.message).toBe(true);
      const node = await expectRejection(
        (async () => readEverything(await openTensorFile(join(NPZ_DIR, bad.file))))(),
      );
      expect(web.code, bad.file).toBe(node.code);
    }
  });

  it('gathers from a stored member by slices of the File, only the rows it needs', async () => {
    const file = new CountedFile([bytesOf(join(NPZ_DIR, 'savez.npz'))], 'savez.npz');
    const f = await openTensorBlob(file);
    try {
      const t = f.get('ints'); // int64 [3, 4]: rows of 32 bytes
      const whole = (await f.read(t)).data;
      file.slices.length = 0;
      const out = gatherFromFile(f, t, tensorFrom('int32', [2], [2, 0]));
      expect(out.mode).toBe('ranged');
      const rows = (await collectStream(out)).data;
      expect(rows).toEqual(new Uint8Array([...whole.subarray(64, 96), ...whole.subarray(0, 32)]));
      expect(file.slices).toEqual([32, 32]);
    } finally {
      await f.close();
    }
  });
});
