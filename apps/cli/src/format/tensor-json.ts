import type { Tensor } from '@tensorops/core';
import { type ElementValue, elementReader, formatFloat } from './elements.js';

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

function jsonNumber(x: number, dtype: Tensor['dtype']): string {
  if (!dtype.startsWith('float') && !dtype.startsWith('bfloat') && !dtype.startsWith('complex')) {
    return String(x);
  }
  if (!Number.isFinite(x)) return `"${formatFloat(x, dtype)}"`;
  return formatFloat(x, dtype);
}
