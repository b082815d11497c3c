// The code cache's digest (src/code-cache.ts), as WebAssembly text. The launcher checks the
// cached code against it before V8 uses it: V8 itself takes damaged code from a cache without a
// check (it verifies checksums only in debug builds). In WebAssembly because every alternative
// costs more at start-up: node:zlib's CRC-32 and node:crypto load Node's stream classes (about
// 5 ms), and the same loop in JavaScript runs interpreted (about 8 ms for 400 KB).
// `pnpm wat` writes the text to wasm/digest.wat (committed); scripts/build-wasm.mjs assembles
// that file into src/wasm/digest-binary.ts at build time.
//
// digest(at, length) over the bytes [at, at + length) of the module's memory: two 64-bit lanes,
// each folding in every other 8-byte word by xor then a multiply by an odd constant. Both steps
// are bijections, so a change to any one word always changes its lane; the tail bytes fold into
// the first lane one at a time. It detects damage; it is not a defence against forgery (the
// cache folder is the user's own).

export function digestWat() {
  return `(module
  (memory (export "memory") 1)
  (func (export "digest") (param $at i32) (param $length i32) (result i64)
    (local $end i32) (local $words i32) (local $a i64) (local $b i64)
    (local.set $end (i32.add (local.get $at) (local.get $length)))
    (local.set $words (i32.add (local.get $at) (i32.and (local.get $length) (i32.const -16))))
    (local.set $a (i64.const 0x9e3779b97f4a7c15))
    (local.set $b (i64.extend_i32_u (local.get $length)))
    (block $pairs_done
      (loop $pairs
        (br_if $pairs_done (i32.ge_u (local.get $at) (local.get $words)))
        (local.set $a (i64.mul (i64.xor (local.get $a) (i64.load (local.get $at)))
          (i64.const 0x100000001b3)))
        (local.set $b (i64.mul (i64.xor (local.get $b) (i64.load offset=8 (local.get $at)))
          (i64.const 0xff51afd7ed558ccd)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $pairs)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $a (i64.mul (i64.xor (local.get $a) (i64.load8_u (local.get $at)))
          (i64.const 0x100000001b3)))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br $tail)))
    (i64.xor (local.get $a) (i64.rotl (local.get $b) (i64.const 31))))
)
`;
}
