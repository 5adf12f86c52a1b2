#!/usr/bin/python3
"""cleave st ls|check|split|shard on generated checkpoints, checked by the independent reader
(st_util.read_st) and against NumPy: a small Llama-like layout with Phi-3 fused qkv_proj and
gate_up_proj, GPT-2 c_attn split on axis 1, a grouped-QKV view, a sharded input with its index,
tensor-parallel shards, every dtype, and byte-for-byte equality with an independent canonical
writer."""
import json
import os

import numpy as np
import pytest

import clitest
import st_util as u
from clitest import check

RNG = np.random.default_rng(16)
HID, HEADS, KV, HD, INTER = 32, 4, 2, 8, 48


def llama_phi3(layers=2, kv=KV):
    """Phi-3 layout: fused qkv_proj [(HEADS+2*KV)*HD, HID] and gate_up_proj [2*INTER, HID]."""
    t = {"model.embed_tokens.weight": RNG.standard_normal((64, HID)).astype(np.float16),
         "model.norm.weight": RNG.standard_normal(HID).astype(np.float32),
         "lm_head.weight": RNG.standard_normal((64, HID)).astype(np.float16)}
    for i in range(layers):
        p = f"model.layers.{i}."
        t[p + "self_attn.qkv_proj.weight"] = RNG.standard_normal(
            ((HEADS + 2 * kv) * HD, HID)).astype(np.float16)
        t[p + "self_attn.o_proj.weight"] = RNG.standard_normal((HID, HEADS * HD)).astype(np.float16)
        t[p + "mlp.gate_up_proj.weight"] = RNG.standard_normal((2 * INTER, HID)).astype(np.float16)
        t[p + "mlp.down_proj.weight"] = RNG.standard_normal((HID, INTER)).astype(np.float16)
        t[p + "input_layernorm.weight"] = RNG.standard_normal(HID).astype(np.float32)
    return t


def to_st(arrays):
    return {k: u.array_tensor(v) for k, v in arrays.items()}


def arrays_of(path):
    meta, tensors = u.read_st(path)
    return meta, {k: u.as_array(v) for k, v in tensors.items()}


PHI3_RULES = [
    "--tensor", "model.layers.*.self_attn.qkv_proj.weight", "-a", "0",
    "-l", f"{HEADS * HD},{KV * HD},{KV * HD}",
    "--into", "model.layers.*.self_attn.q_proj.weight,model.layers.*.self_attn.k_proj.weight,"
              "model.layers.*.self_attn.v_proj.weight",
    "--tensor", "model.layers.*.mlp.gate_up_proj.weight", "-a", "0", "-n", "2",
    "--into", "model.layers.*.mlp.gate_proj.weight,model.layers.*.mlp.up_proj.weight"]


def phi3_expected(src, kv=KV):
    out = {}
    for k, v in src.items():
        if k.endswith("qkv_proj.weight"):
            q, kk, vv = np.split(v, [HEADS * HD, (HEADS + kv) * HD], axis=0)
            base = k[: -len("qkv_proj.weight")]
            out[base + "q_proj.weight"], out[base + "k_proj.weight"] = q, kk
            out[base + "v_proj.weight"] = vv
        elif k.endswith("gate_up_proj.weight"):
            g, up = np.split(v, 2, axis=0)
            base = k[: -len("gate_up_proj.weight")]
            out[base + "gate_proj.weight"], out[base + "up_proj.weight"] = g, up
        else:
            out[k] = v
    return out


