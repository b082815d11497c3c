// Whether the output named by -o is a file replaced whole (atomically, write-target.ts): a failure
// half-way then leaves it as it was, so a command may hand its result on before it has checked all
// of it. Standard output, a device, a FIFO or a descriptor are written as the bytes come.

import { resolveOutputTarget } from '@tensorops/io/node';

export async function outputReplacedWhole(output: unknown): Promise<boolean> {
  if (typeof output !== 'string' || output === '' || output === '-') return false;
  // `FILE.npz:NAME` names a member of FILE.npz: both readings must be files replaced whole.
  const colon = output.lastIndexOf(':');
  const paths = colon > 0 ? [output, output.slice(0, colon)] : [output];
  try {
    for (const path of paths) if ((await resolveOutputTarget(path)).kind !== 'atomic') return false;
    return true;
  } catch {
    // Refused (a folder, no write access): the writer says why, after the whole run.
    return false;
  }
}
