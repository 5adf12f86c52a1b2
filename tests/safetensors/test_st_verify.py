#!/usr/bin/python3
"""cleave st verify OUTDIR [--against MODEL...]: outputs as written verify (st split, shard,
merge, reshard, by size, and gguf split); a flipped byte (in a tensor, in a header) and a
truncation are found with and without --against, naming the file, the tensor and (with
--against, or at a truncation) the first differing byte, at offsets the test computes itself
from the file's header (also in a merged tensor whose ranks' pieces are compared together); a missing and an extra file; a changed input; every error: a malformed
manifest (not JSON, another version, a range past its file, a file name outside OUTDIR, a
tensor a second time), a manifest that contradicts a header it matches the checksum of, no
manifest, an input of --against missing, a malformed command line: each with its status, the
message naming the place, and nothing on stdout. verify never writes."""
import json
import os
import shutil
import struct

import numpy as np

import gguf_util as g
import clitest
import st_util as u
from clitest import check

RNG = np.random.default_rng(2424)
NAME = "cleave-manifest.json"


def model(work):
    u.small_model(work, RNG)


def tensor_ranges(path):
    """{name: (file offset, bytes)} from the file's own header."""
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    head = json.loads(blob[8:8 + n])
    return {k: (8 + n + v["data_offsets"][0], v["data_offsets"][1] - v["data_offsets"][0])
            for k, v in head.items() if k != "__metadata__"}


def verify(work, args):
    before = u.snapshot(work)
    r = u.run(["st", "verify"] + args, work)
    check(u.snapshot(work) == before, f"verify {args} changed files")
    return r


def flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x40]))


def fresh(work, name, args):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    r = u.run(args + ["-o", name], work)
    check(r.returncode == 0, f"{name}: {r.stderr}")
    return out


def test_clean(work):
    model(work)
    runs = [("rows", ["st", "split", "model.safetensors", "--tensor", "a.qkv", "-a", "0", "-n",
                      "3", "--into", "q,k,v"], ["model.safetensors"]),
            ("tp", ["st", "shard", "model.safetensors", "-n", "2", "--axis", "a.qkv=1",
                    "--axis", "c.w=0"], ["model.safetensors"]),
            ("merged", ["st", "merge", "tp", "--axis", "a.qkv=1", "--axis", "c.w=0"], ["tp"]),
            ("tp3", ["st", "reshard", "tp", "-n", "4", "--axis", "a.qkv=1", "--axis", "c.w=0"],
             ["tp/rank0.safetensors", "tp/rank1.safetensors"]),
            ("sized", ["st", "merge", "tp", "--axis", "a.qkv=1", "--axis", "c.w=0",
                       "--max-shard-size", "100"], ["tp"])]
    for name, args, inputs in runs:
        fresh(work, name, args)
        r = verify(work, [name])
        check(r.returncode == 0 and r.stdout.startswith(f"{name}: ") and
              "as the manifest says" in r.stdout, f"{name}: {r.returncode} {r.stdout} {r.stderr}")
        r = verify(work, [name, "--against"] + inputs)
        check(r.returncode == 0 and "equal to the inputs" in r.stdout,
              f"{name} --against: {r.returncode} {r.stdout} {r.stderr}")
        r = verify(work, [name, "--json", "-q"])
        if check(r.returncode == 0, f"{name} --json: {r.stderr}"):
            j = json.loads(r.stdout)
            listed = json.load(open(os.path.join(work, name, NAME)))["files"]
            check(j["ok"] is True and j["differences"] == [] and j["files"] == len(listed) and
                  j["bytes"] == sum(os.path.getsize(os.path.join(work, name, f["name"]))
                                    for f in listed), f"{name} --json: {j}")
        r = verify(work, [name, "-q"])
        check(r.returncode == 0 and r.stdout == "", f"{name} -q: {r.stdout!r}")
    ts = [(f"blk.{i}.w", "F32", (4, 8), RNG.random((4, 8), np.float32).tobytes())
          for i in range(3)]
    g.write_gguf(os.path.join(work, "model.gguf"), [("general.architecture", "str", "llama")], ts)
    fresh(work, "gset", ["gguf", "split", "model.gguf", "--max-shard-size", "300B"])
    r = verify(work, ["gset", "--against", "model.gguf"])
    check(r.returncode == 0, f"gguf split: {r.stdout} {r.stderr}")


