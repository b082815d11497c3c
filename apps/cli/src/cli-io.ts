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
}

/** Resolves once `chunk` has been handed to the stream, so nothing is lost when the process ends. */
export function writeAll(stream: CliStream, chunk: Uint8Array | string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}
