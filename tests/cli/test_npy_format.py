#!/usr/bin/python3
"""The .npy reader and writer of the cleave command.

- Inputs written by NumPy in format versions 1.0, 2.0 and 3.0, and hand-made headers in the
  spellings NumPy also reads (double quotes, other key orders, Python 2 "L" suffixes, 16-byte
  alignment, extra whitespace, trailing bytes after the data), split correctly.
- Outputs are version 1.0 with the data 64-byte aligned and a header Python can evaluate.
- Headers that lie or are malformed give status 65 with a message, never a crash, and leave
  nothing behind.
"""
import os
import struct

import numpy as np

import clitest
from clitest import check, expect_failure

A = np.arange(24, dtype="<i4").reshape(4, 6)


def npy_bytes(header_text, data=A.tobytes(), version=(1, 0), align=64, raw_len=None):
    """A .npy file with `header_text` (a dict literal), padded like NumPy (or to `align`)."""
    text = header_text.encode("latin1" if version[0] < 3 else "utf8")
    pre = 10 if version[0] == 1 else 12
    total = pre + len(text) + 1
    pad = (-total) % align
    text = text + b" " * pad + b"\n"
    hlen = len(text) if raw_len is None else raw_len
    fmt = "<H" if version[0] == 1 else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, hlen) + text + data


def write(work, name, content):
    with open(os.path.join(work, name), "wb") as f:
        f.write(content)


def split_ok(work, name, expected, label):
    """Splits `name` along axis 0 into 2 and checks the outputs against NumPy's slicing."""
    prefix = os.path.join(work, "o_" + name[:-4])
    r = clitest.run(["split", "-a", "0", "-n", "2", "-q", "-o", prefix, name], work)
    if not check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}"):
        return
    half = expected.shape[0] // 2
    fortran = bool(np.isfortran(expected))
    clitest.check_output(label + " output 0", prefix + "_0.npy", expected[:half], fortran)
    clitest.check_output(label + " output 1", prefix + "_1.npy", expected[half:], fortran)


def accepted_inputs(work):
    for version in [(1, 0), (2, 0), (3, 0)]:
        name = f"v{version[0]}.npy"
        with open(os.path.join(work, name), "wb") as f:
            np.lib.format.write_array(f, A, version=version)
        check(open(os.path.join(work, name), "rb").read(7)[6] == version[0],
              f"numpy did not write version {version}")
        split_ok(work, name, A, f"format {version}")
    base = "'descr': '<i4', 'fortran_order': False, 'shape': (4, 6)"
    variants = {
        "dquote.npy": npy_bytes('{"descr": "<i4", "fortran_order": False, "shape": (4, 6)}'),
        "order.npy": npy_bytes("{'shape': (4, 6), 'fortran_order': False, 'descr': '<i4'}"),
        "long.npy": npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (4L, 6L), }"),
        "align16.npy": npy_bytes("{" + base + ", }", align=16),
        "spaces.npy": npy_bytes("{ 'descr' :'<i4' ,\t'fortran_order':False,\n'shape':( 4 ,6 ) }"),
        "trailing.npy": npy_bytes("{" + base + ", }", data=A.tobytes() + b"extra bytes"),
        "native.npy": npy_bytes("{'descr': '=i4', 'fortran_order': False, 'shape': (4, 6), }"),
        "v3utf8.npy": npy_bytes("{" + base + ", }", version=(3, 0)),
    }
    for name, content in variants.items():
        write(work, name, content)
        split_ok(work, name, A, name)
    f = np.asfortranarray(A)
    write(work, "fortran.npy",
          npy_bytes("{'descr': '<i4', 'fortran_order': True, 'shape': (4, 6), }",
                    data=f.T.tobytes()))
    split_ok(work, "fortran.npy", f, "hand-made fortran")
    # A 1-D and an empty shape with a trailing comma, and zero-size data.
    write(work, "one.npy", npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (24,), }"))
    split_ok(work, "one.npy", A.reshape(24), "1-D")
    empty = np.zeros((4, 0), dtype="<i4")
    np.save(os.path.join(work, "empty.npy"), empty)
    split_ok(work, "empty.npy", empty, "zero-size")


def output_headers(work):
    np.save(os.path.join(work, "h.npy"), np.arange(7 * 3, dtype=">f8").reshape(7, 3))
    r = clitest.run(["variadic-split", "-a", "0", "-l", "7,0", "-q", "h.npy"], work)
    check(r.returncode == 0, f"header test run: {r.stderr}")
    for i, shape in enumerate([(7, 3), (0, 3)]):
        path = os.path.join(work, f"h_{i}.npy")
        version, header, offset, text = clitest.read_header(path)
        check(version == (1, 0), f"output {i}: version {version}, expected (1, 0)")
        check(offset % 64 == 0, f"output {i}: data at {offset}, not 64-byte aligned")
        check(text.endswith("\n"), f"output {i}: header does not end with a newline")
        check(header == {"descr": ">f8", "fortran_order": False, "shape": shape},
              f"output {i}: header {header}")
        check(os.path.getsize(path) == offset + 8 * 3 * shape[0],
              f"output {i}: size {os.path.getsize(path)}")


