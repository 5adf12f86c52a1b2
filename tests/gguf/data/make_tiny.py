#!/usr/bin/python3
"""Writes tiny.gguf, the committed fixture of the valgrind-labelled `cleave gguf` runs
(tests/gguf/CMakeLists.txt): a fused F32 [6, 4], a Q8_0 [2, 64] for an innermost split on its
block boundary, a Q4_K [4, 256] for row parts, and an F16 [8], with metadata of several types.
Made here by this script with the tests' independent writer; no outside data."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "cli"))
import gguf_util as u  # noqa: E402


def main():
    meta = [("general.architecture", "str", "llama"), ("general.name", "str", "tiny"),
            ("llama.block_count", "u32", 1), ("llama.rope.freq_base", "f32", 10000.0),
            ("tokenizer.ggml.tokens", "arr", ("str", ["<s>", "</s>", "a"]))]
    tensors = [("blk.0.qkv", "F32", (6, 4), np.arange(24, dtype="<f4").tobytes()),
               ("blk.0.q8", "Q8_0", (2, 64), bytes(range(136))),
               ("blk.0.q4k", "Q4_K", (4, 256), bytes(i % 251 for i in range(576))),
               ("output_norm", "F16", (8,), np.arange(8, dtype="<f2").tobytes())]
    u.write_gguf(os.path.join(HERE, "tiny.gguf"), meta, tensors)


if __name__ == "__main__":
    main()
