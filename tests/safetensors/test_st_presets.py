#!/usr/bin/python3
"""cleave st shard/merge/reshard --preset NAME|auto on small synthetic models of the Llama family
(llama, mistral, qwen2, qwen3) and mixtures of experts (mixtral, qwen2_moe, qwen3_moe)
with their config.json: every rank holds exactly its attention
and KV heads, its rows of gate/up, columns of o/down, rows of the embeddings (checked against
NumPy slicing by heads, written here independently of cleave), the norms whole; a merge gives
the model back byte for byte (and st verify --against agrees); reshard gives what shard gives;
the command line's rules take the tensors they match before the preset; and every refusal (a
rank count that cuts heads, a config.json that disagrees with the tensors, an unknown
model_type, no config.json, a bad one, an unknown preset, a preset whose names are not the
model's) exits with its status and message and writes nothing."""
import json
import os
import shutil

import numpy as np

import st_util as u
from clitest import check

RNG = np.random.default_rng(24)


def make_model(folder, model_type="llama", heads=4, kv_heads=2, head_dim=None, hidden=64,
               inter=96, vocab=48, layers=2, bias=False, qk_norm=False, tied=False,
               config_extra=None, write_config=True):
    """Writes FOLDER/model.safetensors and FOLDER/config.json of a small model laid out as
    Hugging Face's Llama family: returns {name: array} and the config."""
    os.makedirs(folder, exist_ok=True)
    hd = head_dim or hidden // heads
    t = {"model.embed_tokens.weight": RNG.standard_normal((vocab, hidden)).astype(np.float16),
         "model.norm.weight": RNG.standard_normal(hidden).astype(np.float32)}
    if not tied:
        t["lm_head.weight"] = RNG.standard_normal((vocab, hidden)).astype(np.float32)
    for i in range(layers):
        p = f"model.layers.{i}."
        t[p + "self_attn.q_proj.weight"] = RNG.standard_normal((heads * hd, hidden)).astype(np.float32)
        t[p + "self_attn.k_proj.weight"] = RNG.standard_normal((kv_heads * hd, hidden)).astype(np.float32)
        t[p + "self_attn.v_proj.weight"] = RNG.standard_normal((kv_heads * hd, hidden)).astype(np.float16)
        t[p + "self_attn.o_proj.weight"] = RNG.standard_normal((hidden, heads * hd)).astype(np.float32)
        if bias:
            t[p + "self_attn.q_proj.bias"] = RNG.standard_normal(heads * hd).astype(np.float32)
            t[p + "self_attn.k_proj.bias"] = RNG.standard_normal(kv_heads * hd).astype(np.float32)
            t[p + "self_attn.v_proj.bias"] = RNG.standard_normal(kv_heads * hd).astype(np.float32)
        if qk_norm:
            t[p + "self_attn.q_norm.weight"] = RNG.standard_normal(hd).astype(np.float32)
            t[p + "self_attn.k_norm.weight"] = RNG.standard_normal(hd).astype(np.float32)
        t[p + "mlp.gate_proj.weight"] = RNG.standard_normal((inter, hidden)).astype(np.float16)
        t[p + "mlp.up_proj.weight"] = RNG.standard_normal((inter, hidden)).astype(np.float16)
        t[p + "mlp.down_proj.weight"] = RNG.integers(-9, 9, (hidden, inter), dtype=np.int8)
        t[p + "input_layernorm.weight"] = RNG.standard_normal(hidden).astype(np.float32)
        t[p + "post_attention_layernorm.weight"] = RNG.standard_normal(hidden).astype(np.float32)
    u.write_st(os.path.join(folder, "model.safetensors"),
               {k: u.array_tensor(v) for k, v in t.items()}, {"format": "pt"})
    config = {"model_type": model_type, "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": hidden, "intermediate_size": inter,
              "vocab_size": vocab, "num_hidden_layers": layers, "tie_word_embeddings": tied,
              "torch_dtype": "float32"}
    if head_dim is not None:
        config["head_dim"] = head_dim
    config.update(config_extra or {})
    if write_config:
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f)
    return t, config


