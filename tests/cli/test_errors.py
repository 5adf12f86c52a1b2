#!/usr/bin/python3
"""One test per exit status of docs/cli.md (64, 65, 66, 70, 73, 74): each case checks the status, the
message (the offending value and the parameter name) and that no output or temporary file was
left behind and no existing file changed. Also the precedence of the checks.

pytest runs the cases of each status as test_errors.py::test_status[STATUS].
"""
import os
import resource
import subprocess

import numpy as np

import clitest
from clitest import check, expect_failure


def make_input(work, name="x.npy", shape=(6, 4, 5), dtype="<f4"):
    a = np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)
    np.save(os.path.join(work, name), a)
    return a


def status_64(work):
    make_input(work)
    cases = [
        ("unknown command", ["splitt", "x.npy"], ["splitt"]),
        ("unknown option", ["split", "-a", "0", "-n", "2", "--frobnicate", "x.npy"],
         ["--frobnicate"]),
        ("unknown short option", ["split", "-a", "0", "-n", "2", "-z", "x.npy"], ["-z"]),
        ("option of another command", ["split", "-a", "0", "-n", "2", "-k", "1", "x.npy"],
         ["-k"]),
        ("missing axis", ["split", "-n", "2", "x.npy"], ["-a/--axis", "required"]),
        ("missing num_splits", ["split", "-a", "0", "x.npy"], ["-n/--num-splits"]),
        ("missing lengths", ["variadic-split", "-a", "0", "x.npy"], ["-l/--lengths"]),
        ("missing input", ["split", "-a", "0", "-n", "2"], ["input"]),
        ("two inputs", ["split", "-a", "0", "-n", "2", "x.npy", "y.npy"], ["y.npy"]),
        ("missing value", ["split", "-n", "2", "x.npy", "-a"], ["-a/--axis", "value"]),
        ("malformed integer", ["split", "-a", "one", "-n", "2", "x.npy"], ["-a/--axis", "'one'"]),
        ("integer with junk", ["split", "-a", "0", "-n", "2x", "x.npy"], ["-n/--num-splits",
                                                                          "'2x'"]),
        ("integer overflow", ["split", "-a", "0", "-n", "99999999999999999999", "x.npy"],
         ["-n/--num-splits", "99999999999999999999"]),
        ("empty list", ["variadic-split", "-a", "0", "-l", "", "x.npy"], ["-l/--lengths",
                                                                         "empty"]),
        ("empty entry", ["variadic-split", "-a", "0", "-l", "1,,5", "x.npy"], ["-l/--lengths",
                                                                              "'1,,5'"]),
        ("trailing comma", ["variadic-split", "-a", "0", "-l", "6,", "x.npy"], ["-l/--lengths",
                                                                               "'6,'"]),
        ("malformed entry", ["variadic-split", "-a", "0", "-l", "1,x,5", "x.npy"],
         ["-l/--lengths", "'x'"]),
        ("mixed ? and numbers", ["variadic-split", "-a", "0", "-l", "1,?", "x.npy"],
         ["-l/--lengths", "'1,?'"]),
        ("unknown lengths on a file", ["variadic-split", "-a", "0", "-l", "?,?", "x.npy"],
         ["-l/--lengths", "infer"]),
        ("unknown axis on a file", ["split", "-a", "?", "-n", "2", "x.npy"], ["-a/--axis",
                                                                              "'?'"]),
        ("packed --dtype without --shape", ["split", "-a", "0", "-n", "2", "--dtype", "u4",
                                            "x.npy"], ["--shape", "packed"]),
        ("--shape on a .npy of bytes", ["split", "-a", "0", "-n", "2", "--shape", "[6,4,5]",
                                        "x.npy"], ["--shape", "packed"]),
        ("keepdims 2", ["split-to-sequence", "-k", "2", "x.npy"], ["-k/--keepdims", "'2'"]),
        ("opset below SplitToSequence", ["split-to-sequence", "--opset", "10", "x.npy"],
         ["--opset", "10", "ONNX SplitToSequence", "11"]),
        ("opset below Split", ["onnx-split", "--opset", "0", "-n", "2", "x.npy"],
         ["--opset", "0", "ONNX Split", "(1)"]),
        ("-s with -l", ["split-to-sequence", "-s", "2", "-l", "3,3", "x.npy"],
         ["-s/--split-size", "-l/--lengths"]),
        ("onnx-split without opset", ["onnx-split", "-n", "2", "x.npy"], ["--opset"]),
        ("onnx-split below 18 without -l or -n", ["onnx-split", "--opset", "13", "x.npy"],
         ["-l/--lengths", "-n/--num-splits", "13"]),
        ("option given twice", ["split", "-a", "0", "-a", "1", "-n", "2", "x.npy"],
         ["-a/--axis", "twice"]),
        ("unknown type name", ["split", "-a", "0", "-n", "2", "--dtype", "f33", "x.npy"],
         ["--dtype", "'f33'"]),
        ("--dtype S without a width", ["split", "-a", "0", "-n", "2", "--dtype", "S", "x.npy"],
         ["--dtype", "'S'", "needs a width", "S<n>"]),
        ("--dtype U without a width", ["split", "-a", "0", "-n", "2", "--dtype", "U", "x.npy"],
         ["--dtype", "'U'", "needs a width", "U<n>"]),
        ("--dtype bytes without a width", ["split", "-a", "0", "-n", "2", "--dtype", "bytes",
                                           "x.npy"], ["--dtype", "'bytes'", "needs a width"]),
        ("--dtype width 0", ["split", "-a", "0", "-n", "2", "--dtype", "S0", "x.npy"],
         ["--dtype", "'S0'", "positive"]),
        ("--dtype width 012", ["split", "-a", "0", "-n", "2", "--dtype", "U012", "x.npy"],
         ["--dtype", "'U012'", "positive"]),
        ("flag with a value", ["split", "-a", "0", "-n", "2", "--force=yes", "x.npy"],
         ["--force", "yes"]),
        ("empty prefix", ["split", "-a", "0", "-n", "2", "-o", "", "x.npy"], ["-o/--output"]),
        ("infer without operator", ["infer"], ["operator"]),
        ("infer unknown operator", ["infer", "splat", "--shape", "[2]"], ["'splat'"]),
        ("infer without shape", ["infer", "split", "-a", "0", "-n", "2"], ["--shape"]),
        ("infer malformed shape", ["infer", "split", "-a", "0", "-n", "2", "--shape", "[2,x]"],
         ["--shape", "'[2,x]'"]),
        ("infer shape without brackets", ["infer", "split", "-a", "0", "-n", "2", "--shape",
                                          "2,4"], ["--shape", "'2,4'"]),
        ("infer interval L > H", ["infer", "split", "-a", "0", "-n", "2", "--shape",
                                  "[6..3,4]"], ["--shape", "6..3"]),
        ("-s ? on a file", ["split-to-sequence", "-s", "?", "x.npy"], ["-s/--split-size",
                                                                      "infer"]),
        ("infer bad dimension", ["infer", "split", "-a", "0", "-n", "2", "--shape", "[2,-3]"],
         ["--shape", "[2,-3]"]),
        ("infer unterminated", ["infer", "split", "-a", "0", "-n", "2", "--shape", "[2,3"],
         ["--shape", "[2,3"]),
        ("infer takes no file", ["infer", "split", "-a", "0", "-n", "2", "--shape", "[4]",
                                 "x.npy"], ["x.npy"]),
        ("infer has no -o", ["infer", "split", "-a", "0", "-n", "2", "--shape", "[4]", "-o",
                             "p"], ["-o"]),
        ("demo takes no argument", ["demo", "x"], ["'x'"]),
        ("help of an unknown command", ["help", "splat"], ["'splat'"]),
        # Precedence: the command line is checked before the input is opened.
        ("64 before 66", ["split", "-a", "0", "-n", "2", "--bogus", "missing.npy"],
         ["--bogus"]),
        ("64 before 65", ["split", "-a", "9", "-n", "2", "-k", "1", "x.npy"], ["-k"]),
    ]
    for label, args, fragments in cases:
        expect_failure(label, args, work, 64, fragments)
    r = clitest.run([], work)
    check(r.returncode == 64 and "cleave: error:" in r.stderr, "no command: status 64")


