#!/usr/bin/python3
"""Writes tiny.safetensors, the committed fixture of the valgrind-labelled `cleave st` runs
(tests/safetensors/CMakeLists.txt): a fused qkv [6, 4] F32, an F16 [2, 6] for an axis-1 split, an
F4 [2, 8] and a BF16 scalar, with metadata. Made here, by this script; no outside data."""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    tensors = {
        "layer.qkv": ("F32", [6, 4], np.arange(24, dtype="<f4").tobytes()),
        "layer.wide": ("F16", [2, 6], np.arange(12, dtype="<f2").tobytes()),
        "layer.f4": ("F4", [2, 8], bytes(range(8))),
        "scale": ("BF16", [], b"\x80\x3f"),
    }
    order = {"F32": 15, "BF16": 12, "F16": 11, "F4": 1}
    names = sorted(tensors, key=lambda k: (-order[tensors[k][0]], k))
    head, off, data = {"__metadata__": {"format": "pt"}}, 0, b""
    for k in names:
        dtype, shape, raw = tensors[k]
        head[k] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        data += raw
    text = json.dumps(head, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(HERE, "tiny.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main()
