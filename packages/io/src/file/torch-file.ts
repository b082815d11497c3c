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
  foreignDtypeMessage,
  gatherView,
  isLegacyTorch,
  type TorchView,
  torchByteOrder,
  torchDtype,
  torchLayout,
  torchView,
} from '../torch-archive.js';
import { type ByteSource, readExactly } from './source.js';
import { type FormatReader, type StoredTensor, swapUnitOf } from './stored.js';
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

export async function torchReader(source: ByteSource): Promise<FormatReader> {
  refuseLegacy(await readExactly(source, 0, Math.min(14, source.size), 'torch checkpoint'));
  const entries = await readZipDirectory(source);
  const byName = new Map<string, ZipEntry>();
  for (const e of entries) {
    if (e.encrypted)
      throw new TensorOpsError('E_FORMAT', `torch member ${quote(e.name)} is encrypted`);
    if (byName.has(e.name))
      throw new TensorOpsError(
        'E_FORMAT',
        `torch checkpoint has a duplicate member ${quote(e.name)}`,
      );
    byName.set(e.name, e);
  }
  const layout = torchLayout([...byName.keys()]);
  const small = [layout.pickle, ...(layout.byteorder === undefined ? [] : [layout.byteorder])];
  const storages = entries.filter((e) => e.name.startsWith(`${layout.prefix}data/`));
  const wanted = [...small.map((n) => byName.get(n) as ZipEntry), ...storages];
  const starts = await zipDataStarts(source, wanted);
  const startOf = new Map(wanted.map((e, k) => [e, starts[k] as number]));
  const member = (name: string, limit: number) => {
    const e = byName.get(name) as ZipEntry;
    return memberBytes(source, e, startOf.get(e) as number, limit);
  };
  const byteorderText =
    layout.byteorder === undefined
      ? undefined
      : new TextDecoder().decode(await member(layout.byteorder, 16));
  const byteOrder = torchByteOrder(byteorderText);
  const pickle = readTorchPickle(await member(layout.pickle, MAX_TORCH_PICKLE_BYTES));

  const located = new Map<StoredTensor, Located>();
  const sharers = new Map<string, number>();
  for (const r of pickle.tensors) sharers.set(r.storage.key, (sharers.get(r.storage.key) ?? 0) + 1);
  const tensors: StoredTensor[] = [];
  for (const record of pickle.tensors) {
    const key = record.storage.key;
    const entry = byName.get(`${layout.prefix}data/${key}`);
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
    const dt = torchDtype(record.storage.dtype);
    const declared = record.storage.numel * dt.itemSize;
    if (
      !Number.isSafeInteger(declared) ||
      declared > entry.uncompressedSize ||
      entry.compressedSize !== entry.uncompressedSize
    ) {
      throw new TensorOpsError(
        'E_FORMAT',
        `storage ${quote(key)} declares ${record.storage.numel} ${dt.name} elements; its member holds ${entry.uncompressedSize} bytes`,
      );
    }
    const view = torchView(record, record.storage.numel);
    const storageStart = startOf.get(entry) as number;
    const shared = (sharers.get(key) as number) - 1;
    const stored: StoredTensor = {
      name: record.name,
      dtype: dt.dtype,
      displayDtype: dt.name,
      formatDtype: `torch.${dt.name}`,
      shape: [...record.shape],
      nbytes: view.elements * dt.itemSize,
      offset: view.contiguous ? storageStart + view.first * dt.itemSize : null,
      fortranOrder: false,
      byteOrder: dt.itemSize > 1 ? byteOrder : 'none',
      storage: { key, shared, ...(view.contiguous ? {} : { strides: [...record.strides] }) },
      ...(dt.dtype === undefined ? { unloadable: foreignDtypeMessage(record.name, dt.name) } : {}),
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
      if (at === undefined || t.dtype === undefined) {
        throw new TensorOpsError(
          'E_DTYPE',
          t.unloadable ?? `no tensor ${quote(t.name ?? '')} in this checkpoint`,
        );
      }
      const { view, itemSize, record } = at;
      const span = await readExactly(
        source,
        at.storageStart + view.first * itemSize,
        (view.end - view.first) * itemSize,
        `torch tensor ${quote(record.name)}`,
      );
      const data = t.offset !== null ? span : gatherView(record, view, span, itemSize);
      swapBytesInPlace(data, swapUnitOf(t, t.dtype));
      return { dtype: t.dtype, shape: [...t.shape], data };
    },
    async close() {},
  };
}
