// A PyTorch checkpoint (torch.save's zip format: `pytorch_model.bin`, `.pt`, `.pth`) from a byte
// source. Opening reads the zip directory, the members' local headers, `byteorder` and data.pkl
// (through the pickle reader, which executes nothing); a storage (`data/KEY`) is never read whole:
// a contiguous view is a plain byte range of its member, as a .safetensors tensor is, and a strided
// view is read as the span of its storage it covers, then gathered. Storages must be stored, as
// torch.save writes them (compressed ones are refused: they could not be read by ranges).

import { TensorOpsError } from '@tensorops/core';
import { swapBytesInPlace } from '../layout.js';
import { quote } from '../text.js';
import { readTorchPickle, type TorchTensorRecord } from '../torch/pickle-records.js';
import {
  gatherView,
  isLegacyTorch,
  type TorchView,
  torchByteOrder,
  torchDtype,
  torchLayout,
  torchView,
} from '../torch-archive.js';
import { type ByteSource, readExactly } from './source.js';
import { type FormatReader, loadableDtype, type StoredTensor, swapUnitOf } from './stored.js';
import { readZipDirectory, type ZipEntry, zipDataStarts } from './zip-directory.js';

/** data.pkl is read whole: a state dict of ten thousand tensors pickles to a few MB. */
const MAX_TORCH_PICKLE_BYTES = 64 << 20;
const STORED = 0;

interface Located {
  readonly record: TorchTensorRecord;
  readonly view: TorchView;
  readonly itemSize: number;
  /** Absolute offset of the storage's first byte. */
  readonly storageStart: number;
}

function refuseLegacy(head: Uint8Array): void {
  if (isLegacyTorch(head)) {
    throw new TensorOpsError(
      'E_FORMAT',
      'a legacy torch.save file (before PyTorch 1.6, not a zip archive); load and save it again with a recent torch to read it',
    );
  }
}

async function memberBytes(
  source: ByteSource,
  entry: ZipEntry,
  start: number,
  limit: number,
): Promise<Uint8Array> {
  if (entry.method !== STORED) {
    throw new TensorOpsError(
      'E_FORMAT',
      `torch member ${quote(entry.name)} is compressed (method ${entry.method}); torch.save stores members uncompressed`,
    );
  }
  if (entry.uncompressedSize !== entry.compressedSize) {
    throw new TensorOpsError(
      'E_FORMAT',
      `torch member ${quote(entry.name)} is stored but declares ${entry.uncompressedSize} bytes in ${entry.compressedSize}`,
    );
  }
  if (entry.uncompressedSize > limit) {
    throw new TensorOpsError(
      'E_FORMAT',
      `torch member ${quote(entry.name)} declares ${entry.uncompressedSize} bytes (limit ${limit})`,
    );
  }
  return readExactly(source, start, entry.uncompressedSize, `torch member ${quote(entry.name)}`);
}

/**
 * An overlapping view (a stride 0, as expand() makes) has more elements than its storage: its
 * bytes come out of nothing, as a zip bomb's do. One larger than its storage and than this is
 * refused, so that a small file cannot make a read allocate without bound.
 */
const MAX_INFLATED_VIEW_BYTES = 64 << 20;

function refuseInflatedView(
  record: TorchTensorRecord,
  view: TorchView,
  values: number,
  bytes: number,
): void {
  if (view.elements > values && bytes > MAX_INFLATED_VIEW_BYTES) {
    throw new TensorOpsError(
      'E_FORMAT',
      `tensor ${quote(record.name)} views ${view.elements} elements of a storage of ${values} (overlapping strides): refused above ${MAX_INFLATED_VIEW_BYTES} bytes`,
    );
  }
}

/** The archive's members by name; encrypted and duplicate members are refused. */
function entriesByName(entries: readonly ZipEntry[]): Map<string, ZipEntry> {
  const byName = new Map<string, ZipEntry>();
  for (const e of entries) {
    const name = quote(e.name);
    if (e.encrypted) throw new TensorOpsError('E_FORMAT', `torch member ${name} is encrypted`);
    if (byName.has(e.name)) {
      throw new TensorOpsError('E_FORMAT', `torch checkpoint has a duplicate member ${name}`);
    }
    byName.set(e.name, e);
  }
  return byName;
}

