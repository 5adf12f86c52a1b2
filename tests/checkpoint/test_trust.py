"""Nothing silent (issue 33): command lines that would give a wrong model, or lose one, with exit
status 0 are refused, naming what is wrong, with nothing written and the inputs unchanged.

Outputs never land among the inputs: an output folder that is the model's folder, holds one of its
files, or lies in a folder of ranks being read is 64, with or without -f; a merge into one file
writes its manifest beside the file, named after it, never over another run's."""
import json
import os
import shutil

import numpy as np

import clitest
import gguf_util as g
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
