// V8's compiled code for the CLI bundle, kept between runs in the user's cache folder: a run with
// a valid cache skips parsing and compiling most of the bundle. Every failure (no cache folder, a
// read-only or full disk, a corrupt, truncated or foreign cache file, an entry that is not a
// regular file or is far larger than any cache) means a normal compile; the cache never changes
// what the program does. launch.ts compiles the bundle as a vm.Script on every Node line, with
// this cache: an entry is checked against a digest of its payload before V8 sees it, as V8 takes
// damaged cached code unchecked. A small WebAssembly module computes the digest
// (apps/cli/wasm/digest.wat), so without WebAssembly (--jitless) there is no cache. The folder
// keeps only the MAX_CACHE_ENTRIES most recently written entries.

import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

import { DIGEST_WASM } from '../wasm/digest-binary.js';

/**
 * The cache folder: TENSOROPS_CACHE_DIR when set (empty: no cache), else $XDG_CACHE_HOME/tensorops,
 * else $HOME/.cache/tensorops; undefined without any of them.
 */
export function cacheDirectory(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const own = env.TENSOROPS_CACHE_DIR;
  if (own !== undefined) return own === '' ? undefined : own;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'tensorops');
  if (env.HOME) return join(env.HOME, '.cache', 'tensorops');
  return undefined;
}

/**
 * What a cache entry is valid for: the tensorops version, the Node version and architecture, the
 * flags V8 runs with, and the exact build of the bundle (its size and modification time).
 */
export function cacheKey(parts: {
  readonly version: string;
  readonly bundle: string;
  readonly execArgv: readonly string[];
  readonly nodeOptions: string | undefined;
}): string {
  const { size, mtimeMs } = statSync(parts.bundle);
  return [
    `tensorops ${parts.version}`,
    `node ${process.version} ${process.arch}`,
    `flags ${parts.execArgv.join(' ')} | ${parts.nodeOptions ?? ''}`,
    `bundle ${size} ${mtimeMs}`,
  ].join('\n');
}

/** The cache file of a key: readable names, and a hash that tells builds and flags apart. */
export function cacheFileName(version: string, key: string): string {
  // FNV-1a over the key's UTF-16 units: short, and only needs to tell keys apart.
  let fnv = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) fnv = Math.imul(fnv ^ key.charCodeAt(i), 0x01000193);
  const hash = (fnv >>> 0).toString(16).padStart(8, '0');
  return `tensorops-${version}-node${process.versions.node}-${process.arch}-${hash}.v8cache`;
}

// File layout: MAGIC, key length (u32 LE), key (UTF-8), payload digest (8 bytes), payload.
const MAGIC = Buffer.from('tensorops-v8-code-cache-2\n');
const DIGEST_BYTES = 8;
const WASM_PAGE_BYTES = 65536;

interface DigestModule {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  readonly digest: (at: number, length: number) => bigint;
}
/** The part of the WebAssembly API used here (Node's types leave the global out). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
}
let digestModule: DigestModule | null | undefined;

/** The digest's WebAssembly module (wasm/digest.wat.mjs), or null without WebAssembly (--jitless). */
function digestModuleOrNull(): DigestModule | null {
  if (digestModule !== undefined) return digestModule;
  try {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly as WasmApi;
    const { exports } = new wasm.Instance(new wasm.Module(DIGEST_WASM));
    digestModule = exports as DigestModule;
  } catch {
    digestModule = null;
  }
  return digestModule;
}

/** A view of the first `size` bytes of the module's memory, grown to hold them. */
function memoryView(module: DigestModule, size: number): Buffer {
  const missing = size - module.memory.buffer.byteLength;
  if (missing > 0) module.memory.grow(Math.ceil(missing / WASM_PAGE_BYTES));
  return Buffer.from(module.memory.buffer, 0, size);
}

/**
 * A buffer of `size` bytes to read the bundle and the cache into: in the digest module's memory,
 * where a cache read into it is digested without a copy. Valid until the memory grows (a cache
 * written at exit may grow it).
 */
export function scratchBuffer(size: number): Buffer {
  const module = digestModuleOrNull();
  return module === null ? Buffer.allocUnsafeSlow(size) : memoryView(module, size);
}

