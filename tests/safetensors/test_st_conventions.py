#!/usr/bin/python3
"""The conventions of `cleave st split` and `st shard` rules: a rules file's lines are split as a
shell splits a command line (quotes, backslashes, '#' comments), rules are numbered from 1 on the
command line ("rule 2", "--axis rule 2") and by FILE:LINE in a file, a glob that matches nothing
explains that '[', '{' and '\\' are ordinary characters, and counts in messages are pluralised."""
import os

import numpy as np

import st_util as u
from clitest import check


def model(work):
    arrays = {"model.layers.0.qkv": np.arange(24, dtype=np.float32).reshape(6, 4),
              "model.layers.1.qkv": np.arange(24, 48, dtype=np.float32).reshape(6, 4),
              "has space": np.arange(4, dtype=np.int32),
              "norm": np.ones(4, np.float32)}
    u.write_st(os.path.join(work, "m.safetensors"),
               {k: u.array_tensor(v) for k, v in arrays.items()})
    return arrays


def rules_file(work, text, name="rules.txt"):
    with open(os.path.join(work, name), "w") as f:
        f.write(text)
    return name


def test_rules_file_words(work):
    arrays = model(work)
    # Quotes and backslashes as on a command line; '#' starts a comment (not inside quotes).
    rules_file(work, "# split the fused projections\n"
                     "--tensor '*.qkv' -a 0 -n 3 --into \"*.q,*.k,*.v\"  # three\n"
                     "\n"
                     "--tensor has\\ space -a 0 -l 1,-1 --into 'a #1',\"b\\\"2\"\n")
    r = u.run(["st", "split", "m.safetensors", "-o", "out", "--rules", "rules.txt"], work)
    check(r.returncode == 0 and r.stderr == "", f"quoted rules: {r.returncode} {r.stderr}")
    if r.returncode == 0:
        _, got = u.read_st(os.path.join(work, "out", "m.safetensors"))
        for layer in (0, 1):
            whole = arrays[f"model.layers.{layer}.qkv"]
            for i, part in enumerate("qkv"):
                check(np.array_equal(u.as_array(got[f"model.layers.{layer}.{part}"]),
                                     whole[2 * i:2 * i + 2]), f"layer {layer} {part}")
        check(np.array_equal(u.as_array(got["a #1"]), arrays["has space"][:1]) and
              np.array_equal(u.as_array(got['b"2']), arrays["has space"][1:]),
              f"names from quotes: {sorted(got)}")
    # The same rules on the command line give the same bytes.
    r = u.run(["st", "split", "m.safetensors", "-o", "out2", "--tensor", "*.qkv",
               "-a", "0", "-n", "3", "--into", "*.q,*.k,*.v", "--tensor", "has space", "-a", "0",
               "-l", "1,-1", "--into", 'a #1,b"2'], work)
    check(r.returncode == 0, f"command line: {r.stderr}")
    if r.returncode == 0:
        with open(os.path.join(work, "out", "m.safetensors"), "rb") as a, \
                open(os.path.join(work, "out2", "m.safetensors"), "rb") as b:
            check(a.read() == b.read(), "rules file and command line differ")

    # Malformed lines: status 64, FILE:LINE and the column, nothing written.
    base = ["st", "split", "m.safetensors", "-o", "bad", "--rules"]
    for label, text, fragments in (
            ("unclosed quote", "--tensor 'model.layers.*.qkv -a 0 -n 3 --into a,b,c\n",
             ["rules.txt:1: column 10: the single quote opened here is not closed"]),
            ("unclosed double quote", "# one\n--tensor x -a 0 -n 1 --into \"a\n",
             ["rules.txt:2: column 29: the double quote opened here is not closed"]),
            ("backslash at the end", "--tensor x -a 0 \\\n",
             ["rules.txt:1: column 17: a backslash ends the line"]),
            ("not a rule", "-a 0 --tensor x\n",
             ["rules.txt:1: a rule starts with --tensor GLOB, not '-a'"]),
            ("value of a file rule", "--tensor norm -a zero -n 1 --into n\n",
             ["rules.txt:1 (--tensor 'norm'): -a/--axis: 'zero' is not an integer"]),
            ("lengths of a file rule", "--tensor norm -a 0 -l 1,,3 --into a,b,c\n",
             ["rules.txt:1 (--tensor 'norm'): -l/--lengths: '1,,3' has an empty entry"])):
        u.expect_failure(label, base + [rules_file(work, text)], work, 64, fragments)


