"""Helpers of the GGUF tests: an independent GGUF writer and a strict reader in Python (struct
and NumPy only, no code shared with cleave), written from the format's description (ggml's
docs/gguf.md, llama.cpp's ggml/src/gguf.cpp) and the ggml type sizes of gguf-py's
GGML_QUANT_SIZES; and the shared checks of error paths.

The writer lays files out as llama.cpp's writer does: header, metadata in the given order, tensor
infos (ne = the NumPy shape reversed), zeros to the alignment, each tensor's data padded with
zeros to the alignment (the last one too). The reader refuses anything else (strict=True)."""
import struct
import subprocess

import numpy as np

import clitest
from clitest import check

CLEAVE = clitest.CLEAVE

# name: (ggml type number, elements per block, bytes per block)
TYPES = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
    "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q8_1": (9, 32, 40),
    "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144),
    "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "Q8_K": (15, 256, 292),
    "IQ2_XXS": (16, 256, 66), "IQ2_XS": (17, 256, 74), "IQ3_XXS": (18, 256, 98),
    "IQ1_S": (19, 256, 50), "IQ4_NL": (20, 32, 18), "IQ3_S": (21, 256, 110),
    "IQ2_S": (22, 256, 82), "IQ4_XS": (23, 256, 136), "I8": (24, 1, 1), "I16": (25, 1, 2),
    "I32": (26, 1, 4), "I64": (27, 1, 8), "F64": (28, 1, 8), "IQ1_M": (29, 256, 56),
    "BF16": (30, 1, 2), "TQ1_0": (34, 256, 54), "TQ2_0": (35, 256, 66),
    "MXFP4": (39, 32, 17), "NVFP4": (40, 64, 36), "Q1_0": (41, 128, 18),
}
BY_NUMBER = {v[0]: k for k, v in TYPES.items()}

# GGUF value types: name -> (number, struct format or None)
VTYPES = {"u8": (0, "<B"), "i8": (1, "<b"), "u16": (2, "<H"), "i16": (3, "<h"),
          "u32": (4, "<I"), "i32": (5, "<i"), "f32": (6, "<f"), "bool": (7, "<B"),
          "str": (8, None), "arr": (9, None), "u64": (10, "<Q"), "i64": (11, "<q"),
          "f64": (12, "<d")}
VNAMES = {v[0]: k for k, v in VTYPES.items()}


def nbytes(dtype, shape):
    _, block, size = TYPES[dtype]
    n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    assert n % block == 0
    return n // block * size


def pad(n, align):
    return (n + align - 1) // align * align


def enc_str(s):
    b = s.encode() if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(b)) + b


def enc_scalar(vtype, value):
    if vtype == "str":
        return enc_str(value)
    return struct.pack(VTYPES[vtype][1], value)


def enc_value(vtype, value):
    """The bytes of a value after its type. Arrays are ("arr", (elem_type, [values]))."""
    if vtype == "arr":
        elem, items = value
        return (struct.pack("<i", VTYPES[elem][0]) + struct.pack("<Q", len(items)) +
                b"".join(enc_scalar(elem, v) for v in items))
    return enc_scalar(vtype, value)


def enc_kv(key, vtype, value):
    return enc_str(key) + struct.pack("<i", VTYPES[vtype][0]) + enc_value(vtype, value)


def gguf_bytes(metadata, tensors, version=3, align=None):
    """metadata: [(key, vtype, value)] in order; tensors: [(name, dtype, shape, raw bytes)] in
    order (shape in NumPy order). The alignment is general.alignment's when present."""
    if align is None:
        align = 32
        for key, vtype, value in metadata:
            if key == "general.alignment":
                align = value
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata))
    head += b"".join(enc_kv(*kv) for kv in metadata)
    data = b""
    for name, dtype, shape, raw in tensors:
        assert len(raw) == nbytes(dtype, shape), (name, len(raw))
        ne = list(reversed(shape))
        head += enc_str(name) + struct.pack("<I", len(ne)) + b"".join(
            struct.pack("<q", d) for d in ne) + struct.pack("<iQ", TYPES[dtype][0], len(data))
        data += raw + bytes(pad(len(raw), align) - len(raw))
    head += bytes(pad(len(head), align) - len(head))
    return head + data


def write_gguf(path, metadata, tensors, version=3, align=None):
    with open(path, "wb") as f:
        f.write(gguf_bytes(metadata, tensors, version, align))