def test_phi3_split(work):
    src = llama_phi3()
    u.write_st(os.path.join(work, "model.safetensors"), to_st(src), {"format": "pt"},
               order=sorted(src))  # non-canonical input order on purpose
    r = u.run(["st", "split", "model.safetensors", "-o", "out"] + PHI3_RULES, work)
    check(r.returncode == 0, f"phi3 split: {r.returncode} {r.stderr}")
    out_path = os.path.join(work, "out", "model.safetensors")
    meta, got = arrays_of(out_path)
    want = phi3_expected(src)
    check(meta == {"format": "pt"}, f"phi3 split: metadata {meta}")
    check(sorted(got) == sorted(want), f"phi3 split: names {sorted(got)}")
    for k in want:
        check(np.array_equal(got[k], want[k]), f"phi3 split: {k} differs")
    # Round trip: concatenating the parts gives the source.
    for i in range(2):
        p = f"model.layers.{i}."
        qkv = np.concatenate([got[p + "self_attn.q_proj.weight"], got[p + "self_attn.k_proj.weight"],
                              got[p + "self_attn.v_proj.weight"]], axis=0)
        check(np.array_equal(qkv, src[p + "self_attn.qkv_proj.weight"]), "phi3: qkv round trip")
    # Byte-stable: exactly what an independent canonical writer makes of the same tensors.
    text, data = u.header_bytes(to_st(want), {"format": "pt"})
    with open(out_path, "rb") as f:
        blob = f.read()
    check(blob == len(text).to_bytes(8, "little") + text + data, "phi3 split: not byte-identical "
          "to the canonical layout")
    check(r.stdout.startswith("out/model.safetensors\t19 tensors\t"), f"phi3 report: {r.stdout!r}")
    # Dry run: the plan, nothing written.
    before = u.snapshot(work)
    r = u.run(["st", "split", "model.safetensors", "-o", "dry", "--dry-run", "--json"] + PHI3_RULES,
              work)
    check(r.returncode == 0 and u.snapshot(work) == before, f"dry run: {r.stderr}")
    plan = json.loads(r.stdout)
    names = [t["name"] for t in plan["outputs"][0]["plan"]]
    check(plan["dry_run"] and "model.layers.1.self_attn.k_proj.weight" in names and
          len(names) == 19, f"dry run plan: {names}")
    # A rules file does the same.
    with open(os.path.join(work, "rules.txt"), "w") as f:
        f.write("# Phi-3 to Llama\n" + " ".join(PHI3_RULES[:8]) + "\n" +
                " ".join(PHI3_RULES[8:]) + "\n")
    r = u.run(["st", "split", "model.safetensors", "-o", "out2", "--rules", "rules.txt", "-q"], work)
    check(r.returncode == 0 and r.stdout == "", f"rules file: {r.stderr}")
    with open(os.path.join(work, "out2", "model.safetensors"), "rb") as f:
        check(f.read() == blob, "rules file: output differs from the command-line rules")


