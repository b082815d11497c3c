import { dtypeSize, formatShape, shapeSize, type Tensor } from '@tensorops/core';
import { type ElementValue, elementReader, formatFloat } from './elements.js';

/** Human-readable byte count: 1.5 KiB, 12 MiB. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** numpy-style display of one element. */
export function displayElement(v: ElementValue, dtype: Tensor['dtype']): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return `'${v}'`;
  if (Array.isArray(v))
    return `${formatFloat(v[0], dtype)}${v[1] < 0 || Object.is(v[1], -0) ? '-' : '+'}${formatFloat(Math.abs(v[1]), dtype)}j`;
  if (dtype.startsWith('float') || dtype === 'bfloat16') return formatFloat(v, dtype);
  return String(v);
}

/** The first and last `edge` elements of a flat view, numpy-style: `[1.0, 2.0, ..., 9.0]`. */
export function previewValues(t: Tensor, edge = 3): string {
  const n = shapeSize(t.shape);
  const read = elementReader(t);
  const show = (i: number): string => displayElement(read(i), t.dtype);
  if (n <= edge * 2) return `[${Array.from({ length: n }, (_, i) => show(i)).join(', ')}]`;
  const head = Array.from({ length: edge }, (_, i) => show(i));
  const tail = Array.from({ length: edge }, (_, i) => show(n - edge + i));
  return `[${head.join(', ')}, ..., ${tail.join(', ')}]`;
}

/** The plain-text summary shown on a terminal instead of binary. */
export function tensorSummary(t: Tensor, label: string): string {
  const nbytes = shapeSize(t.shape) * dtypeSize(t.dtype);
  return `${label}: ${t.dtype} ${formatShape(t.shape)} (${formatBytes(nbytes)})\n${previewValues(t)}\n`;
}
