// Assembles wasm/kernels.wat into src/wasm/kernels-binary.ts (see the repository's scripts/wasm.mjs).
import { buildWasm } from '../../../scripts/wasm.mjs';

await buildWasm('kernels');