def test_gpt2_and_view(work, chunk):
    env = dict(os.environ, CLEAVE_CHUNK_BYTES=str(chunk))
    c_attn = RNG.standard_normal((HID, 3 * HID)).astype(np.float32)
    groups, per = 2, 6  # grouped QKV: per group 4 q heads, 1 k, 1 v
    gqkv = RNG.standard_normal((groups * per * HD, HID)).astype(np.float32)
    c_fc = RNG.standard_normal((HID, 40)).astype(np.float32)
    pos = RNG.standard_normal((12, HID)).astype(np.float16)
    src = {"h.0.attn.c_attn.weight": c_attn, "h.0.attn.c_attn.bias": np.arange(3 * HID, dtype=np.float32),
           "h.0.attn.qkv": gqkv, "wte": RNG.standard_normal((10, HID)).astype(np.float32),
           "h.0.mlp.c_fc.weight": c_fc, "h.0.pos": pos}
    u.write_st(os.path.join(work, "gpt2.safetensors"), to_st(src))
    args = ["st", "split", "gpt2.safetensors", "-o", f"out{chunk}", "-q",
            "--tensor", "h.*.attn.c_attn.*", "-a", "-1", "-n", "3",
            "--into", "h.*.attn.q.*,h.*.attn.k.*,h.*.attn.v.*",
            "--tensor", "h.0.attn.qkv", "--view", f"{groups},{per},-1", "-a", "1", "-l", "4,1,1",
            "--into", "h.0.attn.q,h.0.attn.k,h.0.attn.v",
            # A -1 length, resolved by the library (VariadicSplit-1): inner axis with an empty
            # part, and axis 0 with the -1 first. The parts of c_fc are named so that other
            # tensors lie between them in the output (all three are gathered from one read).
            "--tensor", "h.0.mlp.c_fc.weight", "-a", "1", "-l", "10,-1,0",
            "--into", "a.fc_a,m.fc_b,zz.fc_c",
            "--tensor", "h.0.pos", "-a", "0", "-l", "-1,4", "--into", "h.0.pos_a,h.0.pos_b"]
    r = clitest.subprocess.run([u.CLEAVE] + args, cwd=work, capture_output=True, text=True, env=env)
    check(r.returncode == 0, f"gpt2 split (chunk {chunk}): {r.stderr}")
    _, got = arrays_of(os.path.join(work, f"out{chunk}", "gpt2.safetensors"))
    for part, want in zip("qkv", np.split(c_attn, 3, axis=1)):
        check(np.array_equal(got[f"h.0.attn.{part}.weight"], want), f"c_attn {part} (chunk {chunk})")
    for part, want in zip("qkv", np.split(src["h.0.attn.c_attn.bias"], 3)):
        check(np.array_equal(got[f"h.0.attn.{part}.bias"], want), f"c_attn bias {part}")
    view = gqkv.reshape(groups, per, -1)
    for part, want in zip("qkv", np.split(view, [4, 5], axis=1)):
        folded = want.reshape(-1, HID)
        check(got[f"h.0.attn.{part}"].shape == folded.shape and
              np.array_equal(got[f"h.0.attn.{part}"], folded), f"grouped view {part} (chunk {chunk})")
    check(np.array_equal(got["wte"], src["wte"]), "gpt2: untouched tensor")
    for name, want in zip(["a.fc_a", "m.fc_b", "zz.fc_c"], np.split(c_fc, [10, 40], axis=1)):
        check(got[name].shape == want.shape and np.array_equal(got[name], want),
              f"-l 10,-1,0: {name} (chunk {chunk})")
    for name, want in zip(["pos_a", "pos_b"], np.split(pos, [8], axis=0)):
        check(got[f"h.0.{name}"].shape == want.shape and np.array_equal(got[f"h.0.{name}"], want),
              f"-l -1,4: {name} (chunk {chunk})")


