// What each file format can store, and the one conversion tensorops makes on its own: bfloat16
// and float8, which .npy / .npz cannot describe, become float32. Every bfloat16 and float8 value is
// a float32 value, so the conversion is exact; it runs on bits (core's decoders), never through a
// rounding step. Anything that cannot be stored exactly is refused.

import {
  bfloat16ToFloat32Bits,
  checkTensor,
  type Dtype,
  float8ToFloat32Bits,
  isFloat8Dtype,
  isStringDtype,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import { looksLike } from './looks-like.js';
import { npyDescr } from './npy.js';
import { safetensorsDtypeName } from './safetensors.js';
import { isLegacyTorch } from './torch-archive.js';

export type TensorFormat = 'npy' | 'npz' | 'safetensors' | 'gguf';

export const TENSOR_FORMATS: readonly TensorFormat[] = ['npy', 'npz', 'safetensors', 'gguf'];

/** What tensorops reads: the formats it writes, and PyTorch checkpoints (read only). */
export type InputFormat = TensorFormat | 'torch';

/**
 * torch.save's own extensions (`model.pt`, `model.pth`). `.bin` (`pytorch_model.bin`) names raw
 * bytes as often as checkpoints, so such a file is read by its first bytes (see formatOfMagic).
 */
export const TORCH_EXTENSIONS: readonly string[] = ['pt', 'pth'];

/** True for the dtypes that {@link widenToFloat32} converts. */
export function isWidenable(dtype: Dtype): boolean {
  return dtype === 'bfloat16' || isFloat8Dtype(dtype);
}

function storesAsIs(dtype: Dtype, format: TensorFormat): boolean {
  if (format === 'safetensors') return safetensorsDtypeName(dtype) !== undefined;
  try {
    npyDescr(dtype);
    return true;
  } catch {
    return false;
  }
}

/**
 * The dtype `format` stores a `dtype` tensor as: the same dtype, or float32 for bfloat16 / float8
 * that the format lacks. Throws E_DTYPE when no exact representation exists (strings and
 * complex128 in .safetensors).
 */
export function storedDtype(dtype: Dtype, format: TensorFormat, name?: string): Dtype {
  if (storesAsIs(dtype, format)) return dtype;
  if (isWidenable(dtype)) return 'float32';
  const what = name === undefined ? '' : ` (tensor '${name}')`;
  const hint = isStringDtype(dtype)
    ? 'it has no string dtype; keep strings in .npy or .npz'
    : 'it has no complex128; convert to .npy or .npz instead';
  throw new TensorOpsError('E_DTYPE', `.${format} cannot store ${dtype}${what} exactly: ${hint}`);
}

/** float32 little-endian bytes of a bfloat16 or float8 byte buffer (element-aligned). */
export function widenBytesToFloat32(dtype: Dtype, src: Uint8Array): Uint8Array {
  const out = new Uint8Array(
    dtype === 'bfloat16' ? (src.byteLength >>> 1) * 4 : src.byteLength * 4,
  );
  const view = new DataView(out.buffer);
  if (dtype === 'bfloat16') {
    for (let i = 0, o = 0; i + 1 < src.length; i += 2, o += 4) {
      view.setUint32(
        o,
        bfloat16ToFloat32Bits((src[i] as number) | ((src[i + 1] as number) << 8)),
        true,
      );
    }
  } else if (isFloat8Dtype(dtype)) {
    for (let i = 0; i < src.length; i++)
      view.setUint32(i * 4, float8ToFloat32Bits(dtype, src[i] as number), true);
  } else {
    throw new TensorOpsError(
      'E_DTYPE',
      `cannot widen ${dtype} to float32: only bfloat16 and float8`,
    );
  }
  return out;
}

/** A bfloat16 / float8 tensor as the float32 tensor of the same values (exact). */
export function widenToFloat32(t: Tensor): Tensor {
  checkTensor(t, 'tensor');
  return { dtype: 'float32', shape: [...t.shape], data: widenBytesToFloat32(t.dtype, t.data) };
}

/** The format's extension-derived name: `.npy` -> npy, case-insensitive; undefined otherwise. */
export function formatOfPath(path: string): TensorFormat | undefined {
  const lower = path.toLowerCase();
  for (const f of TENSOR_FORMATS) if (lower.endsWith(`.${f}`)) return f;
  return undefined;
}

/** {@link formatOfPath}, and `torch` for torch.save's extensions. */
export function inputFormatOfPath(path: string): InputFormat | undefined {
  const lower = path.toLowerCase();
  return TORCH_EXTENSIONS.some((e) => lower.endsWith(`.${e}`)) ? 'torch' : formatOfPath(path);
}

/**
 * Bytes {@link formatOfMagic} looks at: a zip's first member name included, which torch makes
 * `<file stem>/data.pkl` (a stem is at most 255 bytes on the file systems that wrote it).
 */
export const MAGIC_BYTES = 512;

/** A zip's first bytes (a local header, or the end record of an empty or spanned archive). */
export function isZipMagic(head: Uint8Array): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5 || head[2] === 6);
}

/**
 * The format of a file whose name says nothing, from its first bytes (up to MAGIC_BYTES). A zip
 * whose first member is `.../data.pkl` is a torch checkpoint (torch.save writes it first).
 */
export function formatOfMagic(head: Uint8Array): InputFormat {
  if (head[0] === 0x93 && head[1] === 0x4e && head[2] === 0x55) return 'npy';
  if (isLegacyTorch(head)) return 'torch';
  if (isZipMagic(head)) {
    const nameLength = head.length >= 30 ? (head[26] as number) | ((head[27] as number) << 8) : 0;
    const name = new TextDecoder().decode(head.subarray(30, 30 + nameLength));
    return name === 'data.pkl' || name.endsWith('/data.pkl') ? 'torch' : 'npz';
  }
  if (head[8] === 0x7b) return 'safetensors';
  if (head[0] === 0x47 && head[1] === 0x47 && head[2] === 0x55 && head[3] === 0x46) return 'gguf';
  throw new TensorOpsError(
    'E_FORMAT',
    `not a .npy, .npz, .safetensors or .gguf file: ${looksLike(head) ?? 'its first bytes are none of theirs'}`,
  );
}
