#!/usr/bin/python3
"""Stacked experts <-> one tensor per expert (st split rules with '{e}'): the experts of a
Mixtral-style model (per-expert w1, w2, w3 in several dtypes, in one file or two shards) are
stacked along a new axis (equal to numpy.stack on every axis tried) and unstacked back to the
model byte for byte (verify --against agrees); FP8 experts take their block scales with them both
ways, and a stacked FP8 tensor shards with its scale; every refusal (an expert missing, experts of
different shapes or dtypes, scales on some experts only, the axis, a malformed rule) has its
status, its message naming the expert, and nothing written."""
import json
import os

import numpy as np

import st_util as u
from clitest import check

RNG = np.random.default_rng(2024)
E, H, I = 4, 8, 12
MOE = "model.layers.{l}.block_sparse_moe."


def mixtral(layers=2):
    """name -> (dtype, shape, bytes): experts in F32 (w1), BF16 (w2, raw bits) and F16 (w3), the
    router and a norm."""
    t = {"model.norm.weight": u.array_tensor(RNG.standard_normal(H).astype(np.float32))}
    for l in range(layers):
        p = MOE.format(l=l)
        t[p + "gate.weight"] = u.array_tensor(RNG.standard_normal((E, H)).astype(np.float32))
        for e in range(E):
            x = f"{p}experts.{e}."
            t[x + "w1.weight"] = u.array_tensor(RNG.standard_normal((I, H)).astype(np.float32))
            w2 = RNG.integers(0, 1 << 16, (H, I), dtype=np.uint16)
            t[x + "w2.weight"] = ("BF16", (H, I), w2.astype("<u2").tobytes())
            t[x + "w3.weight"] = u.array_tensor(RNG.standard_normal((I, H)).astype(np.float16))
    return t


def stack_rules(axis=0):
    rules = []
    for w in ("w1", "w2", "w3"):
        rules += ["--tensor", f"model.layers.*.block_sparse_moe.experts.{{e}}.{w}.weight",
                  "-a", str(axis), "--into", f"model.layers.*.block_sparse_moe.experts.{w}.weight"]
    return rules


def unstack_rules(axis=0):
    rules = []
    for w in ("w1", "w2", "w3"):
        rules += ["--tensor", f"*.experts.{w}.weight", "-a", str(axis),
                  "--into", f"*.experts.{{e}}.{w}.weight"]
    return rules


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cmd(work, args, label):
    r = u.run(args, work)
    check(r.returncode == 0, f"{label}: {r.returncode} {r.stderr.strip()}")
    return r


def raw_array(t):
    """The tensor's elements as unsigned integers of its width (exact for every dtype)."""
    dtype, shape, raw = t
    width = {8: "<u1", 16: "<u2", 32: "<u4", 64: "<u8"}[u.DTYPES[dtype][0]]
    return np.frombuffer(raw, width).reshape(shape)


def test_stack_unstack(work):
    """Stacked on axes 0, 1 and -1 equal numpy.stack; unstacked on the same axis they give the
    model back byte for byte."""
    src = mixtral()
    u.write_st(os.path.join(work, "model.safetensors"), src, {"format": "pt"})
    original = read(os.path.join(work, "model.safetensors"))
    for axis in (0, 1, -1):
        out = f"stacked{axis}"
        r = cmd(work, ["st", "split", "model.safetensors", "-o", out, "--json"] +
                stack_rules(axis), f"stack on axis {axis}")
        check(json.loads(r.stdout)["outputs"][0]["tensors"] == 1 + 2 * (1 + 3),
              f"stack on axis {axis}: {r.stdout}")
        _, got = u.read_st(os.path.join(work, out, "model.safetensors"))
        for l in range(2):
            p = MOE.format(l=l)
            for w in ("w1", "w2", "w3"):
                experts = [raw_array(src[f"{p}experts.{e}.{w}.weight"]) for e in range(E)]
                want = np.stack(experts, axis=axis)
                name = f"{p}experts.{w}.weight"
                check(name in got and got[name][0] == src[f"{p}experts.0.{w}.weight"][0] and
                      np.array_equal(raw_array(got[name]), want),
                      f"stack on axis {axis}: {name} is not numpy.stack")
            check(got[p + "gate.weight"] == src[p + "gate.weight"], "router copied")
        back = f"back{axis}"
        cmd(work, ["st", "split", out, "-o", back, "-q"] + unstack_rules(axis),
            f"unstack on axis {axis}")
        check(read(os.path.join(work, back, "model.safetensors")) == original,
              f"stack then unstack on axis {axis} is not the model byte for byte")
        for folder, against in ((out, "model.safetensors"), (back, out)):
            r = u.run(["st", "verify", folder, "--against", against], work)
            check(r.returncode == 0, f"verify {folder}: {r.returncode} {r.stdout} {r.stderr}")


