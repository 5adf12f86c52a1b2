#!/usr/bin/python3
"""cleave st merge and st reshard on generated checkpoints: a merge of what st shard wrote gives
back the model byte for byte (every dtype, fused tensors sharded through views, the rank folder
or the files in rank order, two chunk sizes); reshard N -> M gives byte for byte what a shard of
the merge gives, and what a shard of the original gives (4 -> 2, 4 -> 1, 2 -> 4, 2 -> 3, and
random models, N and M in a property test), checked also against NumPy's slicing; tensors that
are joined unevenly or through views that do not fold back; the dry run."""
import json
import os

import numpy as np

import clitest
import st_util as u
from clitest import check

RNG = np.random.default_rng(23)
H, INTER, VOCAB = 24, 48, 36

# Megatron-style rules for the Llama-like model below: the fused qkv and gate_up projections are
# viewed as [3, H, H] and [2, INTER, H] so that each rank gets its share of every fused part.
RULES = ["--view", f"*.qkv_proj.weight=3,-1,{H}", "--axis", "*.qkv_proj.weight=1",
         "--view", f"*.gate_up_proj.weight=2,-1,{H}", "--axis", "*.gate_up_proj.weight=1",
         "--axis", "*.o_proj.weight=1", "--axis", "*.down_proj.weight=1",
         "--axis", "*embed_tokens*=0", "--axis", "lm_head.weight=0",
         "--axis", "*.bias4=-1", "--axis", "*.odd=0"]


def llama(layers=2):
    """Arrays of a small Llama-like model in several dtypes; BF16 and F4 as raw bytes."""
    t = {"model.embed_tokens.weight": RNG.standard_normal((VOCAB, H)).astype(np.float16),
         "lm_head.weight": RNG.integers(0, 1 << 16, (VOCAB, H), dtype=np.uint16),
         "model.norm.weight": RNG.standard_normal(H).astype(np.float32)}
    for i in range(layers):
        p = f"model.layers.{i}."
        t[p + "self_attn.qkv_proj.weight"] = RNG.integers(0, 1 << 16, (3 * H, H), dtype=np.uint16)
        t[p + "self_attn.o_proj.weight"] = RNG.standard_normal((H, H)).astype(np.float32)
        t[p + "mlp.gate_up_proj.weight"] = RNG.standard_normal((2 * INTER, H)).astype(np.float16)
        t[p + "mlp.down_proj.weight"] = RNG.integers(-100, 100, (H, INTER), dtype=np.int8)
        t[p + "input_layernorm.weight"] = RNG.standard_normal(H).astype(np.float64)
        t[p + "mlp.bias4"] = RNG.integers(0, 256, (2, 12), dtype=np.uint8)  # F4 [2, 24]
        t[p + "mlp.odd"] = RNG.integers(0, 2, (12, 2), dtype=np.uint8).astype(np.bool_)
    return t


def to_st(arrays):
    out = {}
    for k, v in arrays.items():
        if k == "lm_head.weight" or k.endswith("qkv_proj.weight"):
            out[k] = ("BF16", v.shape, v.astype("<u2").tobytes())
        elif k.endswith("bias4"):
            out[k] = ("F4", (v.shape[0], 2 * v.shape[1]), v.tobytes())
        else:
            out[k] = u.array_tensor(v)
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cmd(work, args, label, env=None):
    r = clitest.subprocess.run([u.CLEAVE] + args, cwd=work, capture_output=True, text=True,
                               env=env, timeout=300)
    check(r.returncode == 0, f"{label}: {r.returncode} {r.stderr.strip()}")
    return r


def chunk_env(chunk):
    return dict(os.environ, CLEAVE_CHUNK_BYTES=str(chunk))


def rank_bytes(folder, n):
    return [read(os.path.join(folder, f"rank{r}.safetensors")) for r in range(n)]