def test_sharded_input(work):
    src = llama_phi3(layers=3)
    names = sorted(src)
    shards = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2:]}
    weight_map = {}
    for fname, keys in shards.items():
        u.write_st(os.path.join(work, fname), to_st({k: src[k] for k in keys}), {"format": "pt"})
        weight_map.update({k: fname for k in keys})
    total = sum(v.nbytes for v in src.values())
    with open(os.path.join(work, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total, "note": "x"}, "weight_map": weight_map}, f)
    r = u.run(["st", "check", "."], work)
    check(r.returncode == 0 and "2 files" in r.stdout, f"check index: {r.stdout}{r.stderr}")
    r = u.run(["st", "ls", "model.safetensors.index.json", "--glob", "*.qkv_proj.*", "--json"], work)
    listed = json.loads(r.stdout)["tensors"] if r.returncode == 0 else []
    check([t["name"] for t in listed] == [f"model.layers.{i}.self_attn.qkv_proj.weight"
                                          for i in range(3)], f"ls --glob: {r.stdout}{r.stderr}")
    check(all(t["file"] == weight_map[t["name"]] and t["dtype"] == "F16" for t in listed),
          "ls --json: file or dtype")
    r = u.run(["st", "split", ".", "-o", "split"] + PHI3_RULES, work)
    check(r.returncode == 0, f"split of a sharded model: {r.stderr}")
    with open(os.path.join(work, "split", "model.safetensors.index.json")) as f:
        index = json.load(f)
    want = phi3_expected(src)
    check(sorted(index["weight_map"]) == sorted(want), "split index: weight_map names")
    check(index["metadata"] == {"total_size": total, "note": "x"}, f"split index: {index['metadata']}")
    got = {}
    for fname in shards:
        _, part = arrays_of(os.path.join(work, "split", fname))
        for k in part:
            check(index["weight_map"][k] == fname, f"split index: {k} not in {fname}")
        got.update(part)
    check(all(np.array_equal(got[k], want[k]) for k in want), "split of a sharded model: data")
    r = u.run(["st", "check", "split"], work)
    check(r.returncode == 0, f"check of the split output: {r.stderr}")
    # Tensor parallelism from the sharded input: one file per rank, read in one pass.
    r = u.run(["st", "shard", ".", "-o", "tp", "-n", "2", "--axis", "*.qkv_proj.weight=0",
               "--axis", "*.o_proj.weight=1", "--axis", "*.gate_up_proj.weight=0",
               "--axis", "*.down_proj.weight=1", "--axis", "*embed_tokens*=0",
               "--replicate", "*norm*", "--replicate", "lm_head.weight", "--unmatched", "error"],
              work)
    check(r.returncode == 0, f"shard of a sharded model: {r.stderr}")
    axes = {"qkv_proj": 0, "o_proj": 1, "gate_up_proj": 0, "down_proj": 1, "embed_tokens": 0}
    for rank in range(2):
        meta, part = arrays_of(os.path.join(work, "tp", f"rank{rank}.safetensors"))
        check(u.model_meta(meta) == {"format": "pt"} and meta["cleave.rank"] == str(rank) and
              meta["cleave.ranks"] == "2", f"rank {rank}: metadata {meta}")
        for k, v in src.items():
            axis = next((a for key, a in axes.items() if key in k), None)
            want_part = v if axis is None else np.split(v, 2, axis=axis)[rank]
            check(np.array_equal(part[k], want_part), f"rank {rank}: {k}")
    # The ranks get the union of the shards' metadata; a key with two values is refused.
    (first, keys1), (second, keys2) = shards.items()
    u.write_st(os.path.join(work, first), to_st({k: src[k] for k in keys1}),
               {"format": "pt", "a": "1"})
    u.write_st(os.path.join(work, second), to_st({k: src[k] for k in keys2}),
               {"format": "pt", "b": "2"})
    shard = ["st", "shard", ".", "-n", "2", "--axis", "*.qkv_proj.weight=0"]
    r = u.run(shard + ["-o", "union"], work)
    meta, _ = arrays_of(os.path.join(work, "union", "rank1.safetensors"))
    check(r.returncode == 0 and u.model_meta(meta) == {"a": "1", "b": "2", "format": "pt"},
          f"shard: merged metadata {meta} {r.stderr}")
    u.write_st(os.path.join(work, second), to_st({k: src[k] for k in keys2}), {"format": "np"})
    u.expect_failure("shard: metadata that differs between shards", shard + ["-o", "conflict"],
                     work, 65, ["st shard: __metadata__ 'format' differs between the shards ('np' "
                                f"in '{second}')"])


