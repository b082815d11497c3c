// The data.pkl reader against torch's own output (scripts/fixtures/torch_pickles.py: the records
// torch.load gives), hostile pickles (each refused with its one line, before any allocation its
// declared sizes ask for), pickles nested a million deep, and arbitrary bytes.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTensorOpsError } from '@tensorops/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTorchPickle, type TorchTensorRecord } from '../src/torch/pickle-records.js';
import { runPickle } from '../src/torch/pickle-vm.js';
import { concat as concatBytes } from './gguf-bytes.js';
import { expectError } from './helpers.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/torch/pickles');

interface Manifest {
  valid: { file: string; protocol: number; tensors: TorchTensorRecord[]; otherEntries: number }[];
  hostile: { file: string; message: string }[];
}

const manifest: Manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const pickleBytes = (file: string) => new Uint8Array(readFileSync(join(DIR, file)));

/** The one line a refusal gives. */
/** The message a pickle is refused with (by the object cap given, else by readTorchPickle's). */
function refusal(bytes: Uint8Array, maxObjects?: number): string {
  const error = expectError(() =>
    maxObjects === undefined ? readTorchPickle(bytes) : runPickle(bytes, maxObjects),
  );
  expect(error.code).toBe('E_FORMAT');
  expect(error.message).not.toContain('\n');
  expect(error.message.length).toBeLessThanOrEqual(240);
  return error.message;
}

const ascii = (text: string) => new TextEncoder().encode(text);

function concat(...parts: (Uint8Array | string | number[])[]): Uint8Array {
  return concatBytes(
    parts.map((p) =>
      typeof p === 'string' ? ascii(p) : p instanceof Uint8Array ? p : Uint8Array.from(p),
    ),
  );
}

/** `part` `count` times over, without building a million small arrays. */
function repeat(part: Uint8Array | string, count: number): Uint8Array {
  const unit = typeof part === 'string' ? ascii(part) : part;
  const out = new Uint8Array(unit.length * count);
  for (let i = 0; i < count; i++) out.set(unit, i * unit.length);
  return out;
}

const PROTO2 = [0x80, 0x02];
const MILLION = 1_000_000;

describe('torch.save pickles', () => {
  it.each(manifest.valid.map((c) => [c.file, c] as const))(
    '%s gives the records torch.load gives',
    (file, c) => {
      expect(readTorchPickle(pickleBytes(file))).toEqual({
        tensors: c.tensors,
        otherEntries: c.otherEntries,
      });
    },
  );

  it('covers every dtype (complex32 and quantized too), protocols 2, 4 and 5, views, ties, parameters and optimizer state', () => {
    const all = manifest.valid.flatMap((c) => c.tensors);
    expect(new Set(all.map((t) => t.storage.dtype)).size).toBe(25);
    expect(new Set(manifest.valid.map((c) => c.protocol))).toEqual(new Set([2, 4, 5]));
    expect(all.some((t) => t.strides.includes(0))).toBe(true);
    expect(all.some((t) => t.storageOffset > 0)).toBe(true);
    const tied = manifest.valid.find((c) => c.file === 'tied.pkl')?.tensors ?? [];
    expect(tied[0]?.storage.key).toBe(tied[1]?.storage.key);
    expect(manifest.valid.find((c) => c.file === 'optimizer.pkl')?.otherEntries).toBeGreaterThan(5);
  });

  it.each(manifest.valid.map((c) => [c.file] as const))(
    'refuses every truncation of %s',
    (file) => {
      const bytes = pickleBytes(file);
      for (let end = 0; end < bytes.length; end++) refusal(bytes.subarray(0, end));
    },
  );
});

