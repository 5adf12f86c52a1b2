#!/usr/bin/python3
"""Shapes and layouts that take the different copy paths of the streaming split, and the output
naming and reporting rules of docs/cli.md:

- more outputs than are kept open at once (groups of outputs, row-by-row reads);
- pieces of several MiB (in-kernel copies), pieces copied with vectored writes, tiny pieces;
- an input on another file system than the outputs (in-kernel copy may be refused);
- zero-size dims, empty outputs, an empty sequence, 1-D data, negative axes;
- PREFIX_i.npy naming, the default prefix, --json, --quiet.
"""
import json
import os
import shutil

import numpy as np

import clitest
from clitest import check


def split_and_compare(label, work, a, args, axis, lengths, removed=False, src=None,
                      fortran=False):
    """Saves `a` (unless `src` is given), runs `args` on it, and checks each output against
    NumPy's slicing with the hand-derived `lengths`."""
    if src is None:
        src = os.path.join(work, "in.npy")
        np.save(src, np.asfortranarray(a) if fortran else a)
    prefix = os.path.join(work, "out")
    r = clitest.run(args + ["-q", "-o", prefix, src], work)
    if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}"):
        return
    start = 0
    for i, length in enumerate(lengths):
        expected = clitest.slice_along(a, axis, start, length, removed)
        clitest.check_output(f"{label} output {i}", f"{prefix}_{i}.npy", expected,
                             fortran and expected.ndim > 0)
        start += length
    check(not os.path.exists(f"{prefix}_{len(lengths)}.npy"), f"{label}: extra output")
    check(clitest.temporaries(work) == [], f"{label}: temporaries left")
    for name in os.listdir(work):
        if name.startswith("out_"):
            os.unlink(os.path.join(work, name))


def copy_paths(work):
    rng = np.random.default_rng(7)
    # 600 outputs: more than one group of open files; each row read piece by piece.
    a = rng.integers(0, 1 << 16, size=(3, 600, 2), dtype=np.uint16)
    split_and_compare("600 outputs, keepdims 0", work, a,
                      ["split-to-sequence", "-a", "1", "-k", "0"], 1, [1] * 600, removed=True)
    split_and_compare("600 outputs along axis 0", work, a.reshape(600, 3, 2)[:, :, :1].copy(),
                      ["split-to-sequence"], 0, [1] * 600)
    split_and_compare("600 outputs, fortran", work, a,
                      ["split-to-sequence", "-a", "1", "-l", ",".join(["1"] * 600)], 1,
                      [1] * 600, fortran=True)
    # Pieces of several MiB: copied whole, in the kernel where possible.
    big = rng.integers(0, 255, size=(3, 3 << 20), dtype=np.uint8)
    split_and_compare("MiB pieces", work, big, ["split", "-a", "0", "-n", "3"], 0, [1, 1, 1])
    split_and_compare("MiB pieces along axis 1", work, big.reshape(3, 2, -1),
                      ["variadic-split", "-a", "1", "-l", "1,1"], 1, [1, 1])
    # Pieces of 4 KiB and more from many rows: vectored writes.
    mid = rng.integers(0, 255, size=(64, 3, 4096), dtype=np.uint8)
    split_and_compare("4 KiB pieces", work, mid, ["variadic-split", "-a", "1", "-l", "2,1"], 1,
                      [2, 1])
    # Rows larger than a chunk but pieces too small to copy one by one would be slow: still right.
    wide = rng.integers(0, 255, size=(2, 5 << 20), dtype=np.uint8)
    split_and_compare("rows larger than a chunk", work, wide,
                      ["variadic-split", "-a", "1", "-l", "1,-1"], 1, [1, (5 << 20) - 1])
    # An input on tmpfs while the outputs are on the build directory's file system.
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        src = os.path.join(shm, f"cleave-test-{os.getpid()}.npy")
        np.save(src, big)
        try:
            split_and_compare("input on another file system", work, big,
                              ["split", "-a", "0", "-n", "3"], 0, [1, 1, 1], src=src)
        finally:
            os.unlink(src)