def test_shard_single(work, chunk):
    env = dict(os.environ, CLEAVE_CHUNK_BYTES=str(chunk))
    src = {"a.col": RNG.standard_normal((16, 64)).astype(np.float32),
           "a.row": RNG.integers(0, 100, (64, 8)).astype(np.int64),
           "b.rep": np.arange(10, dtype=np.uint8), "c.wide": RNG.standard_normal((3, 4096)).astype(np.float32)}
    u.write_st(os.path.join(work, "m.safetensors"), to_st(src))
    args = ["st", "shard", "m.safetensors", "-o", f"tp{chunk}", "-n", "4", "--axis", "a.col=1",
            "--axis", "a.row=-2", "--axis", "c.wide=1", "-q"]
    before = u.snapshot(work)
    r = u.run(args[:-1] + ["--dry-run"], work)
    check(r.returncode == 0 and u.snapshot(work) == before, f"shard --dry-run: {r.stderr}")
    check(f"tp{chunk}/rank3.safetensors\t4 tensors" in r.stdout and
          "  a.col\tF32\t[16,16]\t1024\t<- a.col (m.safetensors)" in r.stdout,
          f"shard --dry-run plan: {r.stdout}")
    r = clitest.subprocess.run([u.CLEAVE] + args, cwd=work, capture_output=True, text=True, env=env)
    check(r.returncode == 0, f"shard -n 4 (chunk {chunk}): {r.stderr}")
    parts = [arrays_of(os.path.join(work, f"tp{chunk}", f"rank{i}.safetensors"))[1] for i in range(4)]
    check(np.array_equal(np.concatenate([p["a.col"] for p in parts], axis=1), src["a.col"]),
          f"shard: a.col round trip (chunk {chunk})")
    check(np.array_equal(np.concatenate([p["a.row"] for p in parts], axis=0), src["a.row"]),
          f"shard: a.row round trip (chunk {chunk})")
    check(np.array_equal(np.concatenate([p["c.wide"] for p in parts], axis=1), src["c.wide"]),
          f"shard: c.wide round trip (chunk {chunk})")
    check(all(np.array_equal(p["b.rep"], src["b.rep"]) for p in parts), "shard: replicated")
    # More ranks than descriptors (a limit of 300): written in groups of 256 files.
    if chunk == 64:
        wide = np.arange(600 * 3, dtype=np.int16).reshape(3, 600)
        u.write_st(os.path.join(work, "wide.safetensors"), to_st({"w": wide, "r": np.ones(2, np.int8)}))
        import resource
        r = u.run(["st", "shard", "wide.safetensors", "-o", "tp600", "-n", "600", "--axis", "w=1",
                   "-q"], work,
                  preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300)))
        check(r.returncode == 0, f"shard -n 600: {r.stderr}")
        if r.returncode == 0:
            got = [u.as_array(u.read_st(os.path.join(work, "tp600", f"rank{i}.safetensors"))[1]["w"])
                   for i in range(600)]
            check(np.array_equal(np.concatenate(got, axis=1), wide), "shard -n 600: round trip")


