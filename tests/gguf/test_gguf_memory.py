#!/usr/bin/python3
"""Bounded memory on a 1 GiB GGUF file: `gguf shard -n 2` (axis-0 parts copied in the kernel,
inner-axis parts gathered from blocks of rows), `gguf split --max-shard-size` into a set and
`gguf merge` back run with cleave's address space capped at 48 MiB. The input is sparse (zeros
but for markers at both ends of each tensor's rows); the outputs are read with the independent
reader's rules on their headers and checked where NumPy's slicing puts the markers, and the
merged file must equal the input byte for byte.

AddressSanitizer builds reserve terabytes of address space: the test is skipped there."""
import os
import resource
import struct
import subprocess

import numpy as np
import pytest

import clitest
import gguf_util as u
from clitest import check

MIB = 1 << 20
# 289 MiB of Q8_0 rows, 512 MiB of F32 whose columns are gathered, 225 MiB of Q4_K.
TENSORS = [("blk.0.rows", "Q8_0", (8192, 34816)), ("blk.0.cols", "F32", (8192, 16384)),
           ("blk.0.q4k", "Q4_K", (8192, 51200))]


def sanitized():
    with open(u.CLEAVE, "rb") as f:
        return b"__asan_init" in f.read()


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (48 * MIB, 48 * MIB))


def make(path):
    """Writes the header with gguf_util's encoders and the sparse data; returns {name: (data
    offset in the file, bytes)}."""
    meta = [("general.architecture", "str", "llama"), ("general.alignment", "u32", 32)]
    head = b"GGUF" + struct.pack("<IQQ", 3, len(TENSORS), len(meta))
    head += b"".join(u.enc_kv(*kv) for kv in meta)
    at, spans = 0, {}
    for name, dtype, shape in TENSORS:
        n = u.nbytes(dtype, shape)
        head += (u.enc_str(name) + struct.pack("<I", 2) +
                 b"".join(struct.pack("<q", d) for d in reversed(shape)) +
                 struct.pack("<iQ", u.TYPES[dtype][0], at))
        spans[name] = (at, n)
        at = u.pad(at + n, 32)
    start = u.pad(len(head), 32)
    with open(path, "wb") as f:
        f.write(head + bytes(start - len(head)))
    os.truncate(path, start + at)
    with open(path, "r+b") as f:
        for name, dtype, shape in TENSORS:
            off, n = spans[name]
            row = n // shape[0]
            for r in (0, shape[0] // 2, shape[0] - 1):  # markers at both ends of some rows
                f.seek(start + off + r * row)
                f.write(bytes(range(1, 17)))
                f.seek(start + off + r * row + row - 16)
                f.write(bytes(range(101, 117)))
    return {name: (start + off, n) for name, (off, n) in spans.items()}


def tensor_at(path, name):
    """The bytes of tensor `name` in `path` (memory-mapped), from its header."""
    with open(path, "rb") as f:
        blob = f.read(1 << 16)
    r = u.Reader(blob)
    r.take(4)
    _, nt, nkv = struct.unpack("<IQQ", r.take(20))
    align = 32
    for _ in range(nkv):
        key = r.string()
        vtype = u.VNAMES[r.u("<i")]
        v = r.value(vtype)
        align = v if key == "general.alignment" else align
    found = None
    for _ in range(nt):
        n = r.string()
        nd = r.u("<I")
        ne = [r.u("<q") for _ in range(nd)]
        dtype = u.BY_NUMBER[r.u("<i")]
        off = r.u("<Q")
        if n == name:
            found = (dtype, tuple(reversed(ne)), off)
    dtype, shape, off = found
    start = u.pad(r.p, align)
    return shape, np.memmap(path, dtype=np.uint8, mode="r", offset=start + off,
                            shape=(u.nbytes(dtype, shape),))


def test_gguf_memory():
    if sanitized():
        pytest.skip("bounded memory: AddressSanitizer builds cannot run under an address-space "
                    "limit (the normal build runs this test)")
    work = clitest.workdir("gguf_memory")
    big = os.path.join(work, "big.gguf")
    spans = make(big)
    check(os.path.getsize(big) > 1 << 30, "the input holds more than 1 GiB")
    full = {name: np.memmap(big, dtype=np.uint8, mode="r", offset=off, shape=(n,))
            for name, (off, n) in spans.items()}
    r = subprocess.run([u.CLEAVE, "gguf", "shard", "big.gguf", "-o", "tp", "-n", "2", "-q",
                        "--axis", "blk.0.rows=0", "--axis", "blk.0.cols=1",
                        "--axis", "blk.0.q4k=0"], cwd=work, capture_output=True, text=True,
                       preexec_fn=limit)
    if check(r.returncode == 0, f"shard in 48 MiB: {r.returncode} {r.stderr}"):
        for rank in range(2):
            path = os.path.join(work, "tp", f"rank{rank}.gguf")
            rows = u.rows(np.asarray(full["blk.0.rows"]), (8192, 34816), 0, "Q8_0")
            _, got = tensor_at(path, "blk.0.rows")
            check(np.array_equal(np.asarray(got), rows[:, rank * 4096:(rank + 1) * 4096].reshape(-1)),
                  f"rank {rank}: Q8_0 rows")
            cols = np.asarray(full["blk.0.cols"]).reshape(8192, 16384 * 4)
            shape, got = tensor_at(path, "blk.0.cols")
            half = 8192 * 4
            check(shape == (8192, 8192) and np.array_equal(
                np.asarray(got), cols[:, rank * half:(rank + 1) * half].reshape(-1)),
                f"rank {rank}: F32 columns")
        subprocess.run(["rm", "-rf", os.path.join(work, "tp")])
    r = subprocess.run([u.CLEAVE, "gguf", "split", "big.gguf", "-o", "set", "-q",
                        "--max-shard-size", "400MiB"], cwd=work, capture_output=True, text=True,
                       preexec_fn=limit)
    check(r.returncode == 0, f"split --max-shard-size in 48 MiB: {r.stderr}")
    names = sorted(os.listdir(os.path.join(work, "set"))) if r.returncode == 0 else []
    check(names == ["big-00001-of-00003.gguf", "big-00002-of-00003.gguf",
                    "big-00003-of-00003.gguf", "cleave-manifest.json"], f"set: {names}")
    r = subprocess.run([u.CLEAVE, "gguf", "merge", "set/big-00001-of-00003.gguf", "-o",
                        "back.gguf", "-q"], cwd=work, capture_output=True, text=True,
                       preexec_fn=limit)
    if check(r.returncode == 0, f"merge in 48 MiB: {r.stderr}"):
        same = subprocess.run(["cmp", "big.gguf", "back.gguf"], cwd=work).returncode == 0
        check(same, "the merged file equals the input")
    subprocess.run(["rm", "-rf", work])
