#!/usr/bin/python3
"""The joining commands, concat and concat-from-sequence, against NumPy (docs/operators.md
section 8, docs/cli.md): every output is loaded with numpy.load and compared with
numpy.concatenate or numpy.stack of the loaded inputs (values, dtype with its byte order, memory
order), never with anything cleave computed.

Groups:
  numpy    random joins of every byte-sized dtype, in both byte orders and both memory orders
           (mixed ones too), through OpenVINO Concat-1, ONNX Concat at an opset and
           ConcatFromSequence (new_axis 0 and 1), with chunk sizes that take every copy path
           (batches of rows, one piece at a time, transposition tiles)
  packed   packed sub-byte inputs (--dtype, one --shape per input) against a reference packer
  inverse  the inverse property through the CLI: split then concat gives the input's data back
  stream   inputs much larger than the chunk (CLEAVE_CHUNK_BYTES), many inputs, in-kernel copies

pytest runs each group as test_concat.py::test_concat[GROUP].
"""
import json
import os

import numpy as np

import clitest
from clitest import check
from test_packed import TYPES as PACKED_TYPES, make_packed, pack

# Byte-sized dtypes and the ONNX opset that accepts them (None: OpenVINO Concat-1 only).
DTYPES = ["|b1", "|i1", "|u1", "<i2", ">i2", "<u2", "<i4", ">u4", "<i8", ">u8", "<f2", ">f4",
          "<f4", "<f8", ">f8", "<c8", ">c16", "|S1", "|S5", "<U1", ">U3"]
CHUNKS = ["64", "100", "256", "4096", None]


def other_order(descr):
    """The same dtype in the other byte order ('|' stays)."""
    return {"<": ">", ">": "<"}.get(descr[0], descr[0]) + descr[1:]


def sample(rng, dtype, shape):
    """Distinct values of `dtype`, so that a misplaced element shows."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        v = rng.integers(0, 2, size=n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np.int64 if dt.kind ==
                         "i" else np.uint64)
    elif dt.kind == "f":
        v = rng.standard_normal(n) * 1000
    elif dt.kind == "c":
        v = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    elif dt.kind == "S":
        v = np.array([bytes(rng.integers(97, 123, size=rng.integers(0, dt.itemsize + 1)).astype(
            np.uint8)) for _ in range(n)], dtype=object)
    else:
        v = np.array(["".join(chr(c) for c in rng.integers(0x41, 0x2FF, size=rng.integers(
            0, dt.itemsize // 4 + 1))) for _ in range(n)], dtype=object)
    return np.asarray(v).astype(dt).reshape(shape)


def layout_matters(shape):
    return 0 not in shape and sum(1 for d in shape if d > 1) >= 2


def save(path, a, fortran):
    """Saves `a` in Fortran or C order; returns the fortran_order numpy.save wrote."""
    a = np.asfortranarray(a) if fortran else np.ascontiguousarray(a)
    np.save(path, a)
    return bool(a.flags.f_contiguous and not a.flags.c_contiguous)


def run_join(label, work, args, paths, expected, first_descr, fortran, env_chunk=None,
             report=True):
    """Runs a join and checks its output against `expected` (NumPy's)."""
    out = os.path.join(work, "out.npy")
    env = dict(os.environ)
    env.pop("CLEAVE_CHUNK_BYTES", None)
    if env_chunk is not None:
        env["CLEAVE_CHUNK_BYTES"] = env_chunk
    r = clitest.run(args + ["-f", "--json", "-o", out] + paths, work, env=env)
    if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}"):
        return False
    if report:
        try:
            j = json.loads(r.stdout)
            check(j["outputs"][0]["dims"] == list(expected.shape) and
                  j["outputs"][0]["path"] == out and j["op"] == args[0],
                  f"{label}: report {r.stdout.strip()}")
        except (ValueError, KeyError, IndexError) as e:
            check(False, f"{label}: report {r.stdout!r}: {e}")
    _, header, offset, _ = clitest.read_header(out)
    check(offset % 64 == 0, f"{label}: data offset {offset}")
    check(header["descr"] == first_descr, f"{label}: descr {header['descr']}, expected "
          f"{first_descr}")
    check(header["fortran_order"] == fortran,
          f"{label}: fortran_order {header['fortran_order']}, expected {fortran}")
    y = np.load(out)
    ok = check(y.shape == expected.shape, f"{label}: shape {y.shape}, expected {expected.shape}")
    if ok:
        ok = check(np.array_equal(y, expected.astype(y.dtype)),
                   f"{label}: values differ from NumPy's")
    check(clitest.temporaries(work) == [], f"{label}: temporaries left")
    return ok