/** The member holding a tensor's storage: present, stored, and as large as the pickle declares. */
function storageEntry(
  record: TorchTensorRecord,
  itemSize: number,
  entry: ZipEntry | undefined,
): ZipEntry {
  const key = record.storage.key;
  if (entry === undefined) {
    throw new TensorOpsError(
      'E_FORMAT',
      `tensor ${quote(record.name)} names storage ${quote(key)}, which the archive does not have`,
    );
  }
  if (entry.method !== STORED) {
    throw new TensorOpsError(
      'E_FORMAT',
      `torch storage ${quote(entry.name)} is compressed (method ${entry.method}); torch.save stores storages uncompressed, so that they are read by ranges`,
    );
  }
  const declared = record.storage.numel * itemSize;
  const size = entry.uncompressedSize;
  if (!Number.isSafeInteger(declared) || declared > size || entry.compressedSize !== size) {
    throw new TensorOpsError(
      'E_FORMAT',
      `storage ${quote(key)} declares ${record.storage.numel} ${record.storage.dtype} elements; its member holds ${entry.uncompressedSize} bytes`,
    );
  }
  return entry;
}

/**
 * Reads a checkpoint's directory and data.pkl. With `only` (a URL opened for one tensor), only
 * that tensor is listed and only its storage's local header is read: one request, not one per
 * storage (a name the pickle lacks lists them all, for the error that names them).
 */
export async function torchReader(source: ByteSource, only?: string): Promise<FormatReader> {
  refuseLegacy(await readExactly(source, 0, Math.min(14, source.size), 'torch checkpoint'));
  const byName = entriesByName(await readZipDirectory(source));
  const layout = torchLayout([...byName.keys()]);
  const small = [layout.pickle, layout.byteorder].flatMap((n) =>
    n === undefined ? [] : [byName.get(n) as ZipEntry],
  );
  const smallStarts = await zipDataStarts(source, small);
  const member = (k: number, limit: number) =>
    memberBytes(source, small[k] as ZipEntry, smallStarts[k] as number, limit);
  const byteOrder = torchByteOrder(
    layout.byteorder === undefined ? undefined : new TextDecoder().decode(await member(1, 16)),
  );
  const pickle = readTorchPickle(await member(0, MAX_TORCH_PICKLE_BYTES));
  const sharers = new Map<string, number>();
  for (const r of pickle.tensors) sharers.set(r.storage.key, (sharers.get(r.storage.key) ?? 0) + 1);
  const listed =
    only !== undefined && pickle.tensors.some((r) => r.name === only)
      ? pickle.tensors.filter((r) => r.name === only)
      : pickle.tensors;
  const checked = listed.map((record) => {
    const dt = torchDtype(record.storage.dtype);
    const found = byName.get(`${layout.prefix}data/${record.storage.key}`);
    return { record, dt, entry: storageEntry(record, dt.itemSize, found) };
  });
  const storages = [...new Set(checked.map((c) => c.entry))];
  const starts = await zipDataStarts(source, storages);
  const startOf = new Map(storages.map((e, k) => [e, starts[k] as number]));

  const located = new Map<StoredTensor, Located>();
  const tensors: StoredTensor[] = [];
  for (const { record, dt, entry } of checked) {
    const key = record.storage.key;
    const packing = dt.valuesPerElement;
    const values = record.storage.numel * packing;
    const view = torchView(record, values);
    const nbytes = Math.ceil(view.elements / packing) * dt.itemSize;
    refuseInflatedView(record, view, values, nbytes);
    const storageStart = startOf.get(entry) as number;
    const shared = (sharers.get(key) as number) - 1;
    // A packed view need not start on a byte: it has no byte range.
    const ranged = view.contiguous && packing === 1;
    const stored: StoredTensor = {
      name: record.name,
      dtype: dt.dtype,
      displayDtype: record.storage.dtype,
      formatDtype: `torch.${record.storage.dtype}`,
      ...(dt.dtype === undefined ? { unloadable: 'which tensorops cannot hold' } : {}),
      shape: [...record.shape],
      nbytes,
      offset: ranged ? storageStart + view.first * dt.itemSize : null,
      fortranOrder: false,
      byteOrder: dt.itemSize > 1 ? byteOrder : 'none',
      storage: { key, shared, ...(view.contiguous ? {} : { strides: [...record.strides] }) },
    };
    located.set(stored, { record, view, itemSize: dt.itemSize, storageStart });
    tensors.push(stored);
  }
  return {
    format: 'torch',
    tensors,
    metadata: null,
    otherEntries: pickle.otherEntries,
    rangedStreams: true,
    async read(t) {
      const at = located.get(t);
      if (at === undefined) {
        throw new TensorOpsError(
          'E_TENSOR_NOT_FOUND',
          `no tensor ${quote(t.name ?? '')} in this checkpoint`,
        );
      }
      const dtype = loadableDtype(t);
      const { view, itemSize, record } = at;
      const span = await readExactly(
        source,
        at.storageStart + view.first * itemSize,
        (view.end - view.first) * itemSize,
        `torch tensor ${quote(record.name)}`,
      );
      const data = t.offset !== null ? span : gatherView(record, view, span, itemSize);
      swapBytesInPlace(data, swapUnitOf(t, dtype));
      return { dtype, shape: [...t.shape], data };
    },
    async close() {},
  };
}
