// Where an output path's bytes go. A regular file (or a name that does not exist yet) is replaced
// atomically; anything else that already exists (a device, FIFO, socket, /dev/stdout, /dev/fd/N,
// a shell's >(cmd)) is written in place, because renaming over it would destroy it. Symlinks are
// followed to their final target, link by link, and stay links; a dangling one names the file to
// create. A replaced file must pass access(W_OK) and its replacement keeps its mode (and, for root,
// its owner); a hard link therefore becomes a new inode. A FIFO is opened without blocking,
// retried until a reader comes. node:net (which loads Node's stream classes, a
// cost at start-up) is loaded only to write to a FIFO or socket.

import { constants, fstatSync, openSync, type Stats } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import { TensorOpsError } from '@tensorops/core';
import { ioError } from '../file/errors.js';
import { accessPath, closeFd, lstatPath, openFd, readlinkPath } from './fs-calls.js';
import { type ByteChunks, writeAllTo, writeFileAtomic, writeStream } from './write.js';

/** How a path is written, decided before any byte is produced. */
export type OutputTarget =
  /** An open descriptor named by the path (/dev/stdout, /dev/fd/N, /proc/self/fd/N). */
  | { readonly kind: 'descriptor'; readonly fd: number }
  /** An existing device, FIFO or socket at `path` (links resolved). */
  | { readonly kind: 'in-place'; readonly path: string; readonly stats: Stats }
  /** A regular file or a new name at `path` (links resolved); `existing` when one is replaced. */
  | { readonly kind: 'atomic'; readonly path: string; readonly existing: Stats | undefined };

const MAX_LINKS = 40;
const DESCRIPTOR_PATH = /^\/(?:dev\/fd|proc\/self\/fd|proc\/thread-self\/fd)\/(\d+)$/;
const STD_PATHS: Readonly<Record<string, number>> = {
  '/dev/stdin': 0,
  '/dev/stdout': 1,
  '/dev/stderr': 2,
};

/** The descriptor a path names by itself (its link text would be `pipe:[…]`, not a path). */
function descriptorOf(path: string): number | undefined {
  if (path in STD_PATHS) return STD_PATHS[path];
  const m = DESCRIPTOR_PATH.exec(path) ?? new RegExp(`^/proc/${process.pid}/fd/(\\d+)$`).exec(path);
  return m ? Number(m[1]) : undefined;
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstatPath(path);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw cause;
  }
}

/**
 * Follows `path` through its symlinks (a dangling one names the file to create) and decides how
 * it is written. A regular file that may not be written is refused here, as `cp` refuses it.
 */
export async function resolveOutputTarget(path: string): Promise<OutputTarget> {
  let current = resolve(path);
  try {
    refuseFolderName(path);
    for (let hops = 0; ; hops++) {
      const fd = descriptorOf(current);
      if (fd !== undefined) return { kind: 'descriptor', fd };
      const stats = await lstatOrUndefined(current);
      if (stats === undefined) return { kind: 'atomic', path: current, existing: undefined };
      if (stats.isSymbolicLink()) {
        if (hops >= MAX_LINKS) throw Object.assign(new Error('ELOOP'), { code: 'ELOOP' });
        const target = await readlinkPath(current);
        refuseFolderName(target);
        current = resolve(dirname(current), target);
        continue;
      }
      if (stats.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
      if (!stats.isFile()) return { kind: 'in-place', path: current, stats };
      await accessPath(current, constants.W_OK);
      return { kind: 'atomic', path: current, existing: stats };
    }
  } catch (cause) {
    throw ioError(path, 'write', cause);
  }
}

/**
 * `out/`, `out/.`, `..`: a name that can only be a folder's, whatever is there now (path.resolve
 * would drop the `/` and create the file `out`), is refused as the kernel refuses to open it.
 */
function refuseFolderName(path: string): void {
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (path !== '' && last === '') {
    throw new Error("ends with '/', so it names a folder, not a file");
  }
  if (last === '.' || last === '..') {
    throw new Error(`ends with '${last}', a folder, not a file`);
  }
}

/**
 * Writes `data` to the output `path` by the rules above. `label` names the output in errors (the
 * path as the user gave it). Nothing partial is left at a regular target on failure.
 */
export async function writeOutputPath(path: string, data: ByteChunks): Promise<void> {
  const target = await resolveOutputTarget(path);
  switch (target.kind) {
    case 'atomic':
      return writeFileAtomic(target.path, data, target.existing);
    case 'descriptor':
      return writeDescriptor(target.fd, data, path);
    case 'in-place':
      return writeInPlace(target.path, target.stats, data, path);
  }
}

async function writeDescriptor(fd: number, data: ByteChunks, label: string): Promise<void> {
  if (fd === 1) return writeStream(process.stdout, data, label);
  if (fd === 2) return writeStream(process.stderr, data, label);
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (cause) {
    throw ioError(label, 'write', cause);
  }
  if (stats.isFIFO() || stats.isSocket()) {
    return writeToSocket(
      new (process.getBuiltinModule('node:net').Socket)({ fd, readable: false, writable: true }),
      data,
      label,
    );
  }
  return writeToFd(fd, data, label);
}

async function writeInPlace(
  path: string,
  stats: Stats,
  data: ByteChunks,
  label: string,
): Promise<void> {
  if (stats.isSocket()) return writeToSocket(await connected(path, label), data, label);
  if (stats.isFIFO()) {
    const fd = await openFifoForWriting(path, label);
    return writeToSocket(
      new (process.getBuiltinModule('node:net').Socket)({ fd, readable: false, writable: true }),
      data,
      label,
    );
  }
  let fd: number;
  try {
    fd = await openFd(path, constants.O_WRONLY);
  } catch (cause) {
    throw ioError(label, 'write', cause);
  }
  try {
    await writeToFd(fd, data, label);
  } finally {
    await closeFd(fd).catch(() => {});
  }
}

const FIFO_RETRY_MS = 20;

/**
 * Opens a FIFO without blocking a worker thread (a blocked open would keep the process alive
 * after a signal): non-blocking opens fail with ENXIO until a reader appears, so retry.
 */
async function openFifoForWriting(path: string, label: string): Promise<number> {
  for (;;) {
    try {
      return openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'ENXIO') throw ioError(label, 'write', cause);
    }
    await new Promise((r) => setTimeout(r, FIFO_RETRY_MS));
  }
}

function connected(path: string, label: string): Promise<Socket> {
  return new Promise((resolvePromise, reject) => {
    const socket = process.getBuiltinModule('node:net').connect({ path });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolvePromise(socket);
    });
    socket.once('error', (cause) => reject(ioError(label, 'write', cause)));
  });
}

/** Writes everything, then ends the socket and waits until the peer has it all. */
async function writeToSocket(socket: Socket, data: ByteChunks, label: string): Promise<void> {
  try {
    await writeStream(socket, data, label);
    await new Promise<void>((resolvePromise, reject) => {
      socket.once('error', (cause) => reject(ioError(label, 'write', cause)));
      socket.end(() => resolvePromise());
    });
  } finally {
    socket.destroy();
  }
}

async function writeToFd(fd: number, data: ByteChunks, label: string): Promise<void> {
  try {
    await writeAllTo(fd, data);
  } catch (cause) {
    if (cause instanceof TensorOpsError) throw cause;
    throw ioError(label, 'write', cause);
  }
}
