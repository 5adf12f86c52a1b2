#!/usr/bin/python3
"""Every rule of the joining commands (concat, concat-from-sequence, infer concat...) with its
error through the CLI: the exit status of docs/cli.md, the message (the value, the input file and
the dimension at fault), nothing on stdout, and no output, temporary file or changed file left
behind. Then the precedence of the checks, and what -f allows.

pytest runs the cases of each status as test_concat_errors.py::test_status[STATUS].
"""
import os
import resource
import subprocess

import numpy as np

import clitest
from clitest import check, expect_failure


def inputs(work):
    np.save(os.path.join(work, "a.npy"), np.arange(12, dtype="<f4").reshape(3, 4))
    np.save(os.path.join(work, "b.npy"), np.arange(8, dtype="<f4").reshape(2, 4))
    np.save(os.path.join(work, "c.npy"), np.arange(6, dtype="<f4").reshape(3, 2))
    np.save(os.path.join(work, "one.npy"), np.arange(3, dtype="<f4"))
    np.save(os.path.join(work, "ints.npy"), np.arange(6, dtype="<i4").reshape(3, 2))
    np.save(os.path.join(work, "scalar.npy"), np.float32(3))
    np.save(os.path.join(work, "raw.npy"), np.zeros((3, 2), dtype="V2"))
    np.save(os.path.join(work, "s3.npy"), np.array([b"ab"], dtype="S3"))
    np.save(os.path.join(work, "s5.npy"), np.array([b"ab"], dtype="S5"))
    np.save(os.path.join(work, "p.npy"), np.zeros(3, dtype=np.uint8))  # u4 [2,3]
    np.save(os.path.join(work, "obj.npy"), np.array([1, "x"], dtype=object), allow_pickle=True)
    with open(os.path.join(work, "a.npy"), "rb") as f:
        data = f.read()
    with open(os.path.join(work, "short.npy"), "wb") as f:
        f.write(data[:-5])
    with open(os.path.join(work, "notnpy.npy"), "wb") as f:
        f.write(b"not a .npy file at all")


def status_64(work):
    inputs(work)
    o = ["-o", "y.npy"]
    cases = [
        ("concat without -a", ["concat"] + o + ["a.npy"], ["-a/--axis", "required",
                                                        "OpenVINO Concat-1"]),
        ("ONNX Concat-4 without -a", ["concat", "--opset", "4"] + o + ["a.npy"],
         ["-a/--axis", "required", "version 4"]),
        ("opset 0", ["concat", "--opset", "0", "-a", "0"] + o + ["a.npy"],
         ["--opset 0", "ONNX Concat's first version (1)"]),
        ("opset not a number", ["concat", "--opset", "x", "-a", "0"] + o + ["a.npy"],
         ["--opset", "'x'"]),
        ("concat-from-sequence without -a", ["concat-from-sequence"] + o + ["a.npy"],
         ["-a/--axis", "required", "ConcatFromSequence"]),
        ("concat-from-sequence opset 10", ["concat-from-sequence", "--opset", "10", "-a", "0"]
         + o + ["a.npy"], ["--opset 10", "ConcatFromSequence's first version (11)"]),
        ("new_axis 2", ["concat-from-sequence", "-a", "0", "--new-axis", "2"] + o + ["a.npy"],
         ["--new-axis", "'2' is not 0 or 1"]),
        ("--new-axis on concat", ["concat", "-a", "0", "--new-axis", "1"] + o + ["a.npy"],
         ["--new-axis"]),
        ("no output", ["concat", "-a", "0", "a.npy"], ["-o/--output", "required"]),
        ("empty output", ["concat", "-a", "0", "-o", "", "a.npy"], ["-o/--output", "empty"]),
        ("output twice", ["concat", "-a", "0", "-o", "x.npy", "-o", "z.npy", "a.npy"],
         ["-o/--output", "twice"]),
        ("no input", ["concat", "-a", "0"] + o, ["input files are missing"]),
        ("axis ? on files", ["concat", "-a", "?"] + o + ["a.npy"], ["-a/--axis", "infer"]),
        ("axis twice", ["concat", "-a", "0", "-a", "1"] + o + ["a.npy"], ["-a/--axis", "twice"]),
        ("axis not a number", ["concat", "-a", "x"] + o + ["a.npy"], ["-a/--axis", "'x'"]),
        ("--shape without a packed type", ["concat", "-a", "0", "--shape", "[3,4]"] + o +
         ["a.npy"], ["--shape", "packed"]),
        ("packed type without --shape", ["concat", "-a", "0", "--dtype", "u4"] + o + ["p.npy"],
         ["--shape", "packed", "one per input"]),
        ("one --shape for two inputs", ["concat", "-a", "0", "--dtype", "u4", "--shape",
                                        "[2,3]"] + o + ["p.npy", "p.npy"],
         ["1 --shape option for 2 inputs"]),
        ("malformed packed --shape", ["concat", "-a", "0", "--dtype", "u4", "--shape",
                                      "[2,x]"] + o + ["p.npy"], ["--shape", "'[2,x]'"]),
        ("partial packed --shape", ["concat", "-a", "0", "--dtype", "u4", "--shape",
                                    "[2,?]"] + o + ["p.npy"], ["--shape", "not a static"]),
        ("unknown type", ["concat", "-a", "0", "--dtype", "f33"] + o + ["a.npy"],
         ["--dtype", "'f33'"]),
        ("unknown option", ["concat", "-a", "0", "--bogus"] + o + ["a.npy"], ["--bogus"]),
        ("infer without --shape", ["infer", "concat", "-a", "0"], ["--shape", "required"]),
        ("infer with a file", ["infer", "concat", "-a", "0", "--shape", "[2]", "a.npy"],
         ["'a.npy'", "one --shape per input"]),
        ("infer with -o", ["infer", "concat", "-a", "0", "--shape", "[2]", "-o", "y.npy"],
         ["-o"]),
        ("infer malformed shape", ["infer", "concat", "-a", "0", "--shape", "[2]", "--shape",
                                   "[2,"], ["--shape", "'[2,'"]),
        ("infer without -a", ["infer", "concat-from-sequence", "--shape", "[2]"],
         ["-a/--axis", "required"]),
        # The command line comes first: a bad option beats a missing input and a broken rule.
        ("64 before 66", ["concat", "-a", "0", "--bogus"] + o + ["missing.npy"], ["--bogus"]),
        ("64 before 65", ["concat", "-a", "9", "--new-axis", "1"] + o + ["a.npy"],
         ["--new-axis"]),
    ]
    for label, args, fragments in cases:
        expect_failure(label, args, work, 64, fragments)


