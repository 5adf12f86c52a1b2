#!/usr/bin/python3
"""The OpenVINO reference cases of tests/conformance/openvino/reference_cases.json (test
vectors transcribed from OpenVINO's own tests) through the cleave command: every case, for every
element type it is instantiated for, in C and Fortran order; the outputs must have the expected
shapes and values.

The data folder is $CLEAVE_CONFORMANCE_DIR (set by CTest); its SOURCE.txt says where it came from.
"""
import json
import os

import numpy as np

import clitest
from clitest import check

NUMPY_TYPES = {"boolean": "|b1", "i8": "|i1", "i16": "<i2", "i32": "<i4", "i64": "<i8",
               "u8": "|u1", "u16": "<u2", "u32": "<u4", "u64": "<u8", "f16": "<f2",
               "f32": "<f4", "f64": "<f8"}


def as_array(values, shape, descr):
    if descr == "|b1":
        # OpenVINO stores booleans as bytes: the small integers are copied verbatim.
        return np.array(values, dtype=np.uint8).view(np.bool_).reshape(shape)
    return np.array(values).astype(descr).reshape(shape)


def test_conformance():
    root = os.environ.get("CLEAVE_CONFORMANCE_DIR", "")
    path = os.path.join(root, "openvino", "reference_cases.json")
    if not os.path.exists(path):
        print(f"{path} not found: set CLEAVE_CONFORMANCE_DIR")
        check(False, "the conformance data is missing")
        return
    with open(path) as f:
        cases = json.load(f)
    work = clitest.workdir("conformance")
    runs = 0
    for case in cases:
        types = case.get("instantiated_for_dtypes") or [case["data_et"]]
        if case["op"] == "Split-1":
            args = ["split", "-a", str(case["axis"]), "-n", str(case["num_splits"])]
        else:
            args = ["variadic-split", "-a", str(case["axis"]), "-l",
                    ",".join(str(v) for v in case["split_lengths"])]
        for et in types:
            descr = NUMPY_TYPES[et]
            data = as_array(case["data_values"], case["data_shape"], descr)
            for order in "CF":
                label = f"case {case['id']} ({case['source_test_name']}) {et} {order}"
                src = os.path.join(work, "in.npy")
                np.save(src, np.asfortranarray(data) if order == "F" else data)
                r = clitest.run(args + ["-f", "-q", "-o", "out", "in.npy"], work)
                runs += 1
                if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}"):
                    continue
                outputs = case["expected_outputs"]
                for i, out in enumerate(outputs):
                    expected = as_array(out["values"], out["shape"], descr)
                    got = np.load(os.path.join(work, f"out_{i}.npy"))
                    check(got.dtype.str == descr and got.shape == tuple(out["shape"]),
                          f"{label} output {i}: {got.dtype.str} {got.shape}")
                    check(got.shape == expected.shape and
                          np.ascontiguousarray(got).tobytes() == expected.tobytes(),
                          f"{label} output {i}: values differ")
                check(not os.path.exists(os.path.join(work, f"out_{len(outputs)}.npy")),
                      f"{label}: extra output")
                for name in os.listdir(work):
                    os.unlink(os.path.join(work, name))
    check(runs >= 2 * len(cases), f"only {runs} runs for {len(cases)} cases")
