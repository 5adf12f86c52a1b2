#!/usr/bin/python3
"""The checkpoint verbs written once over the formats' drivers: `cleave ls|check|shard|merge|
reshard|verify` find the format of a safetensors or a GGUF model by themselves and give, byte for
byte, what `cleave st VERB` and `cleave gguf VERB` give (stdout, status, every output file; the
manifests but for the command line they record); the options of one format are refused for the
other; one size syntax in both formats."""
import json
import os
import shutil

import numpy as np

import clitest
import gguf_util as g
import st_util as u
from clitest import check

ST_RULES = ["--axis", "a.qkv=0", "--axis", "c.w=1"]
GGUF_RULES = ["--axis", "blk.0.w=0", "--axis", "blk.0.q8=0"]


def make_models(work):
    """st/ (a safetensors folder with a sidecar) and model.gguf, in `work`."""
    rng = np.random.default_rng(7)
    os.makedirs(os.path.join(work, "st"))
    u.small_model(os.path.join(work, "st"), rng)
    with open(os.path.join(work, "st", "config.json"), "w") as f:
        f.write('{"model_type": "toy"}\n')
    w = rng.standard_normal((4, 8)).astype(np.float32)
    q8 = g.rand_bytes(rng, 4 * 2 * 34)
    g.write_gguf(os.path.join(work, "model.gguf"),
                 [("general.architecture", "str", "toy"), ("toy.block_count", "u32", 1)],
                 [("blk.0.w", "F32", [4, 8], w.tobytes()), ("blk.0.q8", "Q8_0", [4, 64], q8)])


def copies(work, name):
    """Two copies of the models, `name`-a and `name`-b, where the two spellings run."""
    dirs = []
    for side in ("a", "b"):
        d = os.path.join(work, f"{name}-{side}")
        os.makedirs(d)
        shutil.copytree(os.path.join(work, "st"), os.path.join(d, "st"))
        shutil.copy(os.path.join(work, "model.gguf"), d)
        dirs.append(d)
    return dirs


def tree(root):
    """Every file under `root` with its bytes; a manifest without the command line it records
    (nor its checksum of itself, which covers the command line)."""
    files = {}
    for top, _, names in os.walk(root):
        for n in names:
            path = os.path.join(top, n)
            with open(path, "rb") as f:
                data = f.read()
            if n.endswith("cleave-manifest.json"):
                m = json.loads(data)
                m.pop("argv", None)
                m.pop("self_xxh3", None)
                data = json.dumps(m, sort_keys=True).encode()
            files[os.path.relpath(path, root)] = data
    return files


def same(work, label, detected, pinned):
    """Runs `cleave DETECTED...` in one copy and `cleave PINNED...` in the other: the same status,
    stdout, stderr and files."""
    a, b = copies(work, label.replace(" ", "_"))
    ra = clitest.run(detected, a)
    rb = clitest.run(pinned, b)
    check(ra.returncode == rb.returncode and ra.stdout == rb.stdout and ra.stderr == rb.stderr,
          f"{label}: {detected} gave {ra.returncode} {ra.stdout[:200]!r} {ra.stderr[:200]!r}; "
          f"{pinned} gave {rb.returncode} {rb.stdout[:200]!r} {rb.stderr[:200]!r}")
    ta, tb = tree(a), tree(b)
    check(ta == tb, f"{label}: the files differ: "
          f"{sorted(k for k in set(ta) | set(tb) if ta.get(k) != tb.get(k))}")
    return ra


