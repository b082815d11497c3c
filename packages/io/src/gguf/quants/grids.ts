// The IQ grids and sign bits, unpacked on first use the way gguf-py's init_grid unpacks them.

import {
  IQ1_S_GRID,
  IQ2_S_GRID,
  IQ2_XS_GRID,
  IQ2_XXS_GRID,
  IQ3_S_GRID,
  IQ3_XXS_GRID,
  KSIGNS_HEX,
  type PackedGrid,
} from './iq-grids.js';

const unpacked = new Map<PackedGrid, Float64Array>();

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++)
    bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** Row r, column c of a grid is at r * columns + c; values as gguf-py's float32 grid holds them. */
function unpack(grid: PackedGrid): Float64Array {
  let values = unpacked.get(grid);
  if (values === undefined) {
    const bitsPerCode = Math.ceil(Math.log2(grid.values.length));
    const codesPerByte = Math.floor(8 / bitsPerCode);
    const step = 8 / codesPerByte;
    const mask = (1 << bitsPerCode) - 1;
    const bytes = hexBytes(grid.hex);
    values = new Float64Array(grid.rows * grid.columns);
    for (let i = 0; i < values.length; i++) {
      const code =
        ((bytes[Math.floor(i / codesPerByte)] as number) >> ((i % codesPerByte) * step)) & mask;
      values[i] = Math.fround(grid.values[code] as number);
    }
    unpacked.set(grid, values);
  }
  return values;
}

export const iq2xxsGrid = (): Float64Array => unpack(IQ2_XXS_GRID);
export const iq2xsGrid = (): Float64Array => unpack(IQ2_XS_GRID);
export const iq2sGrid = (): Float64Array => unpack(IQ2_S_GRID);
export const iq3xxsGrid = (): Float64Array => unpack(IQ3_XXS_GRID);
export const iq3sGrid = (): Float64Array => unpack(IQ3_S_GRID);
export const iq1sGrid = (): Float64Array => unpack(IQ1_S_GRID);

let byteSigns: Float64Array | undefined;
let ksigns: Uint8Array | undefined;

/** Entry x * 8 + j is -1 where bit j of byte x is set, else 1 (numpy's where(bit == 0, 1, -1)). */
export function signsOfByte(): Float64Array {
  if (byteSigns === undefined) {
    byteSigns = new Float64Array(256 * 8);
    for (let i = 0; i < byteSigns.length; i++) byteSigns[i] = ((i >> 3) >> (i & 7)) & 1 ? -1 : 1;
  }
  return byteSigns;
}

/** The sign byte for each 7-bit sign index (gguf-py's ksigns). */
export function signBytes(): Uint8Array {
  ksigns ??= hexBytes(KSIGNS_HEX);
  return ksigns;
}