class Reader:
    def __init__(self, blob):
        self.b, self.p = blob, 0

    def take(self, n):
        assert self.p + n <= len(self.b), f"truncated at {self.p}"
        out = self.b[self.p:self.p + n]
        self.p += n
        return out

    def u(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self):
        return self.take(self.u("<Q")).decode("utf-8")

    def scalar(self, vtype):
        if vtype == "str":
            return self.string()
        v = self.u(VTYPES[vtype][1])
        if vtype == "bool":
            assert v in (0, 1)
            v = bool(v)
        return v

    def value(self, vtype):
        if vtype == "arr":
            elem = VNAMES[self.u("<i")]
            assert elem != "arr"
            n = self.u("<Q")
            return (elem, [self.scalar(elem) for _ in range(n)])
        return self.scalar(vtype)


def read_gguf(path):
    """Strictly reads a file written as llama.cpp writes: returns (version, [(key, vtype,
    value)], [(name, dtype, shape, raw)]) in file order."""
    with open(path, "rb") as f:
        blob = f.read()
    r = Reader(blob)
    assert r.take(4) == b"GGUF", f"{path}: magic"
    version, n_tensors, n_kv = struct.unpack("<IQQ", r.take(20))
    assert version in (2, 3)
    meta = []
    for _ in range(n_kv):
        key = r.string()
        vtype = VNAMES[r.u("<i")]
        meta.append((key, vtype, r.value(vtype)))
    keys = [k for k, _, _ in meta]
    assert len(keys) == len(set(keys)), f"{path}: duplicate keys"
    align = dict((k, v) for k, _, v in meta).get("general.alignment", 32)
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        assert 1 <= len(name.encode()) <= 63
        nd = r.u("<I")
        assert nd <= 4
        ne = [r.u("<q") for _ in range(nd)]
        dtype = BY_NUMBER[r.u("<i")]
        off = r.u("<Q")
        infos.append((name, dtype, tuple(reversed(ne)), off))
    names = [i[0] for i in infos]
    assert len(names) == len(set(names)), f"{path}: duplicate tensors"
    head_end = r.p
    start = pad(head_end, align)
    assert blob[head_end:start] == bytes(start - head_end), f"{path}: header padding"
    at = 0
    tensors = []
    for name, dtype, shape, off in infos:
        assert off == at, f"{path}: {name} at {off}, expected {at}"
        n = nbytes(dtype, shape)
        raw = blob[start + off:start + off + n]
        assert len(raw) == n, f"{path}: {name} truncated"
        end = start + off + n
        assert blob[end:start + pad(off + n, align)] == bytes(pad(off + n, align) - off - n), \
            f"{path}: {name} padding"
        at = pad(off + n, align)
        tensors.append((name, dtype, shape, raw))
    assert len(blob) == start + at, f"{path}: size {len(blob)}, expected {start + at}"
    return version, meta, tensors


def rand_bytes(rng, n):
    return rng.integers(0, 256, n, dtype=np.uint8).tobytes()


def rows(raw, shape, axis, dtype):
    """The tensor's bytes as a 3-D array [outer, dim, inner_bytes] around `axis` (NumPy order):
    a quantized tensor's innermost axis counts blocks when `axis` is the last."""
    _, block, size = TYPES[dtype]
    shape = list(shape)
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    if axis == len(shape) - 1:
        dim = shape[-1] // block
        inner = size
    else:
        dim = shape[axis]
        inner = int(np.prod(shape[axis + 1:], dtype=np.int64)) // block * size
    return np.frombuffer(raw, dtype=np.uint8).reshape(outer, dim, inner)


def run(args, cwd, **kwargs):
    return subprocess.run([CLEAVE] + list(args), cwd=cwd, capture_output=True, text=True,
                          errors="backslashreplace", timeout=300, **kwargs)


def expect_failure(label, args, cwd, status, fragments, watch=None):
    """Runs cleave expecting `status`, an error line holding every fragment, and `watch`
    (default cwd) unchanged: no output, no temporary, no changed file."""
    watch = watch or cwd
    before = clitest.snapshot(watch)
    r = run(args, cwd)
    ok = check(r.returncode == status,
               f"{label}: status {r.returncode}, expected {status}: {r.stderr.strip()}")
    if ok:
        lines = r.stderr.splitlines()
        check(len(lines) >= 1 and lines[-1].startswith("cleave: error: "),
              f"{label}: no error line: {r.stderr!r}")
        for frag in fragments:
            check(frag in r.stderr, f"{label}: '{frag}' not in {r.stderr.strip()!r}")
    check(clitest.snapshot(watch) == before, f"{label}: files changed or left behind")
    return r