def bad_inputs(work):
    good = "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6), }"
    cases = {
        "empty file": (b"", ["magic"]),
        "bad magic": (b"\x93NUMPZ\x01\x00" + npy_bytes(good)[8:], ["magic"]),
        "truncated preamble": (b"\x93NUMPY\x01", ["preamble"]),
        "version 4.0": (npy_bytes(good, version=(4, 0)), ["4.0"]),
        "version 1.1": (npy_bytes(good, version=(1, 1)), ["1.1"]),
        "absurd header length": (npy_bytes(good, version=(2, 0), raw_len=0xFFFFFFF0),
                                 ["4294967280"]),
        "header past the end": (npy_bytes(good, raw_len=60000)[:200], ["60000"]),
        "not a dict": (npy_bytes("['descr', '<i4']"), ["'{'"]),
        "missing key": (npy_bytes("{'descr': '<i4', 'shape': (4, 6), }"), ["fortran_order"]),
        "extra key": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6), "
                                "'x': 1}"), ["'x'"]),
        "duplicate key": (npy_bytes("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, "
                                    "'shape': (4, 6)}"), ["twice"]),
        "unterminated": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6)"),
                         ["'}'"]),
        "text after the dict": (npy_bytes(good + " 42"), ["padding"]),
        "bad bool": (npy_bytes("{'descr': '<i4', 'fortran_order': Maybe, 'shape': (4, 6)}"),
                     ["fortran_order"]),
        "true in lower case": (npy_bytes("{'descr': '<i4', 'fortran_order': false, "
                                         "'shape': (4, 6)}"), ["True or False"]),
        "shape not a tuple": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                        "'shape': (24)}"), ["(24,)"]),
        "shape a list": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                   "'shape': [4, 6]}"), ["'('"]),
        "negative dim": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                   "'shape': (-4, 6)}"), ["negative"]),
        "dim overflows int64": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                          "'shape': (99999999999999999999,)}"), ["overflows"]),
        "size overflows": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                     "'shape': (4294967296, 4294967296)}"), ["overflows"]),
        "shape larger than the file": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                                 "'shape': (4000, 6000)}"), ["96000000"]),
        "leading zero": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                   "'shape': (04, 6)}"), ["leading zero"]),
        "rank 65": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (" +
                              "1, " * 65 + ")}"), ["64"]),
        "non-ASCII in 1.0": (npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                       "'shape': (4, 6), 'é': 1}"), ["non-ASCII", "0xe9"]),
        "invalid UTF-8 in 3.0": (b"\x93NUMPY\x03\x00" + struct.pack("<I", 64 - 12) +
                                 b"{'descr': '<i4', \xff" + b" " * 33 + b"\n" + A.tobytes(),
                                 ["UTF-8"]),
        "NUL in header": (npy_bytes("{'descr': '<i4',\0 'fortran_order': False, "
                                    "'shape': (4, 6)}"), ["NUL"]),
        "escape in string": (npy_bytes("{'descr': '<i\\x34', 'fortran_order': False, "
                                       "'shape': (4, 6)}"), ["escape"]),
        "structured": (npy_bytes("{'descr': [('a', '<i4')], 'fortran_order': False, "
                                 "'shape': (4, 6)}"), ["structured"]),
        "object": (npy_bytes("{'descr': '|O', 'fortran_order': False, 'shape': (4, 6)}"),
                   ["object"]),
        "datetime": (npy_bytes("{'descr': '<M8[ns]', 'fortran_order': False, "
                               "'shape': (4, 6)}"), ["datetime"]),
        "timedelta": (npy_bytes("{'descr': '<m8[s]', 'fortran_order': False, "
                                "'shape': (4, 6)}"), ["datetime"]),
        "long double": (npy_bytes("{'descr': '<f16', 'fortran_order': False, "
                                  "'shape': (4, 6)}"), ["extended-precision"]),
        "no byte order": (npy_bytes("{'descr': 'i4', 'fortran_order': False, "
                                    "'shape': (4, 6)}"), ["byte-order"]),
        "unknown kind": (npy_bytes("{'descr': '<x4', 'fortran_order': False, "
                                   "'shape': (4, 6)}"), ["<x4"]),
        "odd int size": (npy_bytes("{'descr': '<i3', 'fortran_order': False, "
                                   "'shape': (4, 6)}"), ["<i3"]),
        "zero-width string": (npy_bytes("{'descr': '|S0', 'fortran_order': False, "
                                        "'shape': (4, 6)}"), ["zero-width"]),
        "unicode width overflow": (npy_bytes("{'descr': '<U9223372036854775807', "
                                             "'fortran_order': False, 'shape': (1,)}"),
                                   ["<U9223372036854775807"]),
        "long descr": (npy_bytes("{'descr': '" + "x" * 200 + "', 'fortran_order': False, "
                                 "'shape': (4, 6)}"), ["too long"]),
    }
    for i, (label, (content, fragments)) in enumerate(cases.items()):
        name = f"bad{i}.npy"
        write(work, name, content)
        expect_failure(label, ["split", "-a", "0", "-n", "1", name], work, 65,
                       [name] + fragments)


def test_npy_format():
    accepted_inputs(clitest.workdir("npy-accept"))
    output_headers(clitest.workdir("npy-out"))
    bad_inputs(clitest.workdir("npy-bad"))
