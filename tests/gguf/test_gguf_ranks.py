#!/usr/bin/python3
"""cleave gguf merge RANK... --axis (the inverse of gguf shard) and gguf reshard RANK... -n M:
shard then merge gives the model back byte for byte (a folder of ranks, the rank files named one
by one, quantized blocks, experts with their expert_count, --max-shard-size writing a set that
merges back); reshard N -> M gives every rank exactly its slices, checked against NumPy slices
of the original tensors (independent of cleave) and equal to shard -n M byte for byte; the
outputs verify; every error (a replicated tensor that differs between ranks, a tensor missing
from a rank, metadata that differs, a folder with a gap, a folder without ranks, a rank that is
a part of a split set, a cut off the quantization blocks, the command line's faults) with its
status, its message and nothing written."""
import os
import shutil

import numpy as np

import clitest
import gguf_util as u
from clitest import check

RNG = np.random.default_rng(2626)
RULES = ["--axis", "*attn_q*=0", "--axis", "*attn_output*=-1", "--axis", "*_exps*=0",
         "--axis", "*ffn_up*=0"]
# NumPy-order axis each rule cuts, for the independent slices below.
AXES = {"blk.0.attn_q.weight": 0, "blk.0.attn_output.weight": 1,
        "blk.0.ffn_gate_exps.weight": 0, "blk.0.ffn_up.weight": 0}


