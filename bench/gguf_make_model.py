#!/usr/bin/python3
"""Writes a Llama-like GGUF model of about MIB MiB for bench/gguf_bench.sh: per block, Q8_0
attention projections, a fused Q4_K ffn_gate_up [2*FF, D] (to unfuse), a Q6_K ffn_down and F32
norms, with random bytes (the tools never look inside blocks). Uses the tests' independent writer
(tests/gguf/gguf_util.py). Prints the layout.

usage: gguf_make_model.py OUT.gguf MIB"""
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gguf"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "cli"))
import gguf_util as u  # noqa: E402


def main():
    path, mib = sys.argv[1], int(sys.argv[2])
    d, ff = 2048, 5632
    per_block = (4 * u.nbytes("Q8_0", (d, d)) + u.nbytes("Q4_K", (2 * ff, d)) +
                 u.nbytes("Q6_K", (d, ff)) + 2 * d * 4)
    blocks = max(1, mib * (1 << 20) // per_block)
    rng = np.random.default_rng(7)
    meta = [("general.architecture", "str", "llama"), ("general.name", "str", "bench"),
            ("llama.block_count", "u32", blocks), ("llama.embedding_length", "u32", d),
            ("llama.feed_forward_length", "u32", ff)]
    tensors = []
    for b in range(blocks):
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            tensors.append((f"blk.{b}.{name}.weight", "Q8_0", (d, d)))
        tensors.append((f"blk.{b}.ffn_gate_up.weight", "Q4_K", (2 * ff, d)))
        tensors.append((f"blk.{b}.ffn_down.weight", "Q6_K", (d, ff)))
        tensors.append((f"blk.{b}.attn_norm.weight", "F32", (d,)))
        tensors.append((f"blk.{b}.ffn_norm.weight", "F32", (d,)))
    # The header first, then the data written tensor by tensor (bounded memory).
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta))
    head += b"".join(u.enc_kv(*kv) for kv in meta)
    at = 0
    for name, dtype, shape in tensors:
        head += (u.enc_str(name) + struct.pack("<I", len(shape)) +
                 b"".join(struct.pack("<q", x) for x in reversed(shape)) +
                 struct.pack("<iQ", u.TYPES[dtype][0], at))
        at = u.pad(at + u.nbytes(dtype, shape), 32)
    with open(path, "wb") as f:
        f.write(head + bytes(u.pad(len(head), 32) - len(head)))
        for name, dtype, shape in tensors:
            n = u.nbytes(dtype, shape)
            f.write(rng.integers(0, 256, n, dtype=np.uint8).tobytes() + bytes(u.pad(n, 32) - n))
    print(f"{blocks} blocks, {len(tensors)} tensors, D={d} FF={ff}, "
          f"{os.path.getsize(path) / (1 << 20):.0f} MiB")


if __name__ == "__main__":
    main()
