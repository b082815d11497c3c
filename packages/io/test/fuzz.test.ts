// Every reader against damaged and hostile input: truncated, bit-flipped and overwritten variants
// of valid files, and random headers. Each must end in a TensorOpsError (or a clean read): never
// a hang, a crash, a foreign exception, or an allocation the file does not justify.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTensorOpsError } from '@tensorops/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeNpy, decodeSafetensors, type TensorFormat } from '../src/index.js';
import { collectStream, openTensorBytes, openTensorFile } from '../src/node/index.js';
import { bytesOf, GGUF_DIR, NPZ_DIR, SAFETENSORS_DIR } from './format-fixtures.js';
import { FIXTURES, npyWithHeader } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tensorops-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SEEDS: Record<TensorFormat, Uint8Array[]> = {
  npy: ['f4-special.npy', 'U5-be-c.npy', 'i8-be-f3.npy', 'c16-v3.npy', 'f4-scalar.npy'].map((f) =>
    bytesOf(join(FIXTURES, f)),
  ),
  npz: ['savez.npz', 'savez-compressed.npz', 'single.npz', 'large-compressed.npz'].map((f) =>
    bytesOf(join(NPZ_DIR, f)),
  ),
  safetensors: ['all-dtypes.safetensors', 'edge-shapes.safetensors', 'single.safetensors'].map(
    (f) => bytesOf(join(SAFETENSORS_DIR, f)),
  ),
  gguf: ['model.gguf', 'aligned.gguf'].map((f) => bytesOf(join(GGUF_DIR, f))),
};

/** A damaged copy of a valid file. */
const damaged = (seeds: Uint8Array[]) =>
  fc
    .record({
      seed: fc.nat(seeds.length - 1),
      kind: fc.constantFrom('truncate', 'flip', 'overwrite', 'header'),
      cut: fc.double({ min: 0, max: 1, noNaN: true }),
      flips: fc.array(
        fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), bit: fc.nat(7) }),
        {
          minLength: 1,
          maxLength: 8,
        },
      ),
      junk: fc.uint8Array({ minLength: 1, maxLength: 16 }),
    })
    .map(({ seed, kind, cut, flips, junk }) => {
      const base = seeds[seed] as Uint8Array;
      if (kind === 'truncate') return base.slice(0, Math.floor(cut * base.length));
      const out = base.slice();
      if (kind === 'flip') {
        for (const f of flips) {
          const i = Math.floor(f.at * out.length);
          out[i] = (out[i] as number) ^ (1 << f.bit);
        }
        return out;
      }
      // Overwrite bytes somewhere, or within the first 160 bytes where every header lives.
      const span = kind === 'header' ? Math.min(160, out.length) : out.length;
      const at = Math.floor(cut * Math.max(1, span - junk.length));
      out.set(junk.subarray(0, Math.max(0, out.length - at)), at);
      return out;
    });

/** Random headers: plausible prefixes followed by random dictionary-ish or JSON-ish text. */
const randomHeader = (format: TensorFormat) =>
  fc
    .record({
      length: fc.oneof(fc.nat(300), fc.constantFrom(0xffff, 2 ** 32 - 1, 100_000_001)),
      text: fc.string({
        unit: fc.constantFrom(
          ...'{}[]()"\':,0123456789 -.eE<>|fiuUSbcdescrshapefortran_orderTrueFalsedtypedata_offsetsF32BF16__metadata__\\'.split(
            '',
          ),
        ),
        maxLength: 200,
      }),
      tail: fc.uint8Array({ maxLength: 64 }),
    })
    .map(({ length, text, tail }) => {
      const body = new TextEncoder().encode(text);
      let prefix: Uint8Array;
      if (format === 'npy') {
        prefix = new Uint8Array([
          0x93,
          0x4e,
          0x55,
          0x4d,
          0x50,
          0x59,
          1,
          0,
          length & 0xff,
          (length >> 8) & 0xff,
        ]);
      } else if (format === 'safetensors') {
        prefix = new Uint8Array(8);
        new DataView(prefix.buffer).setBigUint64(0, BigInt(length), true);
      } else if (format === 'gguf') {
        // Magic, version 3, then the claimed length as both the tensor and the metadata count.
        prefix = new Uint8Array(24);
        const view = new DataView(prefix.buffer);
        view.setUint32(0, 0x46554747, true);
        view.setUint32(4, 3, true);
        view.setBigUint64(8, BigInt(length), true);
        view.setBigUint64(16, BigInt(length), true);
      } else {
        // A local file header signature, then junk: yauzl must find no valid end record.
        prefix = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0]);
      }
      const out = new Uint8Array(prefix.length + body.length + tail.length);
      out.set(prefix);
      out.set(body, prefix.length);
      out.set(tail, prefix.length + body.length);
      return out;
    });

const LIMIT_MS = 2000;

