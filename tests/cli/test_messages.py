#!/usr/bin/python3
"""Messages of the .npy commands speak the user's language: counts in the singular for one, and
a --dtype that NumPy spells differently explained where it clashes with the file."""
import os

import numpy as np

import clitest


def plurals(work):
    # Packed data: the file's size against the shape's, each count in its number.
    np.save(os.path.join(work, "one.npy"), np.zeros(1, np.uint8))
    clitest.expect_failure("1 byte", ["split", "-a", "0", "-n", "1", "--dtype", "u4", "--shape",
                                      "[4]", "one.npy"], work, 65,
                           ["'one.npy' holds 1 byte, but --shape [4] of u4 takes 2 bytes "
                            "(ceil(4 elements x 4 bits / 8))"])
    np.save(os.path.join(work, "two.npy"), np.zeros(2, np.uint8))
    clitest.expect_failure("1 element", ["split", "-a", "0", "-n", "1", "--dtype", "u1",
                                         "--shape", "[1]", "two.npy"], work, 65,
                           ["'two.npy' holds 2 bytes, but --shape [1] of u1 takes 1 byte "
                            "(ceil(1 element x 1 bit / 8))"])


def library_plurals(work):
    # A rule of the library seen through the command: ONNX Split-13's split against the node's
    # output count.
    np.save(os.path.join(work, "x.npy"), np.arange(6, dtype=np.float32))
    for lengths, n, fragment in (("6", "2", "split has 1 entry but the node has 2 outputs"),
                                 ("3,3", "1", "split has 2 entries but the node has 1 output"),
                                 ("1,2,3", "2", "split has 3 entries but the node has 2 outputs")):
        clitest.expect_failure(f"-l {lengths} -n {n}", ["onnx-split", "--opset", "13", "-l",
                                                        lengths, "-n", n, "x.npy"], work, 65,
                               [fragment])


def numpy_names(work):
    np.save(os.path.join(work, "i64.npy"), np.arange(6, dtype="<i8"))
    np.save(os.path.join(work, "u32.npy"), np.arange(6, dtype="<u4"))
    np.save(os.path.join(work, "f64.npy"), np.arange(6, dtype="<f8"))
    np.save(os.path.join(work, "v8.npy"), np.zeros(3, "V8"))
    np.save(os.path.join(work, "ld.npy"), np.zeros(2, np.longdouble))
    ld = np.dtype(np.longdouble).str
    split = ["split", "-a", "0", "-n", "2"]
    # A cleave name that NumPy reads as another type, against a file of NumPy's meaning (65).
    for dtype, path, fragments in (
            ("i8", "i64.npy", ["--dtype i8 contradicts the file's type (<i8); i8 is int8 here; "
                               "NumPy's '<i8' is i64"]),
            ("u8", "i64.npy", ["u8 is uint8 here; NumPy's 'u8' is u64"]),
            ("i8", "v8.npy", ["--dtype i8 does not describe 8-byte raw elements; i8 is int8 "
                              "here; NumPy's 'i8' is i64"]),
            ("f16", "ld.npy", [f"f16 is float16 here; NumPy's '{ld}' is an extended-precision "
                               f"float, which cleave does not read"] if ld in ("<f16", "<f12")
             else ["f16"])):
        clitest.expect_failure(f"--dtype {dtype} on {path}", split + ["--dtype", dtype, path],
                               work, 65, fragments)
    # A packed cleave name that NumPy reads as a whole-byte type: 65 on the file, 64 without
    # --shape (the command line is checked first).
    clitest.expect_failure("u4 on <u4", split + ["--dtype", "u4", "--shape", "[12]", "u32.npy"],
                           work, 65, ["with --dtype u4 the file holds the packed bytes as a 1-D "
                                      "uint8 array ('|u1'); u4 is the packed 4-bit unsigned "
                                      "type here; NumPy's '<u4' is u32"])
    for dtype, meaning, numpy in (("u4", "the packed 4-bit unsigned type", "u32"),
                                  ("u1", "the packed 1-bit type", "u8"),
                                  ("u2", "the packed 2-bit type", "u16"),
                                  ("i4", "the packed 4-bit signed type", "i32")):
        clitest.expect_failure(f"{dtype} without --shape", split + ["--dtype", dtype, "u32.npy"],
                               work, 64, ["--shape is required with a packed --dtype",
                                          f"{dtype} is {meaning} here; NumPy's '{dtype}' is "
                                          f"{numpy}"])
    # NumPy codes that are no cleave name (64), with or without a byte-order character; infer
    # takes the same names.
    for dtype, numpy in (("f8", "f64"), ("f4", "f32"), ("f2", "f16"), ("c8", "c64"),
                         ("c16", "c128"), ("b1", "boolean"), ("i1", "i8"), ("i2", "i16"),
                         ("u2", None), ("<f8", "f64"), (">i4", "i32"), ("|u1", "u8")):
        if numpy is None:
            continue
        clitest.expect_failure(f"--dtype {dtype}", split + ["--dtype", dtype, "f64.npy"], work,
                               64, [f"unknown type name '{dtype}': NumPy's '{dtype}' is {numpy} "
                                    f"here (the names are boolean"])
    clitest.expect_failure("infer --dtype f8", ["infer", "split", "-a", "0", "-n", "2",
                                                "--shape", "[4]", "--dtype", "f8"], work, 64,
                           ["NumPy's 'f8' is f64 here"])
    # Names that mean nothing to NumPy either get no note.
    for dtype in ("i3", "x8", "float"):
        r = clitest.expect_failure(f"--dtype {dtype}", split + ["--dtype", dtype, "f64.npy"],
                                   work, 64, [f"unknown type name '{dtype}' (the names are"])
    # The names cleave and NumPy agree on still work: f64 on '<f8' data.
    r = clitest.run(split + ["--dtype", "f64", "f64.npy"], work)
    clitest.check(r.returncode == 0 and r.stderr == "", f"f64 on <f8: {r.stderr}")


def test_messages():
    plurals(clitest.workdir("messages_plurals"))
    library_plurals(clitest.workdir("messages_library_plurals"))
    numpy_names(clitest.workdir("messages_numpy_names"))
