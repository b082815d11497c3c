// A sharded checkpoint opened as one tensor file. Its shards are laid end to end in one address
// space (shard k starts where shard k-1 ends), so a tensor's `offset` is a position in that space
// and every reader of TensorFile (streams, ranged gathers) works unchanged; `shard` keeps the
// shard's name and the offset within it for display. Only the shards a caller needs are opened:
// all of them to list the checkpoint, one to read a named tensor.

import { TensorOpsError } from '@tensorops/core';
import { SAFETENSORS_MAX_HEADER_BYTES } from '../safetensors.js';
import { parseShardIndex, type ShardIndex } from '../shard-index.js';
import { quote } from '../text.js';
import { fileError } from './errors.js';
import { safetensorsReader } from './safetensors-file.js';
import { type ByteSource, readExactly } from './source.js';
import {
  type FormatReader,
  loadableDtype,
  type StoredTensor,
  type TensorFile,
  tensorFile,
} from './stored.js';

/** Opens one shard by its name in the index (relative to the index's folder or URL). */
export type OpenShard = (shard: string) => Promise<ByteSource>;

interface Part {
  readonly base: number;
  readonly source: ByteSource;
}

/** The shards as one source. A read never spans two shards: every tensor lies within one. */
class ConcatSource implements ByteSource {
  readonly fd = undefined;
  readonly bytes = undefined;

  readonly readMany?: ByteSource['readMany'];

  constructor(
    readonly label: string,
    private readonly parts: readonly Part[],
    readonly size: number,
  ) {
    if (parts.length > 0 && parts.every((p) => p.source.readMany !== undefined)) {
      this.readMany = (reads) => this.readManyRemote(reads);
    }
  }

  private partOf(position: number): Part | undefined {
    let part: Part | undefined;
    for (const p of this.parts) if (p.base <= position) part = p;
    return part;
  }

  /** Each shard's reads in one call of its own readMany, the shards concurrently. */
  private async readManyRemote(
    reads: readonly { position: number; target: Uint8Array }[],
  ): Promise<void> {
    const byPart = new Map<Part, { position: number; target: Uint8Array }[]>();
    for (const r of reads) {
      const part = this.partOf(r.position) as Part;
      const list = byPart.get(part) ?? [];
      list.push({ position: r.position - part.base, target: r.target });
      byPart.set(part, list);
    }
    await Promise.all(
      [...byPart].map(([part, list]) =>
        (part.source.readMany as NonNullable<ByteSource['readMany']>)(list),
      ),
    );
  }

  read(target: Uint8Array, position: number): Promise<number> {
    const part = this.partOf(position);
    if (part === undefined) return Promise.resolve(0);
    const end = part.base + part.source.size;
    const length = Math.max(0, Math.min(target.length, end - position));
    return part.source.read(target.subarray(0, length), position - part.base);
  }

  async close(): Promise<void> {
    await Promise.all(this.parts.map((p) => p.source.close()));
  }
}

function names(list: readonly string[]): string {
  const shown = list.slice(0, 8).map(quote).join(', ');
  return list.length > 8 ? `${shown} and ${list.length - 8} more` : shown;
}

/** The shards to open: all of them, or the one that holds `only`. */
function neededShards(index: ShardIndex, only: string | undefined): string[] {
  if (only === undefined) return [...index.shards];
  const shard = index.weightMap.get(only);
  if (shard !== undefined) return [shard];
  const all = [...index.weightMap.keys()];
  throw new TensorOpsError(
    'E_TENSOR_NOT_FOUND',
    `no tensor ${quote(only)} in the weight map${all.length ? ` (it maps ${names(all)})` : ' (it maps none)'}`,
  );
}

/**
 * Opens the shards of a parsed index that `only` needs (all when undefined) and reads their
 * headers. Each tensor the map gives an opened shard must be in that shard's header. Errors name
 * the shard and the tensor; the caller prefixes the index's label.
 */
export async function openShardedFile(
  label: string,
  indexText: string,
  openShard: OpenShard,
  only?: string,
): Promise<TensorFile> {
  const index = parseShardIndex(indexText);
  const wanted = neededShards(index, only);
  const parts: Part[] = [];
  const readers = new Map<string, { base: number; reader: FormatReader }>();
  let size = 0;
  try {
    for (const shard of wanted) {
      const first = [...index.weightMap].find(([, s]) => s === shard)?.[0] as string;
      let source: ByteSource;
      try {
        source = await openShard(shard);
      } catch (cause) {
        throw fileError(`shard ${quote(shard)} of tensor ${quote(first)}`, 'read', cause);
      }
      parts.push({ base: size, source });
      try {
        readers.set(shard, { base: size, reader: await safetensorsReader(source) });
      } catch (cause) {
        throw fileError(`shard ${quote(shard)}`, 'read', cause);
      }
      size += source.size;
    }
  } catch (error) {
    await Promise.all(parts.map((p) => p.source.close().catch(() => {})));
    throw error;
  }
  const tensors: StoredTensor[] = [];
  const mapped = new Set<string>();
  for (const [name, shard] of index.weightMap) {
    const opened = readers.get(shard);
    if (opened === undefined) continue;
    mapped.add(`${shard}\0${name}`);
    if (only !== undefined && name !== only) continue;
    const t = opened.reader.tensors.find((s) => s.name === name);
    if (t === undefined) {
      await Promise.all(parts.map((p) => p.source.close().catch(() => {})));
      throw new TensorOpsError(
        'E_FORMAT',
        `tensor ${quote(name)} is not in its shard ${quote(shard)} (the weight map says it is)`,
      );
    }
    const offset = t.offset as number;
    tensors.push({ ...t, offset: opened.base + offset, shard: { name: shard, offset } });
  }
  const unmapped: { shard: string; name: string }[] = [];
  for (const [shard, { reader }] of readers) {
    for (const t of reader.tensors) {
      if (!mapped.has(`${shard}\0${t.name}`)) unmapped.push({ shard, name: t.name as string });
    }
  }
  const source = new ConcatSource(label, parts, size);
  const firstReader = readers.get(wanted[0] as string)?.reader;
  const reader: FormatReader = {
    format: 'safetensors',
    tensors,
    metadata: firstReader?.metadata ?? null,
    rangedStreams: true,
    async read(t) {
      const data = await readExactly(source, t.offset as number, t.nbytes, '.safetensors data');
      return { dtype: loadableDtype(t), shape: [...t.shape], data };
    },
    async close() {},
  };
  return { ...tensorFile(source, reader), sharded: { shards: index.shards.length, unmapped } };
}

/** An index file is small: anything beyond the safetensors header limit is not one. */
const MAX_INDEX_BYTES = SAFETENSORS_MAX_HEADER_BYTES;

/** The text of an index from any source (file, pipe, URL), size-checked before it is read. */
export async function readIndexText(source: ByteSource): Promise<string> {
  if (source.size > MAX_INDEX_BYTES) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${source.size} bytes is too large for a .safetensors.index.json (limit ${MAX_INDEX_BYTES})`,
    );
  }
  const bytes = await readExactly(source, 0, source.size, '.safetensors.index.json');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new TensorOpsError('E_FORMAT', '.safetensors.index.json is not valid UTF-8', { cause });
  }
}
