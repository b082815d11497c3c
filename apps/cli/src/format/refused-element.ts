import { formatPosition, type Shape, TensorOpsError } from '@tensorops/core';

// An element a text form cannot hold exactly is refused rather than written altered. The code that
// reads or formats one element knows why it is refused but not where it stands in the tensor; it
// throws a RefusedElement, and the text stream, which knows the flat index, names the position.

/** Why one string element cannot be written: a phrase after "the string at [i,j]". */
export class RefusedElement extends Error {}

/** The one-line error for `refused` at flat index `flat` of a tensor of `shape`. */
export function refusedElementError(
  refused: RefusedElement,
  flat: number,
  shape: Shape,
): TensorOpsError {
  const which = shape.length === 0 ? 'the string' : `the string at ${formatPosition(flat, shape)}`;
  return new TensorOpsError('E_VALUE', `${which} ${refused.message}`);
}
