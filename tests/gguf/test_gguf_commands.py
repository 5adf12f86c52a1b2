#!/usr/bin/python3
"""cleave gguf ls|check|split|shard|merge on files made by the independent writer of
gguf_util.py: every metadata type listed exactly, quantized tensors sized and cut by their
blocks (row splits equal the block rows; the innermost axis only on block boundaries), F32 parts
equal NumPy's slicing, shard ranks valid with the input's metadata and alignment, split sets
written as gguf-split names them and merged back byte for byte, the metadata counts updated."""
import json
import os
import random
import shutil

import numpy as np

import clitest
import gguf_util as u
from clitest import check

RNG = np.random.default_rng(2026)

EVERY_TYPE = [
    ("general.architecture", "str", "llama"),
    ("general.name", "str", "tiny \u00e9l\u00e8ve \U0001f600"),
    ("t.u8", "u8", 255), ("t.i8", "i8", -128), ("t.u16", "u16", 65535), ("t.i16", "i16", -32768),
    ("t.u32", "u32", 4294967295), ("t.i32", "i32", -2147483648), ("t.f32", "f32", 0.1),
    ("t.bool", "bool", True), ("t.false", "bool", False), ("t.empty", "str", ""),
    ("t.u64", "u64", 18446744073709551615), ("t.i64", "i64", -9223372036854775808),
    ("t.f64", "f64", 2.0 ** -1074),
    ("t.arr.u8", "arr", ("u8", [0, 1, 255])), ("t.arr.i8", "arr", ("i8", [-1, 2])),
    ("t.arr.u16", "arr", ("u16", [7])), ("t.arr.i16", "arr", ("i16", [-7, 7])),
    ("t.arr.u32", "arr", ("u32", [1, 2, 3])), ("t.arr.i32", "arr", ("i32", [-5])),
    ("t.arr.f32", "arr", ("f32", [0.5, -2.25])), ("t.arr.bool", "arr", ("bool", [True, False])),
    ("t.arr.str", "arr", ("str", ["a", "", "tab\there", "\u00fc"])),
    ("t.arr.u64", "arr", ("u64", [2 ** 64 - 1])), ("t.arr.i64", "arr", ("i64", [-(2 ** 63)])),
    ("t.arr.f64", "arr", ("f64", [1e300, -0.0])), ("t.arr.empty", "arr", ("i32", [])),
    ("llama.block_count", "u32", 1),
]


def quant(dtype, shape):
    return (dtype, tuple(shape), u.rand_bytes(RNG, u.nbytes(dtype, shape)))


def tensors_of_many_types():
    out = [("f32", "F32", (3, 8), RNG.random((3, 8), dtype=np.float32).tobytes())]
    shapes = {"F16": (4, 6), "BF16": (2, 5), "F64": (3,), "I8": (2, 3), "I16": (4,), "I32": (2, 2),
              "I64": (1, 3), "Q4_0": (3, 64), "Q4_1": (2, 32), "Q5_0": (2, 32), "Q5_1": (1, 32),
              "Q8_0": (4, 96), "Q2_K": (2, 256), "Q3_K": (1, 256), "Q4_K": (4, 512),
              "Q5_K": (2, 256), "Q6_K": (6, 256), "Q8_K": (1, 256), "IQ2_XXS": (1, 256),
              "IQ4_NL": (2, 64), "IQ4_XS": (1, 256), "TQ1_0": (1, 256), "MXFP4": (2, 64),
              "NVFP4": (1, 128), "Q1_0": (1, 128)}
    for dtype, shape in shapes.items():
        out.append((dtype.lower(),) + quant(dtype, shape))
    return out


def float_text(vtype, v):
    return "%.9g" % np.float32(v) if vtype == "f32" else "%.17g" % v


def json_value(vtype, v):
    # Numbers are JSON numbers: a float with the digits that read back to its value.
    if vtype in ("f32", "f64"):
        return float(float_text(vtype, v))
    if vtype == "arr":
        elem, items = v
        return [json_value(elem, x) for x in items]
    return v


