// torch checkpoints built byte by byte for the cases a committed fixture cannot hold: storages of
// 2 GiB and more (sparse files), zip64, pickles nested a million deep. The pickle is written
// opcode by opcode as torch.save writes it (protocol 2, _rebuild_tensor_v2, persistent ids), the
// zip as torch's writer lays it out (stored members, data after each local header).

import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { concat } from './gguf-bytes.js';

export interface PickledTensor {
  readonly name: string;
  /** torch's legacy storage class: FloatStorage, LongStorage, ... */
  readonly storageType: string;
  readonly key: string;
  readonly numel: number;
  readonly offset: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
}

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

function str(s: string): Uint8Array {
  const bytes = ascii(s);
  const head = new Uint8Array(5);
  head[0] = 0x58; // BINUNICODE
  new DataView(head.buffer).setUint32(1, bytes.length, true);
  return concat([head, bytes]);
}

/** LONG1: any integer. */
function int(n: number | bigint): Uint8Array {
  let v = BigInt(n);
  const bytes: number[] = [];
  do {
    bytes.push(Number(v & 0xffn));
    v >>= 8n;
  } while (
    !(v === 0n && (bytes.at(-1) as number) < 0x80) &&
    !(v === -1n && (bytes.at(-1) as number) >= 0x80)
  );
  return Uint8Array.from([0x8a, bytes.length, ...bytes]);
}

const global = (module: string, name: string): Uint8Array => ascii(`c${module}\n${name}\n`);
const tuple = (items: readonly Uint8Array[]): Uint8Array =>
  concat([ascii('('), ...items, ascii('t')]);

/** A state dict of tensors, as torch.save pickles it. */
export function torchPickle(tensors: readonly PickledTensor[]): Uint8Array {
  const items = tensors.map((t) =>
    concat([
      str(t.name),
      global('torch._utils', '_rebuild_tensor_v2'),
      tuple([
        concat([
          tuple([
            str('storage'),
            global('torch', t.storageType),
            str(t.key),
            str('cpu'),
            int(t.numel),
          ]),
          ascii('Q'),
        ]),
        int(t.offset),
        tuple(t.shape.map(int)),
        tuple(t.strides.map(int)),
        Uint8Array.of(0x89),
        concat([global('collections', 'OrderedDict'), ascii(')R')]),
      ]),
      ascii('R'),
    ]),
  );
  return concat([Uint8Array.of(0x80, 0x02), ascii('}('), ...items, ascii('u.')]);
}

/** A protocol 2 pickle: each part's bytes `times` over, in order. */
function repeatedPickle(parts: readonly (readonly [readonly number[], number])[]): Uint8Array {
  let length = 2;
  for (const [unit, times] of parts) length += unit.length * times;
  const out = new Uint8Array(length);
  out.set([0x80, 0x02], 0);
  let at = 2;
  for (const [unit, times] of parts) {
    for (let i = 0; i < times; i++, at += unit.length) out.set(unit, at);
  }
  return out;
}

/** A state dict nested `depth` dicts deep: `{'a': {'a': ... {}}}`. */
export function deepPickle(depth: number): Uint8Array {
  // Per level: EMPTY_DICT, MARK, BINUNICODE 'a'; then the innermost {}, a SETITEMS per level, STOP.
  return repeatedPickle([
    [[0x7d, 0x28, 0x58, 1, 0, 0, 0, 0x61], depth],
    [[0x7d], 1],
    [[0x75], depth],
    [[0x2e], 1],
  ]);
}

/** `depth` lists nested: an EMPTY_LIST per level, then an APPEND per level but the outermost. */
export function nestedListsPickle(depth: number): Uint8Array {
  return repeatedPickle([
    [[0x5d], depth],
    [[0x61], depth - 1],
    [[0x2e], 1],
  ]);
}

/** `depth` tuples nested: a MARK per level, the innermost (), then a TUPLE per level. */
export function nestedTuplesPickle(depth: number): Uint8Array {
  return repeatedPickle([
    [[0x28], depth],
    [[0x29], 1],
    [[0x74], depth],
    [[0x2e], 1],
  ]);
}

/** One empty dict stored in the memo `times` times (MEMOIZE each time). */
export function memoPickle(times: number): Uint8Array {
  return repeatedPickle([
    [[0x7d], 1],
    [[0x94], times],
    [[0x2e], 1],
  ]);
}

/** A zip64 extra field of `values` at `at`; returns where it ends. */
function zip64Extra(view: DataView, at: number, values: readonly number[]): number {
  view.setUint16(at, 1, true);
  view.setUint16(at + 2, values.length * 8, true);
  for (const [k, v] of values.entries()) view.setBigUint64(at + 4 + k * 8, BigInt(v), true);
  return at + 4 + values.length * 8;
}

export interface Member {
  readonly name: string;
  /** The bytes; or only a size, left as zeros (a sparse hole) but for `tail` at its end. */
  readonly data: Uint8Array | { readonly size: number; readonly tail?: Uint8Array };
}

