// What the Chromium test runs in the page: @tensorops/io's main entry, bundled for the browser by
// the test (esbuild). Each function returns plain values the test compares with Node's answers.

import { tensorFrom } from '@tensorops/core';
import {
  collectStream,
  gatherFromFile,
  openTensorBlob,
  openTensorUrl,
  type TensorFile,
} from '../../src/index.js';

function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

// The one DOM API used here (the package's types are the runtime-neutral ones, without the DOM).
declare const document: {
  querySelector(selector: string): { readonly files: ArrayLike<File> | null } | null;
};

/** The files chosen in the page's file input. */
function chosen(index: number): File {
  const file = document.querySelector('input[type=file]')?.files?.[index];
  if (file === undefined) throw new Error(`no file ${index} in the input`);
  return file;
}

/** `name` null (how undefined crosses the DevTools protocol): the file's only tensor. */
async function gatherRows(file: TensorFile, name: string | null, rows: number[]) {
  try {
    const stored = file.get(name ?? undefined);
    const out = gatherFromFile(file, stored, tensorFrom('int32', [rows.length], rows));
    const data = (await collectStream(out)).data;
    return { path: file.path, mode: out.mode, shape: [...out.shape], b64: base64(data) };
  } finally {
    await file.close();
  }
}

const api = {
  /** Rows of a tensor in the `index`-th chosen File. */
  async gatherFile(index: number, name: string | null, rows: number[]) {
    return gatherRows(await openTensorBlob(chosen(index)), name, rows);
  },
  /** Rows of a tensor at a URL. */
  async gatherUrl(url: string, name: string | null, rows: number[]) {
    return gatherRows(await openTensorUrl(url, { tensor: name ?? undefined }), name, rows);
  },
  /** Every tensor of the `index`-th chosen File, read whole. */
  async readAll(index: number) {
    const file = await openTensorBlob(chosen(index));
    try {
      const out = [];
      for (const t of file.tensors) {
        const { dtype, shape, data } = await file.read(t);
        out.push({ name: t.name, dtype, shape: [...shape], b64: base64(data) });
      }
      return out;
    } finally {
      await file.close();
    }
  },
  /** The error reading the one tensor of the `index`-th chosen File gives, or '' when none. */
  async readError(index: number) {
    try {
      const file = await openTensorBlob(chosen(index));
      await file.read(file.get());
      await file.close();
      return '';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  },
};

Object.assign(globalThis, { tensorops: api });

export type PageApi = typeof api;
