#!/usr/bin/python3
"""Bounded memory: `st shard -n 4`, `st split`, `st merge` of the four ranks and `st reshard`
of them to 2 and to 8, on a 256 MiB checkpoint, run with cleave's address space capped at
32 MiB: the contiguous ranges (axis-0 parts, replicated tensors), the gathered columns
(inner-axis parts) and the joined ones. The input is sparse (zeros but for markers at the first
and last 16 bytes of each tensor); the outputs are checked by header (the independent reader's
rules, on the header alone), size, and where NumPy's slicing puts the markers; the merge must
be the input byte for byte, and each reshard what a shard of the input gives.

AddressSanitizer builds reserve terabytes of address space: the test is skipped there."""
import filecmp
import json
import os
import resource
import struct
import subprocess

import numpy as np
import pytest

import clitest
import st_util as u
from clitest import check

MIB = 1 << 20
TENSORS = {"w.rows": ("U8", (8192, 16384)), "w.cols": ("F32", (4096, 8192)),
           "norm": ("F32", (16,))}


def sanitized():
    with open(u.CLEAVE, "rb") as f:
        return b"__asan_init" in f.read()


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (32 * MIB, 32 * MIB))


def make(path):
    head, off, spans = {}, 0, {}
    for name in u.canonical_order({k: (v[0],) for k, v in TENSORS.items()}):
        dtype, shape = TENSORS[name]
        size = u.nbytes(dtype, shape)
        head[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + size]}
        spans[name] = (off, size)
        off += size
    text = json.dumps(head, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    start = 8 + len(text)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
    os.truncate(path, start + off)
    with open(path, "r+b") as f:
        for name, (b, size) in spans.items():
            f.seek(start + b)
            f.write(bytes(range(1, 17)))
            f.seek(start + b + size - 16)
            f.write(bytes(range(101, 117)))
    full = {}
    for name, (b, size) in spans.items():
        dtype, shape = TENSORS[name]
        a = np.zeros(size, np.uint8)
        a[:16] = np.arange(1, 17)
        a[-16:] = np.arange(101, 117)
        full[name] = a  # only the markers matter; kept as bytes
    return full


def header_of(path):
    """The header, checked with the independent reader's rules, and where the data starts."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        text = f.read(n)
    check(n % 8 == 0 and text.rstrip(b" ").endswith(b"}"), f"{path}: header framing")
    head = json.loads(text)
    head.pop("__metadata__", None)
    at = 0
    for name, info in sorted(head.items(), key=lambda kv: kv[1]["data_offsets"]):
        b, e = info["data_offsets"]
        check(b == at and e - b == u.nbytes(info["dtype"], info["shape"]), f"{path}: {name} span")
        at = e
    check(os.path.getsize(path) == 8 + n + at, f"{path}: size")
    return head, 8 + n


def part_bytes(path, name, head, start):
    b, e = head[name]["data_offsets"]
    return np.memmap(path, dtype=np.uint8, mode="r", offset=start + b, shape=(e - b,))


def expect_part(label, path, name, full, axis, count, index, dtype, shape):
    head, start = header_of(path)
    itemsize = u.nbytes(dtype, (1,))
    want = full[name].reshape(shape[0], -1)
    if axis == 0:
        want = np.split(want, count, axis=0)[index]
    else:
        want = np.split(want.reshape(shape[0], shape[1], itemsize), count, axis=1)[index]
    got = part_bytes(path, name, head, start)
    check(np.array_equal(np.asarray(got), want.reshape(-1)), f"{label}: {name} part {index}")


def capped(work, args):
    return subprocess.run([u.CLEAVE] + args + ["-q"], cwd=work, capture_output=True, text=True,
                          preexec_fn=limit)


def merge_and_reshard(work):
    """The four ranks of tp/ merged (the input again) and resharded, in 32 MiB."""
    rules = ["--axis", "w.rows=0", "--axis", "w.cols=1"]
    r = capped(work, ["st", "merge", "tp", "-o", "merged"] + rules)
    if check(r.returncode == 0, f"merge in 32 MiB: {r.returncode} {r.stderr}"):
        check(filecmp.cmp(os.path.join(work, "big.safetensors"),
                          os.path.join(work, "merged", "model.safetensors"), shallow=False),
              "merge in 32 MiB is not the input")
    subprocess.run(["rm", "-rf", os.path.join(work, "merged")])
    for n in (2, 8):
        r = capped(work, ["st", "reshard", "tp", "-o", f"re{n}", "-n", str(n)] + rules)
        ok = check(r.returncode == 0, f"reshard -n {n} in 32 MiB: {r.returncode} {r.stderr}")
        r = capped(work, ["st", "shard", "big.safetensors", "-o", f"sh{n}", "-n", str(n)] + rules)
        if ok and check(r.returncode == 0, f"shard -n {n}: {r.stderr}"):
            for rank in range(n):
                name = f"rank{rank}.safetensors"
                check(filecmp.cmp(os.path.join(work, f"re{n}", name),
                                  os.path.join(work, f"sh{n}", name), shallow=False),
                      f"reshard -n {n} in 32 MiB: {name} differs from shard -n {n}")
        subprocess.run(["rm", "-rf", os.path.join(work, f"re{n}"), os.path.join(work, f"sh{n}")])
    subprocess.run(["rm", "-rf", os.path.join(work, "tp")])


def test_st_memory():
    if sanitized():
        pytest.skip("bounded memory: AddressSanitizer builds cannot run under an address-space "
                    "limit (the normal build runs this test)")
    work = clitest.workdir("st_memory")
    full = make(os.path.join(work, "big.safetensors"))
    r = subprocess.run([u.CLEAVE, "st", "shard", "big.safetensors", "-o", "tp", "-n", "4",
                        "--axis", "w.rows=0", "--axis", "w.cols=1", "-q"], cwd=work,
                       capture_output=True, text=True, preexec_fn=limit)
    if check(r.returncode == 0, f"shard in 32 MiB: {r.returncode} {r.stderr}"):
        for rank in range(4):
            path = os.path.join(work, "tp", f"rank{rank}.safetensors")
            expect_part("shard", path, "w.rows", full, 0, 4, rank, "U8", (8192, 16384))
            expect_part("shard", path, "w.cols", full, 1, 4, rank, "F32", (4096, 8192))
            head, start = header_of(path)
            check(np.array_equal(np.asarray(part_bytes(path, "norm", head, start)), full["norm"]),
                  f"shard: replicated norm on rank {rank}")
        merge_and_reshard(work)
    r = subprocess.run([u.CLEAVE, "st", "split", "big.safetensors", "-o", "split", "-q",
                        "--tensor", "w.cols", "-a", "1", "-l", "1000,-1", "--into", "a,b"],
                       cwd=work, capture_output=True, text=True, preexec_fn=limit)
    if check(r.returncode == 0, f"split in 32 MiB: {r.returncode} {r.stderr}"):
        path = os.path.join(work, "split", "big.safetensors")
        head, start = header_of(path)
        cols = full["w.cols"].reshape(4096, 8192 * 4)
        check(np.array_equal(np.asarray(part_bytes(path, "a", head, start)),
                             cols[:, :4000].reshape(-1)), "split: part a")
        check(np.array_equal(np.asarray(part_bytes(path, "b", head, start)),
                             cols[:, 4000:].reshape(-1)), "split: part b")
    subprocess.run(["rm", "-rf", work])  # a few hundred MB of outputs
