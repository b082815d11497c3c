// The WebAssembly kernels of @tensorops/core, as WebAssembly text: take_<index>_<item> and
// gather_<item>, each family generated from one template per item size (and index width). Scalar
// instructions only, so every engine with WebAssembly runs them. `pnpm wat` writes the text to
// wasm/kernels.wat (committed); scripts/build-wasm.mjs assembles that file into
// src/wasm/kernels-binary.ts at build time.
//
// take_<index>_<item>(data, rowStep, posStride, colStep, idx, idxRowStep, out, rows, width, bound)
//   for a < rows, j < width, k = a * width + j:
//     p = index at idx + a * idxRowStep + j * indexBytes (int32 or int64; negative counts from
//         `bound`); idxRowStep is width * indexBytes for one row of indices per output row
//         (GatherElements) and 0 for indices shared by every row (Gather)
//     out[k] = item at data + a * rowStep + p * posStride + j * colStep
//   Returns 0, or k + 1 of the first index outside [-bound, bound) (nothing after it is written).
//
// gather_<item>(data, rowStep, idx, out, rows, width)
//   for a < rows, j < width: out[a * width + j] = item at data + a * rowStep + idx[j] * item,
//   with idx[j] an int32 position already checked to lie inside the row (Gather's decoded
//   positions). No check and four elements per iteration: take's per-element range check and
//   i64 arithmetic dominate its time.
// Elements are moved as integers of their width, never as floats: every bit pattern survives.
// All addresses are byte offsets into the module's own memory (see src/wasm/runtime.ts).

const INDEX = {
  i32: { bytes: 4, load: 'i64.load32_s' },
  i64: { bytes: 8, load: 'i64.load' },
};
const ITEM = {
  1: { load: 'i32.load8_u', store: 'i32.store8', type: 'i32' },
  2: { load: 'i32.load16_u', store: 'i32.store16', type: 'i32' },
  4: { load: 'i32.load', store: 'i32.store', type: 'i32' },
  8: { load: 'i64.load', store: 'i64.store', type: 'i64' },
};

function take(indexName, itemBytes) {
  const index = INDEX[indexName];
  const item = ITEM[itemBytes];
  return `
  (func (export "take_${indexName}_${itemBytes}")
    (param $data i32) (param $rowStep i32) (param $posStride i32) (param $colStep i32)
    (param $idx i32) (param $idxRowStep i32) (param $out i32)
    (param $rows i32) (param $width i32) (param $bound i32)
    (result i32)
    (local $a i32) (local $k i32) (local $rowEnd i32) (local $src i32) (local $ip i32)
    (local $b i64) (local $p i64)
    (local.set $b (i64.extend_i32_u (local.get $bound)))
    (block $rowsDone (loop $rowLoop
      (br_if $rowsDone (i32.ge_u (local.get $a) (local.get $rows)))
      (local.set $src (i32.add (local.get $data) (i32.mul (local.get $a) (local.get $rowStep))))
      (local.set $ip (i32.add (local.get $idx) (i32.mul (local.get $a) (local.get $idxRowStep))))
      (local.set $rowEnd (i32.add (local.get $k) (local.get $width)))
      (block $rowDone (loop $colLoop
        (br_if $rowDone (i32.ge_u (local.get $k) (local.get $rowEnd)))
        (local.set $p (${index.load} (local.get $ip)))
        ;; p + (p < 0 ? bound : 0), then one unsigned compare covers both ends of the range.
        (local.set $p (i64.add (local.get $p)
          (i64.and (i64.shr_s (local.get $p) (i64.const 63)) (local.get $b))))
        (if (i64.ge_u (local.get $p) (local.get $b))
          (then (return (i32.add (local.get $k) (i32.const 1)))))
        (${item.store} (local.get $out)
          (${item.load} (i32.add (local.get $src)
            (i32.mul (i32.wrap_i64 (local.get $p)) (local.get $posStride)))))
        (local.set $ip (i32.add (local.get $ip) (i32.const ${index.bytes})))
        (local.set $out (i32.add (local.get $out) (i32.const ${itemBytes})))
        (local.set $src (i32.add (local.get $src) (local.get $colStep)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $colLoop)))
      (local.set $a (i32.add (local.get $a) (i32.const 1)))
      (br $rowLoop)))
    (i32.const 0))`;
}

/** log2 of the item sizes: positions are scaled by a shift. */
const SHIFT = { 1: 0, 2: 1, 4: 2, 8: 3 };

function gather(itemBytes) {
  const item = ITEM[itemBytes];
  // out[o] = item at src + idx[i] * itemBytes, for the (index, output) byte offsets i, o
  const move = (i, o) => `
        (${item.store} offset=${o} (local.get $out)
          (${item.load} (i32.add (local.get $src)
            (i32.shl (i32.load offset=${i} (local.get $ip)) (i32.const ${SHIFT[itemBytes]})))))`;
  return `
  (func (export "gather_${itemBytes}")
    (param $data i32) (param $rowStep i32) (param $idx i32) (param $out i32)
    (param $rows i32) (param $width i32)
    (local $a i32) (local $src i32) (local $ip i32) (local $end4 i32) (local $end i32)
    ;; Every row reads the same positions: where its four-at-a-time part and its tail end.
    (local.set $end4 (i32.add (local.get $idx) (i32.shl (i32.and (local.get $width) (i32.const -4)) (i32.const 2))))
    (local.set $end (i32.add (local.get $idx) (i32.shl (local.get $width) (i32.const 2))))
    (block $rowsDone (loop $rowLoop
      (br_if $rowsDone (i32.ge_u (local.get $a) (local.get $rows)))
      (local.set $src (i32.add (local.get $data) (i32.mul (local.get $a) (local.get $rowStep))))
      (local.set $ip (local.get $idx))
      (block $quadsDone (loop $quadLoop
        (br_if $quadsDone (i32.ge_u (local.get $ip) (local.get $end4)))${move(0, 0)}${move(4, itemBytes)}${move(8, 2 * itemBytes)}${move(12, 3 * itemBytes)}
        (local.set $ip (i32.add (local.get $ip) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const ${4 * itemBytes})))
        (br $quadLoop)))
      (block $tailDone (loop $tailLoop
        (br_if $tailDone (i32.ge_u (local.get $ip) (local.get $end)))${move(0, 0)}
        (local.set $ip (i32.add (local.get $ip) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const ${itemBytes})))
        (br $tailLoop)))
      (local.set $a (i32.add (local.get $a) (i32.const 1)))
      (br $rowLoop))))`;
}

export function kernelsWat() {
  const funcs = [];
  for (const indexName of Object.keys(INDEX)) {
    for (const itemBytes of Object.keys(ITEM)) funcs.push(take(indexName, Number(itemBytes)));
  }
  for (const itemBytes of Object.keys(ITEM)) funcs.push(gather(Number(itemBytes)));
  return `(module\n  (memory (export "memory") 1)${funcs.join('\n')}\n)\n`;
}