describe('dict keys as Python compares them', () => {
  const text = (value: string) => concat([0x58, value.length, 0, 0, 0], value);
  const tensor = (key: string, numel: number) =>
    concat(
      'ctorch._utils\n_rebuild_tensor_v2\n((',
      text('storage'),
      'ctorch\nFloatStorage\n',
      text(key),
      text('cpu'),
      [0x4b, numel],
      'tQ',
      [0x4b, 0],
      [0x4b, numel, 0x85, 0x4b, 1, 0x85, 0x89],
      'ccollections\nOrderedDict\n)RtR',
    );

  it('replaces a value set again under an equal key in place', () => {
    const keys = concat(
      PROTO2,
      '}(',
      text('a'),
      tensor('0', 1),
      text('b'),
      tensor('1', 2),
      text('a'),
      tensor('2', 3),
      'u.',
    );
    expect(readTorchPickle(keys).tensors.map((t) => [t.name, t.storage.key])).toEqual([
      ['a', '2'],
      ['b', '1'],
    ]);
  });

  it('keeps keys equal and in order past the entries a small dict holds', () => {
    // 20 keys, then 3 (an int), 3.0 and True (equal to 1) again: still 20 entries, names in order.
    const int = (n: number) => [0x4b, n];
    const float = [0x47, 0x40, 0x08, 0, 0, 0, 0, 0, 0]; // 3.0
    const ints = Array.from({ length: 19 }, (_, n) => concat(int(n), 'N'));
    const keys = concat(PROTO2, '}(', ...ints, int(3), 'N', float, 'N', [0x88], 'Nu.');
    expect(readTorchPickle(keys)).toEqual({ tensors: [], otherEntries: 19 });
    const names = Array.from({ length: 12 }, (_, n) => `t${n}`);
    const tensors = names.map((name, n) => concat(text(name), tensor(String(n), 1)));
    const again = concat(text('t2'), tensor('12', 1), text('t10'), tensor('13', 1));
    const state = concat(PROTO2, '}(', ...tensors, again, 'u.');
    expect(readTorchPickle(state).tensors.map((t) => `${t.name}:${t.storage.key}`)).toEqual(
      names.map((name, n) => `${name}:${n === 2 ? 12 : n === 10 ? 13 : n}`),
    );
  });

  it('refuses a list, dict or set as a dict key, as Python does', () => {
    for (const [key, kind] of [
      [']', 'list'],
      ['}', 'dict'],
      [[0x8f], 'set'],
    ] as [string | number[], string][]) {
      expect(refusal(concat(PROTO2, '}', key, 'Ns.'))).toBe(
        `data.pkl: SETITEM at offset 5: a ${kind} is not a valid dict key (unhashable)`,
      );
    }
  });

  it('counts 1, True and 1.0 as one key, and the str 1 apart', () => {
    const one = [0x4b, 1];
    const oneFloat = [0x47, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0];
    const keys = concat(PROTO2, '}(', one, 'N', [0x88], 'N', oneFloat, 'N', text('1'), 'Nu.');
    expect(readTorchPickle(keys)).toEqual({ tensors: [], otherEntries: 2 });
  });
});

