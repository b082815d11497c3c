// A sharded checkpoint on disk: its `*.safetensors.index.json` and the shard files beside it
// (the checkpoint itself is ../file/sharded-file.ts's, the same for URLs). A checkpoint may have
// more shards than a process may hold files open, so only a few are open at any time.

import { dirname, join } from 'node:path';
import { fileError } from '../file/errors.js';
import { openingAtMost } from '../file/reopening-sources.js';
import { openShardedFile, readIndexText } from '../file/sharded-file.js';
import type { TensorFile } from '../file/stored.js';
import { openSource } from './source.js';

/** Shard files held open at once: more than the headers read at once, far below the usual limit. */
const OPEN_SHARDS = 32;

/** {@link openShardedFile} for an index on disk: shards are files beside it. */
export async function openShardIndexFile(path: string, only?: string): Promise<TensorFile> {
  try {
    const source = await openSource(path);
    let text: string;
    try {
      text = await readIndexText(source);
    } finally {
      await source.close();
    }
    return await openShardedFile(
      path,
      text,
      openingAtMost((shard) => openSource(join(dirname(path), shard)), OPEN_SHARDS),
      only,
    );
  } catch (cause) {
    throw fileError(path, 'read', cause);
  }
}
