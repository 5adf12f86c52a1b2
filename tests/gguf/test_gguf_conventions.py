#!/usr/bin/python3
"""The conventions of `cleave gguf` shared with `cleave st` (tools/checkpoint/rules/ckpt_rules.c): a
rules file's lines split as a shell splits a command line, rules numbered from 1 on the command
line and by FILE:LINE in a file, a glob that matches nothing explaining '[', counts in the
singular for one, and errors that are never JSON."""
import os

import numpy as np

import clitest
import gguf_util as u
from clitest import check

QKV = np.arange(24, dtype="<f4").reshape(6, 4)


def test_gguf_conventions():
    work = clitest.workdir("gguf_conventions")
    meta = [("general.architecture", "str", "llama")]
    u.write_gguf(os.path.join(work, "m.gguf"), meta,
                 [("blk.0.qkv", "F32", (6, 4), QKV.tobytes()),
                  ("has space", "F32", (2,), np.zeros(2, "<f4").tobytes())])
    # Quotes, backslashes and comments in a rules file, as on a command line.
    with open(os.path.join(work, "rules.txt"), "w") as f:
        f.write("# unfuse\n--tensor 'blk.*.qkv' -a 0 -n 3 --into \"blk.*.q,blk.*.k,blk.*.v\"  # x\n"
                "--tensor has\\ space -a 0 -n 2 --into 'a b',c\n")
    r = u.run(["gguf", "split", "m.gguf", "-o", "out", "--rules", "rules.txt"], work)
    check(r.returncode == 0, f"rules file: {r.returncode} {r.stderr}")
    r = u.run(["gguf", "ls", "out/m.gguf"], work)
    names = sorted(line.split("\t")[0] for line in r.stdout.splitlines())
    check(names == ["a b", "blk.0.k", "blk.0.q", "blk.0.v", "c"], f"rules file outputs: {names}")
    # Malformed lines: 64 with FILE:LINE and the column.
    with open(os.path.join(work, "bad.txt"), "w") as f:
        f.write("\n--tensor 'blk.*.qkv -a 0\n")
    u.expect_failure("unclosed quote", ["gguf", "split", "m.gguf", "-o", "bad", "--rules",
                                        "bad.txt"], work, 64,
                     ["gguf split: bad.txt:2: column 10: the single quote opened here is not "
                      "closed"])
    # Numbering: command-line rules from 1 among themselves; values name their rule.
    base = ["gguf", "split", "m.gguf", "-o", "bad"]
    u.expect_failure("rule 2", base + ["--rules", "rules.txt", "--tensor", "nothing", "-a", "0",
                                       "-n", "1", "--into", "z"], work, 65,
                     ["rule 1 (--tensor 'nothing'): no tensor matches 'nothing'"])
    u.expect_failure("value", base + ["--tensor", "blk.0.qkv", "-a", "0", "--tensor", "x", "-a",
                                      "one", "-n", "1", "--into", "y"], work, 64,
                     ["rule 2 (--tensor 'x'): -a/--axis: 'one' is not an integer"])
    u.expect_failure("after --rules", base + ["--rules", "rules.txt", "-n", "2"], work, 64,
                     ["gguf split: -n '2' belongs to no rule"])
    u.expect_failure("shard numbering", ["gguf", "shard", "m.gguf", "-o", "bad", "-n", "2",
                                         "--axis", "blk.0.qkv=0", "--axis", "z=0"], work, 65,
                     ["--axis rule 2: no tensor matches 'z'"])
    # '[' is an ordinary character, which the message says.
    u.expect_failure("glob [", ["gguf", "ls", "m.gguf", "--glob", "blk.[0].*"], work, 65,
                     ["'[' and ']' are ordinary characters in cleave's globs"])
    # Counts in the singular for one.
    u.expect_failure("1 part", base + ["--tensor", "blk.0.qkv", "-a", "0", "-n", "1", "--into",
                                       "a,b"], work, 64, ["1 part but 2 names in --into"])
    u.write_gguf(os.path.join(work, "one.gguf"), meta,
                 [("x", "I8", (1,), b"\x01")])
    r = u.run(["gguf", "check", "one.gguf"], work)
    check(r.returncode == 0 and "ok: GGUF v3, 1 file, 1 tensor, 1 byte of data, 1 metadata "
          "entry" in r.stdout, f"check: {r.stdout!r}")
    # Errors are never JSON.
    r = u.expect_failure("check --json", ["gguf", "check", "--json", "rules.txt"], work, 65, [])
    check(r.stdout == "", f"check --json failure: {r.stdout!r}")
