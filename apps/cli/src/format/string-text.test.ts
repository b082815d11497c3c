import { createTensor, type Shape, type Tensor } from '@tensorops/core';
import { streamOfTensor } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { type Delimiter, delimitedChunks } from './delimited-text.js';
import { tensorJson, tensorJsonChunks } from './tensor-json.js';

// Strings in the text forms: every code unit kept, or the element refused by position.

/** A U tensor of `width` code units per element, each element given as its code units. */
function unicode(width: number, shape: Shape, items: readonly (readonly number[])[]): Tensor {
  const units = new Uint32Array(items.length * width);
  items.forEach((item, i) => {
    units.set(item, i * width);
  });
  return createTensor(`U${width}`, shape, new Uint8Array(units.buffer));
}

const units = (s: string): number[] => Array.from(s, (c) => c.codePointAt(0) as number);

/** A U tensor of strings (each code point one code unit), `width` the longest. */
function strings(shape: Shape, items: readonly string[]): Tensor {
  const width = Math.max(1, ...items.map((s) => units(s).length));
  return unicode(width, shape, items.map(units));
}

/** An S tensor of byte strings. */
function bytes(width: number, items: readonly (readonly number[])[]): Tensor {
  const data = new Uint8Array(items.length * width);
  items.forEach((item, i) => {
    data.set(item, i * width);
  });
  return createTensor(`S${width}`, [items.length], data);
}

async function delimited(t: Tensor, delimiter: Delimiter = ','): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of delimitedChunks(streamOfTensor(t), { delimiter, header: false }))
    parts.push(chunk.slice());
  return Buffer.concat(parts);
}

const csv = async (t: Tensor, delimiter: Delimiter = ','): Promise<string> =>
  new TextDecoder('utf-8', { fatal: true }).decode(await delimited(t, delimiter));

const data = async (t: Tensor): Promise<unknown> => JSON.parse(await tensorJson(t)).data;

describe('strings in --json', () => {
  it('keeps a NUL inside a string and strips only the trailing ones, as numpy does', async () => {
    const t = unicode(4, [3], [units('a\0b'), units('\0c'), [0x64, 0, 0, 0]]);
    expect(await tensorJson(t)).toBe(
      '{"dtype":"U4","shape":[3],"data":["a\\u0000b","\\u0000c","d"]}\n',
    );
    expect(
      await data(
        bytes(3, [
          [0x61, 0, 0x62],
          [0, 0x63, 0],
        ]),
      ),
    ).toEqual(['a\0b', '\0c']);
  });

  it('escapes a lone surrogate, so the document reads back to the same code units', async () => {
    const t = unicode(2, [3], [[0xd800], [0xdc00, 0x61], [0x1f600]]);
    expect(await tensorJson(t)).toBe(
      '{"dtype":"U2","shape":[3],"data":["\\ud800","\\udc00a","\u{1f600}"]}\n',
    );
  });

  it('refuses a code unit beyond U+10FFFF, and a surrogate pair held as two code units', async () => {
    await expect(
      tensorJson(unicode(1, [2, 2], [[0x61], [0x62], [0x63], [0x110000]])),
    ).rejects.toThrow(
      'the string at [1,1] holds the code unit 0x110000, beyond Unicode, which no text holds; write .npy',
    );
    await expect(tensorJson(unicode(2, [], [[0xd83d, 0xde00]]))).rejects.toThrow(
      'the string holds the surrogates U+D83D U+DE00 as two code units, which text reads back as one character; write .npy',
    );
  });
});

describe('a refused element', () => {
  it('in the first block leaves no output: the head goes out with the first elements', async () => {
    const yielded: Uint8Array[] = [];
    const t = unicode(1, [2], [[0x61], [0x110000]]);
    const read = async (): Promise<void> => {
      for await (const chunk of tensorJsonChunks(streamOfTensor(t))) yielded.push(chunk);
    };
    await expect(read()).rejects.toThrow('the string at [1] holds the code unit 0x110000');
    expect(yielded).toEqual([]);
    const header = delimitedChunks(streamOfTensor(strings([1], ['#'])), {
      delimiter: ',',
      header: true,
    });
    const first = (header as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]().next();
    await expect(first).rejects.toThrow("the string at [0] holds '#'");
  });
});