def status_65(work):
    make_input(work)  # shape (6, 4, 5), f32
    np.save(os.path.join(work, "scalar.npy"), np.float32(3))
    np.save(os.path.join(work, "ints.npy"), np.arange(6, dtype=np.int32))
    np.save(os.path.join(work, "bf16.npy"), np.zeros(4, dtype="V2"))
    np.save(os.path.join(work, "raw.npy"), np.zeros(4, dtype="V2"))
    np.save(os.path.join(work, "obj.npy"), np.array([1, "a"], dtype=object), allow_pickle=True)
    np.save(os.path.join(work, "rec.npy"), np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")]))
    np.save(os.path.join(work, "when.npy"), np.array(["2024-01-01"], dtype="datetime64[D]"))
    # A header that promises more data than the file holds.
    with open(os.path.join(work, "x.npy"), "rb") as f:
        data = f.read()
    with open(os.path.join(work, "short.npy"), "wb") as f:
        f.write(data[:-7])
    with open(os.path.join(work, "notnpy.npy"), "wb") as f:
        f.write(b"PK\x03\x04 this is a zip, not a .npy file")
    # Existing outputs must not be touched by a request that breaks a rule (65 before 73).
    with open(os.path.join(work, "x_0.npy"), "wb") as f:
        f.write(b"precious")
    cases = [
        ("axis out of range", ["split", "-a", "3", "-n", "2", "x.npy"], ["axis", "3"]),
        ("negative axis out of range", ["split", "-a", "-4", "-n", "2", "x.npy"],
         ["axis", "-4"]),
        ("not divisible", ["split", "-a", "0", "-n", "4", "x.npy"], ["4", "6"]),
        ("num_splits 0", ["split", "-a", "0", "-n", "0", "x.npy"], ["0"]),
        ("lengths do not sum", ["variadic-split", "-a", "0", "-l", "1,2", "x.npy"], ["6"]),
        ("two -1", ["variadic-split", "-a", "0", "-l", "-1,-1", "x.npy"], ["-1"]),
        ("negative remainder", ["variadic-split", "-a", "1", "-l", "5,-1", "x.npy"], ["5"]),
        ("length below -1", ["variadic-split", "-a", "0", "-l", "8,-2", "x.npy"], ["-2"]),
        ("scalar split 0", ["split-to-sequence", "-s", "0", "x.npy"], ["0"]),
        ("sequence lengths do not sum", ["split-to-sequence", "-l", "2,2", "x.npy"], ["6"]),
        ("negative sequence length", ["split-to-sequence", "-l", "7,-1", "x.npy"], ["-1"]),
        ("Split-18 with -l and -n", ["onnx-split", "--opset", "18", "-l", "3,3", "-n", "2",
                                     "x.npy"], ["num_outputs"]),
        ("Split-18 without -l or -n", ["onnx-split", "--opset", "18", "x.npy"],
         ["num_outputs"]),
        ("Split-18 5/4", ["onnx-split", "--opset", "18", "-a", "2", "-n", "4", "x.npy"],
         ["4"]),
        ("Split-13 count mismatch", ["onnx-split", "--opset", "13", "-l", "3,3", "-n", "3",
                                     "x.npy"], ["3"]),
        ("Split-1 on int32", ["onnx-split", "--opset", "1", "-n", "2", "ints.npy"], ["i32"]),
        ("SplitToSequence-11 on bf16", ["split-to-sequence", "--opset", "11", "--dtype", "bf16",
                                        "bf16.npy"], ["bf16"]),
        ("rank-0 data", ["split", "-a", "0", "-n", "1", "scalar.npy"], ["axis"]),
        ("raw void without --dtype", ["split", "-a", "0", "-n", "2", "raw.npy"],
         ["raw.npy", "V2", "--dtype"]),
        ("--dtype of another size", ["split", "-a", "0", "-n", "2", "--dtype", "f32",
                                     "raw.npy"], ["raw.npy", "f32"]),
        ("--dtype contradicting the file", ["split", "-a", "0", "-n", "2", "--dtype", "i32",
                                            "x.npy"], ["x.npy", "i32", "<f4"]),
        ("packed --dtype on float data", ["split", "-a", "0", "-n", "2", "--dtype", "u4",
                                          "--shape", "[6,4,5]", "x.npy"],
         ["x.npy", "<f4", "u4", "uint8"]),
        ("object array", ["split", "-a", "0", "-n", "2", "obj.npy"], ["obj.npy", "object"]),
        ("structured dtype", ["split", "-a", "0", "-n", "3", "rec.npy"], ["rec.npy",
                                                                          "structured"]),
        ("datetime", ["split", "-a", "0", "-n", "1", "when.npy"], ["when.npy", "datetime"]),
        ("data shorter than the header says", ["split", "-a", "0", "-n", "2", "short.npy"],
         ["short.npy", "480"]),
        ("not a .npy file", ["split", "-a", "0", "-n", "2", "notnpy.npy"], ["notnpy.npy",
                                                                            "magic"]),
        ("infer rule", ["infer", "split", "-a", "1", "-n", "3", "--shape", "[6,4]"],
         ["3", "4"]),
        ("infer type", ["infer", "onnx-split", "--opset", "1", "-n", "2", "--shape", "[4]",
                        "--dtype", "i64"], ["i64"]),
        ("infer u3", ["infer", "split", "-a", "0", "-n", "2", "--shape", "[6]", "--dtype",
                      "u3"], ["u3"]),
        ("infer packed type with ONNX", ["infer", "onnx-split", "--opset", "18", "-n", "2",
                                         "--shape", "[4]", "--dtype", "int4"], ["int4"]),
        # 65 comes before 73: x_0.npy exists, but the axis is checked first.
        ("65 before 73", ["split", "-a", "7", "-n", "2", "x.npy"], ["7"]),
    ]
    for label, args, fragments in cases:
        expect_failure(label, args, work, 65, fragments)


def status_66(work):
    os.mkdir(os.path.join(work, "adir.npy"))
    cases = [
        ("missing input", ["split", "-a", "0", "-n", "2", "missing.npy"], ["missing.npy"]),
        ("input is a directory", ["split", "-a", "0", "-n", "2", "adir.npy"], ["adir.npy",
                                                                               "directory"]),
        ("input in a missing directory", ["variadic-split", "-a", "0", "-l", "1", "no/x.npy"],
         ["no/x.npy"]),
        # 66 comes before 65: the axis is out of range for any file, but opening fails first.
        ("66 before 65", ["split", "-a", "99", "-n", "7", "missing.npy"], ["missing.npy"]),
    ]
    for label, args, fragments in cases:
        expect_failure(label, args, work, 66, fragments)
    # A file that opens but is not a regular file (the split needs to read it at offsets).
    expect_failure("input is a device", ["split", "-a", "0", "-n", "2", "/dev/null"], work, 66,
                   ["/dev/null", "regular"])


def status_70(work):
    # Out of memory is an internal error: 2^40 empty outputs need an 8 TiB table of lengths.
    # (ASan builds must return NULL rather than abort on the huge request.)
    with open(os.path.join(work, "wide.npy"), "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False,
                                                 "shape": (1 << 40, 0)})
    env = dict(os.environ, ASAN_OPTIONS="allocator_may_return_null=1")
    expect_failure("out of memory", ["split-to-sequence", "wide.npy"], work, 70,
                   ["out of memory", "1099511627776"], env=env)
    if os.environ.get("CLEAVE_WITH_ONNX", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
        print("built with ONNX: onnx-test exists, its 'no ONNX support' error is not reachable")
        return
    expect_failure("onnx-test without ONNX", ["onnx-test", "somewhere"], work, 70,
                   ["ONNX", "CLEAVE_WITH_ONNX=ON"])


def status_73(work):
    make_input(work)
    with open(os.path.join(work, "x_1.npy"), "wb") as f:
        f.write(b"do not touch")
    os.mkdir(os.path.join(work, "d_0.npy"))
    expect_failure("existing output", ["split", "-a", "0", "-n", "3", "x.npy"], work, 73,
                   ["x_1.npy", "--force"])
    expect_failure("output directory missing", ["split", "-a", "0", "-n", "2", "-o",
                                                "nodir/p", "x.npy"], work, 73, ["nodir/p_0.npy"])
    check(not os.path.exists(os.path.join(work, "nodir")), "the output directory was created")
    expect_failure("output is a directory, even with --force", ["split", "-a", "0", "-n", "2",
                                                                "-f", "-o", "d", "x.npy"],
                   work, 73, ["d_0.npy", "directory"])
    # A read-only directory stops creation (not for root, who may write anywhere).
    if os.geteuid() != 0:
        ro = os.path.join(work, "ro")
        os.mkdir(ro, 0o555)
        expect_failure("read-only directory", ["split", "-a", "0", "-n", "2", "-o", "ro/p",
                                               "x.npy"], work, 73, ["ro/p_0.npy"])
    # --force replaces, and only then.
    r = clitest.run(["split", "-a", "0", "-n", "3", "-f", "-q", "x.npy"], work)
    check(r.returncode == 0 and r.stdout == "", f"--force: {r.returncode} {r.stderr}")
    a = np.load(os.path.join(work, "x.npy"))
    check(np.array_equal(np.load(os.path.join(work, "x_1.npy")), a[2:4]),
          "--force did not replace x_1.npy with the slice")
    # 73 comes before 74: with outputs existing and writes bound to fail, 73 wins.
    expect_failure("73 before 74", ["split", "-a", "0", "-n", "3", "x.npy"], work, 73,
                   ["x_0.npy"], preexec_fn=lambda: limit_file_size(0))


def limit_file_size(size):
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))


