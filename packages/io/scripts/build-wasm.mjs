// Assembles wasm/blocks.wat and wasm/quants.wat into src/wasm/NAME-binary.ts (see the repository's scripts/wasm.mjs).
import { buildWasm } from '../../../scripts/wasm.mjs';

await buildWasm('blocks');
await buildWasm('quants');
