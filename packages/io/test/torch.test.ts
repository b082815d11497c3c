// torch.save checkpoints (scripts/fixtures/torch.py; expected values from torch.load with
// weights_only=True) read through openTensorFile, from disk and from a real HTTP server: every
// dtype, views, tied weights, big-endian storages, a sharded .bin checkpoint, and what is refused.
// Archives a fixture cannot hold (2 GiB storages, zip64) are written by torch-archives.ts.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gather, type Tensor, TensorOpsError, tensorFrom } from '@tensorops/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZipDirectory } from '../src/file/zip-directory.js';
import { collectStream, gatherFromFile, openTensorBlob, type TensorFile } from '../src/index.js';
import { openTensorFile } from '../src/node/index.js';
import { openSource } from '../src/node/source.js';
import type { TorchTensorRecord } from '../src/torch/pickle-records.js';
import { gatherView, torchView } from '../src/torch-archive.js';
import { serveFolder, type TestServer } from './http-servers.js';
import { torchPickle, writeCheckpoint, writeTorchZip } from './torch-archives.js';
import {
  type ExpectedFile,
  type ExpectedTensor,
  expected,
  TORCH_FIXTURES,
} from './torch-fixtures.js';

const ROOT = TORCH_FIXTURES;

const GOOD = [
  'dtypes.pt',
  'views.pt',
  'big-endian.pt',
  'model.pt',
  'sharded/pytorch_model.bin.index.json',
];

function bytesOf(t: ExpectedTensor): Uint8Array {
  return new Uint8Array(Buffer.from(t.b64, 'base64'));
}

async function checkFile(path: string | TensorFile, want: ExpectedFile): Promise<void> {
  const file = typeof path === 'string' ? await openTensorFile(path) : path;
  try {
    expect(file.tensors.map((t) => t.name)).toEqual(want.tensors.map((t) => t.name));
    expect(file.otherEntries).toBe(want.otherEntries);
    for (const w of want.tensors) {
      const stored = file.get(w.name);
      expect([stored.displayDtype, stored.shape, stored.nbytes]).toEqual([
        w.dtype,
        w.shape,
        bytesOf(w).length,
      ]);
      expect((stored.storage?.shared ?? 0) > 0, w.name).toBe(w.shared);
      const t = await file.read(stored);
      expect(Buffer.from(t.data).equals(Buffer.from(bytesOf(w))), w.name).toBe(true);
      // The stream (ranged for contiguous views) gives the same bytes.
      const streamed = await collectStream(file.stream(stored));
      expect(Buffer.from(streamed.data).equals(Buffer.from(bytesOf(w))), `${w.name} streamed`).toBe(
        true,
      );
    }
  } finally {
    await file.close();
  }
}