def test_round_trip(work):
    """shard -n N then merge with the same rules gives the model back, byte for byte."""
    src = llama()
    u.write_st(os.path.join(work, "model.safetensors"), to_st(src), {"format": "pt"})
    original = read(os.path.join(work, "model.safetensors"))
    for n in (1, 2, 4):
        cmd(work, ["st", "shard", "model.safetensors", "-o", f"tp{n}", "-n", str(n), "-q"] + RULES,
            f"shard -n {n}")
        for chunk in (64, 1 << 20):
            out = f"m{n}_{chunk}"
            r = cmd(work, ["st", "merge", f"tp{n}", "-o", out] + RULES, f"merge of {n} (chunk "
                    f"{chunk})", chunk_env(chunk))
            check(r.stdout.startswith(f"{out}/model.safetensors\t{len(src)} tensors\t"),
                  f"merge report: {r.stdout!r}")
            check(read(os.path.join(work, out, "model.safetensors")) == original,
                  f"merge of {n} ranks (chunk {chunk}) is not the model byte for byte")
    # The rank files named one by one do the same, in any order: each records its rank (the shell
    # sorts rank10 before rank2).
    files = [f"tp4/rank{r}.safetensors" for r in range(4)]
    cmd(work, ["st", "merge"] + files + ["-o", "files", "-q"] + RULES, "merge of files")
    check(read(os.path.join(work, "files", "model.safetensors")) == original, "merge of files")
    cmd(work, ["st", "merge"] + files[::-1] + ["-o", "reversed", "-q"] + RULES, "reversed")
    check(read(os.path.join(work, "reversed", "model.safetensors")) == original,
          "reversed ranks: taken in their recorded order")
    # Every tensor compared with NumPy too (the bytes of the model, as arrays).
    _, merged = u.read_st(os.path.join(work, "m4_64", "model.safetensors"))
    for name, t in to_st(src).items():
        check(merged[name] == t, f"merge: {name} differs from the model")


