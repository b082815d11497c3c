import { afterEach, describe, expect, it } from 'vitest';
import {
  OWN_MEMORY_MAX_BYTES,
  setWasmKernelsEnabled,
  wasmModule,
  wasmWithOwnMemory,
} from './instantiate.js';
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

describe('wasmWithOwnMemory', () => {
  // The smallest module that imports its memory as "io" "memory" and reads it: load8(at).
  // (module (import "io" "memory" (memory 1)) (func (export "load8") (param i32) (result i32)
  //   (i32.load8_u (local.get 0))))
  const READER = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f,
    0x02, 0x0e, 0x01, 0x02, 0x69, 0x6f, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x01,
    0x03, 0x02, 0x01, 0x00, 0x07, 0x09, 0x01, 0x05, 0x6c, 0x6f, 0x61, 0x64, 0x38, 0x00, 0x00, 0x0a,
    0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x2d, 0x00, 0x00, 0x0b,
  ]);

  it('gives every call a zeroed memory of its own, of at least the size asked, which the instance uses', () => {
    const load = wasmWithOwnMemory(READER);
    const a = load(100_000, Number.POSITIVE_INFINITY);
    const b = load(10, Number.POSITIVE_INFINITY);
    if (a === null || b === null) throw new Error('the module did not instantiate');
    expect(a.memory.byteLength).toBe(131072); // two 64 KiB pages
    expect(b.memory.byteLength).toBe(65536);
    expect(new Uint8Array(a.memory).every((x) => x === 0)).toBe(true);
    new Uint8Array(a.memory)[99_999] = 7;
    new Uint8Array(b.memory)[9] = 5;
    const loadA = a.exports.load8 as (at: number) => number;
    const loadB = b.exports.load8 as (at: number) => number;
    expect([loadA(99_999), loadA(9), loadB(9), loadB(99_999 % 65536)]).toEqual([7, 0, 5, 0]);
  });

  it('gives null when turned off, for a small output, above the memory cap, and for a refused module', () => {
    const load = wasmWithOwnMemory(READER);
    setWasmKernelsEnabled(false);
    expect(load(10, Number.POSITIVE_INFINITY)).toBeNull();
    setWasmKernelsEnabled(true, 1000);
    expect(load(10, 999)).toBeNull();
    expect(load(10, 1000)).not.toBeNull();
    expect(load(OWN_MEMORY_MAX_BYTES + 1, 1000)).toBeNull();
    const refused = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x7f, 0x01]);
    expect(wasmWithOwnMemory(refused)(10, Number.POSITIVE_INFINITY)).toBeNull();
  });
});
