#!/usr/bin/python3
"""Hostile GGUF files: `cleave gguf check` exits 65 (66 when nothing can be opened) with one error
line naming the file, the byte offset and the field; `gguf split` / `gguf shard` on the same input
leave nothing behind. Covers the magic, the versions, absurd counts, every truncation of a valid
file, offsets past the end, misaligned, with holes or overlapping, trailing bytes, and every
metadata and tensor-info rule of tools/gguf/README.md."""
import os
import struct

import clitest
import gguf_util as u
from clitest import check

GOOD_META = [("general.architecture", "str", "llama"), ("general.alignment", "u32", 32)]
GOOD_TENSORS = [("a", "F32", (2, 4), bytes(range(32))), ("b", "Q8_0", (1, 32), bytes(34))]


def header(n_tensors, n_kv, version=3, magic=b"GGUF"):
    return magic + struct.pack("<IQQ", version, n_tensors, n_kv)


def info(name, dims, type_number, offset):
    return (u.enc_str(name) + struct.pack("<I", len(dims)) +
            b"".join(struct.pack("<q", d) for d in dims) + struct.pack("<iQ", type_number, offset))


def kv_raw(key, type_number, value_bytes):
    return u.enc_str(key) + struct.pack("<i", type_number) + value_bytes


def padded(blob, align=32):
    return blob + bytes(u.pad(len(blob), align) - len(blob))


def cases():
    good = u.gguf_bytes(GOOD_META, GOOD_TENSORS)
    one_info = lambda *a: padded(header(1, 0) + info(*a)) + bytes(32)
    out = [
        ("bad magic", header(0, 0, magic=b"GGML"), ["byte 0", "magic is 'GGML'"]),
        ("empty file", b"", ["byte 0", "the file ends inside the magic"]),
        ("version 1", header(0, 0, version=1), ["byte 4", "version 1 is not supported"]),
        ("version 0", header(0, 0, version=0), ["byte 4", "version 0"]),
        ("version 4", header(0, 0, version=4), ["byte 4", "version 4"]),
        ("big-endian", header(0, 0, version=3 << 24), ["byte 4", "big-endian"]),
        ("negative tensor_count", header(2 ** 63, 0), ["byte 8", "tensor_count", "negative"]),
        ("absurd tensor_count", header(2 ** 40, 0), ["byte 8", "tensor_count", "more than"]),
        ("tensor_count past the file", header(1000, 0), ["byte 8", "tensor_count is 1000"]),
        ("absurd kv_count", header(0, 2 ** 62), ["byte 16", "metadata_kv_count"]),
        ("kv_count past the file", header(0, 5) + bytes(20),
         ["byte 16", "metadata_kv_count is 5"]),
        ("key longer than 65535", header(0, 1) + struct.pack("<Q", 70000) + bytes(70016),
         ["byte 24", "the key of metadata entry 0 is 70000 bytes long"]),
        ("key length past the end", header(0, 1) + struct.pack("<Q", 60000) + bytes(8),
         ["byte 32", "the file ends inside the key of metadata entry 0"]),
        ("empty key", header(0, 1) + kv_raw("", 4, bytes(4)), ["byte 24", "is empty"]),
        ("key not UTF-8", header(0, 1) + u.enc_str(b"a\xff") + struct.pack("<i", 0) + b"\0",
         ["byte 33", "not valid UTF-8"]),
        ("NUL in a key", header(0, 1) + u.enc_str(b"a\0b") + struct.pack("<i", 0) + b"\0",
         ["byte 33", "NUL"]),
        ("duplicate key", header(0, 2) + kv_raw("k", 0, b"\1") + kv_raw("k", 0, b"\2"),
         ["byte 38", "'k' is given twice"]),
        ("value type 13", header(0, 1) + kv_raw("k", 13, b"\0"), ["byte 33", "type of 'k' is 13"]),
        ("value type -1", header(0, 1) + kv_raw("k", -1, b"\0"), ["type of 'k' is -1"]),
        ("bool of 2", header(0, 1) + kv_raw("k", 7, b"\2"), ["byte 37", "a bool is 2"]),
        ("bool array of 7", header(0, 1) + kv_raw("k", 9, struct.pack("<iQ", 7, 2) + b"\1\7"),
         ["byte 50", "a bool is 7"]),
        ("array of arrays", header(0, 1) + kv_raw("k", 9, struct.pack("<iQ", 9, 0)),
         ["arrays of arrays"]),
        ("array count past the file", header(0, 1) + kv_raw("k", 9, struct.pack("<iQ", 4, 10 ** 6)),
         ["the file ends inside the value of 'k'"]),
        ("array count over 2^30", header(0, 1) + kv_raw("k", 9, struct.pack("<iQ", 0, 2 ** 31)),
         ["element count of 'k' is 2147483648"]),
        ("string array length past the file",
         header(0, 1) + kv_raw("k", 9, struct.pack("<iQ", 8, 1) + struct.pack("<Q", 2 ** 40)),
         ["element 0 of 'k'"]),
        ("string not UTF-8", header(0, 1) + kv_raw("k", 8, u.enc_str(b"\xc0\xaf")),
         ["not valid UTF-8"]),
        ("alignment of type u64", header(0, 1) + kv_raw("general.alignment", 10, bytes(8)),
         ["byte 24", "general.alignment is of type u64"]),
        ("alignment 48", header(0, 1) + kv_raw("general.alignment", 4, struct.pack("<I", 48)),
         ["general.alignment is 48, not a power of 2"]),
        ("alignment 0", header(0, 1) + kv_raw("general.alignment", 4, bytes(4)),
         ["general.alignment is 0"]),
        ("empty tensor name", one_info("", [4], 0, 0), ["byte 24", "name of tensor 0 is 0 bytes"]),
        ("tensor name of 64 bytes", one_info("x" * 64, [4], 0, 0),
         ["name of tensor 0 is 64 bytes long"]),
        ("n_dims 5", one_info("t", [1, 1, 1, 1, 1], 0, 0), ["byte 33", "n_dims is 5"]),
        ("negative ne", one_info("t", [-1], 0, 0), ["byte 37", "ne[0] is -1"]),
        ("element count overflow", one_info("t", [2 ** 32, 2 ** 32], 0, 0), ["overflows"]),
        ("unknown type", one_info("t", [4], 99, 0), ["tensor 't': type 99 is not a ggml type"]),
        ("removed type", one_info("t", [32], 31, 0), ["type 31 (Q4_0_4_4) is no longer"]),
        ("row not whole blocks", one_info("t", [48, 2], 8, 0),
         ["tensor 't' (Q8_0 [2,48])", "not a whole number of Q8_0 blocks (32 elements)"]),
        ("duplicate tensor", padded(header(2, 0) + info("t", [1], 0, 0) + info("t", [1], 0, 32)) +
         bytes(64), ["tensor 't' is given twice"]),
        ("misaligned offset", padded(header(1, 0) + info("t", [1], 0, 4)) + bytes(40),
         ["tensor 't': data offset 4 is not a multiple of the alignment 32"]),
        ("hole", padded(header(1, 0) + info("t", [1], 0, 32)) + bytes(64),
         ["data offset 32, expected 0", "a hole"]),
        ("overlap", padded(header(2, 0) + info("a", [16], 0, 0) + info("b", [1], 0, 32)) + bytes(96),
         ["tensor 'b': data offset 32, expected 64", "an overlap"]),
        ("offset past the end", padded(header(1, 0) + info("t", [1], 0, 2 ** 62)) + bytes(32),
         ["tensor 't'", "a hole"]),
        ("data past the end", padded(header(1, 0) + info("t", [16], 0, 0)) + bytes(40),
         ["tensor 't': its 64 bytes at data offset 0 end past the end of the file"]),
        ("data section past the end", header(1, 0) + info("t", [1], 0, 0),
         ["the data section would start at byte 64", "past the end"]),
        ("trailing bytes", good + bytes(32), [f"byte {len(good)}", "32 trailing bytes"]),
    ]
    return out


