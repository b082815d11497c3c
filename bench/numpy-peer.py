"""numpy peer of bench/run.mjs: times every numpy way of doing one workload, in-process.

Usage: python3 numpy-peer.py '<json spec>'
spec: {"op": "gather"|"gather_elements"|"gather_nd"|"gather_tree", "dir": DIR,
       "runs": N, "warmup": W, "params": {...}}
Inputs are the .npy files the node side wrote into DIR (same bytes as it benchmarks on).
Prints one JSON document: numpy version and, per variant, its mode ("fresh": allocates its
output; "out": writes into a preallocated one), the median ms over N runs (after W warm-ups), the
output shape and the sha256 of the output bytes, which the node side compares with its own output
before it reports any figure.
"""

import hashlib
import json
import os
import sys
import time

import numpy as np


# np.take(out=) with mode="raise" (the default, range-checked like tensorops) goes through a
# temporary buffer; mode="clip" writes straight into out but skips the range check. Both are
# reported; the fastest verified variant is the one compared.
MODES = ("raise", "clip")


class out_variant:
    """A variant that writes into a caller's preallocated output (numpy's out=), which the
    driver allocates once and warms: the counterpart of tensorops' run*Plan(plan, src, dst)."""

    def __init__(self, fn):
        self.fn = fn


def flat_rows(shape, axis, batch_dims, idx):
    """Row numbers into data viewed as [prod(shape[:axis+1]), block] for Gather: 'np.take on a
    flat index'. The index arithmetic is part of the timed work."""
    batch = int(np.prod(shape[:batch_dims], dtype=np.int64))
    outer = int(np.prod(shape[batch_dims:axis], dtype=np.int64))
    size = shape[axis]
    per = idx.reshape(batch, 1, -1)
    base = (np.arange(batch, dtype=np.intp)[:, None, None] * outer + np.arange(outer, dtype=np.intp)[None, :, None]) * size
    return (base + per).reshape(-1)


def gather_variants(d, i, axis, batch_dims):
    shape = d.shape
    out_shape = shape[:axis] + i.shape[batch_dims:] + shape[axis + 1 :]
    block = int(np.prod(shape[axis + 1 :], dtype=np.int64))
    v = {}
    rows = d.reshape(-1, block)
    flat = lambda: flat_rows(shape, axis, batch_dims, i)
    if batch_dims == 0:
        v["np.take(axis)"] = lambda: np.take(d, i, axis=axis)
        v["fancy d[..., i]"] = lambda: d[(slice(None),) * axis + (i,)]
        for m in MODES:
            v[f"np.take(axis, out=, mode={m})"] = out_variant(lambda o, m=m: np.take(d, i, axis=axis, out=o, mode=m))
    else:
        if i.ndim == batch_dims + 1 and block == 1 and axis == d.ndim - 1:
            # per-batch indices broadcast over the dims between batch and axis
            ib = i.reshape(i.shape[:batch_dims] + (1,) * (axis - batch_dims) + i.shape[batch_dims:])
            v["take_along_axis"] = lambda: np.take_along_axis(d, ib, axis=axis)

        def loop(out, mode="raise"):
            for b in np.ndindex(*shape[:batch_dims]):
                np.take(d[b], i[b], axis=axis - batch_dims, out=out[b], mode=mode)
            return out

        v["np.take per batch"] = lambda: loop(np.empty(out_shape, d.dtype))
        for m in MODES:
            v[f"np.take per batch, out=, mode={m}"] = out_variant(lambda o, m=m: loop(o, m))
    v["np.take(flat index)"] = lambda: np.take(rows, flat(), axis=0).reshape(out_shape)
    for m in MODES:
        v[f"np.take(flat index, out=, mode={m})"] = out_variant(
            lambda o, m=m: np.take(rows, flat(), axis=0, out=o.reshape(-1, block), mode=m)
        )
    return v


def gather_elements_variants(d, i, axis):
    def flat():
        strides = [int(np.prod(d.shape[k + 1 :], dtype=np.int64)) for k in range(d.ndim)]
        grid = np.indices(i.shape, sparse=True)
        f = i * strides[axis]
        for k, g in enumerate(grid):
            if k != axis:
                f = f + g * strides[k]
        return f

    return {
        "take_along_axis": lambda: np.take_along_axis(d, i, axis=axis),
        "np.take(flat index)": lambda: np.take(d.reshape(-1), flat()),
        **{
            f"np.take(flat index, out=, mode={m})": out_variant(
                lambda o, m=m: np.take(d.reshape(-1), flat(), out=o, mode=m)
            )
            for m in MODES
        },
    }