/** The payload's digest, or undefined without WebAssembly. */
function digestOf(payload: Uint8Array): Buffer | undefined {
  const module = digestModuleOrNull();
  if (module === null) return undefined;
  let at = payload.byteOffset;
  if (payload.buffer !== module.memory.buffer) {
    memoryView(module, payload.length).set(payload);
    at = 0;
  }
  const out = Buffer.alloc(DIGEST_BYTES);
  out.writeBigInt64LE(module.digest(at, payload.length));
  return out;
}

/**
 * Largest cache entry read: the code of the whole bundle takes under a megabyte. A larger entry is
 * not ours, and reading it would cost a start its size in memory and time.
 */
export const MAX_CACHE_BYTES = 64 << 20;

/** The size of the cache entry `file`: 0 when there is none, or none to read (see readCodeCache). */
export function cacheFileSize(file: string): number {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats?.isFile() && stats.size <= MAX_CACHE_BYTES ? stats.size : 0;
}

/**
 * The bytes of the regular file `file` (at most `maxBytes` of them, else an error): a view of
 * `into` when they fit in it, else a new buffer. Reading into a buffer that was read into before
 * touches no fresh memory. Opened without blocking and checked on the open descriptor, so a FIFO
 * put in the file's place, even between a check and the open, is refused, never waited on.
 */
export function readFileInto(
  file: string,
  into: Buffer,
  maxBytes = Number.POSITIVE_INFINITY,
): Buffer {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${file} is not a regular file`);
    const size = stats.size;
    if (size > maxBytes) throw new Error(`${file} holds more than ${maxBytes} bytes`);
    const bytes = size <= into.length ? into.subarray(0, size) : Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, bytes, done, size - done, done);
      if (n === 0) break;
      done += n;
    }
    return bytes.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * The cached code stored under `key` (read into `into` when it fits, see readFileInto), or
 * undefined when the file is absent, damaged or another's, not a regular file, or too large.
 */
export function readCodeCache(
  file: string,
  key: string,
  into: Buffer = Buffer.alloc(0),
): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileInto(file, into, MAX_CACHE_BYTES);
  } catch {
    return undefined;
  }
  const keyBytes = Buffer.from(key);
  const digestAt = MAGIC.length + 4 + keyBytes.length;
  const head = digestAt + DIGEST_BYTES;
  if (bytes.length <= head || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (bytes.readUInt32LE(MAGIC.length) !== keyBytes.length) return undefined;
  if (!bytes.subarray(MAGIC.length + 4, digestAt).equals(keyBytes)) return undefined;
  const payload = bytes.subarray(head);
  return digestOf(payload)?.equals(bytes.subarray(digestAt, head)) ? payload : undefined;
}

/**
 * Stores `payload` under `key`, atomically: written to a temp file beside it and renamed over it,
 * so a reader sees the old file or the new one, never half of one. Returns false (and leaves no
 * temp file) when anything fails.
 */
export function writeCodeCache(file: string, key: string, payload: Uint8Array): boolean {
  const keyBytes = Buffer.from(key);
  const sizes = Buffer.alloc(4);
  sizes.writeUInt32LE(keyBytes.length);
  const digest = digestOf(payload);
  if (digest === undefined) return false;
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(temp, Buffer.concat([MAGIC, sizes, keyBytes, digest, payload]), { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
    return false;
  }
  pruneEntries(join(file, '..'), file);
  return true;
}

/** Entries kept in the folder: this run's, and the most recently written others. */
export const MAX_CACHE_ENTRIES = 4;

/**
 * Removes all but the MAX_CACHE_ENTRIES most recently written entries (`kept` always stays):
 * every upgrade of tensorops or of Node, and every set of V8 flags, writes an entry of its own,
 * and the old ones would pile up (about 400 KB each). Best effort, and only after a write, which
 * is rare: a run that reads the cache never lists the folder.
 */
function pruneEntries(dir: string, kept: string): void {
  try {
    const others = readdirSync(dir)
      .filter((name) => /^tensorops-.*\.v8cache$/.test(name))
      .map((name) => join(dir, name))
      .filter((path) => path !== kept)
      .map((path) => ({ path, written: statSync(path).mtimeMs }))
      .sort((a, b) => b.written - a.written);
    for (const { path } of others.slice(MAX_CACHE_ENTRIES - 1)) rmSync(path, { force: true });
  } catch {}
}