/**
 * Writes a stored zip as torch's writer does: a local header (with a zip64 extra when sizes or
 * offsets need it, or `zip64` forces it), data padded to 64 bytes, a central directory, and the
 * zip64 end records when needed. Big members are sparse holes: nothing is written for them.
 */
export function writeTorchZip(path: string, members: readonly Member[], zip64 = false): void {
  const fd = openSync(path, 'w');
  try {
    let at = 0;
    const central: Uint8Array[] = [];
    for (const m of members) {
      const name = ascii(m.name);
      const bytes = m.data instanceof Uint8Array ? m.data : undefined;
      const size = bytes?.length ?? (m.data as { size: number }).size;
      const big = zip64 || size >= 0xffffffff || at >= 0xffffffff;
      const extra64 = big ? 20 : 0;
      const unpadded = at + 30 + name.length + extra64 + 4;
      const pad = (64 - (unpadded % 64)) % 64;
      const local = new DataView(new ArrayBuffer(30 + name.length + extra64 + 4 + pad));
      const crc = bytes === undefined ? 0 : crc32(bytes);
      local.setUint32(0, 0x04034b50, true);
      local.setUint16(4, big ? 45 : 20, true);
      local.setUint32(14, crc, true);
      local.setUint32(18, big ? 0xffffffff : size, true);
      local.setUint32(22, big ? 0xffffffff : size, true);
      local.setUint16(26, name.length, true);
      local.setUint16(28, extra64 + 4 + pad, true);
      new Uint8Array(local.buffer).set(name, 30);
      let e = 30 + name.length;
      if (big) e = zip64Extra(local, e, [size, size]);
      local.setUint16(e, 0x4246, true); // torch's padding field, 'FB'
      local.setUint16(e + 2, pad, true);
      writeSync(fd, new Uint8Array(local.buffer), 0, local.byteLength, at);
      const dataAt = at + local.byteLength;
      if (bytes !== undefined) writeSync(fd, bytes, 0, bytes.length, dataAt);
      else {
        const tail = (m.data as { tail?: Uint8Array }).tail;
        if (tail !== undefined) writeSync(fd, tail, 0, tail.length, dataAt + size - tail.length);
      }
      const cd = new DataView(new ArrayBuffer(46 + name.length + (big ? 28 : 0)));
      cd.setUint32(0, 0x02014b50, true);
      cd.setUint16(4, 45, true);
      cd.setUint16(6, big ? 45 : 20, true);
      cd.setUint32(16, crc, true);
      cd.setUint32(20, big ? 0xffffffff : size, true);
      cd.setUint32(24, big ? 0xffffffff : size, true);
      cd.setUint16(28, name.length, true);
      cd.setUint16(30, big ? 28 : 0, true);
      cd.setUint32(42, big ? 0xffffffff : at, true);
      new Uint8Array(cd.buffer).set(name, 46);
      if (big) zip64Extra(cd, 46 + name.length, [size, size, at]);
      central.push(new Uint8Array(cd.buffer));
      at = dataAt + size;
    }
    const dir = concat(central);
    writeSync(fd, dir, 0, dir.length, at);
    const dirAt = at;
    at += dir.length;
    const needs64 = zip64 || dirAt >= 0xffffffff;
    const tail = new DataView(new ArrayBuffer((needs64 ? 56 + 20 : 0) + 22));
    let t = 0;
    if (needs64) {
      tail.setUint32(0, 0x06064b50, true);
      tail.setBigUint64(4, 44n, true);
      tail.setUint16(12, 45, true);
      tail.setUint16(14, 45, true);
      tail.setBigUint64(24, BigInt(members.length), true);
      tail.setBigUint64(32, BigInt(members.length), true);
      tail.setBigUint64(40, BigInt(dir.length), true);
      tail.setBigUint64(48, BigInt(dirAt), true);
      tail.setUint32(56, 0x07064b50, true);
      tail.setBigUint64(64, BigInt(at), true);
      tail.setUint32(72, 1, true);
      t = 76;
    }
    tail.setUint32(t, 0x06054b50, true);
    tail.setUint16(t + 8, needs64 ? 0xffff : members.length, true);
    tail.setUint16(t + 10, needs64 ? 0xffff : members.length, true);
    tail.setUint32(t + 12, needs64 ? 0xffffffff : dir.length, true);
    tail.setUint32(t + 16, needs64 ? 0xffffffff : dirAt, true);
    writeSync(fd, new Uint8Array(tail.buffer), 0, tail.byteLength, at);
    ftruncateSync(fd, at + tail.byteLength);
  } finally {
    closeSync(fd);
  }
}

/** A checkpoint: data.pkl, byteorder, the storages, version; under `archive/`. */
export function writeCheckpoint(
  path: string,
  pickle: Uint8Array,
  storages: readonly { readonly key: string; readonly data: Member['data'] }[],
  zip64 = false,
): void {
  writeTorchZip(
    path,
    [
      { name: 'archive/data.pkl', data: pickle },
      { name: 'archive/byteorder', data: ascii('little') },
      ...storages.map((s) => ({ name: `archive/data/${s.key}`, data: s.data })),
      { name: 'archive/version', data: ascii('3\n') },
    ],
    zip64,
  );
}