def shapes(work):
    a = np.arange(2 * 0 * 3, dtype="<f4").reshape(2, 0, 3)
    split_and_compare("zero dim elsewhere", work, a, ["split", "-a", "2", "-n", "3"], 2,
                      [1, 1, 1])
    split_and_compare("zero dim on the axis", work, a, ["split", "-a", "1", "-n", "4"], 1,
                      [0, 0, 0, 0])
    b = np.arange(10, dtype="<i8")
    split_and_compare("1-D, empty output", work, b, ["variadic-split", "-a", "-1", "-l",
                                                     "0,10,0"], 0, [0, 10, 0])
    split_and_compare("1-D, keepdims 0: 0-D outputs", work, b[:3].copy(),
                      ["split-to-sequence", "-k", "0"], 0, [1, 1, 1], removed=True)
    c = np.arange(2 * 3 * 4 * 5, dtype=">i2").reshape(2, 3, 4, 5)
    for axis in range(-4, 4):
        n = c.shape[axis]
        split_and_compare(f"rank 4, axis {axis}", work, c, ["split", "-a", str(axis), "-n",
                                                            str(n)], axis % 4, [1] * n)
        split_and_compare(f"rank 4 fortran, axis {axis}", work, c,
                          ["split", "-a", str(axis), "-n", str(n)], axis % 4, [1] * n,
                          fortran=True)
    split_and_compare("onnx Split-18 6/4", work, np.arange(6, dtype="<u2"),
                      ["onnx-split", "--opset", "18", "-n", "4"], 0, [2, 2, 2, 0])
    split_and_compare("onnx opset 12 is Split-11", work, np.arange(6, dtype="<u2"),
                      ["onnx-split", "--opset", "12", "-n", "3"], 0, [2, 2, 2])
    split_and_compare("SplitToSequence opset 23 is -11", work, np.arange(6) % 4 == 1,
                      ["split-to-sequence", "--opset", "23", "-s", "4"], 0, [4, 2])
    # An empty sequence: no file at all, nothing printed.
    empty = np.zeros((0, 3), dtype="<f8")
    np.save(os.path.join(work, "e.npy"), empty)
    r = clitest.run(["split-to-sequence", "e.npy"], work)
    check(r.returncode == 0 and r.stdout == "", f"empty sequence: {r.returncode} {r.stdout!r}")
    check(sorted(os.listdir(work)) == ["e.npy", "in.npy"],
          f"empty sequence wrote {os.listdir(work)}")
    r = clitest.run(["split-to-sequence", "--json", "e.npy"], work)
    check(r.stdout == '{"op": "split-to-sequence", "outputs": []}\n',
          f"empty sequence JSON: {r.stdout!r}")
    os.unlink(os.path.join(work, "e.npy"))


