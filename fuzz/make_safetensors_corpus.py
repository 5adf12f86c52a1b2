#!/usr/bin/python3
"""Writes the seed corpus of fuzz_safetensors (fuzz/corpus/safetensors): small valid files of
every dtype, metadata, escapes and non-ASCII names, plus broken ones (holes, duplicates, bad
numbers) and ones the reader accepts with a warning. Run from the repository root; the seeds are
committed."""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "safetensors")
BITS = {"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8,
        "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32,
        "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64}


def blob(header_text, data=b""):
    if isinstance(header_text, str):
        header_text = header_text.encode()
    return struct.pack("<Q", len(header_text)) + header_text + data


def valid(tensors, metadata=None):
    head, off = {}, 0
    if metadata is not None:
        head["__metadata__"] = metadata
    for name, dtype, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        size = n * BITS[dtype] // 8
        head[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + size]}
        off += size
    text = json.dumps(head, separators=(",", ":"), ensure_ascii=False)
    text += " " * ((8 - len(text.encode()) % 8) % 8)
    return blob(text, bytes(off))


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "empty": blob("{}      "),
        "meta": valid([("a", "F32", [2, 2])], {"format": "pt", "k\u00e9": "v\n\"q\""}),
        "all_dtypes": valid([(f"t.{d}", d, [2, 4]) for d in BITS]),
        "scalar_and_zero": valid([("s", "F64", []), ("z", "F16", [0, 3]), ("z2", "U8", [0])]),
        "escapes": blob('{"a\\u00e9\\ud83d\\ude00\\t\\"":{"dtype":"U8","shape":[1],'
                       '"data_offsets":[0,1]}}', b"x"),
        "hole": blob('{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"xy"),
        "dup": blob('{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
                    '"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"xy"),
        "float": blob('{"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}}', b"x"),
        "big_int": blob('{"a":{"dtype":"U8","shape":[9223372036854775808],"data_offsets":[0,1]}}'),
        "lying_size": struct.pack("<Q", 1 << 40) + b"{}",
        # What the reader accepts with a warning (st_lenient.h): leading whitespace, NUL and
        # newline padding, unknown fields with values of every JSON kind.
        "lenient_leading": blob(' \n{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x"),
        "lenient_padding": blob('{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}\0\n \0',
                                b"x"),
        "lenient_unknown": blob('{"a":{"x":{"k":[1,-2.5e+3,true,false,null,"s\\u00e9"]},'
                                '"dtype":"U8","shape":[1],"y":[],"data_offsets":[0,1],"z":{}}}',
                                b"x"),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
