// GatherTree's WebAssembly walk, as WebAssembly text: tree_<item> for items of 1, 2, 4 and 8
// bytes, generated from one template; storePart is its helper for the last bytes of a row. The
// module uses fixed-width SIMD, so it is kept apart from core's scalar kernels: an engine
// without SIMD refuses only this module (GatherTree then walks in JavaScript), never core's.
// `pnpm wat` writes the text to wasm/tree.wat (committed); scripts/build-wasm.mjs assembles that
// file into src/wasm/tree-binary.ts at build time.
// Elements are moved as integers of their width, never as floats: every bit pattern survives.
// All addresses are byte offsets into the module's own memory (see src/wasm/runtime.ts).

/** log2 of the item sizes. */
const SHIFT = { 1: 0, 2: 1, 4: 2, 8: 3 };

const v8x16 = (bytes) => `(v128.const i8x16 ${bytes.join(' ')})`;
const LANES = v8x16(Array.from({ length: 16 }, (_, i) => i));
/** i8x16/i16x8/i32x4/i64x2 ops for an item width. */
const LANE = {
  1: { eq: 'i8x16.eq', splat: (x) => `(i8x16.splat (i32.wrap_i64 ${x}))`, load: 'i64.load8_u' },
  2: { eq: 'i16x8.eq', splat: (x) => `(i16x8.splat (i32.wrap_i64 ${x}))`, load: 'i64.load16_u' },
  4: { eq: 'i32x4.eq', splat: (x) => `(i32x4.splat (i32.wrap_i64 ${x}))`, load: 'i64.load32_u' },
  8: { eq: 'i64x2.eq', splat: (x) => `(i64x2.splat ${x})`, load: 'i64.load' },
};

/**
 * tree_<item>(src, par, out, t0, t1, B, K, lens, trace, stops, end): GatherTree's backward walk
 * over staged time rows, for beams of K <= 16 items of `item` bytes. src/out hold rows t0..t1-1
 * of step ids / output (B * K items each), par the same rows of int32 parent ids. Per batch entry
 * b: lens[b] (int32 clamped length), trace[b] (16 bytes: the beam each of the K beams traces
 * now, lanes >= K zero) and stops[b] (16 int32: the walk sets stops[b][k] = t + 1 where beam k
 * reads end_token at row t). For t = t1-1 down to t0 and every b:
 *   t >= lens[b]: the row is end_token;
 *   else out[t, b, k] = src[t, b, trace[b][k]] and, for t > 0, trace[b][k] = par[t, b, trace[b][k]].
 * Returns 1 as soon as a followed parent lies outside [0, K) (the caller then reports it through
 * its JavaScript walk), else 0. Loads read up to 16 * item bytes past a row's last beam (the
 * caller leaves that much room after each staged block); stores write exactly K items.
 *
 * Why SIMD: a JavaScript walk does a bounds-checked load, store and parent load per element.
 * Here a beam row of K items is at most `item` vectors, and one i8x16.swizzle per pair of
 * (output vector, source vector) moves the traced items, with byte indices trace * item + byte;
 * the 16 parents narrow to bytes and one swizzle follows all of them (faster than the JavaScript
 * walk, staging included).
 */
