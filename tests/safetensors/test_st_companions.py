#!/usr/bin/python3
"""FP8 block scales travel with their weights (st split, shard, merge, reshard): a synthetic
block-quantized model (F8_E4M3 weights, F32 `*_scale_inv` of shape [ceil(out/B0), ceil(in/B1)],
as DeepSeek-V3 and Qwen3 FP8 store them) is cut at block boundaries, every rank's weights and
scales equal NumPy's slices of the originals computed here, the round trips give the model back
byte for byte (and `st verify --against` agrees), the block size is read from the model
folder's config.json or given by --quant-block, and every refusal exits 65 (64 for a malformed
option) naming the tensor and the block size, with nothing written."""
import json
import os

import numpy as np

import st_util as u
from clitest import check

RNG = np.random.default_rng(24)
B0, B1 = 4, 8
BLOCK = ["--quant-block", f"{B0},{B1}"]
P = "model.layers.0."
# name: shape of an F8_E4M3 weight with a scale (out rows, in columns)
WEIGHTS = {P + "self_attn.q_proj.weight": (16, 24), P + "self_attn.k_proj.weight": (16, 24),
           P + "self_attn.o_proj.weight": (24, 32), P + "mlp.gate_proj.weight": (18, 24),
           P + "mlp.down_proj.weight": (24, 20), P + "self_attn.qkv.weight": (48, 24)}
RULES = ["--axis", "*.q_proj.weight=0", "--axis", "*.k_proj.weight=0",
         "--axis", "*.o_proj.weight=1", "--view", "*.qkv.weight=3,-1,24",
         "--axis", "*.qkv.weight=1"]