def random_join(rng, work, case):
    dtype = DTYPES[rng.integers(len(DTYPES))]
    rank = int(rng.integers(1, 5))
    n = int(rng.integers(1, 6))
    kind = rng.choice(["concat", "onnx", "stack", "sequence"])
    base = [int(rng.integers(0, 5)) if rng.random() < 0.15 else int(rng.integers(1, 6))
            for _ in range(rank)]
    if rng.random() < 0.2:
        base[int(rng.integers(rank))] = int(rng.integers(30, 200))  # long rows or many rows
    if kind == "stack":
        axis = int(rng.integers(-rank - 1, rank + 1))
        shapes = [tuple(base)] * n
    else:
        axis = int(rng.integers(-rank, rank))
        shapes = []
        for _ in range(n):
            s = list(base)
            s[axis] = int(rng.integers(0, 7))
            shapes.append(tuple(s))
    arrays, paths, fortrans = [], [], []
    for i, s in enumerate(shapes):
        d = dtype if rng.random() < 0.6 else other_order(dtype)
        a = sample(rng, d, s)
        p = os.path.join(work, f"in{i}.npy")
        fortrans.append(save(p, a, bool(rng.random() < 0.4)))
        arrays.append(a)
        paths.append(p)
    if kind == "stack":
        args = ["concat-from-sequence", "-a", str(axis), "--new-axis", "1"]
        expected = np.stack(arrays, axis=axis)
    else:
        if kind == "concat":
            args = ["concat", "-a", str(axis)]
        elif kind == "onnx":
            args = ["concat", "--opset", str(int(rng.choice([11, 13, 21]))), "-a", str(axis)]
        else:
            args = ["concat-from-sequence", "-a", str(axis)]
        expected = np.concatenate(arrays, axis=axis)
    # The output's memory order: the first input whose layout depends on it.
    fortran = next((f for a, f in zip(arrays, fortrans) if layout_matters(a.shape)),
                   fortrans[0])
    first = np.load(paths[0]).dtype.str
    chunk = CHUNKS[rng.integers(len(CHUNKS))]
    label = (f"case {case}: {' '.join(args)} {dtype} {[s for s in shapes]} orders "
             f"{['F' if f else 'C' for f in fortrans]} chunk {chunk}")
    run_join(label, work, args, paths, expected, first, fortran, chunk)


def group_numpy(work):
    rng = np.random.default_rng(20261128)
    for case in range(400):
        random_join(rng, work, case)
    # The transposition's tiles with shapes where one side is tiny and the other long, and an
    # element larger than the chunk.
    for shape, dtype, chunk in [((2, 300, 2), "<i4", "64"), ((500, 3), "<f8", "256"),
                                ((3, 500), ">i2", "64"), ((7, 9, 11, 13), "<f4", "1024"),
                                ((4, 6), "<U40", "64"), ((1, 5, 1, 7), "<i8", "64")]:
        a = sample(rng, dtype, shape)
        b = sample(rng, dtype, shape)
        save(os.path.join(work, "c.npy"), a, False)
        save(os.path.join(work, "f.npy"), b, True)
        for axis in range(len(shape)):
            run_join(f"mixed orders {shape} {dtype} axis {axis} chunk {chunk}", work,
                     ["concat", "-a", str(axis)], [os.path.join(work, "c.npy"),
                                                   os.path.join(work, "f.npy")],
                     np.concatenate([a, b], axis=axis), a.dtype.str, False, chunk)
            run_join(f"mixed orders, Fortran first {shape} {dtype} axis {axis}", work,
                     ["concat", "-a", str(axis)], [os.path.join(work, "f.npy"),
                                                   os.path.join(work, "c.npy")],
                     np.concatenate([b, a], axis=axis), b.dtype.str, layout_matters(shape),
                     chunk)


