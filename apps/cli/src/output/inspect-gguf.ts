import type { GgufArray, GgufEntry, GgufInfo, GgufValue } from '@tensorops/io/node';
import { printable } from '../ui/layout.js';

// inspect of a .gguf file: its metadata, each value typed. Long arrays (a 150k-entry vocabulary)
// are summarised as their length and first items unless --metadata asks for them whole; in
// --json, 64-bit integers are exact decimal strings and NaN / the infinities "nan", "inf", "-inf".

/** Items of an array kept in a summary, at each level of nesting. */
export const SUMMARY_ITEMS = 8;

/** Characters of a string kept in the text view (a chat template runs to kilobytes). */
const TEXT_CHARS = 120;

type JsonValue = number | string | boolean | JsonArray;

interface JsonArray {
  readonly item_type: string;
  readonly length: number;
  /** Every item, or the first SUMMARY_ITEMS of them when summarised. */
  readonly items: readonly JsonValue[];
}

/** `inspect --json`'s "gguf" member. */
export interface GgufReport {
  readonly version: number;
  readonly alignment: number;
  readonly metadata: readonly { key: string; type: string; value: JsonValue }[];
}

function isArray(value: GgufValue): value is GgufArray {
  return typeof value === 'object';
}

function jsonValue(value: GgufValue, whole: boolean): JsonValue {
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  }
  if (!isArray(value)) return value;
  const kept = whole ? value.items : value.items.slice(0, SUMMARY_ITEMS);
  return {
    item_type: value.itemType,
    length: value.items.length,
    items: kept.map((v) => jsonValue(v, whole)),
  };
}

export function ggufReport(info: GgufInfo, whole: boolean): GgufReport {
  return {
    version: info.version,
    alignment: info.alignment,
    metadata: info.metadata.map((e: GgufEntry) => ({
      key: e.key,
      type: e.type,
      value: jsonValue(e.value, whole),
    })),
  };
}

/** A value of `type` as text: strings quoted (and cut), numbers as they are, -0 with its sign. */
function valueText(value: JsonValue, type: string): string {
  if (type === 'string' && typeof value === 'string') {
    const cut = value.length > TEXT_CHARS;
    const text = JSON.stringify(cut ? value.slice(0, TEXT_CHARS) : value);
    return cut ? `${text}… (${value.length} characters)` : text;
  }
  if (typeof value !== 'object') return Object.is(value, -0) ? '-0' : String(value);
  const items = value.items.map((v) => valueText(v, value.item_type));
  if (items.length < value.length) items.push('…');
  return `[${items.join(', ')}]`;
}

/**
 * The text view's lines: `key (type): value`, an array as `key (array of N T): [items, …]` with
 * the items the report holds; strings cut to TEXT_CHARS characters (--json has them whole).
 */
export function ggufLines(report: GgufReport): string {
  const lines = report.metadata.map(({ key, type, value }) => {
    const kind = typeof value === 'object' ? `array of ${value.length} ${value.item_type}` : type;
    return `  ${printable(key)} (${kind}): ${printable(valueText(value, type))}\n`;
  });
  return `gguf v${report.version}, alignment ${report.alignment}, metadata:\n${lines.join('')}`;
}
