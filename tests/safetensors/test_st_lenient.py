#!/usr/bin/python3
"""What the reference reader accepts and leaves the data intact: whitespace before the header's
'{', NUL or other whitespace as padding, unknown fields in a tensor entry, a wrong
metadata.total_size in an index. Every `st` command warns on stderr (the file, the byte offset,
what) and works, writing canonical, correct outputs; `st check --strict` refuses them (65)."""
import json
import os
import struct

import numpy as np

import st_util as u
from clitest import check

W = np.arange(24, dtype="<f4").reshape(6, 4)
B = np.arange(4, dtype="<i2")
TAIL = ("(accepted: the data is intact; 'cleave st check --strict' refuses it)")


def entry(name, dtype, shape, begin, end, extra=""):
    return (f'"{name}":{{"dtype":"{dtype}","shape":{json.dumps(list(shape))},'
            f'"data_offsets":[{begin},{end}]{extra}}}')


def write_raw(path, header, data):
    if isinstance(header, str):
        header = header.encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + data)


def departing_files(work):
    """name -> (header, data, expected warning fragments), each a valid file of W and B with one
    kind of departure."""
    data = W.tobytes() + B.tobytes()
    body = entry("w", "F32", W.shape, 0, 96) + "," + entry("b", "I16", B.shape, 96, 104)
    plain = "{" + body + "}"
    extra = ',"align":64,"note":{"by":["a",1.5e3,true,null]}'
    unknown = "{" + entry("w", "F32", W.shape, 0, 96, extra) + "," + \
        entry("b", "I16", B.shape, 96, 104, ',"align":2') + "}"
    align = 8 + unknown.index('"align"')
    return {
        "leading": ("  \n" + plain, data, ["byte 8: 3 bytes of whitespace before the header's '{'"]),
        "nul": (plain + "\0" * 5, data,
                [f"byte {8 + len(plain)}: the header is padded with NUL bytes after its '}}', not "
                 "with spaces"]),
        "newline": (plain + "\n\t ", data,
                    [f"byte {8 + len(plain)}: the header is padded with tabs or line breaks after "
                     "its '}', not with spaces"]),
        "mixed": (plain + " \0\n", data,
                  [f"byte {8 + len(plain)}: the header is padded with NUL bytes and whitespace"]),
        "unknown": (unknown, data,
                    [f"byte {align}: tensor 'w': unknown field 'align' "
                     "ignored (the fields are dtype, shape and data_offsets; 3 unknown fields in "
                     "this header in all)"]),
    }


def expect_ok(label, args, work, warnings):
    r = u.run(args, work)
    check(r.returncode == 0, f"{label}: status {r.returncode}: {r.stderr.strip()}")
    lines = r.stderr.splitlines()
    check(len(lines) == len(warnings) and
          all(line.startswith("cleave: warning: ") and line.endswith(TAIL) for line in lines),
          f"{label}: stderr {r.stderr!r}, expected {len(warnings)} warnings")
    for fragment in warnings:
        check(fragment in r.stderr, f"{label}: '{fragment}' not in {r.stderr!r}")
    return r


def test_files(work):
    for name, (header, data, fragments) in departing_files(work).items():
        path = f"{name}.safetensors"
        write_raw(os.path.join(work, path), header, data)
        warn = [f"{path}: {f}" for f in fragments]
        r = expect_ok(f"{name}: check", ["st", "check", path], work, warn)
        check(r.stdout == f"{path}: ok: 1 file, 2 tensors, 104 bytes of data; 1 departure from "
              "the canonical form accepted (the warnings above; --strict refuses them)\n",
              f"{name}: check stdout {r.stdout!r}")
        r = expect_ok(f"{name}: check --json", ["st", "check", "--json", path], work, warn)
        check(json.loads(r.stdout) == {"ok": True, "files": 1, "tensors": 2, "bytes": 104,
                                       "warnings": 1}, f"{name}: check --json {r.stdout!r}")
        r = expect_ok(f"{name}: ls", ["st", "ls", path], work, warn)
        check(r.stdout == f"b\tI16\t[4]\t8\t{path}\nw\tF32\t[6,4]\t96\t{path}\n",
              f"{name}: ls {r.stdout!r}")
        # --strict: 65, the same text, nothing on stdout.
        u.expect_failure(f"{name}: check --strict", ["st", "check", "--strict", path], work, 65,
                         [f"cleave: error: st check: {warn[0]}", "--strict refuses"])
        # split and shard work, and write canonical files with the right bytes.
        out = f"out_{name}"
        expect_ok(f"{name}: split", ["st", "split", path, "-o", out, "--tensor", "w", "-a", "0",
                                     "-n", "2", "--into", "w0,w1"], work, warn)
        _, got = u.read_st(os.path.join(work, out, path))
        check(sorted(got) == ["b", "w0", "w1"] and
              np.array_equal(u.as_array(got["w0"]), W[:3]) and
              np.array_equal(u.as_array(got["w1"]), W[3:]) and
              np.array_equal(u.as_array(got["b"]), B), f"{name}: split outputs {sorted(got)}")
        expect_ok(f"{name}: shard", ["st", "shard", path, "-o", "tp_" + name, "-n", "2", "--axis",
                                     "w=1"], work, warn)
        for rank in range(2):
            _, got = u.read_st(os.path.join(work, "tp_" + name, f"rank{rank}.safetensors"))
            check(np.array_equal(u.as_array(got["w"]), W[:, 2 * rank:2 * rank + 2]) and
                  np.array_equal(u.as_array(got["b"]), B), f"{name}: rank {rank}")


