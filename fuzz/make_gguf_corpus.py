#!/usr/bin/python3
"""Writes the seed corpus of fuzz_gguf (fuzz/corpus/gguf): small valid files with every metadata
type, arrays, several quantized types, an alignment of 64, zero tensors, version 2, files
of split sets (a later part, gguf-split --merge's split.count 0); plus broken
ones (a hole, a bad bool, a truncation). Run from the repository root; the seeds are committed.
Uses the tests' independent writer (tests/gguf/gguf_util.py)."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gguf"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "cli"))
import gguf_util as u  # noqa: E402

OUT = os.path.join(HERE, "corpus", "gguf")


def main():
    os.makedirs(OUT, exist_ok=True)
    every = [("general.architecture", "str", "llama"), ("a.u8", "u8", 1), ("a.i8", "i8", -1),
             ("a.u16", "u16", 2), ("a.i16", "i16", -2), ("a.u32", "u32", 3), ("a.i32", "i32", -3),
             ("a.f32", "f32", 0.5), ("a.bool", "bool", True), ("a.u64", "u64", 4),
             ("a.i64", "i64", -4), ("a.f64", "f64", 0.25),
             ("a.arr", "arr", ("str", ["x", "yz"])), ("a.farr", "arr", ("f32", [1.0, 2.0]))]
    seeds = {
        "meta_only": u.gguf_bytes(every, []),
        "types": u.gguf_bytes(every[:2], [("f", "F32", (2, 3), bytes(24)),
                                          ("q", "Q8_0", (1, 32), bytes(34)),
                                          ("k", "Q4_K", (1, 256), bytes(144)),
                                          ("s", "BF16", (), bytes(2)),
                                          ("m", "MXFP4", (2, 32), bytes(34))]),
        "align64": u.gguf_bytes([("general.alignment", "u32", 64)],
                                [("a", "I8", (3,), b"abc"), ("b", "F64", (2, 1), bytes(16))]),
        "v2": u.gguf_bytes(every[:1], [("t", "F16", (4,), bytes(8))], version=2),
        "set": u.gguf_bytes([("split.no", "u16", 0), ("split.count", "u16", 1),
                             ("split.tensors.count", "i32", 1)], [("t", "I32", (1,), bytes(4))]),
        # gguf-split's order, and its --merge's output (split.count 0: a whole model).
        "set_part": u.gguf_bytes([("general.alignment", "u32", 64), ("split.no", "u16", 1),
                                  ("split.tensors.count", "i32", 3), ("split.count", "u16", 2)],
                                 [("t", "I32", (1,), bytes(4))]),
        "merged": u.gguf_bytes(every[:1] + [("split.no", "u16", 0),
                                            ("split.tensors.count", "i32", 1),
                                            ("split.count", "u16", 0)],
                               [("t", "I32", (1,), bytes(4))]),
    }
    good = seeds["types"]
    seeds["truncated"] = good[:len(good) - 40]
    seeds["bad_bool"] = u.gguf_bytes([("b", "bool", True)], []).replace(
        u.enc_kv("b", "bool", True), u.enc_str("b") + struct.pack("<i", 7) + b"\x05")
    for name, blob in seeds.items():
        with open(os.path.join(OUT, name + ".gguf"), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
