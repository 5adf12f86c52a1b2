#!/usr/bin/python3
"""The manifest every writing command leaves in OUTDIR (cleave-manifest.json, docs/manifest.md),
checked independently of cleave: its schema; the pieces of every output tensor cover the tensor
exactly once, and the input bytes they name are the tensor's bytes; every checksum is python3-
xxhash's XXH3-64 of the bytes; the sizes are the files'. For split (rows and columns), shard,
merge, reshard, split by size (with the index) and gguf split. Then: a failed run leaves no
manifest; a later run into the same folder replaces it without -f; the model folder's sidecar
files are copied and listed unless --no-sidecar."""
import json
import os
import subprocess

import numpy as np
import xxhash

import st_util as u
from clitest import check

import gguf_util as g  # noqa: E402

RNG = np.random.default_rng(24)
NAME = "cleave-manifest.json"


def hexsum(data):
    return xxhash.xxh3_64(data).hexdigest()


def check_manifest(label, outdir, cwd, argv, command):
    """Checks OUTDIR's manifest against the files; returns it (or None)."""
    path = os.path.join(outdir, NAME)
    if not check(os.path.isfile(path), f"{label}: no manifest"):
        return None
    raw = open(path, "rb").read()
    m = json.loads(raw)
    check(m.get("manifest") == "cleave" and m.get("version") == 2, f"{label}: header {m}")
    # The manifest ends with its checksum of itself: XXH3-64 of every byte before the member.
    tail = b', "self_xxh3": "' + m.get("self_xxh3", "").encode() + b'"}\n'
    check(list(m)[-1] == "self_xxh3" and raw.endswith(tail) and
          hexsum(raw[:-len(tail)]) == m["self_xxh3"], f"{label}: self_xxh3 {raw[-60:]!r}")
    check(m.get("hash") == "xxh3-64", f"{label}: hash")
    check(m.get("tool", "").startswith("cleave "), f"{label}: tool")
    check(m.get("command") == command, f"{label}: command {m.get('command')}")
    check(m.get("argv", [])[1:] == argv, f"{label}: argv {m.get('argv')}")
    inputs = m["inputs"]
    blobs = []
    for i in inputs:
        p = os.path.join(cwd, i["path"])
        check(os.path.getsize(p) == i["bytes"], f"{label}: input {i['name']} size")
        blobs.append(open(p, "rb").read())
    listed = sorted(f["name"] for f in m["files"])
    present = sorted(n for n in os.listdir(outdir) if n != NAME)
    check(listed == present, f"{label}: files {listed} != {present}")
    for f in m["files"]:
        data = open(os.path.join(outdir, f["name"]), "rb").read()
        check(len(data) == f["bytes"], f"{label}: {f['name']} size")
        check(hexsum(data) == f["xxh3"], f"{label}: {f['name']} checksum")
        if f["kind"] != "data":
            check("tensors" not in f, f"{label}: {f['name']} is not data")
            continue
        for t in f["tensors"]:
            where = f"{label}: {f['name']}: {t['name']}"
            tb = data[t["offset"]:t["offset"] + t["bytes"]]
            check(len(tb) == t["bytes"], f"{where}: past the end")
            check(hexsum(tb) == t["xxh3"], f"{where}: checksum")
            cover = np.zeros(t["bytes"], dtype=np.int32)
            rebuilt = bytearray(t["bytes"])
            for p in t["pieces"]:
                src = blobs[p["input"]]
                for r in range(p["rows"]):
                    s = p["offset"] + r * p["stride"]
                    d = p["to"] + r * p["to_stride"]
                    check(d + p["take"] <= t["bytes"] and s + p["take"] <= len(src),
                          f"{where}: piece out of range")
                    cover[d:d + p["take"]] += 1
                    rebuilt[d:d + p["take"]] = src[s:s + p["take"]]
            check(bool(np.all(cover == 1)), f"{where}: pieces cover {sorted(set(cover))} times")
            check(bytes(rebuilt) == tb, f"{where}: the pieces' bytes are not the tensor's")
    return m


def model(work):
    u.small_model(work, RNG)


def run_ok(label, work, args):
    r = u.run(args, work)
    check(r.returncode == 0, f"{label}: {r.returncode} {r.stderr}")
    return r


