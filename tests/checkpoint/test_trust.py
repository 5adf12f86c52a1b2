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
