import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { tensorFrom } from '@tensorops/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeNpy, encodeNpy } from '../src/index.js';
import {
  readStream,
  readTensorFile,
  removePendingTempFilesSync,
  writeFileAtomic,
  writeStream,
  writeTensorFile,
} from '../src/node/index.js';
import { expectRejection, FIXTURES, fixtureBytes, manifest, npyWithHeader } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-io-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readTensorFile', () => {
  it('reads every numpy fixture to the same tensor as decodeNpy', async () => {
    for (const f of manifest.valid) {
      const t = await readTensorFile(join(FIXTURES, f.file));
      expect(Buffer.from(t.data).toString('base64'), f.file).toBe(f.data);
      expect(t.shape).toEqual(f.shape);
      expect(t.dtype).toBe(f.dtype);
    }
  });

  it('refuses a tensor name in a .npy file in library words (the CLI rewords it)', async () => {
    const path = join(FIXTURES, 'f4-le-c.npy');
    const error = await expectRejection(readTensorFile(path, 'x'));
    expect(error.code).toBe('E_TENSOR_NOT_FOUND');
    expect(error.message).toBe(`${path}: a .npy file holds one unnamed tensor, not 'x'`);
  });

  it('refuses every malformed fixture with the same code, naming the path', async () => {
    for (const f of manifest.invalid) {
      const path = join(FIXTURES, f.file);
      const error = await expectRejection(readTensorFile(path));
      expect(error.code, f.file).toBe(f.code);
      expect(error.message.startsWith(`${path}: `), error.message).toBe(true);
      expect(error.message).toContain(f.includes);
    }
  });

  it('refuses a header claiming terabytes against the file size, before allocating', async () => {
    const path = join(dir, 'huge.npy');
    writeFileSync(
      path,
      npyWithHeader(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }",
        new Uint8Array(8),
      ),
    );
    const start = performance.now();
    const error = await expectRejection(readTensorFile(path));
    expect(performance.now() - start).toBeLessThan(200);
    expect(error.message).toBe(
      `${path}: .npy data truncated: header claims 8796093022208 bytes (shape [1099511627776], dtype float64) but only 8 bytes follow the header`,
    );
  });

  it('gives E_IO naming the path for a missing file and for a directory', async () => {
    const missing = join(dir, 'nope.npy');
    const error = await expectRejection(readTensorFile(missing));
    expect(error.code).toBe('E_IO');
    expect(error.message).toBe(`${missing}: cannot read: no such file or directory`);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    const isDir = await expectRejection(readTensorFile(dir));
    expect(isDir.code).toBe('E_IO');
    expect(isDir.message).toBe(`${dir}: cannot read: is a directory`);
  });

  it('reads from a pipe (no size known up front)', async () => {
    const fifo = join(dir, 'pipe.npy');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo on this platform
    }
    const bytes = fixtureBytes('i8-big-be.npy');
    const writer = createWriteStream(fifo);
    writer.end(bytes);
    const t = await readTensorFile(fifo);
    expect(Buffer.from(t.data).equals(Buffer.from(decodeNpy(bytes).data))).toBe(true);
  });
});