def test_commands(work):
    model(work)
    cases = [
        ("split rows", "st split", ["st", "split", "model.safetensors", "-o", "rows", "--tensor",
                                    "a.qkv", "-a", "0", "-n", "3", "--into", "q,k,v"], "rows"),
        ("split columns", "st split", ["st", "split", "model.safetensors", "-o", "cols",
                                       "--tensor", "a.qkv", "-a", "1", "-l", "2,6",
                                       "--into", "x,y"], "cols"),
        ("shard", "st shard", ["st", "shard", "model.safetensors", "-o", "tp", "-n", "2",
                               "--axis", "a.qkv=1", "--axis", "c.w=0"], "tp"),
        ("merge", "st merge", ["st", "merge", "tp", "-o", "merged", "--axis", "a.qkv=1",
                               "--axis", "c.w=0"], "merged"),
        ("reshard", "st reshard", ["st", "reshard", "tp", "-o", "tp4", "-n", "4", "--axis",
                                   "a.qkv=1", "--axis", "c.w=0"], "tp4"),
        ("by size", "st merge", ["st", "merge", "tp", "-o", "sized", "--axis", "a.qkv=1",
                                 "--axis", "c.w=0", "--max-shard-size", "100"], "sized"),
    ]
    for label, command, args, out in cases:
        if run_ok(label, work, args).returncode == 0:
            m = check_manifest(label, os.path.join(work, out), work, args, command)
            if m is not None and label == "by size":
                kinds = [f["kind"] for f in m["files"]]
                check(kinds.count("index") == 1 and kinds[-1] == "index", f"by size: {kinds}")
            if m is not None and label == "merge":
                # Both ranks are inputs and the merged qkv reads from both.
                qkv = [t for f in m["files"] for t in f["tensors"] if t["name"] == "a.qkv"][0]
                check(sorted({p["input"] for p in qkv["pieces"]}) == [0, 1], "merge: qkv pieces")
    # The merged model is the original, and so says its manifest's checksums.
    check(open(os.path.join(work, "merged", "model.safetensors"), "rb").read() ==
          open(os.path.join(work, "model.safetensors"), "rb").read(), "merge: the original")


def test_gguf(work):
    ts = [(f"blk.{i}.w", "F32", (4, 8), RNG.random((4, 8), np.float32).tobytes())
          for i in range(3)]
    g.write_gguf(os.path.join(work, "model.gguf"), [("general.architecture", "str", "llama")], ts)
    args = ["gguf", "split", "model.gguf", "-o", "set", "--max-shard-size", "300B"]
    if run_ok("gguf split", work, args).returncode == 0:
        check_manifest("gguf split", os.path.join(work, "set"), work, args, "gguf split")


def test_all_or_nothing(work):
    model(work)
    # The report cannot be written: nothing is, the manifest neither.
    with open("/dev/full", "w") as full:
        r = subprocess.run([u.CLEAVE, "st", "split", "model.safetensors", "-o", "out", "--tensor",
                            "a.qkv", "-a", "0", "-n", "2", "--into", "x,y"], cwd=work,
                           stdout=full, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 74 and not os.path.exists(os.path.join(work, "out")),
          f"a report that cannot be written: {r.returncode}, {os.listdir(work)}")
    # A planning error: nothing written.
    u.expect_failure("a bad rule", ["st", "split", "model.safetensors", "-o", "out", "--tensor",
                                    "a.qkv", "-a", "0", "-n", "4", "--into", "a,b,c,d"], work, 65,
                     ["a.qkv"])
    # A second run into the folder replaces the manifest (without -f), which then lists only
    # its outputs; the first run's outputs stay.
    a = ["st", "split", "model.safetensors", "-o", "out", "--tensor", "a.qkv", "-a", "0",
         "-n", "2", "--into", "x,y"]
    run_ok("first run", work, a)
    first = open(os.path.join(work, "out", NAME)).read()
    # The first run's manifest listed model.safetensors; rename it so the second run is new.
    os.rename(os.path.join(work, "out", "model.safetensors"),
              os.path.join(work, "out", "old.safetensors"))
    r = run_ok("second run", work, a)
    check(open(os.path.join(work, "out", NAME)).read() == first, "the same run, the same manifest")
    m = json.load(open(os.path.join(work, "out", NAME)))
    check([f["name"] for f in m["files"]] == ["model.safetensors"], f"second run: {m['files']}")
    check("old.safetensors" in r.stderr, f"the first run's file is named: {r.stderr}")


