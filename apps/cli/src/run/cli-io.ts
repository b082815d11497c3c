import type { HttpSourceOptions } from '@tensorops/io';
import { ioError } from '@tensorops/io/node/internal';

/** The process streams and environment a run may use; tests pass their own. */
export interface CliStream {
  write(chunk: Uint8Array | string, callback?: (error?: Error | null) => void): boolean;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface CliIO {
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  /** The descriptor behind `stdin` (0 in the real process): lets a file on stdin be read by range. */
  readonly stdinFd?: number;
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How http(s):// inputs are read (set by the run from its flags and environment). */
  readonly http?: HttpSourceOptions;
}

/**
 * Resolves once `chunk` has been handed to standard output, so nothing is lost when the process
 * ends. A failed write (a full disk, a closed descriptor, EPIPE) rejects with one E_IO error whose
 * `cause` keeps the system error; a synchronous stream (a file or device) throws from write().
 */
export function writeAll(stream: CliStream, chunk: Uint8Array | string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => reject(ioError('standard output', 'write', error));
    try {
      stream.write(chunk, (error) => (error ? fail(error) : resolve()));
    } catch (error) {
      fail(error);
    }
  });
}

/** EPIPE: the reader went away (`| head`), a normal end for a pipeline stage. */
export function isBrokenPipe(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') return true;
  }
  return false;
}