def test_outputs(work):
    make_models(work)
    cases = [
        ("ls st", ["ls", "st"], ["st", "ls", "st"]),
        ("ls st json", ["ls", "--json", "--glob", "a.*", "st/model.safetensors"],
         ["st", "ls", "--json", "--glob", "a.*", "st/model.safetensors"]),
        ("check st", ["check", "st"], ["st", "check", "st"]),
        ("check st json", ["check", "--json", "st"], ["st", "check", "--json", "st"]),
        ("check st strict", ["check", "--strict", "st"], ["st", "check", "--strict", "st"]),
        ("ls gguf", ["ls", "model.gguf"], ["gguf", "ls", "model.gguf"]),
        ("ls gguf metadata", ["ls", "--metadata", "--json", "model.gguf"],
         ["gguf", "ls", "--metadata", "--json", "model.gguf"]),
        ("check gguf", ["check", "--json", "model.gguf"], ["gguf", "check", "--json", "model.gguf"]),
        ("shard st", ["shard", "st", "-o", "tp", "-n", "2"] + ST_RULES,
         ["st", "shard", "st", "-o", "tp", "-n", "2"] + ST_RULES),
        ("shard st dry", ["shard", "st", "-o", "tp", "-n", "2", "--dry-run", "--json"] + ST_RULES,
         ["st", "shard", "st", "-o", "tp", "-n", "2", "--dry-run", "--json"] + ST_RULES),
        ("shard gguf", ["shard", "model.gguf", "-o", "tp", "-n", "2", "--json"] + GGUF_RULES,
         ["gguf", "shard", "model.gguf", "-o", "tp", "-n", "2", "--json"] + GGUF_RULES),
        ("shard st refused", ["shard", "st", "-o", "tp", "-n", "3"] + ST_RULES,
         ["st", "shard", "st", "-o", "tp", "-n", "3"] + ST_RULES),
    ]
    for label, detected, pinned in cases:
        same(work, label, detected, pinned)
    # The rank commands on ranks the pinned spelling wrote, and verify of what they wrote.
    for fmt, model, rules, merged in (("st", "st", ST_RULES, "m"),
                                      ("gguf", "model.gguf", GGUF_RULES, "m/model.gguf")):
        for label, detected, pinned in [
            ("merge", ["merge", "tp", "-o", merged] + rules, [fmt, "merge", "tp", "-o", merged] +
             rules),
            ("merge sized", ["merge", "tp", "-o", merged, "--max-shard-size", "150"] + rules,
             [fmt, "merge", "tp", "-o", merged, "--max-shard-size", "150"] + rules),
            ("reshard", ["reshard", "tp", "-o", "tp1", "-n", "1", "--json"] + rules,
             [fmt, "reshard", "tp", "-o", "tp1", "-n", "1", "--json"] + rules),
            ("verify", ["verify", "tp", "--against", model],
             [fmt, "verify", "tp", "--against", model]),
            ("verify json", ["verify", "tp", "--json"], [fmt, "verify", "tp", "--json"]),
        ]:
            a, b = copies(work, f"{fmt}_{label.replace(' ', '_')}")
            for d in (a, b):
                r = clitest.run([fmt, "shard", model, "-o", "tp", "-n", "2"] + rules, d)
                check(r.returncode == 0, f"{fmt} {label}: shard: {r.stderr}")
            ra, rb = clitest.run(detected, a), clitest.run(pinned, b)
            check(ra.returncode == 0 and (ra.returncode, ra.stdout, ra.stderr) ==
                  (rb.returncode, rb.stdout, rb.stderr),
                  f"{fmt} {label}: {ra.returncode} {ra.stdout[:300]!r} {ra.stderr[:300]!r} / "
                  f"{rb.returncode} {rb.stdout[:300]!r} {rb.stderr[:300]!r}")
            check(tree(a) == tree(b), f"{fmt} {label}: the files differ")
            if label == "verify json":
                check(json.loads(ra.stdout)["command"] == f"{fmt} verify",
                      f"{fmt} {label}: {ra.stdout[:100]!r}")


def test_refusals(work):
    make_models(work)
    cases = [
        ("a safetensors option for GGUF", ["shard", "model.gguf", "-o", "tp", "-n", "2",
                                           "--preset", "llama"] + GGUF_RULES, 64,
         ["gguf shard: --preset belongs to 'st shard', not to GGUF models"]),
        ("a GGUF option for safetensors", ["ls", "--metadata", "st"], 64,
         ["st ls: --metadata belongs to 'gguf ls'"]),
        ("--strict of st check for GGUF", ["check", "--strict", "model.gguf"], 64,
         ["--strict belongs to 'st check'"]),
        ("pinned: --metadata", ["st", "ls", "--metadata", "st"], 64,
         ["st ls: --metadata belongs to 'gguf ls', not to 'st ls'"]),
        ("pinned: --preset", ["gguf", "shard", "model.gguf", "-o", "x", "-n", "2", "--preset",
                              "llama"], 64, ["gguf shard: --preset belongs to 'st shard'"]),
        ("neither format", ["ls", "st/config.json"], 65,
         ["ls: 'st/config.json' is not a model cleave reads", "'cleave st ls' and 'cleave gguf ls'"]),
        ("nothing there", ["check", "none.gguf"], 66, ["check: cannot open 'none.gguf'"]),
        ("no model", ["shard", "-o", "x", "-n", "2", "--axis", "a=0"], 64,
         ["shard: the MODEL is missing"]),
        ("no ranks", ["merge", "-o", "x", "--axis", "a=0"], 64,
         ["merge: the RANK checkpoints are missing"]),
        ("no OUTDIR", ["verify"], 64, ["verify: the OUTDIR"]),
        ("unknown option", ["ls", "--bogus", "st"], 64,
         ["ls: unknown option '--bogus' (see 'cleave ls --help')"]),
        ("split option for shard", ["shard", "st", "-o", "x", "-n", "2", "--tensor", "a"], 64,
         ["shard: --tensor belongs to 'gguf split' and 'st split'"]),
        ("a folder for a GGUF model", ["gguf", "ls", "st"], 66,
         ["'st' is a folder: a GGUF model is a .gguf file"]),
        ("both formats in one folder", ["check", "both"], 64,
         ["check: 'both' holds both GGUF and safetensors files: name the format"]),
    ]
    os.makedirs(os.path.join(work, "both"))
    shutil.copy(os.path.join(work, "model.gguf"), os.path.join(work, "both"))
    shutil.copy(os.path.join(work, "st", "model.safetensors"), os.path.join(work, "both"))
    for label, args, status, fragments in cases:
        clitest.expect_failure(label, args, work, status, fragments)
    # `cleave split` stays the .npy operator.
    r = clitest.run(["split", "--help"], work)
    check(r.returncode == 0 and r.stdout.startswith("usage: cleave split -a AXIS"),
          f"split --help: {r.stdout[:80]!r}")