def quant(dtype, shape):
    _, block, size = u.TYPES[dtype]
    return dtype, shape, u.rand_bytes(RNG, int(np.prod(shape)) // block * size)


def model(work):
    """A model every rank count in (1, 2, 3, 4, 6, 12) cuts on whole blocks and experts."""
    ts = [("blk.0.attn_q.weight",) + quant("Q8_0", (12, 64)),
          ("blk.0.attn_output.weight",) + quant("F16", (4, 24)),
          ("blk.0.ffn_gate_exps.weight", "F32", (12, 2, 8),
           RNG.random((12, 2, 8), np.float32).tobytes()),
          ("blk.0.ffn_up.weight",) + quant("BF16", (24, 8)),
          ("output_norm.weight", "F32", (8,), RNG.random(8, np.float32).tobytes())]
    meta = [("general.architecture", "str", "qwen3moe"), ("general.alignment", "u32", 64),
            ("qwen3moe.expert_count", "u32", 12), ("general.name", "str", "ranks")]
    u.write_gguf(os.path.join(work, "model.gguf"), meta, ts)
    return meta, ts


def run_ok(work, args, label):
    r = u.run(args + ["-q"], work)
    check(r.returncode == 0, f"{label}: {r.returncode} {r.stderr}")
    return r


def same_bytes(a, b):
    return open(a, "rb").read() == open(b, "rb").read()


def round_trips(work):
    meta, ts = model(work)
    for n in (1, 2, 3, 4):
        run_ok(work, ["gguf", "shard", "model.gguf", "-o", f"tp{n}", "-n", str(n)] + RULES,
               f"shard -n {n}")
        run_ok(work, ["gguf", "merge", f"tp{n}", "-o", f"back{n}/model.gguf"] + RULES,
               f"merge of {n}")
        check(same_bytes(os.path.join(work, f"back{n}", "model.gguf"),
                         os.path.join(work, "model.gguf")), f"merge of {n} ranks: the model back")
        r = u.run(["gguf", "verify", f"back{n}/model.gguf", "--against", f"tp{n}"], work)
        check(r.returncode == 0, f"verify back{n}: {r.stdout} {r.stderr}")
    # Rank files named one by one, in rank order, to a file in the current folder.
    run_ok(work, ["gguf", "merge", "tp2/rank0.gguf", "tp2/rank1.gguf", "-o", "one.gguf"] + RULES,
           "merge of files")
    check(same_bytes(os.path.join(work, "one.gguf"), os.path.join(work, "model.gguf")),
          "merge of rank files: the model back")
    # In another order, or without the rules, the same: each rank records its rank and the rules.
    run_ok(work, ["gguf", "merge", "tp2/rank1.gguf", "tp2/rank0.gguf", "-o", "swapped.gguf"] +
           RULES, "merge swapped")
    check(same_bytes(os.path.join(work, "swapped.gguf"), os.path.join(work, "model.gguf")),
          "ranks in another order: taken in their recorded order")
    run_ok(work, ["merge", "tp2/rank1.gguf", "tp2/rank0.gguf", "-o", "norules.gguf"],
           "merge without rules")
    check(same_bytes(os.path.join(work, "norules.gguf"), os.path.join(work, "model.gguf")),
          "merge without rules: the recorded ones")
    # The expert count of the ranks is the model's again.
    _, m, _ = u.read_gguf(os.path.join(work, "tp4", "rank0.gguf"))
    check(dict((k, v) for k, _, v in m)["qwen3moe.expert_count"] == 3, "rank expert_count 3")
    # --max-shard-size: a set that gguf merge (of a set) gives back as the model.
    run_ok(work, ["gguf", "merge", "tp4", "-o", "set/model.gguf", "--max-shard-size", "1K"] +
           RULES, "merge to a set")
    files = sorted(f for f in os.listdir(os.path.join(work, "set")) if f.endswith(".gguf"))
    n = len(files)
    check(n > 1 and files[0] == f"model-00001-of-{n:05d}.gguf", f"the set: {files}")
    run_ok(work, ["gguf", "merge", f"set/model-00001-of-{n:05d}.gguf", "-o", "whole.gguf"],
           "merge of the set")
    check(same_bytes(os.path.join(work, "whole.gguf"), os.path.join(work, "model.gguf")),
          "set of the merged ranks: the model back")


def slices(ts, ranks):
    """Each rank's bytes of each tensor, cut by NumPy from the original (independent of cleave)."""
    out = [{} for _ in range(ranks)]
    for name, dtype, shape, raw in ts:
        for r in range(ranks):
            if name not in AXES:
                out[r][name] = raw
                continue
            rows = u.rows(raw, shape, AXES[name], dtype)
            k = rows.shape[1] // ranks
            out[r][name] = rows[:, r * k:(r + 1) * k].tobytes()
    return out


def reshards(work):
    _, ts = model(work)
    for n in (2, 4):
        run_ok(work, ["gguf", "shard", "model.gguf", "-o", f"tp{n}", "-n", str(n)] + RULES,
               f"shard -n {n}")
    for n, m in [(2, 4), (4, 2), (2, 1), (4, 6), (2, 3), (4, 12)]:
        out = f"re{n}to{m}"
        run_ok(work, ["gguf", "reshard", f"tp{n}", "-o", out, "-n", str(m)] + RULES,
               f"reshard {n} -> {m}")
        want = slices(ts, m)
        for r in range(m):
            _, _, got = u.read_gguf(os.path.join(work, out, f"rank{r}.gguf"))
            check({t[0]: t[3] for t in got} == want[r], f"reshard {n} -> {m}: rank {r}'s slices")
        run_ok(work, ["gguf", "shard", "model.gguf", "-o", f"direct{m}", "-n", str(m)] + RULES,
               f"shard -n {m}")
        for r in range(m):
            check(same_bytes(os.path.join(work, out, f"rank{r}.gguf"),
                             os.path.join(work, f"direct{m}", f"rank{r}.gguf")),
                  f"reshard {n} -> {m}: rank {r} is shard -n {m}'s")
        r = u.run(["gguf", "verify", out, "--against", f"tp{n}"], work)
        check(r.returncode == 0, f"verify {out}: {r.stdout} {r.stderr}")


def stale(work):
    """A second shard into the same folder with fewer ranks: the earlier run's other ranks are
    named in a warning (a merge of the folder would read them with the new ones) and left as
    they are; a merge to a file in a folder of other .gguf files warns of nothing."""
    model(work)
    run_ok(work, ["gguf", "shard", "model.gguf", "-o", "tp", "-n", "4"] + RULES, "shard -n 4")
    r = u.run(["gguf", "shard", "model.gguf", "-o", "tp", "-n", "2", "-f", "-q"] + RULES, work)
    check(r.returncode == 0 and r.stderr ==
          "cleave: warning: gguf shard: 'tp/rank2.gguf' and 'tp/rank3.gguf' are not among this "
          "run's outputs (it wrote 3 files) and were left as they were; delete them if an earlier "
          "run left them (a loader of the folder would read them with the new files)\n",
          f"leftover ranks: {r.returncode} {r.stderr!r}")
    check(sorted(os.listdir(os.path.join(work, "tp"))) ==
          ["cleave-manifest.json", "rank0.gguf", "rank1.gguf", "rank2.gguf", "rank3.gguf"],
          "the leftovers are left")
    r = u.run(["gguf", "merge", "tp/rank0.gguf", "tp/rank1.gguf", "-o", "tp/merged.gguf", "-q"] +
              RULES, work)
    check(r.returncode == 0 and r.stderr == "", f"merge beside the ranks: {r.stderr!r}")


def write_ranks(work, folder, ranks):
    os.makedirs(os.path.join(work, folder))
    for r, (meta, ts) in enumerate(ranks):
        u.write_gguf(os.path.join(work, folder, f"rank{r}.gguf"), meta, ts)


def errors(work):
    meta, ts = model(work)
    run_ok(work, ["gguf", "shard", "model.gguf", "-o", "tp", "-n", "2"] + RULES, "shard")
    ranks = [u.read_gguf(os.path.join(work, "tp", f"rank{r}.gguf")) for r in range(2)]
    ranks = [(m, t) for _, m, t in ranks]

    def variant(folder, fn):
        shutil.rmtree(os.path.join(work, folder), ignore_errors=True)
        copy = [(list(m), list(t)) for m, t in ranks]
        fn(copy)
        write_ranks(work, folder, copy)

    def flip_norm(c):
        name, dtype, shape, raw = c[1][1][-1]
        c[1][1][-1] = (name, dtype, shape, bytes([raw[0] ^ 1]) + raw[1:])

    variant("differ", flip_norm)
    for cmd in (["merge", "differ", "-o", "out.gguf"], ["reshard", "differ", "-o", "out", "-n",
                                                        "1"]):
        u.expect_failure(f"{cmd[0]}: a replicated tensor differs", ["gguf"] + cmd + RULES, work,
                         65, ["output_norm.weight", "rank"])
    variant("missing", lambda c: c[1][1].pop(-1))
    u.expect_failure("a tensor missing from a rank",
                     ["gguf", "merge", "missing", "-o", "out.gguf"] + RULES, work, 65,
                     ["output_norm.weight", "rank 1"])

    def rename(c):
        c[1][0][3] = ("general.name", "str", "other")

    variant("meta", rename)
    u.expect_failure("metadata differs", ["gguf", "merge", "meta", "-o", "out.gguf"] + RULES,
                     work, 65, ["general.name", "differs between the ranks"])
    os.makedirs(os.path.join(work, "gap"))
    shutil.copy(os.path.join(work, "tp", "rank0.gguf"), os.path.join(work, "gap", "rank0.gguf"))
    shutil.copy(os.path.join(work, "tp", "rank1.gguf"), os.path.join(work, "gap", "rank2.gguf"))
    u.expect_failure("a gap", ["gguf", "merge", "gap", "-o", "out.gguf"] + RULES, work, 65,
                     ["holds ranks up to rank2.gguf but not rank1.gguf"])
    os.makedirs(os.path.join(work, "empty"))
    u.expect_failure("no ranks", ["gguf", "reshard", "empty", "-o", "out", "-n", "2"] + RULES,
                     work, 66, ["holds no rank<R>.gguf (the files gguf shard writes)"])
    run_ok(work, ["gguf", "split", "model.gguf", "-o", "set", "--max-shard-size", "1K"], "a set")
    first = sorted(f for f in os.listdir(os.path.join(work, "set")) if f.endswith(".gguf"))[0]
    u.expect_failure("a rank from a split set",
                     ["gguf", "merge", f"set/{first}", "tp/rank1.gguf", "-o", "out.gguf"] + RULES,
                     work, 65, ["rank 0", "is a file of a split set"])
    u.expect_failure("off the blocks", ["gguf", "reshard", "tp", "-o", "out", "-n", "8"] + RULES,
                     work, 65, ["blk.0.attn_q.weight", "Q8_0"])
    # Ranks another tool wrote (no record): merge and reshard need their rules.
    write_ranks(work, "norec", [([x for x in m if not x[0].startswith("cleave.")], t)
                                for m, t in ranks])
    usage = [
        (["merge", "tp", "-o", "out.gguf", "-n", "2"] + RULES, ["-n belongs to"]),
        (["merge", "tp", "-o", "out.gguf", "--view", "x=2,-1"],
         ["the rules given (--view 'x=2,-1') are not those the ranks record"]),
        (["merge", "tp"] + RULES, ["-o OUT.gguf is missing"]),
        (["reshard", "tp", "-o", "out"] + RULES, ["-n RANKS is missing"]),
        (["reshard", "norec", "-o", "out", "-n", "2"], ["no --axis GLOB=AXIS rule"]),
        (["reshard", "-o", "out", "-n", "2"] + RULES, ["the RANK checkpoints are missing"]),
        (["reshard", "tp", "-n", "2"] + RULES, ["-o OUTDIR is missing"]),
        (["reshard", "tp", "-o", "out", "-n", "2", "--max-shard-size", "1M"] + RULES,
         ["--max-shard-size belongs to"]),
        (["reshard", "tp", "-o", "out", "-n", "0"] + RULES, ["-n RANKS must be from 1 to 4096"]),
        (["reshard", "tp", "-o", "out", "-n", "2", "--axis", "x"], ["'x' is not GLOB=VALUE"]),
        (["reshard", "tp", "-o", "out", "-n", "2", "--tensor", "x"] + RULES,
         ["belongs to 'gguf split'"]),
    ]
    for args, fragments in usage:
        u.expect_failure(" ".join(args[:2]), ["gguf"] + args, work, 64, fragments)
    r = u.run(["gguf", "reshard", "--help"], work)
    check(r.returncode == 0 and r.stdout.startswith("usage: cleave gguf reshard RANK..."),
          f"reshard --help: {r.stdout[:60]!r}")


@clitest.groups(("round_trips", round_trips), ("reshards", reshards), ("stale", stale),
                ("errors", errors))
def test_gguf_ranks(group, work):
    group(work)