def status_74(work):
    a = make_input(work, shape=(8, 256, 64))  # 512 KiB of data
    with open(os.path.join(work, "x_0.npy"), "wb") as f:
        f.write(b"the old x_0")
    # Writes beyond 100 KiB fail with EFBIG; cleave ignores SIGXFSZ itself.
    for args in (["split", "-a", "0", "-n", "2", "-f", "x.npy"],   # large pieces
                 ["split", "-a", "2", "-n", "2", "-f", "x.npy"],   # batched rows
                 ["variadic-split", "-a", "1", "-l", "250,6", "-f", "x.npy"]):
        expect_failure("file size limit: " + " ".join(args), args, work, 74,
                       ["writing output", "x_0.npy", "File too large"],
                       preexec_fn=lambda: limit_file_size(100 * 1024))
    # stdout fails (the report is written before the outputs are renamed into place).
    with open("/dev/full", "w") as full:
        before = clitest.snapshot(work)
        r = subprocess.run([clitest.CLEAVE, "split", "-a", "0", "-n", "2", "-f", "--json",
                            "x.npy"], cwd=work, stdout=full, stderr=subprocess.PIPE, text=True)
        check(r.returncode == 74, f"stdout on /dev/full: status {r.returncode}: {r.stderr}")
        check("stdout" in r.stderr, f"stdout on /dev/full: message {r.stderr!r}")
        check(clitest.snapshot(work) == before, "stdout on /dev/full: files changed")
    del a


@clitest.groups(("64", status_64), ("65", status_65), ("66", status_66), ("70", status_70),
                ("73", status_73), ("74", status_74))
def test_status(group, work):
    group(work)