function tree(itemBytes) {
  const w = itemBytes;
  const lane = LANE[w];
  const vectors = [...Array(w).keys()];
  // Output vector q, byte i belongs to beam floor((16q + i) / w), byte i % w of it.
  const beamOf = (q) => v8x16(Array.from({ length: 16 }, (_, i) => Math.floor((16 * q + i) / w)));
  // Its byte index within source vector j, before adding the beam's offset trace * w.
  const byteIn = (j) => v8x16(Array.from({ length: 16 }, (_, i) => (i % w) - 16 * j));
  const base = (q) =>
    w === 1 ? '(local.get $tw)' : `(i8x16.swizzle (local.get $tw) ${beamOf(q)})`;
  const gatherVector = (q) => {
    const picks = vectors.map(
      (j) => `(i8x16.swizzle (local.get $s${j}) (i8x16.add (local.get $base) ${byteIn(j)}))`,
    );
    return `
            (local.set $base ${base(q)})
            (local.set $o${q} ${picks.reduce((a, b) => `(v128.or ${a} ${b})`)})`;
  };
  // Whole vectors while the row has 16 bytes left, then its last K * w % 16 bytes.
  const storeRow = (vec) =>
    vectors
      .map(
        (q) => `
            (if (i32.gt_u (local.get $whole) (i32.const ${q}))
              (then (v128.store offset=${16 * q} (local.get $op) ${vec(q)}))
              (else (if (i32.eq (local.get $whole) (i32.const ${q}))
                (then (call $storePart (i32.add (local.get $op) (i32.const ${16 * q})) ${vec(q)} (local.get $part))))))`,
      )
      .join('');
  const hit = vectors
    .map((q) => `(${lane.eq} (local.get $o${q}) (local.get $E))`)
    .reduce((a, b) => `(v128.or ${a} ${b})`);
  const locals = vectors.map((j) => `(local $s${j} v128) (local $o${j} v128)`).join(' ');
  return `
  (func (export "tree_${w}")
    (param $src i32) (param $par i32) (param $out i32) (param $t0 i32) (param $t1 i32)
    (param $B i32) (param $K i32) (param $lens i32) (param $trace i32) (param $stops i32)
    (param $end i64) (result i32)
    (local $t i32) (local $b i32) (local $op i32) (local $ip i32) (local $pp i32) (local $tp i32)
    (local $sp i32) (local $k i32) (local $rowBytes i32) (local $whole i32) (local $part i32)
    (local $E v128) (local $K16 v128) (local $valid v128) (local $tr v128) (local $tw v128)
    (local $base v128) (local $next v128) ${locals}
    (local.set $rowBytes (i32.mul (local.get $K) (i32.const ${w})))
    (local.set $whole (i32.shr_u (local.get $rowBytes) (i32.const 4)))
    (local.set $part (i32.and (local.get $rowBytes) (i32.const 15)))
    (local.set $E ${lane.splat('(local.get $end)')})
    (local.set $K16 (i8x16.splat (local.get $K)))
    (local.set $valid (i8x16.lt_u ${LANES} (local.get $K16)))
    (local.set $t (local.get $t1))
    (block $timeDone (loop $timeLoop
      (br_if $timeDone (i32.le_s (local.get $t) (local.get $t0)))
      (local.set $t (i32.sub (local.get $t) (i32.const 1)))
      ;; this row's first beam in src/out ($ip, $op) and in par ($pp)
      (local.set $ip (i32.add (local.get $src)
        (i32.mul (i32.mul (i32.sub (local.get $t) (local.get $t0)) (local.get $B)) (local.get $rowBytes))))
      (local.set $op (i32.add (local.get $out) (i32.sub (local.get $ip) (local.get $src))))
      (local.set $pp (i32.add (local.get $par)
        (i32.shl (i32.mul (i32.mul (i32.sub (local.get $t) (local.get $t0)) (local.get $B)) (local.get $K)) (i32.const 2))))
      (local.set $b (i32.const 0))
      (block $rowDone (loop $batchLoop
        (br_if $rowDone (i32.ge_u (local.get $b) (local.get $B)))
        (if (i32.ge_s (local.get $t) (i32.load (i32.add (local.get $lens) (i32.shl (local.get $b) (i32.const 2)))))
          (then ${storeRow(() => '(local.get $E)')})
          (else
            (local.set $tp (i32.add (local.get $trace) (i32.shl (local.get $b) (i32.const 4))))
            (local.set $tr (v128.load (local.get $tp)))
            (local.set $tw ${w === 1 ? '(local.get $tr)' : `(i8x16.shl (local.get $tr) (i32.const ${SHIFT[w]}))`})
            ${vectors.map((j) => `(local.set $s${j} (v128.load offset=${16 * j} (local.get $ip)))`).join('\n            ')}
            ${vectors.map(gatherVector).join('')}
            ${storeRow((q) => `(local.get $o${q})`)}
            ;; end_token read somewhere in the row (rare): note the stop of each beam that read it
            (if (v128.any_true ${hit}) (then
              (local.set $sp (i32.add (local.get $stops) (i32.shl (local.get $b) (i32.const 6))))
              (local.set $k (i32.const 0))
              (block $beamsDone (loop $beamLoop
                (br_if $beamsDone (i32.ge_u (local.get $k) (local.get $K)))
                (if (i64.eq (${lane.load} (i32.add (local.get $op) (i32.mul (local.get $k) (i32.const ${w})))) (local.get $end))
                  (then (i32.store (i32.add (local.get $sp) (i32.shl (local.get $k) (i32.const 2)))
                    (i32.add (local.get $t) (i32.const 1)))))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $beamLoop)))))
            ;; Row 0 has no parent to follow. Saturating narrows keep every parent outside
            ;; [0, K) outside it (negatives stay negative, large ones become 127).
            (if (local.get $t) (then
              (local.set $next (i8x16.swizzle
                (i8x16.narrow_i16x8_s
                  (i16x8.narrow_i32x4_s (v128.load offset=0 (local.get $pp)) (v128.load offset=16 (local.get $pp)))
                  (i16x8.narrow_i32x4_s (v128.load offset=32 (local.get $pp)) (v128.load offset=48 (local.get $pp))))
                (local.get $tr)))
              (if (v128.any_true (v128.and (i8x16.ge_u (local.get $next) (local.get $K16)) (local.get $valid)))
                (then (return (i32.const 1))))
              (v128.store (local.get $tp) (v128.and (local.get $next) (local.get $valid)))))))
        (local.set $ip (i32.add (local.get $ip) (local.get $rowBytes)))
        (local.set $op (i32.add (local.get $op) (local.get $rowBytes)))
        (local.set $pp (i32.add (local.get $pp) (i32.shl (local.get $K) (i32.const 2))))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $batchLoop)))
      (br $timeLoop)))
    (i32.const 0))`;
}