def test_differences(work):
    model(work)
    args = ["st", "shard", "model.safetensors", "-n", "2", "--axis", "a.qkv=1", "--axis",
            "c.w=0"]
    # A flipped byte in a tensor: 12 bytes into rank1's a.qkv.
    out = fresh(work, "tp", args)
    rank1 = os.path.join(out, "rank1.safetensors")
    off, size = tensor_ranges(rank1)["a.qkv"]
    flip(rank1, off + 12)
    r = verify(work, ["tp"])
    check(r.returncode == 1 and "rank1.safetensors: tensor 'a.qkv': its bytes differ from their "
          f"checksum (bytes {off} to {off + size} of the file)" in r.stdout,
          f"flip: {r.returncode} {r.stdout} {r.stderr}")
    check("rank0" not in r.stdout and r.stdout.strip().endswith("1 difference"),
          f"flip: only rank1 {r.stdout}")
    r = verify(work, ["tp", "--against", "model.safetensors"])
    # Rank 1's part is columns 4..7 of the [6, 8] F32 source: 16 bytes of each 32-byte source
    # row, from byte 16 of it.
    row, col = divmod(12, 16)
    src_off, _ = tensor_ranges(os.path.join(work, "model.safetensors"))["a.qkv"]
    src = src_off + row * 32 + 16 + col
    check(r.returncode == 1 and "tensor 'a.qkv': 0x" in r.stdout and
          f"at byte {src} of its input 'model.safetensors' (byte {off + 12} of the file, byte 12 "
          "of the tensor)" in r.stdout, f"flip --against: {r.stdout} {r.stderr}")
    r = verify(work, ["tp", "--json", "--against", "model.safetensors"])
    if check(r.returncode == 1, f"flip --json: {r.returncode} {r.stderr}"):
        d = [x for x in json.loads(r.stdout)["differences"] if "file_offset" in x]
        check(len(d) == 1 and d[0]["file"] == "rank1.safetensors" and d[0]["tensor"] == "a.qkv"
              and d[0]["file_offset"] == off + 12 and d[0]["tensor_offset"] == 12,
              f"flip --json: {d}")
    # A flipped byte in the header (a key's letter): the file fails its check.
    out = fresh(work, "tp", args)
    flip(os.path.join(out, "rank0.safetensors"), 10)
    r = verify(work, ["tp"])
    check(r.returncode == 1 and "rank0.safetensors: " in r.stdout, f"header flip: {r.stdout}")
    # A truncation inside c.w of rank 0: the first missing byte, in the file and the tensor.
    out = fresh(work, "tp", args)
    rank0 = os.path.join(out, "rank0.safetensors")
    off, size = tensor_ranges(rank0)["c.w"]
    os.truncate(rank0, off + 5)
    for extra in ([], ["--against", "model.safetensors"]):
        r = verify(work, ["tp"] + extra)
        check(r.returncode == 1 and f"rank0.safetensors: tensor 'c.w': the file is cut short: "
              f"{off + 5} bytes, the manifest says {os.path.getsize(os.path.join(out, 'rank1.safetensors'))}"
              f" (byte {off + 5} of the file, byte 5 of the tensor)" in r.stdout,
              f"truncation {extra}: {r.stdout} {r.stderr}")
    # A missing file, and an extra one.
    out = fresh(work, "tp", args)
    os.remove(os.path.join(out, "rank1.safetensors"))
    open(os.path.join(out, "notes.txt"), "w").write("x")
    r = verify(work, ["tp", "--against", "model.safetensors"])
    check(r.returncode == 1 and "rank1.safetensors: is missing (the manifest lists it)" in
          r.stdout and "notes.txt: is in the output folder but not in the manifest" in r.stdout,
          f"missing and extra: {r.stdout} {r.stderr}")
    # A merge's a.qkv (rows of 32 bytes: 16 of rank 0, then 16 of rank 1), read in blocks of rows
    # for both ranks at once: of two flipped bytes, rank 0's in row 3 and rank 1's in row 2,
    # the first in the tensor is reported, with its byte in rank 1.
    out = fresh(work, "tp", args)
    merged = fresh(work, "merged", ["st", "merge", "tp", "--axis", "a.qkv=1", "--axis", "c.w=0"])
    path = os.path.join(merged, "model.safetensors")
    off, size = tensor_ranges(path)["a.qkv"]
    flip(path, off + 3 * 32 + 2)
    flip(path, off + 2 * 32 + 16 + 5)
    r1_off, _ = tensor_ranges(os.path.join(out, "rank1.safetensors"))["a.qkv"]
    r = verify(work, ["merged", "--against", "tp"])
    check(r.returncode == 1 and r.stdout.count("tensor 'a.qkv': 0x") == 1 and
          f"at byte {r1_off + 2 * 16 + 5} of its input 'rank1.safetensors' (byte "
          f"{off + 2 * 32 + 21} of the file, byte {2 * 32 + 21} of the tensor)" in r.stdout,
          f"merge flips --against: {r.stdout} {r.stderr}")
    # Cut short inside its row 4: the missing byte, not a comparison past the end.
    merged = fresh(work, "merged", ["st", "merge", "tp", "--axis", "a.qkv=1", "--axis", "c.w=0"])
    os.truncate(path, off + 4 * 32 + 7)
    r = verify(work, ["merged", "--against", "tp"])
    check(r.returncode == 1 and "tensor 'a.qkv': the file is cut short" in r.stdout and
          f"(byte {off + 4 * 32 + 7} of the file, byte {4 * 32 + 7} of the tensor)" in r.stdout and
          "0x" not in r.stdout, f"merge cut --against: {r.stdout} {r.stderr}")
    # An input that changed since the run: --against names its byte; the checksums still pass.
    out = fresh(work, "tp", args)
    changed = os.path.join(work, "changed")
    os.makedirs(changed, exist_ok=True)
    shutil.copy(os.path.join(work, "model.safetensors"), changed)
    src_off, _ = tensor_ranges(os.path.join(changed, "model.safetensors"))["b.norm"]
    flip(os.path.join(changed, "model.safetensors"), src_off + 3)
    check(verify(work, ["tp"]).returncode == 0, "the outputs are intact")
    r = verify(work, ["tp", "--against", "changed"])
    check(r.returncode == 1 and r.stdout.count("tensor 'b.norm'") == 2 and
          f"at byte {src_off + 3} of its input" in r.stdout, f"changed input: {r.stdout}")
    # An input cut short since the run: its size named, and each tensor copied from past its end
    # says where the input ends (the merge of tp is read back from the ranks' bytes).
    fresh(work, "merged", ["st", "merge", "tp", "--axis", "a.qkv=1", "--axis", "c.w=0"])
    cut = os.path.join(work, "cut")
    os.makedirs(cut, exist_ok=True)
    for rank in range(2):
        shutil.copy(os.path.join(out, f"rank{rank}.safetensors"), cut)
    r1 = os.path.join(cut, "rank1.safetensors")
    end = os.path.getsize(r1) - 5
    os.truncate(r1, end)
    r = verify(work, ["merged", "--against", "cut"])
    check(r.returncode == 1 and "rank1.safetensors: (an input) has " in r.stdout and
          f"its input 'rank1.safetensors' ends at byte {end}, before the bytes it was copied "
          "from" in r.stdout, f"input cut short: {r.stdout} {r.stderr}")


