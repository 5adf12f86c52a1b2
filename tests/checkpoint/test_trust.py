"""Nothing silent (issue 33): command lines that would give a wrong model, or lose one, with exit
status 0 are refused, naming what is wrong, with nothing written and the inputs unchanged.

Outputs never land among the inputs: an output folder that is the model's folder, holds one of its
files, or lies in a folder of ranks being read is 64, with or without -f; a merge into one file
writes its manifest beside the file, named after it, never over another run's.

Copied files keep their permission bits (never wider than the source, nor than the umask
allows), and outputs made from the inputs' data are never more readable than the most readable
input."""
import json
import os
import shutil
import stat

import numpy as np

import clitest
import gguf_util as g
import hostile
import st_util as u
from clitest import check

ST_RULES = ["--axis", "a.qkv=0", "--axis", "c.w=1"]
GGUF_RULES = ["--axis", "blk.0.w=0"]


def make_models(work):
    rng = np.random.default_rng(11)
    os.makedirs(os.path.join(work, "st"))
    u.small_model(os.path.join(work, "st"), rng)
    with open(os.path.join(work, "st", "config.json"), "w") as f:
        f.write('{"model_type": "toy"}\n')
    w = rng.standard_normal((4, 8)).astype(np.float32)
    g.write_gguf(os.path.join(work, "model.gguf"), [("general.architecture", "str", "toy")],
                 [("blk.0.w", "F32", [4, 8], w.tobytes())])