/** Runs one reader; returns the foreign failure, if any (undefined = clean read or TensorOpsError). */
async function probe(run: () => Promise<unknown>, size: number): Promise<string | undefined> {
  const before = process.memoryUsage().arrayBuffers;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${LIMIT_MS} ms`), LIMIT_MS);
  });
  try {
    const outcome = await Promise.race([
      run().then(
        () => undefined,
        (e: unknown) => (isTensorOpsError(e) ? undefined : `foreign error: ${String(e)}`),
      ),
      timeout,
    ]);
    if (outcome !== undefined) return outcome;
  } finally {
    clearTimeout(timer);
  }
  // What a hostile header could make a reader allocate is bounded by what the bytes justify: a
  // few MiB here (the largest seed inflates to 1.2 MB). Buffers are not collected this soon, so an
  // allocation of a claimed size would still be counted.
  const grown = process.memoryUsage().arrayBuffers - before;
  if (grown > 32 * 2 ** 20 + size * 1032) return `allocated ${grown} bytes for a ${size}-byte file`;
  return undefined;
}

async function readEverything(bytes: Uint8Array, format: TensorFormat): Promise<void> {
  const file = await openTensorBytes(bytes, `fuzz.${format}`);
  try {
    for (const t of file.tensors) {
      if (t.dtype === undefined) continue;
      await file.read(t);
      await collectStream(file.stream(t));
    }
    // .npz members that are not tensors are refused when asked for.
    for (const o of file.notTensors) file.get(o.name);
  } finally {
    await file.close();
  }
}

function pure(bytes: Uint8Array, format: TensorFormat): Promise<unknown> {
  return (async () => {
    if (format === 'npy') decodeNpy(bytes);
    if (format === 'safetensors') decodeSafetensors(bytes);
  })();
}

const FORMATS: TensorFormat[] = ['npy', 'npz', 'safetensors', 'gguf'];

describe('fuzz: every reader ends in a TensorOpsError or a clean read', () => {
  for (const format of FORMATS) {
    it(`${format}: damaged copies of valid files`, async () => {
      await fc.assert(
        fc.asyncProperty(damaged(SEEDS[format]), async (bytes) => {
          expect(await probe(() => readEverything(bytes, format), bytes.length)).toBeUndefined();
          expect(await probe(() => pure(bytes, format), bytes.length)).toBeUndefined();
        }),
        { numRuns: format === 'npz' ? 250 : 400 },
      );
    });

    it(`${format}: random headers, including huge claimed lengths`, async () => {
      await fc.assert(
        fc.asyncProperty(randomHeader(format), async (bytes) => {
          expect(await probe(() => readEverything(bytes, format), bytes.length)).toBeUndefined();
          expect(await probe(() => pure(bytes, format), bytes.length)).toBeUndefined();
        }),
        { numRuns: 250 },
      );
    });
  }

  it('the same through real files (file descriptors, not buffers)', async () => {
    const path = join(dir, 'f');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FORMATS), fc.nat(), async (format, n) => {
        const seeds = SEEDS[format];
        const bytes = fc.sample(damaged(seeds), { numRuns: 1, seed: n })[0] as Uint8Array;
        writeFileSync(`${path}.${format}`, bytes);
        const run = async () => {
          const file = await openTensorFile(`${path}.${format}`);
          try {
            for (const t of file.tensors) if (t.dtype !== undefined) await file.read(t);
          } finally {
            await file.close();
          }
        };
        expect(await probe(run, bytes.length)).toBeUndefined();
      }),
      { numRuns: 120 },
    );
  });

  it('headers claiming huge sizes fail fast, without allocating them', async () => {
    const npy = npyWithHeader(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 4096), }",
    );
    const json = new TextEncoder().encode(
      '{"w":{"dtype":"F64","shape":[4294967296,1024],"data_offsets":[0,35184372088832]}}',
    );
    const st = new Uint8Array(8 + json.length);
    new DataView(st.buffer).setBigUint64(0, BigInt(json.length), true);
    st.set(json, 8);
    expect(await readEverything(npy, 'npy').catch((e: Error) => e.message)).toContain(
      'header claims 36028797018963968 bytes',
    );
    expect(await readEverything(st, 'safetensors').catch((e: Error) => e.message)).toContain(
      'truncated: the header describes 35184372088832 bytes',
    );
    for (const [bytes, format] of [
      [npy, 'npy'],
      [st, 'safetensors'],
      [bytesOf(join(NPZ_DIR, 'deflate-ratio.npz')), 'npz'],
      [bytesOf(join(NPZ_DIR, 'deflate-bomb.npz')), 'npz'],
    ] as const) {
      const start = performance.now();
      expect(await probe(() => readEverything(bytes, format), bytes.length)).toBeUndefined();
      await expect(readEverything(bytes, format)).rejects.toSatisfy(isTensorOpsError);
      expect(performance.now() - start).toBeLessThan(500);
    }
  });
});