def heads_slice(a, axis, heads, rank, ranks):
    """Rank `rank`'s whole heads of `a` along `axis`: `heads` heads, ranks dividing them."""
    per = heads // ranks
    shape = a.shape[:axis] + (heads, a.shape[axis] // heads) + a.shape[axis + 1:]
    v = a.reshape(shape)
    index = [slice(None)] * v.ndim
    index[axis] = slice(rank * per, (rank + 1) * per)
    part = v[tuple(index)]
    return part.reshape(a.shape[:axis] + (per * a.shape[axis] // heads,) + a.shape[axis + 1:])


def kv_of(rank, ranks, kv):
    """The KV heads rank `rank` takes: its share when the ranks divide them."""
    return rank * kv // ranks


def expected_rank(t, config, rank, ranks):
    """What a rank of shard --preset holds, from NumPy slicing by heads and rows."""
    heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
    out = {}
    for name, a in t.items():
        if name.endswith(("q_proj.weight", "q_proj.bias")):
            out[name] = heads_slice(a, 0, heads, rank, ranks)
        elif name.endswith(("k_proj.weight", "k_proj.bias", "v_proj.weight", "v_proj.bias")):
            out[name] = heads_slice(a, 0, kv, rank, ranks)
        elif name.endswith("o_proj.weight"):
            out[name] = heads_slice(a, 1, heads, rank, ranks)
        elif name.endswith(("gate_proj.weight", "up_proj.weight", "embed_tokens.weight",
                            ".w1.weight", ".w3.weight")) or name == "lm_head.weight":
            out[name] = np.split(a, ranks, axis=0)[rank]
        elif name.endswith(("down_proj.weight", ".w2.weight")):
            out[name] = np.split(a, ranks, axis=1)[rank]
        else:
            out[name] = a
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cmd(work, args, label):
    r = u.run(args, work)
    check(r.returncode == 0, f"{label}: {r.returncode} {r.stderr.strip()}")
    return r


def check_ranks(folder, t, config, ranks, label, expect=expected_rank):
    for rank in range(ranks):
        _, got = u.read_st(os.path.join(folder, f"rank{rank}.safetensors"))
        want = expect(t, config, rank, ranks)
        check(sorted(got) == sorted(want), f"{label}: rank {rank} tensors {sorted(got)}")
        for name, a in want.items():
            if name in got:
                g = u.as_array(got[name])
                check(g.shape == a.shape and np.array_equal(g, a),
                      f"{label}: rank {rank}: {name} is {g.shape}, not its heads {a.shape}")


def verify(work, outdir, against, label):
    r = u.run(["st", "verify", outdir, "--against"] + against, work)
    check(r.returncode == 0, f"{label}: st verify: {r.returncode} {r.stdout} {r.stderr}")


def round_trip(work, name, t, config, ranks_list, preset=("--preset", "auto"), tag=""):
    """shard -n N with the preset, each rank checked; merge with it gives the model back."""
    model = os.path.join(name, "model.safetensors")
    original = read(os.path.join(work, model))
    for n in ranks_list:
        tp = f"{name}{tag}_tp{n}"
        cmd(work, ["st", "shard", name, "-o", tp, "-n", str(n), "-q"] + list(preset),
            f"{name}: shard -n {n}")
        check_ranks(os.path.join(work, tp), t, config, n, f"{name} -n {n}")
        verify(work, tp, [name], f"{name} shard -n {n}")
        # merge reads the config.json shard copied beside the ranks.
        check(os.path.exists(os.path.join(work, tp, "config.json")), f"{tp}: no config.json")
        merged = f"{name}{tag}_merged{n}"
        cmd(work, ["st", "merge", tp, "-o", merged, "-q"] + list(preset), f"{name}: merge {n}")
        check(read(os.path.join(work, merged, "model.safetensors")) == original,
              f"{name}: merge of {n} ranks is not the model byte for byte")
        verify(work, merged, [os.path.join(tp, f"rank{r}.safetensors") for r in range(n)],
               f"{name} merge {n}")


def test_llama_gqa(work):
    """Llama with 4 heads and 2 KV heads: 1 and 2 ranks; reshard 2 -> 1 and 1 -> 2."""
    t, config = make_model(os.path.join(work, "llama"))
    round_trip(work, "llama", t, config, (1, 2))
    cmd(work, ["st", "reshard", "llama_tp2", "-o", "re21", "-n", "1", "-q", "--preset", "auto"],
        "reshard 2 -> 1")
    check(read(os.path.join(work, "re21", "rank0.safetensors")) ==
          read(os.path.join(work, "llama_tp1", "rank0.safetensors")), "reshard 2 -> 1")
    cmd(work, ["st", "reshard", "llama_tp1", "-o", "re12", "-n", "2", "-q", "--preset", "auto"],
        "reshard 1 -> 2")
    for r in range(2):
        check(read(os.path.join(work, "re12", f"rank{r}.safetensors")) ==
              read(os.path.join(work, "llama_tp2", f"rank{r}.safetensors")), f"reshard 1 -> 2: {r}")
    # The rules of docs/presets.md written out give the same ranks.
    hand = ["--axis", "*.self_attn.q_proj.weight=0", "--axis", "*.self_attn.k_proj.weight=0",
            "--axis", "*.self_attn.v_proj.weight=0", "--axis", "*.self_attn.o_proj.weight=1",
            "--axis", "*.mlp.gate_proj.weight=0", "--axis", "*.mlp.up_proj.weight=0",
            "--axis", "*.mlp.down_proj.weight=1", "--axis", "*embed_tokens.weight=0",
            "--axis", "lm_head.weight=0", "--replicate", "*norm.weight", "--unmatched", "error"]
    cmd(work, ["st", "shard", "llama", "-o", "hand", "-n", "2", "-q"] + hand, "rules by hand")
    for r in range(2):
        mh, th = u.read_st(os.path.join(work, "hand", f"rank{r}.safetensors"))
        mp, tp = u.read_st(os.path.join(work, "llama_tp2", f"rank{r}.safetensors"))
        check(th == tp and u.model_meta(mh) == u.model_meta(mp), f"by hand: {r}")
    # The rank files named one by one: config.json beside the first.
    files = [f"llama_tp2/rank{r}.safetensors" for r in range(2)]
    cmd(work, ["st", "merge"] + files + ["-o", "files", "-q", "--preset", "llama"], "merge files")
    check(read(os.path.join(work, "files", "model.safetensors")) ==
          read(os.path.join(work, "llama", "model.safetensors")), "merge of the files")


def test_family(work):
    """mistral (by name and auto), qwen2 (q/k/v biases), qwen3 (head_dim given, not hidden /
    heads; q_norm and k_norm replicated; tied embeddings without lm_head), MHA with 4 ranks."""
    t, config = make_model(os.path.join(work, "mistral"), "mistral", heads=8, kv_heads=2)
    round_trip(work, "mistral", t, config, (2,))
    round_trip(work, "mistral", t, config, (2,), ("--preset", "mistral"), "_named")
    t, config = make_model(os.path.join(work, "qwen2"), "qwen2", heads=4, kv_heads=2, bias=True)
    round_trip(work, "qwen2", t, config, (2,))
    t, config = make_model(os.path.join(work, "qwen3"), "qwen3", heads=4, kv_heads=2, head_dim=8,
                           hidden=48, qk_norm=True, tied=True)
    round_trip(work, "qwen3", t, config, (1, 2))
    t, config = make_model(os.path.join(work, "mha"), "llama", heads=4, kv_heads=4, inter=64)
    round_trip(work, "mha", t, config, (4,))
    # A named preset of another family is refused, unless --override-preset: a llama model
    # sharded as qwen2 (no biases: its rules for them match nothing, which a preset's may).
    u.expect_failure("another family's preset", ["st", "shard", "mha", "-o", "x", "-n", "2",
                                                 "--preset", "qwen2"], work, 65,
                     ["mha/config.json: the model's model_type is 'llama', not qwen2's 'qwen2'",
                      "--override-preset"])
    round_trip(work, "mha", t, config, (2,), ("--preset", "qwen2", "--override-preset"),
               "_as_qwen2")


def test_command_line_first(work):
    """The command line's rules take the tensors they match before the preset: --axis cuts
    lm_head along axis 1, --replicate keeps k and v whole (the preset's head checks do not apply
    to them; 8 ranks then reach o_proj's 4 attention heads, refused); --unmatched error accepts
    the norms the preset replicates and refuses a tensor no rule names."""
    t, config = make_model(os.path.join(work, "m"))
    rules = ["--preset", "auto", "--axis", "lm_head.weight=1", "--replicate", "*.k_proj.weight",
             "--replicate", "*.v_proj.weight"]
    cmd(work, ["st", "shard", "m", "-o", "tp", "-n", "2", "-q"] + rules, "shard with overrides")

    def expect(t, config, rank, ranks):
        out = expected_rank(t, config, rank, ranks)
        out["lm_head.weight"] = np.split(t["lm_head.weight"], ranks, axis=1)[rank]
        for name in t:
            if "k_proj" in name or "v_proj" in name:
                out[name] = t[name]
        return out
    check_ranks(os.path.join(work, "tp"), t, config, 2, "overrides", expect)
    cmd(work, ["st", "merge", "tp", "-o", "back", "-q"] + rules, "merge with overrides")
    check(read(os.path.join(work, "back", "model.safetensors")) ==
          read(os.path.join(work, "m", "model.safetensors")), "merge with overrides")
    cmd(work, ["st", "shard", "m", "-o", "strict", "-n", "2", "-q", "--preset", "auto",
               "--unmatched", "error"], "--unmatched error with the preset")
    extra = dict(t, **{"model.extra.weight": np.zeros(4, np.float32)})
    u.write_st(os.path.join(work, "m", "model.safetensors"),
               {k: u.array_tensor(v) for k, v in extra.items()})
    u.expect_failure("unmatched extra", ["st", "shard", "m", "-o", "x", "-n", "2", "--preset",
                                         "auto", "--unmatched", "error"], work, 65,
                     ["st shard: tensor 'model.extra.weight' matches no --axis or --replicate "
                      "rule (--unmatched error)"])
    # With k and v replicated by the command line, 8 ranks reach o_proj's 4 attention heads.
    u.write_st(os.path.join(work, "m", "model.safetensors"),
               {k: u.array_tensor(v) for k, v in t.items()})
    u.expect_failure("attention heads cut", ["st", "shard", "m", "-o", "x", "-n", "8"] + rules,
                     work, 65,
                     ["tensor 'model.layers.0.self_attn.o_proj.weight': 8 ranks would cut its 4 "
                      "attention heads of 16 columns (every rank takes whole heads"])


def test_refusals(work):
    """Each refusal: its status, its message, nothing written."""
    make_model(os.path.join(work, "m"))
    m = os.path.join("m", "model.safetensors")
    u.expect_failure("KV heads cut", ["st", "shard", "m", "-o", "x", "-n", "4", "--preset",
                                      "auto"], work, 65,
                     ["st shard: m/model.safetensors: tensor "
                      "'model.layers.0.self_attn.k_proj.weight': 4 ranks would cut its 2 KV heads "
                      "of 16 rows; --replicate-kv gives each rank the KV heads its query heads "
                      "use"])
    u.expect_failure("KV heads cut unevenly", ["st", "shard", m, "-o", "x", "-n", "3",
                                               "--preset", "llama"], work, 65,
                     ["'model.layers.0.self_attn.k_proj.weight': 3 ranks would cut its 2 KV "
                      "heads of 16 rows (every rank takes whole heads: the ranks must divide "
                      "the heads)"])
    # A merge of ranks that a cut inside heads made (explicit rules): the merged tensor is whole,
    # but a reshard to 4 would cut the KV heads.
    plain = ["--axis", "*_proj.weight=0"]
    cmd(work, ["st", "shard", "m", "-o", "tp4", "-n", "4", "-q"] + plain, "plain shard -n 4")
    # Ranks record their rules: other rules are refused, naming both.
    u.expect_failure("reshard with other rules", ["st", "reshard", "tp4", "-o", "x", "-n", "4",
                                                  "--preset", "auto"], work, 64,
                     ["st reshard: the rules given (--preset llama) are not those the ranks "
                      "record (--axis '*_proj.weight=0')"])
    # Ranks another tool wrote (no record) take the rules given.
    u.strip_records(os.path.join(work, "tp4"))
    u.expect_failure("reshard cuts KV heads", ["st", "reshard", "tp4", "-o", "x", "-n", "4",
                                               "--preset", "auto"], work, 65,
                     ["st reshard: the merge of 4 ranks: tensor "
                      "'model.layers.0.self_attn.k_proj.weight': 4 ranks would cut its 2 KV "
                      "heads of 16 rows; --replicate-kv"])
    # config.json that disagrees with the tensors.
    with open(os.path.join(work, "m", "config.json")) as f:
        config = json.load(f)
    wrong = dict(config, num_key_value_heads=4)
    with open(os.path.join(work, "m", "config.json"), "w") as f:
        json.dump(wrong, f)
    u.expect_failure("config disagrees", ["st", "shard", "m", "-o", "x", "-n", "2", "--preset",
                                          "auto"], work, 65,
                     ["tensor 'model.layers.0.self_attn.k_proj.weight' has 32 rows on axis 0, "
                      "not the 4 KV heads of 16 (64) that config.json gives"])
    for model_type, words in (("gpt2", ["m/config.json: model_type 'gpt2' has no preset (the "
                                        "presets: llama, mistral, qwen2, qwen3, mixtral, qwen2_moe, qwen3_moe, phi3)"]),
                              (None, ["m/config.json: no model_type, so --preset auto cannot "
                                      "choose"])):
        bad = dict(config)
        if model_type is None:
            del bad["model_type"]
        else:
            bad["model_type"] = model_type
        with open(os.path.join(work, "m", "config.json"), "w") as f:
            json.dump(bad, f)
        u.expect_failure(f"model_type {model_type}", ["st", "shard", "m", "-o", "x", "-n", "2",
                                                      "--preset", "auto"], work, 65, words)
    with open(os.path.join(work, "m", "config.json"), "w") as f:
        f.write('{"model_type": "llama", "num_attention_heads": "4"}')
    u.expect_failure("bad config", ["st", "shard", "m", "-o", "x", "-n", "2", "--preset", "auto"],
                     work, 65, ["st shard: m/config.json: num_attention_heads is not an integer"])
    with open(os.path.join(work, "m", "config.json"), "w") as f:
        json.dump(dict(config, num_attention_heads=None, num_key_value_heads=None), f)
    u.expect_failure("no heads", ["st", "shard", "m", "-o", "x", "-n", "2", "--preset", "auto"],
                     work, 65, ["m/config.json: no num_attention_heads, which preset 'llama' "
                                "needs to keep attention heads whole"])
    os.remove(os.path.join(work, "m", "config.json"))
    u.expect_failure("no config", ["st", "shard", m, "-o", "x", "-n", "2", "--preset", "auto"],
                     work, 66, ["st shard: --preset auto: the model's config.json gives its "
                                "heads: cannot open 'm/config.json'"])
    # The model is opened before its config.json is looked for: a missing one is named.
    u.expect_failure("no model", ["st", "shard", "nope", "-o", "x", "-n", "2", "--preset",
                                  "auto"], work, 66, ["nope"])
    u.expect_failure("no ranks", ["st", "merge", "nope/", "-o", "x", "--preset", "auto"], work,
                     66, ["nope"])
    u.expect_failure("unknown preset", ["st", "shard", m, "-o", "x", "-n", "2", "--preset",
                                        "gpt2"], work, 64,
                     ["st shard: --preset 'gpt2' is not one of auto, llama, mistral, qwen2, "
                      "qwen3, mixtral, qwen2_moe, qwen3_moe, phi3"])
    u.expect_failure("unknown preset (merge)", ["st", "merge", "tp4", "-o", "x", "--preset",
                                                "Llama"], work, 64,
                     ["st merge: --preset 'Llama' is not one of auto"])
    u.expect_failure("split has no --replicate-kv", ["st", "split", m, "-o", "x", "--preset",
                                                     "phi3", "--replicate-kv"],
                     work, 64, ["st split: --replicate-kv belongs to 'st merge', 'st reshard' and "
                                "'st shard'"])
    # A preset whose names are not the model's cuts nothing: refused, not replicated silently.
    os.makedirs(os.path.join(work, "other"))
    u.write_st(os.path.join(work, "other", "model.safetensors"),
               {"transformer.h.0.attn.c_attn.weight": u.array_tensor(np.zeros((4, 4), np.float32))})
    with open(os.path.join(work, "other", "config.json"), "w") as f:
        json.dump(dict(config, model_type="llama"), f)
    u.expect_failure("names not the preset's", ["st", "shard", "other", "-o", "x", "-n", "2",
                                                "--preset", "auto"], work, 65,
                     ["st shard: the preset cuts no tensor of the model: its names are not the "
                      "preset's (no tensor matches '*.self_attn.q_proj.weight'"])


def expected_replicated(t, config, rank, ranks):
    """A rank of shard --preset --replicate-kv: its query heads, and whole the KV head they use
    when the ranks outnumber the KV heads (vLLM: rank // (ranks / kv_heads))."""
    kv = config["num_key_value_heads"]
    if kv >= ranks:
        return expected_rank(t, config, rank, ranks)
    out = expected_rank(t, dict(config, num_key_value_heads=ranks), rank, ranks)
    for name, a in t.items():
        if "k_proj" in name or "v_proj" in name:
            out[name] = heads_slice(a, 0, kv, rank // (ranks // kv), kv)
    return out


def test_replicate_kv(work):
    """--replicate-kv: one KV head (MQA) over 2 and 4 ranks, 2 KV heads over 4 ranks (ranks 0, 1
    take head 0, ranks 2, 3 head 1); merge takes each head once and gives the model back;
    reshard in and out of replicated ranks; replicas that differ, a merge without the option, a
    rank count that is no multiple of the KV heads, o_proj's heads still checked."""
    rk = ["--preset", "auto", "--replicate-kv"]
    for name, heads, kv, ranks in (("mqa", 4, 1, (2, 4)), ("gqa", 8, 2, (4, 2))):
        t, config = make_model(os.path.join(work, name), heads=heads, kv_heads=kv)
        original = read(os.path.join(work, name, "model.safetensors"))
        for n in ranks:
            tp = f"{name}_tp{n}"
            cmd(work, ["st", "shard", name, "-o", tp, "-n", str(n), "-q"] + rk, f"{tp}: shard")
            check_ranks(os.path.join(work, tp), t, config, n, tp, expected_replicated)
            verify(work, tp, [name], f"{tp} shard")
            cmd(work, ["st", "merge", tp, "-o", f"{tp}_m", "-q"] + rk, f"{tp}: merge")
            check(read(os.path.join(work, f"{tp}_m", "model.safetensors")) == original,
                  f"{tp}: merge with --replicate-kv is not the model byte for byte")
            verify(work, f"{tp}_m", [os.path.join(tp, f"rank{r}.safetensors") for r in range(n)],
                   f"{tp} merge")
        a, b = (f"{name}_tp{n}" for n in ranks)
        cmd(work, ["st", "reshard", a, "-o", f"{name}_re", "-n", str(ranks[1]), "-q"] + rk,
            f"{name}: reshard {ranks[0]} -> {ranks[1]}")
        for r in range(ranks[1]):
            check(read(os.path.join(work, f"{name}_re", f"rank{r}.safetensors")) ==
                  read(os.path.join(work, b, f"rank{r}.safetensors")),
                  f"{name}: reshard {ranks[0]} -> {ranks[1]}: rank {r} differs from the shard")
    # The copies of a KV head must agree: rank 1's differs from rank 0's.
    m1, r1 = u.read_st(os.path.join(work, "mqa_tp4", "rank1.safetensors"))
    k = "model.layers.1.self_attn.k_proj.weight"
    a = u.as_array(r1[k]).copy()
    a[3, 5] += 1
    r1[k] = u.array_tensor(a)
    u.write_st(os.path.join(work, "mqa_tp4", "rank1.safetensors"), r1, m1)
    u.expect_failure("replicas differ", ["st", "merge", "mqa_tp4", "-o", "x"] + rk, work, 65,
                     [f"tensor '{k}' differs between rank 0", "and rank 1",
                      f"first at byte {(3 * 64 + 5) * 4}", "the ranks that share a KV head must "
                      "hold the same copy of it (--replicate-kv)"])
    # Ranks cut with --replicate-kv record it: a merge that leaves it out is told so.
    u.expect_failure("merge without --replicate-kv", ["st", "merge", "mqa_tp2", "-o", "x",
                                                      "--preset", "auto"], work, 64,
                     ["st merge: the rules given (--preset llama) are not those the ranks record "
                      "(--preset llama --replicate-kv)"])
    shutil.copytree(os.path.join(work, "mqa_tp2"), os.path.join(work, "mqa_tp2_norec"))
    u.strip_records(os.path.join(work, "mqa_tp2_norec"))
    u.expect_failure("merge without --replicate-kv, no record",
                     ["st", "merge", "mqa_tp2_norec", "-o", "x", "--preset", "auto"], work, 65,
                     ["st merge: the merge of 2 ranks: tensor "
                      "'model.layers.0.self_attn.k_proj.weight' has 32 rows on axis 0, not the 1 "
                      "KV heads of 16 (16) that config.json gives"])
    u.expect_failure("not a multiple", ["st", "shard", "gqa", "-o", "x", "-n", "3"] + rk, work,
                     65, ["tensor 'model.layers.0.self_attn.k_proj.weight': 3 ranks would cut its "
                          "2 KV heads of 8 rows (--replicate-kv needs the ranks to be a multiple "
                          "of the KV heads)"])
    u.expect_failure("attention heads", ["st", "shard", "mqa", "-o", "x", "-n", "8"] + rk, work,
                     65, ["tensor 'model.layers.0.self_attn.o_proj.weight': 8 ranks would cut its "
                          "4 attention heads of 16 columns (every rank takes whole heads"])
    u.expect_failure("--replicate-kv alone", ["st", "shard", "mqa", "-o", "x", "-n", "2",
                                              "--replicate-kv", "--axis", "*.q_proj.weight=0"],
                     work, 64, ["st shard: --replicate-kv needs --preset"])


def make_moe(folder, model_type, experts=4, moe_inter=24, shared=0, dense_layers=(), **kw):
    """A small mixture of experts of Hugging Face's layout: Mixtral's block_sparse_moe (router
    gate, experts.E.w1/w2/w3) or Qwen MoE's mlp (router gate, experts.E.gate/up/down_proj, and
    with `shared` a shared expert and its gate); layers in `dense_layers` keep a dense MLP."""
    t, config = make_model(folder, model_type, write_config=False, **kw)
    hidden, layers = config["hidden_size"], config["num_hidden_layers"]
    for i in range(layers):
        p = f"model.layers.{i}."
        if i in dense_layers:
            continue
        for k in ("gate_proj", "up_proj", "down_proj"):
            del t[p + f"mlp.{k}.weight"]
        if model_type == "mixtral":
            m = p + "block_sparse_moe."
            t[m + "gate.weight"] = RNG.standard_normal((experts, hidden)).astype(np.float32)
            for e in range(experts):
                t[m + f"experts.{e}.w1.weight"] = RNG.standard_normal((moe_inter, hidden)).astype(np.float16)
                t[m + f"experts.{e}.w3.weight"] = RNG.standard_normal((moe_inter, hidden)).astype(np.float16)
                t[m + f"experts.{e}.w2.weight"] = RNG.standard_normal((hidden, moe_inter)).astype(np.float16)
            continue
        m = p + "mlp."
        t[m + "gate.weight"] = RNG.standard_normal((experts, hidden)).astype(np.float32)
        for e in range(experts):
            t[m + f"experts.{e}.gate_proj.weight"] = RNG.standard_normal((moe_inter, hidden)).astype(np.float32)
            t[m + f"experts.{e}.up_proj.weight"] = RNG.standard_normal((moe_inter, hidden)).astype(np.float32)
            t[m + f"experts.{e}.down_proj.weight"] = RNG.standard_normal((hidden, moe_inter)).astype(np.float32)
        if shared:
            t[m + "shared_expert.gate_proj.weight"] = RNG.standard_normal((shared, hidden)).astype(np.float32)
            t[m + "shared_expert.up_proj.weight"] = RNG.standard_normal((shared, hidden)).astype(np.float32)
            t[m + "shared_expert.down_proj.weight"] = RNG.standard_normal((hidden, shared)).astype(np.float32)
            t[m + "shared_expert_gate.weight"] = RNG.standard_normal((1, hidden)).astype(np.float32)
    u.write_st(os.path.join(folder, "model.safetensors"),
               {k: u.array_tensor(v) for k, v in t.items()}, {"format": "pt"})
    key = "num_local_experts" if model_type == "mixtral" else "num_experts"
    config.update({key: experts, "moe_intermediate_size": moe_inter, "num_experts_per_tok": 2})
    if shared:
        config["shared_expert_intermediate_size"] = shared
    if dense_layers:
        config["mlp_only_layers"] = list(dense_layers)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    return t, config


def test_moe(work):
    """mixtral, qwen2_moe (a shared expert, q/k/v biases, a dense layer), qwen3_moe (q_norm,
    k_norm, head_dim given): each expert cut as a dense MLP (w1/w3 or gate/up rows, w2 or down
    columns), the routers whole, the merge the model byte for byte; an expert size the ranks do
    not divide is refused."""
    t, config = make_moe(os.path.join(work, "mixtral"), "mixtral", heads=4, kv_heads=2)
    round_trip(work, "mixtral", t, config, (1, 2))
    _, rank1 = u.read_st(os.path.join(work, "mixtral_tp2", "rank1.safetensors"))
    check(rank1["model.layers.1.block_sparse_moe.experts.3.w2.weight"][1] == (64, 12) and
          rank1["model.layers.0.block_sparse_moe.gate.weight"][1] == (4, 64),
          "mixtral: expert 3's w2 is cut, the router is whole")
    t, config = make_moe(os.path.join(work, "qwen2_moe"), "qwen2_moe", bias=True, shared=40,
                         dense_layers=(0,))
    round_trip(work, "qwen2_moe", t, config, (1, 2))
    cmd(work, ["st", "reshard", "qwen2_moe_tp2", "-o", "q2re", "-n", "1", "-q", "--preset",
               "auto"], "qwen2_moe: reshard 2 -> 1")
    check(read(os.path.join(work, "q2re", "rank0.safetensors")) ==
          read(os.path.join(work, "qwen2_moe_tp1", "rank0.safetensors")),
          "qwen2_moe: reshard 2 -> 1 differs from shard -n 1")
    t, config = make_moe(os.path.join(work, "qwen3_moe"), "qwen3_moe", heads=4, kv_heads=4,
                         head_dim=8, hidden=48, qk_norm=True, tied=True, experts=8)
    round_trip(work, "qwen3_moe", t, config, (4,))
    make_moe(os.path.join(work, "odd"), "qwen3_moe", moe_inter=30)
    u.expect_failure("expert size", ["st", "shard", "odd", "-o", "x", "-n", "4", "--preset",
                                     "auto"], work, 65,
                     ["tensor 'model.layers.0.mlp.experts.0.down_proj.weight' (F32 [64,30])",
                      "not divisible by num_splits = 4"])


def make_phi3(folder, layout="concat", heads=8, kv_heads=2, hidden=64, inter=48, vocab=48,
              layers=2, model_type="phi3"):
    """A small Phi-3 (Hugging Face's names): qkv_proj fused from q, k and v in `layout` (concat:
    [q; k; v]; interleaved: Megatron's, for each KV group its query heads, its k, its v) and
    gate_up_proj from [gate; up]. Returns the fused arrays and the unfused ones."""
    os.makedirs(folder, exist_ok=True)
    hd, group = hidden // heads, heads // kv_heads
    fused = {"model.embed_tokens.weight": RNG.standard_normal((vocab, hidden)).astype(np.float32),
             "model.norm.weight": RNG.standard_normal(hidden).astype(np.float32),
             "lm_head.weight": RNG.standard_normal((vocab, hidden)).astype(np.float32)}
    parts = {}
    for i in range(layers):
        p = f"model.layers.{i}."
        q = RNG.standard_normal((heads * hd, hidden)).astype(np.float16)
        k = RNG.standard_normal((kv_heads * hd, hidden)).astype(np.float16)
        v = RNG.standard_normal((kv_heads * hd, hidden)).astype(np.float16)
        gate = RNG.standard_normal((inter, hidden)).astype(np.float32)
        up = RNG.standard_normal((inter, hidden)).astype(np.float32)
        if layout == "concat":
            qkv = np.concatenate([q, k, v])
        else:
            qkv = np.concatenate([np.concatenate([q[g * group * hd:(g + 1) * group * hd],
                                                  k[g * hd:(g + 1) * hd], v[g * hd:(g + 1) * hd]])
                                  for g in range(kv_heads)])
        fused[p + "self_attn.qkv_proj.weight"] = qkv
        fused[p + "mlp.gate_up_proj.weight"] = np.concatenate([gate, up])
        fused[p + "self_attn.o_proj.weight"] = RNG.standard_normal((hidden, heads * hd)).astype(np.float32)
        fused[p + "mlp.down_proj.weight"] = RNG.standard_normal((hidden, inter)).astype(np.float32)
        fused[p + "input_layernorm.weight"] = RNG.standard_normal(hidden).astype(np.float32)
        fused[p + "post_attention_layernorm.weight"] = RNG.standard_normal(hidden).astype(np.float32)
        parts.update({p + "self_attn.q_proj.weight": q, p + "self_attn.k_proj.weight": k,
                      p + "self_attn.v_proj.weight": v, p + "mlp.gate_proj.weight": gate,
                      p + "mlp.up_proj.weight": up})
    u.write_st(os.path.join(folder, "model.safetensors"),
               {k: u.array_tensor(v) for k, v in fused.items()}, {"format": "pt"})
    config = {"model_type": model_type, "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "hidden_size": hidden, "intermediate_size": inter,
              "vocab_size": vocab, "num_hidden_layers": layers}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    return fused, parts, config


def phi3_rank(layout):
    """What a rank of shard --preset phi3 holds, from the unfused pieces (held in the closure)."""
    def expect(t, config, rank, ranks):
        fused, parts = t
        heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
        out = {}
        for name, a in fused.items():
            p = name.rsplit("self_attn.", 1)[0].rsplit("mlp.", 1)[0]
            if name.endswith("qkv_proj.weight"):
                if layout == "interleaved":  # whole KV groups: a plain cut of the fused rows
                    out[name] = heads_slice(a, 0, kv, rank, ranks)
                else:
                    out[name] = np.concatenate([
                        heads_slice(parts[p + "self_attn.q_proj.weight"], 0, heads, rank, ranks),
                        heads_slice(parts[p + "self_attn.k_proj.weight"], 0, kv, rank, ranks),
                        heads_slice(parts[p + "self_attn.v_proj.weight"], 0, kv, rank, ranks)])
            elif name.endswith("gate_up_proj.weight"):
                out[name] = np.concatenate([
                    np.split(parts[p + "mlp.gate_proj.weight"], ranks)[rank],
                    np.split(parts[p + "mlp.up_proj.weight"], ranks)[rank]])
            elif name.endswith("o_proj.weight"):
                out[name] = heads_slice(a, 1, heads, rank, ranks)
            elif name.endswith("down_proj.weight"):
                out[name] = np.split(a, ranks, axis=1)[rank]
            elif name.endswith("embed_tokens.weight") or name == "lm_head.weight":
                out[name] = np.split(a, ranks)[rank]
            else:
                out[name] = a
        return out
    return expect


def test_phi3(work):
    """phi3: split unfuses qkv_proj and gate_up_proj (both layouts; the parts equal the pieces
    the model was fused from); shard gives each rank [its q heads; its k heads; its v heads] and
    [its gate rows; its up rows] (concat), or its whole KV groups (interleaved); merge gives the
    model back byte for byte; reshard equals shard; the refusals."""
    for layout in ("concat", "interleaved"):
        name = f"phi3_{layout}"
        fused, parts, config = make_phi3(os.path.join(work, name), layout)
        lay = ["--qkv-layout", layout] if layout == "interleaved" else []
        cmd(work, ["st", "split", name, "-o", f"{name}_split", "-q", "--preset", "auto"] + lay,
            f"{name}: split")
        _, got = u.read_st(os.path.join(work, f"{name}_split", "model.safetensors"))
        want = {k: v for k, v in fused.items() if "qkv_proj" not in k and "gate_up" not in k}
        want.update(parts)
        check(sorted(got) == sorted(want), f"{name}: split tensors {sorted(got)}")
        for k, a in want.items():
            check(k in got and np.array_equal(u.as_array(got[k]), a), f"{name}: split {k}")
        verify(work, f"{name}_split", [name], f"{name} split")
        original = read(os.path.join(work, name, "model.safetensors"))
        preset = ["--preset", "auto"] + lay
        for n in (1, 2):
            tp = f"{name}_tp{n}"
            cmd(work, ["st", "shard", name, "-o", tp, "-n", str(n), "-q"] + preset, f"{tp}: shard")
            check_ranks(os.path.join(work, tp), (fused, parts), config, n, tp,
                        lambda t, c, r, k: phi3_rank(layout)(t, c, r, k))
            verify(work, tp, [name], f"{tp} shard")
            cmd(work, ["st", "merge", tp, "-o", f"{tp}_m", "-q"] + preset, f"{tp}: merge")
            check(read(os.path.join(work, f"{tp}_m", "model.safetensors")) == original,
                  f"{tp}: merge is not the model byte for byte")
            verify(work, f"{tp}_m", [os.path.join(tp, f"rank{r}.safetensors") for r in range(n)],
                   f"{tp} merge")
        for a, b in ((2, 1), (1, 2)):
            out = f"{name}_re{a}{b}"
            cmd(work, ["st", "reshard", f"{name}_tp{a}", "-o", out, "-n", str(b), "-q"] + preset,
                f"{name}: reshard {a} -> {b}")
            for r in range(b):
                check(read(os.path.join(work, out, f"rank{r}.safetensors")) ==
                      read(os.path.join(work, f"{name}_tp{b}", f"rank{r}.safetensors")),
                      f"{name}: reshard {a} -> {b}: rank {r} differs from the shard")
    # Refusals.
    u.expect_failure("fused KV heads cut", ["st", "shard", "phi3_concat", "-o", "x", "-n", "4",
                                            "--preset", "auto"], work, 65,
                     ["tensor 'model.layers.0.self_attn.qkv_proj.weight': 4 ranks would cut the 2 "
                      "KV heads of its k part (8 rows each"])
    u.expect_failure("KV groups cut", ["st", "shard", "phi3_interleaved", "-o", "x", "-n", "4",
                                       "--preset", "phi3", "--qkv-layout", "interleaved"], work, 65,
                     ["tensor 'model.layers.0.self_attn.qkv_proj.weight': 4 ranks would cut its 2 "
                      "KV head groups (q, k and v) of 48 rows"])
    u.expect_failure("view of the fused QKV", ["st", "shard", "phi3_interleaved", "-o", "x", "-n",
                                               "2", "--preset", "auto", "--view",
                                               "*.qkv_proj.weight=8,-1"], work, 65,
                     ["st shard: tensor 'model.layers.0.self_attn.qkv_proj.weight': --view "
                      "'*.qkv_proj.weight' would reshape the fused QKV the preset cuts"])
    u.expect_failure("layout without preset", ["st", "shard", "phi3_concat", "-o", "x", "-n", "2",
                                               "--qkv-layout", "concat", "--axis", "*=0"], work, 64,
                     ["st shard: --qkv-layout needs --preset"])
    u.expect_failure("bad layout", ["st", "split", "phi3_concat", "-o", "x", "--preset", "auto",
                                    "--qkv-layout", "megatron"], work, 64,
                     ["st split: --qkv-layout is 'concat' or 'interleaved', not 'megatron'"])
    u.expect_failure("layout of llama", ["st", "merge", "phi3_concat_tp2", "-o", "x", "--preset",
                                         "llama", "--qkv-layout", "concat"], work, 64,
                     ["st merge: --qkv-layout: preset 'llama' has no fused QKV (phi3 has)"])
    u.expect_failure("split llama", ["st", "split", "phi3_concat", "-o", "x", "--preset",
                                     "llama"], work, 64,
                     ["st split: preset 'llama' has no fused tensors to split"])
    make_model(os.path.join(work, "llama"))
    u.expect_failure("split auto llama", ["st", "split", "llama", "-o", "x", "--preset", "auto"],
                     work, 65, ["st split: preset 'llama' has no fused tensors to split"])
    u.expect_failure("auto layout of llama", ["st", "shard", "llama", "-o", "x", "-n", "2",
                                              "--preset", "auto", "--qkv-layout", "interleaved"],
                     work, 65, ["st shard: --qkv-layout: preset 'llama' (model_type of "
                                "llama/config.json) has no fused QKV"])
    # The ranks record the layout: a merge given the other one is refused, naming both, and a
    # merge given none takes the recorded one. (Ranks another tool wrote record nothing:
    # interleaved ranks merged as concat ones have the right shapes but not the model's rows.)
    u.expect_failure("merge with the other layout",
                     ["st", "merge", "phi3_interleaved_tp2", "-o", "wrong", "--preset", "auto"],
                     work, 64, ["(--preset phi3 --qkv-layout interleaved)"])
    cmd(work, ["st", "merge", "phi3_interleaved_tp2", "-o", "right", "-q"], "merge, recorded rules")
    check(read(os.path.join(work, "right", "model.safetensors")) ==
          read(os.path.join(work, "phi3_interleaved", "model.safetensors")),
          "a merge with the recorded layout gives the model back")
    shutil.copytree(os.path.join(work, "phi3_interleaved_tp2"), os.path.join(work, "norec_tp2"))
    u.strip_records(os.path.join(work, "norec_tp2"))
    cmd(work, ["st", "merge", "norec_tp2", "-o", "wrong", "-q", "--preset", "auto"],
        "merge with the other layout, no record")
    check(read(os.path.join(work, "wrong", "model.safetensors")) !=
          read(os.path.join(work, "phi3_interleaved", "model.safetensors")),
          "a merge in the other layout scrambles the rows")
    with open(os.path.join(work, "phi3_concat", "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(work, "phi3_concat", "config.json"), "w") as f:
        json.dump(dict(config, num_key_value_heads=4), f)
    u.expect_failure("config disagrees (fused)", ["st", "shard", "phi3_concat", "-o", "x", "-n",
                                                  "2", "--preset", "auto"], work, 65,
                     ["tensor 'model.layers.0.self_attn.qkv_proj.weight' has 96 rows, not the 128 "
                      "of its q, k and v (8, 4 and 4 heads of 8) that config.json gives"])
