#!/usr/bin/python3
"""Generates the .npy fixtures of the CLI dtype tests: every byte-sized NumPy dtype the CLI
accepts, in both byte orders where that means something, in C and Fortran order, plus raw void
data (|V2 as ml_dtypes saves bfloat16, |V1 for the 8-bit floats).

usage: make_fixtures.py OUTDIR      (writes OUTDIR/*.npy and OUTDIR/manifest.json)
"""
import json
import os
import sys

import numpy as np

SHAPE = (4, 6, 5)

# (descr, group, --dtype or None). Groups let CTest run the matrix in parallel pieces.
DTYPES = [
    ("|b1", "little", None),
    ("|i1", "little", None), ("<i2", "little", None), ("<i4", "little", None),
    ("<i8", "little", None),
    ("|u1", "little", None), ("<u2", "little", None), ("<u4", "little", None),
    ("<u8", "little", None),
    ("<f2", "little", None), ("<f4", "little", None), ("<f8", "little", None),
    ("<c8", "little", None), ("<c16", "little", None),
    (">i2", "big", None), (">i4", "big", None), (">i8", "big", None),
    (">u2", "big", None), (">u4", "big", None), (">u8", "big", None),
    (">f2", "big", None), (">f4", "big", None), (">f8", "big", None),
    (">c8", "big", None), (">c16", "big", None),
    ("|S5", "strings", None), ("<U3", "strings", None), (">U3", "strings", None),
    ("|S1", "strings", None), ("<U1", "strings", None),
    ("|V2", "void", "bf16"), ("|V1", "void", "f8e4m3"), ("|V1", "void", "f8e5m2"),
]


def values(descr, shape):
    """Deterministic, distinct-looking values of `descr` for `shape`."""
    n = int(np.prod(shape))
    dt = np.dtype(descr)
    k = np.arange(n)
    if dt.kind == "b":
        v = (k * 7 % 3 == 0)
    elif dt.kind in "iu":
        # Multiplicative hashing in uint64; the cast keeps the low bytes, so signed types get
        # negative values too.
        v = (k.astype(np.uint64) * np.uint64(2654435761) + np.uint64(12345))
        return v.astype(dt).reshape(shape)
    elif dt.kind == "f":
        v = k * 0.25 - 17.5
    elif dt.kind == "c":
        v = k * 0.5 + 1j * (k * -1.25 + 3)
    elif dt.kind == "S":
        v = [("w%d" % i).encode()[: dt.itemsize] for i in k]
    elif dt.kind == "U":
        v = [("ü%dé" % i)[: dt.itemsize // 4] for i in k]
    elif dt.kind == "V":
        raw = ((k[:, None] * 131 + np.arange(dt.itemsize)[None, :] * 17) % 251).astype(np.uint8)
        return raw.reshape(-1).view(dt).reshape(shape)
    else:
        raise ValueError(descr)
    return np.array(v).astype(dt).reshape(shape)


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    manifest = []
    for descr, group, dtype_option in DTYPES:
        base = values(descr, SHAPE)
        for order in ("C", "F"):
            a = np.asfortranarray(base) if order == "F" else np.ascontiguousarray(base)
            safe = descr.replace("<", "le_").replace(">", "be_").replace("|", "na_")
            name = f"{safe}_{dtype_option or 'plain'}_{order}.npy"
            np.save(os.path.join(outdir, name), a, allow_pickle=False)
            manifest.append({"file": name, "descr": descr, "group": group, "order": order,
                             "dtype_option": dtype_option})
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"wrote {len(manifest)} fixtures to {outdir}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
