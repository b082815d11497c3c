// `pnpm demo`: runs the built CLI on the files in examples/ and prints what a person can read.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../apps/cli/dist/tensorops.cjs', import.meta.url).pathname;
const examples = new URL('../examples/', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'tensorops-demo-'));

function tensorops(args, input) {
  const shown = args.map((a) => a.replace(examples, 'examples/').replace(work, '$TMP'));
  console.log(`\n$ tensorops ${shown.join(' ')}`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    input,
    encoding: input ? undefined : 'utf8',
  });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exit(r.status ?? 1);
  }
  return r.stdout;
}

try {
  const e = (f) => join(examples, f);
  process.stdout.write(
    tensorops(['gather', e('embeddings.npy'), e('ids.npy'), '--axis', '0', '--json']),
  );
  tensorops([
    'gather',
    e('sequences.npy'),
    e('positions.npy'),
    '--axis',
    '2',
    '--batch-dims',
    '1',
    '-o',
    join(work, 'picked.npy'),
  ]);
  process.stdout.write(
    tensorops([
      'gather',
      join(work, 'picked.npy'),
      e('ids.npy'),
      '--axis',
      '0',
      '--oob',
      'zero',
      '--json',
    ]),
  );
  console.log(
    '\ndemo ok: gathered embeddings rows, per-batch positions, and out-of-range ids filled with zeros',
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
