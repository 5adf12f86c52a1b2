#!/usr/bin/python3
"""Writes tiny_gqa/ and tiny_phi3/, the committed fixtures of the valgrind-labelled `--preset`
runs (tests/safetensors/CMakeLists.txt): one layer of a Llama with 4 attention heads and 2 KV
heads of 2 rows (hidden size 8), and of a Phi-3 with the same heads, its q, k and v fused in
qkv_proj and gate and up in gate_up_proj; F32 counting values, each folder with its config.json.
Made here, by this script; no outside data."""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HEADS, KV, HD, HIDDEN, INTER, VOCAB = 4, 2, 2, 8, 8, 4


def write(folder, shapes, model_type):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    head, off, data, start = {"__metadata__": {"format": "pt"}}, 0, b"", 0
    for name in sorted(shapes):
        n = int(np.prod(shapes[name]))
        raw = np.arange(start, start + n, dtype="<f4").tobytes()
        start += n
        head[name] = {"dtype": "F32", "shape": shapes[name], "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        data += raw
    text = json.dumps(head, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(HERE, folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)
    config = {"model_type": model_type, "num_attention_heads": HEADS, "num_key_value_heads": KV,
              "hidden_size": HIDDEN, "intermediate_size": INTER, "vocab_size": VOCAB,
              "num_hidden_layers": 1}
    with open(os.path.join(HERE, folder, "config.json"), "w") as f:
        f.write(json.dumps(config, indent=2) + "\n")


def main():
    common = {"model.embed_tokens.weight": [VOCAB, HIDDEN], "model.norm.weight": [HIDDEN],
              "lm_head.weight": [VOCAB, HIDDEN],
              "model.layers.0.self_attn.o_proj.weight": [HIDDEN, HEADS * HD],
              "model.layers.0.mlp.down_proj.weight": [HIDDEN, INTER],
              "model.layers.0.input_layernorm.weight": [HIDDEN],
              "model.layers.0.post_attention_layernorm.weight": [HIDDEN]}
    llama = dict(common, **{"model.layers.0.self_attn.q_proj.weight": [HEADS * HD, HIDDEN],
                            "model.layers.0.self_attn.k_proj.weight": [KV * HD, HIDDEN],
                            "model.layers.0.self_attn.v_proj.weight": [KV * HD, HIDDEN],
                            "model.layers.0.mlp.gate_proj.weight": [INTER, HIDDEN],
                            "model.layers.0.mlp.up_proj.weight": [INTER, HIDDEN]})
    phi3 = dict(common, **{"model.layers.0.self_attn.qkv_proj.weight": [(HEADS + 2 * KV) * HD,
                                                                          HIDDEN],
                           "model.layers.0.mlp.gate_up_proj.weight": [2 * INTER, HIDDEN]})
    write("tiny_gqa", llama, "llama")
    write("tiny_phi3", phi3, "phi3")


if __name__ == "__main__":
    main()
