#!/usr/bin/python3
"""Hostile safetensors files and indexes: `cleave st check` exits 65 (66 when nothing can be
opened) with one error line naming the file, the byte offset and the tensor where there is one,
and `st split` / `st shard` on the same input leave nothing behind. What the reference reader
accepts with the data intact is refused by `st check --strict` only."""
import json
import os
import struct

import clitest
import st_util as u
from clitest import check


def raw_file(path, header, data=b"", size=None):
    if isinstance(header, str):
        header = header.encode()
    n = len(header) if size is None else size
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", n) + header + data)


def t(name, dtype, shape, b, e):
    return f'"{name}":{{"dtype":"{dtype}","shape":{json.dumps(shape)},"data_offsets":[{b},{e}]}}'


def hostile_headers(work):
    ok = "{" + t("a", "F32", [2], 0, 8) + "}"
    cases = [
        # label, header, data, size override, fragments
        ("empty file", None, b"", None, ["fewer than the 8"]),
        ("lying length", ok, bytes(8), 1 << 20, ["header size 1048576", "larger than"]),
        ("length beyond the limit", ok, bytes(8), 100_000_001, ["limit of 100000000"]),
        ("length of 2^64-1", ok, bytes(8), (1 << 64) - 1, ["header size"]),
        ("not JSON", "{nope}", b"", None, ["byte 9", "not a string"]),
        ("not an object", "[1,2]", b"", None, ["does not start with '{'"]),
        ("leading garbage", "x" + ok, bytes(8), None, ["byte 8", "does not start with '{'"]),
        ("whitespace, then garbage", " \t" + ok[1:], bytes(8), None,
         ["byte 10", "does not start with '{'"]),
        ("NUL inside", ok[:-1] + "\0}", bytes(8), None, ["invalid header JSON"]),
        ("NUL padding, then garbage", ok + "\0\0x", bytes(8), None,
         [f"byte {8 + len(ok)}", "must end with '}' followed only by padding"]),
        ("bad UTF-8", b'{"\xff\xfe":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x", None,
         ["invalid header JSON", "byte"]),
        ("overlong UTF-8", b'{"\xc0\xaf":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x",
         None, ["byte 10", "invalid UTF-8"]),
        ("UTF-8 surrogate", b'{"\xed\xa0\x80":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
         b"x", None, ["invalid UTF-8"]),
        ("unpaired escaped surrogate",
         '{"\\ud800x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x", None,
         ["unpaired surrogate"]),
        ("NUL in a name", '{"a\\u0000b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x",
         None, ["invalid header JSON"]),
        ("duplicate tensor", "{" + t("a", "U8", [1], 0, 1) + "," + t("a", "U8", [1], 1, 2) + "}",
         b"xy", None, ["duplicate", "'a'" if False else "a"]),
        ("duplicate metadata key", '{"__metadata__":{"k":"1","k":"2"}}', b"", None,
         ["duplicate"]),
        ("metadata not strings", '{"__metadata__":{"k":1}}', b"", None, ["'k'", "not a string"]),
        ("hole", "{" + t("a", "U8", [1], 0, 1) + "," + t("b", "U8", [1], 2, 3) + "}", b"xyz",
         None, ["tensor 'b'", "hole"]),
        ("overlap", "{" + t("a", "U8", [2], 0, 2) + "," + t("b", "U8", [2], 1, 3) + "}", b"xyz",
         None, ["tensor 'b'", "overlaps"]),
        ("trailing bytes", ok, bytes(9), None, ["trailing bytes"]),
        ("truncated data", ok, bytes(7), None, ["truncated"]),
        ("size mismatch", "{" + t("a", "F32", [3], 0, 8) + "}", bytes(8), None,
         ["tensor 'a'", "needs 12"]),
        ("overflowing offsets", "{" + t("a", "U8", [1], 18446744073709551615, 0) + "}", b"",
         None, ["byte 55: tensor 'a'", "not an integer from 0 to 2^63-1"]),
        ("offsets end before they begin", "{" + t("a", "U8", [0], 5, 4) + "}", b"", None,
         ["tensor 'a'", "ends before it begins"]),
        ("shape overflow", "{" + t("a", "F64", [4294967296, 4294967296], 0, 0) + "}", b"",
         None, ["tensor 'a'", "overflows"]),
        ("negative dimension", "{" + t("a", "U8", [-1], 0, 0) + "}", b"", None,
         ["tensor 'a'", "shape[0]"]),
        ("float dimension", '{"a":{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}}', b"x",
         None, ["tensor 'a'", "not an integer"]),
        ("exponent offset", '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1e0]}}', b"x",
         None, ["tensor 'a'", "not an integer"]),
        ("unknown dtype", "{" + t("a", "F128", [1], 0, 16) + "}", bytes(16), None,
         ["unknown dtype 'F128'"]),
        # An unknown field is skipped, but its value must be JSON, as for the reference.
        ("unknown field, bad value", '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],'
         '"x":tru}}', b"x", None, ["tensor 'a'", "not a JSON value"]),
        ("unknown field, bad number", '{"a":{"x":01,"dtype":"U8","shape":[1],'
         '"data_offsets":[0,1]}}', b"x", None, ["tensor 'a'", "malformed number"]),
        ("unknown field, unclosed", '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],'
         '"x":[1,{"y":2}}}', b"x", None, ["tensor 'a'", "',' or ']' expected"]),
        ("unknown field, too deep", '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],'
         '"x":' + "[" * 65 + "]" * 65 + '}}', b"x", None, ["nested deeper than 64 levels"]),
        ("known field twice", '{"a":{"dtype":"U8","shape":[1],"x":1,"shape":[1],'
         '"data_offsets":[0,1]}}', b"x", None, ["duplicate field 'shape'"]),
        ("missing field", '{"a":{"dtype":"U8","shape":[1]}}', b"x", None, ["'data_offsets'"]),
        ("sub-byte size", "{" + t("a", "F4", [3], 0, 2) + "}", b"xy", None,
         ["tensor 'a'", "whole bytes"]),
        ("rank too large", "{" + t("a", "U8", [1] * 65, 0, 1) + "}", b"x", None,
         ["more than 64 entries"]),
    ]
    for label, header, data, size, frags in cases:
        path = os.path.join(work, "bad.safetensors")
        if header is None:
            open(path, "wb").close()
        else:
            raw_file(path, header, data, size)
        r = u.expect_failure(label, ["st", "check", "bad.safetensors"], work, 65,
                             ["bad.safetensors"] + frags)
        u.expect_failure(label + " (split)", ["st", "shard", "bad.safetensors", "-o", "out",
                                              "-n", "1", "--axis", "*=0"], work, 65, [])
        check(r.stdout == "", f"{label}: stdout {r.stdout!r}")
    # What the reference reader accepts with the data intact is an error only for check
    # --strict (65, the same place named); every command accepts it otherwise
    # (test_st_lenient.py). A faulty file with such a departure gets its fault's error only.
    unknown = '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}}'
    unknown_at = 8 + unknown.index('"x"')
    strict_only = [
        ("leading space", " " + ok, bytes(8), ["byte 8: 1 byte of whitespace before"]),
        ("NUL padding", ok + "\0\0\0", bytes(8),
         [f"byte {8 + len(ok)}: the header is padded with NUL bytes"]),
        ("newline padding", ok + "\n", bytes(8), ["padded with tabs or line breaks"]),
        ("unknown field", unknown, b"x",
         [f"byte {unknown_at}: tensor 'a': unknown field 'x' ignored"]),
    ]
    for label, header, data, frags in strict_only:
        raw_file(os.path.join(work, "bad.safetensors"), header, data)
        r = u.expect_failure(label + " (--strict)", ["st", "check", "--strict",
                                                     "bad.safetensors"], work, 65,
                             ["bad.safetensors: "] + frags + ["--strict refuses"])
        check(r.stdout == "" and r.stderr.count("\n") == 1, f"{label}: {r.stdout!r} {r.stderr!r}")
        raw_file(os.path.join(work, "bad.safetensors"), header, data + b"!")
        r = u.expect_failure(label + " and trailing bytes", ["st", "check", "bad.safetensors"],
                             work, 65, ["trailing bytes"])
        check("warning" not in r.stderr, f"{label} and trailing bytes: {r.stderr!r}")
    # The byte offset of a semantic error points at the tensor's key in the file.
    header = "{" + t("good", "U8", [1], 0, 1) + ',  "bad":{"dtype":"U8","shape":[2],"data_offsets":[1,2]}}'
    raw_file(os.path.join(work, "off.safetensors"), header, b"xy")
    want = 8 + header.index('"bad"')
    u.expect_failure("offset of the key", ["st", "check", "off.safetensors"], work, 65,
                     [f"byte {want}: tensor 'bad'"])
    # Errors are never JSON: with --json too, the message on stderr and nothing on stdout.
    r = u.expect_failure("check --json failure", ["st", "check", "--json", "off.safetensors"],
                         work, 65, [f"byte {want}: tensor 'bad'"])
    check(r.stdout == "", f"check --json failure: stdout {r.stdout!r}")


