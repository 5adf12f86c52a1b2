#!/usr/bin/python3
"""Every error of cleave st merge and st reshard: the status, the message (naming the tensor, the
rank and its file, the dimension or byte at fault) and nothing written or left behind, in the
order of docs/cli.md (64 the command line, 66 an input, 65 a rule, 73 the outputs)."""
import os
import shutil

import numpy as np

import clitest
import st_util as u
from clitest import check


def ranks(work, tensors_per_rank, metadata=None):
    """Writes r0.safetensors, r1.safetensors... from arrays; returns their names."""
    names = []
    for r, arrays in enumerate(tensors_per_rank):
        name = f"r{r}.safetensors"
        u.write_st(os.path.join(work, name), {k: u.array_tensor(v) if isinstance(v, np.ndarray)
                                              else v for k, v in arrays.items()},
                   metadata[r] if metadata else None)
        names.append(name)
    return names


def good(r):
    return {"a": np.arange(8, dtype=np.float32).reshape(2, 4) + r,
            "n": np.arange(4, dtype=np.float32)}


def test_usage(work):
    files = ranks(work, [good(0), good(1)])
    merge = ["st", "merge"] + files
    cases = [
        ("no RANK", ["st", "merge", "-o", "out", "--axis", "a=0"], ["the RANK checkpoints are "
                                                                     "missing"]),
        ("no -o", merge + ["--axis", "a=0"], ["st merge: -o OUTDIR is missing"]),
        ("no --axis", merge + ["-o", "out"], ["st merge: no --axis GLOB=AXIS rule"]),
        ("merge -n", merge + ["-o", "out", "--axis", "a=0", "-n", "2"],
         ["-n belongs to 'st reshard'"]),
        ("reshard without -n", ["st", "reshard"] + files + ["-o", "out", "--axis", "a=0"],
         ["st reshard: -n RANKS is missing"]),
        ("reshard -n 0", ["st", "reshard"] + files + ["-o", "out", "--axis", "a=0", "-n", "0"],
         ["-n RANKS must be from 1 to 4096, not 0"]),
        ("reshard --max-shard-size", ["st", "reshard"] + files +
         ["-o", "out", "-n", "2", "--axis", "a=0", "--max-shard-size", "1GB"],
         ["st reshard: --max-shard-size belongs to 'st merge' and 'st split'"]),
        ("shard --max-shard-size", ["st", "shard", files[0], "-o", "out", "-n", "2", "--axis",
                                    "a=0", "--max-shard-size", "1GB"],
         ["st shard: --max-shard-size belongs"]),
        ("--axis without =", merge + ["-o", "out", "--axis", "a"], ["--axis 'a' is not GLOB=VALUE"]),
        ("--axis not a number", merge + ["-o", "out", "--axis", "a=x"], ["'x' is not an integer"]),
        ("--view not a shape", merge + ["-o", "out", "--axis", "a=0", "--view", "a=2,x"],
         ["st merge: --view 'a=2,x': '2,x' is not a shape"]),
        ("--unmatched", merge + ["-o", "out", "--axis", "a=0", "--unmatched", "maybe"],
         ["--unmatched is 'replicate' or 'error', not 'maybe'"]),
        ("split's options", merge + ["-o", "out", "--axis", "a=0", "--tensor", "a"],
         ["--tensor belongs to 'st split'"]),
        ("unknown option", merge + ["-o", "out", "--axis", "a=0", "--bogus"], ["--bogus"]),
    ]
    for size in ["5XB", "0", "0.0001KB", "GB", "1e3MB", "-1GB", ".GB", "1.5.GB", "5 GB", "",
                 "99999999999TB"]:
        cases.append((f"--max-shard-size '{size}'", merge + ["-o", "out", "--axis", "a=0",
                                                             "--max-shard-size", size],
                      [f"--max-shard-size '{size}' is not a size"]))
    for label, args, frags in cases:
        u.expect_failure(label, args, work, 64, frags)
    # The command line comes first: a usage error beats a missing input. A merge without rules
    # is no usage error (recorded ranks give their rules): the missing input is 66.
    u.expect_failure("usage before input", ["st", "merge", "nope.safetensors", "-o", "out", "-n",
                                            "2"], work, 64, ["-n belongs to"])
    u.expect_failure("no rules, no input", ["st", "merge", "nope.safetensors", "-o", "out"], work,
                     66, ["nope.safetensors"])