describe('hostile pickles', () => {
  it.each(manifest.hostile.map((c) => [c.file, c.message] as const))(
    '%s is refused',
    (file, message) => {
      expect(refusal(pickleBytes(file))).toContain(message);
    },
  );

  it('refuses declared lengths far beyond the input without allocating them', () => {
    const before = process.memoryUsage().arrayBuffers;
    const huge = [
      concat(PROTO2, [0x58, 0, 0, 0, 0x40], repeat('abc', 300), '.'),
      concat([0x80, 4, 0x8d], [0, 0, 0, 0, 0, 0, 0, 0x80], 'abc.'),
      concat([0x80, 4, 0x8e], [0, 0, 0, 0, 0, 1, 0, 0], 'abc.'),
      concat([0x80, 4, 0x96], [0, 0, 0, 0x40, 0, 0, 0, 0], 'abc.'),
      concat(PROTO2, [0x42, 0xff, 0xff, 0xff, 0xff], 'abc.'),
      concat(PROTO2, [0x54, 0xff, 0xff, 0xff, 0x7f], 'abc.'),
    ];
    for (const bytes of huge)
      expect(refusal(bytes)).toMatch(/at offset 2 declares \d+ bytes, only \d+ remain$/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 2 ** 20);
  });

  it('keeps memo indices as keys: a LONG_BINPUT of 2^31 and a million distinct ones', () => {
    const top = concat(PROTO2, '}', [0x72, 0, 0, 0, 0x80], [0x6a, 0, 0, 0, 0x80], '0.');
    expect(readTorchPickle(top)).toEqual({ tensors: [], otherEntries: 0 });
    const puts = new Uint8Array(5 * MILLION);
    for (let i = 0; i < MILLION; i++)
      puts.set([0x72, i & 0xff, (i >> 8) & 0xff, i >> 16, 0], 5 * i);
    expect(readTorchPickle(concat(PROTO2, '}', puts, '.'))).toEqual({
      tensors: [],
      otherEntries: 0,
    });
  });

  it('caps the objects a pickle makes', () => {
    const dicts = (n: number) => concat(PROTO2, ']', '(', repeat('}', n), 'e.');
    // The list and the MARK are objects too: the 999th dict, at offset 4 + 998, is the 1001st.
    expect(runPickle(dicts(998), 1000)).toMatchObject({ kind: 'list' });
    const error = expectError(() => runPickle(dicts(999), 1000));
    expect(error.message).toBe('data.pkl: EMPTY_DICT at offset 1002: makes more than 1000 objects');
  });

  it('keeps memo values put out of order, and MEMOIZE numbers the next after them', () => {
    const put = (index: number) => [0x72, index, 0, 0, 0]; // LONG_BINPUT
    const text = (value: string) => concat([0x58, value.length, 0, 0, 0], value);
    const memo = concat(
      PROTO2,
      text('a'),
      put(2),
      '0',
      text('b'),
      put(1),
      '0',
      text('c'),
      [0x71, 0], // BINPUT 0
      '0',
      text('d'),
      [0x94], // MEMOIZE: index 3
      '0',
      text('e'),
      put(1), // replaces 'b': no entry more
      '0',
      text('f'),
      [0x94], // MEMOIZE: index 4
      '0(',
      ...[0, 1, 2, 3, 4].map((k) => [0x68, k]), // BINGET
      't.',
    );
    expect(runPickle(memo)).toEqual({ kind: 'tuple', items: ['c', 'e', 'a', 'd', 'f'] });
  });

  it('caps the values the stack holds, and counts memo and dict entries as objects', () => {
    const nones = (n: number) => concat(PROTO2, repeat('N', n), '.');
    expect(refusal(nones(1001), 1000)).toBe(
      'data.pkl: NONE at offset 1002: holds more than 1000 values at once',
    );
    expect(refusal(concat(PROTO2, '}', repeat(Uint8Array.of(0x94), 1000), '.'), 1000)).toBe(
      'data.pkl: MEMOIZE at offset 1002: makes more than 1000 objects',
    );
    // A BINPUT again at an index in use replaces it: no object more.
    expect(runPickle(concat(PROTO2, '}', repeat(Uint8Array.of(0x71, 7), 5000), '.'), 10)).toEqual({
      kind: 'dict',
      entries: null,
    });
    // A SETITEM per key (BININT2 k, None): the dict is one object, and each new key one more.
    const entries = (n: number) =>
      concat(
        PROTO2,
        '}',
        ...Array.from({ length: n }, (_, k) => [0x4d, k & 0xff, k >> 8, 0x4e, 0x73]),
        '.',
      );
    expect(runPickle(entries(999), 1000)).toMatchObject({ kind: 'dict' });
    expect(refusal(entries(1000), 1000)).toBe(
      'data.pkl: SETITEM at offset 5002: makes more than 1000 objects',
    );
  });

  it('hashes a long key shared through the memo once, however often it is set', {
    timeout: 60_000,
  }, () => {
    const key = concat([0x58], [0, 0, 0x10, 0], repeat('k', 2 ** 20), [0x71, 0]); // BINUNICODE, BINPUT 0
    const sets = repeat(concat([0x68, 0], [0x4b, 1], 's'), 200_000); // BINGET 0, BININT1 1, SETITEM
    expect(readTorchPickle(concat(PROTO2, '}', key, '0', sets, '.'))).toEqual({
      tensors: [],
      otherEntries: 1,
    });
  });

  it('refuses dicts nested a million deep with one line, without recursing', () => {
    const key = [0x58, 1, 0, 0, 0, 0x61]; // BINUNICODE 'a'
    const dicts = concat(PROTO2, '}', repeat(concat(key, '}'), MILLION), repeat('s', MILLION), '.');
    expect(refusal(dicts)).toMatch(/^data\.pkl: dicts nest deeper than 64 levels under 'a\.a\.a/);
  });

  it('reads tuples nested a million deep as one other entry', () => {
    const tuples = concat(PROTO2, repeat('(', MILLION), ')', repeat('t', MILLION), '.');
    expect(readTorchPickle(tuples)).toEqual({ tensors: [], otherEntries: 1 });
  });

  it('reads lists nested a million deep as one other entry', () => {
    const lists = concat(PROTO2, repeat(']', MILLION), repeat('a', MILLION - 1), '.');
    expect(readTorchPickle(lists)).toEqual({ tensors: [], otherEntries: 1 });
  });

  it('refuses a million open MARKs at STOP', () => {
    expect(refusal(concat(PROTO2, repeat('(', MILLION), '}.'))).toContain(`${MILLION} open MARKs`);
  });
});

describe('arbitrary bytes', () => {
  const seeds = manifest.valid.map((c) => pickleBytes(c.file));

  it('never throw anything but a TensorOpsError, and always end', () => {
    const anyBytes = fc.oneof(
      fc.uint8Array({ maxLength: 512 }),
      fc.uint8Array({ maxLength: 512 }).map((tail) => concat(PROTO2, tail)),
      fc
        .record({
          seed: fc.nat(seeds.length - 1),
          edits: fc.array(fc.record({ at: fc.nat(), byte: fc.nat(255) }), {
            minLength: 1,
            maxLength: 6,
          }),
        })
        .map(({ seed, edits }) => {
          const out = (seeds[seed] as Uint8Array).slice();
          for (const { at, byte } of edits) out[at % out.length] = byte;
          return out;
        }),
    );
    fc.assert(
      fc.property(anyBytes, (bytes) => {
        try {
          readTorchPickle(bytes);
        } catch (error) {
          if (!isTensorOpsError(error) || error.code !== 'E_FORMAT') throw error;
        }
      }),
      { numRuns: 3000 },
    );
  });
});
