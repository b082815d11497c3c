// A tensor file on an HTTP(S) server, read by byte ranges with the runtime's fetch: the header
// with one or two requests, tensors and gathers with only the ranges they need. An index URL
// (`*.safetensors.index.json`) opens its shards beside it. The same in every runtime; the
// caller gives the format readers.

import { inputFormatOfPath } from '../convert.js';
import { type HttpSourceOptions, openHttpSource, printableUrl } from '../remote/http-source.js';
import { isShardIndexPath } from '../shard-index.js';
import { fileError } from './errors.js';
import { type FormatReaders, openTensorSource } from './open.js';
import { openShardedFile, readIndexText } from './sharded-file.js';
import type { ByteSource } from './source.js';
import type { TensorFile } from './stored.js';

export interface OpenUrlOptions {
  /**
   * The one tensor the caller will read. A sharded checkpoint then opens only the shard that
   * holds it, and lists only it; other files ignore this.
   */
  readonly tensor?: string | undefined;
  /** For `http://` / `https://` URLs: headers, `maxDownload`, retries (see HttpSourceOptions). */
  readonly http?: HttpSourceOptions | undefined;
}

export async function openUrlWith(
  url: string,
  options: OpenUrlOptions,
  readers: FormatReaders,
): Promise<TensorFile> {
  const label = printableUrl(url);
  let source: ByteSource;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
    source = await openHttpSource(url, options.http);
  } catch (cause) {
    throw fileError(label, 'read', cause);
  }
  if (!isShardIndexPath(pathname)) {
    return openTensorSource(source, inputFormatOfPath(pathname), readers, options.tensor);
  }
  try {
    let text: string;
    try {
      text = await readIndexText(source);
    } finally {
      await source.close();
    }
    const shardUrl = (shard: string): string =>
      new URL(shard.split('/').map(encodeURIComponent).join('/'), url).href;
    return await openShardedFile(
      label,
      text,
      (shard) => openHttpSource(shardUrl(shard), options.http),
      options.tensor,
    );
  } catch (cause) {
    throw fileError(label, 'read', cause);
  }
}