def listing(work):
    ts = tensors_of_many_types()
    u.write_gguf(os.path.join(work, "every.gguf"), EVERY_TYPE, ts)
    r = u.run(["gguf", "check", "every.gguf"], work)
    data = sum(len(t[3]) for t in ts)
    check(r.returncode == 0 and r.stdout == f"every.gguf: ok: GGUF v3, 1 file, {len(ts)} tensors, "
          f"{data} bytes of data, {len(EVERY_TYPE)} metadata entries\n", f"check: {r.stdout!r}")
    r = u.run(["gguf", "ls", "--metadata", "--json", "every.gguf"], work)
    check(r.returncode == 0, f"ls --json: {r.stderr}")
    got = json.loads(r.stdout)
    want_meta = [{"key": k, "type": (f"arr[{v[0]},{len(v[1])}]" if t == "arr" else t),
                  "value": json_value(t, v), "file": "every.gguf"} for k, t, v in EVERY_TYPE]
    check(got["metadata"] == want_meta, "ls --metadata --json: " + str(
        [(a, b) for a, b in zip(got["metadata"], want_meta) if a != b][:3]))
    want_tensors = sorted(({"name": n, "dtype": d, "shape": list(s), "bytes": len(raw)}
                           for n, d, s, raw in ts), key=lambda x: x["name"].encode())
    check([{k: t[k] for k in ("name", "dtype", "shape", "bytes")} for t in got["tensors"]] ==
          want_tensors, "ls --json tensors")
    # Each tensor's offset points at its bytes.
    blob = open(os.path.join(work, "every.gguf"), "rb").read()
    by_name = {n: raw for n, _, _, raw in ts}
    check(all(blob[t["offset"]:t["offset"] + t["bytes"]] == by_name[t["name"]]
              for t in got["tensors"]), "ls --json offsets")
    # The text listing: scalars exactly, floats with round-trip digits, arrays cut at 8.
    r = u.run(["gguf", "ls", "--metadata", "every.gguf"], work)
    lines = r.stdout.splitlines()
    check(lines[0] == "general.architecture\tstr\tllama\tevery.gguf", f"text: {lines[0]!r}")
    check("t.i64\ti64\t-9223372036854775808\tevery.gguf" in lines, "text i64")
    check("t.f32\tf32\t0.100000001\tevery.gguf" in lines, "text f32")
    check("t.f64\tf64\t%.17g\tevery.gguf" % 2.0 ** -1074 in lines, "text f64")
    check('t.arr.str\tarr[str,4]\t["a", "", "tab\\x09here", "\u00fc"]\tevery.gguf' in lines,
          "text string array")
    check(any(line.startswith("q6_k\tQ6_K\t[6,256]\t1260\tevery.gguf") for line in lines),
          "text tensor line")
    r = u.run(["gguf", "ls", "--glob", "q4_*", "every.gguf"], work)
    check([line.split("\t")[0] for line in r.stdout.splitlines()] == ["q4_0", "q4_1", "q4_k"],
          f"--glob: {r.stdout!r}")
    u.expect_failure("--glob matching nothing", ["gguf", "ls", "--glob", "zz*", "every.gguf"],
                     work, 65, ["no tensor", "zz*"])
    # Version 2 reads the same.
    u.write_gguf(os.path.join(work, "v2.gguf"), EVERY_TYPE[:3], tensors_of_many_types()[:2],
                 version=2)
    r = u.run(["gguf", "check", "--json", "v2.gguf"], work)
    check(r.returncode == 0 and json.loads(r.stdout)["version"] == 2, f"v2: {r.stdout}")