def test_shards(work):
    """Experts spread over the two shards of an indexed model are stacked from both; the stack
    goes to the file of expert 0, and --max-shard-size lays the outputs out anew."""
    src = mixtral(layers=1)
    first = {k: v for k, v in src.items() if ".experts.2." not in k and ".experts.3." not in k}
    second = {k: v for k, v in src.items() if k not in first}
    files = {"model-00001-of-00002.safetensors": first,
             "model-00002-of-00002.safetensors": second}
    weight_map = {}
    for name, tensors in files.items():
        u.write_st(os.path.join(work, name), tensors)
        weight_map.update({k: name for k in tensors})
    total = sum(len(v[2]) for v in src.values())
    with open(os.path.join(work, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
    cmd(work, ["st", "split", "model.safetensors.index.json", "-o", "out", "-q"] +
        stack_rules(), "stack across shards")
    _, got = u.read_st(os.path.join(work, "out", "model-00001-of-00002.safetensors"))
    _, rest = u.read_st(os.path.join(work, "out", "model-00002-of-00002.safetensors"))
    check(rest == {}, f"the second shard keeps nothing: {sorted(rest)}")
    p = MOE.format(l=0)
    want = np.stack([raw_array(src[f"{p}experts.{e}.w2.weight"]) for e in range(E)])
    check(np.array_equal(raw_array(got[p + "experts.w2.weight"]), want), "stack across shards")
    cmd(work, ["st", "split", "model.safetensors.index.json", "-o", "sized", "-q",
               "--max-shard-size", "1000"] + stack_rules(), "stack --max-shard-size")
    index = json.load(open(os.path.join(work, "sized", "model.safetensors.index.json")))
    check(sorted(index["weight_map"]) == sorted(got), f"sized index: {sorted(index['weight_map'])}")
    r = u.run(["st", "verify", "sized", "--against", "."], work)
    check(r.returncode == 0, f"verify sized: {r.returncode} {r.stdout} {r.stderr}")


def test_fp8(work):
    """FP8 experts with block scales [2, 2] (blocks of 4 x 8): stacked with their scales, the
    stack sharded with its scale, and unstacked back byte for byte."""
    b0, b1 = 4, 8
    t = {}
    for e in range(E):
        t[f"m.experts.{e}.w1.weight"] = ("F8_E4M3", (8, 16),
                                         RNG.integers(0, 256, (8, 16), dtype=np.uint8).tobytes())
        t[f"m.experts.{e}.w1.weight_scale_inv"] = u.array_tensor(
            RNG.standard_normal((2, 2)).astype(np.float32))
    u.write_st(os.path.join(work, "model.safetensors"), t)
    original = read(os.path.join(work, "model.safetensors"))
    cmd(work, ["st", "split", "model.safetensors", "-o", "stacked", "-q", "--tensor",
               "m.experts.{e}.w1.weight", "-a", "0", "--into", "m.experts.w1.weight"], "stack fp8")
    _, got = u.read_st(os.path.join(work, "stacked", "model.safetensors"))
    check(sorted(got) == ["m.experts.w1.weight", "m.experts.w1.weight_scale_inv"],
          f"stack fp8: {sorted(got)}")
    w = np.stack([raw_array(t[f"m.experts.{e}.w1.weight"]) for e in range(E)])
    s = np.stack([raw_array(t[f"m.experts.{e}.w1.weight_scale_inv"]) for e in range(E)])
    check(np.array_equal(raw_array(got["m.experts.w1.weight"]), w), "stacked fp8 weight")
    check(np.array_equal(raw_array(got["m.experts.w1.weight_scale_inv"]), s), "stacked scales")
    cmd(work, ["st", "shard", "stacked", "-o", "tp", "-n", "2", "-q", "--quant-block",
               f"{b0},{b1}", "--axis", "*.w1.weight=1"], "shard the stack")
    for r in range(2):
        _, rank = u.read_st(os.path.join(work, "tp", f"rank{r}.safetensors"))
        check(np.array_equal(raw_array(rank["m.experts.w1.weight"]),
                             np.split(w, 2, axis=1)[r]), f"rank {r}: weight rows")
        check(np.array_equal(raw_array(rank["m.experts.w1.weight_scale_inv"]),
                             np.split(s, 2, axis=1)[r]), f"rank {r}: its scale rows")
    cmd(work, ["st", "split", "stacked", "-o", "back", "-q", "--tensor", "m.experts.w1.weight",
               "-a", "0", "--into", "m.experts.{e}.w1.weight"], "unstack fp8")
    check(read(os.path.join(work, "back", "model.safetensors")) == original,
          "fp8 stack then unstack is not the model byte for byte")
    # Stacking along an axis among the last two dims would leave scales that fit no blocks.
    for axis in ("1", "2", "-1"):
        u.expect_failure(f"stack fp8 on axis {axis}",
                         ["st", "split", "model.safetensors", "-o", "x", "--tensor",
                          "m.experts.{e}.w1.weight", "-a", axis, "--into", "m.experts.w1.weight"],
                         work, 65, ["'m.experts.w1.weight' has block scales over its last two",
                                    f"new axis {axis}", "from 0 to 0"])
    # Unstacking along the rows of the blocks would cut inside them.
    u.expect_failure("unstack inside blocks", ["st", "split", "stacked", "-o", "x",
                                               "--quant-block", f"{b0},{b1}", "--tensor",
                                               "m.experts.w1.weight", "-a", "1",
                                               "--into", "m.{e}.w1"], work, 65,
                     ["part 1 would start at row 1 of axis 1", "weight_block_size [4, 8]"])
    # Scales on some experts only.
    del t["m.experts.2.w1.weight_scale_inv"]
    os.makedirs(os.path.join(work, "partial"))
    u.write_st(os.path.join(work, "partial", "model.safetensors"), t)
    u.expect_failure("some scales", ["st", "split", "partial", "-o", "x", "--tensor",
                                     "m.experts.{e}.w1.weight", "-a", "0",
                                     "--into", "m.experts.w1.weight"], work, 65,
                     ["has a scale but expert 2 ('m.experts.2.w1.weight') has none"])


def test_refusals(work):
    """An expert missing, of another shape or dtype, the axis, rules of experts malformed, a
    stacked tensor with no experts: status, message naming the expert, nothing written."""
    src = mixtral()
    p1 = MOE.format(l=1)

    def model_with(name, change):
        folder = os.path.join(work, name)
        os.makedirs(folder)
        t = dict(src)
        change(t)
        u.write_st(os.path.join(folder, "model.safetensors"), t)
        return name

    missing = model_with("missing", lambda t: t.pop(p1 + "experts.2.w1.weight"))
    u.expect_failure("missing expert", ["st", "split", missing, "-o", "x"] + stack_rules(), work,
                     65, [f"expert 2 of '{p1}experts.w1.weight' is missing: no tensor "
                          f"'{p1}experts.2.w1.weight'", "the highest here is 3", "rule 1"])
    shape = model_with("shape", lambda t: t.update(
        {p1 + "experts.3.w3.weight": u.array_tensor(np.zeros((I, H + 1), np.float16))}))
    u.expect_failure("expert shape", ["st", "split", shape, "-o", "x"] + stack_rules(), work, 65,
                     [f"tensor '{p1}experts.3.w3.weight' (expert 3 of '{p1}experts.w3.weight') "
                      f"is F16 [{I},{H + 1}] but expert 0 '{p1}experts.0.w3.weight' is F16 "
                      f"[{I},{H}]"])
    dtype = model_with("dtype", lambda t: t.update(
        {p1 + "experts.1.w1.weight": u.array_tensor(np.zeros((I, H), np.float64))}))
    u.expect_failure("expert dtype", ["st", "split", dtype, "-o", "x"] + stack_rules(), work, 65,
                     [f"(expert 1 of '{p1}experts.w1.weight') is F64 [{I},{H}] but expert 0"])
    u.write_st(os.path.join(work, "model.safetensors"), src)
    u.expect_failure("axis", ["st", "split", "model.safetensors", "-o", "x"] + stack_rules(3),
                     work, 65, ["axis 3 is out of range [-3, 2]", "the 4 experts of"])
    u.expect_failure("no match", ["st", "split", "model.safetensors", "-o", "x", "--tensor",
                                  "*.experts.{e}.w9.weight", "-a", "0", "--into", "*.w9"],
                     work, 65, ["no tensor matches '*.experts.{e}.w9.weight' ('{e}' matches an expert's "
                                "number"])
    base = ["st", "split", "model.safetensors", "-o", "x", "--tensor"]
    for label, rule, fragment in [
            ("-n", ["*.experts.{e}.w1.weight", "-a", "0", "-n", "4", "--into", "*.w1"],
             "takes no -n, -l or --view"),
            ("--view", ["*.experts.{e}.w1.weight", "--view", "4,-1", "-a", "0",
                        "--into", "*.w1"], "takes no -n, -l or --view"),
            ("two marks", ["*.experts.{e}.w1.weight", "-a", "0", "--into", "*.{e}.w1"],
             "'{e}' once"),
            ("two names", ["*.w1.weight", "-a", "0", "--into", "*.{e}.a,*.{e}.b"],
             "one --into name"),
            ("no axis", ["*.experts.{e}.w1.weight", "--into", "*.w1"], "-a/--axis is missing")]:
        u.expect_failure(label, base + rule, work, 64, [fragment])
    # The name of a stack may not be an untouched tensor's; an empty stack has no experts.
    u.expect_failure("stack name", base + ["model.layers.*.block_sparse_moe.experts.{e}.w1.weight",
                                           "-a", "0", "--into",
                                           "model.layers.*.block_sparse_moe.gate.weight"],
                     work, 65, [f"{MOE.format(l=0)}gate.weight"])
    u.write_st(os.path.join(work, "empty.safetensors"),
               {"s": u.array_tensor(np.zeros((0, 3), np.float32))})
    u.expect_failure("no experts", ["st", "split", "empty.safetensors", "-o", "x", "--tensor",
                                    "s", "-a", "0", "--into", "s.{e}"], work, 65,
                     ["tensor 's' has no experts to unstack: its axis 0 is 0"])
    u.expect_failure("gguf", ["gguf", "split", "model.gguf", "-o", "x", "--tensor", "a.{e}",
                              "-a", "0", "--into", "b"], work, 64, ["belongs to 'st split'"])
