#!/usr/bin/python3
"""One form for every error and warning (docs/cli.md, "Exit statuses"; the man page's
DIAGNOSTICS): each line is `cleave: error: COMMAND: message` or `cleave: warning: COMMAND:
message`, COMMAND being the command as it was typed (`split`, `infer split`, `st shard`, `shard`,
`help`), written once: the message never names the command again. A command line whose command
is not known gives `cleave: error: message` alone.

Failing command lines of every family: the operator commands on .npy files, `infer`, `demo`,
`onnx-test`, `ir-check` and `ir-run`, the `st` and `gguf` verbs, the verbs that find the format,
`verify`, `help`; the library's messages passed through; a rules file's line (its place after the
command); and runs that succeed with a warning."""
import os
import re
import struct

import numpy as np

import clitest
import gguf_util
import st_util
from clitest import check
from irgen import Net

# What the user may type to choose a command: a message that starts with one of these and ": "
# after the command's name names the command twice.
OPS = ["split", "variadic-split", "split-to-sequence", "onnx-split", "concat",
       "concat-from-sequence"]
VERBS = ["ls", "check", "split", "shard", "merge", "reshard", "verify"]
COMMANDS = (OPS + ["infer", "demo", "onnx-test", "ir-check", "ir-run", "st", "gguf", "help"] +
            [f"infer {op}" for op in OPS] + [f"{w} {v}" for w in ("st", "gguf") for v in VERBS] +
            VERBS)
DIAGNOSTIC = re.compile(r"^cleave: (error|warning): ")


def diagnostics(label, command, stderr):
    """Checks every error and warning line of `stderr` against COMMAND; returns the lines' kinds
    ("error", "warning") in order."""
    kinds = []
    for line in stderr.splitlines():
        m = DIAGNOSTIC.match(line)
        if not m:
            # Anything else that reads as a diagnostic is a line in another form.
            check(not re.search(r"\b(error|warning): ", line),
                  f"{label}: a diagnostic in another form: {line!r}")
            continue
        kinds.append(m.group(1))
        head = f"cleave: {m.group(1)}: {command}: "
        if not check(line.startswith(head), f"{label}: {line!r} does not start with {head!r}"):
            continue
        rest = line[len(head):]
        doubled = [c for c in COMMANDS if rest.startswith(c + ": ")]
        check(not doubled, f"{label}: the command named again ({doubled}): {line!r}")
        check("cleave: " not in rest, f"{label}: a second prefix in {line!r}")
    return kinds


def fails(label, command, args, work, status, fragment, env=None, strict=True):
    """`cleave ARGS` fails with `status`, nothing on stdout, one error line naming COMMAND and
    holding `fragment`. strict=False (a family this build lacks): only the form is checked."""
    r = clitest.run(args, work, env=env)
    kinds = diagnostics(label, command, r.stderr)
    check(kinds.count("error") == 1, f"{label}: {kinds.count('error')} error lines in "
          f"{r.stderr!r}")
    check(r.returncode != 0, f"{label}: exit status 0")
    if strict:
        check(r.returncode == status, f"{label}: exit status {r.returncode}, expected {status}: "
              f"{r.stderr.strip()}")
        check(fragment in r.stderr, f"{label}: {fragment!r} not in {r.stderr.strip()!r}")
        check(r.stdout == "", f"{label}: stdout {r.stdout[:200]!r}")


def warns(label, command, args, work, fragment, env=None):
    """`cleave ARGS` succeeds with a warning naming COMMAND and holding `fragment`."""
    r = clitest.run(args, work, env=env)
    kinds = diagnostics(label, command, r.stderr)
    check(r.returncode == 0, f"{label}: exit status {r.returncode}: {r.stderr.strip()}")
    check(kinds and set(kinds) == {"warning"}, f"{label}: no warning alone in {r.stderr!r}")
    check(fragment in r.stderr, f"{label}: {fragment!r} not in {r.stderr.strip()!r}")


def has(args, work):
    """Whether this build has the family `cleave ARGS --help` belongs to."""
    return clitest.run(args + ["--help"], work).returncode == 0