def test_sidecars(work):
    """A model folder's other files are copied unchanged and listed with their checksums, unless
    --no-sidecar; not the folder's own manifest; not when OUTDIR is the model's folder; a failed
    run leaves none."""
    os.makedirs(os.path.join(work, "m"))
    model(os.path.join(work, "m"))
    side = {"config.json": b'{"hidden_size": 8}\n', "tokenizer.json": bytes(range(256)) * 5,
            "generation_config.json": b"{}"}
    for name, data in side.items():
        open(os.path.join(work, "m", name), "wb").write(data)
    open(os.path.join(work, "m", NAME), "w").write("{}")  # an earlier run's: not copied
    args = ["st", "shard", "m", "-o", "tp", "-n", "2", "--axis", "a.qkv=1"]
    r = run_ok("sidecars", work, args)
    check(all(f"tp/{n}\tsidecar" in r.stdout for n in side), f"report: {r.stdout}")
    m = check_manifest("sidecars", os.path.join(work, "tp"), work, args, "st shard")
    if m is not None:
        copied = {f["name"]: f for f in m["files"] if f["kind"] == "sidecar"}
        check(sorted(copied) == sorted(side), f"sidecars listed: {sorted(copied)}")
        for name, data in side.items():
            check(open(os.path.join(work, "tp", name), "rb").read() == data, f"{name} copied")
            check(copied.get(name, {}).get("source") == f"m/{name}", f"{name} source")
    check(json.load(open(os.path.join(work, "tp", NAME))).get("manifest") == "cleave",
          "the model's manifest is not copied over the run's")
    # A folder of ranks carries them on: merge reads them beside the ranks (and not the ranks'
    # manifest); ranks named one by one have none.
    args = ["st", "merge", "tp", "-o", "back", "--axis", "a.qkv=1"]
    run_ok("merge of a rank folder", work, args)
    m = check_manifest("merge of a rank folder", os.path.join(work, "back"), work, args,
                       "st merge")
    if m is not None:
        copied = sorted(f["name"] for f in m["files"] if f["kind"] == "sidecar")
        check(copied == sorted(side), f"merge: sidecars {copied}")
    args = ["st", "merge", "tp/rank0.safetensors", "tp/rank1.safetensors", "-o", "named",
            "--axis", "a.qkv=1"]
    run_ok("merge of named ranks", work, args)
    check(sorted(os.listdir(os.path.join(work, "named"))) == [NAME, "model.safetensors"],
          f"named ranks: {os.listdir(os.path.join(work, 'named'))}")
    args = ["st", "shard", "m", "-o", "bare", "-n", "2", "--axis", "a.qkv=1", "--no-sidecar"]
    r = run_ok("--no-sidecar", work, args)
    check(sorted(os.listdir(os.path.join(work, "bare"))) ==
          [NAME, "rank0.safetensors", "rank1.safetensors"] and "sidecar" not in r.stdout,
          f"--no-sidecar: {os.listdir(os.path.join(work, 'bare'))}")
    check_manifest("--no-sidecar", os.path.join(work, "bare"), work, args, "st shard")
    # --dry-run lists them and writes nothing.
    r = run_ok("--dry-run", work, ["st", "shard", "m", "-o", "dry", "-n", "2", "--axis",
                                   "a.qkv=1", "--dry-run"])
    check("dry/config.json\tsidecar" in r.stdout and not os.path.exists(os.path.join(work, "dry")),
          f"--dry-run: {r.stdout}")
    # A failed run leaves no sidecar: an output that exists (without -f).
    os.makedirs(os.path.join(work, "busy"))
    open(os.path.join(work, "busy", "rank1.safetensors"), "w").write("x")
    u.expect_failure("an output exists", ["st", "shard", "m", "-o", "busy", "-n", "2", "--axis",
                                          "a.qkv=1"], work, 73, ["rank1.safetensors", "exists"])
    # Into the model's own folder: refused, -f or not (the outputs would land among the inputs).
    args = ["st", "split", "m", "-o", "m", "--tensor", "a.qkv", "-a", "0", "-n", "2", "--into",
            "x,y", "-f"]
    u.expect_failure("into the model's folder", args, work, 64,
                     ["st split: -o 'm' is the folder of the model, 'm/'"])