def status_65(work):
    inputs(work)
    # Existing outputs are not touched by a request that breaks a rule (65 before 73).
    with open(os.path.join(work, "y.npy"), "wb") as f:
        f.write(b"precious")
    o = ["-o", "y.npy"]
    cases = [
        ("axis out of range", ["concat", "-a", "2"] + o + ["a.npy", "b.npy"],
         ["axis 2 is out of range [-2, 1] for inputs of rank 2"]),
        ("dims differ off the axis", ["concat", "-a", "1"] + o + ["a.npy", "b.npy"],
         ["inputs[1].shape[0] is 2 but inputs[0].shape[0] is 3", "except on axis 1",
          "inputs[0] is 'a.npy'", "inputs[1] is 'b.npy'"]),
        ("dims differ, third input", ["concat", "-a", "1"] + o + ["a.npy", "c.npy", "b.npy"],
         ["inputs[2].shape[0] is 2", "inputs[2] is 'b.npy'"]),
        ("ranks differ", ["concat", "-a", "0"] + o + ["a.npy", "one.npy"],
         ["inputs[1] has rank 1 but inputs[0] has rank 2", "inputs[1] is 'one.npy'"]),
        ("types differ", ["concat", "-a", "1"] + o + ["c.npy", "ints.npy"],
         ["inputs[1] has type i32 but inputs[0] has type f32", "inputs[1] is 'ints.npy'"]),
        ("string widths differ", ["concat", "-a", "0"] + o + ["s3.npy", "s5.npy"],
         ["inputs[1] has type S5 but inputs[0] has type S3", "'s5.npy'"]),
        ("Concat-1 on int32", ["concat", "--opset", "1", "-a", "0"] + o + ["ints.npy"],
         ["ONNX Concat-1 does not accept i32 data", "'ints.npy'"]),
        ("Concat-11 on bf16", ["concat", "--opset", "11", "-a", "0", "--dtype", "bf16"] + o +
         ["raw.npy"], ["ONNX Concat-11 does not accept bf16 data (bf16 needs opset 13)"]),
        ("Concat-4 negative axis", ["concat", "--opset", "4", "-a", "-1"] + o + ["a.npy"],
         ["axis -1 is out of range [0, 1]", "ONNX Concat-4 takes no negative axis"]),
        ("Concat-1 default axis on 1-D", ["concat", "--opset", "1"] + o + ["one.npy"],
         ["axis 1 (the default of ONNX Concat-1) is out of range [0, 0]"]),
        ("scalar", ["concat", "-a", "0"] + o + ["scalar.npy"],
         ["a scalar has no axis", "'scalar.npy'"]),
        ("stack of different shapes", ["concat-from-sequence", "-a", "0", "--new-axis", "1"] + o
         + ["a.npy", "b.npy"], ["inputs[1].shape[0] is 2 but inputs[0].shape[0] is 3",
                                "new_axis = 1 needs inputs of one shape", "'b.npy'"]),
        ("stack axis out of range", ["concat-from-sequence", "-a", "3", "--new-axis", "1"] + o +
         ["a.npy"], ["axis 3 is out of range [-3, 2]", "new_axis = 1 adds one"]),
        ("packed with an ONNX operator", ["concat", "--opset", "13", "-a", "0", "--dtype",
                                          "int4", "--shape", "[2,3]"] + o + ["p.npy"],
         ["ONNX Concat-13 does not accept int4 data"]),
        ("packed file of another size", ["concat", "-a", "0", "--dtype", "u4", "--shape",
                                         "[2,3]", "--shape", "[4,3]"] + o + ["p.npy", "p.npy"],
         ["'p.npy' holds 3 bytes", "--shape [4,3] of u4 takes 6 bytes"]),
        ("packed type on float data", ["concat", "-a", "0", "--dtype", "u4", "--shape",
                                       "[3,4]"] + o + ["a.npy"], ["'a.npy'", "<f4", "uint8"]),
        ("raw void without --dtype", ["concat", "-a", "0"] + o + ["raw.npy"],
         ["'raw.npy'", "V2", "--dtype"]),
        ("--dtype contradicting a file", ["concat", "-a", "0", "--dtype", "i32"] + o +
         ["ints.npy", "a.npy"], ["'a.npy'", "i32", "<f4"]),
        ("object array", ["concat", "-a", "0"] + o + ["a.npy", "obj.npy"], ["'obj.npy'",
                                                                          "object"]),
        ("second input truncated", ["concat", "-a", "0"] + o + ["b.npy", "short.npy"],
         ["'short.npy'"]),
        ("not a .npy file", ["concat", "-a", "0"] + o + ["a.npy", "notnpy.npy"],
         ["'notnpy.npy'", "magic"]),
        ("infer: dims differ", ["infer", "concat", "-a", "1", "--shape", "[3,4]", "--shape",
                                "[2,4]"], ["inputs[1].shape[0] is 2 but inputs[0].shape[0] is 3"]),
        ("infer: intervals disjoint", ["infer", "concat", "-a", "0", "--shape", "[2..4,3]",
                                       "--shape", "[?,5..6]"], ["inputs[1].shape[1] is 5..6"]),
        ("infer: no valid axis", ["infer", "concat", "-a", "?", "--shape", "[2,3]", "--shape",
                                  "[4,5]"], ["no other axis"]),
        ("infer: type refused", ["infer", "concat", "--opset", "1", "-a", "0", "--shape", "[2]",
                                 "--dtype", "i64"], ["ONNX Concat-1 does not accept i64"]),
        ("infer: byte size overflows", ["infer", "concat", "-a", "0", "--shape",
                                        "[4611686018427387904]", "--shape", "[1]", "--dtype",
                                        "f64"], ["above 2^63-1"]),
        ("65 before 73", ["concat", "-a", "7"] + o + ["a.npy"], ["axis 7"]),
    ]
    for label, args, fragments in cases:
        expect_failure(label, args, work, 65, fragments)