def models(work):
    """x.npy [4,6] f32; model/ (safetensors) and m.gguf; a file other readers accept that `st
    check` warns of; an IR whose Split breaks its rule with its input; a rules file whose line
    is not a rule."""
    np.save(os.path.join(work, "x.npy"), np.arange(24, dtype=np.float32).reshape(4, 6))
    os.makedirs(os.path.join(work, "model"))
    st_util.small_model(os.path.join(work, "model"), np.random.default_rng(7))
    gguf_util.write_gguf(os.path.join(work, "m.gguf"), [("general.architecture", "str", "llama")],
                         [("blk.0.w", "F32", [4, 8], bytes(128))])
    header = b'  {"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    header += b" " * (-len(header) % 8)
    with open(os.path.join(work, "lenient.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + bytes(8))
    with open(os.path.join(work, "rules.txt"), "w") as f:
        f.write("-a 0\n")
    with open(os.path.join(work, "bad.xml"), "w") as f:
        f.write("<net>\n")
    net = Net()
    data = net.parameter("data", "f32", "6,4")
    axis = net.const_array("axis", np.array(0, dtype=np.int64))
    for i, out in enumerate(net.split("s", data, [6, 4], axis, 4, [[2, 4]] * 4)):
        net.result(f"out{i}", out, [2, 4])
    net.write(work, "split4")
    np.save(os.path.join(work, "in6.npy"), np.zeros((6, 4), np.float32))


def test_errors(work):
    models(work)
    # No command yet: the message alone.
    for label, args, message in (
            ("no command", [], "cleave: error: a command is missing\n"),
            ("unknown command", ["bogus"],
             "cleave: error: unknown command 'bogus' (see 'cleave --help')\n")):
        r = clitest.run(args, work)
        check(r.returncode == 64 and r.stderr.endswith(message) and r.stdout == "",
              f"{label}: {r.returncode} {r.stderr[-200:]!r}")
    # The operator commands on .npy files, the library's messages among them.
    cases = [
        ("split", ["split", "-a", "9", "-n", "2", "/nonexistent/x.npy"], 66,
         "cannot open input '/nonexistent/x.npy'"),
        ("split", ["split", "-a", "0", "-n", "3", "x.npy"], 65,
         "data.shape[0] = 4 is not divisible by num_splits = 3"),
        ("split", ["split", "--bogus", "x.npy"], 64,
         "unknown option '--bogus' (see 'cleave split --help')"),
        ("split", ["split", "-a", "0", "x.npy"], 64, "-n/--num-splits is required"),
        ("variadic-split", ["variadic-split", "-a", "0", "-l", "1,1", "x.npy"], 65,
         "split_lengths sum to 2 but data.shape[0] is 4"),
        ("split-to-sequence", ["split-to-sequence", "-k", "2", "x.npy"], 64, "-k"),
        ("onnx-split", ["onnx-split", "-a", "0", "--opset", "1", "x.npy"], 64,
         "below opset 18 Split needs -l/--lengths or -n/--num-splits"),
        ("concat", ["concat", "-a", "5", "-o", "y.npy", "x.npy", "x.npy"], 65,
         "axis 5 is out of range [-2, 1]"),
        ("concat-from-sequence", ["concat-from-sequence", "-a", "0", "-o", "y.npy",
                                  "/nonexistent/x.npy"], 66, "cannot open input"),
        ("infer", ["infer"], 64, "the operator is missing"),
        ("infer", ["infer", "bogus"], 64, "unknown operator 'bogus'"),
        ("infer split", ["infer", "split", "-a", "5", "-n", "2", "--shape", "[2,2]"], 65,
         "axis 5 is out of range"),
        ("infer split", ["infer", "split", "--bogus"], 64,
         "unknown option '--bogus' (see 'cleave infer split --help')"),
        ("infer concat", ["infer", "concat", "--opset", "1", "--shape", "[2,3]", "--shape",
                          "[2,5]", "--dtype", "i32"], 65, "ONNX Concat-1 does not accept i32"),
        ("demo", ["demo", "x"], 64, "unexpected argument 'x'"),
        ("help", ["help", "bogus"], 64, "unknown command 'bogus'"),
        ("help", ["help", "split", "x", "y"], 64, "unexpected argument 'y'"),
        # `cleave help COMMAND ...` runs `cleave COMMAND ... --help`.
        ("st", ["help", "st", "bogus"], 64, "unknown subcommand 'bogus'"),
        ("--version", ["--version", "x"], 64, "unexpected argument 'x'"),
    ]
    for command, args, status, fragment in cases:
        fails(" ".join(args), command, args, work, status, fragment)
    onnx = os.environ.get("CLEAVE_WITH_ONNX", "OFF").upper() in ("ON", "1", "TRUE", "YES")
    for args, status, fragment in ((["onnx-test"], 64, "no test directory given"),
                                   (["onnx-test", "--bogus"], 64, "unknown option '--bogus'")):
        fails(" ".join(args), "onnx-test", args, work, status, fragment, strict=onnx)
    openvino = has(["ir-check"], work)
    for command, args, status, fragment in (
            ("ir-check", ["ir-check", "/nonexistent/m.xml"], 66,
             "cannot open '/nonexistent/m.xml'"),
            ("ir-check", ["ir-check", "bad.xml"], 65, "'bad.xml' line 1"),
            ("ir-check", ["ir-check"], 64, "the model is missing"),
            ("ir-run", ["ir-run", "split4.xml", "--input", "data=in6.npy", "-o", "out"], 65,
             "data.shape[0] = 6 is not divisible by num_splits = 4"),
            ("ir-run", ["ir-run", "split4.xml", "--input", "nothing"], 64,
             "--input 'nothing' is not NAME=FILE.npy")):
        fails(" ".join(args), command, args, work, status, fragment, strict=openvino)
    # The checkpoint families: pinned, found from the model, verify.
    checkpoint = has(["st", "ls"], work)
    for command, args, status, fragment in [
            ("st", ["st"], 64, "a subcommand is missing"),
            ("st", ["st", "bogus"], 64, "unknown subcommand 'bogus'"),
            ("st shard", ["st", "shard", "model", "-n", "2"], 64, "-o OUTDIR is missing"),
            ("st merge", ["st", "merge", "--bogus"], 64,
             "unknown option '--bogus' (see 'cleave st merge --help')"),
            ("st merge", ["st", "merge", "/nonexistent/tp", "-o", "m", "--axis", "a=0"], 66,
             "cannot open '/nonexistent/tp'"),
            ("st ls", ["st", "ls", "x.npy"], 65, "x.npy: byte 0"),
            ("st check", ["st", "check", "--strict", "lenient.safetensors"], 65,
             "lenient.safetensors: byte 8"),
            ("st split", ["st", "split", "model", "-o", "out", "--rules", "rules.txt"], 64,
             "rules.txt:1: a rule starts with --tensor GLOB, not '-a'"),
            ("st split", ["st", "split", "model", "-o", "out", "--max-shard-size", "1.5XB"], 64,
             "--max-shard-size '1.5XB' is not a size"),
            ("st shard", ["st", "shard", "model", "-o", "tp", "-n", "3", "--axis", "c.w=1"], 65,
             "data.shape[1] = 4 is not divisible by num_splits = 3"),
            ("st shard", ["st", "shard", "model", "-o", "tp", "-n", "2", "--axis", "c.w"], 64,
             "--axis 'c.w' is not GLOB=VALUE"),
            ("st verify", ["st", "verify", "model"], 66, "cannot open the manifest"),
            ("gguf", ["gguf", "bogus"], 64, "unknown subcommand 'bogus'"),
            ("gguf merge", ["gguf", "merge", "/nonexistent/r.gguf", "-o", "y.gguf"], 66,
             "cannot open '/nonexistent/r.gguf'"),
            ("gguf ls", ["gguf", "ls", "x.npy"], 65, "not a GGUF file"),
            ("gguf split", ["gguf", "split", "m.gguf"], 64, "-o OUTDIR is missing"),
            ("gguf shard", ["gguf", "shard", "m.gguf", "-n", "2", "-o", "tp"], 64,
             "no --axis GLOB=AXIS rule"),
            ("gguf shard", ["gguf", "shard", "m.gguf", "-o", "tp", "-n", "2", "--preset",
                            "llama"], 64, "--preset belongs to 'st shard'"),
            ("ls", ["ls", "/nonexistent/m"], 66, "cannot open '/nonexistent/m'"),
            ("check", ["check", "x.npy"], 65, "'x.npy' is not a model cleave reads"),
            ("shard", ["shard", "model", "-n", "2"], 64, "-o OUTDIR is missing"),
            # After the format is found the command keeps the name it was typed with.
            ("shard", ["shard", "m.gguf", "-o", "tp", "-n", "2", "--axis", "blk.0.w=0",
                       "--preset", "llama"], 64, "--preset belongs to 'st shard', not to GGUF"),
            ("shard", ["shard", "model", "-o", "tp", "-n", "3", "--axis", "c.w=1"], 65,
             "data.shape[1] = 4 is not divisible by num_splits = 3"),
            ("merge", ["merge", "/nonexistent/tp", "-o", "y"], 66, "cannot open"),
            ("reshard", ["reshard", "model"], 64, "-o OUTDIR is missing"),
            ("verify", ["verify"], 64, "the OUTDIR"),
            ("verify", ["verify", "/nonexistent/out"], 66, "cannot open the manifest"),
    ]:
        fails(" ".join(args), command, args, work, status, fragment, strict=checkpoint)


def test_warnings(work):
    models(work)
    # An earlier run's outputs beyond this run's, and a chunk size out of range.
    clitest.run(["split", "-a", "1", "-n", "6", "-q", "x.npy"], work)
    warns("stale .npy", "split", ["split", "-a", "1", "-n", "2", "-f", "-q", "x.npy"], work,
          "'x_2.npy' to 'x_5.npy' are not among this run's outputs")
    warns("chunk", "concat", ["concat", "-a", "0", "-f", "-q", "-o", "y.npy", "x.npy", "x.npy"],
          work, "CLEAVE_CHUNK_BYTES='12'", env=dict(os.environ, CLEAVE_CHUNK_BYTES="12"))
    if not has(["st", "ls"], work):
        return
    warns("lenient", "st check", ["st", "check", "lenient.safetensors"], work,
          "2 bytes of whitespace before the header's '{'")
    warns("lenient, found", "ls", ["ls", "lenient.safetensors"], work,
          "2 bytes of whitespace before the header's '{'")
    for typed in (["gguf", "shard"], ["shard"]):
        out = "tp_" + "_".join(typed)
        clitest.run(typed + ["m.gguf", "-o", out, "-n", "4", "--axis", "blk.0.w=0"], work)
        warns(" ".join(typed) + " leftover", " ".join(typed),
              typed + ["m.gguf", "-o", out, "-n", "2", "-f", "-q", "--axis", "blk.0.w=0"], work,
              f"'{out}/rank2.gguf' and '{out}/rank3.gguf' are not among this run's outputs")


def test_record_place(work):
    """The ranks' record of their rules, read as a command line: its place follows the command."""
    models(work)
    if not has(["st", "merge"], work):
        return
    r = clitest.run(["st", "shard", "model", "-o", "tp", "-n", "2", "--axis", "c.w=1", "-q"], work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    for name in ("rank0.safetensors", "rank1.safetensors"):
        path = os.path.join(work, "tp", name)
        meta, tensors = st_util.read_st(path)
        check(meta.get("cleave.rules") == "--axis 'c.w=1'", f"{name}: record {meta}")
        meta["cleave.rules"] = "--axis 'c.w=1' --bogus"
        st_util.write_st(path, tensors, meta)
    for typed in (["st", "merge"], ["merge"]):
        fails(" ".join(typed) + " record", " ".join(typed), typed + ["tp", "-o", "m"], work, 65,
              "the ranks' cleave.rules: unknown option '--bogus'")