def expected_shard(src_st, rank, n):
    """What shard -n n with RULES gives rank `rank`, by NumPy slicing of the raw bytes."""
    out = {}
    for name, (dtype, shape, raw) in src_st.items():
        bits = u.DTYPES[dtype][0]
        rows = np.frombuffer(raw, np.uint8)
        if "qkv_proj" in name or "gate_up_proj" in name:
            k = 3 if "qkv" in name else 2
            v = rows.reshape(k, shape[0] // k, -1)
            part = np.split(v, n, axis=1)[rank]
            out[name] = (dtype, (shape[0] // n, shape[1]), part.tobytes())
        elif "o_proj" in name or "down_proj" in name or "bias4" in name:
            v = rows.reshape(shape[0], -1)
            part = np.split(v, n, axis=1)[rank]
            out[name] = (dtype, (shape[0], shape[1] // n), part.tobytes())
        elif "embed_tokens" in name or name == "lm_head.weight" or name.endswith(".odd"):
            v = rows.reshape(shape[0], -1)
            out[name] = (dtype, (shape[0] // n,) + tuple(shape[1:]), np.split(v, n)[rank].tobytes())
        else:
            out[name] = (dtype, tuple(shape), raw)
        assert bits % 4 == 0
    return out


def test_reshard(work):
    """reshard N -> M: the same bytes as shard -n M of the merge and of the model itself."""
    src = to_st(llama())
    u.write_st(os.path.join(work, "model.safetensors"), src, {"format": "pt"})
    for n in (1, 2, 4):
        cmd(work, ["st", "shard", "model.safetensors", "-o", f"tp{n}", "-n", str(n), "-q"] + RULES,
            f"shard -n {n}")
    cmd(work, ["st", "shard", "model.safetensors", "-o", "tp3", "-n", "3", "-q"] + RULES,
        "shard -n 3")
    for n, m in ((4, 2), (4, 1), (2, 4), (1, 4), (2, 3), (3, 2), (4, 4)):
        for chunk in (64, 1 << 20):
            out = f"re{n}to{m}_{chunk}"
            r = cmd(work, ["st", "reshard", f"tp{n}", "-o", out, "-n", str(m)] + RULES,
                    f"reshard {n} -> {m}", chunk_env(chunk))
            check(f"{out}/rank{m - 1}.safetensors\t{len(src)} tensors" in r.stdout,
                  f"reshard report: {r.stdout!r}")
            got = rank_bytes(os.path.join(work, out), m)
            check(got == rank_bytes(os.path.join(work, f"tp{m}" if m != 1 else "tp1"), m),
                  f"reshard {n} -> {m} (chunk {chunk}) differs from shard -n {m} of the model")
        cmd(work, ["st", "merge", f"tp{n}", "-o", f"merged{n}", "-q", "-f"] + RULES, f"merge {n}")
        cmd(work, ["st", "shard", f"merged{n}/model.safetensors", "-o", f"again{n}to{m}", "-n",
                   str(m), "-q"] + RULES, "shard of the merge")
        check(rank_bytes(os.path.join(work, f"re{n}to{m}_64"), m) ==
              rank_bytes(os.path.join(work, f"again{n}to{m}"), m),
              f"reshard {n} -> {m} differs from merge then shard")
        for rank in range(m):
            meta, got = u.read_st(os.path.join(work, f"re{n}to{m}_64", f"rank{rank}.safetensors"))
            check(u.model_meta(meta) == {"format": "pt"} and meta["cleave.rank"] == str(rank) and
                  meta["cleave.ranks"] == str(m), f"reshard metadata {meta}")
            check(got == expected_shard(src, rank, m), f"reshard {n} -> {m}: rank {rank} differs "
                  "from NumPy's slicing")


def test_views_and_uneven(work):
    """Ranks of unequal sizes (Concat-1 allows them) and a view whose parts did not fold back."""
    a = [np.arange(k * 4, dtype=np.int32).reshape(k, 4) + 100 * k for k in (1, 3, 2)]
    b = [np.arange(10, dtype=np.float32).reshape(2, 5) * (k + 1) for k in range(3)]
    for r in range(3):
        u.write_st(os.path.join(work, f"r{r}.safetensors"),
                   to_st({"a": a[r], "b": b[r], "c": np.ones(3, np.int16)}))
    files = [f"r{r}.safetensors" for r in range(3)]
    cmd(work, ["st", "merge"] + files + ["-o", "m", "-q", "--axis", "a=0", "--axis", "b=-1"],
        "uneven merge")
    _, got = u.read_st(os.path.join(work, "m", "model.safetensors"))
    check(np.array_equal(u.as_array(got["a"]), np.concatenate(a)), "uneven merge: a")
    check(np.array_equal(u.as_array(got["b"]), np.concatenate(b, axis=1)), "uneven merge: b")
    # An uneven merge cannot be cut in 2 again along a (6 rows can, 15 columns of b cannot).
    u.expect_failure("reshard of an uneven cut", ["st", "reshard"] + files +
                     ["-o", "re", "-n", "2", "--axis", "a=0", "--axis", "b=-1"], work, 65,
                     ["st reshard: the merge of 3 ranks: tensor 'b' (F32 [2,15])",
                      "not divisible by num_splits = 2"])
    # [3,4] viewed as [2,6] and cut in 2 along axis 1 gives parts [2,3] that do not fold back to
    # [.,4]: the merge folds [2,6] to the parts' trailing 3, [4,3]: the bytes of the model in
    # another shape, and reshard gives what a shard of that gives.
    x = np.arange(12, dtype=np.uint8).reshape(3, 4)
    u.write_st(os.path.join(work, "x.safetensors"), to_st({"x": x}))
    view = ["--view", "x=2,6", "--axis", "x=1"]
    cmd(work, ["st", "shard", "x.safetensors", "-o", "xs", "-n", "2", "-q"] + view, "view shard")
    _, p0 = u.read_st(os.path.join(work, "xs", "rank0.safetensors"))
    check(p0["x"][1] == (2, 3), f"view shard: part shape {p0['x'][1]}")
    cmd(work, ["st", "merge", "xs", "-o", "xm", "-q"] + view, "view merge")
    _, xm = u.read_st(os.path.join(work, "xm", "model.safetensors"))
    check(xm["x"][1] == (4, 3) and xm["x"][2] == x.tobytes(), f"view merge: {xm['x'][:2]}")
    cmd(work, ["st", "reshard", "xs", "-o", "xr", "-n", "1", "-q"] + view, "view reshard")
    # One rank is the merged model, but for the record the rank carries.
    mr, tr = u.read_st(os.path.join(work, "xr", "rank0.safetensors"))
    mm, tm = u.read_st(os.path.join(work, "xm", "model.safetensors"))
    check(tr == tm and u.model_meta(mr) == (mm or {}), "view reshard -n 1 != merge")


def random_model(rng, lcm):
    """A few tensors whose cut dimensions are multiples of lcm, with their --axis/--view rules."""
    dtypes = ["F32", "F16", "BF16", "U8", "I64", "F4", "BOOL", "C64", "F8_E4M3"]
    tensors, rules = {}, []
    for i in range(rng.integers(2, 7)):
        dtype = dtypes[rng.integers(len(dtypes))]
        ndim = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 4)) for _ in range(ndim)]
        name = f"t{i}.{dtype.lower()}"
        if dtype == "F4":
            shape[-1] *= 2  # whole bytes in every row
        kind = rng.integers(4)
        if kind == 0:  # replicated
            pass
        elif kind == 3 and ndim >= 2:  # a fused tensor sharded through a view [k, -1, rest]
            k = int(rng.integers(2, 4))
            shape[0] = k * lcm * int(rng.integers(1, 3))
            rest = int(np.prod(shape[1:]))
            rules += ["--view", f"{name}={k},-1,{rest}", "--axis", f"{name}=1"]
        else:
            axis = int(rng.integers(ndim))
            shape[axis] *= lcm
            rules += ["--axis", f"{name}={axis - ndim if rng.integers(2) else axis}"]
        raw = rng.integers(0, 256, u.nbytes(dtype, shape), dtype=np.uint8)
        if dtype == "BOOL":
            raw %= 2
        tensors[name] = (dtype, tuple(shape), raw.tobytes())
    return tensors, rules


def test_property(work):
    """Random models, random N and M: merge restores the model, reshard N -> M equals shard -n M
    of the model; every other case writes on the calling thread alone (CLEAVE_WRITE_THREAD=0),
    the others through the write queue's second thread."""
    rng = np.random.default_rng(2023)
    for case in range(24):
        n, m = (int(x) for x in rng.choice([1, 2, 3, 4, 6], 2))
        tensors, rules = random_model(rng, int(np.lcm(n, m)))
        d = os.path.join(work, f"case{case}")
        os.makedirs(d)
        u.write_st(os.path.join(d, "model.safetensors"), tensors,
                   {"case": str(case)} if case % 2 else None)
        original = read(os.path.join(d, "model.safetensors"))
        label = f"case {case} ({n} -> {m}, rules {' '.join(rules)})"
        env = dict(chunk_env(int(rng.choice([64, 256, 1 << 20]))),
                   CLEAVE_WRITE_THREAD=str(case % 2))
        for k in sorted({n, m}):
            cmd(d, ["st", "shard", "model.safetensors", "-o", f"tp{k}", "-n", str(k), "-q"] + rules,
                label)
        cmd(d, ["st", "merge", f"tp{n}", "-o", "merged", "-q"] + rules, label, env)
        check(read(os.path.join(d, "merged", "model.safetensors")) == original,
              f"{label}: merge is not the model")
        cmd(d, ["st", "reshard", f"tp{n}", "-o", "re", "-n", str(m), "-q"] + rules, label, env)
        check(rank_bytes(os.path.join(d, "re"), m) == rank_bytes(os.path.join(d, f"tp{m}"), m),
              f"{label}: reshard differs from shard")


def test_dry_run(work):
    src = to_st(llama(1))
    u.write_st(os.path.join(work, "model.safetensors"), src)
    cmd(work, ["st", "shard", "model.safetensors", "-o", "tp", "-n", "2", "-q"] + RULES, "shard")
    before = u.snapshot(work)
    r = cmd(work, ["st", "merge", "tp", "-o", "out", "--dry-run"] + RULES, "merge --dry-run")
    check(u.snapshot(work) == before, "merge --dry-run wrote something")
    check("  model.layers.0.self_attn.o_proj.weight\tF32\t[24,24]\t2304\t<- model.layers.0.self_"
          "attn.o_proj.weight (rank0.safetensors, rank1.safetensors)" in r.stdout,
          f"merge --dry-run plan: {r.stdout}")
    check("  model.norm.weight\tF32\t[24]\t96\t<- model.norm.weight (rank0.safetensors)\n"
          in r.stdout, f"merge --dry-run replicated: {r.stdout}")
    r = cmd(work, ["st", "reshard", "tp", "-o", "out", "-n", "4", "--dry-run", "--json"] + RULES,
            "reshard --dry-run")
    plan = json.loads(r.stdout)
    check(u.snapshot(work) == before and plan["dry_run"] and len(plan["outputs"]) == 4,
          f"reshard --dry-run: {r.stdout[:200]}")
    entry = next(t for t in plan["outputs"][3]["plan"] if t["name"] == "lm_head.weight")
    check(entry["shape"] == [VOCAB // 4, H] and entry["source_files"] == ["rank1.safetensors"],
          f"reshard --dry-run entry {entry}")
