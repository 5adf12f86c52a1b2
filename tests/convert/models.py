"""Tiny Hugging Face models of each architecture the convert command takes, made with NumPy and
SentencePiece: config.json, generation_config.json, model.safetensors (written here, since the
safetensors package is not installed) and a SentencePiece tokenizer.model (the converter refuses a
model without a vocabulary)."""
import json
import os
import struct

import numpy as np

# Text the SentencePiece models are trained on: enough distinct pieces for a small vocabulary.
TEXT = """the quick brown fox jumps over the lazy dog
a stitch in time saves nine and every cloud has a silver lining
split the tensors along the axis and join them back in order
llamas and mistrals and qwens read the same small words again
one two three four five six seven eight nine ten eleven twelve
""" * 4

VOCAB = 300

ST_DTYPES = {np.dtype("float32"): "F32", np.dtype("float16"): "F16"}


def write_safetensors(path, tensors, order=None):
    """Writes `tensors` (name -> ndarray; a value of ("BF16", uint16 array) for bfloat16)."""
    names = order or list(tensors)
    header = {}
    blobs = []
    offset = 0
    for name in names:
        t = tensors[name]
        if isinstance(t, tuple):
            dtype, arr = t
        else:
            dtype, arr = ST_DTYPES[t.dtype], t
        data = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def bf16(arr):
    bits = arr.astype(np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return ("BF16", rounded.astype(np.uint16))


def train_tokenizer(folder, cache):
    """A SentencePiece model of VOCAB pieces (trained once per test session into `cache`), with
    byte pieces: llama.cpp's SentencePiece vocabulary looks up the newline's byte token when it
    loads a model."""
    model = os.path.join(cache, "sp.model")
    if not os.path.exists(model):
        import sentencepiece as spm
        text = os.path.join(cache, "text.txt")
        with open(text, "w") as f:
            f.write(TEXT)
        spm.SentencePieceTrainer.train(
            input=text, model_prefix=os.path.join(cache, "sp"), vocab_size=VOCAB,
            model_type="unigram", character_coverage=1.0, byte_fallback=True,
            hard_vocab_limit=False,
            minloglevel=2, num_threads=1)
    with open(model, "rb") as src, open(os.path.join(folder, "tokenizer.model"), "wb") as dst:
        dst.write(src.read())


ARCHS = {
    "llama": "LlamaForCausalLM",
    "mistral": "MistralForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
}


def config_for(arch, hidden=64, layers=2, heads=4, kv_heads=2, ff=96, head_dim=None):
    c = {
        "architectures": [ARCHS[arch]],
        "model_type": arch,
        "vocab_size": VOCAB,
        "hidden_size": hidden,
        "intermediate_size": ff,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "max_position_embeddings": 256,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
        "bos_token_id": 1,
        "eos_token_id": 2,
    }
    if arch == "qwen3":
        c["head_dim"] = head_dim or 32
        c["rope_theta"] = 1000000.0
        c["rms_norm_eps"] = 1e-6
    elif head_dim is not None:
        c["head_dim"] = head_dim
    if arch == "mistral":
        c["sliding_window"] = None
    return c


def make_model(folder, arch, cache, dtype="f32", seed=0, config_extra=None, tied=False,
               ff=96, generation=True, hidden=64):
    """A tiny model of `arch` in `folder`; returns its config."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    c = config_for(arch, ff=ff, hidden=hidden)
    c["tie_word_embeddings"] = tied
    if config_extra:
        c.update(config_extra)
    hidden = c["hidden_size"]
    heads, kv = c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim") or hidden // heads
    ff = c["intermediate_size"]

    def w(*shape, scale=0.08):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    t = {"model.embed_tokens.weight": w(VOCAB, hidden, scale=0.5),
         "model.norm.weight": 1 + w(hidden, scale=0.1)}
    if not tied:
        t["lm_head.weight"] = w(VOCAB, hidden)
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        t[p + "input_layernorm.weight"] = 1 + w(hidden, scale=0.1)
        t[p + "post_attention_layernorm.weight"] = 1 + w(hidden, scale=0.1)
        t[p + "self_attn.q_proj.weight"] = w(heads * hd, hidden)
        t[p + "self_attn.k_proj.weight"] = w(kv * hd, hidden)
        t[p + "self_attn.v_proj.weight"] = w(kv * hd, hidden)
        t[p + "self_attn.o_proj.weight"] = w(hidden, heads * hd)
        t[p + "mlp.gate_proj.weight"] = w(ff, hidden)
        t[p + "mlp.up_proj.weight"] = w(ff, hidden)
        t[p + "mlp.down_proj.weight"] = w(hidden, ff)
        if arch == "qwen2":
            t[p + "self_attn.q_proj.bias"] = w(heads * hd)
            t[p + "self_attn.k_proj.bias"] = w(kv * hd)
            t[p + "self_attn.v_proj.bias"] = w(kv * hd)
        if arch == "qwen3":
            t[p + "self_attn.q_norm.weight"] = 1 + w(hd, scale=0.1)
            t[p + "self_attn.k_norm.weight"] = 1 + w(hd, scale=0.1)
    if dtype == "f16":
        t = {k: v.astype(np.float16) for k, v in t.items()}
        c["torch_dtype"] = "float16"
    elif dtype == "bf16":
        t = {k: bf16(v) for k, v in t.items()}
        c["torch_dtype"] = "bfloat16"
    # An order that is not the names' order: the converter sorts them, and so must cleave.
    order = sorted(t, key=lambda n: (len(n), n[::-1]))
    write_safetensors(os.path.join(folder, "model.safetensors"), t, order)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    if generation:
        with open(os.path.join(folder, "generation_config.json"), "w") as f:
            json.dump({"bos_token_id": 1, "eos_token_id": 2, "do_sample": True,
                       "temperature": 0.7, "top_k": 20, "top_p": 0.8}, f, indent=2)
    train_tokenizer(folder, cache)
    return c