def test_index(work):
    """A wrong total_size: warned, and the output index holds the right one."""
    u.write_st(os.path.join(work, "m-1.safetensors"), {"w": u.array_tensor(W)})
    u.write_st(os.path.join(work, "m-2.safetensors"), {"b": u.array_tensor(B)})
    index = {"metadata": {"total_size": 7, "format": "pt"},
             "weight_map": {"w": "m-1.safetensors", "b": "m-2.safetensors"}}
    name = "m.safetensors.index.json"
    with open(os.path.join(work, name), "w") as f:
        json.dump(index, f, indent=2)
    with open(os.path.join(work, name)) as f:
        at = f.read().index('"total_size"')
    warn = [f"{name}: byte {at}: metadata.total_size is 7 but the shards' tensors hold 104 "
            "bytes (an output index gets the right total)"]
    r = expect_ok("total_size: check", ["st", "check", name], work, warn)
    check("ok: 2 files, 2 tensors, 104 bytes of data; 1 departure" in r.stdout,
          f"total_size: {r.stdout!r}")
    expect_ok("total_size: folder", ["st", "ls", "."], work, warn)
    u.expect_failure("total_size: --strict", ["st", "check", "--strict", "."], work, 65,
                     [warn[0]])
    expect_ok("total_size: split", ["st", "split", ".", "-o", "out", "--tensor", "w", "-a", "1",
                                     "-l", "1,3", "--into", "w0,w1"], work, warn)
    with open(os.path.join(work, "out", name)) as f:
        written = json.load(f)
    check(written["metadata"] == {"format": "pt", "total_size": 104} and
          written["weight_map"] == {"b": "m-2.safetensors", "w0": "m-1.safetensors",
                                    "w1": "m-1.safetensors"}, f"output index: {written}")
    _, got = u.read_st(os.path.join(work, "out", "m-1.safetensors"))
    check(np.array_equal(u.as_array(got["w1"]), W[:, 1:]), "total_size: split data")
    r = expect_ok("total_size: re-check", ["st", "check", "--strict", "out"], work, [])


def test_several(work):
    """Departures in a shard and in the index: one warning for each, in the order read; the
    first one refused by --strict."""
    u.write_st(os.path.join(work, "m-1.safetensors"), {"w": u.array_tensor(W)})
    header = " {" + entry("b", "I16", B.shape, 0, 8, ',"x":0') + "}\0"
    write_raw(os.path.join(work, "m-2.safetensors"), header, B.tobytes())
    name = "m.safetensors.index.json"
    with open(os.path.join(work, name), "w") as f:
        json.dump({"metadata": {"total_size": 1},
                   "weight_map": {"w": "m-1.safetensors", "b": "m-2.safetensors"}}, f)
    with open(os.path.join(work, name)) as f:
        at = f.read().index('"total_size"')
    fragments = ["m-2.safetensors: byte 8: 1 byte of whitespace before the header's '{'",
                 f"m-2.safetensors: byte {8 + header.index(chr(0))}: the header is padded with "
                 "NUL bytes",
                 f"m-2.safetensors: byte {8 + header.index(chr(34) + 'x')}: tensor 'b': unknown "
                 "field 'x' ignored",
                 f"{name}: byte {at}: metadata.total_size is 1"]
    r = expect_ok("several", ["st", "check", "--json", name], work, fragments)
    check(json.loads(r.stdout)["warnings"] == 4, f"several: {r.stdout!r}")
    lines = r.stderr.splitlines()
    check(len(lines) == 4 and all(f in line for f, line in zip(fragments, lines)),
          f"several: order {lines}")
    u.expect_failure("several: --strict", ["st", "check", "--strict", name], work, 65,
                     [fragments[0]])


def test_hostile_names(work):
    """Names in a warning come from the file: control characters are made inert."""
    header = "{" + entry("w\\u001b[31m", "F32", W.shape, 0, 96, ',"evil\\u0007":1') + "}"
    write_raw(os.path.join(work, "h.safetensors"), header, W.tobytes())
    r = expect_ok("hostile names", ["st", "check", "h.safetensors"], work, ["unknown field"])
    check("\x1b" not in r.stderr and "\x07" not in r.stderr, f"hostile names: {r.stderr!r}")