def status_66(work):
    inputs(work)
    os.mkdir(os.path.join(work, "adir.npy"))
    o = ["-o", "y.npy"]
    cases = [
        ("second input missing", ["concat", "-a", "0"] + o + ["a.npy", "missing.npy"],
         ["cannot open input 'missing.npy'"]),
        ("input is a directory", ["concat", "-a", "0"] + o + ["adir.npy"], ["'adir.npy'",
                                                                          "directory"]),
        # Every input is opened before any is read: a missing one beats an invalid one.
        ("66 before 65", ["concat", "-a", "0"] + o + ["notnpy.npy", "missing.npy"],
         ["'missing.npy'"]),
    ]
    for label, args, fragments in cases:
        expect_failure(label, args, work, 66, fragments)


def status_73(work):
    inputs(work)
    with open(os.path.join(work, "y.npy"), "wb") as f:
        f.write(b"do not touch")
    os.mkdir(os.path.join(work, "d.npy"))
    expect_failure("existing output", ["concat", "-a", "0", "-o", "y.npy", "a.npy", "b.npy"],
                   work, 73, ["'y.npy' exists", "-f/--force"])
    expect_failure("output is an input", ["concat", "-a", "0", "-o", "a.npy", "a.npy", "b.npy"],
                   work, 73, ["'a.npy' is one of the inputs", "-f/--force"])
    expect_failure("output directory missing", ["concat", "-a", "0", "-o", "nodir/y.npy",
                                                "a.npy"], work, 73,
                   ["nodir/y.npy", "not created"])
    check(not os.path.exists(os.path.join(work, "nodir")), "the output directory was created")
    expect_failure("output is a directory, even with -f", ["concat", "-a", "0", "-f", "-o",
                                                           "d.npy", "a.npy"], work, 73,
                   ["'d.npy'", "directory"])
    expect_failure("output names a directory", ["concat", "-a", "0", "-o", "out/", "a.npy"],
                   work, 73, ["'out/'", "directory"])
    if os.geteuid() != 0:
        ro = os.path.join(work, "ro")
        os.mkdir(ro, 0o555)
        expect_failure("read-only directory", ["concat", "-a", "0", "-o", "ro/y.npy", "a.npy"],
                       work, 73, ["ro/y.npy"])
    # -f replaces, and an output that is an input is replaced by a rename after the join.
    r = clitest.run(["concat", "-a", "0", "-f", "-q", "-o", "a.npy", "a.npy", "b.npy"], work)
    check(r.returncode == 0 and r.stdout == "", f"-f over an input: {r.returncode} {r.stderr}")
    check(np.array_equal(np.load(os.path.join(work, "a.npy")),
                         np.concatenate([np.arange(12, dtype="<f4").reshape(3, 4),
                                         np.arange(8, dtype="<f4").reshape(2, 4)])),
          "-f over an input: the output is not the join")
    r = clitest.run(["concat", "-a", "0", "-f", "-q", "-o", "y.npy", "b.npy"], work)
    check(r.returncode == 0 and np.array_equal(np.load(os.path.join(work, "y.npy")),
                                               np.arange(8, dtype="<f4").reshape(2, 4)),
          f"-f over an output: {r.returncode} {r.stderr}")
    # 73 comes before 74.
    expect_failure("73 before 74", ["concat", "-a", "0", "-o", "y.npy", "b.npy"], work, 73,
                   ["'y.npy'"], preexec_fn=lambda: limit_file_size(0))


