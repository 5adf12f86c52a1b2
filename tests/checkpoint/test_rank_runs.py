#!/usr/bin/python3
"""Runs of one rank: `shard --rank R` and `reshard --rank R` (with -n N) plan the whole run and
write only rank R's file, byte for byte the whole run's rank R, with a manifest of its own
(cleave-manifest.rankR.json) that names the run and the rank; the sidecars go with rank 0. The
union of the N runs, made one after the other or two at once into one folder, is the whole run's
folder but for the manifests; `verify` and `merge` take it as one output. A rank reads little
more than its own bytes (counted from the process's /proc/PID/io once it has exited). Errors: a
rank out of range, --rank without -n, --rank on a command that does not take it, a rank missing
from the union, ranks of two runs mixed; each with its status, its message and nothing
written."""
import json
import os
import shutil
import subprocess

import numpy as np

import clitest
import gguf_util as g
import st_util as u
from clitest import check

N = 4
ST_RULES = ["--axis", "col.w=1", "--axis", "row.w=0"]
GGUF_RULES = ["--axis", "blk.0.col=1", "--axis", "blk.0.row=0"]


def st_tensors(rng):
    """A column-parallel tensor whose rows are 16 KiB (a rank's 4 KiB of each row read alone), a
    row-parallel one, and replicated ones."""
    return {"col.w": rng.standard_normal((64, 4096)).astype(np.float32),
            "row.w": rng.standard_normal((256, 1024)).astype(np.float32),
            "emb": rng.standard_normal((256, 512)).astype(np.float16),
            "norm": rng.standard_normal(1024).astype(np.float32)}


def write_config(folder, extra=None):
    config = {"model_type": "toy"}
    config.update(extra or {})
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)


def st_single(folder, rng):
    os.makedirs(folder)
    t = st_tensors(rng)
    u.write_st(os.path.join(folder, "model.safetensors"),
               {k: u.array_tensor(v) for k, v in t.items()})
    write_config(folder)
    return t


def st_sharded(folder, rng):
    """The same tensors in two files with an index, as Hugging Face lays them out."""
    os.makedirs(folder)
    t = st_tensors(rng)
    parts = [["col.w", "emb"], ["norm", "row.w"]]
    weight_map = {}
    for i, names in enumerate(parts):
        name = f"model-{i + 1:05d}-of-{len(parts):05d}.safetensors"
        u.write_st(os.path.join(folder, name), {k: u.array_tensor(t[k]) for k in names})
        weight_map.update({k: name for k in names})
    total = sum(v.nbytes for v in t.values())
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
    write_config(folder)
    return t


def st_llama(folder, rng):
    """A model of the llama family with its config.json (for --preset auto)."""
    os.makedirs(folder)
    heads, kv, hd, hid, inter = 8, 4, 64, 512, 2048
    t = {"model.embed_tokens.weight": rng.standard_normal((64, hid)).astype(np.float16),
         "model.norm.weight": np.ones(hid, np.float16),
         "lm_head.weight": rng.standard_normal((64, hid)).astype(np.float16)}
    p = "model.layers.0."
    t[p + "input_layernorm.weight"] = np.ones(hid, np.float16)
    t[p + "post_attention_layernorm.weight"] = np.ones(hid, np.float16)
    t[p + "self_attn.q_proj.weight"] = rng.standard_normal((heads * hd, hid)).astype(np.float16)
    t[p + "self_attn.k_proj.weight"] = rng.standard_normal((kv * hd, hid)).astype(np.float16)
    t[p + "self_attn.v_proj.weight"] = rng.standard_normal((kv * hd, hid)).astype(np.float16)
    t[p + "self_attn.o_proj.weight"] = rng.standard_normal((hid, heads * hd)).astype(np.float16)
    t[p + "mlp.gate_proj.weight"] = rng.standard_normal((inter, hid)).astype(np.float16)
    t[p + "mlp.up_proj.weight"] = rng.standard_normal((inter, hid)).astype(np.float16)
    t[p + "mlp.down_proj.weight"] = rng.standard_normal((hid, inter)).astype(np.float16)
    u.write_st(os.path.join(folder, "model.safetensors"),
               {k: u.array_tensor(v) for k, v in t.items()})
    write_config(folder, {"model_type": "llama", "architectures": ["LlamaForCausalLM"],
                          "num_attention_heads": heads, "num_key_value_heads": kv,
                          "hidden_size": hid, "intermediate_size": inter,
                          "num_hidden_layers": 1})
    return t


