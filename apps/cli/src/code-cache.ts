// V8's compiled code for the CLI bundle, kept between runs in the user's cache folder: a run with
// a valid cache skips parsing and compiling most of the bundle. Every failure (no cache folder, a
// read-only or full disk, a corrupt, truncated or foreign cache file) means a normal compile; the
// cache never changes what the program does.

import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

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
  const hash = crc32(key).toString(16).padStart(8, '0');
  return `tensorops-${version}-node${process.versions.node}-${process.arch}-${hash}.v8cache`;
}

// File layout: MAGIC, key length (u32 LE), key (UTF-8), payload CRC-32 (u32 LE), payload.
const MAGIC = Buffer.from('tensorops-v8-code-cache-1\n');

/**
 * The bytes of `file`: a view of `into` when they fit in it, else a new buffer. Reading into a
 * buffer that was read into before touches no fresh memory.
 */
export function readFileInto(file: string, into: Buffer): Buffer {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
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
 * undefined when the file is absent, damaged or another's.
 */
export function readCodeCache(
  file: string,
  key: string,
  into: Buffer = Buffer.alloc(0),
): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileInto(file, into);
  } catch {
    return undefined;
  }
  const keyBytes = Buffer.from(key);
  const head = MAGIC.length + 4 + keyBytes.length + 4;
  if (bytes.length <= head || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (bytes.readUInt32LE(MAGIC.length) !== keyBytes.length) return undefined;
  if (!bytes.subarray(MAGIC.length + 4, head - 4).equals(keyBytes)) return undefined;
  const payload = bytes.subarray(head);
  return crc32(payload) === bytes.readUInt32LE(head - 4) ? payload : undefined;
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
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32(payload));
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(temp, Buffer.concat([MAGIC, sizes, keyBytes, crc, payload]), { mode: 0o600 });
    renameSync(temp, file);
    return true;
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
    return false;
  }
}
