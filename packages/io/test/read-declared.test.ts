// Pipes and devices: the header is read from the first bytes, then exactly what it declares, and
// nothing more. Endless sources are made here: generators, and private character devices created
// with mknod in a temp dir (never the machine's own /dev entries).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { tensorFrom } from '@tensorops/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeNpy, encodeNpy, encodeNpyHeader, encodeSafetensors } from '../src/index.js';
import { openNpyStream, openTensorFile, readDeclaredBytes } from '../src/node/index.js';
import { openTensorHeader } from '../src/node/internal.js';
import { MAX_STREAM_BYTES } from '../src/node/read.js';
import { expectRejection } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-declared-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `head`, then 64 KiB chunks of `fill` for ever; counts what was pulled and whether it closed. */
function endless(head: Uint8Array, fill = 0) {
  const seen = { chunks: 0, bytes: 0, closed: false };
  const stream = (async function* () {
    try {
      yield head;
      for (;;) {
        const chunk = new Uint8Array(1 << 16).fill(fill);
        seen.chunks++;
        seen.bytes += chunk.length;
        yield chunk;
      }
    } finally {
      seen.closed = true;
    }
  })();
  return { stream, seen };
}

describe('readDeclaredBytes', () => {
  it('reads a .npy up to its declared end and stops there, whatever follows', async () => {
    const npy = encodeNpy(tensorFrom('int32', [3], [1, -2, 3]));
    const { stream, seen } = endless(npy, 0xff);
    const bytes = await readDeclaredBytes(stream, 'pipe', 'npy');
    expect(bytes.length).toBe(npy.length);
    expect(Buffer.from(bytes).equals(Buffer.from(npy))).toBe(true);
    expect(seen.chunks).toBe(0);
    expect(seen.closed).toBe(true);
  });

  it('holds a .npy from a pipe once: one buffer of exactly its size, the tensor a view of it', async () => {
    const t = tensorFrom(
      'float32',
      [300, 7],
      new Array(2100).fill(0).map((_, i) => i / 3),
    );
    const npy = encodeNpy(t);
    for (const size of [1, 5, 64, 1000, npy.length]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < npy.length; at += size) chunks.push(npy.slice(at, at + size));
      const bytes = await readDeclaredBytes(Readable.from(chunks), 'pipe', 'npy');
      expect(bytes.length).toBe(npy.length);
      expect(bytes.buffer.byteLength).toBe(npy.length);
      expect(Buffer.from(bytes).equals(Buffer.from(npy))).toBe(true);
      expect(decodeNpy(bytes).data.buffer).toBe(bytes.buffer);
    }
  });

  it('refuses a header that declares more than the stream limit before reading its data', async () => {
    const header = encodeNpyHeader({ dtype: 'uint8', shape: [9_000_000_000] });
    const { stream, seen } = endless(header);
    const e = await expectRejection(readDeclaredBytes(stream, 'pipe', 'npy'));
    expect(e.message).toMatch(/^pipe: input exceeds the \d+-byte limit$/);
    expect(seen.chunks).toBe(0);
  });

  it('pulls the data in, chunk by chunk, when the header declares it', async () => {
    const t = tensorFrom('uint8', [200_000], new Array(200_000).fill(9));
    const npy = encodeNpy(t);
    const header = npy.subarray(0, npy.length - 200_000);
    const { stream, seen } = endless(header, 9);
    const bytes = await readDeclaredBytes(stream, 'pipe');
    expect(decodeNpy(bytes).data).toEqual(t.data);
    // 200,000 bytes need four 64 KiB chunks; the fifth is never asked for.
    expect(seen.chunks).toBe(4);
    expect(seen.closed).toBe(true);
  });

  it('refuses a stream that is no tensor file after its first chunk', async () => {
    for (const format of ['npy', undefined] as const) {
      const { stream, seen } = endless(new Uint8Array(0));
      const e = await expectRejection(readDeclaredBytes(stream, 'pipe', format));
      expect(e.message).toBe(
        format === 'npy'
          ? "not a .npy file: it does not start with '\\x93NUMPY'"
          : 'not a .npy, .npz, .safetensors or .gguf file: its first bytes are none of theirs',
      );
      expect(seen.chunks).toBe(1);
      expect(seen.closed).toBe(true);
    }
  });

  it('reads a .safetensors to its declared end plus one byte, so data after it is refused', async () => {
    const st = encodeSafetensors([{ name: 'w', tensor: tensorFrom('float32', [2], [1, 2]) }]);
    const { stream, seen } = endless(st, 7);
    const bytes = await readDeclaredBytes(stream, 'pipe');
    expect(bytes.length).toBe(st.length + 1);
    expect(seen.chunks).toBe(1);
    expect(seen.closed).toBe(true);
  });
});