def hostile_indexes(work):
    u.write_st(os.path.join(work, "s1.safetensors"), {"a": ("U8", (1,), b"x")})
    u.write_st(os.path.join(work, "s2.safetensors"), {"b": ("U8", (2,), b"yz"),
                                                      "a": ("U8", (1,), b"q")})
    u.write_st(os.path.join(work, "s3.safetensors"), {"c": ("U8", (1,), b"c")})

    def index(weight_map, total=None, name="m.safetensors.index.json"):
        body = {"weight_map": weight_map}
        if total is not None:
            body["metadata"] = {"total_size": total}
        with open(os.path.join(work, name), "w") as f:
            json.dump(body, f)
        return name

    cases = [
        ("escaping path", {"a": "../s1.safetensors"}, None, ["'../s1.safetensors'", "folder"]),
        ("absolute path", {"a": "/etc/passwd"}, None, ["'/etc/passwd'"]),
        ("missing shard", {"a": "nope.safetensors"}, None, ["missing", "nope.safetensors"]),
        ("tensor in two shards", {"a": "s1.safetensors", "b": "s2.safetensors"}, None,
         ["'a'", "s2.safetensors"]),
        ("unlisted tensor", {"c": "s3.safetensors", "a": "s1.safetensors",
                             "zz": "s1.safetensors"}, None, ["'zz'", "does not hold it"]),
    ]
    for label, wm, total, frags in cases:
        name = index(wm, total)
        # A shard that is not there cannot be opened: 66, as any file (issue 33).
        status = 66 if label == "missing shard" else 65
        u.expect_failure(label, ["st", "check", name], work, status, frags)
    # A wrong total_size misleads no reader of the data: an error for check --strict only.
    name = index({"a": "s1.safetensors", "c": "s3.safetensors"}, 5)
    with open(os.path.join(work, name)) as f:
        at = f.read().index('"total_size"')
    u.expect_failure("wrong total_size (--strict)", ["st", "check", "--strict", name], work, 65,
                     [f"m.safetensors.index.json: byte {at}: metadata.total_size is 5 but the "
                      "shards' tensors hold 2 bytes", "--strict refuses"])
    # With a wrong total_size and a fault of the data, the fault is the error.
    name = index({"a": "s1.safetensors", "c": "nope.safetensors"}, 5)
    u.expect_failure("wrong total_size, missing shard", ["st", "check", name], work, 66,
                     ["missing", "nope.safetensors"])
    with open(os.path.join(work, "m.safetensors.index.json"), "w") as f:
        f.write('{"weight_map":{"a":"s1.safetensors","a":"s1.safetensors"}}')
    u.expect_failure("duplicate in the index", ["st", "check", "m.safetensors.index.json"], work,
                     65, ["duplicate"])
    os.unlink(os.path.join(work, "m.safetensors.index.json"))
    u.expect_failure("folder of several files", ["st", "check", "."], work, 65,
                     ["3 *.safetensors files"])
    os.makedirs(os.path.join(work, "empty"))
    u.expect_failure("empty folder", ["st", "check", "empty"], work, 66, ["no *.safetensors"])


