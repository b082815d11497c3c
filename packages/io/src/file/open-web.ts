// Tensor files from a Blob / File or a URL, in any runtime with Blob and fetch: browsers, workers,
// Deno, Node. Everything is read on demand by ranges (Blob slices, HTTP range requests), the
// header first; .npz archives go through zip.js (npz-zipjs.ts). No Node API.

import { type InputFormat, inputFormatOfPath } from '../convert.js';
import { blobSource } from './blob-source.js';
import { ggufReader } from './gguf-file.js';
import { npyReader } from './npy-file.js';
import { npzReaderWeb } from './npz-zipjs.js';
import { type FormatReaders, openTensorSource } from './open.js';
import { type OpenUrlOptions, openUrlWith } from './open-url.js';
import { pageUrl } from './page-url.js';
import { safetensorsReader } from './safetensors-file.js';
import type { TensorFile } from './stored.js';
import { torchReader } from './torch-file.js';

const READERS: FormatReaders = {
  npy: npyReader,
  npz: npzReaderWeb,
  safetensors: safetensorsReader,
  torch: torchReader,
  gguf: ggufReader,
};

export interface OpenBlobOptions {
  /** Names the file in messages (default: a File's name, else `blob`); its extension picks the format. */
  readonly label?: string | undefined;
  /** Overrides the format the label's extension implies (default: by the first bytes). */
  readonly format?: InputFormat | undefined;
}

/**
 * Opens a Blob or File (say from `<input type="file">` or a drop) as a tensor file: reads its
 * header (or zip directory) only, as slices of the Blob; tensors and gathers read only the slices
 * they need. Close it when done.
 */
export function openTensorBlob(blob: Blob, options: OpenBlobOptions = {}): Promise<TensorFile> {
  const source = blobSource(blob, options.label);
  return openTensorSource(source, options.format ?? inputFormatOfPath(source.label), READERS);
}

/**
 * Opens a `http://` / `https://` URL as a tensor file, read by range requests with the runtime's
 * fetch (see HttpSourceOptions for the rules); a `*.safetensors.index.json` URL opens the sharded
 * checkpoint it describes, its shards beside it. In a page a relative URL ('/x.safetensors') is
 * resolved against the document's base, as fetch() resolves it. Close it when done.
 */
export function openTensorUrl(url: string, options: OpenUrlOptions = {}): Promise<TensorFile> {
  return openUrlWith(pageUrl(url), options, READERS);
}
