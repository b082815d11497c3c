import { isTensorOpsError, type Tensor } from '@tensorops/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIndexText } from '../src/index.js';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

function values(t: Tensor): bigint[] {
  return [...new BigInt64Array(t.data.buffer, t.data.byteOffset, t.data.byteLength / 8)];
}

function parsed(text: string): { shape: readonly number[]; values: bigint[] } {
  const t = parseIndexText(text, 'ids.txt');
  expect(t.dtype).toBe('int64');
  return { shape: t.shape, values: values(t) };
}

function failure(text: string): string {
  try {
    parseIndexText(text, 'ids.txt');
  } catch (error) {
    if (isTensorOpsError(error) && error.code === 'E_FORMAT') return error.message;
    throw error;
  }
  throw new Error(`parsed: ${JSON.stringify(text)}`);
}

const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
/** Mostly small ids, sometimes anything an int64 holds. */
const id = fc.oneof(fc.integer({ min: -1000, max: 1_000_000 }).map(BigInt), int64);

describe('parseIndexText: rows of integers', () => {
  it("shapes are numpy.loadtxt's: one line or one per line is 1-D, k per line [lines, k]", () => {
    expect(parsed('3\n1\n4\n')).toEqual({ shape: [3], values: [3n, 1n, 4n] });
    expect(parsed('0,1\n2, 3\n4\t5\n')).toEqual({
      shape: [3, 2],
      values: [0n, 1n, 2n, 3n, 4n, 5n],
    });
    expect(parsed('7 8 9')).toEqual({ shape: [3], values: [7n, 8n, 9n] });
    expect(parsed('3,1,4\n\n')).toEqual({ shape: [3], values: [3n, 1n, 4n] });
  });

  it('a lone value is a scalar (shape []), as numpy.loadtxt reads it', () => {
    expect(parsed('-5')).toEqual({ shape: [], values: [-5n] });
    expect(parsed(' 3 \n\n')).toEqual({ shape: [], values: [3n] });
  });

  it('values are exact int64: 2^53+1 stays itself, both ends of the range parse', () => {
    expect(parsed('9007199254740993\n-9007199254740993\n').values).toEqual([
      9007199254740993n,
      -9007199254740993n,
    ]);
    expect(parsed(`${INT64_MIN}\n${INT64_MAX}\n+1\n-0\n007\n`).values).toEqual([
      INT64_MIN,
      INT64_MAX,
      1n,
      0n,
      7n,
    ]);
  });

  it('trailing blank lines, CRLF, a BOM and blanks around values are fine', () => {
    expect(parsed('\ufeff 1 , 2 \r\n3,4\r\n\r\n  \n\n')).toEqual({
      shape: [2, 2],
      values: [1n, 2n, 3n, 4n],
    });
  });

  it('a line ends at \\n, \\r\\n or a lone \\r, in values and in error positions alike', () => {
    expect(parsed('1\r2\r3')).toEqual({ shape: [3], values: [1n, 2n, 3n] });
    expect(parsed('1,2\r3 4\r\n5\t6\n7,8\r')).toEqual({
      shape: [4, 2],
      values: [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n],
    });
    expect(parsed('1\r\r\n\r')).toEqual({ shape: [], values: [1n] });
    expect(failure('1\r2\rx')).toBe("ids.txt: line 3, column 1: 'x' is not an integer");
    expect(failure('1\r\n2\r3 x')).toBe("ids.txt: line 3, column 3: 'x' is not an integer");
    expect(failure('1 2\r3')).toBe(
      'ids.txt: line 2, column 1: this line has 1 values, the first line 2',
    );
    // Two line ends, not one: \r then \r\n leave a blank line between the values.
    expect(failure('1\r\r\n2')).toBe('ids.txt: line 2, column 1: blank line before more values');
    expect(failure('[1,\r2,\rx]')).toBe("ids.txt: line 3, column 1: 'x' is not an integer");
  });

  it('only a string or a Uint8Array is text: any other input is refused, not read as bytes', () => {
    expect(values(parseIndexText(Buffer.from('1\n2\n'), 'ids.txt'))).toEqual([1n, 2n]);
    const refusals: [unknown, string][] = [
      [5, 'a number'],
      [null, 'null'],
      [undefined, 'undefined'],
      [[0x31], 'Array'],
      [new Uint16Array([0x31, 0x0a, 0x32]), 'Uint16Array'],
      [new Uint8ClampedArray([0x31]), 'Uint8ClampedArray'],
      [new DataView(new ArrayBuffer(1)), 'DataView'],
      [Object.create(null), 'an object'],
    ];
    for (const [input, got] of refusals) {
      let thrown: unknown;
      try {
        parseIndexText(input as string, 'ids.txt');
      } catch (error) {
        thrown = error;
      }
      expect(isTensorOpsError(thrown) && thrown.code).toBe('E_DTYPE');
      expect((thrown as Error).message).toBe(
        `index text must be a string or a Uint8Array of UTF-8 bytes, got ${got}`,
      );
    }
  });

  it('errors far into a long line name the exact column and quote a bounded prefix', () => {
    const values = 500_000;
    expect(failure(`${'7,'.repeat(values)}x`)).toBe(
      `ids.txt: line 1, column ${2 * values + 1}: 'x' is not an integer`,
    );
    expect(failure(`1\n\ufeff${' '.repeat(values)}2`)).toBe(
      "ids.txt: line 2, column 1: '\\ufeff' is not an integer",
    );
    expect(failure('\ufeffx')).toBe("ids.txt: line 1, column 1: 'x' is not an integer");
    expect(failure(`\ufeff1 ${'ü'.repeat(3)}`)).toBe(
      "ids.txt: line 1, column 3: '\\xfc\\xfc\\xfc' is not an integer",
    );
    const cut = (c: string) => `'${c.repeat(48)}...'`;
    expect(failure(`1 ${'x'.repeat(1 << 20)}`)).toBe(
      `ids.txt: line 1, column 3: ${cut('x')} is not an integer`,
    );
    expect(failure('9'.repeat(1 << 20))).toBe(
      `ids.txt: line 1, column 1: ${cut('9')} is beyond int64`,
    );
    expect(failure(`[${'1'.repeat(1 << 20)}]`)).toBe(
      `ids.txt: line 1, column 2: ${cut('1')} is beyond int64`,
    );
  });

  it('leading zeros do not count towards int64 digits', () => {
    const zeros = '0'.repeat(1 << 20);
    expect(parsed(`${zeros}5\n-${zeros}${-INT64_MIN}\n${zeros}\n`).values).toEqual([
      5n,
      INT64_MIN,
      0n,
    ]);
    expect(failure(`1\n-${zeros}9223372036854775809`)).toBe(
      `ids.txt: line 2, column 1: '-${'0'.repeat(47)}...' is beyond int64`,
    );
    expect(failure(`00${INT64_MAX + 1n}`)).toBe(
      `ids.txt: line 1, column 1: '00${INT64_MAX + 1n}' is beyond int64`,
    );
  });

  it('bad text is one error naming the line and column', () => {
    expect(failure('1\n2\n3.5\n')).toBe("ids.txt: line 3, column 1: '3.5' is not an integer");
    expect(failure('1, two\n')).toBe("ids.txt: line 1, column 4: 'two' is not an integer");
    expect(failure('1,2\n3\n')).toBe(
      'ids.txt: line 2, column 1: this line has 1 values, the first line 2',
    );
    expect(failure('9223372036854775808')).toBe(
      "ids.txt: line 1, column 1: '9223372036854775808' is beyond int64",
    );
    expect(failure('1\n-9223372036854775809')).toBe(
      "ids.txt: line 2, column 1: '-9223372036854775809' is beyond int64",
    );
    expect(failure('')).toBe('ids.txt: line 1, column 1: no indices: the input is empty');
    expect(failure('\n \n')).toBe('ids.txt: line 3, column 1: no indices: the input is empty');
    expect(failure('1\n\n2\n')).toBe('ids.txt: line 2, column 1: blank line before more values');
    expect(failure('1,\n')).toBe('ids.txt: line 1, column 3: expected a value after the comma');
    expect(failure('1,,2\n')).toBe('ids.txt: line 1, column 3: expected a value after the comma');
    expect(failure(',1\n')).toBe("ids.txt: line 1, column 1: expected a value before ','");
    expect(failure('1e3')).toBe("ids.txt: line 1, column 1: '1e3' is not an integer");
    expect(failure('0x10')).toBe("ids.txt: line 1, column 1: '0x10' is not an integer");
    expect(failure('ü 1')).toBe("ids.txt: line 1, column 1: '\\xfc' is not an integer");
    expect(failure('1 ü')).toBe("ids.txt: line 1, column 3: '\\xfc' is not an integer");
  });

  it('round-trips any int64 matrix written with any separators', () => {
    const separator = fc.constantFrom(',', ' ', ', ', '\t', ' , ', '  ');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.array(id, { minLength: 5, maxLength: 5 }), { minLength: 1, maxLength: 20 }),
        separator,
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.integer({ min: 0, max: 3 }),
        (width, rows, sep, eol, blankTail) => {
          const cut = rows.map((r) => r.slice(0, width));
          const text = cut.map((r) => r.join(sep)).join(eol) + eol.repeat(blankTail);
          const t = parsed(text);
          expect(t.shape).toEqual([cut.length, width].filter((n) => n !== 1));
          expect(t.values).toEqual(cut.flat());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseIndexText: JSON arrays', () => {
  it('nested rectangular arrays give their shape', () => {
    expect(parsed('[3, 1, 4]')).toEqual({ shape: [3], values: [3n, 1n, 4n] });
    expect(parsed(' [[1,2],\n [3,4],\n [5,6]]\n')).toEqual({
      shape: [3, 2],
      values: [1n, 2n, 3n, 4n, 5n, 6n],
    });
    expect(parsed('[[[9007199254740993]]]')).toEqual({
      shape: [1, 1, 1],
      values: [9007199254740993n],
    });
    expect(parsed('[]')).toEqual({ shape: [0], values: [] });
    expect(parsed('[[], []]')).toEqual({ shape: [2, 0], values: [] });
  });

  it('anything but a rectangular array of integers is an error with line and column', () => {
    expect(failure('[1, 2.5]')).toBe("ids.txt: line 1, column 5: '2.5' is not an integer");
    expect(failure('[[1, 2],\n [3]]')).toBe(
      'ids.txt: line 2, column 4: ragged array: 1 items here, 2 in an earlier one',
    );
    expect(failure('[1, [2]]')).toBe(
      'ids.txt: line 1, column 5: expected an integer, not an array',
    );
    expect(failure('[[1], 2]')).toBe(
      'ids.txt: line 1, column 7: expected an array, not an integer',
    );
    expect(failure('[1, 2')).toBe("ids.txt: line 1, column 6: expected ']'");
    expect(failure('[1 2]')).toBe("ids.txt: line 1, column 4: expected ',' or ']'");
    expect(failure('[1,]')).toBe("ids.txt: line 1, column 4: expected a value after ','");
    expect(failure('[1] [2]')).toBe(
      'ids.txt: line 1, column 5: unexpected text after the JSON array',
    );
    expect(failure('["1"]')).toBe('ids.txt: line 1, column 2: \'"1"\' is not an integer');
    expect(failure('[+1]')).toBe("ids.txt: line 1, column 2: '+1' is not an integer");
    expect(failure('[18446744073709551615]')).toBe(
      "ids.txt: line 1, column 2: '18446744073709551615' is beyond int64",
    );
  });

  it("arrays nest at most 64 deep, numpy's limit on dimensions, however many the input opens", () => {
    const nested = (depth: number) => `${'['.repeat(depth)}7${']'.repeat(depth)}`;
    expect(parsed(nested(64))).toEqual({ shape: Array(64).fill(1), values: [7n] });
    expect(failure(nested(65))).toBe(
      'ids.txt: line 1, column 65: arrays nested deeper than 64 levels',
    );
    expect(failure(` \n${'['.repeat(1 << 20)}`)).toBe(
      'ids.txt: line 2, column 65: arrays nested deeper than 64 levels',
    );
  });

  it('round-trips any rectangular int64 array of rank 1 to 3', () => {
    const shaped = fc
      .array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 })
      // Text holds no dims below an empty one ([0, 3] reads as []): only the last may be 0.
      .filter((shape) => shape.slice(0, -1).every((d) => d > 0))
      .chain((shape) =>
        fc
          .array(id, {
            minLength: shape.reduce((a, b) => a * b, 1),
            maxLength: shape.reduce((a, b) => a * b, 1),
          })
          .map((flat) => ({ shape, flat })),
      );
    const nest = (shape: number[], flat: bigint[], at: number): string => {
      if (shape.length === 0) return String(flat[at]);
      const [n, ...rest] = shape as [number, ...number[]];
      const step = rest.reduce((a, b) => a * b, 1);
      return `[${Array.from({ length: n }, (_, i) => nest(rest, flat, at + i * step)).join(', ')}]`;
    };
    fc.assert(
      fc.property(shaped, ({ shape, flat }) => {
        expect(parsed(nest(shape, flat, 0))).toEqual({ shape, values: flat });
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseIndexText: any input', () => {
  it('parses or fails with one E_FORMAT line naming a line and column, never anything else', () => {
    const alphabet = fc.constantFrom(...'0123456789-+, \t\n\r[]e.x'.split(''), 'ü');
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 40 }).map((cs) => cs.join('')),
        (text) => {
          try {
            const t = parseIndexText(text, 'ids.txt');
            expect(t.dtype).toBe('int64');
            expect(values(t)).toHaveLength(t.shape.reduce((a, b) => a * b, 1));
          } catch (error) {
            expect(isTensorOpsError(error) && error.code).toBe('E_FORMAT');
            expect((error as Error).message).toMatch(/^ids\.txt: line \d+, column \d+: [^\n]+$/);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