def gguf_file(path, rng):
    col = rng.standard_normal((64, 4096)).astype(np.float32)
    row = rng.standard_normal((256, 1024)).astype(np.float32)
    q8 = g.rand_bytes(rng, 16 * 8 * 34)
    g.write_gguf(path, [("general.architecture", "str", "toy"), ("toy.block_count", "u32", 1)],
                 [("blk.0.col", "F32", [64, 4096], col.tobytes()),
                  ("blk.0.row", "F32", [256, 1024], row.tobytes()),
                  ("blk.0.q8", "Q8_0", [16, 256], q8)])


def files(folder):
    """Every file of `folder` (no sub-folders expected) with its bytes."""
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = f.read()
    return out


def without_manifests(tree):
    return {k: v for k, v in tree.items()
            if k != "cleave-manifest.json" and not k.startswith("cleave-manifest.rank")}


def run_ok(args, cwd, label):
    r = clitest.run(args, cwd)
    check(r.returncode == 0, f"{label}: {args} failed {r.returncode}: {r.stderr.strip()}")
    return r


def run_counting(args, cwd):
    """Runs cleave; returns (status, stderr, the bytes it read: rchar of /proc/PID/io, read once
    it has exited and before it is reaped)."""
    err_path = os.path.join(cwd, ".stderr")
    with open(err_path, "w") as err:
        p = subprocess.Popen([clitest.CLEAVE] + list(args), cwd=cwd, stdout=subprocess.DEVNULL,
                             stderr=err)
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
        with open(f"/proc/{p.pid}/io") as f:
            io = dict(line.split(": ") for line in f.read().splitlines())
        status = p.wait()
    with open(err_path) as f:
        stderr = f.read()
    os.remove(err_path)
    return status, stderr, int(io["rchar"])