def test_outputs_apart(work):
    make_models(work)
    r = clitest.run(["st", "shard", "st", "-o", "tp", "-n", "2"] + ST_RULES, work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    cases = [
        ("into the model's folder", ["st", "split", "st", "-o", "st", "--tensor", "a.qkv", "-a",
                                     "0", "-n", "2", "--into", "x,y"],
         ["st split: -o 'st' is the folder of the model, 'st/'"]),
        ("shard beside the model", ["shard", "st", "-o", "st/", "-n", "2"] + ST_RULES,
         ["-o 'st/' is the folder of the model"]),
        ("merge into the ranks' folder", ["merge", "tp", "-o", "tp"] + ST_RULES,
         ["st merge: -o 'tp' is the folder of the ranks, 'tp/'"]),
        ("merge inside the ranks' folder", ["merge", "tp", "-o", "tp/merged"] + ST_RULES,
         ["st merge: -o 'tp/merged' lies in the folder of the ranks, 'tp/'"]),
        ("reshard into the ranks' folder", ["reshard", "tp", "-o", "tp/", "-n", "1"] + ST_RULES,
         ["-o 'tp/' is the folder of the ranks"]),
        ("a model file in the output folder", ["shard", "st/model.safetensors", "-o", "st", "-n",
                                               "2"] + ST_RULES,
         ["-o 'st' holds the input 'st/model.safetensors'"]),
        ("a GGUF file in the output folder", ["shard", "model.gguf", "-o", ".", "-n", "2"] +
         GGUF_RULES, ["gguf shard: -o '.' holds the input 'model.gguf'"]),
        ("the same folder by another path", ["shard", "st", "-o", "st/../st", "-n", "2"] +
         ST_RULES, ["is the folder of the model"]),
    ]
    for label, args, fragments in cases:
        for force in ([], ["-f"]):
            clitest.expect_failure(f"{label} {force}", args + force, work, 64, fragments)
    # A folder of outputs beside the model, or inside a model folder given by its file: fine.
    r = clitest.run(["st", "shard", "st", "-o", "st-tp", "-n", "2"] + ST_RULES, work)
    check(r.returncode == 0, f"beside the model: {r.stderr}")
    r = clitest.run(["shard", "model.gguf", "-o", "sub/tp", "-n", "2"] + GGUF_RULES, work)
    check(r.returncode == 73 and "sub" in r.stderr, f"a missing parent is 73: {r.stderr}")
    r = clitest.run(["shard", "model.gguf", "-o", "gg-tp", "-n", "2"] + GGUF_RULES, work)
    check(r.returncode == 0, f"gguf beside the model: {r.stderr}")


def test_merge_file_manifest(work):
    """A GGUF merge into OUT.gguf writes OUT.gguf.cleave-manifest.json beside it: another run's
    cleave-manifest.json in that folder stays as it was, and verify takes the file."""
    make_models(work)
    r = clitest.run(["shard", "model.gguf", "-o", "tp", "-n", "2"] + GGUF_RULES, work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    with open(os.path.join(work, "cleave-manifest.json"), "w") as f:
        f.write('{"another run": true}\n')
    r = clitest.run(["merge", "tp", "-o", "merged.gguf"] + GGUF_RULES, work)
    check(r.returncode == 0, f"merge: {r.stderr}")
    with open(os.path.join(work, "cleave-manifest.json")) as f:
        check(json.load(f) == {"another run": True}, "merge replaced the folder's manifest")
    manifest = os.path.join(work, "merged.gguf.cleave-manifest.json")
    check(os.path.isfile(manifest), "no manifest beside merged.gguf")
    with open(manifest) as f:
        m = json.load(f)
    check([x["name"] for x in m["files"]] == ["merged.gguf"], f"manifest lists {m['files']}")
    for target in ("merged.gguf", "merged.gguf.cleave-manifest.json"):
        r = clitest.run(["verify", target, "--against", "tp"], work)
        check(r.returncode == 0 and "equal to the inputs" in r.stdout,
              f"verify {target}: {r.returncode} {r.stdout} {r.stderr}")
    # The file changed since: verify says so (status 1), naming it.
    with open(os.path.join(work, "merged.gguf"), "r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 1]))
    r = clitest.run(["gguf", "verify", "merged.gguf"], work)
    check(r.returncode == 1 and "merged.gguf" in r.stdout, f"verify of a changed file: {r.stdout}")
    # A set of --max-shard-size is named on OUT, its manifest too.
    shutil.rmtree(os.path.join(work, "tp"))
    r = clitest.run(["shard", "model.gguf", "-o", "tp", "-n", "2"] + GGUF_RULES, work)
    r = clitest.run(["merge", "tp", "-o", "set/out.gguf", "--max-shard-size", "100"] + GGUF_RULES,
                    work)
    check(r.returncode == 0 and os.path.isfile(os.path.join(work, "set",
                                                            "out.gguf.cleave-manifest.json")),
          f"merge into a set: {r.stderr} {os.listdir(os.path.join(work, 'set'))}")
    r = clitest.run(["verify", "set/out.gguf.cleave-manifest.json"], work)
    check(r.returncode == 0, f"verify of a set by its manifest: {r.stdout} {r.stderr}")


def bytes_of(path):
    with open(path, "rb") as f:
        return f.read()


def test_ranks_describe_themselves(work):
    """Ranks given in any order, missing, repeated or of another run; their rules recorded."""
    make_models(work)
    # A model whose c.w has 24 rows, for 12 ranks.
    rng = np.random.default_rng(5)
    shutil.rmtree(os.path.join(work, "st"))
    os.makedirs(os.path.join(work, "st"))
    u.write_st(os.path.join(work, "st", "model.safetensors"),
               {"c.w": u.array_tensor(rng.integers(0, 100, (24, 4), dtype=np.int8)),
                "n": u.array_tensor(rng.standard_normal(4).astype(np.float32))})
    with open(os.path.join(work, "st", "config.json"), "w") as f:
        f.write('{"model_type": "toy"}\n')
    for n in (2, 12):
        r = clitest.run(["st", "shard", "st", "-o", f"tp{n}", "-n", str(n), "--axis",
                         "c.w=0"], work)
        check(r.returncode == 0, f"shard -n {n}: {r.stderr}")
    original = bytes_of(os.path.join(work, "st", "model.safetensors"))
    # The shell sorts rank10 and rank11 before rank2: the records put them back.
    files = sorted(f"tp12/{f}" for f in os.listdir(os.path.join(work, "tp12"))
                   if f.endswith(".safetensors"))
    check(files[2] == "tp12/rank10.safetensors", f"the shell's order: {files[:4]}")
    for label, args in (("shell order", files), ("reversed", files[::-1]), ("folder", ["tp12"])):
        for verb in (["st", "merge"], ["merge"]):
            out = f"m-{label.replace(' ', '_')}-{len(verb)}"
            r = clitest.run(verb + args + ["-o", out], work)
            check(r.returncode == 0 and
                  bytes_of(os.path.join(work, out, "model.safetensors")) == original,
                  f"merge of {label} ({' '.join(verb)}), no rules: {r.returncode} {r.stderr}")
    # The rules given must be the recorded ones.
    r = clitest.run(["merge", "tp2", "-o", "same", "--axis", "c.w=0"], work)
    check(r.returncode == 0, f"the recorded rules given again: {r.stderr}")
    clitest.expect_failure("other rules", ["merge", "tp2", "-o", "x", "--axis", "c.w=1"], work, 64,
                           ["st merge: the rules given (--axis 'c.w=1') are not those the ranks "
                            "record (--axis 'c.w=0')"])
    # Missing, repeated, foreign.
    os.makedirs(os.path.join(work, "half"))
    shutil.copy(os.path.join(work, "tp2", "rank0.safetensors"), os.path.join(work, "half"))
    shutil.copy(os.path.join(work, "tp2", "config.json"), os.path.join(work, "half"))
    cases = [
        ("a folder without its last rank", ["merge", "half", "-o", "x"],
         ["rank 1 of 2 is missing"]),
        ("one rank of two", ["merge", "tp2/rank1.safetensors", "-o", "x"],
         ["rank 0 of 2 is missing"]),
        ("a rank twice", ["merge", "tp2/rank0.safetensors", "tp2/rank0.safetensors", "-o", "x"],
         ["'tp2/rank0.safetensors' and 'tp2/rank0.safetensors' are both rank 0 of 2"]),
        ("a rank of another run", ["merge", "tp2/rank0.safetensors", "tp12/rank1.safetensors",
                                   "-o", "x"],
         ["'tp12/rank1.safetensors' is rank 1 of another run than 'tp2/rank0.safetensors'"]),
        ("reshard of a folder without its last rank", ["reshard", "half", "-o", "x", "-n", "1"],
         ["rank 1 of 2 is missing"]),
    ]
    for label, args, fragments in cases:
        clitest.expect_failure(label, args, work, 65, fragments)
    # A rank of another model's run, with the same shapes and rules: another source.
    rng = np.random.default_rng(99)
    os.makedirs(os.path.join(work, "other"))
    u.write_st(os.path.join(work, "other", "model.safetensors"),
               {"c.w": u.array_tensor(rng.integers(0, 100, (24, 4), dtype=np.int8)),
                "n": u.array_tensor(rng.standard_normal(4).astype(np.float32))})
    r = clitest.run(["shard", "other", "-o", "tp2o", "-n", "2", "--axis", "c.w=0"], work)
    check(r.returncode == 0, f"shard of the other model: {r.stderr}")
    clitest.expect_failure("a rank of another model", ["merge", "tp2/rank0.safetensors",
                                                       "tp2o/rank1.safetensors", "-o", "x"],
                           work, 65, ["is rank 1 of another run"])
    # A folder whose file names and records disagree.
    os.makedirs(os.path.join(work, "mixed"))
    shutil.copy(os.path.join(work, "tp2", "rank0.safetensors"),
                os.path.join(work, "mixed", "rank1.safetensors"))
    shutil.copy(os.path.join(work, "tp2", "rank1.safetensors"),
                os.path.join(work, "mixed", "rank0.safetensors"))
    clitest.expect_failure("names and records disagree", ["merge", "mixed", "-o", "x"], work, 65,
                           ["records rank", "the folder mixes ranks"])
    # Recorded ranks: reshard needs no rules, and writes what merge then shard write.
    r = clitest.run(["reshard", "tp12", "-o", "re3", "-n", "3"], work)
    check(r.returncode == 0, f"reshard without rules: {r.stderr}")
    r = clitest.run(["shard", "m-folder-1", "-o", "again3", "-n", "3", "--axis", "c.w=0"], work)
    check(r.returncode == 0, f"shard of the merge: {r.stderr}")
    for k in range(3):
        check(bytes_of(os.path.join(work, "re3", f"rank{k}.safetensors")) ==
              bytes_of(os.path.join(work, "again3", f"rank{k}.safetensors")),
              f"reshard rank {k} differs from merge then shard")
    meta, _ = u.read_st(os.path.join(work, "re3", "rank2.safetensors"))
    check(meta["cleave.rank"] == "2" and meta["cleave.ranks"] == "3" and
          meta["cleave.rules"] == "--axis 'c.w=0'", f"reshard's record: {meta}")
    # The same run twice writes the same bytes.
    r = clitest.run(["st", "shard", "st", "-o", "tp2b", "-n", "2", "--axis", "c.w=0"], work)
    check(r.returncode == 0 and all(
        bytes_of(os.path.join(work, "tp2", f"rank{k}.safetensors")) ==
        bytes_of(os.path.join(work, "tp2b", f"rank{k}.safetensors")) for k in range(2)),
        "two runs of one shard differ")


def test_gguf_ranks_describe_themselves(work):
    make_models(work)
    r = clitest.run(["shard", "model.gguf", "-o", "tp", "-n", "2"] + GGUF_RULES, work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    _, meta, _ = g.read_gguf(os.path.join(work, "tp", "rank1.gguf"))
    record = {k: (t, v) for k, t, v in meta if k.startswith("cleave.")}
    check(record.get("cleave.rank") == ("str", "1") and record.get("cleave.ranks") ==
          ("str", "2") and record.get("cleave.rules") == ("str", "--axis 'blk.0.w=0'"),
          f"rank 1's record: {record}")
    for args in (["tp/rank1.gguf", "tp/rank0.gguf"], ["tp"]):
        r = clitest.run(["merge"] + args + ["-o", "back.gguf", "-f"], work)
        check(r.returncode == 0 and bytes_of(os.path.join(work, "back.gguf")) ==
              bytes_of(os.path.join(work, "model.gguf")),
              f"merge of {args} without rules: {r.stderr}")
    clitest.expect_failure("one rank of two", ["merge", "tp/rank1.gguf", "-o", "x.gguf"], work, 65,
                           ["rank 0 of 2 is missing"])


def test_preset_fits_the_model(work):
    """A preset of another family is refused unless --override-preset; under a preset a tensor
    it does not know is an error naming it, unless a rule of the command line takes it."""
    import json as js
    os.makedirs(os.path.join(work, "m"))
    rng = np.random.default_rng(3)
    heads, hd, hid = 4, 4, 16
    t = {"model.embed_tokens.weight": rng.standard_normal((8, hid)).astype(np.float32),
         "model.layers.0.self_attn.q_proj.weight": rng.standard_normal((heads * hd, hid)).astype(
             np.float32),
         "model.layers.0.input_layernorm.weight": np.ones(hid, np.float32),
         "model.layers.0.extra.weight": np.ones(4, np.float32)}
    u.write_st(os.path.join(work, "m", "model.safetensors"), {k: u.array_tensor(v)
                                                              for k, v in t.items()})
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"],
              "num_attention_heads": heads, "hidden_size": hid}
    with open(os.path.join(work, "m", "config.json"), "w") as f:
        js.dump(config, f)
    base = ["shard", "m", "-o", "tp", "-n", "2"]
    clitest.expect_failure("another family", base + ["--preset", "phi3"], work, 65,
                           ["m/config.json: the model's model_type is 'llama', not phi3's 'phi3'",
                            "--override-preset"])
    clitest.expect_failure("override without preset", base + ["--axis", "x=0",
                                                              "--override-preset"], work, 64,
                           ["--override-preset needs --preset"])
    clitest.expect_failure("a tensor the preset does not know", base + ["--preset", "llama"], work,
                           65, ["tensor 'model.layers.0.extra.weight' matches no --axis or "
                                "--replicate rule, of preset 'llama' or of the command line"])
    for extra in (["--replicate", "*.extra.weight"], ["--unmatched", "replicate"]):
        r = clitest.run(base + ["--preset", "auto", "-f"] + extra, work)
        check(r.returncode == 0, f"preset with {extra}: {r.stderr}")
    # Without model_type, the architectures name the family.
    del config["model_type"]
    with open(os.path.join(work, "m", "config.json"), "w") as f:
        js.dump(config, f)
    clitest.expect_failure("another architecture", base + ["--preset", "qwen2", "--unmatched",
                                                           "replicate"], work, 65,
                           ["the model's architectures is 'LlamaForCausalLM', not qwen2's "
                            "'Qwen2ForCausalLM'"])
    r = clitest.run(base + ["--preset", "qwen2", "--override-preset", "--unmatched", "replicate",
                            "-f", "--json"], work)
    check(r.returncode == 0, f"--override-preset: {r.stderr}")
    meta, _ = u.read_st(os.path.join(work, "tp", "rank0.safetensors"))
    check("--override-preset" in meta.get("cleave.rules", ""), f"the record: {meta}")


def test_rank_folders_read(work):
    """ls and check take the folder of ranks a shard wrote; check checks that every rank of the
    run is there."""
    make_models(work)
    for fmt, model, rules in (("st", "st", ST_RULES), ("gguf", "model.gguf", GGUF_RULES)):
        out = f"tp-{fmt}"
        r = clitest.run([fmt, "shard", model, "-o", out, "-n", "2"] + rules, work)
        check(r.returncode == 0, f"{fmt} shard: {r.stderr}")
        for verb in ([fmt, "check"], ["check"]):
            r = clitest.run(verb + [out], work)
            check(r.returncode == 0 and "ok: " in r.stdout and " 2 files" in r.stdout,
                  f"{' '.join(verb)} of a folder of ranks: {r.returncode} {r.stdout} {r.stderr}")
        r = clitest.run(["ls", "--json", out], work)
        files = {t["file"] for t in json.loads(r.stdout)["tensors"]} if r.returncode == 0 else ()
        check(files == {f"rank0{'.gguf' if fmt == 'gguf' else '.safetensors'}",
                        f"rank1{'.gguf' if fmt == 'gguf' else '.safetensors'}"},
              f"ls of a folder of ranks: {r.stdout} {r.stderr}")
        half = f"half-{fmt}"
        os.makedirs(os.path.join(work, half))
        name = "rank0.gguf" if fmt == "gguf" else "rank0.safetensors"
        shutil.copy(os.path.join(work, out, name), os.path.join(work, half, name))
        clitest.expect_failure(f"{fmt} check of a folder missing a rank", ["check", half], work, 65,
                               ["rank 1 of 2 is missing"])


def test_verify_names_an_edited_sidecar(work):
    """A sidecar copied whole and edited since (shorter or longer) is named with both sizes, never
    said to be cut short: no tensor lies in it."""
    make_models(work)
    r = clitest.run(["shard", "st", "-o", "tp", "-n", "2"] + ST_RULES, work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    path = os.path.join(work, "tp", "config.json")
    size = os.path.getsize(path)
    for text, fragment in (('{}\n', f"differs from the manifest (3 bytes, the manifest says {size})"),
                           ('{"model_type": "toy", "x": 1}\n',
                            f"differs from the manifest ({size + 8} bytes, the manifest says {size})")):
        with open(path, "w") as f:
            f.write(text)
        r = clitest.run(["verify", "tp"], work)
        check(r.returncode == 1 and f"config.json: {fragment}" in r.stdout and
              "cut short" not in r.stdout, f"edited sidecar: {r.returncode} {r.stdout} {r.stderr}")


def dry_run_cuts(work, args):
    """The plan --dry-run --json prints for `args`, and its text, which must say the same cuts."""
    r = clitest.run(args + ["--dry-run", "--json"], work)
    check(r.returncode == 0, f"{args} --dry-run --json: {r.stderr}")
    plan = json.loads(r.stdout) if r.returncode == 0 else {"outputs": []}
    text = clitest.run(args + ["--dry-run"], work).stdout
    for out in plan["outputs"]:
        for t in out.get("plan", []):
            c = t.get("cut")
            if c is None:
                continue
            view = f" viewed as [{','.join(map(str, c['view']))}]" if "view" in c else ""
            ranges = " ".join(f"{b}:{e}" for b, e in c["ranges"])
            line = f"<- {t['source']}{view}, axis {c['axis']}, {ranges} of {c['dim']} ("
            check(f"  {t['name']}\t" in text and line in text, f"text of {t['name']}: {line}")
    return plan


def check_cuts(work, plan, whole, label):
    """Every output tensor with a cut holds the ranges of the whole tensor the cut names (taken
    with NumPy from `whole`, {name: array}), as written by the run the plan is of."""
    cut = 0
    for out in (o for o in plan["outputs"] if "plan" in o):
        _, tensors = u.read_st(os.path.join(work, out["path"]))
        for t in out["plan"]:
            c = t.get("cut")
            if c is None:
                continue
            a = whole[t["source"]]
            a = a.reshape(c["view"]) if "view" in c else a
            check(a.shape[c["axis"]] == c["dim"], f"{label} {t['name']}: the dim {c}")
            want = np.concatenate([np.take(a, range(b, e), axis=c["axis"])
                                   for b, e in c["ranges"]], axis=c["axis"])
            got = u.as_array(tensors[t["name"]])
            check(got.size == want.size and (got.reshape(want.shape) == want).all(),
                  f"{label} {out['path']} {t['name']}: the cut {c} is not what was written")
            cut += 1
    check(cut > 0, f"{label}: no cut reported")


def test_dry_run_shows_each_cut(work):
    """--dry-run names, for every part it writes, the axis and the ranges of the whole tensor it
    holds (a fused q, k, v: three ranges); the run writes exactly those elements."""
    make_models(work)
    _, tensors = u.read_st(os.path.join(work, "st", "model.safetensors"))
    whole = {k: u.as_array(v) for k, v in tensors.items()}
    runs = [("shard", ["shard", "st", "-o", "tp", "-n", "2"] + ST_RULES),
            ("split with a view", ["st", "split", "st", "-o", "sp", "--tensor", "a.qkv", "--view",
                                   "6,2,4", "-a", "1", "-n", "2", "--into", "x,y"])]
    for label, args in runs:
        plan = dry_run_cuts(work, args)
        check(not os.path.exists(os.path.join(work, args[args.index("-o") + 1])),
              f"{label}: --dry-run wrote")
        r = clitest.run(args, work)
        check(r.returncode == 0, f"{label}: {r.stderr}")
        check_cuts(work, plan, whole, label)
    # A reshard: the ranges are of the tensor the ranks merge to.
    plan = dry_run_cuts(work, ["reshard", "tp", "-o", "tp1", "-n", "1"])
    check(clitest.run(["reshard", "tp", "-o", "tp1", "-n", "1"], work).returncode == 0, "reshard")
    check_cuts(work, plan, whole, "reshard")
    # A fused qkv_proj under a preset: each rank's share of q, of k and of v.
    import test_st_presets as presets
    fused, _, _ = presets.make_phi3(os.path.join(work, "phi3"))
    args = ["shard", "phi3", "-o", "phi3-tp", "-n", "2", "--preset", "phi3"]
    plan = dry_run_cuts(work, args)
    qkv = [t["cut"] for t in plan["outputs"][1]["plan"]
           if t["name"] == "model.layers.0.self_attn.qkv_proj.weight"]
    check(qkv == [{"axis": 0, "dim": 96, "ranges": [[32, 64], [72, 80], [88, 96]]}],
          f"rank 1's qkv_proj: {qkv}")
    check(clitest.run(args, work).returncode == 0, "phi3 shard")
    check_cuts(work, plan, fused, "fused")


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def umask(value):
    return lambda: os.umask(value)


def test_permissions(work):
    """A sidecar is copied with its own bits less the umask (a 0600 token file stays 0600, a 0755
    script 0755, setuid dropped); the files made from the model's data (ranks, parts, index,
    manifest) have 0666 less the umask less the group's and others' bits no model file has."""
    make_models(work)
    side = {"config.json": 0o644, "token.json": 0o600, "tokenizer.model": 0o640,
            "run.sh": 0o4755, "readonly.txt": 0o444}
    for name, bits in side.items():
        with open(os.path.join(work, "st", name), "w") as f:
            f.write(name + "\n")
        os.chmod(os.path.join(work, "st", name), bits)
    copied = {"config.json": 0o644, "token.json": 0o600, "tokenizer.model": 0o640,
              "run.sh": 0o755, "readonly.txt": 0o444}
    model = os.path.join(work, "st", "model.safetensors")
    for data_bits, want in ((0o644, 0o644), (0o600, 0o600), (0o640, 0o640), (0o604, 0o604)):
        os.chmod(model, data_bits)
        out = f"tp{data_bits:o}"
        r = clitest.run(["st", "shard", "st", "-o", out, "-n", "2", "-q"] + ST_RULES, work,
                        preexec_fn=umask(0o022))
        check(r.returncode == 0, f"shard of a {data_bits:o} model: {r.stderr}")
        for name, bits in copied.items():
            got = mode(os.path.join(work, out, name))
            check(got == bits, f"{data_bits:o}: sidecar {name} is {got:o}, expected {bits:o}")
        for name in ("rank0.safetensors", "rank1.safetensors", "cleave-manifest.json"):
            got = mode(os.path.join(work, out, name))
            check(got == want, f"{data_bits:o} model: {name} is {got:o}, expected {want:o}")
    # A sharded output (its index too), and merge from private ranks.
    os.chmod(model, 0o600)
    r = clitest.run(["st", "split", "st", "-o", "sized", "--max-shard-size", "200", "-q"], work,
                    preexec_fn=umask(0o022))
    check(r.returncode == 0, f"split --max-shard-size: {r.stderr}")
    for name in os.listdir(os.path.join(work, "sized")):
        got = mode(os.path.join(work, "sized", name))
        want = copied.get(name, 0o600)
        check(got == want, f"split of a 0600 model: {name} is {got:o}, expected {want:o}")
    r = clitest.run(["st", "merge", "tp600", "-o", "merged", "-q"] + ST_RULES, work,
                    preexec_fn=umask(0o022))
    check(r.returncode == 0 and mode(os.path.join(work, "merged", "model.safetensors")) == 0o600,
          f"merge of 0600 ranks: {r.stderr}")
    check(mode(os.path.join(work, "merged", "token.json")) == 0o600, "merge: the token's copy")
    # The umask still applies: never wider than it allows, to copies and data alike.
    os.chmod(model, 0o644)
    r = clitest.run(["st", "shard", "st", "-o", "private", "-n", "2", "-q"] + ST_RULES, work,
                    preexec_fn=umask(0o077))
    check(r.returncode == 0, f"shard under umask 077: {r.stderr}")
    for name in os.listdir(os.path.join(work, "private")):
        got = mode(os.path.join(work, "private", name))
        want = {"run.sh": 0o700, "readonly.txt": 0o400}.get(name, 0o600)
        check(got == want, f"umask 077: {name} is {got:o}, expected {want:o}")
    # -f over an earlier run's copies gives the source's bits, not the old file's.
    os.chmod(os.path.join(work, "st", "token.json"), 0o640)
    r = clitest.run(["st", "shard", "st", "-o", "tp644", "-n", "2", "-q", "-f"] + ST_RULES, work,
                    preexec_fn=umask(0o022))
    check(r.returncode == 0 and mode(os.path.join(work, "tp644", "token.json")) == 0o640,
          f"-f: the token's copy is {mode(os.path.join(work, 'tp644', 'token.json')):o}")
    # GGUF: a private model gives private ranks.
    os.chmod(os.path.join(work, "model.gguf"), 0o600)
    r = clitest.run(["gguf", "shard", "model.gguf", "-o", "gg", "-n", "2", "-q"] + GGUF_RULES,
                    work, preexec_fn=umask(0o022))
    check(r.returncode == 0, f"gguf shard: {r.stderr}")
    for name in os.listdir(os.path.join(work, "gg")):
        got = mode(os.path.join(work, "gg", name))
        check(got == 0o600, f"gguf shard of a 0600 model: {name} is {got:o}")
    # .npy: split parts and a join, no more readable than their inputs.
    np.save(os.path.join(work, "x.npy"), np.arange(12, dtype=np.int32).reshape(4, 3))
    os.chmod(os.path.join(work, "x.npy"), 0o600)
    r = clitest.run(["split", "-a", "0", "-n", "2", "x.npy"], work, preexec_fn=umask(0o022))
    check(r.returncode == 0 and mode(os.path.join(work, "x_0.npy")) == 0o600 and
          mode(os.path.join(work, "x_1.npy")) == 0o600, f"npy split of a 0600 file: {r.stderr}")
    os.chmod(os.path.join(work, "x_1.npy"), 0o640)
    r = clitest.run(["concat", "-a", "0", "-o", "y.npy", "x_0.npy", "x_1.npy"], work,
                    preexec_fn=umask(0o022))
    check(r.returncode == 0 and mode(os.path.join(work, "y.npy")) == 0o640,
          f"concat of 0600 and 0640: {r.stderr}")
    # Run by a user who may not write a read-only copy: it is still made, with its bits.
    if hostile.setpriv_works(work):
        os.makedirs(os.path.join(work, "nobody"))
        os.chown(os.path.join(work, "nobody"), 65534, 65534)
        os.chmod(model, 0o644)
        for name in side:
            os.chmod(os.path.join(work, "st", name), 0o444)
        r = hostile.run(["st", "shard", "st", "-o", "nobody/tp", "-n", "2", "-q"] + ST_RULES,
                        work, wrap=hostile.NOBODY, preexec_fn=umask(0o022))
        check(r.returncode == 0, f"shard as nobody: {r.stderr}")
        for name in side:
            got = mode(os.path.join(work, "nobody", "tp", name))
            check(got == 0o444, f"as nobody: {name} is {got:o}, expected 444")
    else:
        hostile.skip("setpriv cannot run cleave as nobody here")


def test_unreadable(work):
    """A file cleave must read and cannot open is 66, whatever its role (a model file, an index,
    a shard it lists, a part of a split set, a rank, a folder of ranks, a sidecar, a rules file,
    config.json, a manifest, an output verify reads back, an input of --against), with its path
    in the message, nothing written and the inputs unchanged; missing files the model names (a
    shard, a part) too. Unreadable cases run cleave as nobody (root reads everything)."""
    make_models(work)
    rng = np.random.default_rng(5)
    g.write_gguf(os.path.join(work, "two.gguf"), [("general.architecture", "str", "toy")],
                 [("blk.0.w", "F32", [4, 8], g.rand_bytes(rng, 128)),
                  ("blk.1.w", "F32", [4, 8], g.rand_bytes(rng, 128))])
    np.save(os.path.join(work, "x.npy"), np.arange(8, dtype=np.int32))
    steps = [["st", "split", "st", "-o", "sharded", "--max-shard-size", "200"],
             ["st", "shard", "st", "-o", "tp", "-n", "2"] + ST_RULES,
             ["gguf", "shard", "model.gguf", "-o", "gtp", "-n", "2"] + GGUF_RULES,
             ["gguf", "split", "two.gguf", "-o", "gset", "--max-shard-size", "200"]]
    for args in steps:
        r = clitest.run(args + ["-q"], work)
        check(r.returncode == 0, f"{args}: {r.stderr}")
    os.makedirs(os.path.join(work, "fp8"))
    u.write_st(os.path.join(work, "fp8", "model.safetensors"),
               {"w": ("F8_E4M3", (4, 8), bytes(32)), "w_scale_inv": ("F32", (1, 1), bytes(4))})
    with open(os.path.join(work, "fp8", "config.json"), "w") as f:
        json.dump({"quantization_config": {"quant_method": "fp8",
                                           "weight_block_size": [128, 128]}}, f)
    with open(os.path.join(work, "rules.txt"), "w") as f:
        f.write("--tensor a.qkv -a 0 -n 2 --into x,y\n")
    part2 = "gset/two-00002-of-00002.gguf"
    check(os.path.isfile(os.path.join(work, part2)), f"no {part2}: {os.listdir(work)}")

    # Missing files the model names: 66, the role and the path in the message.
    moved = os.path.join(work, "moved")
    for path, args, fragments in (
            ("sharded/model-00002-of-00002.safetensors", ["st", "ls", "sharded"],
             ["a shard the index lists", "model-00002-of-00002.safetensors"]),
            (part2, ["gguf", "ls", "gset/two-00001-of-00002.gguf"],
             ["file 2 of its split set of 2", "two-00002-of-00002.gguf"])):
        os.rename(os.path.join(work, path), moved)
        hostile.expect_failure(f"missing {path}", args, work, 66,
                               fragments + ["No such file or directory"])
        os.rename(moved, os.path.join(work, path))

    if not hostile.setpriv_works(work):
        hostile.skip("setpriv cannot run cleave as nobody here (root and a path nobody can reach)")
        return
    os.makedirs(os.path.join(work, "out"))
    os.chown(os.path.join(work, "out"), 65534, 65534)
    folder_of_config = ["st", "shard", "st", "-o", "out/x", "-n", "2", "--preset", "auto"]
    cases = [
        ("a model file", "st/model.safetensors", ["st", "ls", "st/model.safetensors"]),
        ("a model file, format found", "st/model.safetensors", ["ls", "st/model.safetensors"]),
        ("a model folder", "st", ["ls", "st"]),
        ("a model folder (st)", "st", ["st", "shard", "st", "-o", "out/x", "-n", "2"] + ST_RULES),
        ("an index", "sharded/model.safetensors.index.json",
         ["st", "ls", "sharded/model.safetensors.index.json"]),
        ("a shard", "sharded/model-00001-of-00002.safetensors",
         ["st", "split", "sharded", "-o", "out/x", "--max-shard-size", "1G"]),
        ("a rank", "tp/rank1.safetensors", ["merge", "tp", "-o", "out/x"] + ST_RULES),
        ("a folder of ranks", "tp", ["st", "merge", "tp", "-o", "out/x"] + ST_RULES),
        ("a sidecar", "st/config.json",
         ["st", "shard", "st", "-o", "out/x", "-n", "2"] + ST_RULES),
        ("config.json of --preset auto", "st/config.json", folder_of_config),
        ("config.json of the scales", "fp8/config.json",
         ["st", "shard", "fp8", "-o", "out/x", "-n", "2", "--axis", "w=0", "--no-sidecar"]),
        ("a rules file", "rules.txt", ["st", "split", "st", "-o", "out/x", "--rules", "rules.txt"]),
        ("a GGUF model", "model.gguf", ["gguf", "ls", "model.gguf"]),
        ("a GGUF model, format found", "model.gguf", ["shard", "model.gguf", "-o", "out/x", "-n",
                                                      "2"] + GGUF_RULES),
        ("a part of a split set", part2, ["gguf", "merge", "gset/two-00001-of-00002.gguf", "-o",
                                          "out/x.gguf"]),
        ("a GGUF rank", "gtp/rank0.gguf", ["gguf", "merge", "gtp", "-o", "out/x.gguf"] +
         GGUF_RULES),
        ("a manifest", "tp/cleave-manifest.json", ["verify", "tp"]),
        ("an output verify reads", "tp/rank0.safetensors", ["st", "verify", "tp"]),
        ("a GGUF output verify reads", "gtp/rank1.gguf", ["verify", "gtp"]),
        ("an input of --against", "st/model.safetensors", ["verify", "tp", "--against", "st"]),
        ("a folder of --against", "st/", ["verify", "tp", "--against", "st"]),
        ("a .npy input", "x.npy", ["split", "-a", "0", "-n", "2", "-o", "out/x", "x.npy"]),
        ("a .npy input of concat", "x.npy", ["concat", "-a", "0", "-o", "out/y.npy", "x.npy",
                                             "x.npy"]),
    ]
    for label, path, args in cases:
        full = os.path.join(work, path)
        before = os.stat(full).st_mode
        # A file nobody may read; a folder nobody may list (but may pass through), or, written
        # with its '/', nobody may enter (--against finds its files by name).
        os.chmod(full, (0o700 if path.endswith("/") else 0o711) if os.path.isdir(full) else 0o600)
        shown = path.rstrip("/")
        hostile.expect_failure(label, args, work, 66, [f"'{shown}", "Permission denied"],
                               wrap=hostile.NOBODY)
        os.chmod(full, before)
    # A model given by its index in a folder nobody may list: its sidecars cannot be found, so
    # a command that copies them refuses (66); --no-sidecar writes without them.
    os.chmod(os.path.join(work, "sharded"), 0o711)
    index = "sharded/model.safetensors.index.json"
    hostile.expect_failure("sidecars of a folder that cannot be listed",
                           ["st", "split", index, "-o", "out/x", "--max-shard-size", "1G"], work,
                           66, ["cannot list the folder 'sharded/'", "--no-sidecar"],
                           wrap=hostile.NOBODY)
    r = hostile.run(["st", "split", index, "-o", "out/y", "--max-shard-size", "1G",
                     "--no-sidecar", "-q"], work, wrap=hostile.NOBODY)
    check(r.returncode == 0, f"--no-sidecar from a folder that cannot be listed: {r.stderr}")
    os.chmod(os.path.join(work, "sharded"), 0o755)
    # config.json that does not exist is still "not known" for the scales (65: give the block
    # size), not a file that cannot be read.
    os.remove(os.path.join(work, "fp8", "config.json"))
    hostile.expect_failure("scales without config.json", ["st", "shard", "fp8", "-o", "noconf",
                                                          "-n", "2", "--axis", "w=1"],
                           work, 65, ["whose size is not known", "--quant-block"])


def test_open_file_limits(work):
    """Commands that hold many files open raise their soft limit of open files to the hard one
    (merge of many ranks, verify --against many inputs, a split into many parts, concat of many
    inputs); when the hard limit is too low, the failure is a resource limit, 70, naming it and its
    value, not a file that cannot be opened (66), with nothing written."""
    import resource
    w = np.arange(4 * 300, dtype=np.float32).reshape(4, 300)
    u.write_st(os.path.join(work, "wide.safetensors"), {"w": u.array_tensor(w)})
    r = clitest.run(["st", "shard", "wide.safetensors", "-o", "tp", "-n", "300", "--axis", "w=1",
                     "-q"], work)
    check(r.returncode == 0, f"shard -n 300: {r.stderr}")
    g.write_gguf(os.path.join(work, "wide.gguf"), [("general.architecture", "str", "toy")],
                 [("blk.0.w", "F32", [4, 300], w.tobytes())])
    r = clitest.run(["gguf", "shard", "wide.gguf", "-o", "gtp", "-n", "300", "--axis",
                     "blk.0.w=1", "-q"], work)
    check(r.returncode == 0, f"gguf shard -n 300: {r.stderr}")
    np.save(os.path.join(work, "x.npy"), np.arange(300, dtype=np.int16))
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1024:
        pytest_skip = f"the hard limit of open files is {hard}"
        hostile.skip(pytest_skip)
        return

    def limit(soft, hard):
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    runs = [("st merge", ["st", "merge", "tp", "-o", "merged", "--axis", "w=1", "-q"]),
            ("gguf merge", ["gguf", "merge", "gtp", "-o", "merged.gguf", "--axis", "blk.0.w=1",
                            "-q"]),
            ("verify --against", ["verify", "merged", "--against", "tp", "-q"]),
            ("npy split", ["split", "-a", "0", "-n", "300", "-o", "parts/x", "x.npy"]),
            ("concat", ["concat", "-a", "0", "-o", "joined.npy"] +
             [f"parts/x_{i}.npy" for i in range(300)])]
    os.makedirs(os.path.join(work, "parts"))
    for label, args in runs:
        r = clitest.run(args, work, preexec_fn=limit(64, 1024))
        check(r.returncode == 0, f"{label} under a soft limit of 64: {r.returncode} {r.stderr}")
    check(np.array_equal(np.load(os.path.join(work, "joined.npy")), np.arange(300)),
          "concat of the 300 parts")
    # A hard limit too low: 70, the limit and its value named, nothing written.
    for label, args in [("st merge", ["st", "merge", "tp", "-o", "merged2", "--axis", "w=1"]),
                        ("gguf merge", ["gguf", "merge", "gtp", "-o", "merged2.gguf", "--axis",
                                        "blk.0.w=1"]),
                        ("st shard", ["st", "shard", "wide.safetensors", "-o", "tp2", "-n", "300",
                                      "--axis", "w=1"]),
                        ("verify --against", ["verify", "merged", "--against", "tp"]),
                        ("concat", ["concat", "-a", "0", "-o", "joined2.npy"] +
                         [f"parts/x_{i}.npy" for i in range(300)])]:
        hostile.expect_failure(f"{label} under a hard limit of 64", args, work, 70,
                               ["Too many open files", "a resource limit",
                                "may have 64 files open, its hard limit is 64"],
                               preexec_fn=limit(64, 64))


def load_manifest(path):
    with open(path) as f:
        return json.load(f)


def test_verify_proof(work):
    """verify reports an edit of any member of the manifest (65, naming self_xxh3, nothing on
    stdout), reads a manifest of version 1 with a warning, and checks that every tensor's pieces
    cover its bytes exactly once (65 naming the tensor's place and the first byte left out or
    covered twice), so that --against never calls a tensor equal to its inputs on bytes it did
    not compare."""
    make_models(work)
    r = clitest.run(["st", "shard", "st", "-o", "tp", "-n", "2", "-q"] + ST_RULES, work)
    check(r.returncode == 0, f"shard: {r.stderr}")
    r = clitest.run(["st", "merge", "tp", "-o", "merged", "-q", "--no-sidecar"] + ST_RULES, work)
    check(r.returncode == 0, f"merge: {r.stderr}")
    path = os.path.join(work, "tp", "cleave-manifest.json")
    with open(path, "rb") as f:
        good = f.read()
    r = clitest.run(["verify", "tp", "--against", "st"], work)
    check(r.returncode == 0 and r.stderr == "" and "equal to the inputs" in r.stdout,
          f"verify of an untouched manifest: {r.returncode} {r.stdout} {r.stderr}")

    def edited(label, edit, fragments, against=True, manifest=path, outdir="tp"):
        with open(manifest, "rb") as f:
            before = f.read()
        m = load_manifest(manifest)
        text = edit(m, before)
        text = text if isinstance(text, bytes) else (json.dumps(m) + "\n").encode()
        with open(manifest, "wb") as f:
            f.write(text)
        args = ["verify", outdir] + (["--against", "st"] if against else [])
        if b'"version": 1' in text[:40] and b'"self_xxh3"' not in text:
            # A manifest of version 1: its warning, then the error; nothing else changes.
            state = hostile.snapshot(work)
            r = hostile.run(args, work)
            lines = r.stderr.splitlines()
            check(r.returncode == 65 and r.stdout == "" and len(lines) == 2 and
                  "holds no checksum of itself" in lines[0] and
                  lines[1].startswith("cleave: error: ") and
                  all(f in lines[1] for f in fragments) and hostile.snapshot(work) == state,
                  f"{label}: {r.returncode} {r.stdout!r} {r.stderr!r}")
        else:
            hostile.expect_failure(label, args, work, 65, fragments)
        with open(manifest, "wb") as f:
            f.write(before)

    changed = ["st verify", "self_xxh3", "the manifest was changed after it was written"]
    # An edit of any member, its bytes otherwise as cleave wrote them.
    at = good.index(b'"xxh3": "') + len(b'"xxh3": "')
    digit = good[at:at + 1]
    flipped = b"1" if digit == b"0" else b"0"
    for member, old, new in (("tool", b'"tool": "cleave ', b'"tool": "cleavE '),
                             ("command", b'"command": "st shard"', b'"command": "st merge"'),
                             ("argv", b'"-n", "2"', b'"-n", "3"'),
                             ("inputs[].path", b'"path": "st/', b'"path": "sT/'),
                             ("a piece", b'"take": 96', b'"take": 76'),
                             ("a checksum", good[at - 9:at + 16],
                              good[at - 9:at] + flipped + good[at + 1:at + 16]),
                             ("the version, to 1", b'"version": 2', b'"version": 1'),
                             ("whitespace", b'], "hash"', b'],  "hash"')):
        check(old in good, f"{member}: {old!r} not in the manifest")
        edited(f"an edit of {member}", lambda m, raw, o=old, n=new: raw.replace(o, n, 1),
               changed + ["says", "have the checksum"])
    # The checksum missing, moved, or in upper case.
    edited("no self_xxh3", lambda m, raw: m.pop("self_xxh3") and None,
           ["self_xxh3: missing"])
    edited("self_xxh3 moved", lambda m, raw: raw.replace(b'{"manifest"', b'{"self_xxh3": "' +
                                                          raw[-19:-3] + b'", "manifest"', 1)
           [:-35] + b'}\n', changed + ["is not the manifest's last member"])
    edited("self_xxh3 in upper case", lambda m, raw: raw[:-19] + raw[-19:-3].upper() + raw[-3:],
           changed)
    edited("pretty-printed", lambda m, raw: (json.dumps(m, indent=1) + "\n").encode(),
           changed + ["is not the manifest's last member"])
    # Version 1 (an earlier build's) is read, with one warning, and its status is the outputs'.
    m = load_manifest(path)
    clitest.write_manifest(path, m, version=1)
    r = clitest.run(["verify", "tp", "--against", "st"], work)
    warnings = r.stderr.splitlines()
    check(r.returncode == 0 and len(warnings) == 1 and
          warnings[0].startswith("cleave: warning: st verify: 'tp/cleave-manifest.json' is a "
                                 "manifest of version 1, which holds no checksum of itself"),
          f"version 1: {r.returncode} {r.stderr!r}")
    r = clitest.run(["verify", "tp", "--json"], work)
    check(r.returncode == 0 and json.loads(r.stdout)["ok"] is True, f"version 1 --json: {r.stdout}")
    for version in (1, 2):
        # Pieces that do not cover the tensor exactly once: 65 naming the place and the byte,
        # in a manifest of version 1 and in one whose checksum was recomputed after the edit.
        # rank0's tensors: [0] a.qkv (one range of 96 bytes), [1] b.norm, [2] c.w (8 rows of 2
        # of the 4 bytes of each row of the model's c.w: one range of 16 bytes in the rank).
        def piece_edit(change):
            def edit(m, raw):
                change(m["files"][0]["tensors"])
                clitest.write_manifest(path, m, version)
                with open(path, "rb") as f:
                    return f.read()
            return edit

        def cut(ts):
            ts[0]["pieces"][0]["take"] -= 20
            ts[0]["pieces"][0]["stride"] -= 20
            ts[0]["pieces"][0]["to_stride"] -= 20

        def row(ts):
            ts[2]["pieces"][0]["rows"] -= 1

        def twice(ts):
            ts[1]["pieces"].append(dict(ts[1]["pieces"][0]))

        def overlap(ts):
            p = ts[2]["pieces"][0]
            p.update(rows=2, take=8, to_stride=6, stride=8)
            ts[2]["pieces"].append({"input": 0, "offset": 0, "rows": 1, "take": 2, "stride": 2,
                                    "to": 14, "to_stride": 2})

        def late(ts):
            p = ts[2]["pieces"][0]
            p.update(rows=7, offset=p["offset"] + p["stride"], to=p["to"] + p["to_stride"])

        where = "st verify: tp/cleave-manifest.json: "
        for label, change, fragments in (
                ("a piece cut by 20 bytes", cut,
                 [where + "files[0].tensors[0]: tensor 'a.qkv': bytes 76:96 of the tensor (in "
                  "row 2 of 3) are in no piece (the manifest does not say where they came "
                  "from, and --against would not compare them)"]),
                ("a piece cut by one row", row,
                 [where + "files[0].tensors[2]: tensor 'c.w': rows 7:8 of 8 are in no piece"]),
                ("a piece a row late", late,
                 [where + "files[0].tensors[2]: tensor 'c.w': rows 0:1 of 8 are in no piece"]),
                ("a piece given twice", twice,
                 [where + "files[0].tensors[1]: tensor 'b.norm': elements 0:8 of 8 are in two "
                  "pieces, pieces[0] and pieces[1] (each byte comes from one)"]),
                ("rows that overlap", overlap,
                 [where + "files[0].tensors[2].pieces[0]: tensor 'c.w': the piece's rows overlap "
                  "each other (8 bytes each, 6 apart in the tensor)"])):
            for against in (True, False):
                edited(f"version {version}: {label} (--against {against})", piece_edit(change),
                       fragments, against=against)
    # Columns of the same rows (a merge along an inner axis): one column moved by a byte.
    mpath = os.path.join(work, "merged", "cleave-manifest.json")
    m = load_manifest(mpath)
    cw = [t for t in m["files"][0]["tensors"] if t["name"] == "c.w"][0]
    index = m["files"][0]["tensors"].index(cw)
    check([p["to"] for p in cw["pieces"]] == [0, 2] and cw["pieces"][0]["rows"] == 8,
          f"merged c.w pieces: {cw['pieces']}")

    def shift(m, raw):
        t = m["files"][0]["tensors"][index]
        t["pieces"][1]["to"] = 1
        clitest.write_manifest(mpath, m)
        with open(mpath, "rb") as f:
            return f.read()
    edited("merged columns that overlap", shift,
           [f"st verify: merged/cleave-manifest.json: files[0].tensors[{index}]: tensor 'c.w': "
            "byte 1 of the tensor (in row 0 of 8) is in two pieces, pieces[0] and pieces[1]"],
           manifest=mpath, outdir="merged")
    with open(path, "wb") as f:
        f.write(good)
    r = clitest.run(["verify", "tp", "--against", "st"], work)
    check(r.returncode == 0 and r.stderr == "", f"the manifest restored: {r.stderr}")
    # GGUF, and the manifest of a merge into one file among others.
    r = clitest.run(["shard", "model.gguf", "-o", "gtp", "-n", "2", "-q"] + GGUF_RULES, work)
    check(r.returncode == 0, f"gguf shard: {r.stderr}")
    r = clitest.run(["merge", "gtp", "-o", "one.gguf", "-q"] + GGUF_RULES, work)
    check(r.returncode == 0, f"gguf merge: {r.stderr}")
    gpath = os.path.join(work, "one.gguf.cleave-manifest.json")
    edited("an edit of a GGUF merge's manifest",
           lambda m, raw: raw.replace(b'"command": "gguf merge"', b'"command": "gguf mergE"'),
           ["gguf verify", "one.gguf.cleave-manifest.json: self_xxh3"], manifest=gpath,
           outdir="one.gguf", against=False)
    # A GGUF rank's piece cut by one row (8 F32 of the model's 4 x 8, cut on axis 0).
    tpath = os.path.join(work, "gtp", "cleave-manifest.json")

    def gguf_row(m, raw):
        t = m["files"][0]["tensors"][0]
        check(t["name"] == "blk.0.w" and t["shape"] == [2, 8] and len(t["pieces"]) == 1,
              f"gguf rank 0: {t}")
        p = t["pieces"][0]
        if p["rows"] == 1:
            p.update(take=p["take"] - 32)
        else:
            p.update(rows=p["rows"] - 1)
        clitest.write_manifest(tpath, m)
        with open(tpath, "rb") as f:
            return f.read()
    edited("a GGUF piece cut by one row", gguf_row,
           ["gguf verify: gtp/cleave-manifest.json: files[0].tensors[0]: tensor 'blk.0.w': rows "
            "1:2 of 2 are in no piece"], manifest=tpath, outdir="gtp", against=False)
