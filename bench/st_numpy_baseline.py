#!/usr/bin/python3
"""What users do today, in NumPy, for bench/st_bench.sh: read the header with json, map the
file with np.memmap, cut each tensor with np.split, and write each output file with its header
and the parts' bytes (the way safetensors.numpy.save_file is fed: one dict of contiguous arrays
per output file). BF16 is handled as uint16 (NumPy has no bfloat16).

usage: st_numpy_baseline.py shard IN.safetensors OUTDIR RANKS
       st_numpy_baseline.py split IN.safetensors OUTDIR
The shard and split rules are those of st_bench.sh (fused qkv_proj and gate_up_proj)."""
import json
import os
import struct
import sys

import numpy as np

NP = {"BF16": np.uint16, "F16": np.float16, "F32": np.float32}
ORDER = {"BF16": 12, "F16": 11, "F32": 15}


def load(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        head = json.loads(f.read(n))
    meta = head.pop("__metadata__", None)
    mm = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    tensors = {}
    for name, info in head.items():
        b, e = info["data_offsets"]
        tensors[name] = (info["dtype"], mm[b:e].view(NP[info["dtype"]]).reshape(info["shape"]))
    return meta, tensors


def save(path, arrays, meta):
    names = sorted(arrays, key=lambda k: (-ORDER[arrays[k][0]], k))
    head, off = {}, 0
    if meta is not None:
        head["__metadata__"] = meta
    for k in names:
        nbytes = arrays[k][1].nbytes
        head[k] = {"dtype": arrays[k][0], "shape": list(arrays[k][1].shape),
                   "data_offsets": [off, off + nbytes]}
        off += nbytes
    text = json.dumps(head, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for k in names:
            f.write(arrays[k][1].tobytes())


def shard_axis(name):
    for key, axis in ((".o_proj.", 1), (".down_proj.", 1), (".qkv_proj.", 0),
                      (".gate_up_proj.", 0), ("embed_tokens", 0), ("lm_head", 0)):
        if key in name:
            return axis
    return None


def shard(src, outdir, ranks):
    meta, tensors = load(src)
    os.makedirs(outdir, exist_ok=True)
    for r in range(ranks):
        arrays = {}
        for name, (dtype, a) in tensors.items():
            axis = shard_axis(name)
            if axis is None:
                arrays[name] = (dtype, np.ascontiguousarray(a))
            elif ".qkv_proj." in name or ".gate_up_proj." in name:
                # Each rank takes its share of every fused part (a view of [parts, rows, cols]).
                parts = 3 if ".qkv_proj." in name else 2
                v = a.reshape(parts, a.shape[0] // parts, a.shape[1])
                arrays[name] = (dtype, np.ascontiguousarray(
                    np.split(v, ranks, axis=1)[r]).reshape(-1, a.shape[1]))
            else:
                arrays[name] = (dtype, np.ascontiguousarray(np.split(a, ranks, axis=axis)[r]))
        save(os.path.join(outdir, f"rank{r}.safetensors"), arrays, meta)


def split(src, outdir):
    meta, tensors = load(src)
    os.makedirs(outdir, exist_ok=True)
    arrays = {}
    for name, (dtype, a) in tensors.items():
        if name.endswith("qkv_proj.weight"):
            base = name[: -len("qkv_proj.weight")]
            for part, x in zip(("q", "k", "v"), np.split(a, 3, axis=0)):
                arrays[f"{base}{part}_proj.weight"] = (dtype, np.ascontiguousarray(x))
        elif name.endswith("gate_up_proj.weight"):
            base = name[: -len("gate_up_proj.weight")]
            for part, x in zip(("gate", "up"), np.split(a, 2, axis=0)):
                arrays[f"{base}{part}_proj.weight"] = (dtype, np.ascontiguousarray(x))
        else:
            arrays[name] = (dtype, np.ascontiguousarray(a))
    save(os.path.join(outdir, os.path.basename(src)), arrays, meta)


if __name__ == "__main__":
    if sys.argv[1] == "shard":
        shard(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        split(sys.argv[2], sys.argv[3])