def hostile(work):
    for label, blob, frags in cases():
        with open(os.path.join(work, "bad.gguf"), "wb") as f:
            f.write(blob)
        r = u.expect_failure(label, ["gguf", "check", "bad.gguf"], work, 65,
                             ["bad.gguf"] + frags)
        check(r.stdout == "", f"{label}: stdout {r.stdout!r}")
        u.expect_failure(label + " (shard)", ["gguf", "shard", "bad.gguf", "-o", "out", "-n", "1",
                                              "--axis", "*=0"], work, 65, ["bad.gguf"])
        u.expect_failure(label + " (split)", ["gguf", "split", "bad.gguf", "-o", "out",
                                              "--max-shard-size", "1M"], work, 65, ["bad.gguf"])


def truncations(work):
    """Every prefix of a valid file shorter than its last tensor's end is refused, naming the
    file and a byte offset; the prefixes that keep all the data (the last padding cut) are
    valid."""
    good = u.gguf_bytes(GOOD_META, GOOD_TENSORS)
    data_end = len(good) - u.pad(34, 32) + 34
    path = os.path.join(work, "cut.gguf")
    refused = 0
    for n in range(len(good)):
        with open(path, "wb") as f:
            f.write(good[:n])
        r = u.run(["gguf", "check", "cut.gguf"], work)
        if n < data_end:
            ok = (r.returncode == 65 and "cleave: error: gguf check: cut.gguf" in r.stderr and
                  "byte" in r.stderr)
            refused += ok
            check(ok, f"truncated to {n} bytes: {r.returncode} {r.stderr!r}")
        else:
            check(r.returncode == 0, f"cut in the last padding ({n} bytes): {r.stderr}")
    check(refused == data_end, f"{refused} of {data_end} truncations refused")


def nothing_to_open(work):
    u.expect_failure("missing file", ["gguf", "check", "nope.gguf"], work, 66, ["nope.gguf"])
    os.makedirs(os.path.join(work, "dir.gguf"))
    u.expect_failure("a directory", ["gguf", "check", "dir.gguf"], work, 66, ["dir.gguf"])


@clitest.groups(("hostile", hostile), ("truncations", truncations), ("open", nothing_to_open))
def test_gguf_hostile(group, work):
    group(work)