def large_header(work):
    """A ~10 MB header of 100,000 one-byte tensors: checked and listed in bounded time."""
    n = 100_000
    parts = []
    for i in range(n):
        parts.append(t(f"model.layers.{i}.tiny_tensor_with_a_long_name", "U8", [1], i, i + 1))
    header = ("{" + ",".join(parts) + "}").encode()
    header += b" " * ((8 - len(header) % 8) % 8)
    raw_file(os.path.join(work, "big.safetensors"), header, bytes(n))
    r = u.run(["st", "check", "--json", "big.safetensors"], work)
    check(r.returncode == 0 and json.loads(r.stdout)["tensors"] == n, f"large header: {r.stderr}")
    r = u.run(["st", "ls", "big.safetensors"], work)
    check(r.returncode == 0 and len(r.stdout.splitlines()) == n, "large header: ls")
    r = u.run(["st", "shard", "big.safetensors", "-o", "tp", "-n", "2", "--axis", "nothing=0"],
              work)
    check(r.returncode == 65, "large header: a rule matching nothing")


def header_at_the_limit(work):
    """A header of tiny tensors just under the 100,000,000-byte limit is read (bounded time and
    memory: the header parser keeps only the tensor table); a duplicate name at its very end is
    found, with its byte offset."""
    parts, size, i = [], 2, 0
    while True:
        entry = t(f"t.{i:08d}", "U8", [1], i, i + 1)
        if size + len(entry) + 1 > 99_999_000:
            break
        parts.append(entry)
        size += len(entry) + 1
        i += 1
    header = "{" + ",".join(parts) + "}"
    header += " " * ((8 - len(header) % 8) % 8)
    raw_file(os.path.join(work, "limit.safetensors"), header, bytes(i))
    r = u.run(["st", "check", "limit.safetensors"], work)
    check(r.returncode == 0 and f"{i} tensors" in r.stdout, f"header at the limit: {r.stderr}")
    dup = header.replace(f'"t.{i - 1:08d}"', '"t.00000000"')
    raw_file(os.path.join(work, "limit.safetensors"), dup, bytes(i))
    want = 8 + dup.rindex('"t.00000000"')
    u.expect_failure("duplicate at the end of a 100 MB header", ["st", "check", "limit.safetensors"],
                     work, 65, [f"byte {want}", "duplicate tensor name 't.00000000'"])
    os.unlink(os.path.join(work, "limit.safetensors"))


@clitest.groups(("headers", hostile_headers), ("indexes", hostile_indexes),
                ("large", large_header), ("limit", header_at_the_limit))
def test_st_hostile(group, work):
    group(work)
