// The asynchronous node:fs calls of this package, as promises over the callback API. Not
// node:fs/promises: loading it (with its FileHandle class and what that pulls in) costs a small
// command-line run milliseconds of start-up, and descriptors are all these callers need.

import {
  access,
  chmod,
  chown,
  close,
  fstat,
  fsync,
  lstat,
  open,
  read,
  readlink,
  write,
} from 'node:fs';
import { promisify } from 'node:util';

export const openFd = promisify(open);
export const fstatFd = promisify(fstat);
export const readFd = promisify(read);
export const writeFd = promisify(write);
export const fsyncFd = promisify(fsync);
export const closeFd = promisify(close);
export const lstatPath = promisify(lstat);
export const readlinkPath = promisify(readlink);
export const accessPath = promisify(access);
export const chmodPath = promisify(chmod);
export const chownPath = promisify(chown);