describe('torch checkpoints on disk', () => {
  for (const name of GOOD) {
    it(`${name}: every tensor as torch.load reads it`, async () => {
      await checkFile(join(ROOT, name), expected[name] as ExpectedFile);
    });
  }

  it('a contiguous view keeps a byte offset; a strided one is read through its strides', async () => {
    const file = await openTensorFile(join(ROOT, 'views.pt'));
    try {
      expect(file.format).toBe('torch');
      expect(file.get('row_slice').offset).toBe((file.get('base').offset as number) + 6 * 4);
      expect(file.get('transposed').offset).toBeNull();
      expect(file.get('transposed').storage?.strides).toEqual([1, 6]);
      expect(file.get('emb.weight').storage?.shared).toBe(1);
    } finally {
      await file.close();
    }
  });

  it('gathers rows of contiguous and strided views as core gathers the expected tensor', async () => {
    const file = await openTensorFile(join(ROOT, 'views.pt'));
    try {
      for (const name of ['base', 'row_slice', 'transposed', 'every_other', 'emb.weight']) {
        const w = (expected['views.pt'] as ExpectedFile).tensors.find(
          (t) => t.name === name,
        ) as ExpectedTensor;
        const data: Tensor = { dtype: 'float32', shape: w.shape, data: bytesOf(w) };
        const indices = tensorFrom('int64', [3], [1, 0, -1]);
        const got = await collectStream(gatherFromFile(file, file.get(name), indices, { axis: 0 }));
        expect(
          Buffer.from(got.data).equals(Buffer.from(gather(data, indices, { axis: 0 }).data)),
          name,
        ).toBe(true);
      }
    } finally {
      await file.close();
    }
  });

  for (const [name, want] of Object.entries(expected.unheld)) {
    it(`${name}: lists every tensor; only reading one tensorops cannot hold fails, naming it`, async () => {
      const file = await openTensorFile(join(ROOT, name));
      try {
        expect(file.tensors.map((t) => [t.name, t.displayDtype, t.shape])).toEqual(
          want.tensors.map((w) => [w.name, w.dtype, w.shape]),
        );
        for (const w of want.tensors) {
          const stored = file.get(w.name);
          if ('b64' in w) {
            expect(
              Buffer.from((await file.read(stored)).data).equals(Buffer.from(bytesOf(w))),
            ).toBe(true);
            continue;
          }
          expect([stored.dtype, stored.formatDtype, stored.nbytes]).toEqual([
            undefined,
            `torch.${w.dtype}`,
            w.nbytes,
          ]);
          const attempts: (() => unknown)[] = [
            () => file.read(stored),
            () => file.stream(stored),
            () =>
              collectStream(
                gatherFromFile(file, stored, tensorFrom('int64', [1], [0]), { axis: 0 }),
              ),
          ];
          for (const attempt of attempts) {
            const e = await Promise.resolve()
              .then(attempt)
              .then(
                () => undefined,
                (cause: unknown) => cause,
              );
            expect(e, w.name).toBeInstanceOf(TensorOpsError);
            expect((e as TensorOpsError).code).toBe('E_DTYPE');
            expect((e as Error).message).toMatch(/^[^\n]*$/);
            expect((e as Error).message).toContain(
              `tensor '${w.name}' has dtype torch.${w.dtype} (${w.dtype}), which tensorops cannot hold`,
            );
          }
        }
      } finally {
        await file.close();
      }
    });
  }

  it('refuses the legacy format and TorchScript archives with one line each', async () => {
    await expect(openTensorFile(join(ROOT, 'legacy.pt'))).rejects.toThrow(/legacy torch.save/);
    await expect(openTensorFile(join(ROOT, 'torchscript.pt'))).rejects.toThrow(/TorchScript/);
  });

  for (const [name, { error }] of Object.entries(expected.hostile)) {
    it(`refuses hostile/${name}.pt`, async () => {
      const e = await openTensorFile(join(ROOT, 'hostile', `${name}.pt`)).then(
        async (f) => {
          // Only a view's read may find the fault; nothing opened is left open.
          try {
            for (const t of f.tensors) await f.read(t);
          } finally {
            await f.close();
          }
        },
        (cause: unknown) => cause,
      );
      expect(e).toBeInstanceOf(TensorOpsError);
      expect((e as Error).message.split('\n')).toHaveLength(1);
      expect((e as Error).message.toLowerCase()).toContain(error);
    });
  }
});

describe('torch checkpoints from a Blob (the main entry, any runtime)', () => {
  for (const name of ['views.pt', 'big-endian.pt', 'model.pt']) {
    it(`${name}: the same tensors, read by slices`, async () => {
      const blob = new Blob([readFileSync(join(ROOT, name))]);
      // No extension: a zip whose first member is */data.pkl is a torch checkpoint.
      const file = await openTensorBlob(blob, { label: 'upload' });
      expect(file.format).toBe('torch');
      await checkFile(file, expected[name] as ExpectedFile);
    });
  }
});