/** storePart(addr, v, n): the first n < 16 bytes of v at addr. */
const STORE_PART = `
  (func $storePart (param $at i32) (param $v v128) (param $n i32)
    (if (i32.and (local.get $n) (i32.const 8)) (then
      (v128.store64_lane 0 (local.get $at) (local.get $v))
      (local.set $v (i8x16.shuffle 8 9 10 11 12 13 14 15 0 0 0 0 0 0 0 0 (local.get $v) (local.get $v)))
      (local.set $at (i32.add (local.get $at) (i32.const 8)))))
    (if (i32.and (local.get $n) (i32.const 4)) (then
      (v128.store32_lane 0 (local.get $at) (local.get $v))
      (local.set $v (i8x16.shuffle 4 5 6 7 8 9 10 11 12 13 14 15 0 0 0 0 (local.get $v) (local.get $v)))
      (local.set $at (i32.add (local.get $at) (i32.const 4)))))
    (if (i32.and (local.get $n) (i32.const 2)) (then
      (v128.store16_lane 0 (local.get $at) (local.get $v))
      (local.set $v (i8x16.shuffle 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 0 (local.get $v) (local.get $v)))
      (local.set $at (i32.add (local.get $at) (i32.const 2)))))
    (if (i32.and (local.get $n) (i32.const 1)) (then
      (v128.store8_lane 0 (local.get $at) (local.get $v)))))`;

export function treeWat() {
  const funcs = [STORE_PART];
  for (const itemBytes of [1, 2, 4, 8]) funcs.push(tree(itemBytes));
  return `(module\n  (memory (export "memory") 1)${funcs.join('\n')}\n)\n`;
}