def rank_runs(work, base, out, label, parallel=True):
    """`base --rank R -o OUT` for every R: two at a time (ranks 0 and 1 into a folder that does
    not exist yet, then 2 and 3 into the folder they made), or one after the other."""
    args = [base + ["-o", out, "--rank", str(r)] for r in range(N)]
    if not parallel:
        for a in args:
            run_ok(a, work, label)
        return
    for pair in (args[:2], args[2:]):
        procs = [subprocess.Popen([clitest.CLEAVE] + a, cwd=work, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for a in pair]
        for a, p in zip(pair, procs):
            stdout, stderr = p.communicate(timeout=300)
            check(p.returncode == 0, f"{label}: {a} (two at once) failed {p.returncode}: "
                  f"{stderr.strip()}")


def same_as_whole(work, base, label, parallel=True, merge_args=None):
    """The whole run into whole/, the ranks' runs into ranks/ (one folder) and into r0/ .. rN-1/
    (folders copied together afterwards): the data files and sidecars are the whole run's byte
    for byte, each rank's manifest names the run and its rank, verify and merge take the union."""
    whole = os.path.join(work, "whole")
    run_ok(base + ["-o", whole], work, f"{label}: whole run")
    want = without_manifests(files(whole))
    rank_runs(work, base, os.path.join(work, "ranks"), label, parallel)
    got = files(os.path.join(work, "ranks"))
    check(without_manifests(got) == want,
          f"{label}: the ranks' union differs from the whole run: "
          f"{sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))}")
    manifests = sorted(k for k in got if k.startswith("cleave-manifest"))
    check(manifests == sorted(f"cleave-manifest.rank{r}.json" for r in range(N)),
          f"{label}: manifests {manifests}")
    runs = set()
    for r in range(N):
        m = json.loads(got.get(f"cleave-manifest.rank{r}.json", b"{}"))
        rank = m.get("rank", {})
        runs.add(rank.get("run"))
        check(rank.get("rank") == r and rank.get("ranks") == N,
              f"{label}: rank {r}'s manifest says {rank}")
        listed = {f["name"] for f in m.get("files", [])}
        data = {f["name"] for f in m.get("files", []) if f["kind"] == "data"}
        check(len(data) == 1 and any(f"rank{r}." in n for n in data),
              f"{label}: rank {r}'s manifest lists {sorted(listed)}")
        check((r == 0 and "config.json" in want) == ("config.json" in listed),
              f"{label}: rank {r}'s manifest lists {sorted(listed)} (sidecars with rank 0)")
    # The run is the records' cleave.run: the same in every rank, and the whole run's.
    whole_files = [n for n in want if n.startswith("rank0.")]
    check(len(runs) == 1 and whole_files and
          runs.pop().encode() in want[whole_files[0]],
          f"{label}: the manifests' runs are not the records' cleave.run")
    # Folders written apart, then copied together.
    apart = os.path.join(work, "apart")
    os.makedirs(apart)
    for r in range(N):
        run_ok(base + ["-o", os.path.join(work, f"r{r}"), "--rank", str(r)], work,
               f"{label}: rank {r} apart")
        for name in os.listdir(os.path.join(work, f"r{r}")):
            shutil.copy(os.path.join(work, f"r{r}", name), apart)
    # The manifests record the command line (its -o) and differ only there.
    together = files(apart)
    check(without_manifests(together) == without_manifests(got) and
          sorted(together) == sorted(got),
          f"{label}: the folders copied together differ from one folder")
    r = clitest.run(["verify", "apart"], work)
    check(r.returncode == 0, f"{label}: verify of the folders copied together: {r.returncode} "
          f"{r.stdout.strip()} {r.stderr.strip()}")
    # check and ls read the union as any folder of ranks.
    r = clitest.run(["check", "ranks"], work)
    check(r.returncode == 0, f"{label}: check of the union: {r.returncode} {r.stderr.strip()}")
    r = clitest.run(["ls", "ranks"], work)
    check(r.returncode == 0 and r.stdout == clitest.run(["ls", "whole"], work).stdout.replace(
        "whole", "ranks"), f"{label}: ls of the union: {r.returncode} {r.stderr.strip()}")
    r = clitest.run(["verify", "ranks"], work)
    check(r.returncode == 0 and "differ" not in r.stdout,
          f"{label}: verify of the union: {r.returncode} {r.stdout.strip()} {r.stderr.strip()}")
    r = clitest.run(["verify", "--json", "ranks"], work)
    report = json.loads(r.stdout) if r.returncode == 0 else {}
    whole_report = json.loads(clitest.run(["verify", "--json", "whole"], work).stdout)
    check(report.get("ok") is True and report.get("files") == whole_report.get("files") and
          report.get("bytes") == whole_report.get("bytes"),
          f"{label}: verify --json of the union {report}, of the whole run {whole_report}")
    # merge takes the union as it takes the whole run's folder.
    merge_args = merge_args or (lambda src, dst: ["merge", src, "-o", dst])
    run_ok(merge_args("whole", "merged-whole"), work, f"{label}: merge of the whole run")
    run_ok(merge_args("ranks", "merged-ranks"), work, f"{label}: merge of the union")
    a, b = (os.path.join(work, p) for p in ("merged-whole", "merged-ranks"))
    if os.path.isdir(a):
        # The merge's own manifest differs (its argv); nothing else may, and no rank's manifest
        # is taken for a sidecar.
        ta, tb = files(a), files(b)
        for t in (ta, tb):
            t.pop("cleave-manifest.json", None)
    else:
        ta, tb = (open(p + ".gguf", "rb").read() if os.path.exists(p + ".gguf") else None
                  for p in (a, b))
    check(ta is not None and ta == tb, f"{label}: merge of the union differs from merge of the "
          "whole run")
    return want


def gguf_merge(src, dst):
    return ["merge", src, "-o", dst]


def test_st_single(work):
    st_single(os.path.join(work, "m"), np.random.default_rng(1))
    same_as_whole(work, ["shard", "m", "-n", str(N)] + ST_RULES, "st single")
    # --against compares every rank's pieces with the model; a file no rank's manifest lists is
    # an extra file, a rank's file changed a difference (status 1 each).
    r = clitest.run(["verify", "ranks", "--against", "m"], work)
    check(r.returncode == 0, f"verify --against of the union: {r.returncode} {r.stdout.strip()} "
          f"{r.stderr.strip()}")
    with open(os.path.join(work, "ranks", "stray.safetensors"), "wb") as f:
        f.write(b"x")
    r = clitest.run(["verify", "ranks"], work)
    check(r.returncode == 1 and "stray.safetensors" in r.stdout and "extra file" in r.stdout,
          f"verify of the union with a stray file: {r.returncode} {r.stdout.strip()}")
    os.remove(os.path.join(work, "ranks", "stray.safetensors"))
    path = os.path.join(work, "ranks", "rank2.safetensors")
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) - 1)
        last = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([last[0] ^ 1]))
    r = clitest.run(["verify", "ranks", "--against", "m"], work)
    check(r.returncode == 1 and "rank2.safetensors" in r.stdout and
          "differ" in r.stdout, f"verify of the union with rank 2 changed: {r.returncode} "
          f"{r.stdout.strip()}")


