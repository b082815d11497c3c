import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { float16ToNumber } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { referenceReprFloat } from '../../test/shortest-digits-reference.js';
import { type FloatDtype, reprFloat } from './float-text.js';

// reprFloat and the reference search against numpy itself: the golden text that
// scripts/fixtures/float_text.py had numpy's str() write (every float16, float32 powers of two
// with their neighbours and the float8 values, and a seeded sample of float32 patterns known by
// the fingerprints of their text). bfloat16 has no numpy golden: numpy has no such type, and
// ml_dtypes prints it through C++ streams, six significant digits, not numpy's rules; its
// digits are the reference search's, the rules these goldens prove, applied to its format.

const GOLDEN = new URL('../../../../fixtures/float-text/', import.meta.url);

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function float32Of(bits: number): number {
  u32[0] = bits;
  return f32[0] as number;
}

const hex = (bits: number, width: number): string => `0x${bits.toString(16).padStart(width, '0')}`;

/** One case: the pattern, its value in the dtype, and the text numpy printed for it. */
interface Golden {
  readonly bits: number;
  readonly value: number;
  readonly text: string;
}

/** The cases `print` writes otherwise than numpy, as `bits (value): text, numpy text`. */
function differences(
  cases: readonly Golden[],
  dtype: FloatDtype,
  print: (x: number, dtype: FloatDtype) => string,
): string[] {
  const width = dtype === 'float16' ? 4 : 8;
  const out: string[] = [];
  for (const { bits, value, text } of cases) {
    const printed = print(value, dtype);
    if (printed !== text) out.push(`${hex(bits, width)} (${value}): ${printed}, numpy ${text}`);
  }
  return out;
}

/** The first few differences and how many there are, for a failure that names them. */
function summary(found: readonly string[]): { count: number; first: string[] } {
  return { count: found.length, first: found.slice(0, 5) };
}

const NONE = { count: 0, first: [] };

function lines(text: string): string[] {
  const out = text.split('\n');
  expect(out.pop()).toBe('');
  return out;
}

function float16Goldens(): Golden[] {
  const texts = lines(
    gunzipSync(readFileSync(new URL('float16.txt.gz', GOLDEN))).toString('ascii'),
  );
  expect(texts).toHaveLength(0x10000);
  return texts.map((text, bits) => ({ bits, value: float16ToNumber(bits), text }));
}

function float32Goldens(): Golden[] {
  return lines(readFileSync(new URL('float32.txt', GOLDEN), 'ascii')).map((line) => {
    const [bitsHex, text] = line.split(' ') as [string, string];
    const bits = Number.parseInt(bitsHex, 16);
    return { bits, value: float32Of(bits), text };
  });
}

/** Marsaglia's xorshift32 (13, 17, 5): the `count` states after `seed`, as the script draws them. */
function xorshift32(seed: number, count: number): number[] {
  const out: number[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.push(x);
  }
  return out;
}

/** The first two bytes of the SHA-256 of `text`, as the script fingerprints numpy's text. */
function fingerprint(text: string): number {
  return createHash('sha256').update(text, 'ascii').digest().readUInt16BE(0);
}

const SAMPLE = JSON.parse(readFileSync(new URL('manifest.json', GOLDEN), 'utf8')).float32Sample as {
  seed: number;
  count: number;
};

/** The sampled float32 patterns whose text from `print` has another fingerprint than numpy's. */
function sampleDifferences(print: (x: number, dtype: FloatDtype) => string): string[] {
  const { seed, count } = SAMPLE;
  const fingerprints = readFileSync(new URL('float32-sample.bin', GOLDEN));
  expect(fingerprints.byteLength).toBe(2 * count);
  const found: string[] = [];
  xorshift32(seed, count).forEach((bits, i) => {
    const value = float32Of(bits);
    const printed = print(value, 'float32');
    if (fingerprint(printed) !== fingerprints.readUInt16BE(2 * i)) {
      found.push(`${hex(bits, 8)} (${value}): ${printed} is not what numpy printed`);
    }
  });
  return found;
}

describe('float text equals numpy 2 str() (goldens from scripts/fixtures/float_text.py)', () => {
  const float16 = float16Goldens();
  const float32 = float32Goldens();

  it('on every float16 bit pattern', () => {
    expect(summary(differences(float16, 'float16', reprFloat))).toEqual(NONE);
  });

  it('on float32 powers of two, their neighbours and the float8 values', () => {
    expect(float32.length).toBeGreaterThan(1500);
    expect(summary(differences(float32, 'float32', reprFloat))).toEqual(NONE);
  });

  it('on a seeded sample of float32 bit patterns, by the fingerprints of their text', () => {
    expect(summary(sampleDifferences(reprFloat))).toEqual(NONE);
    // The fingerprints tell texts apart: every text with one more digit is caught but a few.
    const longer = sampleDifferences((x, dtype) => `${reprFloat(x, dtype)}1`);
    expect(longer.length).toBeGreaterThan(0.99 * SAMPLE.count);
  });

  it('the reference search, on every golden', () => {
    expect(summary(differences(float16, 'float16', referenceReprFloat))).toEqual(NONE);
    expect(summary(differences(float32, 'float32', referenceReprFloat))).toEqual(NONE);
    expect(summary(sampleDifferences(referenceReprFloat))).toEqual(NONE);
  });
});
