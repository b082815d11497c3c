import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, tempDir, tensorops } from './helpers.js';

const fx = (name: string): string => join(REPO, 'fixtures', 'cli', `${name}.npy`);
const golden = (name: string): Buffer => readFileSync(fx(name));

describe('tensorops gather-elements', () => {
  it('equals np.take_along_axis byte for byte (negative indices too)', () => {
    const r = tensorops(['gather-elements', fx('data'), fx('ge_idx'), '--axis', '1']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.equals(golden('ge_axis1'))).toBe(true);
  });

  it('names the offending index, its position and the range', () => {
    const r = tensorops(['gather-elements', fx('data'), fx('ge_bad_idx'), '--axis', '1']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'tensorops: error: GatherElements: index 5 out of range [-5, 4] at indices[1,2,3] (axis=1)\n',
    );
  });

  it('refuses indices larger than data off the axis', () => {
    const r = tensorops(['gather-elements', fx('data'), fx('ge_idx'), '--axis', '2']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('GatherElements: indices dim 1 is 7, larger than data dim 1 (5)');
  });
});

describe('tensorops gather-nd', () => {
  it('equals numpy fancy indexing', () => {
    const dir = tempDir();
    const out = join(dir, 'nd.npy');
    const r = tensorops(['gather-nd', fx('data'), fx('nd_idx'), '-o', out]);
    expect(r.status).toBe(0);
    expect(readFileSync(out).equals(golden('nd_take'))).toBe(true);
  });

  it('--batch-dims keeps the batch dims; --flatten-batch fuses them (GatherND-5 shape)', () => {
    const kept = tensorops(['gather-nd', fx('data'), fx('nd_bidx'), '--batch-dims', '1']);
    expect(kept.status).toBe(0);
    expect(kept.stdout.equals(golden('nd_batch1'))).toBe(true);
    const two = tensorops(['gather-nd', fx('data'), fx('nd_b2idx'), '--batch-dims', '2']);
    expect(two.status).toBe(0);
    expect(two.stdout.equals(golden('nd_batch2'))).toBe(true);
    const fused = tensorops([
      'gather-nd',
      fx('data'),
      fx('nd_b2idx'),
      '--batch-dims',
      '2',
      '--flatten-batch',
    ]);
    expect(fused.status).toBe(0);
    // Same elements, shape [15] instead of [3, 5]: only the header differs.
    const expected = tensorops([
      'gather-nd',
      fx('data'),
      fx('nd_b2idx'),
      '--batch-dims',
      '2',
      '--json',
    ]);
    const fusedJson = tensorops([
      'gather-nd',
      fx('data'),
      fx('nd_b2idx'),
      '--batch-dims',
      '2',
      '--flatten-batch',
      '--json',
    ]);
    expect(JSON.parse(fusedJson.stdout.toString()).shape).toEqual([15]);
    expect(JSON.parse(fusedJson.stdout.toString()).data).toEqual(
      JSON.parse(expected.stdout.toString()).data.flat(),
    );
  });

  it('rejects k larger than the data rank allows', () => {
    const r = tensorops(['gather-nd', fx('idx'), fx('nd_bidx'), '--batch-dims', '1']);
    expect(r.status).toBe(1);
    expect(r.stderr.startsWith('tensorops: error: GatherND: ')).toBe(true);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });
});

describe('tensorops gather-tree and beams', () => {
  const inputs = [fx('gt_steps'), fx('gt_parents'), fx('gt_lengths')];

  it('gather-tree writes the back-tracked beams (TF Addons example)', () => {
    const r = tensorops(['gather-tree', ...inputs, '--end-token', '10']);
    expect(r.status).toBe(0);
    expect(r.stdout.equals(golden('gt_expected'))).toBe(true);
  });

  it('beams piped: one line per beam, cut at the end token', () => {
    const r = tensorops(['beams', ...inputs, '--end-token', '8']);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe('2 6 7\n2 5\n2 6 9\n');
  });

  it('beams --json: one document with lengths', () => {
    const r = tensorops(['beams', ...inputs, '--end-token', '8', '--include-end', '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout.toString());
    expect(doc.beams.map((b: { tokens: number[] }) => b.tokens)).toEqual([
      [2, 6, 7],
      [2, 5, 8],
      [2, 6, 9],
    ]);
    expect(doc.beams.map((b: { length: number }) => b.length)).toEqual([3, 3, 3]);
  });

  it('an end token that does not fit the step dtype is a data error', () => {
    const r = tensorops(['gather-tree', ...inputs, '--end-token', '2.5']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'tensorops: error: GatherTree: end_token 2.5 does not fit step_ids dtype int32 (integers in [-2147483648, 2147483647])\n',
    );
  });

  it('--end-token is required and must be a number', () => {
    expect(tensorops(['gather-tree', ...inputs]).status).toBe(2);
    const r = tensorops(['beams', ...inputs, '--end-token', 'eos']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("tensorops: error: --end-token takes a number, got 'eos'\n");
  });
});