def packed_reference(values_list, axis, bits, msb, stack=False):
    joined = np.stack(values_list, axis) if stack else np.concatenate(values_list, axis)
    return joined, pack(joined, bits, msb)


def group_packed(work):
    rng = np.random.default_rng(4)
    for case in range(150):
        name = list(PACKED_TYPES)[case % len(PACKED_TYPES)]
        bits, msb = PACKED_TYPES[name]
        rank = int(rng.integers(1, 4))
        base = [int(rng.integers(1, 6)) for _ in range(rank)]
        if rng.random() < 0.3:
            base[int(rng.integers(rank))] = int(rng.integers(100, 700))
        axis = int(rng.integers(-rank, rank))
        n = int(rng.integers(1, 5))
        values, paths, shapes = [], [], []
        for i in range(n):
            s = list(base)
            s[axis] = int(rng.integers(0, 9))
            v, data = make_packed(rng, s, bits, msb)  # garbage in the unused bits
            p = os.path.join(work, f"p{i}.npy")
            np.save(p, data)
            values.append(v)
            paths.append(p)
            shapes.append("[" + ",".join(map(str, s)) + "]")
        joined, expected = packed_reference(values, axis, bits, msb)
        chunk = CHUNKS[rng.integers(len(CHUNKS))]
        args = ["concat", "-a", str(axis), "--dtype", name]
        for s in shapes:
            args += ["--shape", s]
        label = f"packed case {case}: {name} {shapes} axis {axis} chunk {chunk}"
        out = os.path.join(work, "out.npy")
        env = dict(os.environ)
        env.pop("CLEAVE_CHUNK_BYTES", None)
        if chunk is not None:
            env["CLEAVE_CHUNK_BYTES"] = chunk
        r = clitest.run(args + ["-f", "--json", "-o", out] + paths, work, env=env)
        if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}"):
            continue
        y = np.load(out)
        check(y.dtype == np.uint8 and y.ndim == 1, f"{label}: output {y.dtype} {y.shape}")
        check(np.array_equal(y, expected), f"{label}: bytes differ from the reference packer")
        j = json.loads(r.stdout)
        check(j["outputs"][0]["dims"] == list(joined.shape), f"{label}: report {r.stdout}")
    # Packed stacking through concat-from-sequence is refused by ONNX's types (no packed type).
    v, data = make_packed(rng, [2, 3], 4, False)
    np.save(os.path.join(work, "q.npy"), data)
    clitest.expect_failure("packed with an ONNX operator",
                           ["concat-from-sequence", "-a", "0", "--dtype", "int4", "--shape",
                            "[2,3]", "-o", "o.npy", "q.npy"], work, 65,
                           ["ConcatFromSequence-11", "int4"])


def group_inverse(work):
    """Split with the CLI, then join the parts with the CLI: the input's data comes back."""
    rng = np.random.default_rng(11)
    for case in range(60):
        dtype = DTYPES[rng.integers(len(DTYPES))]
        rank = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 7)) for _ in range(rank))
        axis = int(rng.integers(-rank, rank))
        x = sample(rng, dtype, shape)
        fortran = save(os.path.join(work, "x.npy"), x, bool(rng.random() < 0.4))
        d = shape[axis]
        op = rng.choice(["variadic", "sequence", "sequence_k0", "onnx"])
        if op == "variadic":
            cut = sorted(rng.integers(0, d + 1, size=2).tolist())
            lengths = [cut[0], cut[1] - cut[0], d - cut[1]]
            split = ["variadic-split", "-a", str(axis), "-l", ",".join(map(str, lengths))]
            join = ["concat", "-a", str(axis)]
        elif op == "sequence":
            split = ["split-to-sequence", "-a", str(axis), "-s", str(int(rng.integers(1, 4)))]
            join = ["concat-from-sequence", "-a", str(axis)]
        elif op == "sequence_k0":
            split = ["split-to-sequence", "-a", str(axis), "-k", "0"]
            join = ["concat-from-sequence", "-a", str(axis), "--new-axis", "1"]
        else:
            split = ["onnx-split", "--opset", "13", "-a", str(axis), "-n", "1"]
            join = ["concat", "--opset", "13", "-a", str(axis)]
        for name in os.listdir(work):
            if name.startswith("part_"):
                os.unlink(os.path.join(work, name))
        r = clitest.run(split + ["--json", "-o", os.path.join(work, "part"),
                                 os.path.join(work, "x.npy")], work)
        label = f"inverse case {case}: {' '.join(split)} | {' '.join(join)} {dtype} {shape}"
        if not check(r.returncode == 0, f"{label}: split exit {r.returncode}: {r.stderr}"):
            continue
        parts = [o["path"] for o in json.loads(r.stdout)["outputs"]]
        out = os.path.join(work, "y.npy")
        r = clitest.run(join + ["-f", "-q", "-o", out] + parts, work)
        if not check(r.returncode == 0, f"{label}: join exit {r.returncode}: {r.stderr}"):
            continue
        # The data bytes come back exactly (the header may differ only in its padding).
        with open(os.path.join(work, "x.npy"), "rb") as f:
            xb = f.read()
        with open(out, "rb") as f:
            yb = f.read()
        _, hx, ox, _ = clitest.read_header(os.path.join(work, "x.npy"))
        _, hy, oy, _ = clitest.read_header(out)
        check(hx == hy, f"{label}: header {hy}, expected {hx}")
        check(xb[ox:] == yb[oy:], f"{label}: data differs from the input's")
        del fortran


