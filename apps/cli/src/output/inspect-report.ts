import type { InputFormat } from '@tensorops/io';
import type { StoredTensor } from '@tensorops/io/node';
import type { GgufReport } from './inspect-gguf.js';
import type { InspectSummary } from './inspect-summary.js';

// What `inspect` reports: its own result type, shared by the command and the output layer.

/** One tensor in the --json document. Every key is present for every format (null when n/a). */
export interface InspectTensor {
  /** null for a .npy file, whose one tensor has no name. */
  readonly name: string | null;
  /** numpy / ml_dtypes name: float32, bfloat16, float8_e4m3fn, float4_e2m1fn, U5, ... */
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Bytes of data as stored (uncompressed). */
  readonly nbytes: number;
  /**
   * Absolute file offset of the first data byte (in its shard, for a sharded checkpoint); null
   * inside a deflated .npz member.
   */
  readonly offset: number | null;
  /** The shard file that holds the tensor, as the index names it; null outside sharded checkpoints. */
  readonly shard: string | null;
  /** The dtype as the file spells it: a .npy descr ('>i4') or a safetensors name ('BF16'). */
  readonly format_dtype: string;
  readonly fortran_order: boolean;
  /** 'little', 'big', or 'none' (1-byte elements). */
  readonly byte_order: string;
  /** .npz members: 'stored' or 'deflate'; null for the other formats. */
  readonly compression: 'stored' | 'deflate' | null;
  /** .npz members: bytes in the archive; null for the other formats. */
  readonly compressed_nbytes: number | null;
  /**
   * torch checkpoints: the storage the tensor views, how many other tensors view it too (tied
   * weights), and the view's strides when it is not C-contiguous; null for the other formats.
   */
  readonly storage: {
    readonly key: string;
    readonly shared_with: number;
    readonly strides: readonly number[] | null;
  } | null;
}

/**
 * What inspect found in one file. Its tensors are kept as the file describes them, and each is
 * described (describeTensor) only as it is written: 10^5 descriptions kept at once were enough
 * surviving objects to make V8 double its young generation, a third of the run's peak memory.
 */
export interface InspectReport {
  readonly file: string;
  readonly format: InputFormat;
  /** File size in bytes (of the shards read, for a sharded checkpoint). */
  readonly size: number;
  /** How many shards a sharded checkpoint's index names; null for a single file. */
  readonly shards: number | null;
  readonly tensors: readonly StoredTensor[];
  /** .npz members that are not readable tensors (a readme, a refused header), and why. */
  readonly not_tensors: readonly { readonly name: string; readonly reason: string }[];
  /** .safetensors `__metadata__`; null when absent and for .npy / .npz. */
  readonly metadata: Readonly<Record<string, string>> | null;
  /** torch checkpoints: entries of the state dict that are not tensors (0 for the other formats). */
  readonly other_entries: number;
  /** With --summary only: the tensors grouped, and the totals. */
  readonly summary?: InspectSummary;
  /** .gguf files only: version, alignment and the typed metadata. */
  readonly gguf?: GgufReport;
}

/** `tensorops inspect --json`: {"file", "format", "size", "shards", "tensors", "not_tensors", "metadata", ...}. */
export type InspectDocument = Omit<InspectReport, 'tensors'> & {
  readonly tensors: readonly InspectTensor[];
};

/** The --json document of a report, its keys in the report's order. */
export function inspectDocument(report: InspectReport): InspectDocument {
  return { ...report, tensors: report.tensors.map(describeTensor) };
}

export function describeTensor(t: StoredTensor): InspectTensor {
  return {
    name: t.name,
    dtype: t.displayDtype,
    shape: t.shape,
    nbytes: t.nbytes,
    offset: t.shard?.offset ?? t.offset,
    shard: t.shard?.name ?? null,
    format_dtype: t.formatDtype,
    fortran_order: t.fortranOrder,
    byte_order: t.byteOrder,
    compression: t.compression ?? null,
    compressed_nbytes: t.compressedBytes ?? null,
    storage:
      t.storage === undefined
        ? null
        : { key: t.storage.key, shared_with: t.storage.shared, strides: t.storage.strides ?? null },
  };
}
