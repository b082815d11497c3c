import { float8ToNumber, isFloat8Dtype, type Tensor } from '@tensorops/core';
import { type ElementValue, elementReader } from './elements.js';
import { type FloatDtype, isFloatDtype, reprFloat } from './float-text.js';

/**
 * The `--json` document of a tensor: {"dtype", "shape", "data"} with data nested like the shape.
 * 64-bit integers are written as exact number literals (JSON allows any length); NaN and
 * infinities, which JSON lacks, as the strings "nan", "inf", "-inf".
 */
export function tensorJson(t: Tensor): string {
  const read = elementReader(t);
  const parts: string[] = [];
  let next = 0;
  const element = (): string => jsonElement(read(next++), t.dtype);
  const nest = (dim: number): void => {
    if (dim === t.shape.length) {
      parts.push(element());
      return;
    }
    parts.push('[');
    const n = t.shape[dim] as number;
    for (let i = 0; i < n; i++) {
      if (i > 0) parts.push(',');
      nest(dim + 1);
    }
    parts.push(']');
  };
  nest(0);
  return `{"dtype":${JSON.stringify(t.dtype)},"shape":${JSON.stringify(t.shape)},"data":${parts.join('')}}\n`;
}

function jsonElement(v: ElementValue, dtype: Tensor['dtype']): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${jsonNumber(v[0], dtype)},${jsonNumber(v[1], dtype)}]`;
  return jsonNumber(v, dtype);
}

/** Floats as numpy prints them (shortest digits that round-trip in their own dtype). */
function jsonNumber(x: number, dtype: Tensor['dtype']): string {
  const floatDtype: FloatDtype | undefined = isFloatDtype(dtype)
    ? dtype
    : dtype === 'complex64'
      ? 'float32'
      : dtype === 'complex128'
        ? 'float64'
        : undefined;
  if (isFloat8Dtype(dtype)) return jsonFloat(float8ToNumber(dtype, x), 'float32');
  return floatDtype === undefined ? String(x) : jsonFloat(x, floatDtype);
}

function jsonFloat(x: number, dtype: FloatDtype): string {
  const text = reprFloat(x, dtype);
  return Number.isFinite(x) ? text : `"${text}"`;
}
