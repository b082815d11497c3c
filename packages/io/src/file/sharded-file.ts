// A sharded checkpoint opened as one tensor file. Its shards are laid end to end in one address
// space (shard k starts where shard k-1 ends), so a tensor's `offset` is a position in that space
// and every reader of TensorFile (streams, ranged gathers) works unchanged; `shard` keeps the
// shard's name and the offset within it for display. Only the shards a caller needs are opened:
// all of them to list the checkpoint, one to read a named tensor. Their headers are read a few at
// a time (a remote shard is a round trip), and every step is linear in the number of tensors and
// shards: lookups go through maps, never through a scan per entry.

import { TensorOpsError } from '@tensorops/core';
import type { RangeRead } from '../remote/coalesce.js';
import { SAFETENSORS_MAX_HEADER_BYTES } from '../safetensors.js';
import { parseShardIndex, type ShardIndex, shardFormatOf } from '../shard-index.js';
import { quote } from '../text.js';
import { mapBounded } from './bounded-map.js';
import { canReadMany, type RangeBatchReader } from './capabilities.js';
import { fileError } from './errors.js';
import { safetensorsReader } from './safetensors-file.js';
import { type ByteSource, readExactly } from './source.js';
import { type FormatReader, type StoredTensor, type TensorFile, tensorFile } from './stored.js';
import { torchReader } from './torch-file.js';

/** Opens one shard by its name in the index (relative to the index's folder or URL). */
export type OpenShard = (shard: string) => Promise<ByteSource>;

/** Shards whose headers are read at once: HttpSource's default number of requests in flight. */
const SHARDS_AT_ONCE = 8;

interface Part {
  readonly base: number;
  readonly source: ByteSource;
}

/** The shards as one source. A read never spans two shards: every tensor lies within one. */
class ConcatSource implements ByteSource, Partial<RangeBatchReader> {
  /** Present when every shard has it: the shards' reads, each in one call of its shard's. */
  readonly readMany?: RangeBatchReader['readMany'];

  constructor(
    readonly label: string,
    private readonly parts: readonly Part[],
    readonly size: number,
  ) {
    if (parts.length > 0 && parts.every((p) => canReadMany(p.source))) {
      this.readMany = (reads) => this.readManyRemote(reads);
    }
  }

