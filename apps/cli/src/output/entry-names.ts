import { fileStem } from '@tensorops/io';
import type { NamedTensorData } from '@tensorops/io/node';
import type { OutputFormat } from '../format/output-format.js';
import type { Entry } from './entry.js';

/**
 * The names `entries` are stored under. A single tensor in a container is named, in this order:
 * the :NAME of the target, its own name (from the file it came from), the target's stem; on
 * standard output an unnamed one is numpy's arr_0 in a container, and .npy stores no name at all.
 */
export function nameEntries(
  entries: readonly Entry[],
  format: OutputFormat,
  ref: { readonly path: string; readonly name?: string } | undefined,
): NamedTensorData[] {
  const name = ref?.name;
  const fallback = ref !== undefined ? fileStem(ref.path) : format === 'npy' ? '' : 'arr_0';
  return entries.map((e) => ({
    name: entries.length === 1 ? (name ?? e.name ?? fallback) : (e.name ?? fallback),
    data: e.data,
  }));
}
