import { bfloat16ToNumber, dtypeSize, float16ToNumber, type Tensor } from '@tensorops/core';

/** An element as a JS value: number, bigint (64-bit ints), string, or [re, im] for complex. */
export type ElementValue = number | bigint | string | boolean | [number, number];

export type ElementReader = (index: number) => ElementValue;

/** Reads elements of `t` for display; never used on the data path. */
export function elementReader(t: Tensor): ElementReader {
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
      if (t.dtype[0] === 'U') return (i) => decodeUtf32(t.data.subarray(i * size, (i + 1) * size));
      if (t.dtype[0] === 'S') return (i) => decodeBytes(t.data.subarray(i * size, (i + 1) * size));
      // float8: its code byte (the view labels it raw bits; tensor-json decodes it).
      return (i) => view.getUint8(i);
  }
}

/** numpy strips trailing NULs from fixed-width strings. */
function decodeUtf32(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = '';
  for (let o = 0; o < bytes.byteLength; o += 4) {
    const cp = view.getUint32(o, true);
    if (cp === 0) break;
    out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
  }
  return out;
}

function decodeBytes(bytes: Uint8Array): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  let out = '';
  for (let i = 0; i < end; i++) out += String.fromCharCode(bytes[i] as number);
  return out;
}
