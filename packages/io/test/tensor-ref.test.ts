import { describe, expect, it } from 'vitest';
import { fileStem, formatOfPath, parseOutputRef, resolveTensorRef } from '../src/index.js';
import { parseUrlRef } from '../src/tensor-ref.js';

describe('resolveTensorRef', () => {
  const files = new Set(['model.safetensors', 'a:b.npz', 'a', 'dir/x.npy', 'c:\\w\\m.npz']);
  const isFile = (p: string): boolean => files.has(p);

  it('takes the whole reference when it names a file, colons and all', () => {
    expect(resolveTensorRef('a:b.npz', isFile)).toEqual({ path: 'a:b.npz' });
    expect(resolveTensorRef('dir/x.npy', isFile)).toEqual({ path: 'dir/x.npy' });
  });

  it('splits at the longest existing prefix', () => {
    expect(resolveTensorRef('model.safetensors:embed.weight', isFile)).toEqual({
      path: 'model.safetensors',
      name: 'embed.weight',
    });
    // 'a' exists too, but 'a:b.npz' is longer.
    expect(resolveTensorRef('a:b.npz:w:1', isFile)).toEqual({ path: 'a:b.npz', name: 'w:1' });
    expect(resolveTensorRef('c:\\w\\m.npz:x', isFile)).toEqual({ path: 'c:\\w\\m.npz', name: 'x' });
    expect(resolveTensorRef('model.safetensors:', isFile)).toEqual({
      path: 'model.safetensors',
      name: '',
    });
  });

  it('names the missing container when nothing exists', () => {
    expect(resolveTensorRef('missing.npz:w', isFile)).toEqual({ path: 'missing.npz', name: 'w' });
    expect(resolveTensorRef('nothing:here', isFile)).toEqual({ path: 'nothing:here' });
  });
});

describe('parseOutputRef, formatOfPath, fileStem', () => {
  it('splits after the first tensor-file extension followed by a colon', () => {
    expect(parseOutputRef('out.npz')).toEqual({ path: 'out.npz' });
    expect(parseOutputRef('out.SAFETENSORS:emb')).toEqual({ path: 'out.SAFETENSORS', name: 'emb' });
    expect(parseOutputRef('d/o.npz:a.npz:b')).toEqual({ path: 'd/o.npz', name: 'a.npz:b' });
    expect(parseOutputRef('x:y.bin')).toEqual({ path: 'x:y.bin' });
  });

  it('maps extensions to formats, case-insensitively', () => {
    expect(['a.npy', 'b.NPZ', 'c.safetensors', 'd.bin', 'npy'].map(formatOfPath)).toEqual([
      'npy',
      'npz',
      'safetensors',
      undefined,
      undefined,
    ]);
  });

  it('stems drop the folder and the last extension', () => {
    expect(
      ['a/b/model.safetensors', 'rows.npy', 'noext', 'x.tar.npz', '.hidden'].map(fileStem),
    ).toEqual(['model', 'rows', 'noext', 'x.tar', '.hidden']);
  });
});

describe('parseUrlRef', () => {
  it('cuts after a tensor file extension, never at the scheme or the port', () => {
    expect(parseUrlRef('https://h:8080/m.safetensors:embed')).toEqual({
      path: 'https://h:8080/m.safetensors',
      name: 'embed',
    });
    expect(parseUrlRef('https://h/x.npy')).toEqual({ path: 'https://h/x.npy' });
  });

  it('ends the name at a query, which goes with the URL', () => {
    expect(parseUrlRef('https://h/m.safetensors:embed?token=s3cr3t&x=1')).toEqual({
      path: 'https://h/m.safetensors?token=s3cr3t&x=1',
      name: 'embed',
    });
    expect(parseUrlRef('https://h/pytorch_model.bin:a.b:0?sig=1')).toEqual({
      path: 'https://h/pytorch_model.bin?sig=1',
      name: 'a.b:0',
    });
    expect(parseUrlRef('https://h/m.safetensors?token=1')).toEqual({
      path: 'https://h/m.safetensors?token=1',
    });
  });
});