def test_inputs(work):
    files = ranks(work, [good(0), good(1)])
    base = ["-o", "out", "--axis", "a=0"]
    u.expect_failure("missing rank file", ["st", "merge", files[0], "nope.safetensors"] + base,
                     work, 66, ["cannot open 'nope.safetensors'"])
    os.makedirs(os.path.join(work, "empty"))
    with open(os.path.join(work, "empty", "config.json"), "w") as f:
        f.write("{}")
    u.expect_failure("folder without ranks", ["st", "merge", "empty"] + base, work, 66,
                     ["the folder 'empty' holds no rank<R>.safetensors"])
    u.expect_failure("missing folder", ["st", "reshard", "nope/", "-n", "2"] + base, work, 66,
                     ["nope"])
    # A gap in a rank folder; names that are not rank<R>.safetensors are ignored.
    gap = os.path.join(work, "gap")
    os.makedirs(gap)
    for r in (0, 1, 3):
        shutil.copy(os.path.join(work, files[0]), os.path.join(gap, f"rank{r}.safetensors"))
    for other in ("rank02.safetensors", "rank-1.safetensors", "rankx.safetensors",
                  "rank.safetensors", "rank2.safetensors.bak"):
        shutil.copy(os.path.join(work, files[0]), os.path.join(gap, other))
    u.expect_failure("gap", ["st", "merge", "gap"] + base, work, 65,
                     ["the folder 'gap' holds ranks up to rank3.safetensors but not "
                      "rank2.safetensors"])
    big = os.path.join(work, "big")
    os.makedirs(big)
    shutil.copy(os.path.join(work, files[0]), os.path.join(big, "rank4096.safetensors"))
    u.expect_failure("rank beyond the limit", ["st", "merge", "big"] + base, work, 65,
                     ["holds ranks beyond rank4095"])
    with open(os.path.join(work, "bad.safetensors"), "wb") as f:
        f.write(b"\x02\x00\x00\x00\x00\x00\x00\x00{}x")
    u.expect_failure("invalid rank", ["st", "merge", files[0], "bad.safetensors"] + base, work, 65,
                     ["bad.safetensors"])


def test_rules(work):
    """The rules of joining (Concat-1) and of replicated tensors."""
    def case(label, per_rank, args, frags, metadata=None, chunk=None):
        d = os.path.join(work, label.replace(" ", "_"))
        os.makedirs(d)
        files = ranks(d, per_rank, metadata)
        env = dict(os.environ, CLEAVE_CHUNK_BYTES=str(chunk)) if chunk else None
        for verb, extra in (("merge", []), ("reshard", ["-n", "2"])):
            before = u.snapshot(d)
            r = clitest.subprocess.run([u.CLEAVE, "st", verb] + files + ["-o", "out"] + extra +
                                       args, cwd=d, capture_output=True, text=True, env=env)
            check(r.returncode == 65, f"{label} ({verb}): status {r.returncode}: {r.stderr}")
            lines = r.stderr.splitlines()
            check(len(lines) == 1 and lines[0].startswith("cleave: error: "),
                  f"{label} ({verb}): {r.stderr!r}")
            for frag in frags:
                check(frag in r.stderr, f"{label} ({verb}): '{frag}' not in {r.stderr.strip()!r}")
            check(u.snapshot(d) == before, f"{label} ({verb}): something was written")

    g = [good(r) for r in range(3)]
    axis = ["--axis", "a=0"]
    case("missing from a rank", [g[0], {"a": g[1]["a"]}, g[2]], axis,
         ["st ", "tensor 'n' is in rank 0 ('r0.safetensors') but missing from rank 1 "
          "('r1.safetensors')"])
    case("missing from rank 0", [g[0], g[1], dict(g[2], extra=np.ones(2, np.int8))], axis,
         ["tensor 'extra' is in rank 2 ('r2.safetensors') but missing from rank 0 "
          "('r0.safetensors')"])
    case("replicated dtype", [g[0], g[1], dict(g[2], n=np.arange(4, dtype=np.float16))], axis,
         ["rank 2 ('r2.safetensors'): tensor 'n' is F16 [4] but F32 [4] in rank 0 "
          "('r0.safetensors'); a tensor no --axis rule takes must be the same in every rank"])
    case("replicated shape", [g[0], dict(g[1], n=np.zeros((2, 2), np.float32)), g[2]], axis,
         ["rank 1 ('r1.safetensors'): tensor 'n' is F32 [2,2] but F32 [4] in rank 0"])
    # Bytes: rank 2 differs at byte 3 and rank 1 at byte 10; the first rank is named, with its
    # first differing byte, also when the difference is past the first chunk.
    n1, n2 = np.arange(4, dtype=np.float32), np.arange(4, dtype=np.float32)
    n1.view(np.uint8)[10] ^= 1
    n2.view(np.uint8)[3] ^= 1
    case("replicated bytes", [g[0], dict(g[1], n=n1), dict(g[2], n=n2)], axis,
         ["tensor 'n' differs between rank 0 ('r0.safetensors') and rank 1 ('r1.safetensors'), "
          "first at byte 10 of its 16; a tensor no --axis rule takes must be the same in every "
          "rank"])
    wide = np.arange(100, dtype=np.int32)
    far = wide.copy()
    far.view(np.uint8)[333] ^= 0x80
    case("replicated bytes past a chunk", [dict(g[0], w=wide), dict(g[1], w=far)], axis,
         ["tensor 'w' differs between rank 0 ('r0.safetensors') and rank 1 ('r1.safetensors'), "
          "first at byte 333 of its 400"], chunk=64)
    case("joined dtype", [g[0], dict(g[1], a=g[1]["a"].astype(np.float16))], axis,
         ["rank 1 ('r1.safetensors'): tensor 'a' is F16 but F32 in rank 0 ('r0.safetensors')"])
    case("joined rank", [g[0], dict(g[1], a=np.zeros((2, 4, 1), np.float32))], axis,
         ["rank 1 ('r1.safetensors'): tensor 'a' is F32 [2,4,1] but F32 [2,4] in rank 0",
          "one number of dimensions (Concat-1)"])
    case("joined dims", [g[0], dict(g[1], a=np.zeros((2, 5), np.float32))], axis,
         ["rank 1 ('r1.safetensors'): tensor 'a' is [2,5] but [2,4] in rank 0 ('r0.safetensors'):"
          " dimension 1 differs, and only the axis (0) may (Concat-1)"])
    case("joined dims of views", [g[0], dict(g[1], a=np.zeros((3, 4), np.float32))],
         ["--view", "a=2,-1", "--axis", "a=0"],
         ["rank 1 ('r1.safetensors'): tensor 'a' is viewed as [1,12] but [1,8] in rank 0",
          "dimension 1 differs"])
    case("axis out of range", g[:2], ["--axis", "a=2"],
         ["tensor 'a' (F32 [2,4]): axis 2 is out of range [-2, 1] for tensors of 2 dimensions"])
    case("view does not fit", g[:2], ["--view", "a=3,-1", "--axis", "a=1"],
         ["rank 0 ('r0.safetensors'): tensor 'a' (F32 [2,4]) does not fit the view [3,-1]: its 8 "
          "elements are not a multiple of 3"])
    case("view's axis size", g[:2], ["--view", "a=5,4", "--axis", "a=0"],
         ["tensor 'a': the view [5,4] gives axis 0 the size 5, but the 2 ranks' parts hold 4 "
          "along it"])
    case("view's axis shared", g[:2], ["--view", "a=3,-1", "--axis", "a=0"],
         ["tensor 'a': the view [3,-1] gives axis 0 the size 3, which 2 ranks cannot hold in equal "
          "parts"])
    f4odd = ("F4", (2, 1), b"\x12")
    case("F4 row of 4 bits", [dict(g[0], q=f4odd), dict(g[1], q=f4odd)],
         ["--axis", "a=0", "--axis", "q=1"],
         ["rank 0 ('r0.safetensors'): tensor 'q' (F4 [2,1]): a row of it along axis 1 holds 4 "
          "bits, so the parts cannot be joined on byte boundaries"])
    case("rule matches nothing", g[:2], ["--axis", "a=0", "--axis", "zz=0"],
         ["--axis rule 2: no tensor matches 'zz'"])
    case("replicate matches nothing", g[:2], ["--axis", "a=0", "--replicate", "zz"],
         ["--replicate rule 1: no tensor matches 'zz'"])
    case("unmatched error", g[:2], ["--axis", "a=0", "--unmatched", "error"],
         ["tensor 'n' matches no --axis or --replicate rule (--unmatched error)"])
    # A hostile name stays on one line, its control characters made inert.
    evil = "evil\n\x1b[31mred"
    case("hostile name", [dict(g[0], **{evil: np.ones(1, np.int8)}), g[1]], axis,
         ["tensor 'evil??[31mred' is in rank 0"])
    case("metadata", g[:2], axis, ["__metadata__ 'format' differs between the ranks ('np' in "
                                   "'r1.safetensors')"],
         metadata=[{"format": "pt"}, {"format": "np"}])