def gather_nd_variants(d, i):
    k = i.shape[-1]
    slice_shape = d.shape[k:]
    out_shape = i.shape[:-1] + slice_shape

    rows = d.reshape((-1,) + slice_shape)

    def flat():
        f = i[..., 0]
        for j in range(1, k):
            f = f * d.shape[j] + i[..., j]
        return f.reshape(-1)

    return {
        "fancy d[i0, i1]": lambda: d[tuple(i[..., j] for j in range(k))],
        "np.take(flat index)": lambda: np.take(rows, flat(), axis=0).reshape(out_shape),
        **{
            f"np.take(flat index, out=, mode={m})": out_variant(
                lambda o, m=m: np.take(rows, flat(), axis=0, out=o.reshape((-1,) + slice_shape), mode=m)
            )
            for m in MODES
        },
    }


def gather_tree(step, parent, max_len, end, out=None):
    """GatherTree vectorised over batch x beam, looping over time (no numpy op exists).
    Validates the followed parents like tensorops does; allocation-free inner loop. With `out`
    (shape [T, B, K]) it writes there instead of allocating."""
    T, B, K = step.shape
    BK = B * K
    lengths = np.clip(max_len.astype(np.int64), 0, T)
    if out is None:
        out = np.full((T, BK), end, step.dtype)
    else:
        out = out.reshape(T, BK)
        out.fill(end)
    fs, fp = step.reshape(T, BK), parent.reshape(T, BK)
    base = np.repeat(np.arange(B, dtype=np.intp) * K, K)
    len_bk = np.repeat(lengths, K)
    trace = np.arange(BK, dtype=np.intp)
    row = np.empty(BK, step.dtype)
    p = np.empty(BK, parent.dtype)
    bad = False
    for t in range(T - 1, -1, -1):
        active = len_bk > t
        np.take(fs[t], trace, out=row)
        np.copyto(out[t], row, where=active)
        if t > 0:
            np.take(fp[t], trace, out=p)
            followed = p[active]
            if followed.size and (followed.min() < 0 or followed.max() >= K):
                bad = True
            np.copyto(trace, base + p, where=active)
    if bad:
        raise ValueError("parent id out of range")
    ended = np.zeros(BK, bool)
    for t in range(T):
        r = out[t]
        np.copyto(r, end, where=ended)
        ended |= r == end
    return out.reshape(T, B, K)


def digest(a):
    a = np.ascontiguousarray(a)
    return hashlib.sha256(a.reshape(-1).view(np.uint8)).hexdigest()


def main():
    spec = json.loads(sys.argv[1])
    d = spec["dir"]
    load = lambda name: np.load(os.path.join(d, name + ".npy"))
    op, p = spec["op"], spec.get("params", {})
    if op == "gather":
        variants = gather_variants(load("data"), load("indices"), p["axis"], p.get("batchDims", 0))
    elif op == "gather_elements":
        variants = gather_elements_variants(load("data"), load("indices"), p["axis"])
    elif op == "gather_nd":
        variants = gather_nd_variants(load("data"), load("indices"))
    elif op == "gather_tree":
        step, parent, max_len = load("step"), load("parent"), load("len")
        end = step.dtype.type(p["end"])
        variants = {
            "vectorised loop over time": lambda: gather_tree(step, parent, max_len, end),
            "vectorised loop over time, out=": out_variant(lambda o: gather_tree(step, parent, max_len, end, o)),
        }
    else:
        raise SystemExit(f"unknown op {op}")
    results = []
    out_shape = out_dtype = None
    for name, fn in variants.items():
        mode = "out" if isinstance(fn, out_variant) else "fresh"
        if mode == "out":
            if out_shape is None:
                continue
            o = np.zeros(out_shape, out_dtype)  # zeros: written once, so warm for every run
            call = lambda fn=fn, o=o: (fn.fn(o), o)[1]  # o itself: fn may return a reshaped view
        else:
            call = fn
        out = call()
        if mode == "fresh" and out_shape is None:
            out_shape, out_dtype = out.shape, out.dtype
        shape, sha = list(out.shape), digest(out)
        del out
        for _ in range(max(0, spec["warmup"] - 1)):
            call()
        ms = []
        for _ in range(spec["runs"]):
            t0 = time.perf_counter()
            out = call()
            ms.append((time.perf_counter() - t0) * 1e3)
            del out
        ms.sort()
        m = len(ms) // 2
        med = ms[m] if len(ms) % 2 else (ms[m - 1] + ms[m]) / 2
        results.append({"name": name, "mode": mode, "ms": med, "all": ms, "shape": shape, "sha256": sha})
    json.dump({"numpy": np.__version__, "variants": results}, sys.stdout)


if __name__ == "__main__":
    main()
