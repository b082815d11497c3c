// Whole-process timings, side by side, median of N runs each (interleaved so load drifts hit all alike):
// `tensorops gather` on tiny files vs `node -e 0` vs the numpy one-liner. Usage: node scripts/startup-timing.mjs [N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 21);
const bin = new URL('../apps/cli/dist/tensorops.cjs', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'tensorops-startup-'));
const py = (code) => ['python3', ['-c', code]];
spawnSync(
  ...py(
    `import numpy as np; np.save('${dir}/d.npy', np.arange(12, dtype=np.float32).reshape(3, 4)); np.save('${dir}/i.npy', np.array([0, 2]))`,
  ),
);

const commands = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'tensorops gather': [
    process.execPath,
    [bin, 'gather', `${dir}/d.npy`, `${dir}/i.npy`, '--axis', '1', '-o', `${dir}/t.npy`],
  ],
  'numpy one-liner': py(
    `import numpy as np; np.save('${dir}/o.npy', np.take(np.load('${dir}/d.npy'), np.load('${dir}/i.npy'), axis=1))`,
  ),
};
const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, [cmd, args]] of Object.entries(commands)) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${name} failed`);
    times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const numpy = median(times['numpy one-liner']);
const node = median(times['node -e 0']);
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  console.log(
    `${name.padEnd(18)} ${m.toFixed(1).padStart(7)} ms   x numpy ${(m / numpy).toFixed(2)}   x node ${(m / node).toFixed(2)}`,
  );
}
rmSync(dir, { recursive: true, force: true });
