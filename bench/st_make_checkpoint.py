#!/usr/bin/python3
"""Writes a Llama-like BF16 checkpoint with Phi-3-style fused tensors for bench/st_bench.sh.

usage: st_make_checkpoint.py OUT.safetensors MIB

48 layers of qkv_proj [3H, H], o_proj [H, H], gate_up_proj [2I, H], down_proj [H, I] and two
norms, plus embed_tokens, lm_head and norm (291 tensors), with H and I (multiples of 64)
chosen so that the file is about MIB MiB. The data is a non-zero byte pattern written in 64 MiB
blocks, so nothing is sparse. Prints H and I."""
import json
import math
import struct
import sys

def main():
    out, mib = sys.argv[1], int(sys.argv[2])
    layers, vocab = 48, 32000
    target = mib * (1 << 20)
    # bytes ~= 2 * (layers * (4 H^2 + 3 I H) + 2 vocab H + H), I = 8/3 H
    a = 2 * layers * (4 + 8)
    h = (-2 * 2 * vocab + math.sqrt((2 * 2 * vocab) ** 2 + 4 * a * target)) / (2 * a)
    h = max(64, round(h / 64) * 64)
    i = max(64, round(h * 8 / 3 / 64) * 64)
    shapes = {"model.embed_tokens.weight": [vocab, h], "lm_head.weight": [vocab, h],
              "model.norm.weight": [h]}
    for n in range(layers):
        p = f"model.layers.{n}."
        shapes[p + "self_attn.qkv_proj.weight"] = [3 * h, h]
        shapes[p + "self_attn.o_proj.weight"] = [h, h]
        shapes[p + "mlp.gate_up_proj.weight"] = [2 * i, h]
        shapes[p + "mlp.down_proj.weight"] = [h, i]
        shapes[p + "input_layernorm.weight"] = [h]
        shapes[p + "post_attention_layernorm.weight"] = [h]
    head, off = {"__metadata__": {"format": "pt"}}, 0
    for name in sorted(shapes):
        size = 2 * math.prod(shapes[name])
        head[name] = {"dtype": "BF16", "shape": shapes[name], "data_offsets": [off, off + size]}
        off += size
    text = json.dumps(head, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    block = bytes(range(1, 256)) * ((64 << 20) // 255 + 1)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        left = off
        while left > 0:
            n = min(left, 64 << 20)
            f.write(block[:n])
            left -= n
    print(f"H={h} I={i} tensors={len(shapes)} bytes={8 + len(text) + off}")


if __name__ == "__main__":
    main()
