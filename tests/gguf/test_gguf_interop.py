#!/usr/bin/python3
"""cleave gguf and the files llama.cpp's tools write, without llama.cpp itself
(test_gguf_llama.py runs the real client): files written here by the tests' own writer
(gguf_util.py) as gguf-split lays them out.

- A file whose split.count is 0 (gguf-split --merge's output: the first part's split.no and
  split.tensors.count kept, split.count 0 last) is a whole model for every gguf command: check,
  ls without its split keys, split, shard and merge of ranks as from the model without them;
  gguf merge refuses it as a set's part; split keys that are not all there, or of the wrong
  type, are still refused.
- ls and check take any file of a set: the whole set from its first file (found by
  gguf-split's name); that file alone, with a warning saying why, when the first file cannot
  be opened or the name is not gguf-split's; a first file by that name that is not the set's is
  an error, and so is a part alone that holds more tensors than its set.
- --max-tensors N on gguf split and gguf merge (sets and ranks): gguf-split's
  --split-max-tensors rule, computed here independently, alone and with --max-shard-size; its
  errors.
- A set's later files hold the split keys only (in gguf-split's order), after
  general.alignment when it is not 32."""
import json
import os
import shutil

import numpy as np

import gguf_util as u
from clitest import check

RNG = np.random.default_rng(3333)
META = [("general.architecture", "str", "llama"), ("general.name", "str", "interop"),
        ("llama.block_count", "u32", 2)]
SPLIT_KEYS = ["split.no", "split.tensors.count", "split.count"]


def tensors():
    """Seven tensors of several sizes (F32 and Q8_0)."""
    ts = []
    for i, rows in enumerate((4, 8, 2, 16, 4, 1, 8)):
        if i % 2:
            ts.append((f"blk.{i}.w", "Q8_0", (rows, 64),
                       u.rand_bytes(RNG, u.nbytes("Q8_0", (rows, 64)))))
        else:
            ts.append((f"blk.{i}.w", "F32", (rows, 16),
                       RNG.random((rows, 16), np.float32).tobytes()))
    return ts


TENSORS = tensors()