def test_outputs(work):
    files = ranks(work, [good(0), good(1)])
    args = ["st", "merge"] + files + ["-o", "out", "--axis", "a=0", "-q"]
    r = u.run(args, work)
    check(r.returncode == 0, f"merge: {r.stderr}")
    u.expect_failure("output exists", args, work, 73, ["output 'out/model.safetensors' exists",
                                                       "-f"])
    r = u.run(args + ["-f"], work)
    check(r.returncode == 0 and not clitest.temporaries(work), f"merge -f: {r.stderr}")
    # An output folder that holds a rank: refused, -f or not (the outputs would land among the
    # inputs).
    shutil.copy(os.path.join(work, files[0]), os.path.join(work, "model.safetensors"))
    for force in ([], ["-f"]):
        u.expect_failure(f"output holds a rank {force}",
                         ["st", "merge", "model.safetensors", files[1], "-o", ".", "--axis",
                          "a=0"] + force, work, 64, ["-o '.' holds the input 'model.safetensors'"])
    # A replicated tensor that differs is a rule of the input: 65 before the output's 73.
    n = np.arange(4, dtype=np.float32)
    n[0] = 9
    u.write_st(os.path.join(work, "bad1.safetensors"), {"a": u.array_tensor(good(1)["a"]),
                                                        "n": u.array_tensor(n)})
    u.expect_failure("65 before 73", ["st", "merge", files[0], "bad1.safetensors", "-o", "out",
                                      "--axis", "a=0"], work, 65, ["tensor 'n' differs"])
