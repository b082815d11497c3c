// Every refusal of a data.pkl: one E_FORMAT line. Names taken from the pickle (globals, keys) go
// through `quote`, so a hostile name can neither flood nor break the line.

import { TensorOpsError } from '@tensorops/core';

export function pickleError(message: string): TensorOpsError {
  return new TensorOpsError('E_FORMAT', `data.pkl: ${message}`);
}
