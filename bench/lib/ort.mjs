// onnxruntime-node as a peer, installed on demand into bench/.peers (git-ignored) so that the
// workspace's `pnpm install` never pulls its ~110 MB of native binaries.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { oneNodeModel } from './onnx-model.mjs';

export const ORT_VERSION = '1.30.0';
const PEERS = fileURLToPath(new URL('../.peers/', import.meta.url));

/**
 * Loads onnxruntime-node, installing it first when `install` allows. Returns
 * `{ ort }` or `{ skip: reason }`; never throws, so a machine without it still gets the table.
 */
export function loadOrt({ install }) {
  const require = createRequire(`${PEERS}package.json`);
  const tryLoad = () => {
    try {
      return { ort: require('onnxruntime-node') };
    } catch (e) {
      return { skip: `onnxruntime-node not loadable: ${String(e.message).split('\n')[0]}` };
    }
  };
  if (existsSync(`${PEERS}node_modules/onnxruntime-node/package.json`)) return tryLoad();
  if (!install) return { skip: 'onnxruntime-node not installed (--no-install)' };
  mkdirSync(PEERS, { recursive: true });
  if (!existsSync(`${PEERS}package.json`)) {
    writeFileSync(`${PEERS}package.json`, '{ "private": true }\n');
  }
  process.stderr.write(`bench: installing onnxruntime-node@${ORT_VERSION} into bench/.peers ...\n`);
  // --ignore-scripts: its postinstall fetches CUDA/TensorRT providers from NuGet on linux/x64,
  // which the CPU provider does not need (the CPU binaries are inside the npm tarball) and which
  // fails where only the npm registry is reachable. ONNXRUNTIME_NODE_INSTALL=skip says the same
  // to the script should a future npm run it anyway.
  const r = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      PEERS,
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `onnxruntime-node@${ORT_VERSION}`,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
    },
  );
  if (r.status !== 0) {
    const why = (r.error?.message ?? r.stderr?.toString() ?? '').trim().split('\n').pop();
    return { skip: `npm install onnxruntime-node failed: ${why}` };
  }
  return tryLoad();
}

const ORT_TYPES = { float32: 'float32', int32: 'int32', int64: 'int64' };

function ortTensor(ort, t) {
  const Ctor = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array }[t.dtype];
  const view = new Ctor(
    t.data.buffer,
    t.data.byteOffset,
    t.data.byteLength / Ctor.BYTES_PER_ELEMENT,
  );
  return new ort.Tensor(ORT_TYPES[t.dtype], view, [...t.shape]);
}

/**
 * A one-thread CPU session for `op` over `inputs` (name -> Tensor). Returns `run()`, which
 * resolves to the output bytes, and `runInto(dst)`, which has onnxruntime write into a
 * preallocated output (its fastest mode: no output allocation or copy on the JS side).
 */
export async function ortSession(ort, { op, attrs, inputs, outShape, outDtype }) {
  const names = Object.keys(inputs);
  const model = oneNodeModel({
    op,
    attrs,
    inputs: names.map((name) => ({ name, dtype: inputs[name].dtype, shape: inputs[name].shape })),
    output: { name: 'out', dtype: outDtype, shape: outShape },
  });
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = Object.fromEntries(names.map((n) => [n, ortTensor(ort, inputs[n])]));
  const bytes = (t) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return {
    run: async () => bytes((await session.run(feeds)).out),
    runInto: async (dst) => {
      const out = ortTensor(ort, { dtype: outDtype, shape: outShape, data: dst });
      await session.run(feeds, { out });
      return dst;
    },
    release: () => session.release(),
  };
}
