"""Writes the small example tensors in examples/ used by the README and `pnpm demo`.

Run: python3 scripts/make-examples.py   (numpy only; the files are committed)
"""
from pathlib import Path

import numpy as np

out = Path(__file__).resolve().parent.parent / "examples"
out.mkdir(exist_ok=True)

# A 6-token vocabulary with 4-dim embeddings; row i is i + [0.0, 0.1, 0.2, 0.3].
embeddings = (np.arange(6, dtype=np.float32)[:, None] + np.array([0, 0.1, 0.2, 0.3], np.float32))
np.save(out / "embeddings.npy", embeddings)
np.save(out / "ids.npy", np.array([[4, 0], [5, -1]], dtype=np.int64))

# Two batches of a [2, 3, 5] sequence tensor and per-batch positions to pick along axis 2.
np.save(out / "sequences.npy", np.arange(30, dtype=np.int32).reshape(2, 3, 5))
np.save(out / "positions.npy", np.array([[4, 0], [1, 1]], dtype=np.int64))
