// A byte source opened as a tensor file: the format by extension when the caller knows one, else
// by the first bytes, then that format's reader. The runtime gives the readers (the .npz reader
// differs: yauzl in Node, zip.js elsewhere); the rest is the same everywhere.

import { formatOfMagic, type InputFormat, MAGIC_BYTES } from '../convert.js';
import { fileError } from './errors.js';
import type { ByteSource } from './source.js';
import { type FormatReader, type TensorFile, tensorFile } from './stored.js';

/**
 * One reader per format: reads the header (or zip directory) of a source. `only` names the one
 * tensor the caller will read, for a reader that can then read less (torch over HTTP).
 */
export type FormatReaders = Readonly<
  Record<InputFormat, (source: ByteSource, only?: string) => Promise<FormatReader>>
>;

/** The format of a file whose extension says nothing, from its first bytes. */
async function sniff(source: ByteSource): Promise<InputFormat> {
  const head = new Uint8Array(Math.min(MAGIC_BYTES, source.size));
  await source.read(head, 0);
  return formatOfMagic(head);
}

/**
 * Reads the header of `source` as a file of `format` (by magic bytes when undefined). The source
 * is closed when that fails; errors name it by its label.
 */
export async function openTensorSource(
  source: ByteSource,
  format: InputFormat | undefined,
  readers: FormatReaders,
  only?: string,
): Promise<TensorFile> {
  try {
    const reader = await readers[format ?? (await sniff(source))](source, only);
    return tensorFile(source, reader);
  } catch (cause) {
    await source.close().catch(() => {});
    throw fileError(source.label, 'read', cause);
  }
}
