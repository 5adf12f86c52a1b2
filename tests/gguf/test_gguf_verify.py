#!/usr/bin/python3
"""cleave gguf verify OUTDIR [--against MODEL...]: the outputs of gguf split (one file and a
split set), shard and merge verify, with and without --against; a flipped tensor byte and a
truncation are found naming the file and the tensor (with --against, the first differing byte,
at an offset the test finds itself); a broken GGUF header is reported by the reader's check
(what `st verify` cannot say of a GGUF file); a manifest that contradicts a header it matches
the checksum of is 65; the command line's errors (status, message, nothing on stdout). verify
never writes."""
import json
import os
import shutil

import numpy as np

import clitest
import gguf_util as u
from clitest import check

RNG = np.random.default_rng(2525)
NAME = "cleave-manifest.json"


def model(work):
    """A small GGUF model: F32 and F16 tensors, one fused for split."""
    ts = [("blk.0.attn_qkv.weight", "F32", (6, 8), u.rand_bytes(RNG, 6 * 8 * 4)),
          ("blk.0.ffn_down.weight", "F16", (8, 4), u.rand_bytes(RNG, 8 * 4 * 2)),
          ("output_norm.weight", "F32", (8,), u.rand_bytes(RNG, 8 * 4))]
    u.write_gguf(os.path.join(work, "model.gguf"), [("general.architecture", "str", "llama")], ts)
    return ts


def verify(work, args):
    before = clitest.snapshot(work)
    r = u.run(["gguf", "verify"] + args, work)
    check(clitest.snapshot(work) == before, f"verify {args} changed files")
    return r


def fresh(work, out, args):
    shutil.rmtree(os.path.join(work, out), ignore_errors=True)
    r = u.run(args, work)
    check(r.returncode == 0, f"{args}: {r.stderr}")


RUNS = [
    ("parts", ["gguf", "split", "model.gguf", "-o", "parts", "--tensor",
               "blk.0.attn_qkv.weight", "-a", "0", "-n", "3", "--into", "q,k,v"], ["model.gguf"]),
    ("set", ["gguf", "split", "model.gguf", "-o", "set", "--max-shard-size", "200B"],
     ["model.gguf"]),
    ("tp", ["gguf", "shard", "model.gguf", "-o", "tp", "-n", "2", "--axis",
            "blk.0.attn_qkv.weight=0", "--axis", "blk.0.ffn_down.weight=1"], ["model.gguf"]),
    ("merged", ["gguf", "merge", "set/model-00001-of-00002.gguf", "-o", "merged/model.gguf"],
     ["set"]),
]

# What verify is given for each run: its folder, or the one file a merge wrote among others,
# whose manifest is beside it, named after it.
TARGETS = {"merged": "merged/model.gguf"}


def manifest_of(target):
    return target + ".cleave-manifest.json" if target.endswith(".gguf") else \
        os.path.join(target, NAME)


def clean(work):
    model(work)
    for out, args, inputs in RUNS:
        fresh(work, out, args)
        if out == "set":
            check(len(os.listdir(os.path.join(work, "set"))) == 3, "a set of two files")
        out = TARGETS.get(out, out)
        r = verify(work, [out])
        check(r.returncode == 0 and "as the manifest says" in r.stdout,
              f"{out}: {r.returncode} {r.stdout} {r.stderr}")
        r = verify(work, [out, "--against"] + inputs)
        check(r.returncode == 0 and "equal to the inputs" in r.stdout,
              f"{out} --against: {r.returncode} {r.stdout} {r.stderr}")
        r = verify(work, [out, "--json", "-q"])
        if check(r.returncode == 0, f"{out} --json: {r.stderr}"):
            j = json.loads(r.stdout)
            listed = json.load(open(os.path.join(work, manifest_of(out))))["files"]
            check(j["command"] == "gguf verify" and j["ok"] is True and
                  j["differences"] == [] and j["files"] == len(listed),
                  f"{out} --json: {j}")
        r = verify(work, [out, "-q"])
        check(r.returncode == 0 and r.stdout == "", f"{out} -q: {r.stdout!r}")


def flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x20]))


def differences(work):
    model(work)
    fresh(work, "tp", RUNS[2][1])
    rank1 = os.path.join(work, "tp", "rank1.gguf")
    good = open(rank1, "rb").read()
    # The test finds the tensor's bytes itself, from its own reader of the file.
    _, _, tensors = u.read_gguf(rank1)
    name, _, _, raw = tensors[1]
    at = good.find(raw)
    check(at > 0 and good.find(raw, at + 1) < 0, "the tensor's bytes are found once")
    flip(rank1, at + 5)
    r = verify(work, ["tp"])
    check(r.returncode == 1 and f"rank1.gguf: tensor '{name}'" in r.stdout,
          f"a flipped byte: {r.returncode} {r.stdout}")
    r = verify(work, ["tp", "--against", "model.gguf"])
    check(r.returncode == 1 and f"byte {at + 5} of the file, byte 5 of the tensor" in r.stdout,
          f"a flipped byte, --against: {r.stdout}")
    r = verify(work, ["tp", "--json"])
    if check(r.returncode == 1, f"--json: {r.returncode}"):
        j = json.loads(r.stdout)
        check(j["ok"] is False and any(x.get("tensor") == name for x in j["differences"]),
              f"--json: {j}")
    open(rank1, "wb").write(good[:at + 3])
    r = verify(work, ["tp"])
    check(r.returncode == 1 and "rank1.gguf" in r.stdout and str(at + 3) in r.stdout,
          f"a truncation: {r.stdout}")
    open(rank1, "wb").write(b"GGUX" + good[4:])
    r = verify(work, ["tp"])
    check(r.returncode == 1 and "rank1.gguf: fails its check" in r.stdout and
          "magic" in r.stdout, f"a broken header: {r.stdout}")
    open(rank1, "wb").write(good)
    check(verify(work, ["tp"]).returncode == 0, "restored")


def errors(work):
    model(work)
    fresh(work, "tp", RUNS[2][1])
    mpath = os.path.join(work, "tp", NAME)
    good = open(mpath).read()

    def case(label, change, status, fragments, extra=()):
        open(mpath, "w").write(good)
        change()
        r = u.expect_failure(label, ["gguf", "verify", "tp"] + list(extra), work, status,
                             fragments)
        check(r.stdout == "", f"{label}: stdout {r.stdout!r}")

    def rename(m):
        m["files"][0]["tensors"][0]["name"] = "zzz"

    def edit(fn):
        m = json.loads(good)
        fn(m)
        clitest.write_manifest(mpath, m)  # its checksum of itself recomputed

    case("a name", lambda: edit(rename), 65,
         ["the manifest does not match", "rank0.gguf", "tensors[0]", "name"])
    case("not JSON", lambda: open(mpath, "w").write(good[:30]), 65,
         ["cleave-manifest.json: line 1, column"])
    case("no manifest", lambda: os.remove(mpath), 66, ["cannot open the manifest"])
    case("an input missing", lambda: None, 66,
         ["the input 'model.gguf' of the manifest is not among"], ["--against", "tp"])
    case("unknown option", lambda: None, 64, ["gguf verify: unknown option"], ["--bad"])
    open(mpath, "w").write(good)
    u.expect_failure("two folders", ["gguf", "verify", "tp", "tp"], work, 64,
                     ["unexpected argument 'tp'"])
    u.expect_failure("none", ["gguf", "verify"], work, 64, ["gguf verify: the OUTDIR",
                                                            "is missing"])
    r = u.run(["gguf", "verify", "--help"], work)
    check(r.returncode == 0 and r.stdout.startswith("usage: cleave gguf verify OUTDIR"),
          f"--help: {r.returncode} {r.stdout[:80]!r}")


@clitest.groups(("clean", clean), ("differences", differences), ("errors", errors))
def test_gguf_verify(group, work):
    group(work)