def write(work, name, meta=META, ts=TENSORS, **kw):
    path = os.path.join(work, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    u.write_gguf(path, meta, ts, **kw)
    return open(path, "rb").read()


def merged_meta(no=0, count=0, total=len(TENSORS)):
    """gguf-split --merge's metadata: the model's, then its three split keys, split.count last."""
    return META + [("split.no", "u16", no), ("split.tensors.count", "i32", total),
                   ("split.count", "u16", count)]


def run_ok(args, cwd):
    r = u.run(args, cwd)
    check(r.returncode == 0, f"cleave {' '.join(args)}: {r.stderr.strip()}")
    return r


def files_of(folder):
    return {n: open(os.path.join(folder, n), "rb").read() for n in sorted(os.listdir(folder))
            if n.endswith(".gguf")}


def test_split_count_zero(work):
    original = write(work, "model/model.gguf")
    write(work, "merged/model.gguf", merged_meta())
    r = run_ok(["gguf", "check", "merged/model.gguf"], work)
    check(f"1 file, {len(TENSORS)} tensors" in r.stdout and "3 metadata entries" in r.stdout and
          r.stderr == "", f"check: a whole model, its split keys set aside: {r.stdout}")
    r = run_ok(["check", "--json", "merged/model.gguf"], work)
    check(json.loads(r.stdout or "{}").get("files") == 1, f"check --json: {r.stdout}")
    r = run_ok(["gguf", "ls", "--metadata", "merged/model.gguf"], work)
    check("split." not in r.stdout and "general.name" in r.stdout, f"ls --metadata: {r.stdout}")
    # What cleave writes from it is what it writes from the model.
    for k, args in enumerate((["--max-tensors", "3"], ["--max-shard-size", "1K"],
                              ["--tensor", "blk.0.w", "-a", "0", "-n", "2", "--into", "a,b"])):
        run_ok(["gguf", "split", "model/model.gguf", "-o", f"a{k}", "-q"] + args, work)
        run_ok(["gguf", "split", "merged/model.gguf", "-o", f"b{k}", "-q"] + args, work)
        a, b = files_of(os.path.join(work, f"a{k}")), files_of(os.path.join(work, f"b{k}"))
        check(a == b and a, f"split {' '.join(args)} of the merged file: {list(a)} {list(b)}")
    _, meta, _ = u.read_gguf(os.path.join(work, "b2", "model.gguf"))
    check(meta == META, f"a split without a set drops the split keys: {meta}")
    run_ok(["gguf", "shard", "merged/model.gguf", "-o", "tp", "-n", "2", "--axis", "blk.1.w=0",
            "-q"], work)
    _, meta, _ = u.read_gguf(os.path.join(work, "tp", "rank0.gguf"))
    check([k for k, _, _ in meta if k.startswith("split.")] == [], f"rank 0's keys: {meta}")
    # Ranks of split.count 0 (each merged by gguf-split) are whole models too.
    os.makedirs(os.path.join(work, "tp0"))
    for r_ in (0, 1):
        _, m, ts = u.read_gguf(os.path.join(work, "tp", f"rank{r_}.gguf"))
        u.write_gguf(os.path.join(work, "tp0", f"rank{r_}.gguf"),
                     m + [("split.no", "u16", 0), ("split.tensors.count", "i32", len(ts)),
                          ("split.count", "u16", 0)], ts)
    run_ok(["gguf", "merge", "tp0", "-o", "joined.gguf", "--axis", "blk.1.w=0", "-q"], work)
    check(open(os.path.join(work, "joined.gguf"), "rb").read() == original,
          "merge of ranks whose split.count is 0: the model's bytes")
    # split.no and split.tensors.count say nothing when split.count is 0 (llama.cpp reads
    # neither).
    write(work, "odd/model.gguf", merged_meta(no=7, total=99))
    r = run_ok(["gguf", "check", "odd/model.gguf"], work)
    check("1 file" in r.stdout, f"split.count 0, split.no 7: a whole model: {r.stdout}")
    u.expect_failure("merge of a whole model", ["gguf", "merge", "merged/model.gguf", "-o",
                                                "x.gguf"], work, 65,
                     ["merged/model.gguf is not part of a split set",
                      "its split.count is 0: a whole model"])
    u.expect_failure("merge of parts, one whole", ["gguf", "merge", "merged/model.gguf",
                                                   "model/model.gguf", "-o", "x.gguf"], work, 65,
                     ["not part of a split set (its split.count is 0"])
    write(work, "two/model.gguf", META + [("split.no", "u16", 0), ("split.count", "u16", 0)])
    u.expect_failure("two of the three keys", ["gguf", "check", "two/model.gguf"], work, 65,
                     ["has all of split.no, split.count and split.tensors.count, not 2"])
    write(work, "u32/model.gguf", META + [("split.no", "u16", 0), ("split.tensors.count", "i32", 7),
                                          ("split.count", "u32", 0)])
    u.expect_failure("split.count of another type", ["gguf", "check", "u32/model.gguf"], work, 65,
                     ["split.count is of type u32, not u16"])


def test_any_part(work):
    write(work, "model.gguf")
    run_ok(["gguf", "split", "model.gguf", "-o", "set", "-q", "--max-tensors", "3"], work)
    names = sorted(files_of(os.path.join(work, "set")))
    check(names == [f"model-0000{i}-of-00003.gguf" for i in (1, 2, 3)], f"the set: {names}")
    first = run_ok(["gguf", "check", "--json", f"set/{names[0]}"], work).stdout
    for name in names:
        for spelling in (["gguf", "check"], ["check"]):
            r = run_ok(spelling + [f"set/{name}"], work)
            check(f"3 files, {len(TENSORS)} tensors" in r.stdout and r.stderr == "",
                  f"{' '.join(spelling)} {name}: the whole set: {r.stdout} {r.stderr}")
        r = run_ok(["gguf", "check", "--json", f"set/{name}"], work)
        check(r.stdout == first, f"check --json {name}: {r.stdout}")
        r = run_ok(["gguf", "ls", f"set/{name}"], work)
        check(len(r.stdout.splitlines()) == len(TENSORS) and r.stderr == "",
              f"ls {name}: every tensor of the set")
    # Alone: the first file cannot be opened.
    os.makedirs(os.path.join(work, "lone"))
    shutil.copy(os.path.join(work, "set", names[1]), os.path.join(work, "lone", names[1]))
    for verb, out in (("check", "1 file, 3 tensors"), ("ls", "blk.3.w")):
        r = run_ok(["gguf", verb, f"lone/{names[1]}"], work)
        check(out in r.stdout, f"{verb} of a part alone: {r.stdout}")
        check(r.stderr.startswith("cleave: warning: ") and
              "is file 2 of a split set of 3" in r.stderr and
              "whose first file cannot be opened (cannot open 'lone/model-00001-of-00003.gguf'"
              in r.stderr and "reading it alone" in r.stderr,
              f"{verb}: a warning says why: {r.stderr}")
    # Alone: a name that is not gguf-split's, for a later part and for the first.
    for i, renamed in ((1, "part.gguf"), (0, "first.gguf")):
        shutil.copy(os.path.join(work, "set", names[i]), os.path.join(work, "lone", renamed))
        r = run_ok(["gguf", "check", f"lone/{renamed}"], work)
        check("1 file, 3 tensors" in r.stdout and
              f"is file {i + 1} of a split set of 3, but its name does not end with "
              f"'-0000{i + 1}-of-00003.gguf'" in r.stderr and "reading it alone" in r.stderr,
              f"check of a renamed part: {r.stdout} {r.stderr}")
    # The other verbs want the first file.
    u.expect_failure("shard of a later part", ["gguf", "shard", f"set/{names[1]}", "-o", "tp",
                                               "-n", "2", "--axis", "*=0"], work, 65,
                     ["is file 2 of a split set of 3: give the first file of the set"])
    # A first file by that name that is not the set's: an error.
    os.makedirs(os.path.join(work, "wrong"))
    shutil.copy(os.path.join(work, "set", names[2]), os.path.join(work, "wrong", names[2]))
    shutil.copy(os.path.join(work, "model.gguf"), os.path.join(work, "wrong", names[0]))
    u.expect_failure("a whole model named as the first file",
                     ["gguf", "check", f"wrong/{names[2]}"], work, 65,
                     ["is file 3 of a split set of 3", "the first file by its name, is a whole "
                      "model"])
    # A part alone that holds more tensors than its set.
    _, meta, ts = u.read_gguf(os.path.join(work, "set", names[1]))
    bad = [(k, t, 2 if k == "split.tensors.count" else v) for k, t, v in meta]
    u.write_gguf(os.path.join(work, "lone", "bad-00002-of-00003.gguf"), bad, ts)
    u.expect_failure("a part alone, more tensors than its set",
                     ["gguf", "check", "lone/bad-00002-of-00003.gguf"], work, 65,
                     ["split.tensors.count is 2 but this part alone holds 3 tensors"])


def gguf_split_cut(sizes, max_tensors=0, max_bytes=0):
    """gguf-split's rule: the tensor indices of each file."""
    files, used = [], 0
    for i, size in enumerate(sizes):
        padded = u.pad(size, 32)
        if not files or (max_tensors and len(files[-1]) == max_tensors) or \
                (max_bytes and used + padded > max_bytes):
            files.append([])
            used = 0
        files[-1].append(i)
        used += padded
    return files


def test_max_tensors(work):
    original = write(work, "model.gguf")
    sizes = [len(b) for *_, b in TENSORS]
    for n, limit in ((1, 0), (2, 0), (3, 0), (7, 0), (8, 0), (2, 2000), (3, 1300)):
        args = ["--max-tensors", str(n)] + (["--max-shard-size", str(limit)] if limit else [])
        run_ok(["gguf", "split", "model.gguf", "-o", f"n{n}_{limit}", "-q"] + args, work)
        files = files_of(os.path.join(work, f"n{n}_{limit}"))
        cut = gguf_split_cut(sizes, n, limit)
        names = [f"model-{i + 1:05d}-of-{len(cut):05d}.gguf" for i in range(len(cut))]
        check(list(files) == names, f"{' '.join(args)}: {list(files)}, expected {names}")
        for i, name in enumerate(names if list(files) == names else []):
            _, meta, ts = u.read_gguf(os.path.join(work, f"n{n}_{limit}", name))
            keys = [("split.no", "u16", i), ("split.tensors.count", "i32", len(TENSORS)),
                    ("split.count", "u16", len(cut))]
            check(meta == (META if i == 0 else []) + keys, f"{' '.join(args)} {name}: {meta}")
            check([t[0] for t in ts] == [TENSORS[k][0] for k in cut[i]],
                  f"{' '.join(args)} {name}: tensors {[t[0] for t in ts]}")
        r = run_ok(["gguf", "merge", f"n{n}_{limit}/{names[0]}", "-o", f"back{n}_{limit}.gguf",
                    "-q"], work)
        check(open(os.path.join(work, f"back{n}_{limit}.gguf"), "rb").read() == original,
              f"{' '.join(args)}: merged back, the model's bytes")
    # merge --max-tensors: a set, from a set or from ranks.
    run_ok(["gguf", "merge", "n1_0/model-00001-of-00007.gguf", "-o", "m/out.gguf", "-q",
            "--max-tensors", "3"], work)
    got = files_of(os.path.join(work, "m"))
    want = files_of(os.path.join(work, "n3_0"))
    check([n.replace("out", "model") for n in got] == list(want) and list(got.values()) ==
          list(want.values()), f"merge --max-tensors 3 of a set: {list(got)}")
    run_ok(["gguf", "shard", "model.gguf", "-o", "tp", "-n", "2", "--axis", "blk.3.w=0", "-q"],
           work)
    run_ok(["gguf", "merge", "tp", "-o", "r/out.gguf", "--axis", "blk.3.w=0", "-q",
            "--max-tensors", "3"], work)
    got = files_of(os.path.join(work, "r"))
    check(list(got.values()) == list(want.values()), f"merge of ranks --max-tensors 3: {list(got)}")
    r = run_ok(["gguf", "split", "model.gguf", "-o", "dry", "--max-tensors", "4", "--dry-run"],
               work)
    check("model-00002-of-00002.gguf" in r.stdout and
          not os.path.exists(os.path.join(work, "dry")), f"--dry-run: {r.stdout}")
    for label, args, status, fragments in (
            ("0", ["--max-tensors", "0"], 64, ["--max-tensors is 0: a file holds 1 tensor"]),
            ("negative", ["--max-tensors", "-3"], 64, ["--max-tensors is -3"]),
            ("not a number", ["--max-tensors", "x3"], 64,
             ["--max-tensors: 'x3' is not an integer"]),
            ("twice", ["--max-tensors", "2", "--max-tensors", "3"], 64,
             ["option --max-tensors is given twice"])):
        u.expect_failure(f"--max-tensors {label}", ["gguf", "split", "model.gguf", "-o", "bad"] +
                         args, work, status, fragments)
    u.expect_failure("st split --max-tensors", ["st", "split", "model.gguf", "-o", "bad",
                                                "--max-tensors", "2"], work, 64,
                     ["--max-tensors belongs to 'gguf split'"])
    u.expect_failure("shard --max-tensors", ["gguf", "shard", "model.gguf", "-o", "bad", "-n",
                                             "2", "--axis", "*=0", "--max-tensors", "2"],
                     work, 64, ["--max-tensors"])
    u.expect_failure("no rule and no size", ["gguf", "split", "model.gguf", "-o", "bad"], work, 64,
                     ["no --max-shard-size or --max-tensors"])


def test_alignment(work):
    for align in (32, 64):
        meta = META + [("general.alignment", "u32", align)]
        original = write(work, f"a{align}/model.gguf", meta)
        run_ok(["gguf", "split", f"a{align}/model.gguf", "-o", f"s{align}", "-q",
                "--max-tensors", "4"], work)
        _, later, _ = u.read_gguf(os.path.join(work, f"s{align}", "model-00002-of-00002.gguf"))
        want = ([] if align == 32 else ["general.alignment"]) + SPLIT_KEYS
        check([k for k, _, _ in later] == want, f"alignment {align}: the later file's keys "
              f"{later}")
        run_ok(["gguf", "merge", f"s{align}/model-00001-of-00002.gguf", "-o", f"m{align}.gguf",
                "-q"], work)
        check(open(os.path.join(work, f"m{align}.gguf"), "rb").read() == original,
              f"alignment {align}: merged back, the model's bytes")
