#!/usr/bin/python3
"""Every dtype of the fixtures (tests/cli/make_fixtures.py), in C and Fortran order, through
every operator command: each output must equal NumPy's own slicing of the loaded input, with the
same dtype string (byte order included) and memory order.

pytest runs each group of fixtures as test_dtypes.py::test_dtypes[GROUP], on the fixtures in
--cli-fixtures DIR (CTest's cli.fixtures makes them) or else made for the run.
"""
import json
import os

import numpy as np
import pytest

import clitest
import make_fixtures
from clitest import check

# (arguments, axis, output lengths along the axis, axis removed, ONNX op). The lengths are worked
# out by hand from docs/operators.md for the fixture shape (4, 6, 5), not by the code under test.
CASES = [
    (["split", "-a", "1", "-n", "3"], 1, [2, 2, 2], False, False),
    (["split", "-a", "-3", "-n", "1"], 0, [4], False, False),
    (["variadic-split", "-a", "-1", "-l", "2,-1,0"], 2, [2, 3, 0], False, False),
    (["variadic-split", "-a", "0", "-l", "1,3"], 0, [1, 3], False, False),
    (["split-to-sequence", "-s", "3"], 0, [3, 1], False, True),
    (["split-to-sequence", "-a", "1", "-k", "0"], 1, [1] * 6, True, True),
    (["split-to-sequence", "-a", "2", "-l", "0,4,1"], 2, [0, 4, 1], False, True),
    (["onnx-split", "--opset", "18", "-a", "2", "-n", "2"], 2, [3, 2], False, True),
    (["onnx-split", "--opset", "13", "-a", "1", "-l", "5,1"], 1, [5, 1], False, True),
]

# Types that no ONNX operator accepts (docs/operators.md section 5): the ONNX cases expect status 65.
NOT_ONNX = {"f8e4m3", "f8e5m2"}


def run_case(fixture_dir, entry, case, index):
    args, axis, lengths, removed, onnx = case
    label = f"{entry['file']} {' '.join(args)}"
    work = clitest.workdir(f"dtypes-{os.getpid()}-{index}")
    src = os.path.join(fixture_dir, entry["file"])
    extra = ["--dtype", entry["dtype_option"]] if entry["dtype_option"] else []
    prefix = os.path.join(work, "out")
    if onnx and entry["dtype_option"] in NOT_ONNX:
        clitest.expect_failure(label, args + extra + ["-o", prefix, src], work, 65,
                               [entry["dtype_option"]])
        return
    r = clitest.run(args + extra + ["-o", prefix, src], work)
    if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}"):
        return
    a = np.load(src, allow_pickle=False)
    fortran = entry["order"] == "F"
    printed = r.stdout.splitlines()
    check(len(printed) == len(lengths), f"{label}: printed {len(printed)} lines: {r.stdout!r}")
    start = 0
    for i, length in enumerate(lengths):
        path = f"{prefix}_{i}.npy"
        expected = clitest.slice_along(a, axis, start, length, removed)
        clitest.check_output(f"{label} output {i}", path, expected, fortran)
        shape_text = "[" + ",".join(str(d) for d in expected.shape) + "]"
        if i < len(printed):
            check(printed[i] == f"{path} {shape_text}",
                  f"{label}: line {i} is {printed[i]!r}, expected {path} {shape_text}")
        start += length
    check(not os.path.exists(f"{prefix}_{len(lengths)}.npy"), f"{label}: an extra output")
    check(clitest.temporaries(work) == [], f"{label}: temporaries left")


@pytest.fixture(scope="module")
def fixture_dir(request, tmp_path_factory):
    """The folder of make_fixtures.py's files: --cli-fixtures, or one made for this run."""
    given = request.config.getoption("--cli-fixtures")
    if given:
        return given
    made = str(tmp_path_factory.mktemp("fixtures"))
    make_fixtures.main(made)
    return made


@pytest.mark.parametrize("group", list(dict.fromkeys(g for _, g, _ in make_fixtures.DTYPES)))
def test_dtypes(fixture_dir, group):
    with open(os.path.join(fixture_dir, "manifest.json")) as f:
        manifest = [e for e in json.load(f) if e["group"] == group]
    check(len(manifest) > 0, f"no fixture in group {group}")
    index = 0
    for entry in manifest:
        for case in CASES:
            run_case(fixture_dir, entry, case, index)
            index += 1
