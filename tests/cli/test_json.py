#!/usr/bin/python3
"""--json across the command families (docs/cli.md, "JSON output"): one object on one line; a
value that is known is a JSON number, a static shape an array of integers; only a partial shape
or an interval stays text. The operator commands keep "shape" as text (the contract) and add
"dims". Errors are never JSON: nothing on stdout, the message on stderr."""
import json
import os
import re

import numpy as np

import clitest
from clitest import check

SOURCE = os.environ.get("CLEAVE_SOURCE_DIR", "")
STATIC = re.compile(r"\[(-?\d+(,-?\d+)*)?\]|-?\d+")
# Members whose strings are names or text by nature (a name may look like a number).
NAMES = {"op", "command", "path", "file", "model", "name", "source", "source_file", "dtype",
         "element_type", "type", "status", "reason", "unknown_from", "kind", "error", "key"}


def static_list(text):
    inner = text[1:-1]
    return [int(v) for v in inner.split(",")] if inner else []


def audit(label, value, key=None, parent=None):
    """Walks a report: a string that holds a static value is a fault, except a contract "shape"
    or "element", which must then have its integers beside it ("dims", "element_dims")."""
    if isinstance(value, dict):
        for k, v in value.items():
            audit(label, v, k, value)
    elif isinstance(value, list):
        for v in value:
            audit(label, v, key, parent)
    elif isinstance(value, str) and key not in NAMES and STATIC.fullmatch(value):
        twin = {"shape": "dims", "element": "element_dims"}.get(key)
        if twin is not None and isinstance(parent, dict) and value.startswith("["):
            check(parent.get(twin) == static_list(value),
                  f"{label}: {key} {value!r} without {twin} (got {parent.get(twin)!r})")
        else:
            check(False, f"{label}: {key} holds the static value {value!r} as text")
    elif isinstance(value, float):
        check(False, f"{label}: {key} is the float {value!r}")


def run_json(label, args, cwd, status=0):
    r = clitest.run(args + ["--json"], cwd)
    check(r.returncode == status, f"{label}: status {r.returncode}: {r.stderr.strip()}")
    check(r.stdout.count("\n") == 1 and r.stdout.endswith("}\n"), f"{label}: {r.stdout!r}")
    try:
        obj = json.loads(r.stdout)
    except ValueError:
        check(False, f"{label}: not JSON: {r.stdout!r}")
        return None
    audit(label, obj)
    return obj


