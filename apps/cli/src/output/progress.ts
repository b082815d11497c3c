import type { TensorStream } from '@tensorops/io/node';
import type { CliIO } from '../run/cli-io.js';
import { createProgress } from '../ui/progress.js';
import type { OutputOptions } from './options.js';

/** Bytes written so far, shared by every stream of one result. */
export interface ByteProgress {
  advance(bytes: number): void;
  finish(): void;
}

/**
 * The stderr progress bar for streamed work (large file gathers, conversions): only on a
 * terminal, never with --quiet, and it draws nothing for work that ends within its delay.
 */
export function startProgress(
  label: string,
  total: number,
  options: OutputOptions,
  io: CliIO,
): ByteProgress {
  const bar = createProgress({
    stream: io.stderr,
    enabled: options.quiet ? false : () => io.stderr.isTTY === true,
    label,
    total,
    unit: 'bytes',
    ascii: io.env.TERM === 'dumb',
    delay: progressDelay(io.env.TENSOROPS_PROGRESS_DELAY),
  });
  let done = 0;
  return {
    advance(bytes) {
      done += bytes;
      bar.update(done);
    },
    finish: () => bar.finish(),
  };
}

/** Milliseconds before the bar appears: 300, or TENSOROPS_PROGRESS_DELAY (as git's GIT_PROGRESS_DELAY). */
function progressDelay(value: string | undefined): number {
  const ms = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(ms) && ms >= 0 ? ms : 300;
}

/** A stream that reports every chunk it hands out to `progress` (a shared total for many streams). */
export function tracked(s: TensorStream, progress: ByteProgress): TensorStream {
  return {
    dtype: s.dtype,
    shape: s.shape,
    nbytes: s.nbytes,
    async *chunks(chunkOptions) {
      for await (const chunk of s.chunks(chunkOptions)) {
        yield chunk;
        progress.advance(chunk.byteLength);
      }
    },
  };
}