def limit_file_size(size):
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))


def status_74(work):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1 << 30, size=(64, 1024), dtype=np.int32)  # 256 KiB
    np.save(os.path.join(work, "a.npy"), a)
    np.save(os.path.join(work, "b.npy"), a.astype(">i4"))
    np.save(os.path.join(work, "f.npy"), np.asfortranarray(a))
    with open(os.path.join(work, "y.npy"), "wb") as f:
        f.write(b"the old y")
    # Writes beyond 100 KiB fail with EFBIG, in every copy path.
    for label, args, chunk in [("pieces", ["-a", "0", "a.npy", "a.npy"], None),
                               ("batches", ["-a", "1", "a.npy", "a.npy"], "65536"),
                               ("swapped pieces", ["-a", "0", "a.npy", "b.npy"], None),
                               ("transposed", ["-a", "0", "a.npy", "f.npy"], "4096")]:
        env = dict(os.environ)
        if chunk is not None:
            env["CLEAVE_CHUNK_BYTES"] = chunk
        expect_failure("file size limit: " + label, ["concat", "-f", "-o", "y.npy"] + args,
                       work, 74, ["writing 'y.npy' failed", "File too large"],
                       preexec_fn=lambda: limit_file_size(100 * 1024), env=env)
    with open("/dev/full", "w") as full:
        before = clitest.snapshot(work)
        r = subprocess.run([clitest.CLEAVE, "concat", "-a", "0", "-f", "--json", "-o", "y.npy",
                            "a.npy"], cwd=work, stdout=full, stderr=subprocess.PIPE, text=True)
        check(r.returncode == 74, f"stdout on /dev/full: status {r.returncode}: {r.stderr}")
        check("stdout" in r.stderr, f"stdout on /dev/full: message {r.stderr!r}")
        check(clitest.snapshot(work) == before, "stdout on /dev/full: files changed")


@clitest.groups(("64", status_64), ("65", status_65), ("66", status_66), ("73", status_73),
                ("74", status_74))
def test_status(group, work):
    group(work)
