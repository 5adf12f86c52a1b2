#!/usr/bin/python3
"""--max-shard-size of cleave st merge and st split: the files and the index are what Hugging
Face's writer (huggingface_hub's split_state_dict_into_shards, as transformers' save_pretrained
calls it, then json.dumps(index, indent=2, sort_keys=True) + "\\n") writes for the same tensors,
by an independent implementation of its algorithm below; the sizes are read as it reads them;
cleave reads the result back (st check, st ls, a merge of its shards)."""
import json
import os
import re

import numpy as np

import st_util as u
from clitest import check

RNG = np.random.default_rng(5)
UNITS = {"": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "KIB": 2**10,
         "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}


def hf_size(text):
    """A size as Hugging Face's writer reads it: a float times the unit, truncated."""
    m = re.fullmatch(r"([0-9]*\.?[0-9]*)([A-Za-z]*)", text)
    return int(float(m.group(1)) * UNITS[m.group(2).upper()])


def natural_key(name):
    parts = re.split(r"([0-9]+)", name)
    return [int(p) if i % 2 else p for i, p in enumerate(parts)], name


def hf_layout(sizes, max_size):
    """{file name: [tensor names]} and the index text (None for one file), as the Hugging Face
    writer lays out tensors of these byte sizes given in natural name order."""
    shards, current, filled = [], [], 0
    for name in sorted(sizes, key=natural_key):
        size = sizes[name]
        if size > max_size:
            shards.append([name])
            continue
        if filled + size > max_size:
            shards.append(current)
            current, filled = [], 0
        current.append(name)
        filled += size
    if current:
        shards.append(current)
    if len(shards) <= 1:
        return {"model.safetensors": shards[0] if shards else []}, None
    n = len(shards)
    files = {f"model-{i + 1:05d}-of-{n:05d}.safetensors": s for i, s in enumerate(shards)}
    index = {"metadata": {"total_size": sum(sizes.values())},
             "weight_map": {t: f for f, names in files.items() for t in names}}
    return files, json.dumps(index, indent=2, sort_keys=True) + "\n"


def model():
    """Tensors of many sizes, with layer numbers that sort differently byte-wise and naturally,
    and names that JSON must escape (non-ASCII, control characters, DEL, quotes)."""
    t = {}
    for i in (0, 1, 2, 10, 11):
        for part, rows in (("attn.w", 8), ("mlp.w", 24), ("norm", 1)):
            t[f"model.layers.{i}.{part}"] = RNG.standard_normal((rows, 16)).astype(np.float32)
    t["embed"] = RNG.standard_normal((64, 16)).astype(np.float16)  # 2048 bytes: alone past 1 KB
    t["x\u00e9\u4e2d\U0001F600"] = np.arange(3, dtype=np.int8)
    t["ctl\t\x01\x7f\"\\/"] = np.arange(5, dtype=np.int16)
    t["z.empty"] = np.zeros((0, 4), np.float32)
    return {k: u.array_tensor(v) for k, v in t.items()}


def check_layout(label, outdir, tensors, max_size, metadata):
    files, index = hf_layout({k: len(v[2]) for k, v in tensors.items()}, max_size)
    names = sorted(os.listdir(outdir))
    # Beside Hugging Face's files, the manifest (tests/safetensors/test_st_manifest.py).
    want = sorted(list(files) + ["cleave-manifest.json"] +
                  (["model.safetensors.index.json"] if index else []))
    check(names == want, f"{label}: files {names}, Hugging Face's writer: {want}")
    for name, members in files.items():
        if name not in names:
            continue
        meta, got = u.read_st(os.path.join(outdir, name))
        check(meta == metadata, f"{label}: {name}: metadata {meta}")
        check(got == {k: tensors[k] for k in members}, f"{label}: {name}: tensors differ: "
              f"{sorted(got)} vs {sorted(members)}")
    if index is not None and "model.safetensors.index.json" in names:
        with open(os.path.join(outdir, "model.safetensors.index.json"), encoding="utf-8") as f:
            text = f.read()
        check(text == index, f"{label}: index differs:\n{text}\nHugging Face's:\n{index}")
    r = u.run(["st", "check", outdir], os.path.dirname(outdir))
    check(r.returncode == 0, f"{label}: st check of the output: {r.stderr}")
    r = u.run(["st", "ls", "--json", outdir], os.path.dirname(outdir))
    listed = {t["name"] for t in json.loads(r.stdout)["tensors"]} if r.returncode == 0 else set()
    check(listed == set(tensors), f"{label}: st ls of the output: {r.stderr}")


def test_merge(work):
    src = model()
    u.write_st(os.path.join(work, "model.safetensors"), src, {"format": "pt"})
    rules = ["--axis", "*.mlp.w=1", "--axis", "embed=0"]
    r = u.run(["st", "shard", "model.safetensors", "-o", "tp", "-n", "2", "-q"] + rules, work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    for i, size in enumerate(["1KB", "1kb", "1.5KB", "0.75KiB", "2000", "3MiB", "64", "1",
                              "0.001MB", "4.1KiB", ".5kB", "7."]):
        out = os.path.join(work, f"out{i}")
        r = u.run(["st", "merge", "tp", "-o", out, "-q", "--max-shard-size", size] + rules, work)
        if check(r.returncode == 0, f"merge --max-shard-size {size}: {r.stderr}"):
            check_layout(f"merge --max-shard-size {size}", out, src, hf_size(size), {"format": "pt"})
    # Without the option: one model.safetensors, no index.
    r = u.run(["st", "merge", "tp", "-o", "one", "-q"] + rules, work)
    check(r.returncode == 0 and sorted(os.listdir(os.path.join(work, "one"))) ==
          ["cleave-manifest.json", "model.safetensors"],
          f"merge without --max-shard-size: {r.stderr} {os.listdir(os.path.join(work, 'one'))}")
    # The shards read back as a model: a split of them (st split reads an index) works, and a
    # shard of them equals the ranks merged from.
    out = os.path.join(work, "out0")
    r = u.run(["st", "shard", out, "-o", "again", "-n", "2", "-q"] + rules, work)
    check(r.returncode == 0, f"shard of the sharded merge: {r.stderr}")
    for rank in range(2):
        with open(os.path.join(work, "tp", f"rank{rank}.safetensors"), "rb") as a, \
                open(os.path.join(work, "again", f"rank{rank}.safetensors"), "rb") as b:
            check(a.read() == b.read(), f"merge --max-shard-size then shard: rank {rank} differs")
    # A second run into the same folder with fewer files: the earlier run's other shards are
    # named in a warning (a loader would read them with the new ones) and left as they are.
    out = os.path.join(work, "again2")
    r = u.run(["st", "merge", "tp", "-o", out, "-q", "--max-shard-size", "1KB"] + rules, work)
    shards = sorted(n for n in os.listdir(out) if n.startswith("model-"))
    with open(os.path.join(out, shards[0]), "rb") as f:
        first_shard = f.read()
    r = u.run(["st", "merge", "tp", "-o", out, "-q", "-f"] + rules, work)
    # Named by count, the first and the last in name order (the shards, then the index). The
    # run wrote the model and its manifest.
    expected = (f"cleave: warning: st merge: {len(shards) + 1} files from '{out}/{shards[0]}' to "
                f"'{out}/model.safetensors.index.json' are not among this run's outputs (it "
                "wrote 2 files) and were left as they were; delete them if an earlier run left "
                "them (a loader of the folder would read them with the new files)\n")
    check(r.returncode == 0 and r.stderr == expected, f"leftovers warning: {r.stderr!r}")
    # One left: named alone.
    for name in shards[1:]:
        os.remove(os.path.join(out, name))
    os.remove(os.path.join(out, "model.safetensors.index.json"))
    r = u.run(["st", "merge", "tp", "-o", out, "-q", "-f"] + rules, work)
    check(r.returncode == 0 and r.stderr ==
          f"cleave: warning: st merge: '{out}/{shards[0]}' is not one of this run's outputs (it "
          "wrote 2 files) and was left as it was; delete it if an earlier run left it (a loader of "
          "the folder would read it with the new files)\n", f"one leftover: {r.stderr!r}")
    shards = shards[:1]
    check(sorted(n for n in os.listdir(out) if n.startswith("model-")) == shards,
          "leftovers were removed")
    with open(os.path.join(out, shards[0]), "rb") as f:
        check(f.read() == first_shard, "a leftover was changed")
    # The dry run shows the files and the index, and writes nothing.
    before = u.snapshot(work)
    r = u.run(["st", "merge", "tp", "-o", "dry", "--dry-run", "--max-shard-size", "1KB"] + rules,
              work)
    check(r.returncode == 0 and u.snapshot(work) == before, f"dry run: {r.stderr}")
    check("dry/model-00001-of-00011.safetensors\t1 tensor\t" in r.stdout
          and "dry/model.safetensors.index.json\tindex" in r.stdout, f"dry run: {r.stdout}")


def test_split(work):
    src = model()
    half = len(src) // 2
    keys = sorted(src)
    u.write_st(os.path.join(work, "a.safetensors"), {k: src[k] for k in keys[:half]}, {"f": "1"})
    u.write_st(os.path.join(work, "b.safetensors"), {k: src[k] for k in keys[half:]}, {"f": "1"})
    index = {"metadata": {"total_size": sum(len(v[2]) for v in src.values()), "note": "kept"},
             "weight_map": {k: "a.safetensors" if k in keys[:half] else "b.safetensors"
                            for k in keys}}
    with open(os.path.join(work, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f)
    rule = ["--tensor", "model.layers.*.mlp.w", "-a", "0", "-n", "2", "--into",
            "model.layers.*.mlp.up,model.layers.*.mlp.gate"]
    r = u.run(["st", "split", ".", "-o", "out", "-q", "--max-shard-size", "1200"] + rule, work)
    if check(r.returncode == 0, f"split --max-shard-size: {r.stderr}"):
        want = {}
        for k, (dtype, shape, raw) in src.items():
            m = re.fullmatch(r"model\.layers\.([0-9]+)\.mlp\.w", k)
            if m:
                top, bottom = raw[:len(raw) // 2], raw[len(raw) // 2:]
                base = f"model.layers.{m.group(1)}.mlp."
                want[base + "up"] = (dtype, (shape[0] // 2, shape[1]), top)
                want[base + "gate"] = (dtype, (shape[0] // 2, shape[1]), bottom)
            else:
                want[k] = (dtype, shape, raw)
        files, text = hf_layout({k: len(v[2]) for k, v in want.items()}, 1200)
        # The input index's other metadata is kept, as st split keeps it.
        meta = json.loads(text)
        meta["metadata"]["note"] = "kept"
        text = json.dumps(meta, indent=2, sort_keys=True) + "\n"
        out = os.path.join(work, "out")
        with open(os.path.join(out, "model.safetensors.index.json"), encoding="utf-8") as f:
            check(f.read() == text, "split --max-shard-size: index differs")
        for name, members in files.items():
            meta, got = u.read_st(os.path.join(out, name))
            check(meta == {"f": "1"} and got == {k: want[k] for k in members},
                  f"split --max-shard-size: {name}")
    # The outputs mix the shards' tensors: their metadata must agree.
    u.write_st(os.path.join(work, "b.safetensors"), {k: src[k] for k in keys[half:]}, {"f": "2"})
    u.expect_failure("split: metadata that differs", ["st", "split", ".", "-o", "bad",
                                                      "--max-shard-size", "1KB"] + rule, work, 65,
                     ["st split: __metadata__ 'f' differs between the shards ('2' in "
                      "'b.safetensors')"])