def group_stream(work):
    rng = np.random.default_rng(5)
    # 8 MiB of inputs through a 4 KiB chunk: batches, pieces and in-kernel copies.
    a = rng.integers(0, 1 << 31, size=(256, 4096), dtype=np.int32)
    b = rng.integers(0, 1 << 31, size=(256, 4096), dtype=np.int32)
    np.save(os.path.join(work, "a.npy"), a)
    np.save(os.path.join(work, "b.npy"), b.astype(">i4"))
    paths = [os.path.join(work, "a.npy"), os.path.join(work, "b.npy")]
    for axis, chunk in [(0, "4096"), (1, "4096"), (1, "65536"), (0, None), (1, None)]:
        run_join(f"8 MiB axis {axis} chunk {chunk}", work, ["concat", "-a", str(axis)], paths,
                 np.concatenate([a, b.astype(">i4")], axis=axis), "<i4", False, chunk)
    np.save(os.path.join(work, "f.npy"), np.asfortranarray(b))
    run_join("8 MiB, one input transposed, chunk 4096", work, ["concat", "-a", "1"],
             [paths[0], os.path.join(work, "f.npy")], np.concatenate([a, b], axis=1), "<i4",
             False, "4096")
    # Many inputs: more than a default limit of open files would hold without raising it.
    many = []
    for i in range(300):
        p = os.path.join(work, f"m{i}.npy")
        np.save(p, np.full((2, 1), i, dtype=np.int16))
        many.append(p)
    run_join("300 inputs", work, ["concat", "-a", "1"], many,
             np.concatenate([np.full((2, 1), i, np.int16) for i in range(300)], axis=1), "<i2",
             False, "64")
    # Large packed inputs through the bit join's windows.
    v1, d1 = make_packed(rng, [3, 20001], 4, False)
    v2, d2 = make_packed(rng, [3, 3], 4, False)
    np.save(os.path.join(work, "p1.npy"), d1)
    np.save(os.path.join(work, "p2.npy"), d2)
    env = dict(os.environ, CLEAVE_CHUNK_BYTES="64")
    r = clitest.run(["concat", "-a", "1", "--dtype", "u4", "--shape", "[3,20001]", "--shape",
                     "[3,3]", "-q", "-f", "-o", "po.npy", "p1.npy", "p2.npy"], work, env=env)
    check(r.returncode == 0, f"packed windows: {r.returncode} {r.stderr}")
    if r.returncode == 0:
        check(np.array_equal(np.load(os.path.join(work, "po.npy")),
                             pack(np.concatenate([v1, v2], 1), 4, False)),
              "packed windows: bytes differ")


@clitest.groups(("numpy", group_numpy), ("packed", group_packed), ("inverse", group_inverse),
                ("stream", group_stream))
def test_concat(group, work):
    group(work)