  /** The last part that starts at or before `position` (parts are in base order). */
  private partOf(position: number): Part | undefined {
    let low = 0;
    let high = this.parts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.parts[mid] as Part).base <= position) low = mid + 1;
      else high = mid;
    }
    return this.parts[low - 1];
  }

  /** Each shard's reads in one call of its own readMany, the shards concurrently. */
  private async readManyRemote(reads: readonly RangeRead[]): Promise<void> {
    const byPart = new Map<Part, RangeRead[]>();
    for (const r of reads) {
      const part = this.partOf(r.position) as Part;
      const list = byPart.get(part) ?? [];
      list.push({ position: r.position - part.base, target: r.target });
      byPart.set(part, list);
    }
    await Promise.all(
      [...byPart].map(([part, list]) =>
        (part.source as ByteSource & RangeBatchReader).readMany(list),
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

/** The first names of a map, quoted, and how many more there are. */
function names(map: ReadonlyMap<string, unknown>): string {
  const shown: string[] = [];
  for (const name of map.keys()) {
    if (shown.length === 8) break;
    shown.push(quote(name));
  }
  return map.size > 8 ? `${shown.join(', ')} and ${map.size - 8} more` : shown.join(', ');
}

/** The shards to open: all of them, or the one that holds `only`. */
function neededShards(index: ShardIndex, only: string | undefined): string[] {
  if (only === undefined) return [...index.shards];
  const shard = index.weightMap.get(only);
  if (shard !== undefined) return [shard];
  const map = index.weightMap;
  throw new TensorOpsError(
    'E_TENSOR_NOT_FOUND',
    `no tensor ${quote(only)} in the weight map${map.size ? ` (it maps ${names(map)})` : ' (it maps none)'}`,
  );
}

/** The first tensor the map gives `shard`: what an error opening the shard names. */
function firstTensorOf(index: ShardIndex, shard: string): string {
  for (const [name, s] of index.weightMap) if (s === shard) return name;
  return '';
}

interface OpenedShard {
  readonly source: ByteSource;
  readonly reader: FormatReader;
}

/**
 * Opens a shard and reads its header; on a failure nothing is left open. Only a failure looks up
 * the tensor it names, a scan of the map that the shards which open never pay.
 */
async function openShardHeader(
  index: ShardIndex,
  shard: string,
  openShard: OpenShard,
  only: string | undefined,
  torchShards: boolean,
): Promise<OpenedShard> {
  let source: ByteSource;
  try {
    source = await openShard(shard);
  } catch (cause) {
    const tensor = firstTensorOf(index, shard);
    throw fileError(`shard ${quote(shard)} of tensor ${quote(tensor)}`, 'read', cause);
  }
  try {
    // The index says what its shards are: `*.bin.index.json` names torch.save checkpoints
    // (`pytorch_model-00001-of-00002.bin`), `*.safetensors.index.json` .safetensors files.
    const read = torchShards ? torchReader : safetensorsReader;
    return { source, reader: await read(source, only) };
  } catch (cause) {
    await source.close().catch(() => {});
    throw fileError(`shard ${quote(shard)}`, 'read', cause);
  }
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
  const outcome = await mapBounded(wanted, SHARDS_AT_ONCE, (shard) =>
    openShardHeader(index, shard, openShard, only, shardFormatOf(label) === 'torch'),
  );
  if (!outcome.ok) {
    await Promise.all(outcome.results.map((o) => o?.source.close().catch(() => {})));
    throw outcome.error;
  }
  const parts: Part[] = [];
  // A shard's tensors by name (safetensors names every tensor, uniquely).
  const readers = new Map<
    string,
    { base: number; reader: FormatReader; byName: Map<string, StoredTensor> }
  >();
  // Each listed tensor as its shard's reader knows it: the one that reads it.
  const origins = new Map<StoredTensor, { reader: FormatReader; tensor: StoredTensor }>();
  let size = 0;
  for (const [k, { source, reader }] of outcome.results.entries()) {
    parts.push({ base: size, source });
    const byName = new Map(reader.tensors.map((t) => [t.name as string, t]));
    readers.set(wanted[k] as string, { base: size, reader, byName });
    size += source.size;
  }
  const tensors: StoredTensor[] = [];
  for (const [name, shard] of index.weightMap) {
    const opened = readers.get(shard);
    if (opened === undefined || (only !== undefined && name !== only)) continue;
    const t = opened.byName.get(name);
    if (t === undefined) {
      await Promise.all(parts.map((p) => p.source.close().catch(() => {})));
      throw new TensorOpsError(
        'E_FORMAT',
        `tensor ${quote(name)} is not in its shard ${quote(shard)} (the weight map says it is)`,
      );
    }
    const listed: StoredTensor =
      t.offset === null
        ? { ...t, shard: { name: shard, offset: null } }
        : { ...t, offset: opened.base + t.offset, shard: { name: shard, offset: t.offset } };
    origins.set(listed, { reader: opened.reader, tensor: t });
    tensors.push(listed);
  }
  const unmapped: { shard: string; name: string }[] = [];
  for (const [shard, { byName }] of readers) {
    for (const name of byName.keys()) {
      if (index.weightMap.get(name) !== shard) unmapped.push({ shard, name });
    }
  }
  const source = new ConcatSource(label, parts, size);
  const firstReader = outcome.results[0]?.reader;
  const reader: FormatReader = {
    format: firstReader?.format ?? 'safetensors',
    tensors,
    metadata: firstReader?.metadata ?? null,
    rangedStreams: true,
    read(t) {
      const origin = origins.get(t);
      if (origin === undefined) {
        throw new TensorOpsError('E_TENSOR_NOT_FOUND', `no tensor ${quote(t.name ?? '')}`);
      }
      return origin.reader.read(origin.tensor);
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
