// The WebAssembly kernels of @tensorops/io's GGUF dequantizers (src/gguf/quants/), as WebAssembly
// text, for the two types whose rows are gathered most: Q8_0 and Q4_K. `pnpm wat` writes the text
// to wasm/quants.wat (committed); scripts/build-wasm.mjs assembles that file into
// src/wasm/quants-binary.ts at build time.
//
// Memory: bytes [0, 262144) hold the float32 value of every float16 bit pattern (the caller writes
// src/gguf/quants/half.ts's table there once); blocks and outputs are staged above it.
//
// q8_0(src, out, blocks): block b (34 bytes at src + 34 b) is a float16 d and 32 int8 quants q;
//   out[32 b + k] = f32(q[k]) * d.
// q4_k(src, out, blocks): block b (144 bytes) is float16 d and dmin, 12 bytes of 6-bit scales and
//   mins (sub-block j's by $scale and $min, as llama.cpp's get_scale_min_k4), then 128 bytes of
//   nibbles; element 32 j + l of the block is nibble (j & 1) of byte 16 + 32 (j >> 1) + l, and
//   equals (d * scale_j) * q - (dmin * min_j), every product and difference a float32 operation.
// The same arithmetic as the JavaScript kernels (legacy.ts, k-quants.ts), which round each double
// operation to float32: the same bits, NaNs included (one hardware rule picks a NaN operand).
// Scalar instructions only.

export function quantsWat() {
  return `(module
  (memory (export "memory") 5)
  (func (export "q8_0") (param $src i32) (param $out i32) (param $blocks i32)
    (local $end i32) (local $d f32) (local $q i32) (local $qend i32)
    (local.set $end (i32.add (local.get $src) (i32.mul (local.get $blocks) (i32.const 34))))
    (block $done (loop $block
      (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $d (f32.load (i32.shl (i32.load16_u (local.get $src)) (i32.const 2))))
      (local.set $q (i32.add (local.get $src) (i32.const 2)))
      (local.set $qend (i32.add (local.get $src) (i32.const 34)))
      (loop $quant
        (f32.store (local.get $out)
          (f32.mul (f32.convert_i32_s (i32.load8_s (local.get $q))) (local.get $d)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br_if $quant (i32.lt_u (local.get $q) (local.get $qend))))
      (local.set $src (local.get $qend))
      (br $block))))
  (func $scale (param $p i32) (param $j i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $j) (i32.const 4))
      (then (i32.and (i32.load8_u (i32.add (local.get $p) (local.get $j))) (i32.const 63)))
      (else (i32.or
        (i32.and (i32.load8_u offset=4 (i32.add (local.get $p) (local.get $j))) (i32.const 15))
        (i32.and
          (i32.shr_u (i32.load8_u (i32.sub (i32.add (local.get $p) (local.get $j)) (i32.const 4)))
            (i32.const 2))
          (i32.const 48))))))
  (func $min (param $p i32) (param $j i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $j) (i32.const 4))
      (then (i32.and (i32.load8_u offset=4 (i32.add (local.get $p) (local.get $j))) (i32.const 63)))
      (else (i32.or
        (i32.shr_u (i32.load8_u offset=4 (i32.add (local.get $p) (local.get $j))) (i32.const 4))
        (i32.and (i32.shr_u (i32.load8_u (i32.add (local.get $p) (local.get $j))) (i32.const 2))
          (i32.const 48))))))
  (func (export "q4_k") (param $src i32) (param $out i32) (param $blocks i32)
    (local $end i32) (local $d f32) (local $dmin f32) (local $j i32) (local $scaled f32)
    (local $minus f32) (local $q i32) (local $qend i32) (local $shift i32)
    (local.set $end (i32.add (local.get $src) (i32.mul (local.get $blocks) (i32.const 144))))
    (block $done (loop $block
      (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $d (f32.load (i32.shl (i32.load16_u (local.get $src)) (i32.const 2))))
      (local.set $dmin (f32.load (i32.shl (i32.load16_u offset=2 (local.get $src)) (i32.const 2))))
      (local.set $j (i32.const 0))
      (loop $sub
        (local.set $scaled (f32.mul (local.get $d)
          (f32.convert_i32_u (call $scale (i32.add (local.get $src) (i32.const 4)) (local.get $j)))))
        (local.set $minus (f32.mul (local.get $dmin)
          (f32.convert_i32_u (call $min (i32.add (local.get $src) (i32.const 4)) (local.get $j)))))
        (local.set $q (i32.add (local.get $src)
          (i32.add (i32.const 16) (i32.shl (i32.shr_u (local.get $j) (i32.const 1)) (i32.const 5)))))
        (local.set $qend (i32.add (local.get $q) (i32.const 32)))
        (local.set $shift (i32.shl (i32.and (local.get $j) (i32.const 1)) (i32.const 2)))
        (loop $quant
          (f32.store (local.get $out)
            (f32.sub
              (f32.mul (local.get $scaled)
                (f32.convert_i32_u
                  (i32.and (i32.shr_u (i32.load8_u (local.get $q)) (local.get $shift)) (i32.const 15))))
              (local.get $minus)))
          (local.set $out (i32.add (local.get $out) (i32.const 4)))
          (local.set $q (i32.add (local.get $q) (i32.const 1)))
          (br_if $quant (i32.lt_u (local.get $q) (local.get $qend))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $sub (i32.lt_u (local.get $j) (i32.const 8))))
      (local.set $src (i32.add (local.get $src) (i32.const 144)))
      (br $block))))
)
`;
}