describe('writeFileAtomic / writeTensorFile', () => {
  it("writes exactly encodeNpy's bytes and leaves no temp file", async () => {
    const t = tensorFrom('float32', [2, 3], [1, 2, 3, 4, 5, -0]);
    const path = join(dir, 'out.npy');
    await writeTensorFile(path, t);
    expect(Buffer.from(readFileSync(path)).equals(Buffer.from(encodeNpy(t)))).toBe(true);
    expect(readdirSync(dir)).toEqual(['out.npy']);
  });

  it('replaces an existing file', async () => {
    const path = join(dir, 'out.bin');
    writeFileSync(path, 'old');
    await writeFileAtomic(path, [new Uint8Array([1, 2]), new Uint8Array([3])]);
    expect([...readFileSync(path)]).toEqual([1, 2, 3]);
    expect(readdirSync(dir)).toEqual(['out.bin']);
  });

  it('leaves nothing when the directory is missing', async () => {
    const path = join(dir, 'missing', 'out.npy');
    const error = await expectRejection(writeFileAtomic(path, new Uint8Array(4)));
    expect(error.code).toBe('E_IO');
    expect(error.message).toBe(`${path}: cannot write: no such file or directory`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes the temp file and keeps the old target when the producer throws half-way', async () => {
    const path = join(dir, 'out.npy');
    writeFileSync(path, 'previous');
    function* chunks() {
      yield new Uint8Array(1000);
      throw new Error('encoder exploded');
    }
    const error = await expectRejection(writeFileAtomic(path, chunks()));
    expect(error.code).toBe('E_IO');
    expect(error.message).toBe(`${path}: cannot write: encoder exploded`);
    expect(readdirSync(dir)).toEqual(['out.npy']);
    expect(readFileSync(path, 'utf8')).toBe('previous');
  });

  it('removes the temp file when the rename fails (target is a directory)', async () => {
    const target = join(dir, 'taken');
    execFileSync('mkdir', [target, join(target, 'inner')]);
    const error = await expectRejection(writeFileAtomic(target, new Uint8Array(4)));
    expect(error.code).toBe('E_IO');
    expect(error.message.startsWith(`${target}: cannot write: `)).toBe(true);
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('lets a signal handler remove the temp file of a write still in progress', async () => {
    const path = join(dir, 'out.npy');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* chunks() {
      yield new Uint8Array(10);
      await gate;
      yield new Uint8Array(10);
    }
    const writing = writeFileAtomic(path, chunks());
    while (readdirSync(dir).length === 0) await new Promise((r) => setTimeout(r, 1));
    expect(readdirSync(dir)[0]).toMatch(/^\.out\.npy\.\d+\.\w+\.\w+\.tmp$/);
    removePendingTempFilesSync();
    expect(readdirSync(dir)).toEqual([]);
    release();
    const error = await expectRejection(writing);
    expect(error.code).toBe('E_IO');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses more dimensions than numpy reads (64) in .npy and .npz, before creating a file', async () => {
    const deep = tensorFrom('uint8', Array(65).fill(1), [7]);
    for (const name of ['deep.npy', 'deep.npz']) {
      const error = await expectRejection(writeTensorFile(join(dir, name), deep));
      expect(error.code).toBe('E_SHAPE');
      expect(error.message).toMatch(
        /has 65 dimensions and numpy reads \.np[yz] arrays of at most 64$/,
      );
    }
    expect(readdirSync(dir)).toEqual([]);
    await writeTensorFile(join(dir, 'ok.npy'), tensorFrom('uint8', Array(64).fill(1), [7]));
    expect(decodeNpy(readFileSync(join(dir, 'ok.npy'))).shape).toHaveLength(64);
  });

  it('refuses a dtype .npy cannot hold before creating any file', async () => {
    const path = join(dir, 'out.npy');
    const error = await expectRejection(writeTensorFile(path, tensorFrom('bfloat16', [1], [1])));
    expect(error.code).toBe('E_DTYPE');
    expect(error.message.startsWith(`${path}: .npy has no dtype for bfloat16`)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('streams', () => {
  it('collects a byte stream and decodes it', async () => {
    const path = join(FIXTURES, 'U5-be-c.npy');
    const bytes = await readStream(createReadStream(path, { highWaterMark: 7 }));
    expect(Buffer.from(bytes).equals(readFileSync(path))).toBe(true);
    expect(decodeNpy(bytes).dtype).toBe('U5');
  });

  it('refuses input beyond the cap and text streams', async () => {
    const big = Readable.from([new Uint8Array(6), new Uint8Array(6)]);
    const error = await expectRejection(readStream(big, { maxBytes: 10, label: 'stdin' }));
    expect(error.code).toBe('E_IO');
    expect(error.message).toBe('stdin: input exceeds the 10-byte limit');
    const text = await expectRejection(readStream(Readable.from(['abc']), { label: 'stdin' }));
    expect(text.message).toBe('stdin: yields text, expected raw bytes (remove setEncoding)');
  });

  it('wraps stream failures as E_IO with the cause', async () => {
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('boom'), { code: 'EIO' }));
      },
    });
    const error = await expectRejection(readStream(failing, { label: 'stdin' }));
    expect(error.message).toBe('stdin: cannot read: input/output error');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('EIO');
  });

  it('writes chunks under backpressure and resolves after the last one', async () => {
    const sink = new PassThrough({ highWaterMark: 16 });
    const received: Buffer[] = [];
    const done = writeStream(sink, [new Uint8Array(100).fill(1), new Uint8Array(50).fill(2)]);
    sink.on('data', (chunk: Buffer) => received.push(chunk));
    await done;
    expect(Buffer.concat(received).length).toBe(150);
    expect(Buffer.concat(received)[149]).toBe(2);
  });

  it('reports a destroyed stream as E_IO', async () => {
    const sink = new PassThrough({ highWaterMark: 1 });
    const done = writeStream(sink, [new Uint8Array(10), new Uint8Array(10)], 'stdout');
    sink.destroy(Object.assign(new Error('EPIPE'), { code: 'EPIPE' }));
    const error = await expectRejection(done);
    expect(error.code).toBe('E_IO');
    expect(error.message).toBe('stdout: cannot write: broken pipe');
  });
});