def splits(work):
    f32 = RNG.random((6, 8), dtype=np.float32)
    f16 = RNG.random((2, 3, 10)).astype(np.float16)
    ts = [("blk.0.f32", "F32", (6, 8), f32.tobytes()),
          ("blk.0.f16", "F16", (2, 3, 10), f16.tobytes()),
          ("q8", ) + quant("Q8_0", (4, 3, 128)), ("q4k", ) + quant("Q4_K", (6, 512)),
          ("q6k", ) + quant("Q6_K", (4, 768)), ("norm", "F32", (8,), bytes(32))]
    meta = [("general.architecture", "str", "llama"), ("general.alignment", "u32", 64)]
    u.write_gguf(os.path.join(work, "m.gguf"), meta, ts)
    raw = {n: r for n, _, _, r in ts}
    r = u.run(["gguf", "split", "m.gguf", "-o", "out", "-q",
               "--tensor", "blk.*.f32", "-a", "1", "-l", "3,-1", "--into", "blk.*.a,blk.*.b",
               "--tensor", "blk.0.f16", "-a", "-1", "-n", "2", "--into", "h0,h1",
               "--tensor", "q8", "-a", "1", "-l", "1,2", "--into", "q8.a,q8.b",
               "--tensor", "q4k", "-a", "0", "-n", "3", "--into", "k0,k1,k2",
               "--tensor", "q6k", "-a", "-1", "-l", "256,512", "--into", "six.a,six.b"], work)
    check(r.returncode == 0 and r.stdout == "", f"split: {r.returncode} {r.stderr}")
    _, got_meta, got = u.read_gguf(os.path.join(work, "out", "m.gguf"))
    check(got_meta == meta, f"split keeps the metadata: {got_meta}")
    names = [t[0] for t in got]
    check(names == ["blk.0.a", "blk.0.b", "h0", "h1", "q8.a", "q8.b", "k0", "k1", "k2", "six.a",
                    "six.b", "norm"], f"parts take their tensor's place: {names}")
    t = {n: (d, s, b) for n, d, s, b in got}
    check(t["blk.0.a"][2] == np.ascontiguousarray(f32[:, :3]).tobytes() and
          t["blk.0.b"][2] == np.ascontiguousarray(f32[:, 3:]).tobytes() and
          t["blk.0.b"][1] == (6, 5), "F32 parts equal NumPy's slicing")
    check(t["h1"][2] == np.ascontiguousarray(f16[:, :, 5:]).tobytes(), "F16 innermost part")
    q8 = u.rows(raw["q8"], (4, 3, 128), 1, "Q8_0")
    check(t["q8.a"][1] == (4, 1, 128) and t["q8.a"][2] == q8[:, :1].tobytes() and
          t["q8.b"][2] == q8[:, 1:].tobytes(), "Q8_0 middle-axis parts are its block rows")
    q4 = u.rows(raw["q4k"], (6, 512), 0, "Q4_K")
    check([t[k][2] for k in ("k0", "k1", "k2")] == [q4[:, i * 2:i * 2 + 2].tobytes()
                                                     for i in range(3)], "Q4_K row split")
    q6 = u.rows(raw["q6k"], (4, 768), 1, "Q6_K")
    check(t["six.a"][1] == (4, 256) and t["six.a"][2] == q6[:, :1].tobytes() and
          t["six.b"][2] == q6[:, 1:].tobytes(), "Q6_K innermost split on block boundaries")
    check(t["norm"][2] == raw["norm"], "untouched tensor")
    # Off a block boundary, on the innermost axis: refused, naming the tensor, type and block.
    u.expect_failure("Q4_K innermost off the block boundary",
                     ["gguf", "split", "m.gguf", "-o", "bad", "--tensor", "q4k", "-a", "1", "-l",
                      "128,384", "--into", "x,y"], work, 65,
                     ["m.gguf: tensor 'q4k' (Q4_K [6,512])", "Q4_K blocks (256 elements)"])
    u.expect_failure("Q8_0 innermost into 3",
                     ["gguf", "split", "m.gguf", "-o", "bad", "--tensor", "q8", "-a", "2", "-n",
                      "3", "--into", "x,y,z"], work, 65, ["tensor 'q8'", "not divisible"])
    u.expect_failure("Q8_0 innermost into 8 (16 elements)",
                     ["gguf", "split", "m.gguf", "-o", "bad", "--tensor", "q8", "-a", "-1", "-n",
                      "8", "--into", "a,b,c,d,e,f,g,h"], work, 65,
                     ["tensor 'q8'", "Q8_0 blocks (32 elements)"])
    u.expect_failure("name longer than 63 bytes",
                     ["gguf", "split", "m.gguf", "-o", "bad", "--tensor", "norm", "-a", "0", "-n",
                      "2", "--into", "x" * 64 + ",y"], work, 65, ["not 1 to 63 bytes"])
    u.expect_failure("a rule matching nothing",
                     ["gguf", "split", "m.gguf", "-o", "bad", "--tensor", "nope", "-a", "0", "-n",
                      "2", "--into", "x,y"], work, 65, ["no tensor matches 'nope'"])
    u.expect_failure("no rule", ["gguf", "split", "m.gguf", "-o", "bad"], work, 64, ["no rule"])
    # --dry-run reads headers only and writes nothing.
    before = clitest.snapshot(work)
    r = u.run(["gguf", "split", "m.gguf", "-o", "dry", "--dry-run", "--json", "--tensor", "norm",
               "-a", "0", "-n", "2", "--into", "n0,n1"], work)
    plan = json.loads(r.stdout) if r.returncode == 0 else {}
    check(r.returncode == 0 and plan["dry_run"] is True and plan["outputs"][0]["tensors"] == 7 and
          [p["name"] for p in plan["outputs"][0]["plan"]][-2:] == ["n0", "n1"],
          f"--dry-run: {r.stdout} {r.stderr}")
    check(clitest.snapshot(work) == before, "--dry-run wrote something")
    u.expect_failure("outputs exist", ["gguf", "split", "m.gguf", "-o", "out", "--tensor", "norm",
                                       "-a", "0", "-n", "2", "--into", "n0,n1"], work, 73,
                     ["exists"])


