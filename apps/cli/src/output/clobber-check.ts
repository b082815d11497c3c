import { openTensorFile, resolveOutputTarget, type TensorFile } from '@tensorops/io/node';
import { usageError } from '../args/usage-errors.js';

/**
 * `-o FILE.npz:NAME` writes a file holding that one tensor. When FILE already holds other tensors
 * they would be lost, so that needs --force (an archive is never edited in place: the whole file
 * is replaced atomically, or not at all).
 */
export async function refuseDroppingOthers(path: string, name: string): Promise<void> {
  const target = await resolveOutputTarget(path);
  if (target.kind !== 'atomic' || target.existing === undefined) return;
  let file: TensorFile;
  try {
    file = await openTensorFile(target.path);
  } catch {
    return; // not a tensor file: replaced like any other file
  }
  const others = file.tensors.flatMap((t) => (t.name === name ? [] : [t.name ?? '']));
  await file.close();
  if (others.length === 0) return;
  const shown = others
    .slice(0, 3)
    .map((n) => `'${n}'`)
    .join(', ');
  const more = others.length > 3 ? ` and ${others.length - 3} more` : '';
  throw usageError(
    `${path} holds other tensors (${shown}${more}) and writing ${path}:${name} replaces the whole file; pass --force to replace it, or write to another file`,
  );
}
