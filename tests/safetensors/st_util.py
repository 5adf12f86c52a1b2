"""Helpers of the safetensors tests: an independent writer and a strict independent reader
(Python's json and struct, no code shared with cleave), NumPy views of every dtype, and the
shared checks of error paths (status, message, nothing left behind).

The reader checks every rule cleave's outputs must follow: the 8-byte size, a JSON object
header padded with spaces to a multiple of 8, no duplicate keys, exact tiling of the data
section, sizes equal to shape x bits / 8, and the reference writer's order (dtype rank
descending, then name).
"""
import json
import os
import struct
import subprocess

import numpy as np

import clitest
from clitest import check

CLEAVE = clitest.CLEAVE

# name: (bits, rank in the reference writer's order, NumPy dtype to view the bytes as or None)
DTYPES = {
    "BOOL": (8, 0, np.bool_), "F4": (4, 1, None), "F6_E2M3": (6, 2, None),
    "F6_E3M2": (6, 3, None), "U8": (8, 4, np.uint8), "I8": (8, 5, np.int8),
    "F8_E5M2": (8, 6, np.uint8), "F8_E4M3": (8, 7, np.uint8), "F8_E8M0": (8, 8, np.uint8),
    "I16": (16, 9, np.int16), "U16": (16, 10, np.uint16), "F16": (16, 11, np.float16),
    "BF16": (16, 12, np.uint16), "I32": (32, 13, np.int32), "U32": (32, 14, np.uint32),
    "F32": (32, 15, np.float32), "C64": (64, 16, np.complex64), "F64": (64, 17, np.float64),
    "I64": (64, 18, np.int64), "U64": (64, 19, np.uint64),
}


def nbytes(dtype, shape):
    n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    bits = n * DTYPES[dtype][0]
    assert bits % 8 == 0
    return bits // 8


def canonical_order(tensors):
    return sorted(tensors, key=lambda n: (-DTYPES[tensors[n][0]][1], n.encode()))


def header_bytes(tensors, metadata=None, order=None, pad=b" "):
    """tensors: name -> (dtype, shape, data bytes). Returns (header, data) with offsets in
    `order` (default: canonical)."""
    names = order if order is not None else canonical_order(tensors)
    head = {}
    if metadata is not None:
        head["__metadata__"] = metadata
    data = bytearray()
    for name in names:
        dtype, shape, raw = tensors[name]
        head[name] = {"dtype": dtype, "shape": list(shape),
                      "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(head, separators=(",", ":"), ensure_ascii=False).encode()
    text += pad * ((8 - len(text) % 8) % 8)
    return text, bytes(data)


def write_st(path, tensors, metadata=None, order=None):
    text, data = header_bytes(tensors, metadata, order)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def array_tensor(a, dtype=None):
    """(dtype, shape, bytes) of a NumPy array."""
    names = {np.dtype(np.float32): "F32", np.dtype(np.float16): "F16",
             np.dtype(np.float64): "F64", np.dtype(np.int32): "I32", np.dtype(np.int64): "I64",
             np.dtype(np.uint8): "U8", np.dtype(np.int8): "I8", np.dtype(np.bool_): "BOOL",
             np.dtype(np.int16): "I16", np.dtype(np.uint16): "U16",
             np.dtype(np.uint32): "U32", np.dtype(np.uint64): "U64",
             np.dtype(np.complex64): "C64"}
    a = np.ascontiguousarray(a)
    return (dtype or names[a.dtype], tuple(a.shape), a.astype(a.dtype.newbyteorder("<")).tobytes())


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"duplicate keys {keys}")
    return dict(pairs)