def edit(path, fn):
    """Changes the manifest and writes it with its checksum of itself recomputed, so that the
    change reaches the schema's checks (test_trust.py checks that an edit alone is reported)."""
    m = json.load(open(path))
    fn(m)
    clitest.write_manifest(path, m)


def test_errors(work):
    model(work)
    out = fresh(work, "tp", ["st", "shard", "model.safetensors", "-n", "2", "--axis",
                             "a.qkv=1"])
    mpath = os.path.join(out, NAME)
    good = open(mpath).read()

    def case(label, change, status, fragments, extra=()):
        open(mpath, "w").write(good)
        change()
        r = u.expect_failure(label, ["st", "verify", "tp"] + list(extra), work, status,
                             fragments)
        check(r.stdout == "", f"{label}: stdout {r.stdout!r}")

    case("not JSON", lambda: open(mpath, "w").write(good[:40]), 65,
         ["cleave-manifest.json: line 1, column"])
    case("another version", lambda: edit(mpath, lambda m: m.update(version=3)), 65,
         ["version 3 is not supported (this cleave reads versions 1 and 2)"])
    case("past its file", lambda: edit(mpath, lambda m: m["files"][0]["tensors"][1].update(
        bytes=10 ** 6)), 65, ["files[0].tensors[1]: ends past the end of its file"])
    case("a checksum", lambda: edit(mpath, lambda m: m["files"][0].update(xxh3="xyz")), 65,
         ["files[0].xxh3: not 16 hex digits"])
    case("outside OUTDIR", lambda: edit(mpath, lambda m: m["files"][0].update(
        name="../model.safetensors")), 65,
         ["files[0].name: is not the name of a file in the output folder"])
    case("twice", lambda: edit(mpath, lambda m: m["files"].append(m["files"][0])), 65,
         ["files[2].name: lists a file a second time"])
    case("a piece", lambda: edit(mpath, lambda m: m["files"][0]["tensors"][0]["pieces"][0].update(
        input=7)), 65, ["files[0].tensors[0].pieces[0].input: names no input"])
    case("a name", lambda: edit(mpath, lambda m: m["files"][0]["tensors"][0].update(
        name="zzz")), 65, ["the manifest does not match", "rank0.safetensors", "tensors[0]",
                           "name"])
    case("no manifest", lambda: os.remove(mpath), 66, ["cannot open the manifest",
                                                       "tp/cleave-manifest.json"])
    case("an input missing", lambda: None, 66,
         ["the input 'model.safetensors' of the manifest is not among"], ["--against", "tp"])
    case("a missing MODEL", lambda: None, 66, ["cannot open --against 'nope'"],
         ["--against", "nope"])
    case("no OUTDIR", lambda: None, 64, ["st verify: unknown option"], ["--bad"])
    open(mpath, "w").write(good)
    u.expect_failure("two folders", ["st", "verify", "tp", "tp"], work, 64,
                     ["unexpected argument 'tp'"])
    u.expect_failure("none", ["st", "verify"], work, 64, ["the OUTDIR", "is missing"])
