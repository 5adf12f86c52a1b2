#!/usr/bin/python3
"""-o of the .npy commands: an existing directory or a trailing '/' puts the outputs inside it as
DIR/STEM_i.npy, anything else is a prefix; and the warning about PREFIX_k.npy files beyond this
run's outputs that an earlier run left (named, or counted with the first and the last)."""
import os

import numpy as np

import clitest
from clitest import check

A = np.arange(72, dtype=np.float32).reshape(6, 12)


def expect_parts(label, paths, parts):
    """Every path holds the matching NumPy slice."""
    for path, part in zip(paths, parts):
        clitest.check_output(f"{label}: {path}", path, part, False)


def run_ok(label, args, cwd):
    r = clitest.run(args, cwd)
    check(r.returncode == 0, f"{label}: status {r.returncode}: {r.stderr.strip()}")
    return r


def directories(work):
    os.makedirs(os.path.join(work, "data"))
    np.save(os.path.join(work, "data", "x.npy"), A)
    os.makedirs(os.path.join(work, "out"))
    parts = np.split(A, 3, axis=1)

    # An existing directory, with and without the trailing '/': DIR/STEM_i.npy, STEM being the
    # input's file name without .npy (not its folder).
    for value in ("out", "out/", "./out", "out//"):
        r = run_ok(f"-o {value}", ["split", "-a", "1", "-n", "3", "-o", value, "-f",
                                   "data/x.npy"], work)
        sep = "" if value.endswith("/") else "/"
        names = [f"{value}{sep}x_{i}.npy" for i in range(3)]
        check(r.stdout == "".join(f"{n} [6,4]\n" for n in names),
              f"-o {value}: printed {r.stdout!r}")
        check(r.stderr == "", f"-o {value}: stderr {r.stderr!r}")
        expect_parts(f"-o {value}", [os.path.join(work, n) for n in names], parts)
    check(sorted(os.listdir(os.path.join(work, "out"))) == ["x_0.npy", "x_1.npy", "x_2.npy"],
          f"out/ holds {sorted(os.listdir(os.path.join(work, 'out')))}")

    # A symbolic link to a directory is a directory.
    os.symlink("out", os.path.join(work, "link"))
    run_ok("-o link", ["variadic-split", "-a", "0", "-l", "1,-1", "-o", "link", "-f",
                       "data/x.npy"], work)
    expect_parts("-o link", [os.path.join(work, "out", f"x_{i}.npy") for i in (0,)], [A[:1]])

    # An input without the .npy suffix keeps its whole name as the stem.
    os.rename(os.path.join(work, "data", "x.npy"), os.path.join(work, "data", "x.data"))
    run_ok("x.data", ["split", "-a", "0", "-n", "2", "-o", "out/", "data/x.data"], work)
    expect_parts("x.data", [os.path.join(work, "out", f"x.data_{i}.npy") for i in range(2)],
                 np.split(A, 2, axis=0))
    os.rename(os.path.join(work, "data", "x.data"), os.path.join(work, "data", "x.npy"))

    # Anything else is a prefix, as before: a new name, or an existing file's name.
    run_ok("prefix", ["split", "-a", "1", "-n", "2", "-o", "out/p", "data/x.npy"], work)
    expect_parts("prefix", [os.path.join(work, "out", f"p_{i}.npy") for i in range(2)],
                 np.split(A, 2, axis=1))
    open(os.path.join(work, "plain"), "w").close()
    run_ok("file prefix", ["split", "-a", "1", "-n", "2", "-o", "plain", "data/x.npy"], work)
    check(os.path.exists(os.path.join(work, "plain_0.npy")), "-o plain: no plain_0.npy")

    # A trailing '/' on a folder that does not exist: 73, and it is not created.
    clitest.expect_failure("missing/", ["split", "-a", "1", "-n", "2", "-o", "missing/",
                                        "data/x.npy"], work, 73,
                           ["'missing/x_0.npy'", "the output directory is not created"])
    # Outputs inside the directory that exist: 73 without -f, as for a prefix.
    clitest.expect_failure("exists", ["split", "-a", "1", "-n", "3", "-o", "out",
                                      "data/x.npy"], work, 73, ["'out/x_0.npy' exists"])

    # ir-run's -o works the same way (STEM: the model's name without .xml).
    source = os.environ.get("CLEAVE_SOURCE_DIR", "")
    model = os.path.join(source, "docs", "examples", "split-1.xml")
    data = np.arange(6 * 12 * 10 * 24, dtype=np.float32).reshape(6, 12, 10, 24)
    np.save(os.path.join(work, "data", "d.npy"), data)
    r = clitest.run(["ir-run", model, "--input", "data=data/d.npy", "-o", "out"], work)
    if "no OpenVINO IR support" not in r.stderr:
        check(r.returncode == 0, f"ir-run -o out: {r.returncode} {r.stderr.strip()}")
        expect_parts("ir-run -o out",
                     [os.path.join(work, "out", f"split-1_{i}.npy") for i in range(3)],
                     np.split(data, 3, axis=1))