def test_sizes(work):
    """One size syntax: K = KB (powers of 1000), KiB (of 1024), decimals, in both formats."""
    make_models(work)
    spellings = {"100": ["100", "0.1K", "0.1kb", "100B"], "1024": ["1KiB", "1kib", "1024"],
                 "150": ["0.15KB", "150", "0.00015M"]}
    for fmt, model, outdir in (("st", "st", "out"), ("gguf", "model.gguf", "out")):
        for canonical, variants in spellings.items():
            base = os.path.join(work, f"{fmt}_{canonical}")
            os.makedirs(base)
            shutil.copytree(os.path.join(work, "st"), os.path.join(base, "st"))
            shutil.copy(os.path.join(work, "model.gguf"), base)
            r = clitest.run([fmt, "split", model, "-o", outdir, "--max-shard-size", canonical], base)
            check(r.returncode == 0, f"{fmt} --max-shard-size {canonical}: {r.stderr}")
            expected = r.stdout
            for v in variants:
                r = clitest.run([fmt, "split", model, "-o", outdir, "-f", "--max-shard-size", v],
                                base)
                check(r.returncode == 0 and r.stdout == expected,
                      f"{fmt} --max-shard-size {v} differs from {canonical}: {r.stdout!r} "
                      f"{r.stderr!r}")
        for bad in ("5Q", "0", "1 KB", "K", "1e3", "-1"):
            clitest.expect_failure(f"{fmt} size {bad!r}", [fmt, "split", model, "-o", "bad",
                                                          "--max-shard-size", bad], work, 64,
                                   [f"--max-shard-size '{bad}' is not a size"])


def test_help_texts(work):
    for verb in ("ls", "check", "shard", "merge", "reshard", "verify"):
        r = clitest.run([verb, "--help"], work)
        check(r.returncode == 0 and r.stdout.startswith(f"usage: cleave {verb} "),
              f"{verb} --help: {r.stdout[:80]!r}")
        check(clitest.run(["help", verb], work).stdout == r.stdout, f"help {verb}")
        for word in ("st", "gguf"):
            p = clitest.run([word, verb, "--help"], work)
            check(p.returncode == 0 and p.stdout.startswith(f"usage: cleave {word} {verb} "),
                  f"{word} {verb} --help: {p.stdout[:80]!r}")
    r = clitest.run(["shard", "--help"], work)
    check("safetensors models (cleave st ...):" in r.stdout and
          "GGUF models (cleave gguf ...):" in r.stdout and "--preset NAME|auto" in r.stdout,
          "shard --help: both formats' paragraphs and options")
    r = clitest.run(["gguf", "shard", "--help"], work)
    check("--preset" not in r.stdout and "--no-sidecar" not in r.stdout,
          "gguf shard --help lists no safetensors option")
    # What only one format says is printed for that format's spelling, and for the one without.
    st, gg, both = (clitest.run(args + ["ls", "--help"], work).stdout
                    for args in (["st"], ["gguf"], []))
    check('"offset"' not in st and '"offset"' in gg and '"offset"' in both,
          "ls --help: GGUF's offsets for gguf ls and ls only")
    st, gg = (clitest.run([w, "merge", "--help"], work).stdout for w in ("st", "gguf"))
    check("OUT.gguf" not in st and "-o OUT.gguf" in gg, "merge --help: where -o goes")
    r = clitest.run(["--help"], work)
    for verb in ("ls", "check", "shard", "merge", "reshard", "verify"):
        check(f"\n  {verb} " in r.stdout, f"--help does not list {verb}")
