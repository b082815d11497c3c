// A sharded checkpoint's `*.safetensors.index.json` (or `*.bin.index.json` over torch.save shards),
// as Hugging Face writes it:
// {"metadata": {"total_size": N, ...}, "weight_map": {"tensor name": "shard file name", ...}}.
// Pure: text in, the map out, every rule checked before any shard is opened. Shard names are
// relative to the index's folder and may not leave it (no absolute path, no `..`), so an index
// cannot make tensorops read a file its author did not put beside it.

import { TensorOpsError } from '@tensorops/core';
import { isJsonNumber, isJsonObject, jsonKind, parseStrictJson } from './strict-json.js';
import { quote } from './text.js';

/** The index names Hugging Face writes: `model.safetensors.index.json`, `pytorch_model.bin.index.json`. */
export const SHARD_INDEX_SUFFIXES: readonly string[] = [
  '.safetensors.index.json',
  '.bin.index.json',
];

export interface ShardIndex {
  /** Tensor name -> shard name, in the index's order (the names are unique). */
  readonly weightMap: ReadonlyMap<string, string>;
  /** The distinct shard names, in order of first appearance. */
  readonly shards: readonly string[];
  /** `metadata.total_size` when the index gives it as an integer, else null. */
  readonly totalSize: number | null;
}

/** True for the names Hugging Face gives a sharded checkpoint's index (`model.safetensors.index.json`). */
export function isShardIndexPath(path: string): boolean {
  const lower = path.toLowerCase();
  return SHARD_INDEX_SUFFIXES.some((s) => lower.endsWith(s));
}

/** The format of the shards an index names: `*.bin.index.json` indexes torch.save checkpoints. */
export function shardFormatOf(indexPath: string): 'torch' | 'safetensors' {
  return indexPath.toLowerCase().endsWith('.bin.index.json') ? 'torch' : 'safetensors';
}

function fail(message: string): never {
  throw new TensorOpsError('E_FORMAT', message);
}

/**
 * True when a shard name may lead out of the index's folder. Allowed: relative, `/`-separated,
 * no `.` / `..` / empty segments, no backslash, no colon in the first segment (scheme, drive).
 */
function escapes(shard: string): boolean {
  if (shard.startsWith('/') || shard.includes('\\') || shard.includes('\0')) return true;
  const segments = shard.split('/');
  if ((segments[0] as string).includes(':')) return true;
  return segments.some((s) => s === '' || s === '.' || s === '..');
}

/** Parses and checks an index: a JSON object whose `weight_map` maps names to safe shard names. */
export function parseShardIndex(text: string): ShardIndex {
  const doc = parseStrictJson(text, 'index');
  if (!isJsonObject(doc)) fail(`index must be a JSON object, got ${jsonKind(doc)}`);
  const map = doc.entries.get('weight_map');
  if (map === undefined) fail("index has no 'weight_map'");
  if (!isJsonObject(map)) fail(`'weight_map' must be an object, got ${jsonKind(map)}`);
  const weightMap = new Map<string, string>();
  const shards = new Set<string>();
  for (const [name, shard] of map.entries) {
    if (typeof shard !== 'string') {
      fail(`'weight_map' value for ${quote(name)} must be a string, got ${jsonKind(shard)}`);
    }
    if (escapes(shard)) {
      throw new TensorOpsError(
        'E_FORMAT',
        `shard ${quote(shard)} of tensor ${quote(name)} leaves the index's folder: shard names must be relative, without '..'`,
      );
    }
    shards.add(shard);
    weightMap.set(name, shard);
  }
  const metadata = doc.entries.get('metadata');
  const total = isJsonObject(metadata) ? metadata.entries.get('total_size') : undefined;
  const totalSize = isJsonNumber(total) ? Number(total.text) : Number.NaN;
  return {
    weightMap,
    shards: [...shards],
    totalSize: Number.isSafeInteger(totalSize) ? totalSize : null,
  };
}