def ceil(a, b):
    return -(-a // b)


def model():
    """name -> NumPy array: the weights as uint8 (F8_E4M3 bytes), their F32 scales, and plain
    tensors without scales."""
    t = {"model.embed_tokens.weight": RNG.standard_normal((12, 24)).astype(np.float32),
         P + "input_layernorm.weight": RNG.standard_normal(24).astype(np.float32)}
    for name, (out, cols) in WEIGHTS.items():
        t[name] = RNG.integers(0, 256, (out, cols), dtype=np.uint8)
        t[name + "_scale_inv"] = RNG.standard_normal((ceil(out, B0), ceil(cols, B1))).astype(
            np.float32)
    return t


def to_st(arrays):
    return {k: (("F8_E4M3", v.shape, v.tobytes()) if v.dtype == np.uint8 else u.array_tensor(v))
            for k, v in arrays.items()}


def write_model(folder, arrays, config=True, block=(B0, B1)):
    os.makedirs(folder, exist_ok=True)
    u.write_st(os.path.join(folder, "model.safetensors"), to_st(arrays), {"format": "pt"})
    if config:
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump({"model_type": "llama", "quantization_config": {
                "quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                "weight_block_size": list(block)}}, f)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cmd(work, args, label):
    r = u.run(args, work)
    check(r.returncode == 0, f"{label}: {r.returncode} {r.stderr.strip()}")
    return r


def arrays_of(path):
    _, tensors = u.read_st(path)
    out = {}
    for name, (dtype, shape, raw) in tensors.items():
        kind = np.uint8 if dtype == "F8_E4M3" else np.float32
        out[name] = np.frombuffer(raw, kind).reshape(shape)
    return out


def expected_rank(src, rank, n):
    """Rank `rank` of shard -n n with RULES, by NumPy slicing: a weight's rows or columns and
    the scale's rows or columns of the same blocks (rank r's rows [r*R, (r+1)*R) take scale
    rows [r*R/B0, (r+1)*R/B0))."""
    out = {}
    for name, a in src.items():
        weight = name[:-len("_scale_inv")] if name.endswith("_scale_inv") else name
        if weight.endswith(("q_proj.weight", "k_proj.weight")):
            out[name] = np.split(a, n, axis=0)[rank]
        elif weight.endswith("o_proj.weight"):
            out[name] = np.split(a, n, axis=1)[rank]
        elif weight.endswith("qkv.weight"):
            # [q; k; v] each cut in n: the weight viewed [3, 16, 24], the scale [3, 16/B0, 3].
            v = a.reshape(3, -1, a.shape[1])
            out[name] = np.split(v, n, axis=1)[rank].reshape(-1, a.shape[1])
        else:
            out[name] = a
    return out


def test_shard_merge(work):
    """shard -n 1, 2, 4 keeps every weight with its scale rows or columns; merge and reshard
    give back the model and the direct shards, byte for byte; verify agrees."""
    src = model()
    write_model(os.path.join(work, "fp8"), src)
    original = read(os.path.join(work, "fp8", "model.safetensors"))
    for n in (1, 2, 4):
        cmd(work, ["st", "shard", "fp8", "-o", f"tp{n}", "-n", str(n), "-q"] + BLOCK + RULES,
            f"shard -n {n}")
        for r in range(n):
            got = arrays_of(os.path.join(work, f"tp{n}", f"rank{r}.safetensors"))
            want = expected_rank(src, r, n)
            check(sorted(got) == sorted(want), f"shard -n {n} rank {r}: names {sorted(got)}")
            for name in want:
                check(name in got and np.array_equal(got[name], want[name]),
                      f"shard -n {n} rank {r}: {name} is not NumPy's slice")
        r = u.run(["st", "verify", f"tp{n}", "--against", "fp8"], work)
        check(r.returncode == 0, f"verify shard -n {n}: {r.returncode} {r.stdout} {r.stderr}")
        cmd(work, ["st", "merge", f"tp{n}", "-o", f"m{n}", "-q"] + BLOCK + RULES, f"merge {n}")
        check(read(os.path.join(work, f"m{n}", "model.safetensors")) == original,
              f"merge of {n} ranks is not the model byte for byte")
        r = u.run(["st", "verify", f"m{n}", "--against", f"tp{n}"], work)
        check(r.returncode == 0, f"verify merge {n}: {r.returncode} {r.stdout} {r.stderr}")
    for n, m in ((2, 4), (4, 2), (4, 1), (1, 4)):
        cmd(work, ["st", "reshard", f"tp{n}", "-o", f"re{n}_{m}", "-n", str(m), "-q"] + BLOCK +
            RULES, f"reshard {n} -> {m}")
        for r in range(m):
            name = f"rank{r}.safetensors"
            check(read(os.path.join(work, f"re{n}_{m}", name)) ==
                  read(os.path.join(work, f"tp{m}", name)),
                  f"reshard {n} -> {m}: {name} differs from shard -n {m}")


def test_split(work):
    """split cuts a scale with its weight: the parts' scales are the rows of their blocks, the
    last part taking the last block, whole or not; the names are the parts' with the suffix."""
    src = model()
    write_model(os.path.join(work, "fp8"), src)
    cmd(work, ["st", "split", "fp8", "-o", "out", "-q"] + BLOCK +
        ["--tensor", "*.gate_proj.weight", "-a", "0", "-l", "8,-1",
         "--into", "*.gate_a.weight,*.gate_b.weight",
         "--tensor", "*.down_proj.weight", "-a", "1", "-l", "8,8,4",
         "--into", "*.d0.weight,*.d1.weight,*.d2.weight"], "split")
    got = arrays_of(os.path.join(work, "out", "model.safetensors"))
    g, gs = src[P + "mlp.gate_proj.weight"], src[P + "mlp.gate_proj.weight_scale_inv"]
    d, ds = src[P + "mlp.down_proj.weight"], src[P + "mlp.down_proj.weight_scale_inv"]
    want = {P + "mlp.gate_a.weight": g[:8], P + "mlp.gate_a.weight_scale_inv": gs[:2],
            P + "mlp.gate_b.weight": g[8:], P + "mlp.gate_b.weight_scale_inv": gs[2:],
            P + "mlp.d0.weight": d[:, :8], P + "mlp.d0.weight_scale_inv": ds[:, :1],
            P + "mlp.d1.weight": d[:, 8:16], P + "mlp.d1.weight_scale_inv": ds[:, 1:2],
            P + "mlp.d2.weight": d[:, 16:], P + "mlp.d2.weight_scale_inv": ds[:, 2:]}
    for name, a in want.items():
        check(name in got and np.array_equal(got[name], a), f"split: {name} is not NumPy's")
    check(not any("gate_proj" in k or "down_proj" in k for k in got), "split left the fused")
    r = u.run(["st", "verify", "out", "--against", "fp8"], work)
    check(r.returncode == 0, f"verify split: {r.returncode} {r.stdout} {r.stderr}")


def test_config(work):
    """The block size comes from the model's config.json (quantization_config.
    weight_block_size: in the model's folder, or beside the model's file or the first rank's),
    also for the ranks shard wrote (it copies config.json beside them); --quant-block overrides
    it; config.json is read only for a model that has scales."""
    src = model()
    write_model(os.path.join(work, "fp8"), src)
    original = read(os.path.join(work, "fp8", "model.safetensors"))
    cmd(work, ["st", "shard", "fp8", "-o", "opt", "-n", "2", "-q"] + BLOCK + RULES, "with option")
    cmd(work, ["st", "shard", "fp8", "-o", "conf", "-n", "2", "-q"] + RULES, "from config.json")
    for r in range(2):
        name = f"rank{r}.safetensors"
        check(read(os.path.join(work, "conf", name)) == read(os.path.join(work, "opt", name)),
              f"config.json: {name} differs from the run with --quant-block")
    cmd(work, ["st", "merge", "conf", "-o", "merged", "-q"] + RULES, "merge from config.json")
    check(read(os.path.join(work, "merged", "model.safetensors")) == original,
          "merge with the ranks' config.json is not the model byte for byte")
    cmd(work, ["st", "reshard", "conf", "-o", "re", "-n", "1", "-q"] + RULES, "reshard")
    # Another block size in config.json: the scales do not fit it; --quant-block overrides it.
    write_model(os.path.join(work, "other"), src, block=(8, 8))
    u.expect_failure("config block", ["st", "shard", "other", "-o", "x", "-n", "2"] + RULES,
                     work, 65, ["in quantization blocks of [8, 8] needs a scale of shape"])
    cmd(work, ["st", "shard", "other", "-o", "over", "-n", "2", "-q"] + BLOCK + RULES,
        "--quant-block over config.json")
    # A config.json that breaks its rules is refused for a model with scales, with its name and
    # the key; a model without scales does not read it.
    write_model(os.path.join(work, "broken"), src, block=(0, 8))
    u.expect_failure("broken config", ["st", "shard", "broken", "-o", "x", "-n", "2"] + RULES,
                     work, 65, ["st shard: broken/config.json", "weight_block_size"])
    plain = {k: v for k, v in src.items() if not k.endswith("_scale_inv")}
    write_model(os.path.join(work, "plain"), plain, block=(0, 8))
    cmd(work, ["st", "shard", "plain", "-o", "p", "-n", "2", "-q"] + RULES, "no scales")
    # Without --preset only quantization_config is read: head counts that a preset would refuse
    # (8 KV heads do not divide 12) and a key given twice (the last one counts, as in Python's
    # json module) do not stop a run that needs only the block size.
    odd = os.path.join(work, "odd")
    write_model(odd, src, config=False)
    with open(os.path.join(odd, "config.json"), "w") as f:
        f.write('{"model_type": "llama", "num_attention_heads": 12, "num_key_value_heads": 8, '
                '"hidden_size": 100, "hidden_size": 96, "quantization_config": {"quant_method": '
                f'"fp8", "weight_block_size": [{B0}, {B1}]}}}}')
    cmd(work, ["st", "shard", "odd", "-o", "oddtp", "-n", "2", "-q"] + RULES,
        "a config.json a preset would refuse, without --preset")
    for r in range(2):
        name = f"rank{r}.safetensors"
        check(read(os.path.join(work, "oddtp", name)) == read(os.path.join(work, "opt", name)),
              f"odd config.json: {name} differs from the run with --quant-block")
    # A model given by its file, ranks given by their files: the config.json beside (the first).
    cmd(work, ["st", "shard", "fp8/model.safetensors", "-o", "file", "-n", "2", "-q"] + RULES,
        "config.json beside the file")
    for r in range(2):
        name = f"rank{r}.safetensors"
        check(read(os.path.join(work, "file", name)) == read(os.path.join(work, "opt", name)),
              f"config.json beside the file: {name} differs from the run with --quant-block")
    cmd(work, ["st", "merge", "conf/rank0.safetensors", "conf/rank1.safetensors", "-o", "files",
               "-q"] + RULES, "config.json beside the rank files")
    check(read(os.path.join(work, "files", "model.safetensors")) == original,
          "merge of the rank files is not the model byte for byte")


def fp8_llama(folder, kv_heads, inter=64):
    """A Llama-family FP8 model (hidden 32, 4 heads of 8, `kv_heads` KV heads, `inter`)
    with block scales of [B0, B1] and its config.json: returns {name: array}."""
    os.makedirs(folder)
    t = {"model.embed_tokens.weight": RNG.standard_normal((16, 32)).astype(np.float32),
         "lm_head.weight": RNG.standard_normal((16, 32)).astype(np.float32),
         "model.norm.weight": RNG.standard_normal(32).astype(np.float32)}
    p = "model.layers.0."
    shapes = {"self_attn.q_proj": (32, 32), "self_attn.k_proj": (8 * kv_heads, 32),
              "self_attn.v_proj": (8 * kv_heads, 32), "self_attn.o_proj": (32, 32),
              "mlp.gate_proj": (inter, 32), "mlp.up_proj": (inter, 32),
              "mlp.down_proj": (32, inter)}
    for name, (out, cols) in shapes.items():
        t[p + name + ".weight"] = RNG.integers(0, 256, (out, cols), dtype=np.uint8)
        t[p + name + ".weight_scale_inv"] = RNG.standard_normal(
            (ceil(out, B0), ceil(cols, B1))).astype(np.float32)
    for name in ("input_layernorm", "post_attention_layernorm"):
        t[p + name + ".weight"] = RNG.standard_normal(32).astype(np.float32)
    u.write_st(os.path.join(folder, "model.safetensors"), to_st(t), {"format": "pt"})
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "llama", "num_attention_heads": 4, "num_key_value_heads": kv_heads,
                   "hidden_size": 32, "intermediate_size": inter, "vocab_size": 16,
                   "quantization_config": {"quant_method": "fp8",
                                           "weight_block_size": [B0, B1]}}, f)
    return t


def test_presets(work):
    """--preset auto on an FP8 Llama: the scales follow the preset's cuts, and under
    --replicate-kv each rank takes the scale rows of the KV head it takes; merge and reshard with
    the preset give back the model and the direct shards."""
    src = fp8_llama(os.path.join(work, "fp8"), kv_heads=2)
    original = read(os.path.join(work, "fp8", "model.safetensors"))
    preset = ["--preset", "auto", "--replicate-kv"]
    for n in (2, 4):
        cmd(work, ["st", "shard", "fp8", "-o", f"tp{n}", "-n", str(n), "-q"] + preset,
            f"preset shard -n {n}")
        for r in range(n):
            got = arrays_of(os.path.join(work, f"tp{n}", f"rank{r}.safetensors"))
            for name, a in src.items():
                weight = name[:-len("_scale_inv")] if name.endswith("_scale_inv") else name
                if weight.endswith(("k_proj.weight", "v_proj.weight")):
                    head = r * 2 // n if n > 2 else r  # vLLM: rank r takes head r * kv / ranks
                    want = np.split(a, 2, axis=0)[head]
                elif weight.endswith(("q_proj.weight", "gate_proj.weight", "up_proj.weight",
                                      "embed_tokens.weight", "lm_head.weight")):
                    want = np.split(a, n, axis=0)[r]
                elif weight.endswith(("o_proj.weight", "down_proj.weight")):
                    want = np.split(a, n, axis=1)[r]
                else:
                    want = a
                check(name in got and np.array_equal(got[name], want),
                      f"preset -n {n} rank {r}: {name} is not NumPy's slice")
        cmd(work, ["st", "merge", f"tp{n}", "-o", f"m{n}", "-q"] + preset, f"preset merge {n}")
        check(read(os.path.join(work, f"m{n}", "model.safetensors")) == original,
              f"preset merge of {n} ranks is not the model byte for byte")
    cmd(work, ["st", "reshard", "tp4", "-o", "re", "-n", "2", "-q"] + preset, "preset reshard")
    for r in range(2):
        name = f"rank{r}.safetensors"
        check(read(os.path.join(work, "re", name)) == read(os.path.join(work, "tp2", name)),
              f"preset reshard 4 -> 2: {name} differs from shard -n 2")
    # An intermediate size of 40: 2 ranks take 20 of down's columns, inside its second block.
    fp8_llama(os.path.join(work, "odd"), kv_heads=2, inter=40)
    u.expect_failure("preset off block", ["st", "shard", "odd", "-o", "x", "-n", "2"] + preset,
                     work, 65, ["tensor 'model.layers.0.mlp.down_proj.weight' (F8_E4M3 [32,40]): "
                                "part 1 would start at column 20", "weight_block_size [4, 8]"])


def test_phi3(work):
    """st split --preset phi3 unfuses FP8 qkv_proj and gate_up_proj with their scales, [q; k; v]
    or per KV group (interleaved); shard --preset phi3 refuses a fused scaled weight."""
    os.makedirs(os.path.join(work, "phi"))
    p = "model.layers.0."
    t = {p + "self_attn.qkv_proj.weight": RNG.integers(0, 256, (64, 32), dtype=np.uint8),
         p + "mlp.gate_up_proj.weight": RNG.integers(0, 256, (128, 32), dtype=np.uint8)}
    for name in list(t):
        out, cols = t[name].shape
        t[name + "_scale_inv"] = RNG.standard_normal((out // B0, cols // B1)).astype(np.float32)
    u.write_st(os.path.join(work, "phi", "model.safetensors"), to_st(t))
    with open(os.path.join(work, "phi", "config.json"), "w") as f:
        json.dump({"model_type": "phi3", "num_attention_heads": 4, "num_key_value_heads": 2,
                   "hidden_size": 32, "intermediate_size": 64, "vocab_size": 16,
                   "quantization_config": {"weight_block_size": [B0, B1]}}, f)
    qkv, qkv_s = t[p + "self_attn.qkv_proj.weight"], t[p + "self_attn.qkv_proj.weight_scale_inv"]
    gu, gu_s = t[p + "mlp.gate_up_proj.weight"], t[p + "mlp.gate_up_proj.weight_scale_inv"]
    for layout in ("concat", "interleaved"):
        cmd(work, ["st", "split", "phi", "-o", layout, "-q", "--preset", "phi3", "--qkv-layout",
                   layout], f"phi3 split {layout}")
        got = arrays_of(os.path.join(work, layout, "model.safetensors"))
        if layout == "concat":  # rows [q 32; k 16; v 16], scale rows [8; 4; 4]
            parts = {"q": (qkv[:32], qkv_s[:8]), "k": (qkv[32:48], qkv_s[8:12]),
                     "v": (qkv[48:], qkv_s[12:])}
        else:  # per KV group of 32 rows: 2 q heads, 1 k, 1 v; scale rows per group: 4, 2, 2
            g, gs = qkv.reshape(2, 32, 32), qkv_s.reshape(2, 8, 4)
            parts = {"q": (g[:, :16].reshape(-1, 32), gs[:, :4].reshape(-1, 4)),
                     "k": (g[:, 16:24].reshape(-1, 32), gs[:, 4:6].reshape(-1, 4)),
                     "v": (g[:, 24:].reshape(-1, 32), gs[:, 6:].reshape(-1, 4))}
        parts["gate"] = (gu[:64], gu_s[:16])
        parts["up"] = (gu[64:], gu_s[16:])
        for k, (w, sc) in parts.items():
            kind = "mlp" if k in ("gate", "up") else "self_attn"
            name = f"{p}{kind}.{k}_proj.weight"
            check(np.array_equal(got.get(name), w), f"phi3 {layout}: {name}")
            check(np.array_equal(got.get(name + "_scale_inv"), sc),
                  f"phi3 {layout}: {name}_scale_inv is not its rows of the fused scale")
    u.expect_failure("phi3 shard", ["st", "shard", "phi", "-o", "x", "-n", "2", "--preset",
                                    "phi3"], work, 65,
                     ["which the preset cuts as a fused tensor: fused block-quantized weights "
                      "are not supported"])


def test_refusals(work):
    """A cut off a block boundary, no block size, a scale of the wrong shape, a rule that cuts
    a scale apart from its weight, a view that breaks blocks, ranks cut off block, a malformed
    --quant-block: status, message, nothing written."""
    src = model()
    write_model(os.path.join(work, "fp8"), src)
    down = P + "mlp.down_proj.weight"
    u.expect_failure("off-block columns", ["st", "shard", "fp8", "-o", "x", "-n", "4"] + BLOCK +
                     ["--axis", "*.down_proj.weight=1"], work, 65,
                     [f"tensor '{down}' (F8_E4M3 [24,20]): part 1 would start at column 5",
                      "quantization block of 8 columns (weight_block_size [4, 8])",
                      f"'{down}_scale_inv'"])
    u.expect_failure("off-block rows", ["st", "split", "fp8", "-o", "x"] + BLOCK +
                     ["--tensor", "*.q_proj.weight", "-a", "0", "-l", "6,10",
                      "--into", "*.a,*.b"], work, 65,
                     ["part 1 would start at row 6 of axis 0", "weight_block_size [4, 8]"])
    write_model(os.path.join(work, "noconf"), src, config=False)
    u.expect_failure("no block size", ["st", "shard", "noconf", "-o", "x", "-n", "2", "--axis",
                                       "*.q_proj.weight=0"], work, 65,
                     [f"tensor '{P}self_attn.q_proj.weight' is cut", "--quant-block B0,B1"])
    u.expect_failure("scale rule", ["st", "shard", "fp8", "-o", "x", "-n", "2"] + BLOCK +
                     ["--axis", "*.q_proj.weight=0", "--axis", "*_scale_inv=1"], work, 65,
                     [f"'{P}mlp.down_proj.weight_scale_inv' is the quantization scale of "
                      f"'{P}mlp.down_proj.weight'",
                      "the --axis rule '*_scale_inv' takes it otherwise"])
    u.expect_failure("scale replicated", ["st", "shard", "fp8", "-o", "x", "-n", "2"] + BLOCK +
                     ["--axis", "*.q_proj.weight=0", "--replicate", "*q_proj.weight_scale_inv"],
                     work, 65, ["the --replicate rule '*q_proj.weight_scale_inv'"])
    u.expect_failure("split rule on a scale", ["st", "split", "fp8", "-o", "x"] + BLOCK +
                     ["--tensor", "*.k_proj.weight_scale_inv", "-a", "0", "-n", "2",
                      "--into", "*.a,*.b"], work, 65,
                     ["is the quantization scale of", "rule 1 (--tensor"])
    u.expect_failure("view", ["st", "shard", "fp8", "-o", "x", "-n", "2"] + BLOCK +
                     ["--view", "*.qkv.weight=2,-1", "--axis", "*.qkv.weight=1"], work, 65,
                     ["viewed as [2,576]", "does not keep whole quantization blocks of [4, 8]"])
    u.expect_failure("bad option", ["st", "merge", "fp8", "-o", "x", "--quant-block", "4",
                                    "--axis", "*=0"], work, 64, ["--quant-block '4' is not B0,B1"])
    u.expect_failure("zero block", ["st", "shard", "fp8", "-o", "x", "-n", "2", "--quant-block",
                                    "0,8", "--axis", "*=0"], work, 64, ["is not B0,B1"])
    # A scale whose shape does not fit its weight's blocks.
    bad = dict(src)
    bad[P + "self_attn.k_proj.weight_scale_inv"] = np.zeros((3, 3), np.float32)
    write_model(os.path.join(work, "bad"), bad)
    u.expect_failure("scale shape", ["st", "shard", "bad", "-o", "x", "-n", "2"] + BLOCK +
                     ["--axis", "*.q_proj.weight=0"], work, 65,
                     [f"tensor '{P}self_attn.k_proj.weight_scale_inv' (F32 [3,3]) is the scale "
                      f"of '{P}self_attn.k_proj.weight' (F8_E4M3 [16,24]), which in "
                      "quantization blocks of [4, 8] needs a scale of shape [4,3]"])
    # Ranks whose parts of a weight do not meet on a block boundary (6 rows each, blocks of 4).
    os.makedirs(os.path.join(work, "ranks"))
    for r in range(2):
        part = {"w.weight": RNG.integers(0, 256, (6, 8), dtype=np.uint8),
                "w.weight_scale_inv": np.ones((2, 1), np.float32)}
        u.write_st(os.path.join(work, "ranks", f"rank{r}.safetensors"), to_st(part))
    for verb, extra in (("merge", []), ("reshard", ["-n", "1"])):
        u.expect_failure(f"{verb} off block", ["st", verb, "ranks", "-o", "x"] + extra + BLOCK +
                         ["--axis", "w.weight=0"], work, 65,
                         ["the merge of 2 ranks: tensor 'w.weight' (F8_E4M3 [12,8]): part 1 "
                          "would start at row 6", "weight_block_size [4, 8]"])