def test_json():
    work = clitest.workdir("json")
    np.save(os.path.join(work, "x.npy"), np.arange(72, dtype=np.float32).reshape(6, 12))
    np.save(os.path.join(work, "p.npy"), np.arange(12, dtype=np.uint8))

    # The operator commands, ir-run: "shape" text, "dims" integers, for every output.
    for args in (["split", "-a", "1", "-n", "3"], ["variadic-split", "-a", "0", "-l", "1,-1,2"],
                 ["split-to-sequence", "-a", "1", "-s", "5"],
                 ["onnx-split", "--opset", "18", "-n", "4"]):
        obj = run_json(args[0], args + ["x.npy", "-f"], work)
        if obj is not None:
            check(obj["op"] == args[0] and all(isinstance(o["dims"], list) and
                                                o["shape"] == "[%s]" % ",".join(map(str, o["dims"]))
                                                for o in obj["outputs"]), f"{args[0]}: {obj}")
    obj = run_json("packed", ["split", "-a", "1", "-n", "2", "--dtype", "u4", "--shape", "[4,6]",
                              "p.npy"], work)
    if obj is not None:
        check([o["dims"] for o in obj["outputs"]] == [[4, 3], [4, 3]], f"packed: {obj}")
    obj = run_json("scalar parts", ["split-to-sequence", "-k", "0", "-a", "0", "x.npy", "-f"],
                   work)
    if obj is not None:
        check(obj["outputs"][0]["dims"] == [12] and len(obj["outputs"]) == 6,
              f"scalar parts: {obj}")

    # infer: static, partial (text only), a varying count of static and of partial elements.
    obj = run_json("infer static", ["infer", "split", "-a", "1", "-n", "2", "--shape", "[2,6]"],
                   work)
    if obj is not None:
        check(obj["outputs"] == [{"shape": "[2,3]", "dims": [2, 3]}] * 2, f"infer: {obj}")
    obj = run_json("infer partial", ["infer", "split", "-a", "0", "-n", "2", "--shape",
                                     "[?,6]"], work)
    if obj is not None:
        check(obj["outputs"] == [{"shape": "[?,6]"}] * 2, f"infer partial: {obj}")
    obj = run_json("infer count", ["infer", "split-to-sequence", "-a", "1", "--shape",
                                   "[3,3..6]"], work)
    if obj is not None:
        check(obj == {"op": "split-to-sequence", "count": "3..6", "element": "[3,1]",
                      "element_dims": [3, 1]}, f"infer count: {obj}")

    # The OpenVINO family (in builds with it).
    model = os.path.join(SOURCE, "docs", "examples", "variadic-split-1.xml")
    probe = clitest.run(["ir-check", model], work)
    if "no OpenVINO IR support" not in probe.stderr:
        obj = run_json("ir-check", ["ir-check", model], work)
        if obj is not None:
            row = obj["layers"][0]
            check(obj["version"] == 11 and row["data"] == [6, 12, 10, 24] and row["axis"] == 0 and
                  row["lengths"] == [1, 2, 3] and row["declared"][2] == [3, 12, 10, 24],
                  f"ir-check: {obj}")
        data = np.zeros((6, 12, 10, 24), np.float32)
        np.save(os.path.join(work, "d.npy"), data)
        obj = run_json("ir-run", ["ir-run", model, "-i", "data=d.npy", "-o", "r", "-f"], work)
        if obj is not None:
            check([o["dims"] for o in obj["outputs"]] ==
                  [[1, 12, 10, 24], [2, 12, 10, 24], [3, 12, 10, 24]], f"ir-run: {obj}")

    # Checkpoints (in builds with them).
    tiny = os.path.join(SOURCE, "tests", "safetensors", "data", "tiny.safetensors")
    probe = clitest.run(["st", "check", tiny], work)
    if "no safetensors support" not in probe.stderr:
        obj = run_json("st ls", ["st", "ls", tiny], work)
        if obj is not None:
            check({t["name"]: t["shape"] for t in obj["tensors"]}["layer.qkv"] == [6, 4],
                  f"st ls: {obj}")
        obj = run_json("st check", ["st", "check", tiny], work)
        if obj is not None:
            check(obj["tensors"] == 4 and obj["bytes"] == 130, f"st check: {obj}")
        for args in (["split", tiny, "-o", "s", "--tensor", "layer.qkv", "-a", "0", "-n", "3",
                      "--into", "q,k,v"],
                     ["shard", tiny, "-o", "t", "-n", "2", "--axis", "layer.qkv=0"]):
            for extra in (["--dry-run"], ["-f"]):
                obj = run_json("st " + args[0], ["st"] + args + extra, work)
                if obj is not None:
                    check(all(isinstance(o.get("bytes", 0), int) for o in obj["outputs"]),
                          f"st {args[0]}: {obj}")

    # GGUF files (in builds with them): metadata values of every kind as JSON values.
    gguf = os.path.join(SOURCE, "tests", "gguf", "data", "tiny.gguf")
    gguf_probe = clitest.run(["gguf", "check", gguf], work)
    has_gguf = gguf_probe.returncode == 0
    if has_gguf:
        obj = run_json("gguf ls", ["gguf", "ls", "--metadata", gguf], work)
        if obj is not None:
            meta = {m["key"]: m["value"] for m in obj["metadata"]}
            check(meta["llama.rope.freq_base"] == 10000 and meta["llama.block_count"] == 1 and
                  {t["name"]: t["shape"] for t in obj["tensors"]}["blk.0.qkv"] == [6, 4],
                  f"gguf ls: {obj}")
        obj = run_json("gguf check", ["gguf", "check", gguf], work)
        if obj is not None:
            check(obj["tensors"] == 4 and obj["version"] == 3, f"gguf check: {obj}")
        for args in (["split", gguf, "-o", "gs", "--tensor", "blk.0.qkv", "-a", "0", "-n", "3",
                      "--into", "q,k,v"],
                     ["shard", gguf, "-o", "gt", "-n", "2", "--axis", "blk.0.qkv=0"]):
            for extra in (["--dry-run"], ["-f"]):
                run_json("gguf " + args[0], ["gguf"] + args + extra, work)
        run_json("gguf split set", ["gguf", "split", gguf, "-o", "gset", "--max-shard-size",
                                    "600", "-f"], work)
        run_json("gguf merge", ["gguf", "merge", "gset/tiny-00001-of-00003.gguf", "-o",
                                "merged.gguf", "-f"], work)

    # Errors are never JSON: status, the message on stderr, nothing on stdout.
    with open(os.path.join(work, "bad.safetensors"), "wb") as f:
        f.write(b"x")
    cases = [(["split", "-a", "1", "-n", "5", "x.npy"], 65, "not divisible"),
             (["split", "-a", "1", "-n", "3", "missing.npy"], 66, "cannot open"),
             (["infer", "split", "-a", "0", "-n", "4", "--shape", "[6]"], 65, "not divisible"),
             (["split", "-a", "1", "x.npy"], 64, "-n/--num-splits is required")]
    if "no safetensors support" not in probe.stderr:
        cases += [(["st", "check", "bad.safetensors"], 65, "header size"),
                  (["st", "ls", tiny, "--glob", "nothing*"], 65, "matches 'nothing*'"),
                  (["st", "split", tiny, "-o", "s2", "--tensor", "layer.qkv", "-a", "0", "-n",
                    "5", "--into", "a,b,c,d,e"], 65, "not divisible")]
    if has_gguf:
        cases += [(["gguf", "check", "bad.safetensors"], 65, "bad.safetensors"),
                  (["gguf", "ls", gguf, "--glob", "nothing*"], 65, "matches 'nothing*'")]
    for args, status, fragment in cases:
        clitest.expect_failure("error " + " ".join(args), args + ["--json"], work, status,
                               [fragment])
