import type { Tensor } from '@tensorops/core';
import { type ElementValue, elementReader } from './elements.js';
import { floatFormatter, isFloatDtype, reprFloat } from './float-text.js';

export interface PreviewOptions {
  /** Elements kept at each end of a summarised dimension (numpy's edgeitems). */
  readonly edgeItems?: number;
  /** Stop after this many lines; `truncated` then tells the caller to say so. */
  readonly maxLines?: number;
}

export interface Preview {
  readonly lines: readonly string[];
  /** True when lines were cut at `maxLines`. */
  readonly truncated: boolean;
}

// Formatter widths come from the shown corners only (as numpy does); past this many corner
// elements (high-rank tensors) the first ones stand in for all, so a preview stays instant.
const FORMAT_SAMPLE = 1 << 16;

/**
 * The values of a tensor as numpy prints them with `np.array2string(a, separator=', ',
 * threshold=0, edgeitems=3)` and no line wrapping: nested brackets by shape, a dimension longer than
 * 2 x edgeItems summarised as `...`, one innermost row per line, elements padded to a common width.
 * A scalar prints as numpy's str of the value; only the shown elements are read.
 */
export function previewLines(t: Tensor, options: PreviewOptions = {}): Preview {
  const edge = options.edgeItems ?? 3;
  const maxLines = options.maxLines ?? Number.POSITIVE_INFINITY;
  const read = elementReader(t);
  if (t.shape.length === 0) return { lines: [scalarText(read(0), t)], truncated: false };
  if (t.shape.some((d) => d === 0)) return { lines: ['[]'], truncated: false };

  // Per axis: the positions shown, with -1 where numpy puts its '...'.
  const axes = t.shape.map((d) =>
    d > 2 * edge ? [...range(0, edge), -1, ...range(d - edge, d)] : range(0, d),
  );
  const strides = stridesOf(t.shape);
  const format = elementFormatter(t, sampleCorners(axes, strides, read));

  const parts: string[] = [];
  let newlines = 0;
  let truncated = false;
  const emit = (s: string): void => {
    parts.push(s);
    for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) newlines++;
    if (newlines >= maxLines) truncated = true;
  };
  const rank = t.shape.length;
  // numpy's _formatArray with an unbounded line width: rows never wrap, a summarised row or
  // block prints '...', and blocks of rank k are separated by k-1 blank lines.
  const recurse = (axis: number, offset: number, indent: string): void => {
    emit('[');
    const positions = axes[axis] as number[];
    const stride = strides[axis] as number;
    const last = axis === rank - 1;
    const separator = last ? ', ' : `,${'\n'.repeat(rank - axis - 1)}${indent} `;
    positions.forEach((p, i) => {
      if (truncated) return;
      if (i > 0) emit(separator);
      if (p === -1) emit('...');
      else if (last) emit(format(read(offset + p * stride)));
      else recurse(axis + 1, offset + p * stride, `${indent} `);
    });
    emit(']');
  };
  recurse(0, 0, '');
  const lines = parts.join('').split('\n');
  if (lines.length > maxLines) return { lines: lines.slice(0, maxLines), truncated: true };
  return { lines, truncated: false };
}

function range(start: number, end: number): number[] {
  return Array.from({ length: end - start }, (_, i) => start + i);
}

function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--)
    strides[i] = (strides[i + 1] as number) * (shape[i + 1] as number);
  return strides;
}

/** The shown elements (up to FORMAT_SAMPLE of them), in print order. */
function sampleCorners(
  axes: readonly number[][],
  strides: readonly number[],
  read: (i: number) => ElementValue,
): ElementValue[] {
  const out: ElementValue[] = [];
  const walk = (axis: number, offset: number): void => {
    for (const p of axes[axis] as number[]) {
      if (out.length >= FORMAT_SAMPLE) return;
      if (p === -1) continue;
      const at = offset + p * (strides[axis] as number);
      if (axis === axes.length - 1) out.push(read(at));
      else walk(axis + 1, at);
    }
  };
  walk(0, 0);
  return out;
}

/** numpy's per-dtype element formatters, fitted to the shown values. */
function elementFormatter(t: Tensor, sample: readonly ElementValue[]): (v: ElementValue) => string {
  const dtype = t.dtype;
  if (dtype === 'bool') return (v) => (v ? ' True' : 'False');
  if (isFloatDtype(dtype)) {
    const f = floatFormatter(sample as number[], dtype);
    return (v) => f(v as number);
  }
  if (dtype === 'complex64' || dtype === 'complex128') {
    const parts = dtype === 'complex64' ? 'float32' : 'float64';
    const pairs = sample as [number, number][];
    const re = floatFormatter(
      pairs.map((p) => p[0]),
      parts,
    );
    const im = floatFormatter(
      pairs.map((p) => p[1]),
      parts,
      '+',
    );
    return (v) => {
      const [r, i] = v as [number, number];
      const imag = im(i);
      const end = imag.trimEnd().length;
      return `${re(r)}${imag.slice(0, end)}j${imag.slice(end)}`;
    };
  }
  if (dtype[0] === 'U') return (v) => pyStrRepr(v as string);
  if (dtype[0] === 'S') return (v) => `b${pyStrRepr(v as string, true)}`;
  // Integers (and float8, shown as its raw bits): right-aligned to the widest shown value.
  let width = 0;
  for (const v of sample) width = Math.max(width, String(v).length);
  return (v) => String(v).padStart(width);
}

/** numpy's str of a 0-d array: the scalar's own str. */
function scalarText(v: ElementValue, t: Tensor): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return t.dtype[0] === 'S' ? `b${pyStrRepr(v, true)}` : pyStrRepr(v);
  if (Array.isArray(v)) {
    const parts = t.dtype === 'complex64' ? 'float32' : 'float64';
    const im = reprFloat(v[1], parts);
    const imag = im.startsWith('-') ? im : `+${im}`;
    return `(${trimPoint(reprFloat(v[0], parts))}${trimPoint(imag)}j)`;
  }
  if (typeof v === 'number' && isFloatDtype(t.dtype)) return reprFloat(v, t.dtype);
  return String(v);
}

/** Python drops a `.0` inside complex reprs: (1+2j), (1.5-0.25j). */
function trimPoint(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/**
 * Python's repr of a str (or, with `bytes`, of the characters of a bytes object): single quotes
 * unless the text holds a ' and no ", escapes for backslash, the quote and control characters.
 */
export function pyStrRepr(s: string, bytes = false): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f || (bytes && cp > 0x7f) || (cp >= 0x80 && cp < 0xa0)) {
      out += `\\x${cp.toString(16).padStart(2, '0')}`;
    } else out += ch;
  }
  return out + quote;
}
