#!/usr/bin/python3
"""Packed sub-byte data on the command line (docs/operators.md section 7): `--dtype u4 --shape [..]`
reads a 1-D uint8 .npy of packed bytes and writes each output the same way.

Every output is compared byte for byte with a reference written here from the specification's
words, element by element (the first element in the least or most significant bits of byte 0,
each output packed from its own bit 0, unused bits of its last byte zero); the inputs' unused bits
are set to garbage, which must not reach the outputs. The streaming paths are forced with a tiny
chunk (CLEAVE_CHUNK_BYTES): batches of rows, pieces of long rows in several windows, byte-aligned
splits through the byte stream, more outputs than are open at once. Then the errors.
"""
import json
import os

import numpy as np

import clitest
from clitest import check, expect_failure

# name: (bits, first element in the most significant bits); this table is the test's own.
TYPES = {
    "u1": (1, True), "u2": (2, True), "u4": (4, False), "i4": (4, False), "nf4": (4, False),
    "f4e2m1": (4, False), "int4": (4, False), "uint4": (4, False), "int2": (2, False),
    "uint2": (2, False), "float4e2m1": (4, False),
}
SMALL_CHUNK = "64"


def packed_size(count, bits):
    return (count * bits + 7) // 8


def unpack(data, count, bits, msb):
    """The `count` elements of packed bytes `data`, one by one as the spec places them."""
    j = np.arange(count, dtype=np.int64)
    bit = j * bits
    shift = (8 - bits - bit % 8) if msb else bit % 8
    return (data[bit // 8].astype(np.int64) >> shift) & ((1 << bits) - 1)


def pack(values, bits, msb):
    """Packs element values from bit 0; the unused bits of the last byte stay zero. Byte k holds
    elements k * per .. k * per + per - 1, element p of a byte shifted as the spec places it."""
    values = np.asarray(values, dtype=np.int64).reshape(-1)
    per = 8 // bits
    padded = np.zeros(packed_size(values.size, bits) * per, dtype=np.int64)
    padded[:values.size] = values
    p = np.arange(per, dtype=np.int64)
    shift = (8 - bits - p * bits) if msb else p * bits
    return (padded.reshape(-1, per) << shift).sum(axis=1).astype(np.uint8)


def make_packed(rng, shape, bits, msb):
    """Random elements of `shape` and their packed bytes, with garbage in the unused bits."""
    count = int(np.prod(shape, dtype=np.int64))
    values = rng.integers(0, 1 << bits, size=count)
    data = pack(values, bits, msb)
    used = count * bits % 8
    if used:
        junk = (0xFF >> used) if msb else (0xFF << used) & 0xFF
        data[-1] |= junk
    return values.reshape(shape), data


def resolve(dim, lengths):
    if -1 in lengths:
        lengths = list(lengths)
        lengths[lengths.index(-1)] = dim - (sum(lengths) + 1)
    return lengths


def run_case(label, work, rng, type_name, shape, axis, lengths=None, num=None, env=None):
    """Splits a random packed tensor of `shape` and checks every output file and the report."""
    bits, msb = TYPES[type_name]
    values, data = make_packed(rng, shape, bits, msb)
    src = os.path.join(work, "in.npy")
    np.save(src, data)
    if lengths is not None:
        args = ["variadic-split", "-a", str(axis), "-l", ",".join(map(str, lengths))]
        lengths = resolve(shape[axis], lengths)
    else:
        args = ["split", "-a", str(axis), "-n", str(num)]
        lengths = [shape[axis] // num] * num
    text = "[" + ",".join(map(str, shape)) + "]"
    prefix = os.path.join(work, "out")
    r = clitest.run(args + ["--dtype", type_name, "--shape", text, "--json", "-o", prefix, src],
                    work, env=env)
    if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}"):
        return
    check(r.stderr == "", f"{label}: stderr {r.stderr!r}")
    report = json.loads(r.stdout)
    check(len(report["outputs"]) == len(lengths), f"{label}: {len(report['outputs'])} outputs")
    axis_n = axis % len(shape)
    start = 0
    for i, length in enumerate(lengths):
        expected_values = clitest.slice_along(values, axis_n, start, length)
        start += length
        path = f"{prefix}_{i}.npy"
        want_shape = "[" + ",".join(map(str, expected_values.shape)) + "]"
        if i < len(report["outputs"]):
            check(report["outputs"][i] == {"shape": want_shape, "path": path,
                                            "dims": list(expected_values.shape)},
                  f"{label}: report of output {i}: {report['outputs'][i]}, expected "
                  f"{want_shape} at {path}")
        expected = pack(expected_values, bits, msb)
        check(expected.size == packed_size(expected_values.size, bits), "reference size")
        clitest.check_output(f"{label} output {i}", path, expected, False)
        if os.path.exists(path):
            os.unlink(path)
    check(not os.path.exists(f"{prefix}_{len(lengths)}.npy"), f"{label}: extra output")
    check(clitest.temporaries(work) == [], f"{label}: temporaries left")


def random_lengths(rng, dim, parts):
    cuts = sorted(rng.integers(0, dim + 1, size=parts - 1).tolist())
    return [b - a for a, b in zip([0] + cuts, cuts + [dim])]


def every_type(work):
    """Hand-picked shapes per type (unaligned and aligned, each streaming path), and random ones,
    each with the default chunk and with a chunk of 64 bytes."""
    small = dict(os.environ, CLEAVE_CHUNK_BYTES=SMALL_CHUNK)
    for t, (bits, _) in TYPES.items():
        rng = np.random.default_rng(sum(map(ord, t)))
        cases = [
            # Unaligned pieces of short rows: batches of rows.
            ([50, 7], 1, [3, 4], None),
            ([50, 7], -1, [0, 5, 2], None),
            ([3, 5, 3], 1, [1, -1, 3], None),
            ([9, 3], 0, None, 3),
            ([13], 0, [6, 7], None),
            # Long rows: each output's piece in windows, pieces longer than a chunk.
            ([3, 2001], 1, [1500, 1, 500], None),
            ([4, 700, 3], 1, [333, -1], None),
            ([2, 4001], 0, [1, 1], None),
            # Byte-aligned splits: the byte stream over the packed bytes.
            ([40, 16], 1, None, 2),
            ([64, 32], 0, [16, 16, 32], None),
            ([6, 8, 5], 1, [2, 6], None),
            # Empty tensors and empty outputs.
            ([0, 6], 1, None, 2),
            ([5, 0, 2], 1, None, 3),
            ([7, 9], 1, [0, 9, 0], None),
        ]
        # Rows of hundreds of bits: pieces of several words at every bit offset, as one batch
        # of rows with the default chunk.
        for k in range(3):
            shape = [int(rng.integers(1, 24)), int(rng.integers(100, 1200) * 8 // bits)]
            cases.append((shape, 1, random_lengths(rng, shape[1], int(rng.integers(2, 6))), None))
        for k in range(4):
            rank = int(rng.integers(1, 4))
            shape = [int(rng.integers(1, 40)) for _ in range(rank)]
            axis = int(rng.integers(-rank, rank))
            cases.append((shape, axis, random_lengths(rng, shape[axis], int(rng.integers(1, 5))),
                          None))
        for shape, axis, lengths, num in cases:
            for env, chunk in ((None, "default"), (small, "64-byte")):
                label = f"{t} {shape} axis {axis} {lengths or num} ({chunk} chunk)"
                run_case(label, work, rng, t, shape, axis, lengths, num, env)


def big_inputs(work):
    """Inputs of several MiB with the default chunk: rows mode over many batches, and rows too
    long for a batch; one aligned split of the same size."""
    rng = np.random.default_rng(11)
    run_case("u1 [1024,8191] unaligned", work, rng, "u1", [1024, 8191], 1, [2047, 4096, 2048])
    run_case("u4 [4,1200001] long rows", work, rng, "u4", [4, 1200001], 1, [600001, 600000])
    run_case("int2 [4096,1027] aligned rows", work, rng, "int2", [4096, 1028], 1, [4, 1024])


def many_outputs(work):
    """More outputs than are open at once (groups of 256), in both streaming modes."""
    small = dict(os.environ, CLEAVE_CHUNK_BYTES=SMALL_CHUNK)
    rng = np.random.default_rng(5)
    run_case("u2 300 outputs of short rows", work, rng, "u2", [20, 300], 1, None, 300, small)
    run_case("int4 300 outputs of long rows", work, rng, "int4", [2, 3 * 300], 1,
             [3] * 299 + [-1], None, small)
    run_case("u1 300 aligned outputs", work, rng, "u1", [3, 8 * 300], 1, None, 300, small)


def chunk_knob(work):
    """A CLEAVE_CHUNK_BYTES outside 64..2^30 is ignored with a warning: the run still succeeds."""
    np.save(os.path.join(work, "k.npy"), (np.arange(6) * 0x11).astype(np.uint8))
    for value in ["12", "lots", "1073741825"]:
        env = dict(os.environ, CLEAVE_CHUNK_BYTES=value)
        r = clitest.run(["split", "-a", "1", "-n", "2", "--dtype", "u4", "--shape", "[3,4]",
                         "-f", "-q", "k.npy"], work, env=env)
        check(r.returncode == 0, f"chunk knob {value}: exit {r.returncode}: {r.stderr.strip()}")
        check(f"cleave: warning: split: CLEAVE_CHUNK_BYTES='{value}'" in r.stderr,
              f"chunk knob {value}: no warning in {r.stderr!r}")
        out = np.load(os.path.join(work, "k_1.npy"))
        # Byte k holds k twice: rows [0 0 1 1], [2 2 3 3], [4 4 5 5]; second halves 11, 33, 55.
        check(out.tolist() == [0x11, 0x33, 0x55], f"chunk knob {value}: output {out.tolist()}")


def errors(work):
    """Each error: status, message with the offending values, nothing left behind."""
    np.save(os.path.join(work, "p.npy"), np.arange(5, dtype=np.uint8))
    np.save(os.path.join(work, "f.npy"), np.arange(5, dtype=np.float32))
    np.save(os.path.join(work, "i8.npy"), np.arange(5, dtype=np.int8))
    np.save(os.path.join(work, "two.npy"), np.zeros((2, 3), dtype=np.uint8))
    split = ["split", "-a", "1", "-n", "2"]
    cases64 = [
        ("missing --shape", split + ["--dtype", "u4", "p.npy"], ["--shape", "packed"]),
        ("missing --shape with u3", split + ["--dtype", "u3", "p.npy"], ["--shape"]),
        ("--shape without a packed --dtype", split + ["--shape", "[5]", "p.npy"],
         ["--shape", "packed"]),
        ("--shape with a byte type", split + ["--dtype", "u8", "--shape", "[5]", "p.npy"],
         ["--shape", "packed"]),
        ("partial --shape", split + ["--dtype", "u4", "--shape", "[2,?]", "p.npy"],
         ["--shape", "'[2,?]'", "static"]),
        ("malformed --shape", split + ["--dtype", "u4", "--shape", "[2,x]", "p.npy"],
         ["--shape", "'[2,x]'"]),
        # The command line is checked before the input is opened.
        ("64 before 66", split + ["--dtype", "u4", "missing.npy"], ["--shape"]),
    ]
    for label, args, fragments in cases64:
        expect_failure(label, args, work, 64, fragments)
    cases65 = [
        ("u3", split + ["--dtype", "u3", "--shape", "[2,5]", "p.npy"], ["u3", "not supported"]),
        ("u6", split + ["--dtype", "u6", "--shape", "[2,5]", "p.npy"], ["u6", "not supported"]),
        ("too few bytes", split + ["--dtype", "u4", "--shape", "[3,4]", "p.npy"],
         ["p.npy", "5 bytes", "[3,4]", "6 bytes"]),
        ("too many bytes", split + ["--dtype", "u1", "--shape", "[2,8]", "p.npy"],
         ["p.npy", "5 bytes", "[2,8]", "2 bytes"]),
        ("one byte too many for u2", split + ["--dtype", "u2", "--shape", "[2,8]", "p.npy"],
         ["5 bytes", "4 bytes"]),
        ("float input", split + ["--dtype", "u4", "--shape", "[2,5]", "f.npy"],
         ["f.npy", "<f4", "u4", "uint8"]),
        ("int8 input", split + ["--dtype", "int4", "--shape", "[2,5]", "i8.npy"],
         ["i8.npy", "|i1", "int4", "uint8"]),
        ("2-D input", split + ["--dtype", "u4", "--shape", "[2,6]", "two.npy"],
         ["two.npy", "[2,3]", "1-D"]),
        ("axis out of range", ["split", "-a", "2", "-n", "2", "--dtype", "u4", "--shape",
                               "[2,5]", "p.npy"], ["axis", "2"]),
        ("not divisible", ["split", "-a", "1", "-n", "3", "--dtype", "u4", "--shape", "[2,5]",
                           "p.npy"], ["3", "5"]),
        ("SplitToSequence refuses packed types", ["split-to-sequence", "--dtype", "int4",
                                                   "--shape", "[10]", "p.npy"], ["int4"]),
        ("overflowing shape", split + ["--dtype", "u4", "--shape",
                                       "[4611686018427387904,4]", "p.npy"],
         ["[4611686018427387904,4]", "overflows"]),
    ]
    for label, args, fragments in cases65:
        expect_failure(label, args, work, 65, fragments)
    expect_failure("missing input", split + ["--dtype", "u4", "--shape", "[2,5]", "no.npy"],
                   work, 66, ["no.npy"])
    # An existing output is refused (73) only after the input checked out: without the
    # existing file the run succeeds.
    open(os.path.join(work, "p_1.npy"), "w").close()
    halves = ["split", "-a", "0", "-n", "2", "--dtype", "u4", "--shape", "[2,5]", "p.npy"]
    expect_failure("existing output", halves, work, 73, ["p_1.npy"])
    os.unlink(os.path.join(work, "p_1.npy"))
    r = clitest.run(halves, work)
    check(r.returncode == 0, f"halves: exit {r.returncode}: {r.stderr.strip()}")


def test_packed():
    work = clitest.workdir("packed")
    every_type(work)
    many_outputs(work)
    big_inputs(work)
    chunk_knob(clitest.workdir("packed_knob"))
    errors(clitest.workdir("packed_errors"))
