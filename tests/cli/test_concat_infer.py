#!/usr/bin/python3
"""`cleave infer concat` and `infer concat-from-sequence`: one --shape per input, in order.

Static shapes are checked against the shape of numpy.concatenate / numpy.stack on empty arrays of
those shapes. Partial shapes whose dims are bounded intervals (and an unknown axis, `-a ?`) are
checked against a brute-force reference: every static choice of the dims and of the axis is
tried with NumPy, and the output must be the tightest interval hull of the valid results. Shapes
with `?` dims (unbounded) are checked on cases worked out by hand.
"""
import itertools
import json

import numpy as np

import clitest
from clitest import check


def infer(args):
    return clitest.run(["infer"] + args + ["--json"], clitest.workdir("concat_infer"))


def numpy_shape(kind, axis, shapes):
    """The output's shape per NumPy, or None when NumPy refuses the join."""
    arrays = [np.empty(s, dtype=np.int8) for s in shapes]
    try:
        if kind == "stack":
            return np.stack(arrays, axis=axis).shape
        return np.concatenate(arrays, axis=axis).shape
    except ValueError:  # numpy.AxisError is a ValueError
        return None


def command(kind, axis):
    if kind == "stack":
        return ["concat-from-sequence", "-a", str(axis), "--new-axis", "1"]
    if kind == "sequence":
        return ["concat-from-sequence", "-a", str(axis)]
    return ["concat", "-a", str(axis)]


def text(dims):
    return "[" + ",".join(str(d) for d in dims) + "]"


def check_static(rng):
    for case in range(150):
        kind = ["concat", "sequence", "stack"][case % 3]
        rank = int(rng.integers(0 if kind == "stack" else 1, 4))
        n = int(rng.integers(1, 5))
        base = [int(rng.integers(0, 5)) for _ in range(rank)]
        lo, hi = (-rank - 1, rank) if kind == "stack" else (-rank, rank - 1)
        axis = int(rng.integers(lo - 1, hi + 2))  # sometimes out of range
        shapes = []
        for _ in range(n):
            s = list(base)
            if kind != "stack" and rank > 0 and -rank <= axis < rank:
                s[axis] = int(rng.integers(0, 5))
            if rng.random() < 0.1 and rank > 0:
                s[int(rng.integers(rank))] += 1  # a mismatch
            shapes.append(tuple(s))
        args = command(kind, axis)
        for s in shapes:
            args += ["--shape", text(s)]
        expected = numpy_shape(kind, axis, shapes)
        r = infer(args)
        label = f"static case {case}: {' '.join(args)}"
        if expected is None:
            check(r.returncode == 65 and r.stdout == "" and "cleave: error: " in r.stderr,
                  f"{label}: expected status 65, got {r.returncode}: {r.stdout}{r.stderr}")
            continue
        if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}"):
            continue
        out = json.loads(r.stdout)["outputs"]
        check(len(out) == 1 and out[0].get("dims") == list(expected),
              f"{label}: {r.stdout.strip()}, NumPy gives {list(expected)}")


def interval_text(lo, hi):
    return str(lo) if lo == hi else f"{lo}..{hi}"


def check_partial(rng):
    for case in range(80):
        kind = ["concat", "sequence", "stack"][case % 3]
        rank = int(rng.integers(1, 3))
        n = int(rng.integers(1, 4))
        unknown_axis = rng.random() < 0.4
        lo, hi = (-rank - 1, rank) if kind == "stack" else (-rank, rank - 1)
        axis = int(rng.integers(lo, hi + 1))
        # Each input's dims: intervals within [0, 4].
        bounds = []
        for _ in range(n):
            dims = []
            for _ in range(rank):
                a = int(rng.integers(0, 4))
                b = a + int(rng.integers(0, 2))
                dims.append((a, b))
            bounds.append(dims)
        axes = list(range(lo, hi + 1)) if unknown_axis else [axis]
        # Only non-negative axes matter for the hull (negative ones name the same positions).
        results = set()
        choices = [range(a, b + 1) for dims in bounds for (a, b) in dims]
        for values in itertools.product(*choices):
            shapes = [tuple(values[i * rank:(i + 1) * rank]) for i in range(n)]
            for ax in axes:
                s = numpy_shape(kind, ax, shapes)
                if s is not None:
                    results.add(s)
        args = command(kind, "?" if unknown_axis else axis)
        for dims in bounds:
            args += ["--shape", "[" + ",".join(interval_text(a, b) for a, b in dims) + "]"]
        r = infer(args)
        label = f"partial case {case}: {' '.join(args)}"
        if not results:
            check(r.returncode == 65 and r.stdout == "",
                  f"{label}: no valid input, expected status 65, got {r.returncode}: "
                  f"{r.stdout}{r.stderr}")
            continue
        out_rank = len(next(iter(results)))
        hull = [interval_text(min(s[d] for s in results), max(s[d] for s in results))
                for d in range(out_rank)]
        expected = "[" + ",".join(hull) + "]"
        if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}"):
            continue
        got = json.loads(r.stdout)["outputs"][0]["shape"]
        check(got == expected, f"{label}: {got}, brute force gives {expected}")


def check_by_hand():
    cases = [
        # Unknown dims: a sum with an unknown term is unknown above its known part.
        (["concat", "-a", "0", "--shape", "[2,?]", "--shape", "[3..5,4]"], "[5..7,4]"),
        (["concat", "-a", "0", "--shape", "[?,3]", "--shape", "[2,3]"], "[2..,3]"),
        (["concat", "-a", "1", "--shape", "[...]", "--shape", "[2,3]"], "[2,3..]"),
        (["concat", "-a", "0", "--shape", "[...]", "--shape", "[...]"], "[...]"),
        (["concat-from-sequence", "-a", "-1", "--new-axis", "1", "--shape", "[?,3]",
          "--shape", "[2,3]", "--shape", "[2..,3]"], "[2,3,3]"),
        # ONNX Concat-1's default axis is 1.
        (["concat", "--opset", "1", "--shape", "[2,3]", "--shape", "[2,5]"], "[2,8]"),
    ]
    for args, expected in cases:
        r = infer(args)
        label = " ".join(args)
        if check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}"):
            got = json.loads(r.stdout)["outputs"][0]["shape"]
            check(got == expected, f"{label}: {got}, expected {expected}")
    # The text form: one line with the shape.
    r = clitest.run(["infer", "concat", "-a", "1", "--shape", "[2,3]", "--shape", "[2,4]",
                     "--dtype", "u4"], clitest.workdir("concat_infer"))
    check(r.returncode == 0 and r.stdout == "[2,7]\n", f"text form: {r.stdout!r} {r.stderr}")


def test_concat_infer():
    rng = np.random.default_rng(22)
    check_static(rng)
    check_partial(rng)
    check_by_hand()
