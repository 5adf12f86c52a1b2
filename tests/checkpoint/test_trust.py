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
