// Tensor references on a command line: `file.npy`, `file.npz:NAME`, `file.safetensors:NAME`.
// Paths may contain ':' themselves, so an input reference is split where an existing file ends
// (the longest such prefix wins), never blindly at the first or last colon.

import { TENSOR_FORMATS, TORCH_EXTENSIONS } from './convert.js';
import { SHARD_INDEX_SUFFIXES } from './shard-index.js';

export interface TensorRef {
  readonly path: string;
  /** The tensor inside a container; undefined picks the only one. */
  readonly name?: string | undefined;
}

/**
 * Splits an input reference. `isFile(path)` says whether a regular file exists there (the Node
 * helpers pass a stat call). The whole string wins when it names a file; otherwise the longest
 * prefix before a ':' that names a file. When nothing exists, the path is the part up to the first
 * `.npz:` / `.safetensors:` / `.npy:` (so the error names the missing container), else the whole
 * reference.
 */
export function resolveTensorRef(ref: string, isFile: (path: string) => boolean): TensorRef {
  if (isFile(ref)) return { path: ref };
  for (let i = ref.lastIndexOf(':'); i > 0; i = ref.lastIndexOf(':', i - 1)) {
    const path = ref.slice(0, i);
    if (isFile(path)) return { path, name: ref.slice(i + 1) };
  }
  return parseOutputRef(ref);
}

/**
 * Splits an output reference (the file need not exist): at the first ':' that follows a tensor
 * file extension, e.g. `rows.safetensors:emb` -> path `rows.safetensors`, name `emb`.
 */
export function parseOutputRef(ref: string): TensorRef {
  const lower = ref.toLowerCase();
  let cut = -1;
  for (const f of TENSOR_FORMATS) {
    const at = lower.indexOf(`.${f}:`);
    if (at >= 0 && (cut < 0 || at + f.length + 1 < cut)) cut = at + f.length + 1;
  }
  return cut < 0 ? { path: ref } : { path: ref.slice(0, cut), name: ref.slice(cut + 1) };
}

/**
 * Splits an http(s) reference, which cannot be checked against the file system: after the first
 * `.safetensors.index.json:` / `.bin.index.json:`, a torch checkpoint's `.bin:` / `.pt:` / `.pth:`,
 * else `.safetensors:`, `.npz:` or `.npy:` (as outputs are split), so a
 * URL's own colons (scheme, port) never cut it. The name ends at a `?`: what follows is the URL's
 * query (`https://host/m.safetensors:embed?token=…`), sent with it and never printed, as a name is.
 */
export function parseUrlRef(ref: string): TensorRef {
  const split = splitUrlRef(ref);
  const query = split.name?.indexOf('?') ?? -1;
  if (split.name === undefined || query < 0) return split;
  return { path: split.path + split.name.slice(query), name: split.name.slice(0, query) };
}

function splitUrlRef(ref: string): TensorRef {
  const lower = ref.toLowerCase();
  const torch = ['bin', ...TORCH_EXTENSIONS].map((e) => `.${e}`);
  for (const suffix of [...SHARD_INDEX_SUFFIXES, ...torch]) {
    const at = lower.indexOf(`${suffix}:`);
    if (at >= 0)
      return { path: ref.slice(0, at + suffix.length), name: ref.slice(at + suffix.length + 1) };
  }
  return parseOutputRef(ref);
}

/** `a/b/model.safetensors` -> `model`: the default name of a tensor stored into a container. */
export function fileStem(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}
