// A sharded checkpoint on disk: its `*.safetensors.index.json` and the shard files beside it
// (the checkpoint itself is ../file/sharded-file.ts's, the same for URLs).

import { dirname, join } from 'node:path';
import { fileError } from '../file/errors.js';
import { openShardedFile, readIndexText } from '../file/sharded-file.js';
import type { TensorFile } from '../file/stored.js';
import { openSource } from './source.js';

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
      (shard) => openSource(join(dirname(path), shard)),
      only,
    );
  } catch (cause) {
    throw fileError(path, 'read', cause);
  }
}
