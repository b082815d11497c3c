import { bfloat16ToNumber, dtypeSize, float16ToNumber, type Tensor } from '@tensorops/core';
import { RefusedElement } from './refused-element.js';

/** An element as a JS value: number, bigint (64-bit ints), string, or [re, im] for complex. */
export type ElementValue = number | bigint | string | boolean | [number, number];

export type ElementReader = (index: number) => ElementValue;

/**
 * How U strings are read. `display`: a code unit beyond U+10FFFF, which no string holds, reads as
 * U+FFFD. `exact` (text files): such a unit, and a high then a low surrogate held as two code units
 * (which every text form reads back as the one character they pair into), throw RefusedElement.
 */
export type StringReading = 'display' | 'exact';

/** Reads elements of `t` for display and text output; never used on the data path. */
export function elementReader(t: Tensor, strings: StringReading = 'display'): ElementReader {
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const size = dtypeSize(t.dtype);
  switch (t.dtype) {
    case 'bool':
      return (i) => view.getUint8(i) !== 0;
    case 'int8':
      return (i) => view.getInt8(i);
    case 'uint8':
      return (i) => view.getUint8(i);
    case 'int16':
      return (i) => view.getInt16(i * 2, true);
    case 'uint16':
      return (i) => view.getUint16(i * 2, true);
    case 'int32':
      return (i) => view.getInt32(i * 4, true);
    case 'uint32':
      return (i) => view.getUint32(i * 4, true);
    case 'int64':
      return (i) => view.getBigInt64(i * 8, true);
    case 'uint64':
      return (i) => view.getBigUint64(i * 8, true);
    case 'float16':
      return (i) => float16ToNumber(view.getUint16(i * 2, true));
    case 'bfloat16':
      return (i) => bfloat16ToNumber(view.getUint16(i * 2, true));
    case 'float32':
      return (i) => view.getFloat32(i * 4, true);
    case 'float64':
      return (i) => view.getFloat64(i * 8, true);
    case 'complex64':
      return (i) => [view.getFloat32(i * 8, true), view.getFloat32(i * 8 + 4, true)];
    case 'complex128':
      return (i) => [view.getFloat64(i * 16, true), view.getFloat64(i * 16 + 8, true)];
    default:
      if (t.dtype[0] === 'U') {
        const exact = strings === 'exact';
        return (i) => decodeUcs4(t.data.subarray(i * size, (i + 1) * size), exact);
      }
      if (t.dtype[0] === 'S') return (i) => decodeBytes(t.data.subarray(i * size, (i + 1) * size));
      // float8: its code byte (the view labels it raw bits; tensor-json decodes it).
      return (i) => view.getUint8(i);
  }
}

// numpy strips trailing NULs from fixed-width strings, and only those: a NUL followed by anything
// else is part of the string.

/** The code units of a U element, up to its last non-zero one. */
function decodeUcs4(bytes: Uint8Array, exact: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.byteLength;
  while (end > 0 && view.getUint32(end - 4, true) === 0) end -= 4;
  let out = '';
  let previous = 0;
  for (let o = 0; o < end; o += 4) {
    const unit = view.getUint32(o, true);
    if (unit > 0x10ffff) {
      if (exact) {
        throw new RefusedElement(
          `holds the code unit 0x${unit.toString(16)}, beyond Unicode, which no text holds; write .npy`,
        );
      }
      out += '\ufffd';
    } else {
      if (exact && isHighSurrogate(previous) && isLowSurrogate(unit)) {
        throw new RefusedElement(
          `holds the surrogates ${codePoint(previous)} ${codePoint(unit)} as two code units, which text reads back as one character; write .npy`,
        );
      }
      out += String.fromCodePoint(unit);
    }
    previous = unit;
  }
  return out;
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** U+XXXX, as Unicode names a code point. */
export function codePoint(unit: number): string {
  return `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The bytes of an S element up to its last non-zero one, each as the character of its code. */
function decodeBytes(bytes: Uint8Array): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  let out = '';
  for (let i = 0; i < end; i++) out += String.fromCharCode(bytes[i] as number);
  return out;
}
