// The WebAssembly kernel of @tensorops/io's passes strategy (src/fast/passes/), as
// WebAssembly text. `pnpm wat` writes the text to wasm/blocks.wat (committed);
// scripts/build-wasm.mjs assembles that file into src/wasm/blocks-binary.ts at build time.
//
// move_blocks(order, offsets, from, to, base, firstAt, secondAt, split, blockBytes)
//   for slot in [from, to): i = order[slot] (int32), s = offsets[i] (float64) - base,
//   d = i < split ? firstAt + i * blockBytes : secondAt + (i - split) * blockBytes,
//   then the blockBytes bytes at s move to d (memory.copy, a memmove).
// The same loop as src/fast/passes/block-copies.ts's moveBlocks, which calls
// TypedArray.copyWithin once per block: the call costs more than a short block's copy. Scalar and
// bulk-memory instructions only. The memory is imported, so that each run owns one sized to its
// buffers and never grown: views of it (the chunks handed to the consumer) stay valid for the
// whole run. All addresses are byte offsets into that memory; the caller keeps every block inside it.

export function blocksWat() {
  return `(module
  (import "io" "memory" (memory 1))
  (func (export "move_blocks")
    (param $order i32) (param $offsets i32) (param $from i32) (param $to i32) (param $base f64)
    (param $firstAt i32) (param $secondAt i32) (param $split i32) (param $blockBytes i32)
    (local $slot i32) (local $end i32) (local $i i32) (local $d i32)
    (local.set $slot (i32.add (local.get $order) (i32.shl (local.get $from) (i32.const 2))))
    (local.set $end (i32.add (local.get $order) (i32.shl (local.get $to) (i32.const 2))))
    (block $done (loop $blocks
      (br_if $done (i32.ge_u (local.get $slot) (local.get $end)))
      (local.set $i (i32.load (local.get $slot)))
      (local.set $d
        (if (result i32) (i32.lt_u (local.get $i) (local.get $split))
          (then (i32.add (local.get $firstAt) (i32.mul (local.get $i) (local.get $blockBytes))))
          (else (i32.add (local.get $secondAt)
            (i32.mul (i32.sub (local.get $i) (local.get $split)) (local.get $blockBytes))))))
      (memory.copy (local.get $d)
        (i32.trunc_f64_u (f64.sub
          (f64.load (i32.add (local.get $offsets) (i32.shl (local.get $i) (i32.const 3))))
          (local.get $base)))
        (local.get $blockBytes))
      (local.set $slot (i32.add (local.get $slot) (i32.const 4)))
      (br $blocks))))
)
`;
}
