#!/usr/bin/python3
"""cleave convert MODEL.gguf -o HF_FOLDER, the way back, on the tiny models of models.py:

- Hugging Face -> GGUF (cleave) -> Hugging Face gives the original tensors bit for bit (f32, and
  f16/bf16 models converted in their own type), and --outtype's casts exactly;
- a GGUF file quantized by gguf-py (GGUFWriter, quants.quantize) gives gguf-py's dequantize bit
  for bit, the Q/K rows moved back;
- llama.cpp's convert_hf_to_gguf.py takes cleave's folder back to the same GGUF file (tensors and
  every key but the vocabulary's and the authorship keys: the tokenizer files are the original's);
- the error paths: status, message, no output.

Uses test_convert.py's fixtures (the converter from node-llama-cpp, skipped where it cannot be
had)."""
import json
import os
import struct
import sys

import numpy as np
import pytest

from clitest import check, run

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402
from test_convert import AUTHORSHIP, cache, convert_ok, llama, make, read_gguf  # noqa: E402,F401

ST_NUMPY = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def read_safetensors(folder):
    """name -> (dtype, shape, raw bytes) of a folder's model.safetensors or its shards."""
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    out = {}
    for name in files:
        with open(os.path.join(folder, name), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
            data = f.read()
        for k, v in header.items():
            if k == "__metadata__":
                continue
            b, e = v["data_offsets"]
            out[k] = (v["dtype"], v["shape"], data[b:e])
    return out


def back(work, gguf, out, extra=()):
    convert_ok([gguf, "-o", out] + list(extra), work)
    return read_safetensors(os.path.join(work, out))


@pytest.mark.parametrize("arch,dtype,tied", [("llama", "f32", False), ("llama", "f16", True),
                                             ("qwen3", "bf16", False), ("qwen2", "f32", True),
                                             ("mistral", "f32", False)])
def test_round_trip_exact(llama, cache, tmp_path, arch, dtype, tied):
    work = str(tmp_path)
    folder = os.path.join(work, f"Tiny-{arch}-{dtype}")
    cfg = models.make_model(folder, arch, cache, dtype=dtype, tied=tied)
    convert_ok([folder, "-o", "m.gguf", "--outtype", dtype], work)
    ours = back(work, "m.gguf", "hf")
    orig = read_safetensors(folder)
    assert sorted(ours) == sorted(orig)
    for name, (d, shape, data) in orig.items():
        assert ours[name] == (d, shape, data), f"{arch} {dtype}: {name} differs"
    with open(os.path.join(work, "hf", "config.json")) as f:
        c = json.load(f)
    for key in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                "num_key_value_heads", "max_position_embeddings", "vocab_size"):
        assert c[key] == cfg[key], f"config.json {key}: {c[key]} != {cfg[key]}"
    assert np.float32(c["rms_norm_eps"]) == np.float32(cfg["rms_norm_eps"])
    assert np.float32(c["rope_theta"]) == np.float32(cfg["rope_theta"])
    assert c["tie_word_embeddings"] == tied
    assert c["torch_dtype"] == {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[dtype]
    assert c["model_type"] == ("llama" if arch == "mistral" else arch)
    with open(os.path.join(work, "hf", "generation_config.json")) as f:
        g = json.load(f)
    assert g["top_k"] == 20 and np.float32(g["temperature"]) == np.float32(0.7)


def test_outtype_casts(llama, cache, tmp_path):
    import torch
    work = str(tmp_path)
    folder = make(work, "llama", cache, "f32")
    convert_ok([folder, "-o", "m.gguf", "--outtype", "f32"], work)
    orig = read_safetensors(folder)
    for outtype, st, tdt in (("f16", "F16", torch.float16), ("bf16", "BF16", torch.bfloat16)):
        ours = back(work, "m.gguf", outtype, ["--outtype", outtype])
        for name, (_, shape, data) in orig.items():
            x = torch.from_numpy(np.frombuffer(data, np.float32).copy()).to(tdt)
            want = x.view(torch.int16).numpy().tobytes()
            assert ours[name] == (st, shape, want), f"--outtype {outtype}: {name}"


@np.errstate(invalid="ignore", over="ignore")
def quantized_gguf(path, arch="llama", types=None, extra_tensor=None):
    """A GGUF file of llama's names whose weights gguf-py quantized; returns name -> the
    expected Hugging Face (name, float32 array) after gguf-py's dequantize."""
    import gguf
    from gguf import GGMLQuantizationType as Q
    from gguf import quants
    rng = np.random.default_rng(7)
    heads, kv, hd, hidden, ff, vocab = 4, 2, 64, 256, 512, 64
    w = gguf.GGUFWriter(path, arch)
    w.add_block_count(1)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_context_length(128)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    types = types or {}
    spec = [("token_embd.weight", "model.embed_tokens.weight", (vocab, hidden), Q.Q8_0),
            ("output_norm.weight", "model.norm.weight", (hidden,), Q.F32),
            ("blk.0.attn_q.weight", "model.layers.0.self_attn.q_proj.weight",
             (heads * hd, hidden), Q.Q4_0),
            ("blk.0.attn_k.weight", "model.layers.0.self_attn.k_proj.weight",
             (kv * hd, hidden), Q.Q5_1),
            ("blk.0.attn_v.weight", "model.layers.0.self_attn.v_proj.weight",
             (kv * hd, hidden), Q.Q4_K),
            ("blk.0.ffn_down.weight", "model.layers.0.mlp.down_proj.weight", (hidden, ff), Q.Q6_K),
            ("blk.0.ffn_up.weight", "model.layers.0.mlp.up_proj.weight", (ff, hidden), Q.Q2_K),
            ("blk.0.ffn_gate.weight", "model.layers.0.mlp.gate_proj.weight", (ff, hidden),
             Q.Q5_K),
            ("blk.0.attn_output.weight", "model.layers.0.self_attn.o_proj.weight",
             (hidden, heads * hd), Q.Q3_K),
            ("blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight", (hidden,),
             Q.F16)]
    if extra_tensor:
        spec.append(extra_tensor)
    expected = {}
    for gname, hname, shape, qt in spec:
        qt = types.get(gname, qt)
        x = (rng.standard_normal(shape) * 0.1).astype(np.float32)
        if qt == Q.F32:
            data = x
        elif qt == Q.F16:
            data = x.astype(np.float16)
        else:
            try:
                data = quants.quantize(x, qt)
            except NotImplementedError:
                # gguf-py quantizes few types: any bytes are blocks it dequantizes.
                block, size = gguf.GGML_QUANT_SIZES[qt]
                data = rng.integers(0, 256, (shape[0], shape[1] // block * size), np.uint8)
        w.add_tensor(gname, data, raw_dtype=qt if qt not in (Q.F32, Q.F16) else None)
        if qt in (Q.F32, Q.F16):
            deq = data.astype(np.float32)
        else:
            deq = quants.dequantize(data, qt).reshape(shape)
        if gname == "blk.0.attn_q.weight":
            deq = unpermute(deq, heads)
        elif gname == "blk.0.attn_k.weight":
            deq = unpermute(deq, kv)
        expected[hname] = deq
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return expected


def unpermute(w, heads):
    """The inverse of convert_hf_to_gguf.py's LlamaModel.permute."""
    shape = w.shape
    return (w.reshape(heads, shape[0] // heads // 2, 2, *shape[1:]).swapaxes(1, 2)
            .reshape(shape))


def test_quantized_as_gguf_py(llama, tmp_path):
    work = str(tmp_path)
    expected = quantized_gguf(os.path.join(work, "q.gguf"))
    ours = back(work, "q.gguf", "hf")
    assert sorted(ours) == sorted(expected)
    for name, x in expected.items():
        d, shape, data = ours[name]
        assert (d, shape) == ("F32", list(x.shape)), name
        assert data == np.ascontiguousarray(x, np.float32).tobytes(), f"{name}: values differ"
    with open(os.path.join(work, "hf", "config.json")) as f:
        c = json.load(f)
    assert c["tie_word_embeddings"] is True and c["vocab_size"] == 64
    assert c["num_key_value_heads"] == 2 and c["torch_dtype"] == "float32"
    # A set of shards with its index: the same tensors.
    sharded = back(work, "q.gguf", "sharded", ["--max-shard-size", "200KB"])
    assert os.path.exists(os.path.join(work, "sharded", "model.safetensors.index.json"))
    assert sharded == ours


def test_converter_takes_it_back(llama, cache, tmp_path):
    work = str(tmp_path)
    folder = make(work, "llama", cache, "f32")
    convert_ok([folder, "-o", "m.gguf", "--outtype", "f32"], work)
    convert_ok(["m.gguf", "-o", "hf"], work)
    # The vocabulary's files are the original's (cleave does not write them back yet).
    for name in os.listdir(folder):
        if name.startswith("tokenizer") or name in ("special_tokens_map.json",):
            with open(os.path.join(folder, name), "rb") as src, \
                    open(os.path.join(work, "hf", name), "wb") as dst:
                dst.write(src.read())
    llama.convert(os.path.join(work, "hf"), os.path.join(work, "again.gguf"), "f32")
    m1, t1 = read_gguf(os.path.join(work, "m.gguf"))
    m2, t2 = read_gguf(os.path.join(work, "again.gguf"))
    assert t1 == t2
    for k in sorted((set(m1) | set(m2)) - AUTHORSHIP):
        if k.startswith("tokenizer."):
            continue
        assert m1.get(k) == m2.get(k), f"key {k}: {m1.get(k)} != {m2.get(k)}"


def refused(work, args, status, words):
    before = set(os.listdir(work))
    r = run(["convert"] + args, work)
    check(r.returncode == status, f"{args}: status {r.returncode} (want {status}): {r.stderr}")
    for w in words:
        check(w in r.stderr, f"{args}: the message names {w!r}: {r.stderr}")
    after = set(os.listdir(work))
    check(after == before, f"{args}: no output ({sorted(after - before)})")


def test_refused(llama, tmp_path):
    import gguf
    from gguf import GGMLQuantizationType as Q
    work = str(tmp_path)
    quantized_gguf(os.path.join(work, "gpt2.gguf"), arch="gpt2")
    refused(work, ["gpt2.gguf", "-o", "out"], 65, ["gpt2", "architecture"])
    quantized_gguf(os.path.join(work, "extra.gguf"),
                   extra_tensor=("blk.0.strange.weight", "-", (4, 32), Q.F32))
    refused(work, ["extra.gguf", "-o", "out"], 65, ["blk.0.strange.weight", "Hugging Face name"])
    path = os.path.join(work, "iq.gguf")
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(1)
    w.add_embedding_length(256)
    w.add_head_count(4)
    # IQ2_XXS: 66 bytes per block of 256; the bytes do not matter, the type is refused.
    w.add_tensor("token_embd.weight", np.zeros((4, 66), np.uint8), raw_dtype=Q.IQ2_XXS)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    refused(work, ["iq.gguf", "-o", "out"], 65, ["token_embd.weight", "IQ2_XXS"])
    refused(work, ["extra.gguf", "-o", "out", "--max-tensors", "2"], 64, ["--max-tensors"])


def test_config_committed_with_the_weights(llama, cache, tmp_path):
    """config.json and generation_config.json are outputs like the weights: listed by --dry-run,
    in the manifest (kind "generated", so that verify checks them), never written over without
    -f, and replaced with the weights under -f."""
    work = str(tmp_path)
    folder = make(work, "llama", cache, "f32")
    convert_ok([folder, "-o", "m.gguf", "--outtype", "f32"], work)
    r = run(["convert", "m.gguf", "-o", "hf", "--dry-run"], work)
    check(r.returncode == 0 and "hf/config.json\tgenerated" in r.stdout
          and "hf/generation_config.json\tgenerated" in r.stdout,
          f"dry run lists the configs: {r.returncode} {r.stdout!r} {r.stderr}")
    check(not os.path.exists(os.path.join(work, "hf")), "dry run: nothing written")
    convert_ok(["m.gguf", "-o", "hf"], work)
    with open(os.path.join(work, "hf", "cleave-manifest.json")) as f:
        kinds = {e["name"]: e["kind"] for e in json.load(f)["files"]}
    check(kinds.get("config.json") == "generated" and
          kinds.get("generation_config.json") == "generated", f"manifest kinds: {kinds}")
    r = run(["verify", "hf", "-q"], work)
    check(r.returncode == 0 and r.stderr == "", f"verify: {r.returncode} {r.stderr}")
    config = os.path.join(work, "hf", "config.json")
    with open(config, "a") as f:
        f.write(" ")
    r = run(["verify", "hf"], work)
    check(r.returncode == 1 and "config.json" in r.stdout + r.stderr,
          f"verify of an edited config.json: {r.returncode} {r.stdout} {r.stderr}")
    with open(config, "rb") as f:
        edited = f.read()
    before = {n: os.path.getmtime(os.path.join(work, "hf", n))
              for n in os.listdir(os.path.join(work, "hf"))}
    r = run(["convert", "m.gguf", "-o", "hf"], work)
    check(r.returncode == 73, f"without -f: status {r.returncode}: {r.stderr}")
    with open(config, "rb") as f:
        check(f.read() == edited, "without -f: config.json written over")
    after = {n: os.path.getmtime(os.path.join(work, "hf", n))
             for n in os.listdir(os.path.join(work, "hf"))}
    check(after == before, f"without -f: the folder changed: {sorted(after)}")
    convert_ok(["m.gguf", "-o", "hf", "-f"], work)
    r = run(["verify", "hf", "-q"], work)
    check(r.returncode == 0, f"verify after -f: {r.returncode} {r.stdout} {r.stderr}")
