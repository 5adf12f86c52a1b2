"""--outtype on the checkpoint verbs (split, shard, merge, reshard; safetensors and GGUF): the
outputs' values against NumPy and torch (every float tensor cast, FP8 weights dequantized by
their block scales, the rest as it was), the header's types, the plan's cuts with the new
element size, the size limit applied to the converted sizes, --dry-run, the manifest and
verify --against (which recomputes a converted tensor, so a changed input byte is found), and
the errors (status, message, nothing written)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import casts_lib as c
import clitest
from clitest import check

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "safetensors"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "gguf"))
import gguf_util  # noqa: E402
import st_util  # noqa: E402
from st_util import array_tensor, as_array, read_st, write_st  # noqa: E402

RNG = np.random.default_rng(3434)


def run(args, cwd):
    return st_util.run(args, cwd)


def ok(label, r):
    return check(r.returncode == 0, f"{label}: status {r.returncode}: {r.stderr.strip()}")


def bf16_of(a):
    """torch's round to nearest even of a float array, as uint16 bits; a NaN by cleave's rule
    (its sign, quiet, the payload's leading bits), since torch 1.13 gives 0x7FC0 or 0xFFFF
    depending on its kernel."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    t = torch.from_numpy(a.copy()).to(torch.bfloat16)
    out = t.view(torch.int16).numpy().view(np.uint16).copy()
    nan = np.isnan(a)
    out[nan] = ((a.view(np.uint32)[nan] >> 16) | 0x40).astype(np.uint16)
    return out


def f32_of_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def float_model(folder):
    """a.w F32 [64, 48] (cut on axis 1), b.w F32 [32, 16] (axis 0), c.n F16 [16] with NaN, inf,
    a subnormal and a value that overflows bf16's range? no: f16 fits; d.i I32 [10], e.x F64 [8]
    with a value beyond f16 and bf16 ties."""
    os.makedirs(folder, exist_ok=True)
    a = RNG.standard_normal((64, 48)).astype(np.float32)
    a[0, :6] = [np.nan, np.inf, -np.inf, 3.5e38, 1e-40, 1 + 2.0 ** -8]  # NaN, inf, overflow...
    t = {"a.w": a,
         "b.w": RNG.standard_normal((32, 16)).astype(np.float32),
         "c.n": np.array([1, -0.0, np.nan, np.inf, 6e-8, 65504, 0.1, 3] * 2, dtype=np.float16),
         "d.i": np.arange(10, dtype=np.int32),
         "e.x": np.array([1e300, -1e-300, 1 + 2.0 ** -9, 0.1, 2.0 ** -140, np.nan, 65520, 7],
                         dtype=np.float64)}
    write_st(os.path.join(folder, "model.safetensors"), {k: array_tensor(v) for k, v in t.items()})
    return t


def bf16_reference(t):
    """Each tensor as --outtype bf16 writes it: floats rounded once (f64 by exact rounding), the
    integers as they were."""
    out = {}
    for k, v in t.items():
        if v.dtype == np.int32:
            out[k] = v
        elif v.dtype == np.float64:
            bits = v.view(np.uint64)
            out[k] = np.array([c.round_exact(float(x), 8, 7) if not np.isnan(x) else
                               int(((int(b) >> 48) & 0x8000) | 0x7FC0 | ((int(b) >> 45) & 0x7F))
                               for x, b in zip(v, bits)], dtype=np.uint16)
        else:
            out[k] = bf16_of(v.astype(np.float32))
    return out


def test_shard_then_merge_bf16(work):
    """shard --outtype bf16 then merge: the merged model is the bf16 cast of the input, tensor by
    tensor, with BF16 in the header; every rank holds its cut of the cast (the plan's columns
    with the new element size); integers are untouched."""
    t = float_model(os.path.join(work, "m"))
    want = bf16_reference(t)
    r = run(["shard", "m", "-n", "2", "--axis", "a.w=1", "--axis", "b.w=0", "--outtype", "bf16",
             "-o", "tp"], work)
    ok("shard --outtype bf16", r)
    for rank in range(2):
        _, got = read_st(os.path.join(work, "tp", f"rank{rank}.safetensors"))
        check(got["a.w"][0] == "BF16" and got["a.w"][1] == (64, 24), f"rank{rank} a.w: {got['a.w'][:2]}")
        part = np.frombuffer(got["a.w"][2], np.uint16).reshape(64, 24)
        check(np.array_equal(part, want["a.w"][:, 24 * rank:24 * rank + 24]),
              f"rank{rank}: a.w is the bf16 cast of its columns")
        part = np.frombuffer(got["b.w"][2], np.uint16).reshape(16, 16)
        check(np.array_equal(part, want["b.w"][16 * rank:16 * rank + 16]),
              f"rank{rank}: b.w is the bf16 cast of its rows")
        check(got["d.i"][0] == "I32" and np.array_equal(as_array(got["d.i"]), t["d.i"]),
              f"rank{rank}: d.i is untouched")
    # One rank of the run (--rank) is the whole run's rank, byte for byte.
    ok("shard --rank 1 --outtype bf16",
       run(["shard", "m", "-n", "2", "--axis", "a.w=1", "--axis", "b.w=0", "--outtype", "bf16",
            "--rank", "1", "-o", "r1"], work))
    check(open(os.path.join(work, "r1", "rank1.safetensors"), "rb").read() ==
          open(os.path.join(work, "tp", "rank1.safetensors"), "rb").read(),
          "--rank 1 --outtype bf16 writes the whole run's rank 1")
    r = run(["merge", "tp", "-o", "merged"], work)
    ok("merge", r)
    _, got = read_st(os.path.join(work, "merged", "model.safetensors"))
    for k, v in want.items():
        dtype = "I32" if k == "d.i" else "BF16"
        check(got[k][0] == dtype, f"merged {k}: dtype {got[k][0]}, want {dtype}")
        check(np.array_equal(np.frombuffer(got[k][2], v.dtype).reshape(v.shape), v),
              f"merged {k} equals the bf16 cast of the input")
    # The NaN stays NaN, inf inf, 3.5e38 overflows to inf, 1e-40 stays subnormal, the tie rounds
    # to even.
    head = np.frombuffer(got["a.w"][2], np.uint16)[:6]
    check([int(x) for x in head[1:5]] == [0x7F80, 0xFF80, 0x7F80, 0x0001] and
          (head[0] & 0x7FFF) > 0x7F80 and head[5] == 0x3F80,
          f"a.w's edge values: {[hex(x) for x in head]}")
    # merge --outtype f32 of the bf16 ranks: the bf16 values widened exactly.
    r = run(["merge", "tp", "-o", "wide", "--outtype", "f32"], work)
    ok("merge --outtype f32", r)
    _, got = read_st(os.path.join(work, "wide", "model.safetensors"))
    check(np.array_equal(as_array(got["a.w"]).view(np.uint32)[~np.isnan(as_array(got["a.w"]))],
                         (want["a.w"].astype(np.uint32) << 16)[~np.isnan(as_array(got["a.w"]))]),
          "merge --outtype f32 widens the bf16 ranks exactly")
    # verify --against recomputes each converted tensor from its input bytes.
    r = run(["verify", "tp", "--against", "m"], work)
    ok("verify --against", r)
    check("equal to the inputs" in r.stdout, f"verify says: {r.stdout.strip()}")


def test_reshard_and_split_f16(work):
    """reshard --outtype f16 of f32 ranks equals NumPy's astype of each part; split with a size
    limit lays the files out by the converted sizes (two files of f32 would be one of f16)."""
    t = float_model(os.path.join(work, "m"))
    ok("shard", run(["shard", "m", "-n", "2", "--axis", "a.w=1", "-o", "tp"], work))
    ok("reshard --outtype f16",
       run(["reshard", "tp", "-n", "4", "--outtype", "f16", "-o", "tp4"], work))
    with np.errstate(all="ignore"):
        want = t["a.w"].astype(np.float16)
    for rank in range(4):
        _, got = read_st(os.path.join(work, "tp4", f"rank{rank}.safetensors"))
        check(got["a.w"][0] == "F16", f"reshard rank{rank}: {got['a.w'][0]}")
        check(np.array_equal(as_array(got["a.w"]).view(np.uint16),
                             want[:, 12 * rank:12 * rank + 12].view(np.uint16)),
              f"reshard rank{rank}: a.w is numpy's float16 of its columns")
    ok("verify reshard", run(["verify", "tp4", "--against", "tp"], work))
    # Sizes: as f16, a.w takes 6144 bytes and b.w 1024: a limit of 7200 holds both in the first
    # file (and c.n's 32), d.i and e.x go to the second. Sized as f32 (12288, 2048), a.w would
    # have had a file of its own.
    ok("st split --max-shard-size --outtype f16",
       run(["st", "split", "m", "-o", "sized", "--max-shard-size", "7200", "--outtype", "f16"],
           work))
    index = json.load(open(os.path.join(work, "sized", "model.safetensors.index.json")))
    where = index["weight_map"]
    check(where["a.w"] == where["b.w"] == where["c.n"] == "model-00001-of-00002.safetensors" and
          where["d.i"] == where["e.x"] == "model-00002-of-00002.safetensors",
          f"split by the converted sizes: {where}")
    check(index["metadata"]["total_size"] == 6144 + 1024 + 32 + 40 + 16,
          f"index total_size {index['metadata']['total_size']}")


def fp8_model(folder, shape=(256, 256), block=(128, 128), scale_dtype="F32", config=True):
    os.makedirs(folder, exist_ok=True)
    w = RNG.integers(0, 256, shape, dtype=np.uint8)
    w[0, 0], w[1, 1] = 0x7F, 0xFF  # the two NaNs
    sshape = tuple(-(-n // b) for n, b in zip(shape, block))
    s = (RNG.random(sshape) * 2.0 ** RNG.integers(-8, 4, sshape)).astype(np.float32)
    if scale_dtype == "BF16":
        sbits = bf16_of(s)
        s = f32_of_bf16(sbits)
        scale = ("BF16", sshape, sbits.tobytes())
    else:
        scale = ("F32", sshape, s.tobytes())
    write_st(os.path.join(folder, "model.safetensors"),
             {"l.w": ("F8_E4M3", shape, w.tobytes()), "l.w_scale_inv": scale,
              "n.b": array_tensor(np.linspace(-1, 1, 8).astype(np.float32))})
    if config:
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump({"quantization_config": {"quant_method": "fp8", "fmt": "e4m3",
                                               "weight_block_size": list(block)}}, f)
    return w, s


def reference(w, s, block, dst):
    """The per-block rule in NumPy (test_casts.reference_dequantize); the NaN bytes by cleave's
    rule (the default quiet NaN of their sign), which NumPy's and torch's NaNs do not keep."""
    from test_casts import reference_dequantize
    out = reference_dequantize(w, s, block, dst).reshape(w.shape).copy()
    nan = {c.F32: (0x7FC00000, 0xFFC00000), c.F16: (0x7E00, 0xFE00), c.BF16: (0x7FC0, 0xFFC0)}
    out[w == 0x7F], out[w == 0xFF] = nan[dst]
    return out


def test_fp8_dequantized(work):
    """FP8 e4m3 weights with their _scale_inv: shard --outtype bf16 (rows) and split (columns)
    dequantize each part with its blocks' scales, the scales left out; a merge of FP8 ranks
    --outtype f32 dequantizes each rank's part with the rank's own scale; all equal the
    per-block rule computed in NumPy (e4m3 -> f32, times the scale in f32, then rounded)."""
    w, s = fp8_model(os.path.join(work, "m"))
    want = reference(w, s, (128, 128), c.BF16)
    r = run(["shard", "m", "-n", "2", "--axis", "l.w=0", "--outtype", "bf16", "-o", "tp"], work)
    ok("shard FP8 --outtype bf16", r)
    check("warning" in r.stderr and "config.json is copied unchanged" in r.stderr and
          "quantization_config" in r.stderr, f"the config.json warning: {r.stderr.strip()}")
    check(open(os.path.join(work, "tp", "config.json")).read() ==
          open(os.path.join(work, "m", "config.json")).read(), "config.json copied unchanged")
    for rank in range(2):
        _, got = read_st(os.path.join(work, "tp", f"rank{rank}.safetensors"))
        check(sorted(got) == ["l.w", "n.b"], f"rank{rank}: the scale is left out: {sorted(got)}")
        check(got["l.w"][:2] == ("BF16", (128, 256)), f"rank{rank} l.w: {got['l.w'][:2]}")
        check(np.array_equal(np.frombuffer(got["l.w"][2], np.uint16).reshape(128, 256),
                             want[128 * rank:128 * rank + 128]),
              f"rank{rank}: l.w is the per-block dequantization of its rows")
    ok("verify FP8 ranks", run(["verify", "tp", "--against", "m"], work))
    # A column cut (split): each part's elements keep their blocks' scales.
    r = run(["st", "split", "m", "-o", "cols", "--tensor", "l.w", "-a", "1", "-n", "2",
             "--into", "l.a,l.b", "--outtype", "f16"], work)
    ok("split FP8 columns --outtype f16", r)
    _, got = read_st(os.path.join(work, "cols", "model.safetensors"))
    want16 = reference(w, s, (128, 128), c.F16)
    check(np.array_equal(np.frombuffer(got["l.b"][2], np.uint16).reshape(256, 128),
                         want16[:, 128:]), "split: l.b is the dequantization of its columns")
    check(not any(k.endswith("_scale_inv") for k in got), f"split: scales left out: {sorted(got)}")
    ok("verify split", run(["verify", "cols", "--against", "m"], work))
    # Ranks of FP8 (each with its part of the scale), merged and dequantized.
    ok("shard FP8", run(["shard", "m", "-n", "2", "--axis", "l.w=1", "-o", "f8tp"], work))
    ok("merge --outtype f32", run(["merge", "f8tp", "-o", "merged", "--outtype", "f32"], work))
    _, got = read_st(os.path.join(work, "merged", "model.safetensors"))
    want32 = reference(w, s, (128, 128), c.F32)
    check(np.array_equal(np.frombuffer(got["l.w"][2], np.uint32).reshape(256, 256), want32),
          "merge of FP8 ranks --outtype f32: each rank's part with its own scale")
    ok("verify merge", run(["verify", "merged", "--against", "f8tp"], work))
    # A bf16 scale and partial blocks.
    w2, s2 = fp8_model(os.path.join(work, "m2"), shape=(200, 300), block=(64, 128),
                       scale_dtype="BF16")
    ok("split bf16 scale", run(["st", "split", "m2", "--max-shard-size", "1G", "--outtype", "bf16",
                                "-o", "p2"], work))
    _, got = read_st(os.path.join(work, "p2", "model.safetensors"))
    check(np.array_equal(np.frombuffer(got["l.w"][2], np.uint16).reshape(200, 300),
                         reference(w2, s2, (64, 128), c.BF16)),
          "a bf16 scale, partial blocks: the per-block rule")


def test_verify_recomputes(work):
    """verify --against finds a changed input byte under a converted tensor (the outputs'
    checksums still hold) and a changed output byte, each named with its place."""
    float_model(os.path.join(work, "m"))
    ok("shard", run(["shard", "m", "-n", "2", "--axis", "a.w=1", "--outtype", "f16",
                     "-o", "tp"], work))
    path = os.path.join(work, "m", "model.safetensors")
    blob = bytearray(open(path, "rb").read())
    n = int.from_bytes(blob[:8], "little")
    head = json.loads(blob[8:8 + n])
    at = 8 + n + head["b.w"]["data_offsets"][0] + 4 * 5 + 3  # b.w[5]'s sign and exponent
    blob[at] ^= 0x40
    os.makedirs(os.path.join(work, "changed"))
    open(os.path.join(work, "changed", "model.safetensors"), "wb").write(bytes(blob))
    r = run(["verify", "tp", "--against", "changed"], work)
    check(r.returncode == 1 and "tensor 'b.w'" in r.stdout and "converted (f32 to f16)" in r.stdout
          and f"byte {at - 3} of its input" in r.stdout,
          f"a changed input byte is found: {r.returncode} {r.stdout.strip()} {r.stderr.strip()}")


def test_gguf_shard_f16_read_by_gguf_py(work):
    """A GGUF F32 model shard --outtype f16: gguf-py's reader (llama.cpp's own) reads F16
    tensors equal to NumPy's astype, the metadata and the other types unchanged."""
    setup = os.path.join(os.environ["CLEAVE_SOURCE_DIR"], "tests", "gguf", "llama", "setup.sh")
    found = subprocess.run(["sh", setup], capture_output=True, text=True)
    folder = found.stdout.strip().splitlines()[-1] if found.returncode == 0 and found.stdout else ""
    gguf_py = os.path.join(folder, "llama.cpp", "gguf-py")
    if not os.path.isdir(gguf_py):
        if os.environ.get("CI") == "true":
            pytest.fail(f"no gguf-py: {found.stderr.strip()}")
        pytest.skip(f"llama.cpp's gguf-py cannot be had here: {found.stderr.strip()}")
    a = RNG.standard_normal((8, 64)).astype(np.float32)
    a[0, :3] = [70000.0, np.nan, 1e-7]
    b = RNG.standard_normal(64).astype(np.float32)
    q = bytes(RNG.integers(0, 256, 2 * 34, dtype=np.uint8))
    gguf_util.write_gguf(os.path.join(work, "model.gguf"),
                         [("general.architecture", "str", "llama"), ("general.alignment", "u32", 32)],
                         [("a.w", "F32", (8, 64), a.tobytes()), ("b.n", "F32", (64,), b.tobytes()),
                          ("q.w", "Q8_0", (2, 32), q),
                          ("i.x", "I32", (4,), np.arange(4, dtype=np.int32).tobytes())])
    ok("gguf shard --outtype f16",
       run(["shard", "model.gguf", "-n", "2", "--axis", "a.w=0", "--outtype", "f16", "-o", "tp"],
           work))
    code = ("import sys, numpy as np\n"
            "from gguf import GGUFReader\n"
            "r = GGUFReader(sys.argv[1])\n"
            "for t in r.tensors:\n"
            "    print(t.name, t.tensor_type.name, list(map(int, t.shape)), "
            "np.asarray(t.data).tobytes().hex())\n")
    env = dict(os.environ, PYTHONPATH=gguf_py)
    with np.errstate(all="ignore"):
        a16, b16 = a.astype(np.float16), b.astype(np.float16)
    for rank in range(2):
        r = subprocess.run([sys.executable, "-c", code,
                            os.path.join(work, "tp", f"rank{rank}.gguf")],
                           capture_output=True, text=True, env=env)
        check(r.returncode == 0, f"gguf-py reads rank{rank}: {r.stderr.strip()[-500:]}")
        seen = {line.split()[0]: line.split() for line in r.stdout.splitlines()}
        check(seen.get("a.w", [None, None])[1] == "F16", f"rank{rank} a.w: {seen.get('a.w')}")
        check(seen["a.w"][-1] == a16[4 * rank:4 * rank + 4].tobytes().hex(),
              f"rank{rank}: a.w as gguf-py reads it is numpy's float16 of its rows")
        check(seen["b.n"][1] == "F16" and seen["b.n"][-1] == b16.tobytes().hex(),
              f"rank{rank}: b.n is numpy's float16")
        check(seen["q.w"][1] == "Q8_0" and seen["q.w"][-1] == q.hex(),
              f"rank{rank}: the Q8_0 tensor is untouched")
        check(seen["i.x"][1] == "I32", f"rank{rank}: the I32 tensor is untouched")
    ok("verify gguf", run(["verify", "tp", "--against", "model.gguf"], work))
    # gguf merge --outtype f32 of the f16 ranks: the f16 values widened exactly.
    ok("gguf merge --outtype f32",
       run(["merge", "tp", "-o", "merged.gguf", "--outtype", "f32"], work))
    r = subprocess.run([sys.executable, "-c", code, os.path.join(work, "merged.gguf")],
                       capture_output=True, text=True, env=env)
    seen = {line.split()[0]: line.split() for line in r.stdout.splitlines()}
    check(seen.get("a.w", [None, None])[1] == "F32" and
          seen["a.w"][-1] == a16.astype(np.float32).tobytes().hex(),
          f"gguf merge --outtype f32: a.w is the f16 ranks widened: {r.stderr.strip()[-300:]}")
    check(seen.get("q.w", [None, None])[1] == "Q8_0", "gguf merge: the Q8_0 tensor is untouched")


def test_dry_run_names_the_conversion(work):
    fp8_model(os.path.join(work, "m"))
    r = run(["shard", "m", "-n", "2", "--axis", "l.w=0", "--outtype", "bf16", "-o", "tp",
             "--dry-run"], work)
    ok("dry run", r)
    check("F8_E4M3 dequantized to BF16" in r.stdout and "F32 as BF16" in r.stdout and
          "l.w_scale_inv" not in r.stdout, f"dry run: {r.stdout}")
    check(not os.path.exists(os.path.join(work, "tp")), "a dry run writes nothing")
    r = run(["shard", "m", "-n", "2", "--axis", "l.w=0", "--outtype", "bf16", "-o", "tp",
             "--dry-run", "--json"], work)
    plan = json.loads(r.stdout)
    casts = [t.get("cast") for o in plan["outputs"] for t in o.get("plan", [])]
    check({"from": "F8_E4M3", "to": "BF16", "dequantize": True} in casts and
          {"from": "F32", "to": "BF16", "dequantize": False} in casts, f"--json casts: {casts}")
    ok("manifest", run(["shard", "m", "-n", "2", "--axis", "l.w=0", "--outtype", "bf16",
                        "-o", "tp"], work))
    man = json.load(open(os.path.join(work, "tp", "cleave-manifest.json")))
    lw = [t for t in man["files"][0]["tensors"] if t["name"] == "l.w"][0]
    check(lw["cast"] == {"from": "f8e4m3", "to": "bf16", "block": [128, 128]} and
          set(lw["pieces"][0]["scale"]) == {"weight", "rows", "cols", "offset", "bytes", "dtype"},
          f"manifest: {lw}")


def test_errors(work):
    fp8_model(os.path.join(work, "m"))
    fp8_model(os.path.join(work, "noblock"), config=False)
    cases = [
        ("a type --outtype does not know", ["shard", "m", "-n", "2", "--outtype", "f8", "-o", "o"],
         64, ["--outtype", "'f8'", "'bf16'"]),
        ("--dtype on shard", ["shard", "m", "-n", "2", "--dtype", "bf16", "-o", "o"], 64,
         ["--dtype 'bf16'", ".npy", "--outtype"]),
        ("--dtype on merge", ["merge", "m", "--dtype", "f16", "-o", "o"], 64,
         ["--dtype 'f16'", "--outtype"]),
        ("--dtype on st split", ["st", "split", "m", "--max-shard-size", "1G", "--dtype", "f32",
                                 "-o", "o"], 64, ["--dtype 'f32'", "--outtype"]),
        ("FP8 without a block size", ["st", "split", "noblock", "--max-shard-size", "1G",
                                      "--outtype", "bf16", "-o", "o"], 65,
         ["'l.w'", "l.w_scale_inv", "--quant-block", "weight_block_size"]),
        ("--outtype twice", ["shard", "m", "-n", "1", "--outtype", "f16", "--outtype", "bf16",
                             "-o", "o"], 64, ["--outtype"]),
    ]
    for label, args, status, fragments in cases:
        st_util.expect_failure(label, args, work, status, fragments)
    # With --quant-block the model without config.json is dequantized.
    ok("--quant-block", run(["st", "split", "noblock", "--max-shard-size", "1G", "--outtype",
                              "bf16", "--quant-block", "128,128", "-o", "o"], work))