describe('strings in CSV / TSV', () => {
  it('writes quotes, blanks, controls and non-ASCII as they are', async () => {
    const t = strings([6], ['"a"', " 'b' ", '\t', 'x\u2028\x85y', '\ufeff\x0b', '\u{1f600}é']);
    expect(await csv(t)).toBe('"a"\n \'b\' \n\t\nx\u2028\x85y\n\ufeff\x0b\n\u{1f600}é\n');
  });

  it('writes an S byte as the character of its code (loadtxt reads S cells back as Latin-1)', async () => {
    expect(
      await delimited(
        bytes(2, [
          [0xff, 0xfe],
          [0x80, 0x20],
        ]),
      ),
    ).toEqual(Buffer.from([0xc3, 0xbf, 0xc3, 0xbe, 0x0a, 0xc2, 0x80, 0x20, 0x0a]));
  });

  it('writes an empty string that shares its line; refuses one alone on its line', async () => {
    expect(await csv(strings([2, 2], ['', '', 'a', '']))).toBe(',\na,\n');
    await expect(csv(strings([3], ['a', '', 'b']))).rejects.toThrow(
      'the string at [1] is empty and alone on its line, which numpy.loadtxt skips; write .json or .npy',
    );
    await expect(csv(strings([2, 1], ['a', '']), '\t')).rejects.toThrow(
      'the string at [1,0] is empty',
    );
    await expect(csv(strings([], ['']))).rejects.toThrow('the string is empty');
  });

  it.each([
    ['a comma in CSV', ',', ['ok', 'b,c'], '[0,1]', 'holds a comma, which would split its cell'],
    ['a tab in TSV', '\t', ['ok', 'b\tc'], '[0,1]', 'holds a tab, which would split its cell'],
    [
      'a line feed',
      ',',
      ['ok', 'ok', 'b\nc'],
      '[1,0]',
      'holds a line break, which would end its row',
    ],
    ['a carriage return', '\t', ['b\r'], '[0,0]', 'holds a line break, which would end its row'],
    [
      '#',
      ',',
      ['ok', 'ok', 'ok', 'a#b'],
      '[1,1]',
      "holds '#', where numpy.loadtxt starts a comment",
    ],
    [
      'a NUL',
      '\t',
      ['a\0b'],
      '[0,0]',
      'holds a NUL, which would make the file binary to text tools',
    ],
    [
      'a lone surrogate',
      ',',
      ['ok', '\udfff'],
      '[0,1]',
      'holds the lone surrogate U+DFFF, which UTF-8 cannot encode',
    ],
  ] as const)('refuses %s, naming the element', async (_, delimiter, items, at, reason) => {
    const t = strings([2, 2], [...items, ...Array(4 - items.length).fill('z')]);
    await expect(csv(t, delimiter)).rejects.toThrow(
      `the string at ${at} ${reason}; write .json or .npy`,
    );
  });

  it('writes the other delimiter as it is', async () => {
    expect(await csv(strings([1, 2], ['a,b', 'c']), '\t')).toBe('a,b\tc\n');
    expect(await csv(strings([1, 2], ['a\tb', 'c']), ',')).toBe('a\tb,c\n');
  });

  it('refuses a code unit beyond U+10FFFF', async () => {
    await expect(csv(unicode(1, [2], [[0x61], [0xffffffff]]))).rejects.toThrow(
      'the string at [1] holds the code unit 0xffffffff, beyond Unicode, which no text holds; write .npy',
    );
  });

  it('names the position past the first block of elements', async () => {
    const items = Array(40_000).fill('x');
    items[33_333] = 'x#';
    await expect(csv(strings([20_000, 2], items))).rejects.toThrow(
      "the string at [16666,1] holds '#'",
    );
  });
});