def test_st_sharded_sequential(work):
    st_sharded(os.path.join(work, "m"), np.random.default_rng(2))
    same_as_whole(work, ["shard", "m", "-n", str(N)] + ST_RULES, "st sharded", parallel=False)


def test_st_preset(work):
    st_llama(os.path.join(work, "m"), np.random.default_rng(3))
    same_as_whole(work, ["st", "shard", "m", "-n", str(N), "--preset", "auto"], "st preset")


def test_gguf_file(work):
    gguf_file(os.path.join(work, "model.gguf"), np.random.default_rng(4))
    same_as_whole(work, ["shard", "model.gguf", "-n", str(N)] + GGUF_RULES, "gguf file",
                  merge_args=lambda s, d: ["merge", s, "-o", d + ".gguf"])


def test_gguf_split_set(work):
    gguf_file(os.path.join(work, "model.gguf"), np.random.default_rng(5))
    run_ok(["gguf", "split", "model.gguf", "-o", "set", "--max-tensors", "1"], work, "make a set")
    first = sorted(n for n in os.listdir(os.path.join(work, "set")) if n.endswith(".gguf"))[0]
    check("-00001-of-00003" in first, f"the set's first file is {first}")
    same_as_whole(work, ["shard", os.path.join("set", first), "-n", str(N)] + GGUF_RULES,
                  "gguf set", merge_args=lambda s, d: ["merge", s, "-o", d + ".gguf"])


def test_reshard(work):
    """reshard --rank R of ranks (2 to 4, both formats) is the whole reshard's rank R."""
    st_single(os.path.join(work, "m"), np.random.default_rng(6))
    run_ok(["shard", "m", "-n", "2", "-o", "tp2"] + ST_RULES, work, "st tp2")
    st = os.path.join(work, "st")
    os.makedirs(st)
    same_as_whole(st, ["reshard", "../tp2", "-n", str(N)], "st reshard")
    gguf_file(os.path.join(work, "model.gguf"), np.random.default_rng(7))
    run_ok(["shard", "model.gguf", "-n", "2", "-o", "gtp2"] + GGUF_RULES, work, "gguf tp2")
    gg = os.path.join(work, "gg")
    os.makedirs(gg)
    same_as_whole(gg, ["reshard", "../gtp2", "-n", str(N)], "gguf reshard",
                  merge_args=lambda s, d: ["merge", s, "-o", d + ".gguf"])


def test_dry_run_and_json(work):
    """A rank's --dry-run and --json report only its own file (and rank 0's sidecars)."""
    st_single(os.path.join(work, "m"), np.random.default_rng(8))
    base = ["shard", "m", "-n", str(N), "-o", "tp", "--json"] + ST_RULES
    for r in (0, 2):
        out = run_ok(base + ["--rank", str(r)], work, f"json rank {r}").stdout
        paths = [o["path"] for o in json.loads(out)["outputs"]] if out else []
        want = [f"tp/rank{r}.safetensors"] + (["tp/config.json"] if r == 0 else [])
        check(paths == want, f"--json of rank {r}: {paths}, expected {want}")
    r = run_ok(base + ["--rank", "3", "--dry-run"], work, "dry run")
    check(r.stdout and [o["path"] for o in json.loads(r.stdout)["outputs"]] ==
          ["tp/rank3.safetensors"], f"--dry-run of rank 3: {r.stdout[:300]}")


