"""gguf-py peer of bench/run.mjs's gguf rows.

Usage:
  python3 gguf-peer.py make PATH TYPE ROWS COLS   writes token_embd.weight [ROWS, COLS] of ggml
                                                  TYPE (Q8_0, Q4_K): random blocks whose f16
                                                  scales are finite, written by GGUFWriter
  python3 gguf-peer.py take PATH IDS OUT          GGUFReader, the rows IDS (.npy) picks of
                                                  token_embd.weight, gguf.quants.dequantize of
                                                  those rows, np.save to OUT (what the bench times)
"""

import sys
from pathlib import Path

# This folder holds no gguf.py, but the repository's scripts/fixtures does: keep to gguf-py.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import numpy as np  # noqa: E402

import gguf  # noqa: E402
from gguf import quants  # noqa: E402

NAME = "token_embd.weight"

# Bytes of each block's f16 scales (d, and dmin where the type has one), at the block's start.
SCALE_BYTES = {"Q8_0": 2, "Q4_K": 4}


def make(path: str, type_name: str, rows: int, cols: int) -> None:
    qtype = gguf.GGMLQuantizationType[type_name]
    block_size, type_size = gguf.GGML_QUANT_SIZES[qtype]
    rng = np.random.default_rng(20261126)
    per_row = cols // block_size
    blocks = rng.integers(0, 256, (rows * per_row, type_size), dtype=np.uint8)
    n = SCALE_BYTES[type_name] // 2
    scales = rng.uniform(1e-3, 1e-2, (rows * per_row, n)).astype(np.float16)
    blocks[:, : 2 * n] = scales.view(np.uint8).reshape(rows * per_row, 2 * n)
    w = gguf.GGUFWriter(path, "llama")
    w.add_tensor(NAME, blocks.reshape(rows, per_row * type_size), raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def take(path: str, ids: str, out: str) -> None:
    reader = gguf.GGUFReader(path)
    tensor = next(t for t in reader.tensors if t.name == NAME)
    rows = tensor.data[np.load(ids)]
    np.save(out, quants.dequantize(rows, tensor.tensor_type))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        take(sys.argv[2], sys.argv[3], sys.argv[4])