def test_every_dtype(work):
    """A [4, 8] tensor of each dtype split in two along axis 1 (on byte boundaries for F4 and
    F6), compared with slices of the raw rows."""
    tensors = {}
    for name, (bits, _, _) in u.DTYPES.items():
        raw = RNG.integers(0, 256, 4 * 8 * bits // 8, dtype=np.uint8)
        if name == "BOOL":
            raw = raw % 2
        tensors["t." + name] = (name, (4, 8), raw.tobytes())
    u.write_st(os.path.join(work, "all.safetensors"), tensors)
    r = u.run(["st", "split", "all.safetensors", "-o", "out", "--tensor", "t.*", "-a", "1",
               "-n", "2", "--into", "lo.*,hi.*"], work)
    check(r.returncode == 0, f"every dtype: {r.stderr}")
    _, got = u.read_st(os.path.join(work, "out", "all.safetensors"))
    for name, (bits, _, _) in u.DTYPES.items():
        rows = np.frombuffer(tensors["t." + name][2], dtype=np.uint8).reshape(4, -1)
        half = rows.shape[1] // 2
        lo, hi = got["lo." + name], got["hi." + name]
        check(lo[0] == name and lo[1] == (4, 4), f"{name}: lo is {lo[:2]}")
        check(lo[2] == rows[:, :half].tobytes() and hi[2] == rows[:, half:].tobytes(),
              f"{name}: split bytes differ")
    # Sub-byte parts must start on byte boundaries: F4 [4, 3] split on axis 1 in 3 cannot.
    u.write_st(os.path.join(work, "f4.safetensors"), {"x": ("F4", (4, 4), bytes(8))})
    u.expect_failure("F4 off a byte boundary",
                     ["st", "split", "f4.safetensors", "-o", "bad", "--tensor", "x", "-a", "1",
                      "-l", "1,3", "--into", "a,b"], work, 65, ["'x'", "F4", "byte boundar"])


def test_errors(work):
    src = {"a.w": np.zeros((6, 4), np.float32), "b.w": np.zeros((6, 4), np.float32),
           "a.x": np.zeros(3, np.float32)}
    u.write_st(os.path.join(work, "m.safetensors"), to_st(src))
    base = ["st", "split", "m.safetensors", "-o", "out"]
    cases = [
        ("rule matches nothing", ["--tensor", "zz.*", "-a", "0", "-n", "2", "--into", "p.*,q.*"],
         65, ["no tensor matches", "zz.*"]),
        ("two outputs with one name", ["--tensor", "*.w", "-a", "0", "-n", "2", "--into", "p,q"],
         64, ["'*'"]),
        ("two outputs with one name (captures)",
         ["--tensor", "a.w", "-a", "0", "-n", "2", "--into", "p,p"], 65, ["two outputs", "'p'"]),
        ("collides with an untouched tensor",
         ["--tensor", "a.w", "-a", "0", "-n", "2", "--into", "b.w,q"], 65,
         ["untouched", "b.w"]),
        ("two rules match", ["--tensor", "a.*", "-a", "0", "-n", "1", "--into", "x.*",
                             "--tensor", "*.w", "-a", "0", "-n", "1", "--into", "y.*"], 65,
         ["matches both"]),
        # The split rules and their messages are the library's (OpenVINO Split-1 for -n,
        # VariadicSplit-1 for -l), prefixed with the file, the tensor, its dtype and shape.
        ("uneven split", ["--tensor", "a.w", "-a", "0", "-n", "4", "--into", "p,q,r,s"], 65,
         ["m.safetensors: tensor 'a.w' (F32 [6,4]): ",
          "data.shape[0] = 6 is not divisible by num_splits = 4"]),
        ("-n 0", ["--tensor", "a.w", "-a", "0", "-n", "0", "--into", "p"], 65,
         ["tensor 'a.w'", "num_splits is 0 but must be >= 1"]),
        ("lengths do not add up", ["--tensor", "a.w", "-a", "1", "-l", "1,2", "--into", "p,q"], 65,
         ["tensor 'a.w'", "split_lengths sum to 3 but data.shape[1] is 4"]),
        ("-1 would be negative", ["--tensor", "a.w", "-a", "1", "-l", "5,-1", "--into", "p,q"],
         65, ["tensor 'a.w'", "split_lengths other than the -1 sum to 5 but data.shape[1] is 4"]),
        ("two -1", ["--tensor", "a.w", "-a", "1", "-l", "-1,-1", "--into", "p,q"], 65,
         ["tensor 'a.w'", "split_lengths has -1 at index 0 and at index 1"]),
        ("length below -1", ["--tensor", "a.w", "-a", "1", "-l", "-2,6", "--into", "p,q"], 65,
         ["tensor 'a.w'", "split_lengths[0] is -2 but entries must be >= -1"]),
        ("axis out of range", ["--tensor", "a.w", "-a", "2", "-n", "1", "--into", "p"], 65,
         ["tensor 'a.w'", "axis 2 is out of range [-2, 1] for data of rank 2"]),
        ("rule broken on a view", ["--tensor", "a.w", "--view", "2,-1", "-a", "1", "-l", "13,-1",
                                   "--into", "p,q"], 65,
         ["tensor 'a.w' (F32 [6,4], viewed as [2,12]): ",
          "split_lengths other than the -1 sum to 13 but data.shape[1] is 12, so the -1 would "
          "be -1"]),
        ("bad view", ["--tensor", "a.w", "--view", "5,-1", "-a", "0", "-n", "1", "--into", "p"], 65,
         ["'a.w'", "view"]),
        ("missing axis", ["--tensor", "a.w", "-n", "2", "--into", "p,q"], 64, ["-a/--axis"]),
        ("names count", ["--tensor", "a.w", "-a", "0", "-n", "2", "--into", "p"], 64,
         ["2 parts but 1 name in --into"]),
        ("no rule", [], 64, ["no rule"]),
    ]
    for label, extra, status, frags in cases:
        u.expect_failure(label, base + extra, work, status, frags)
    u.expect_failure("missing model", ["st", "check", "nope.safetensors"], work, 66, ["nope"])
    u.expect_failure("missing model (split)", ["st", "split", "nope", "-o", "o", "--tensor", "a",
                                               "-a", "0", "-n", "1", "--into", "b"], work, 66,
                     ["nope"])
    u.expect_failure("shard uneven", ["st", "shard", "m.safetensors", "-o", "tp", "-n", "4",
                                      "--axis", "*.w=0"], work, 65,
                     ["tensor 'a.w' (F32 [6,4])", "not divisible by num_splits = 4"])
    u.expect_failure("shard unmatched error",
                     ["st", "shard", "m.safetensors", "-o", "tp", "-n", "2", "--axis", "*.w=0",
                      "--unmatched", "error"], work, 65, ["'a.x'", "no --axis"])
    u.expect_failure("shard axis rule matches nothing",
                     ["st", "shard", "m.safetensors", "-o", "tp", "-n", "2", "--axis", "zz=0"],
                     work, 65, ["--axis", "zz"])
    # Existing outputs: refused without -f; the input itself is refused too.
    os.makedirs(os.path.join(work, "out"))
    u.write_st(os.path.join(work, "out", "m.safetensors"), to_st({"old": np.ones(1, np.int8)}))
    u.expect_failure("output exists", base + ["--tensor", "a.w", "-a", "0", "-n", "2", "--into",
                                              "p,q"], work, 73, ["exists", "-f"])
    # An output folder that holds an input is refused, -f or not: the outputs would land among
    # the inputs (issue 33); the input stays as it was.
    with open(os.path.join(work, "m.safetensors"), "rb") as f:
        old = f.read()
    for force in ([], ["-f"]):
        u.expect_failure(f"output folder holds the input {force}",
                         ["st", "split", "m.safetensors", "-o", "."] + force +
                         ["--tensor", "a.w", "-a", "0", "-n", "2", "--into", "p,q"], work, 64,
                         ["st split: -o '.' holds the input 'm.safetensors'"])
    with open(os.path.join(work, "m.safetensors"), "rb") as f:
        check(f.read() == old, "the input was changed")
    check(not [n for n in os.listdir(work) if ".cleave-tmp-" in n], "temporaries left")


def test_hostile_names(work):
    """Names with control characters and backslashes: `ls` shows them escaped (one line per
    tensor, nothing for a terminal to act on), --json keeps them exact, and an error naming one
    stays on one line."""
    name = "evil\n\x1b[31mred\\x"
    u.write_st(os.path.join(work, "n.safetensors"), {name: ("U8", (1,), b"a"), "ok": ("U8", (1,), b"b")})
    r = u.run(["st", "ls", "n.safetensors"], work)
    check(r.returncode == 0 and r.stdout.splitlines()[0] == "evil\\x0a\\x1b[31mred\\\\x\tU8\t[1]\t1\tn.safetensors",
          f"ls of a hostile name: {r.stdout!r}")
    r = u.run(["st", "ls", "--json", "n.safetensors"], work)
    check(r.returncode == 0 and json.loads(r.stdout)["tensors"][0]["name"] == name, "ls --json name")
    r = u.run(["st", "split", "n.safetensors", "-o", "o", "--tensor", "ev*", "-a", "0", "-n", "2",
               "--into", "a*,b*"], work)
    check(r.returncode == 65 and len(r.stderr.splitlines()) == 1 and "\x1b" not in r.stderr,
          f"error naming a hostile tensor: {r.stderr!r}")


def test_readme(work):
    """The README's `cleave st` examples run as written on small checkpoints of their layouts."""
    import re
    import shlex
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
    with open(readme) as f:
        text = f.read()
    section = text[text.index("## Checkpoints: safetensors"):]
    section = section[: section.index("\n## ", 5)]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            # `cleave st VERB`, and the verbs that find the format by themselves.
            if re.match(r"cleave (st|ls|check|shard|merge|reshard|verify) ", line):
                commands.append(shlex.split(line)[1:])
    check(len(commands) == 12, f"README: {len(commands)} st commands found")
    phi3 = llama_phi3(layers=2, kv=HEADS)  # Phi-3-mini: as many key/value heads as queries
    llama = phi3_expected(phi3, kv=HEADS)
    for folder, arrays in (("model", phi3), ("phi3-mini", phi3), ("llama", llama)):
        os.makedirs(os.path.join(work, folder))
        u.write_st(os.path.join(work, folder, "model.safetensors"), to_st(arrays))
    # The config.json the README's Python gives phi3-llama (split copies phi3-mini's there).
    with open(os.path.join(work, "phi3-mini", "config.json"), "w") as f:
        json.dump({"model_type": "llama", "num_attention_heads": HEADS,
                   "num_key_value_heads": HEADS, "head_dim": HD, "hidden_size": HID}, f)
    for args in commands:
        r = u.run(args, work)
        check(r.returncode == 0, f"README: {' '.join(args)}: {r.stderr}")
    _, got = arrays_of(os.path.join(work, "phi3-llama", "model.safetensors"))
    check(sorted(got) == sorted(llama), "README: the Phi-3 split gives the Llama layout")
    for rank in range(4):
        _, part = arrays_of(os.path.join(work, "tp4", f"rank{rank}.safetensors"))
        check(np.array_equal(part["model.layers.1.self_attn.o_proj.weight"],
                             np.split(llama["model.layers.1.self_attn.o_proj.weight"], 4, axis=1)[rank]),
              f"README: tp4 rank {rank}")
    # merge gives the model back (one file: it is far below 5GB); reshard gives two ranks.
    with open(os.path.join(work, "llama", "model.safetensors"), "rb") as a, \
            open(os.path.join(work, "llama-again", "model.safetensors"), "rb") as b:
        check(a.read() == b.read(), "README: the merge of tp4 is the model")
    for rank in range(2):
        _, part = arrays_of(os.path.join(work, "tp2", f"rank{rank}.safetensors"))
        check(np.array_equal(part["model.layers.0.mlp.down_proj.weight"],
                             np.split(llama["model.layers.0.mlp.down_proj.weight"], 2, axis=1)[rank]),
              f"README: tp2 rank {rank}")
    # --preset auto: each rank holds its 2 of the 4 heads; the merge is the model again.
    q = "model.layers.1.self_attn.q_proj.weight"
    for rank in range(2):
        _, part = arrays_of(os.path.join(work, "tp2p", f"rank{rank}.safetensors"))
        check(np.array_equal(part[q], llama[q].reshape(HEADS, HD, HID)[2 * rank:2 * rank + 2]
                             .reshape(2 * HD, HID)), f"README: tp2p rank {rank}")
    with open(os.path.join(work, "phi3-llama", "model.safetensors"), "rb") as a, \
            open(os.path.join(work, "llama-merged", "model.safetensors"), "rb") as b:
        check(a.read() == b.read(), "README: the merge of tp2p is the model")


@pytest.fixture(params=[64, 1 << 20])
def chunk(request):
    """The chunk sizes (CLEAVE_CHUNK_BYTES) test_gpt2_and_view and test_shard_single run with."""
    return request.param
