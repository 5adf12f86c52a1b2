#!/usr/bin/python3
"""Bounded memory (docs/cli.md: "Memory use does not grow with the input"): splits of a 256 MiB input
run with the address space of cleave capped at 32 MiB, on the three copy paths (whole pieces
copied in the kernel, 16-byte pieces and 1-byte pieces gathered in user space). The outputs are
checked by size, header and content (the input is a sparse file: all zeros but for a marker
written at the start and at the end of the data).

An address-space limit cannot be used with AddressSanitizer (it reserves terabytes): the test
is skipped in such builds.
"""
import os

import numpy as np
import pytest

import clitest
import hostile
from clitest import check

MIB = 1 << 20
SHAPE = (1 << 24, 2, 8)


def test_memory():
    if hostile.sanitized():
        pytest.skip("bounded memory: AddressSanitizer builds cannot run under an address-space "
                    "limit (the normal build runs this test)")
    work = clitest.workdir("hostile-memory")
    path = os.path.join(work, "big.npy")
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "|u1", "fortran_order": False,
                                                 "shape": SHAPE})
        offset = f.tell()
    size = SHAPE[0] * SHAPE[1] * SHAPE[2]
    os.truncate(path, offset + size)
    # Markers: the first row's 16 bytes and the last row's 16 bytes.
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(bytes(range(1, 17)))
        f.seek(offset + size - 16)
        f.write(bytes(range(101, 117)))
    first = np.arange(1, 17, dtype=np.uint8).reshape(1, 2, 8)
    last = np.arange(101, 117, dtype=np.uint8).reshape(1, 2, 8)
    for axis, n in ((0, 4), (1, 2), (2, 8)):
        r = hostile.run(["split", "-a", str(axis), "-n", str(n), "-f", "-q", "-o", "p", "big.npy"],
                        work, preexec_fn=hostile.limit_address_space(32 * MIB))
        label = f"256 MiB split along axis {axis} in 32 MiB"
        if not check(r.returncode == 0, f"{label}: status {r.returncode}: {r.stderr}"):
            continue
        for i in range(n):
            out = os.path.join(work, f"p_{i}.npy")
            shape = list(SHAPE)
            shape[axis] //= n
            _, h, data_at, _ = clitest.read_header(out)
            check(h == {"descr": "|u1", "fortran_order": False, "shape": tuple(shape)},
                  f"{label}: output {i} header {h}")
            check(os.path.getsize(out) == data_at + size // n, f"{label}: output {i} size")
            # The markers land where NumPy's slicing puts them; everything else is zero.
            a = np.memmap(out, dtype=np.uint8, mode="r", offset=data_at, shape=tuple(shape))
            zero = np.zeros((1, SHAPE[1] // (n if axis == 1 else 1),
                             SHAPE[2] // (n if axis == 2 else 1)), dtype=np.uint8)
            if axis == 0:
                want_first = first if i == 0 else zero
                want_last = last if i == n - 1 else zero
            else:
                index = [slice(None)] * 3
                index[axis] = slice(i * shape[axis], (i + 1) * shape[axis])
                want_first, want_last = first[tuple(index)], last[tuple(index)]
            check(np.array_equal(a[:1], want_first), f"{label}: output {i} first row")
            check(np.array_equal(a[-1:], want_last), f"{label}: output {i} last row")
            check(not a[1:-1].any(), f"{label}: output {i} has unexpected non-zero bytes")
            del a
    for name in os.listdir(work):
        os.unlink(os.path.join(work, name))
