/** Machine-readable error categories; only the CLI maps them to exit codes. */
export type ErrorCode =
  | 'E_AXIS'
  | 'E_BATCH_DIMS'
  | 'E_SHAPE'
  | 'E_INDEX_RANGE'
  | 'E_DTYPE'
  | 'E_VALUE'
  | 'E_FORMAT'
  | 'E_TENSOR_NOT_FOUND'
  | 'E_IO'
  | 'E_USAGE';

/** Every failure tensorops reports: a code plus a one-line message naming the value and the valid range. */
export class TensorOpsError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TensorOpsError';
    this.code = code;
  }
}

export function isTensorOpsError(value: unknown): value is TensorOpsError {
  return value instanceof TensorOpsError;
}