def naming(work):
    a = np.arange(12, dtype="<i4").reshape(6, 2)
    os.mkdir(os.path.join(work, "sub"))
    np.save(os.path.join(work, "sub", "data.npy"), a)
    # Default prefix: the input without .npy, next to it.
    r = clitest.run(["variadic-split", "-a", "0", "-l", "1,2,3", "sub/data.npy"], work)
    check(r.returncode == 0, f"default prefix: {r.stderr}")
    check(r.stdout == "sub/data_0.npy [1,2]\nsub/data_1.npy [2,2]\nsub/data_2.npy [3,2]\n",
          f"default prefix: stdout {r.stdout!r}")
    check(np.array_equal(np.load(os.path.join(work, "sub", "data_2.npy")), a[3:]),
          "default prefix: sub/data_2.npy")
    # --json: exactly the format of docs/cli.md.
    r = clitest.run(["variadic-split", "-a", "0", "-l", "1,2,3", "-f", "--json",
                     "sub/data.npy"], work)
    expected = ('{"op": "variadic-split", "outputs": [{"shape": "[1,2]", "path": '
                '"sub/data_0.npy", "dims": [1, 2]}, {"shape": "[2,2]", "path": "sub/data_1.npy", '
                '"dims": [2, 2]}, {"shape": "[3,2]", "path": "sub/data_2.npy", "dims": [3, 2]}]}'
                '\n')
    check(r.stdout == expected, f"--json: {r.stdout!r}")
    check(json.loads(r.stdout)["outputs"][1]["path"] == "sub/data_1.npy", "--json parses")
    # A name without .npy keeps its whole name as the prefix; -o gives any prefix; -q is quiet.
    shutil.copy(os.path.join(work, "sub", "data.npy"), os.path.join(work, "raw.bin"))
    r = clitest.run(["split", "-a", "1", "-n", "2", "-q", "raw.bin"], work)
    check(r.returncode == 0 and r.stdout == "", f"-q: {r.stdout!r} {r.stderr}")
    check(os.path.exists(os.path.join(work, "raw.bin_1.npy")), "prefix of a name without .npy")
    r = clitest.run(["split", "-a", "1", "-n", "2", "--output", "sub/p q", "--json", "-q",
                     "raw.bin"], work)
    check(json.loads(r.stdout)["outputs"][0]["path"] == "sub/p q_0.npy",
          f"--output with a space; --json wins over -q: {r.stdout!r}")
    check(np.array_equal(np.load(os.path.join(work, "sub", "p q_1.npy")), a[:, 1:]),
          "sub/p q_1.npy")
    # Paths needing JSON escapes.
    r = clitest.run(["split", "-a", "1", "-n", "2", "-o", 'sub/"x\\y', "--json", "raw.bin"],
                    work)
    check(r.returncode == 0 and json.loads(r.stdout)["outputs"][0]["path"] == 'sub/"x\\y_0.npy',
          f"JSON escapes: {r.stdout!r}")
    # Control characters and DEL as \u00XX (tools/common/json_string.c, shared with ir-check).
    r = clitest.run(["split", "-a", "1", "-n", "2", "-o", "sub/t\tn\x7f", "--json", "raw.bin"],
                    work)
    check(r.returncode == 0 and '"sub/t\\u0009n\\u007f_0.npy"' in r.stdout
          and json.loads(r.stdout)["outputs"][1]["path"] == "sub/t\tn\x7f_1.npy",
          f"JSON \\u00XX escapes: {r.stdout!r}")
    # --sync works (durability itself is not observable here).
    r = clitest.run(["split", "-a", "0", "-n", "3", "--sync", "-q", "-o", "sub/s", "raw.bin"],
                    work)
    check(r.returncode == 0 and os.path.exists(os.path.join(work, "sub", "s_2.npy")),
          f"--sync: {r.stderr}")
    # Options after the input, bundled flags and --opt=value spellings.
    r = clitest.run(["split", "raw.bin", "--axis=1", "-n2", "-fq", "--output=sub/b"], work)
    check(r.returncode == 0 and os.path.exists(os.path.join(work, "sub", "b_1.npy")),
          f"option spellings: {r.returncode} {r.stderr}")
    # "--" ends the options: a file whose name starts with "-".
    shutil.copy(os.path.join(work, "raw.bin"), os.path.join(work, "-x.npy"))
    r = clitest.run(["split", "-a", "0", "-n", "2", "-q", "--", "-x.npy"], work)
    check(r.returncode == 0 and os.path.exists(os.path.join(work, "-x_1.npy")),
          f"-- before a dash name: {r.stderr}")
    check(clitest.temporaries(work) == [], "naming: temporaries left")


def test_layouts():
    copy_paths(clitest.workdir("layouts-copy"))
    shapes(clitest.workdir("layouts-shapes"))
    naming(clitest.workdir("layouts-naming"))