def data_read(args, cwd):
    """(status, stderr, the bytes a run read beyond what its --dry-run reads: the headers, the
    model's identity, config.json, the libraries' ELF headers; the two differ by a few bytes
    besides, under a sanitizer)."""
    status, err, read = run_counting(args, cwd)
    dry_status, dry_err, headers = run_counting(args + ["--dry-run"], cwd)
    return status or dry_status, err + dry_err, read - headers


def test_reads_only_its_bytes(work):
    """A rank reads its columns of a column-parallel tensor, its rows of a row-parallel one and
    the replicated tensors: a quarter of the cut bytes, where the whole run reads them all."""
    t = st_single(os.path.join(work, "m"), np.random.default_rng(9))
    cut = t["col.w"].nbytes + t["row.w"].nbytes
    replicated = t["emb"].nbytes + t["norm"].nbytes
    base = ["shard", "m", "-n", str(N), "--no-progress"] + ST_RULES
    status, err, whole = data_read(base + ["-o", "whole"], work)
    check(status == 0 and whole >= cut + replicated,
          f"the whole run read {whole} bytes ({status} {err.strip()}), fewer than {cut + replicated}")
    need = cut // N + replicated
    for r in range(N):
        status, err, read = data_read(base + ["-o", "ranks", "--rank", str(r)], work)
        # Reads start at their offset modulo 64: a little more than the bytes; the other ranks'
        # columns would be 3 * 256 KiB more.
        check(status == 0 and need - 4096 <= read <= need + 16 * 1024,
              f"rank {r} read {read} bytes ({status} {err.strip()}); it needs {need}, the whole "
              f"run read {whole}")
    gguf_file(os.path.join(work, "model.gguf"), np.random.default_rng(10))
    gbase = ["shard", "model.gguf", "-n", str(N), "--no-progress"] + GGUF_RULES
    cut = 64 * 4096 * 4 + 256 * 1024 * 4
    need = cut // N + 16 * 8 * 34
    for r in (1, 3):
        status, err, read = data_read(gbase + ["-o", "gtp", "--rank", str(r)], work)
        check(status == 0 and need - 4096 <= read <= need + 16 * 1024,
              f"gguf rank {r} read {read} bytes ({status} {err.strip()}); it needs {need}")
    # reshard: a rank of 4 from 2 ranks reads its columns from the one input rank that holds
    # them, the replicated tensors it writes from input rank 0, and every copy of them once more
    # to compare them (as the whole run does).
    run_ok(["shard", "m", "-n", "2", "-o", "tp2"] + ST_RULES, work, "tp2")
    status, err, read = data_read(["reshard", "tp2", "-n", str(N), "--no-progress", "-o", "rs",
                                   "--rank", "2"], work)
    need = cut // N + 3 * replicated
    check(status == 0 and need - 4096 <= read <= need + 16 * 1024,
          f"reshard rank 2 read {read} bytes ({status} {err.strip()}); it needs {need}")


