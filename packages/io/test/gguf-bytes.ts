// GGUF files built byte by byte for the tests that need what gguf-py will not write: hostile
// counts, lengths, nesting, offsets and types, and headers of a chosen size.

const encoder = new TextEncoder();

export function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}

export function u64(n: number | bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A GGUF string: u64 length, then the bytes. */
export function ggufString(text: string | Uint8Array): Uint8Array {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  return concat([u64(bytes.length), bytes]);
}

/** A metadata entry: key, value type, value bytes. */
export function entry(key: string, type: number, value: Uint8Array): Uint8Array {
  return concat([ggufString(key), u32(type), value]);
}

/** A metadata array of strings. */
export function stringArray(key: string, items: readonly string[]): Uint8Array {
  return entry(key, 9, concat([u32(8), u64(items.length), ...items.map((s) => ggufString(s))]));
}

export interface TensorInfo {
  readonly name: string;
  /** ggml's ne, innermost first. */
  readonly ne: readonly (number | bigint)[];
  readonly type: number;
  readonly offset: number | bigint;
}

export function tensorInfo(t: TensorInfo): Uint8Array {
  return concat([
    ggufString(t.name),
    u32(t.ne.length),
    ...t.ne.map((n) => u64(n)),
    u32(t.type),
    u64(t.offset),
  ]);
}

export interface GgufParts {
  readonly version?: number;
  readonly entries?: readonly Uint8Array[];
  readonly tensors?: readonly TensorInfo[];
  /** Counts as declared (default: the lengths of entries and tensors). */
  readonly tensorCount?: bigint;
  readonly entryCount?: bigint;
  readonly alignment?: number;
  /** The data section, placed at the aligned end of the header. */
  readonly data?: Uint8Array;
}

export function ggufFile(parts: GgufParts): Uint8Array {
  const entries = parts.entries ?? [];
  const tensors = parts.tensors ?? [];
  const header = concat([
    encoder.encode('GGUF'),
    u32(parts.version ?? 3),
    u64(parts.tensorCount ?? BigInt(tensors.length)),
    u64(parts.entryCount ?? BigInt(entries.length)),
    ...entries,
    ...tensors.map(tensorInfo),
  ]);
  const alignment = parts.alignment ?? 32;
  const padded = Math.ceil(header.length / alignment) * alignment;
  return concat([header, new Uint8Array(padded - header.length), parts.data ?? new Uint8Array(0)]);
}
