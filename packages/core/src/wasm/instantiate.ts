// Instantiating a package's WebAssembly module. Each package owns its module: core's scalar
// kernels (packages/core/wasm/kernels.wat.mjs, loaded by runtime.ts), gather-tree's SIMD walk
// (packages/gather-tree/wasm/tree.wat.mjs), io's block mover and GGUF dequantizers
// (packages/io/wasm/blocks.wat.mjs and quants.wat.mjs).
// The on/off switch of them all (setWasmKernelsEnabled) is here too.
//
// wasmModule gives one instance per module, whose memory is a reusable staging area: callers
// stage the bytes a step needs into it (TypedArray.set, a memmove) and copy the result out. It
// stays small and warm: reused by every call instead of being a fresh allocation that
// page-faults on first touch. wasmWithOwnMemory gives a new instance per call over a memory of its
// own, sized once and never grown, for buffers a run holds throughout (the passes' arena).
//
// Everything here is optional. Where WebAssembly is missing or refuses a module (a
// Content-Security-Policy without 'wasm-unsafe-eval', or an engine without an instruction set
// the module uses), the loader returns null and the op uses its JavaScript loops, which compute
// the same bytes. Modules load independently: one refused module (no SIMD) leaves the others
// working.

/** The staging area never grows past this; a step that needs more uses the JavaScript path. */
export const STAGING_MAX_BYTES = 256 * 1024 * 1024;
const PAGE_BYTES = 65536;

/**
 * Outputs smaller than this keep to the JavaScript loops: they take microseconds either way, and
 * a process that only runs small ops (a CLI call on a small file) skips compiling the modules
 * (well under a millisecond each).
 */
export const WASM_MIN_OUTPUT_BYTES = 64 * 1024;

/** An instantiated module: its exports and its memory as a staging area. */
export interface WasmInstance {
  readonly exports: Readonly<Record<string, unknown>>;
  /** A view of the whole memory, at least `bytes` long (grows it), or null above the cap. */
  staging(bytes: number): Uint8Array | null;
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}

/** An own memory (wasmWithOwnMemory) never passes this: above it, the caller's JavaScript path. */
export const OWN_MEMORY_MAX_BYTES = 2 ** 31;

let enabled = true;
let minOutputBytes = WASM_MIN_OUTPUT_BYTES;

/**
 * Turns every package's WebAssembly kernels off (false) or back on, optionally for outputs of
 * any size. The JavaScript loops compute the same bytes; the switch exists so that tests can
 * check both paths against each other on small tensors.
 */
export function setWasmKernelsEnabled(on: boolean, minBytes = WASM_MIN_OUTPUT_BYTES): void {
  enabled = on;
  minOutputBytes = minBytes;
}

/**
 * A loader for the module `bytes`: called with an op's output size, it returns `bind`'s view of
 * the instance, or null when WebAssembly is unavailable, refuses the module or is turned off, or
 * the output is small. The module is compiled and instantiated on first use, once.
 */
export function wasmModule<T>(
  bytes: Uint8Array,
  bind: (instance: WasmInstance) => T,
): (outputBytes: number) => T | null {
  let bound: T | null | undefined;
  return (outputBytes) => {
    if (!enabled || outputBytes < minOutputBytes) return null;
    if (bound === undefined) {
      const instance = instantiate(bytes);
      bound = instance === null ? null : bind(instance);
    }
    return bound;
  };
}

/** A fresh instance with a memory of its own: its exports and that memory's buffer. */
export interface WasmOwnMemoryInstance {
  readonly exports: Readonly<Record<string, unknown>>;
  /** The instance's whole memory; never grown, so views of it stay valid. */
  readonly memory: ArrayBuffer;
}

/**
 * A loader for the module `bytes`, which imports its memory as "io" "memory": called with a
 * memory size and an op's output size, it returns a new instance over a new zeroed memory of at
 * least that size, for the caller alone, or null when WebAssembly is unavailable, refuses the
 * module or the memory, or is turned off, or the output is small. For a kernel that works in
 * buffers a run holds throughout (handing out views of them), where a shared, growable staging
 * area would be reused or detached under its views. The module is compiled on first use, once.
 */
export function wasmWithOwnMemory(
  bytes: Uint8Array,
): (memoryBytes: number, outputBytes: number) => WasmOwnMemoryInstance | null {
  let compiled: object | null | undefined;
  return (memoryBytes, outputBytes) => {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (!enabled || outputBytes < minOutputBytes || api === undefined) return null;
    if (memoryBytes > OWN_MEMORY_MAX_BYTES || compiled === null) return null;
    try {
      compiled ??= new api.Module(bytes);
    } catch {
      compiled = null; // refused once, refused for good
      return null;
    }
    try {
      const pages = Math.max(1, Math.ceil(memoryBytes / PAGE_BYTES));
      const memory = new api.Memory({ initial: pages, maximum: pages });
      const { exports } = new api.Instance(compiled, { io: { memory } });
      return { exports, memory: memory.buffer };
    } catch {
      return null; // a memory the engine could not reserve now may fit in a later run
    }
  };
}

function instantiate(bytes: Uint8Array): WasmInstance | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) return null;
  let exports: Record<string, unknown>;
  try {
    // Synchronous compile keeps every kernel call synchronous. The modules are a few KiB:
    // browsers compile up to 8 MB synchronously on the main thread.
    exports = new api.Instance(new api.Module(bytes), {}).exports;
  } catch {
    return null;
  }
  const memory = exports.memory as WasmMemory;
  let view = new Uint8Array(memory.buffer);
  return {
    exports,
    staging(size) {
      if (size > STAGING_MAX_BYTES) return null;
      if (size > memory.buffer.byteLength) {
        memory.grow(Math.ceil((size - memory.buffer.byteLength) / PAGE_BYTES));
      }
      // grow() detaches the old buffer; a view made before it would read nothing.
      if (view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer);
      return view;
    },
  };
}
