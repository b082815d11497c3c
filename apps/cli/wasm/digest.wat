(module
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
