// Assembles wasm/blocks.wat into src/wasm/blocks-binary.ts (see the repository's scripts/wasm.mjs).
import { buildWasm } from '../../../scripts/wasm.mjs';

await buildWasm('blocks');