def stale(work):
    np.save(os.path.join(work, "x.npy"), A)
    before = {}

    def snap():
        return {n: open(os.path.join(work, n), "rb").read() for n in os.listdir(work)
                if n.startswith("x_")}

    run_ok("six", ["split", "-a", "1", "-n", "6", "x.npy", "-q"], work)
    before = snap()

    # -f rewrites fewer parts: the two left over are named, left as they were, exit 0.
    r = run_ok("four", ["split", "-a", "1", "-n", "4", "x.npy", "-f"], work)
    check(r.stderr == "cleave: warning: split: 'x_4.npy' and 'x_5.npy' are not among this run's "
          "outputs (it wrote x_0.npy to x_3.npy) and were left as they were; delete them if an "
          "earlier run left them\n", f"four: stderr {r.stderr!r}")
    after = snap()
    check(after["x_4.npy"] == before["x_4.npy"] and after["x_5.npy"] == before["x_5.npy"],
          "four: the files left over changed")
    expect_parts("four", [os.path.join(work, f"x_{i}.npy") for i in range(4)],
                 np.split(A, 4, axis=1))

    # Three: counted, with the first and the last. With -q the warning still goes to stderr
    # (stdout is empty).
    os.remove(os.path.join(work, "x_5.npy"))
    r = run_ok("three", ["split", "-a", "1", "-n", "2", "x.npy", "-f", "-q"], work)
    check(r.stdout == "", f"three: stdout {r.stdout!r}")
    check(r.stderr == "cleave: warning: split: 3 files from 'x_2.npy' to 'x_4.npy' are not among "
          "this run's outputs (it wrote x_0.npy to x_1.npy) and were left as they were; delete "
          "them if an earlier run left them\n", f"three: stderr {r.stderr!r}")
    # One: named alone.
    for i in (2, 3, 4):
        os.remove(os.path.join(work, f"x_{i}.npy"))
    r = run_ok("single", ["split", "-a", "1", "-n", "1", "x.npy", "-f"], work)
    check(r.stderr == "cleave: warning: split: 'x_1.npy' is not one of this run's outputs (it "
          "wrote x_0.npy) and was left as it was; delete it if an earlier run left it\n",
          f"single: stderr {r.stderr!r}")

    # Many: the count, the first and the last (numeric order, not text order).
    for i in range(1, 12):
        open(os.path.join(work, f"x_{i}.npy"), "w").close()
    r = run_ok("many", ["split", "-a", "1", "-n", "3", "x.npy", "-f"], work)
    check("9 files from 'x_3.npy' to 'x_11.npy' are not among this run's outputs (it wrote "
          "x_0.npy to x_2.npy)" in r.stderr, f"many: stderr {r.stderr!r}")

    # Names that are not this prefix's outputs are not counted; no left-over file, no warning.
    for i in range(3, 12):
        os.remove(os.path.join(work, f"x_{i}.npy"))
    for name in ("x_03.npy", "x_3.npyz", "x_a.npy", "xx_3.npy", "y_3.npy", "x_3", ".x_3.npy",
                 "x_99999999999999999999.npy"):
        open(os.path.join(work, name), "w").close()
    r = run_ok("others", ["split", "-a", "1", "-n", "3", "x.npy", "-f"], work)
    check(r.stderr == "", f"others: stderr {r.stderr!r}")

    # An empty sequence writes no file: anything of the prefix is left over.
    np.save(os.path.join(work, "e.npy"), np.zeros((0, 3), np.int8))
    open(os.path.join(work, "e_0.npy"), "w").close()
    r = run_ok("empty", ["split-to-sequence", "e.npy", "--json"], work)
    check(r.stdout == '{"op": "split-to-sequence", "outputs": []}\n', f"empty: {r.stdout!r}")
    check(r.stderr == "cleave: warning: split-to-sequence: 'e_0.npy' is not one of this run's "
          "outputs (it wrote none) and was left as it was; delete it if an earlier run left it\n",
          f"empty: stderr {r.stderr!r}")

    # A failed run warns about nothing and leaves everything as it was.
    clitest.expect_failure("failure", ["split", "-a", "1", "-n", "5", "x.npy", "-f"], work, 65,
                           ["not divisible by num_splits = 5"])


def test_output_dir():
    directories(clitest.workdir("output_dir"))
    stale(clitest.workdir("output_stale"))
