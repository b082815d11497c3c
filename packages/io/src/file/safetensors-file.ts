// .safetensors from a file: 8 bytes, then the header (at most 100 MB), validated against the file
// size; tensors are read later, each from its own byte range.

import {
  parseSafetensorsHeader,
  SAFETENSORS_MAX_HEADER_BYTES,
  safetensorsDisplayDtype,
  safetensorsHeaderLength,
} from '../safetensors.js';
import { type ByteSource, readExactly } from './source.js';
import { type FormatReader, loadableDtype, type StoredTensor } from './stored.js';

export async function safetensorsReader(source: ByteSource): Promise<FormatReader> {
  const prefix = await readExactly(
    source,
    0,
    Math.min(8, source.size),
    '.safetensors header length',
  );
  const n = safetensorsHeaderLength(prefix, source.size);
  // n <= 100 MB and 8 + n <= the file size: both checked before this allocation.
  const head = await readExactly(
    source,
    0,
    8 + Math.min(n, SAFETENSORS_MAX_HEADER_BYTES),
    '.safetensors header',
  );
  const { tensors: entries, metadata, dataOffset } = parseSafetensorsHeader(head, source.size);
  // Only what the tensors need outlives this call: `read` below closes over this scope, and the
  // header's own entries would otherwise stay reachable through it.
  const tensors: StoredTensor[] = entries.map((e) => ({
    name: e.name,
    dtype: e.dtype,
    displayDtype: safetensorsDisplayDtype(e.formatDtype),
    formatDtype: e.formatDtype,
    shape: e.shape,
    nbytes: e.end - e.begin,
    offset: dataOffset + e.begin,
    fortranOrder: false,
    byteOrder: 'little',
  }));
  return {
    format: 'safetensors',
    tensors,
    metadata,
    rangedStreams: true,
    async read(t) {
      const dtype = loadableDtype(t);
      const data = await readExactly(source, t.offset as number, t.nbytes, '.safetensors data');
      return { dtype, shape: [...t.shape], data };
    },
    async close() {},
  };
}
