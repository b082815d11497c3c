// Assembles wasm/digest.wat into src/wasm/digest-binary.ts (see the repository's scripts/wasm.mjs).
import { buildWasm } from '../../../scripts/wasm.mjs';

await buildWasm('digest');