def shards(work):
    exps = RNG.random((4, 6, 32), dtype=np.float32)
    ts = [("blk.0.attn_q.weight",) + quant("Q8_0", (8, 64)),
          ("blk.0.attn_output.weight",) + quant("Q4_0", (4, 128)),
          ("blk.0.ffn_gate_exps.weight", "F32", (4, 6, 32), exps.tobytes()),
          ("blk.0.ffn_down_exps.weight",) + quant("Q6_K", (4, 2, 256)),
          ("blk.0.ffn_gate_inp.weight", "F32", (4, 32), RNG.random((4, 32), np.float32).tobytes()),
          ("output_norm.weight", "F32", (32,), RNG.random(32, np.float32).tobytes())]
    meta = [("general.architecture", "str", "qwen3moe"), ("general.alignment", "u32", 128),
            ("qwen3moe.expert_count", "u32", 4), ("qwen3moe.expert_used_count", "u32", 2),
            ("tokenizer.ggml.tokens", "arr", ("str", ["<s>", "a", "b"]))]
    u.write_gguf(os.path.join(work, "moe.gguf"), meta, ts)
    raw = {n: r for n, _, _, r in ts}
    r = u.run(["gguf", "shard", "moe.gguf", "-o", "tp", "-n", "2", "--json",
               "--axis", "*attn_q*=0", "--axis", "*attn_output*=-1", "--axis", "*_exps*=0",
               "--axis", "*ffn_gate_inp*=0"], work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    report = json.loads(r.stdout) if r.returncode == 0 else {"outputs": []}
    check([o["path"] for o in report["outputs"]] == ["tp/rank0.gguf", "tp/rank1.gguf"],
          f"shard report: {report}")
    q = u.rows(raw["blk.0.attn_q.weight"], (8, 64), 0, "Q8_0")
    o = u.rows(raw["blk.0.attn_output.weight"], (4, 128), 1, "Q4_0")
    d = u.rows(raw["blk.0.ffn_down_exps.weight"], (4, 2, 256), 0, "Q6_K")
    for rank in range(2):
        _, m, got = u.read_gguf(os.path.join(work, "tp", f"rank{rank}.gguf"))
        want_meta = [(k, t, 2 if k == "qwen3moe.expert_count" else v) for k, t, v in meta]
        record = {k: v for k, _, v in m if k.startswith("cleave.")}
        check([x for x in m if not x[0].startswith("cleave.")] == want_meta and
              record.get("cleave.rank") == str(rank) and record.get("cleave.ranks") == "2",
              f"rank {rank}: metadata in order, expert_count 2, and the rank's record: {m}")
        t = {n: (dt, s, b) for n, dt, s, b in got}
        check([n for n, *_ in got] == [n for n, *_ in ts], f"rank {rank}: tensor order")
        check(t["blk.0.attn_q.weight"][2] == q[:, rank * 4:rank * 4 + 4].tobytes(), "Q8_0 rows")
        check(t["blk.0.attn_output.weight"][1] == (4, 64) and
              t["blk.0.attn_output.weight"][2] == o[:, rank * 2:rank * 2 + 2].tobytes(), "Q4_0 columns")
        check(t["blk.0.ffn_gate_exps.weight"][2] == exps[rank * 2:rank * 2 + 2].tobytes(),
              "experts")
        check(t["blk.0.ffn_down_exps.weight"][2] == d[:, rank * 2:rank * 2 + 2].tobytes(),
              "Q6_K experts")
        check(t["output_norm.weight"][2] == raw["output_norm.weight"], "replicated")
    # Cutting some expert tensors along axis 0 and not others is refused.
    u.expect_failure("experts cut unevenly", ["gguf", "shard", "moe.gguf", "-o", "bad", "-n", "2",
                                              "--axis", "*gate_exps*=0", "--axis", "*down_exps*=1"],
                     work, 65, ["different numbers of experts"])
    u.expect_failure("Q4_0 columns off the blocks",
                     ["gguf", "shard", "moe.gguf", "-o", "bad", "-n", "8", "--axis",
                      "*attn_output*=1"], work, 65,
                     ["tensor 'blk.0.attn_output.weight'", "Q4_0 blocks (32 elements)"])
    u.expect_failure("--max-shard-size on shard",
                     ["gguf", "shard", "moe.gguf", "-o", "bad", "-n", "2", "--axis", "*=0",
                      "--max-shard-size", "1M"], work, 64, ["--max-shard-size"])


def split_sets(work):
    ts = [(f"blk.{i}.w", "Q8_0", (4, 64)) + (u.rand_bytes(RNG, u.nbytes("Q8_0", (4, 64))),)
          for i in range(5)]
    ts = [(n, d, s, b) for n, d, s, b in ts] + [("blk.0.fused", "F32", (4, 8),
                                                 RNG.random((4, 8), np.float32).tobytes())]
    meta = [("general.architecture", "str", "llama"), ("general.alignment", "u32", 64),
            ("general.name", "str", "set")]
    u.write_gguf(os.path.join(work, "model.gguf"), meta, ts)
    original = open(os.path.join(work, "model.gguf"), "rb").read()
    # 272 bytes per Q8_0 tensor (padded to 320): two per file of at most 700 bytes.
    r = u.run(["gguf", "split", "model.gguf", "-o", "set", "--max-shard-size", "700B"], work)
    check(r.returncode == 0, f"split --max-shard-size: {r.stderr}")
    names = sorted(os.listdir(os.path.join(work, "set")))
    check("cleave-manifest.json" in names, f"the set has its manifest: {names}")
    names = [n for n in names if n != "cleave-manifest.json"]
    check(names == [f"model-0000{i}-of-00003.gguf" for i in (1, 2, 3)], f"set names: {names}")
    parts = [u.read_gguf(os.path.join(work, "set", n)) for n in names]
    check([[t[0] for t in p[2]] for p in parts] ==
          [["blk.0.w", "blk.1.w"], ["blk.2.w", "blk.3.w"], ["blk.4.w", "blk.0.fused"]],
          "tensors in order, two per file")
    # The split keys in gguf-split's order (it sets split.count again once it knows it); the
    # alignment, not gguf's default, in every file.
    check(parts[0][1] == meta + [("split.no", "u16", 0), ("split.tensors.count", "i32", 6),
                                 ("split.count", "u16", 3)], f"first: {parts[0][1]}")
    check(parts[2][1] == [("general.alignment", "u32", 64), ("split.no", "u16", 2),
                          ("split.tensors.count", "i32", 6), ("split.count", "u16", 3)],
          f"last: {parts[2][1]}")
    r = u.run(["gguf", "check", "set/model-00001-of-00003.gguf"], work)
    check(r.returncode == 0 and "3 files, 6 tensors" in r.stdout, f"check set: {r.stdout}")
    # Merged back from the first file, or from every file in any order: the original bytes.
    r = u.run(["gguf", "merge", "set/model-00001-of-00003.gguf", "-o", "back.gguf", "-q"], work)
    check(r.returncode == 0 and open(os.path.join(work, "back.gguf"), "rb").read() == original,
          f"merge from the first file: {r.stderr}")
    shuffled = [f"set/{n}" for n in names]
    random.Random(5).shuffle(shuffled)
    r = u.run(["gguf", "merge"] + shuffled + ["-o", "again/back.gguf", "-q"], work)
    check(r.returncode == 0 and
          open(os.path.join(work, "again", "back.gguf"), "rb").read() == original,
          f"merge of the parts in any order: {r.stderr}")
    # A split of a set stays a set: the counts follow the parts.
    r = u.run(["gguf", "split", "set/model-00001-of-00003.gguf", "-o", "set2", "-q", "--tensor",
               "blk.0.fused", "-a", "1", "-n", "2", "--into", "blk.0.a,blk.0.b"], work)
    check(r.returncode == 0, f"split of a set: {r.stderr}")
    last = u.read_gguf(os.path.join(work, "set2", "model-00003-of-00003.gguf"))
    check([t[0] for t in last[2]] == ["blk.4.w", "blk.0.a", "blk.0.b"] and
          ("split.tensors.count", "i32", 7) in last[1], f"split of a set: {last[1]}")
    # Never over an input; a broken set is refused with nothing written.
    u.expect_failure("merge onto a part", ["gguf", "merge", "set/model-00001-of-00003.gguf", "-o",
                                           "set/model-00002-of-00003.gguf"], work, 73,
                     ["model-00002-of-00003.gguf", "input"])
    os.makedirs(os.path.join(work, "broken"))
    for n in names[:2]:
        shutil.copy(os.path.join(work, "set", n), os.path.join(work, "broken", n))
    u.expect_failure("a missing part", ["gguf", "merge", "broken/model-00001-of-00003.gguf", "-o",
                                        "x.gguf"], work, 66,
                     ["file 3 of its split set of 3 is missing", "No such file"])
    u.expect_failure("a part given twice", ["gguf", "merge", "broken/model-00001-of-00003.gguf",
                                            "set/model-00001-of-00003.gguf", "-o", "x.gguf"],
                     work, 65, ["both file 1"])
    u.expect_failure("a later part as MODEL",
                     ["gguf", "split", "set/model-00002-of-00003.gguf", "-o", "x", "--max-tensors",
                      "1"], work, 65, ["is file 2 of a split set of 3", "give the first file"])
    u.expect_failure("merge of a plain file", ["gguf", "merge", "model.gguf", "-o", "x.gguf"],
                     work, 65, ["not part of a split set"])
    # gguf-split's own layout of a set (split keys after the model's, data aligned to 32).
    gs = [(meta[:1] + [("split.no", "u16", 0), ("split.count", "u16", 2),
                       ("split.tensors.count", "i32", 2)], ts[:1]),
          ([("split.no", "u16", 1), ("split.count", "u16", 2), ("split.tensors.count", "i32", 2)],
           ts[1:2])]
    for i, (m, t) in enumerate(gs):
        u.write_gguf(os.path.join(work, f"gs-0000{i + 1}-of-00002.gguf"), m, t)
    r = u.run(["gguf", "merge", "gs-00001-of-00002.gguf", "-o", "gs.gguf", "-q"], work)
    check(r.returncode == 0, f"merge of a gguf-split set: {r.stderr}")
    _, m, t = u.read_gguf(os.path.join(work, "gs.gguf"))
    check(m == meta[:1] and [x[0] for x in t] == ["blk.0.w", "blk.1.w"] and
          t[1][3] == ts[1][3], f"gguf-split set merged: {m}")
    wrong = gs[1][0][:1] + [("split.count", "u16", 3)] + gs[1][0][2:]
    u.write_gguf(os.path.join(work, "gs-00002-of-00002.gguf"), wrong, ts[1:2])
    u.expect_failure("split.count disagrees", ["gguf", "merge", "gs-00001-of-00002.gguf", "-o",
                                               "y.gguf"], work, 65, ["split.count 3"])


def help_texts(work):
    r = u.run(["gguf", "--help"], work)
    check(r.returncode == 0 and "NumPy order" in r.stdout and "reverse of GGUF's ne[]" in r.stdout,
          "gguf --help states the axis order")
    for sub in ("ls", "check", "split", "shard", "merge"):
        a = u.run(["gguf", sub, "--help"], work)
        b = u.run(["help", "gguf", sub], work)
        check(a.returncode == 0 and a.stdout.startswith(f"usage: cleave gguf {sub}") and
              a.stdout == b.stdout, f"gguf {sub} --help")
    u.expect_failure("unknown subcommand", ["gguf", "cut", "x"], work, 64, ["'cut'"])
    u.expect_failure("bad size", ["gguf", "split", "x.gguf", "-o", "o", "--max-shard-size", "5Q"],
                     work, 64, ["'5Q'"])
    u.expect_failure("missing model", ["gguf", "check", "nope.gguf"], work, 66, ["nope.gguf"])


def options(work):
    """The rule and option errors of split, shard and merge: 64 (66 for a rules file that
    cannot be opened), nothing written; rules files; --replicate, --unmatched and --view."""
    ts = [("blk.0.w", "F32", (4, 6), RNG.random((4, 6), np.float32).tobytes()),
          ("blk.0.q", ) + quant("Q8_0", (2, 64)), ("tok\nname", "F32", (2,), bytes(8))]
    u.write_gguf(os.path.join(work, "m.gguf"), [("general.architecture", "str", "llama")], ts)
    split = ["gguf", "split", "m.gguf", "-o", "out"]
    for label, extra, frags in [
        ("no --tensor first", ["-a", "0"], ["a rule starts with --tensor GLOB"]),
        ("no axis", ["--tensor", "blk.0.w", "-n", "2", "--into", "a,b"], ["-a/--axis is missing"]),
        ("-n and -l", ["--tensor", "blk.0.w", "-a", "0", "-n", "2", "-l", "2,2", "--into", "a,b"],
         ["exactly one of -n N and -l LENGTHS"]),
        ("no --into", ["--tensor", "blk.0.w", "-a", "0", "-n", "2"], ["--into NAME,NAME,..."]),
        ("names and parts", ["--tensor", "blk.0.w", "-a", "0", "-n", "2", "--into", "a,b,c"],
         ["2 parts but 3 names"]),
        ("empty name", ["--tensor", "blk.0.w", "-a", "0", "-n", "2", "--into", "a,"],
         ["holds an empty name"]),
        ("stars", ["--tensor", "blk.*.w", "-a", "0", "-n", "2", "--into", "a,b"],
         ["has 0 '*' but the glob has 1"]),
        ("bad view", ["--tensor", "blk.0.w", "--view", "2,x", "-a", "0", "-n", "2", "--into",
                      "a,b"], ["--view '2,x'"]),
        ("unknown lengths", ["--tensor", "blk.0.w", "-a", "0", "-l", "?,?", "--into", "a,b"],
         ["lengths must be known"]),
        ("shard options", ["--replicate", "x"], ["--replicate belongs to", "'gguf shard'"]),
        ("no output", ["--tensor"], ["--tensor"]),
    ]:
        args = split + extra if label != "no output" else ["gguf", "split", "m.gguf", "--tensor"]
        u.expect_failure("split: " + label, args, work, 64, frags)
    u.expect_failure("no -o", ["gguf", "split", "m.gguf", "--max-shard-size", "1M"], work, 64,
                     ["-o OUTDIR is missing"])
    u.expect_failure("missing rules file", split + ["--rules", "nope.txt"], work, 66,
                     ["nope.txt"])
    with open(os.path.join(work, "rules.txt"), "w") as f:
        f.write("# unfuse\n--tensor blk.*.w -a 0 -l 1,-1 --into blk.*.a,blk.*.b  # two parts\n"
                "\n--tensor blk.0.q -a -1 -n 2 --into qa,qb\n")
    r = u.run(split + ["--rules", "rules.txt", "-q"], work)
    check(r.returncode == 0, f"rules file: {r.stderr}")
    if r.returncode == 0:
        _, _, got = u.read_gguf(os.path.join(work, "out", "m.gguf"))
        check([t[0] for t in got] == ["blk.0.a", "blk.0.b", "qa", "qb", "tok\nname"] and
              got[1][2] == (3, 6), f"rules file parts: {[t[:3] for t in got]}")
    with open(os.path.join(work, "bad_rules.txt"), "w") as f:
        f.write("-a 0 --tensor x\n")
    u.expect_failure("rules file line", split + ["--rules", "bad_rules.txt"], work, 64,
                     ["bad_rules.txt:1", "a rule starts with --tensor GLOB"])
    with open(os.path.join(work, "bad_rules.txt"), "w") as f:
        f.write("--tensor x -a 0 -n 2 --into a,b --tensor y\n")
    u.expect_failure("two rules on a line", split + ["--rules", "bad_rules.txt"], work, 64,
                     ["bad_rules.txt:1", "one rule per line"])
    # ls escapes control characters in names.
    r = u.run(["gguf", "ls", "m.gguf"], work)
    check("tok\\x0aname\tF32\t[2]\t8\tm.gguf" in r.stdout, f"ls escapes names: {r.stdout!r}")
    shard = ["gguf", "shard", "m.gguf", "-o", "tp"]
    for label, extra, frags in [
        ("no ranks", ["--axis", "*=0"], ["-n RANKS is missing"]),
        ("no axis", ["-n", "2"], ["no --axis GLOB=AXIS rule"]),
        ("ranks 0", ["-n", "0", "--axis", "*=0"], ["from 1 to 4096"]),
        ("axis not GLOB=AXIS", ["-n", "2", "--axis", "blk"], ["'blk' is not GLOB=VALUE"]),
        ("unmatched", ["-n", "2", "--axis", "*=0", "--unmatched", "maybe"],
         ["'replicate' or 'error'"]),
        ("split options", ["-n", "2", "--axis", "*=0", "--into", "a"], ["--into belongs to 'gguf split'"]),
    ]:
        u.expect_failure("shard: " + label, shard + extra, work, 64, frags)
    u.expect_failure("shard: unmatched error", shard + ["-n", "2", "--axis", "blk.0.w=0",
                                                        "--unmatched", "error"], work, 65,
                     ["matches no --axis or --replicate rule"])
    r = u.run(shard + ["-n", "2", "-q", "--view", "blk.0.w=2,2,6", "--axis", "blk.0.w=1",
                       "--replicate", "blk.0.q", "--replicate", "tok*", "--unmatched", "error"],
              work)
    check(r.returncode == 0, f"shard with --view and --replicate: {r.stderr}")
    if r.returncode == 0:
        w = np.frombuffer(ts[0][3], np.float32).reshape(2, 2, 6)
        for rank in range(2):
            _, _, got = u.read_gguf(os.path.join(work, "tp", f"rank{rank}.gguf"))
            t = {n: (s, b) for n, _, s, b in got}
            check(t["blk.0.w"] == ((2, 6), np.ascontiguousarray(w[:, rank]).tobytes()) and
                  t["blk.0.q"][1] == ts[1][3], f"rank {rank}: view parts and replicas")
    u.expect_failure("merge: no parts", ["gguf", "merge", "-o", "x.gguf"], work, 64,
                     ["PARTs are missing"])
    u.expect_failure("merge: no -o", ["gguf", "merge", "m.gguf"], work, 64, ["-o OUT.gguf"])
    u.expect_failure("merge: rules", ["gguf", "merge", "m.gguf", "-o", "x.gguf", "--tensor", "x"],
                     work, 64, ["belongs to 'gguf split'"])
    # Errors are never JSON: with --json too, the message on stderr and nothing on stdout.
    r = u.run(["gguf", "check", "--json", "nope.gguf"], work)
    check(r.returncode == 66 and r.stdout == "" and "cleave: error: " in r.stderr and
          "nope.gguf" in r.stderr, f"check --json failure: {r.stdout!r} {r.stderr!r}")


@clitest.groups(("listing", listing), ("splits", splits), ("shards", shards), ("sets", split_sets),
                ("help", help_texts), ("options", options))
def test_gguf_commands(group, work):
    group(work)