describe('openNpyStream', () => {
  it('reads the header only; the data is read whole only up to the stream limit', async () => {
    const header = encodeNpyHeader({ dtype: 'float32', shape: [1e12] });
    const { stream, seen } = endless(header);
    const npy = await openNpyStream(stream, 'stdin');
    expect(npy.header.nbytes).toBe(4e12);
    const e = await expectRejection(npy.readTensor());
    expect(e.code).toBe('E_IO');
    expect(e.message).toBe(`stdin: input exceeds the ${MAX_STREAM_BYTES}-byte limit`);
    await npy.close();
    expect(seen.bytes).toBeLessThan(1 << 20);
    expect(seen.closed).toBe(true);
  });

  it('a small .npy: its data read whole, nothing after it', async () => {
    const t = tensorFrom('int16', [2, 3], [1, -2, 3, -4, 5, -32768]);
    const { stream, seen } = endless(encodeNpy(t), 7);
    const npy = await openNpyStream(stream, 'stdin');
    expect(await npy.readTensor()).toEqual(t);
    await npy.close();
    expect(seen.chunks).toBe(0);
  });
});

describe('devices and endless pipes', () => {
  const root = process.getuid?.() === 0;

  it.runIf(root)(
    'a private /dev/zero or /dev/urandom is refused after its first bytes',
    async () => {
      for (const [name, minor] of [
        ['zero', '5'],
        ['urandom', '9'],
      ] as const) {
        const path = join(dir, name);
        execFileSync('mknod', [path, 'c', '1', minor]);
        const before = process.memoryUsage().rss;
        const e = await expectRejection(openTensorFile(path));
        // Random bytes whose ninth is `{` (1 in 256) read as a .safetensors header length.
        const refusals = [
          `${path}: not a \\.npy, \\.npz, \\.safetensors or \\.gguf file: `,
          ...(name === 'urandom'
            ? [`${path}: \\.safetensors header length exceeds the \\d+-byte limit`]
            : []),
        ];
        expect(e.message).toMatch(new RegExp(`^(${refusals.join('|')})`));
        expect(process.memoryUsage().rss - before).toBeLessThan(64 << 20);
        const named = join(dir, `${name}.npy`);
        execFileSync('mknod', [named, 'c', '1', minor]);
        const n = await expectRejection(openTensorFile(named));
        expect(n.message).toContain(`${named}: not a .npy file: it does not start with`);
      }
    },
  );
});

describe('openTensorHeader', () => {
  it('lists the tensors of an endless stream from its header alone, and never reads the data', async () => {
    const t = tensorFrom('float32', [2, 3], [1, 2, 3, 4, 5, 6]);
    for (const head of [
      encodeNpyHeader(t),
      encodeSafetensors([{ name: 'w', tensor: t }]).subarray(0, -t.data.length),
    ]) {
      const { stream, seen } = endless(head);
      const file = await openTensorHeader(stream, 'stdin');
      expect(file.tensors.map((s) => [s.dtype, s.shape, s.nbytes])).toEqual([
        ['float32', [2, 3], 24],
      ]);
      expect(seen.chunks).toBe(0);
      expect(seen.closed).toBe(true);
      const error = await expectRejection(file.read(file.tensors[0] as never));
      expect(error.code).toBe('E_IO');
      expect(error.message).toContain('stdin: only its header was read');
      await file.close();
    }
  });
});