describe('torch checkpoints over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serveFolder(ROOT);
  });
  afterAll(() => server.close());

  for (const name of GOOD) {
    it(`${name}: the same tensors, read by ranges`, async () => {
      await checkFile(`${server.url}/${name}`, expected[name] as ExpectedFile);
    });
  }

  it('opened for one tensor, a checkpoint costs a few requests however many storages it has', async () => {
    // A checkpoint larger than the first request (64 KiB), with 40 storages.
    const dir = mkdtempSync(join(tmpdir(), 'tensorops-torch-http-'));
    try {
      const rows = 64;
      const tensors = Array.from({ length: 40 }, (_, k) => ({
        name: `layer.${k}.weight`,
        storageType: 'FloatStorage',
        key: String(k),
        numel: rows * 256,
        offset: 0,
        shape: [rows, 256],
        strides: [256, 1],
      }));
      const storages = tensors.map((t, k) => ({
        key: t.key,
        data: new Uint8Array(new Float32Array(rows * 256).fill(k).buffer),
      }));
      writeCheckpoint(join(dir, 'big.pt'), torchPickle(tensors), storages);
      const local = await serveFolder(dir);
      try {
        const url = `${local.url}/big.pt`;
        const all = await openTensorFile(url);
        await all.close();
        const listing = local.requests.length;
        expect(all.tensors).toHaveLength(40);
        local.requests.length = 0;
        const one = await openTensorFile(url, { tensor: 'layer.39.weight' });
        try {
          expect(one.tensors.map((t) => t.name)).toEqual(['layer.39.weight']);
          const rowsRead = await collectStream(
            gatherFromFile(one, one.get('layer.39.weight'), tensorFrom('int64', [2], [5, 60])),
          );
          expect(new Float32Array(rowsRead.data.slice().buffer).every((v) => v === 39)).toBe(true);
        } finally {
          await one.close();
        }
        // The first 64 KiB, the end record and directory, the storage's local header, the rows.
        expect(local.requests.length).toBeLessThanOrEqual(5);
        // Listing every tensor reads every storage's local header too.
        expect(listing).toBeGreaterThanOrEqual(40);
      } finally {
        await local.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('zip64 and storages of 2 GiB or more', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tensorops-torch-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the last row of a 2 GiB + 256 B float32 storage, and a zip64 archive', async () => {
    const rows = 2 ** 23 + 1;
    const last = new Float32Array(64).map((_, i) => i + 0.5);
    for (const zip64 of [false, true]) {
      const path = join(dir, `big-${zip64}.pt`);
      const pickle = torchPickle([
        {
          name: 'w',
          storageType: 'FloatStorage',
          key: '0',
          numel: rows * 64,
          offset: 0,
          shape: [rows, 64],
          strides: [64, 1],
        },
        {
          name: 'tail',
          storageType: 'FloatStorage',
          key: '0',
          numel: rows * 64,
          offset: (rows - 1) * 64,
          shape: [64],
          strides: [1],
        },
      ]);
      writeCheckpoint(
        path,
        pickle,
        [{ key: '0', data: { size: rows * 256, tail: new Uint8Array(last.buffer) } }],
        zip64,
      );
      const file = await openTensorFile(path);
      try {
        expect(file.get('w').nbytes).toBe(rows * 256);
        const tail = await file.read(file.get('tail'));
        expect(Array.from(new Float32Array(tail.data.slice().buffer))).toEqual(Array.from(last));
        const got = await collectStream(
          gatherFromFile(file, file.get('w'), tensorFrom('int64', [2], [-1, 0])),
        );
        const values = Array.from(new Float32Array(got.data.slice().buffer));
        expect(values).toEqual([...last, ...new Array(64).fill(0)]);
      } finally {
        await file.close();
      }
    }
  });

  it('the directory reader gives the offsets the writer used, past 4 GiB too', async () => {
    const path = join(dir, 'far.zip');
    writeTorchZip(path, [
      { name: 'a/data/0', data: { size: 2 ** 32 + 10 } },
      { name: 'a/data/1', data: Uint8Array.of(1, 2, 3) },
    ]);
    const source = await openSource(path);
    try {
      const entries = await readZipDirectory(source);
      expect(entries.map((e) => [e.name, e.uncompressedSize])).toEqual([
        ['a/data/0', 2 ** 32 + 10],
        ['a/data/1', 3],
      ]);
      expect(entries[1]?.localHeaderOffset).toBeGreaterThan(2 ** 32);
    } finally {
      await source.close();
    }
  });
});

describe('views', () => {
  /** The reference: element (i0, i1, ...) is storage[offset + sum(i_k * stride_k)]. */
  function slowView(
    shape: number[],
    strides: number[],
    offset: number,
    storage: number[],
  ): number[] {
    const out: number[] = [];
    const walk = (d: number, at: number): void => {
      if (d === shape.length) {
        out.push(storage[at] as number);
        return;
      }
      for (let i = 0; i < (shape[d] as number); i++) walk(d + 1, at + i * (strides[d] as number));
    };
    walk(0, offset);
    return out;
  }

  it('gathers any in-bounds strided view as the slow reference does', () => {
    const layout = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 7 })), {
        maxLength: 4,
      })
      .chain((dims) => fc.tuple(fc.constant(dims), fc.integer({ min: 0, max: 9 })));
    fc.assert(
      fc.property(layout, ([dims, offset]) => {
        const shape = dims.map((d) => d[0]);
        const strides = dims.map((d) => d[1]);
        const record: TorchTensorRecord = {
          name: 'v',
          storage: { key: '0', dtype: 'int32', numel: 200 },
          storageOffset: offset,
          shape,
          strides,
        };
        const storage = Array.from({ length: 200 }, (_, i) => i * 3 + 1);
        const view = torchView(record, 200);
        const span = new Uint8Array(new Int32Array(storage.slice(view.first, view.end)).buffer);
        const got = gatherView(record, view, span, 4);
        expect(Array.from(new Int32Array(got.slice().buffer))).toEqual(
          slowView(shape, strides, offset, storage),
        );
      }),
    );
  });

  it('reads a small expanded view (stride 0), refuses one that would inflate a storage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tensorops-torch-'));
    try {
      const path = join(dir, 'expanded.pt');
      const row = new Float32Array([1.5, -2, 3]);
      const view = { storageType: 'FloatStorage', key: '0', numel: 3, offset: 0 };
      writeCheckpoint(
        path,
        torchPickle([
          { ...view, name: 'rows', shape: [4, 3], strides: [0, 1] },
          { ...view, name: 'bomb', shape: [2 ** 40], strides: [0] },
        ]),
        [{ key: '0', data: new Uint8Array(row.buffer) }],
      );
      await expect(openTensorFile(path)).rejects.toThrow(/'bomb' views 1099511627776 elements/);
      writeCheckpoint(
        path,
        torchPickle([{ ...view, name: 'rows', shape: [4, 3], strides: [0, 1] }]),
        [{ key: '0', data: new Uint8Array(row.buffer) }],
      );
      const file = await openTensorFile(path);
      try {
        const t = await file.read(file.get('rows'));
        expect(Array.from(new Float32Array(t.data.slice().buffer))).toEqual([
          ...row,
          ...row,
          ...row,
          ...row,
        ]);
      } finally {
        await file.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses views past their storage and layouts that overflow', () => {
    const record = (shape: number[], strides: number[], storageOffset = 0): TorchTensorRecord => ({
      name: 'v',
      storage: { key: '0', dtype: 'float32', numel: 8 },
      storageOffset,
      shape,
      strides,
    });
    expect(() => torchView(record([3, 3], [3, 1]), 8)).toThrow(/past its end/);
    expect(() => torchView(record([2], [1], 7), 8)).toThrow(/past its end/);
    expect(() => torchView(record([2 ** 30, 2 ** 30], [1, 1]), 8)).toThrow(/overflows/);
    expect(() => torchView(record([2, 2], [2 ** 53, 1]), 8)).toThrow(/overflows/);
    expect(torchView(record([0, 5], [99, 99], 8), 8).elements).toBe(0);
  });
});