def test_numbering(work):
    model(work)
    rules_file(work, "--tensor norm -a 0 -n 1 --into n\n"
                     "--tensor 'has space' -a 0 -n 2 --into s0,s1\n")
    base = ["st", "split", "m.safetensors", "-o", "bad"]
    # Command-line rules count from 1 among themselves, whatever a rules file held before them.
    u.expect_failure("rule 2", base + ["--rules", "rules.txt", "--tensor", "model.layers.0.qkv",
                                       "-a", "0", "-n", "1", "--into", "q", "--tensor", "zz.*",
                                       "-a", "0", "-n", "1", "--into", "y.*"], work, 65,
                     ["st split: rule 2 (--tensor 'zz.*'): no tensor matches 'zz.*'"])
    u.expect_failure("rule 1", base + ["--tensor", "norm", "-a", "x", "-n", "1", "--into", "n"],
                     work, 64, ["rule 1 (--tensor 'norm'): -a/--axis: 'x' is not an integer"])
    u.expect_failure("two rules", base + ["--rules", "rules.txt", "--tensor", "norm", "-a", "0",
                                          "-n", "1", "--into", "m"], work, 65,
                     ["rules.txt:1 (--tensor 'norm')", "rule 1 (--tensor 'norm')"])
    # An option after --rules FILE belongs to no rule of the command line.
    u.expect_failure("after --rules", base + ["--rules", "rules.txt", "-a", "1"], work, 64,
                     ["-a '1' belongs to no rule: a rule starts with --tensor GLOB"])
    u.expect_failure("before any rule", base + ["-n", "2", "--tensor", "norm"], work, 64,
                     ["-n '2' belongs to no rule"])
    # st shard: "--axis rule N", "--view rule N", "--replicate rule N", each kind from 1.
    base = ["st", "shard", "m.safetensors", "-o", "bad", "-n", "2"]
    u.expect_failure("--axis rule 2", base + ["--axis", "*.qkv=0", "--axis", "zz=1"], work, 65,
                     ["st shard: --axis rule 2: no tensor matches 'zz'"])
    u.expect_failure("--view rule 1", base + ["--axis", "*.qkv=0", "--view", "yy=2,-1"], work,
                     65, ["st shard: --view rule 1: no tensor matches 'yy'"])
    u.expect_failure("--replicate rule 2", base + ["--axis", "*.qkv=0", "--replicate", "norm",
                                                   "--replicate", "xx"], work, 65,
                     ["st shard: --replicate rule 2: no tensor matches 'xx'"])


def test_glob_notes(work):
    model(work)
    note = ("'[' and ']' are ordinary characters in cleave's globs (only '*', any run of "
            "characters, and '?', one character, are special), so '[...]' matches those "
            "characters themselves, not a set")
    u.expect_failure("split [", ["st", "split", "m.safetensors", "-o", "bad", "--tensor",
                                 "model.layers.[01].qkv", "-a", "0", "-n", "1", "--into", "q"],
                     work, 65, ["no tensor matches 'model.layers.[01].qkv'; " + note])
    u.expect_failure("shard [", ["st", "shard", "m.safetensors", "-o", "bad", "-n", "2",
                                 "--axis", "*.[q]kv=0"], work, 65, ["'*.[q]kv'; " + note])
    u.expect_failure("ls [", ["st", "ls", "m.safetensors", "--glob", "model.layers.[0-1].*"],
                     work, 65, ["matches 'model.layers.[0-1].*'; " + note])
    u.expect_failure("ls {", ["st", "ls", "m.safetensors", "--glob", "{norm,x}"], work, 65,
                     ["'{' and '}' are ordinary characters", "one rule per alternative"])
    u.expect_failure("ls \\", ["st", "ls", "m.safetensors", "--glob", "has\\ space"], work, 65,
                     ["'\\' is an ordinary character in cleave's globs"])
    # A glob without those characters gets no note.
    r = u.expect_failure("no note", ["st", "ls", "m.safetensors", "--glob", "zz*"], work, 65,
                         ["no tensor of 'm.safetensors' matches 'zz*'"])
    check("ordinary" not in r.stderr, f"no note: {r.stderr}")
    # '[' matches itself.
    u.write_st(os.path.join(work, "b.safetensors"), {"w[0]": u.array_tensor(np.zeros(2, np.int8))})
    r = u.run(["st", "ls", "b.safetensors", "--glob", "w[0]"], work)
    check(r.returncode == 0 and r.stdout.startswith("w[0]\t"), f"'[' literal: {r.stdout}")


def test_plurals(work):
    model(work)
    base = ["st", "split", "m.safetensors", "-o", "bad", "--tensor", "norm", "-a", "0"]
    u.expect_failure("1 part", base + ["-n", "1", "--into", "a,b"], work, 64,
                     ["1 part but 2 names in --into"])
    u.expect_failure("1 name", base + ["-n", "2", "--into", "a"], work, 64,
                     ["2 parts but 1 name in --into"])
    u.write_st(os.path.join(work, "one.safetensors"), {"x": u.array_tensor(np.zeros(1, np.int8))})
    r = u.run(["st", "check", "one.safetensors"], work)
    check(r.returncode == 0 and r.stdout == "one.safetensors: ok: 1 file, 1 tensor, 1 byte of "
          "data\n", f"check: {r.stdout!r}")