def test_errors(work):
    st_single(os.path.join(work, "m"), np.random.default_rng(11))
    gguf_file(os.path.join(work, "model.gguf"), np.random.default_rng(12))
    base = ["shard", "m", "-o", "tp"] + ST_RULES
    u.expect_failure("rank out of range", base + ["-n", "4", "--rank", "4"], work, 64,
                     ["--rank 4 is out of range: -n 4 makes ranks 0 to 3"])
    u.expect_failure("negative rank", base + ["-n", "4", "--rank=-1"], work, 64,
                     ["--rank is -1: ranks are numbered from 0"])
    u.expect_failure("rank not a number", base + ["-n", "4", "--rank", "x"], work, 64,
                     ["--rank"])
    u.expect_failure("rank twice", base + ["-n", "4", "--rank", "1", "--rank", "2"], work, 64,
                     ["--rank"])
    u.expect_failure("rank without -n", base + ["--rank", "1"], work, 64,
                     ["-n RANKS is missing (--rank 1 is one rank of RANKS)"])
    u.expect_failure("reshard rank without -n", ["reshard", "tp", "-o", "x", "--rank", "0"], work,
                     64, ["-n RANKS is missing (--rank 0 is one rank of RANKS)"])
    u.expect_failure("gguf rank out of range",
                     ["shard", "model.gguf", "-o", "g", "-n", "2", "--rank", "2"] + GGUF_RULES,
                     work, 64, ["--rank 2 is out of range: -n 2 makes ranks 0 to 1"])
    for cmd in (["merge", "m", "-o", "x"], ["st", "merge", "m", "-o", "x"],
                ["st", "split", "m", "-o", "x"], ["gguf", "split", "model.gguf", "-o", "x"]):
        r = u.expect_failure(f"{cmd[:-3]} --rank", cmd + ["--rank", "0"], work, 64, ["--rank"])
        check("shard" in r.stderr and "reshard" in r.stderr,
              f"{cmd[:-3]} --rank does not name the commands that take it: {r.stderr.strip()}")
    # A bad rule fails every rank's run alike, before anything is written.
    for rank in ("0", "2"):
        u.expect_failure(f"uneven cut, rank {rank}", ["shard", "m", "-o", "tp", "-n", "3",
                                                      "--rank", rank] + ST_RULES,
                         work, 65, ["col.w"])
    # The union of ranks of two runs, or with a rank missing.
    run_ok(["shard", "m", "-n", "2", "-o", "a"] + ST_RULES, work, "run a")
    for r in range(2):
        run_ok(["shard", "m", "-n", "2", "-o", "u", "--rank", str(r)] + ST_RULES, work, "u")
        run_ok(["shard", "m", "-n", "2", "-o", "v", "--rank", str(r), "--axis", "emb=0"] +
               ST_RULES, work, "v")
    os.remove(os.path.join(work, "u", "rank1.safetensors"))
    os.remove(os.path.join(work, "u", "cleave-manifest.rank1.json"))
    r = u.expect_failure("a rank missing", ["verify", "u"], work, 65,
                         ["rank 1 of 2 of run", "is missing from 'u'",
                          "cleave-manifest.rank1.json"])
    check(r.stdout == "", f"verify printed {r.stdout!r} with a rank missing")
    u.expect_failure("merge with a rank missing", ["merge", "u", "-o", "x"], work, 65,
                     ["rank 1 of 2 is missing"])
    for name in ("rank1.safetensors", "cleave-manifest.rank1.json"):
        shutil.copy(os.path.join(work, "v", name), os.path.join(work, "u", name))
    r = u.expect_failure("two runs mixed", ["verify", "u"], work, 65,
                         ["mixes the ranks of two runs", "cleave-manifest.rank1.json"])
    check(r.stdout == "", f"verify printed {r.stdout!r} with two runs mixed")
    u.expect_failure("merge of two runs mixed", ["merge", "u", "-o", "x"], work, 65,
                     ["another run"])
    # A manifest whose name and record disagree.
    os.rename(os.path.join(work, "v", "cleave-manifest.rank1.json"),
              os.path.join(work, "v", "cleave-manifest.rank2.json"))
    u.expect_failure("a manifest renamed", ["verify", "v"], work, 65,
                     ["records rank 1, not 2 as its name says"])


def test_earlier_runs_files(work):
    """A rank's run warns about the files an earlier run left (rank 5 of an earlier -n 6), as the
    whole run does, never about the other ranks of its own run."""
    st_single(os.path.join(work, "m"), np.random.default_rng(13))
    run_ok(["shard", "m", "-n", "8", "-o", "old8", "--axis", "row.w=0"], work, "old run of 8")
    os.makedirs(os.path.join(work, "tp"))
    shutil.copy(os.path.join(work, "old8", "rank5.safetensors"), os.path.join(work, "tp"))
    base = ["shard", "m", "-n", str(N), "-o", "tp"] + ST_RULES
    for r in (1, 0, 2):
        res = run_ok(base + ["--rank", str(r)], work, f"rank {r} beside an earlier run's file")
        warnings = [line for line in res.stderr.splitlines() if "warning" in line]
        check(len(warnings) == 1 and "rank5.safetensors" in warnings[0] and
              all(f"rank{k}." not in warnings[0] for k in range(N)),
              f"rank {r}: the warnings {warnings}, expected one naming rank5.safetensors alone")
    res = run_ok(base + ["--rank", "3"], os.path.join(work), "rank 3")
    whole = run_ok(["shard", "m", "-n", str(N), "-o", "whole"] + ST_RULES, work, "whole")
    check(whole.stderr == "" and "rank5.safetensors" in res.stderr,
          f"the last rank's stderr {res.stderr!r}, the whole run's {whole.stderr!r}")
