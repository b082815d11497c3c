import { afterEach, describe, expect, it } from 'vitest';
import { setWasmKernelsEnabled, wasmModule } from './instantiate.js';
import { KERNELS_WASM } from './kernels-binary.js';
import { wasmKernels } from './runtime.js';

afterEach(() => setWasmKernelsEnabled(true));

describe('wasmModule', () => {
  it('binds the instance once, on first use', () => {
    let binds = 0;
    const load = wasmModule(KERNELS_WASM, (instance) => {
      binds++;
      return instance;
    });
    expect(binds).toBe(0);
    const first = load(Number.POSITIVE_INFINITY);
    expect(typeof first?.exports.take_i64_4).toBe('function');
    expect(load(Number.POSITIVE_INFINITY)).toBe(first);
    expect(binds).toBe(1);
  });

  it('gives null for a module the engine refuses, and the other modules keep working', () => {
    // A valid header followed by a section the engine does not know: refused at compile time,
    // as an engine without SIMD refuses GatherTree's module.
    const refused = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x7f, 0x01]);
    let binds = 0;
    const load = wasmModule(refused, () => binds++);
    expect(load(Number.POSITIVE_INFINITY)).toBeNull();
    expect(binds).toBe(0);
    expect(wasmKernels(Number.POSITIVE_INFINITY)).not.toBeNull();
  });
});