def read_st(path, canonical=True):
    """Strictly reads a file: returns (metadata or None, {name: (dtype, shape, bytes)})."""
    with open(path, "rb") as f:
        blob = f.read()
    assert len(blob) >= 8, f"{path}: shorter than 8 bytes"
    (n,) = struct.unpack("<Q", blob[:8])
    assert n <= 100_000_000 and 8 + n <= len(blob), f"{path}: header size {n}"
    text = blob[8:8 + n]
    if canonical:
        assert n % 8 == 0, f"{path}: header size {n} is not a multiple of 8"
        stripped = text.rstrip(b" ")
        assert stripped.endswith(b"}") and text.startswith(b"{"), f"{path}: header framing"
    head = json.loads(text.decode("utf-8"), object_pairs_hook=_no_duplicates)
    metadata = head.pop("__metadata__", None)
    if metadata is not None:
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    data = blob[8 + n:]
    spans = []
    out = {}
    for name, info in head.items():
        assert set(info) == {"dtype", "shape", "data_offsets"}, f"{path}: {name}: fields"
        dtype, shape, (b, e) = info["dtype"], info["shape"], info["data_offsets"]
        assert dtype in DTYPES, f"{path}: {name}: dtype {dtype}"
        assert all(isinstance(d, int) and d >= 0 for d in shape)
        assert 0 <= b <= e and e - b == nbytes(dtype, shape), f"{path}: {name}: size"
        spans.append((b, e, name))
        out[name] = (dtype, tuple(shape), data[b:e])
    spans.sort()
    at = 0
    for b, e, name in spans:
        assert b == at, f"{path}: {name}: hole or overlap at {b} (expected {at})"
        at = e
    assert at == len(data), f"{path}: data ends at {at} of {len(data)}"
    if canonical:
        by_offset = [name for _, _, name in sorted(spans, key=lambda s: (s[0], s[1]))]
        want = canonical_order({k: v for k, v in out.items()})
        # Zero-size tensors share offsets: compare the order of the header's keys instead.
        assert list(head.keys()) == want, f"{path}: not in canonical order"
        assert [n for n in by_offset if out[n][2]] == [n for n in want if out[n][2]]
    return metadata, out


def as_array(t):
    dtype, shape, raw = t
    np_type = DTYPES[dtype][2]
    if np_type is None:
        return np.frombuffer(raw, dtype=np.uint8)
    return np.frombuffer(raw, dtype=np.dtype(np_type).newbyteorder("<")).reshape(shape)


def run(args, cwd, **kwargs):
    return subprocess.run([CLEAVE] + list(args), cwd=cwd, capture_output=True, text=True,
                          errors="backslashreplace", timeout=300, **kwargs)


def snapshot(root):
    return clitest.snapshot(root)


def expect_failure(label, args, cwd, status, fragments, watch=None):
    """Runs cleave expecting `status`, one error line holding every fragment, and `watch`
    (default cwd) unchanged: no output, no temporary, no changed file."""
    watch = watch or cwd
    before = snapshot(watch)
    r = run(args, cwd)
    lines = r.stderr.splitlines()
    ok = check(r.returncode == status, f"{label}: status {r.returncode}, expected {status}: "
               f"{r.stderr.strip()}")
    if ok:
        check(len(lines) >= 1 and lines[-1].startswith("cleave: error: "),
              f"{label}: no error line: {r.stderr!r}")
        for frag in fragments:
            check(frag in r.stderr, f"{label}: '{frag}' not in {r.stderr.strip()!r}")
    check(snapshot(watch) == before, f"{label}: files changed or left behind")
    return r


def small_model(folder, rng):
    """Writes FOLDER/model.safetensors: a.qkv F32 [6, 8], b.norm F16 [8], c.w I8 [8, 4], random
    (the manifest and verify tests)."""
    t = {"a.qkv": rng.standard_normal((6, 8)).astype(np.float32),
         "b.norm": rng.standard_normal(8).astype(np.float16),
         "c.w": rng.integers(0, 100, (8, 4), dtype=np.int8)}
    write_st(os.path.join(folder, "model.safetensors"), {k: array_tensor(v) for k, v in t.items()})


def model_meta(meta):
    """A file's metadata without the record cleave gives each rank (cleave.rank, cleave.ranks,
    cleave.run, cleave.source, cleave.rules: the files' own, not the model's)."""
    return {k: v for k, v in meta.items() if not k.startswith("cleave.")}


def strip_records(folder):
    """Rewrites every .safetensors file of `folder` without cleave's rank records: ranks as
    another tool would have written them (their order and rules are then the command line's)."""
    for name in sorted(os.listdir(folder)):
        if name.endswith(".safetensors"):
            path = os.path.join(folder, name)
            meta, tensors = read_st(path)
            write_st(path, tensors, model_meta(meta or {}) or None)
