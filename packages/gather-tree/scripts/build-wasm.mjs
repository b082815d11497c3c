// Assembles wasm/tree.wat into src/wasm/tree-binary.ts (see the repository's scripts/wasm.mjs).
import { buildWasm } from '../../../scripts/wasm.mjs';

await buildWasm('tree');
