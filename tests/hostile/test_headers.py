#!/usr/bin/python3
"""Malformed .npy headers: status 65, one message naming the file and, for a syntax error, the
offset and the offending character (both computed here from the header text), nothing written.
Complements tests/cli/test_npy_format.py, whose cases are not repeated.

- Dictionary literals broken in many ways: keys, quotes, colons, commas, values of the wrong
  kind, shapes that are not tuples of non-negative integers, text after the dictionary, header
  lengths that cut the dictionary or swallow the data, encodings (Latin-1 in 2.0, invalid UTF-8
  in 3.0: surrogates, overlong forms, beyond U+10FFFF).
- Unknown, object and otherwise unsupported dtypes, and string widths whose size overflows.
- Dimensions: negative, overflowing int64, products overflowing int64 (exactly at the limit
  too), and zero-size shapes whose other dimensions are huge (legal: zero bytes).
- Regressions: a too-long key at the very end of the header (its message read past the header),
  --dtype S<n>/U<n> of another width than the file's (was accepted).
"""
import os

import numpy as np

import clitest
import hostile
from clitest import check
from hostile import expect_failure, npy_bytes, write

A = np.arange(24, dtype="<i4").reshape(4, 6)
GOOD = "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6), }"
KEY = "a key of the header dictionary"


def found(text, marker, char, what, skip=0):
    """Fragments of a syntax error at the first character of `marker` (after `skip` chars)."""
    return [f"header offset {text.index(marker) + skip}: expected {what}", f"found '{char}'"]


def dict_cases():
    """(label, header text, fragments). Offsets are those of the unpadded text (padding follows
    it)."""
    cases = []

    def add(label, text, fragments):
        cases.append((label, text, fragments))

    add("empty header", "", ["the header ends where '{' starting the header dictionary was "
                             "expected"])
    add("empty dict", "{}", ["the header lacks the key 'descr'"])
    add("descr only", "{'descr': '<i4'}", ["the header lacks the key 'fortran_order'"])
    add("no shape", "{'descr': '<i4', 'fortran_order': False}", ["lacks the key 'shape'"])
    t = "{,}"
    add("comma first", t, found(t, ",", ",", KEY))
    t = "{descr: '<i4', 'fortran_order': False, 'shape': (4, 6)}"
    add("unquoted key", t, found(t, "descr", "d", KEY))
    t = "{'descr\": '<i4', 'fortran_order': False, 'shape': (4, 6)}"
    add("mismatched quotes", t, found(t, "<i4", "<", "':' after a key"))
    t = "{'descr': '<i4"
    add("unterminated string", t, [f"header offset {t.index(chr(39) + '<')}: unterminated string"])
    t = "{'descr': '<i\n4', 'fortran_order': False, 'shape': (4, 6)}"
    add("newline in a string", t, [f"header offset {t.index(chr(39) + '<')}: unterminated"])
    t = "{'descr' '<i4', 'fortran_order': False, 'shape': (4, 6)}"
    add("missing colon", t, found(t, "'<i4", "'", "':' after a key"))
    t = "{'descr':: '<i4', 'fortran_order': False, 'shape': (4, 6)}"
    add("double colon", t, found(t, "::", ":", "'descr'", skip=1))
    t = "{'descr': '<i4' 'fortran_order': False, 'shape': (4, 6)}"
    add("missing comma", t, found(t, "'fortran", "'", "',' or '}' in the header dictionary"))
    t = "{'descr': '<i4',, 'fortran_order': False, 'shape': (4, 6)}"
    add("double comma", t, found(t, ",,", ",", KEY, skip=1))
    t = "{'descr': 4, 'fortran_order': False, 'shape': (4, 6)}"
    add("descr a number", t, found(t, "4,", "4", "'descr'"))
    t = "{'descr': b'<i4', 'fortran_order': False, 'shape': (4, 6)}"
    add("descr a bytes literal", t, found(t, "b'", "b", "'descr'"))
    for value, char in (("1", "1"), ("Truex", "T"), ("'True'", "'"), ("None", "N"),
                        ("TRUE", "T")):
        t = "{'descr': '<i4', 'fortran_order': %s, 'shape': (4, 6)}" % value
        add(f"fortran_order {value}", t, found(t, value + ",", char,
                                               "True or False for 'fortran_order'"))
    shape_cases = [
        # (label, shape text, marker, char, expectation)
        ("shape closed by }", "(4, 6}", "}", "}", "',' or ')' in the shape"),
        ("shape double comma", "(4,, 6)", ", 6)", ",", "a dimension (a non-negative integer)"),
        ("shape without commas", "(4 6)", "6)", "6", "',' or ')' in the shape"),
        ("float dimension", "(4.0, 6)", ".0", ".", "',' or ')' in the shape"),
        ("hex dimension", "(0x4, 6)", "x4", "x", "',' or ')' after a dimension"),
        ("plus sign", "(+4, 6)", "+4", "+", "a dimension"),
        ("underscore in a number", "(4_0, 6)", "_0", "_", "',' or ')' after a dimension"),
        ("nested tuple", "((4, 6),)", "(4, 6),)", "(", "a dimension"),
        ("None dimension", "(None, 6)", "None", "N", "a dimension"),
        ("shape a string", "'(4, 6)'", "'(4", "'", "'(' starting the shape tuple"),
        ("shape a list", "[4, 6]", "[4", "[", "'(' starting the shape tuple"),
        ("comma alone", "(,)", ",)", ",", "a dimension"),
        ("digit after L", "(4L6, 2)", "6, 2", "6", "',' or ')' after a dimension"),
        ("double L", "(4LL,)", "L,)", "L", "',' or ')' after a dimension"),
    ]
    for label, shape, marker, char, what in shape_cases:
        t = "{'descr': '<i4', 'fortran_order': False, 'shape': %s}" % shape
        add(label, t, found(t, marker, char, what))
    t = "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6"
    add("shape unterminated", t, ["the header ends where ',' or ')' in the shape was expected"])
    for shape, marker in (("(-0, 6)", "-0"), ("(4, -1)", "-1")):
        t = "{'descr': '<i4', 'fortran_order': False, 'shape': %s}" % shape
        add(f"negative dimension {shape}", t,
            [f"header offset {t.index(marker)}: the shape has a negative dimension"])
    for number in ("9223372036854775808", "18446744073709551616", "9" * 100):
        t = "{'descr': '<i4', 'fortran_order': False, 'shape': (%s,)}" % number
        add(f"dimension {number[:20]}", t,
            [f"header offset {t.index(number)}: a dimension overflows int64"])
    for key in ("Descr", "descr ", "x" * 31, ""):
        t = "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6), '%s': 1}" % key
        add(f"key {key!r}", t, [f"header offset {t.index(repr(key)[0] + key + repr(key)[0], 50)}"
                                f": unexpected key '{key}'"])
    for n in (32, 39, 40, 45):
        key = "k" * n
        t = "{'%s': 1, 'descr': '<i4', 'fortran_order': False, 'shape': (4, 6)}" % key
        shown = key if n <= 40 else key[:40] + "..."
        add(f"key of {n} characters", t, [f"header offset 2: the string '{shown}' is too long "
                                          f"for {KEY}"])
    for tail in ("}", " {}", " # comment", ", 1", " \n\x0c\t\r x"):
        t = GOOD + tail
        offset = len(GOOD) + len(tail) - len(tail.lstrip())
        add(f"after the dict: {tail!r}", t,
            [f"header offset {offset}: expected only padding after the header dictionary, "
             f"found '{t[offset]}'"])
    t = "dict(descr='<i4', fortran_order=False, shape=(4, 6))"
    add("dict() call", t, found(t, "dict", "d", "'{' starting the header dictionary"))
    return cases


def malformed_dicts(work):
    write(os.path.join(work, "h_0.npy"), b"precious")
    for i, (label, text, fragments) in enumerate(dict_cases()):
        name = f"d{i}.npy"
        write(os.path.join(work, name), npy_bytes(text, A.tobytes(), version=1 + i % 2))
        expect_failure(label, ["split", "-a", "0", "-n", "2", "-o", "h", name], work, 65,
                       [f"'{name}' is not a valid .npy file: "] + fragments)
    # A header of length 0.
    write(os.path.join(work, "zero.npy"), npy_bytes("", A.tobytes(), pad=False))
    expect_failure("header length 0", ["split", "-a", "0", "-n", "2", "zero.npy"], work, 65,
                   ["'zero.npy'", "the header ends where '{'"])
    # A header length that cuts the dictionary (the rest becomes data) or swallows the data.
    padded = npy_bytes(GOOD)[10:]
    cut = padded.index(b"), }")
    write(os.path.join(work, "short.npy"), npy_bytes(GOOD, A.tobytes(), raw_len=cut))
    expect_failure("header length cuts the dict", ["split", "-a", "0", "-n", "2", "short.npy"],
                   work, 65, ["the header ends where ',' or ')' in the shape was expected"])
    write(os.path.join(work, "long.npy"), npy_bytes(GOOD, A.tobytes(), raw_len=len(padded) + 8))
    expect_failure("header length swallows data", ["split", "-a", "0", "-n", "2", "long.npy"],
                   work, 65, [f"header offset {len(padded)}: NUL byte in the header"])


def encodings(work):
    base = b"{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6), "
    cases = [
        ("Latin-1 in 2.0", 2, base + b"'caf\xe9': 1}", len(base) + 4,
         "non-ASCII byte 0xe9 in a version 2.0 header"),
        ("curly quotes in 3.0", 3, "{\u201cdescr\u201d: '<i4'}".encode("utf8"), 1, None),
        ("surrogate in 3.0", 3, base + b"'\xed\xa0\x80': 1}", len(base) + 1, "invalid UTF-8"),
        ("overlong in 3.0", 3, base + b"'\xe0\x80\xaf': 1}", len(base) + 1, "invalid UTF-8"),
        ("overlong 4-byte in 3.0", 3, base + b"'\xf0\x80\x80\xaf': 1}", len(base) + 1,
         "invalid UTF-8"),
        ("above U+10FFFF in 3.0", 3, base + b"'\xf4\x90\x80\x80': 1}", len(base) + 1,
         "invalid UTF-8"),
        ("lone continuation in 3.0", 3, base + b"'\x80': 1}", len(base) + 1, "invalid UTF-8"),
        ("cut sequence in 3.0", 3, base + b"'\xe2\x82': 1}", len(base) + 1, "invalid UTF-8"),
    ]
    for i, (label, version, text, offset, what) in enumerate(cases):
        check(what is None or what != "invalid UTF-8" or not _decodes(text),
              f"{label}: the test's text is valid UTF-8")
        name = f"e{i}.npy"
        write(os.path.join(work, name), npy_bytes(text, A.tobytes(), version=version))
        if what is None:
            fragments = [f"header offset {offset}: expected {KEY}, found byte 0xe2"]
        else:
            fragments = [f"header offset {offset}: {what}"]
        expect_failure(label, ["split", "-a", "0", "-n", "2", name], work, 65,
                       [f"'{name}' is not a valid .npy file: "] + fragments)
    # Valid UTF-8 outside ASCII is quoted as it is.
    name = "valid.npy"
    write(os.path.join(work, name), npy_bytes(base + "'\u00e9t\u00e9 \U0001f600': 1}".encode(),
                                              A.tobytes(), version=3))
    expect_failure("valid UTF-8 key", ["split", "-a", "0", "-n", "2", name], work, 65,
                   ["unexpected key '\u00e9t\u00e9 \U0001f600'"])


def _decodes(text):
    try:
        text.decode("utf8")
        return True
    except UnicodeDecodeError:
        return False


def long_key_at_the_end(work):
    """Regression: a key too long for the parser, closed by the header's last byte. The message
    must quote the key and nothing after it (it once read past the header text)."""
    for n in (32, 34, 39):
        key = "L" * n
        text = "{'descr': '<f4', '" + key + "'"
        name = f"end{n}.npy"
        write(os.path.join(work, name), npy_bytes(text, b"", pad=False))
        r = expect_failure(f"key of {n} at the header's end", ["split", "-a", "0", "-n", "1",
                                                                name], work, 65, [])
        want = (f"cleave: error: split: '{name}' is not a valid .npy file: header offset "
                f"{len(text) - n - 1}: the string '{key}' is too long for {KEY}\n")
        check(r.stderr == want, f"key of {n} at the header's end: message {r.stderr!r}, "
              f"expected {want!r}")


def dtypes(work):
    cases = [
        ("|O8", "object arrays"), ("<O", "object arrays"), ("|V0", "zero-size void"),
        ("<c32", "not supported"), ("<f12", "not supported"), ("<f1", "not supported"),
        ("|b2", "not supported"), ("<u16", "not supported"), ("<i0", "not supported"),
        ("<i-4", "not supported"), ("<i4x", "not supported"), ("<i 4", "not supported"),
        ("<i04", "not supported"), ("<U0", "zero-width strings"),
        ("|S99999999999999999999", "not supported"), ("S5", "byte-order character"),
        ("", "byte-order character"), ("float32", "byte-order character"),
        ("<", "not supported"), ("<<i4", "not supported"), ("|a5", "not supported"),
        ("<q", "not supported"), ("|V", "not supported"), (">M8", "datetime"),
        ("<m8[us]", "datetime"), ("<U4611686018427387904", "string width overflows"),
        ("<U2305843009213693952", "string width overflows"),
    ]
    write(os.path.join(work, "t_0.npy"), b"precious")
    for i, (descr, why) in enumerate(cases):
        name = f"t{i}.npy"
        text = "{'descr': '%s', 'fortran_order': False, 'shape': (4, 6), }" % descr
        write(os.path.join(work, name), npy_bytes(text, A.tobytes()))
        expect_failure(f"descr {descr!r}", ["split", "-a", "0", "-n", "2", "-f", "-o", "t",
                                            name], work, 65,
                       [f"'{name}' has dtype '{descr}': ", why])


def forced_widths(work):
    """Regression: --dtype S<n>/U<n> must be the file's own width (a different one was
    accepted and ignored)."""
    s5 = np.array([b"abcde", b"xy", b"", b"12345"], dtype="|S5")
    u3 = np.array(["ab\u00e9", "c", "xyz", ""], dtype=">U3")
    np.save(os.path.join(work, "s5.npy"), s5)
    np.save(os.path.join(work, "u3.npy"), u3)
    for name, descr, forced in (("s5.npy", "|S5", "S3"), ("s5.npy", "|S5", "S6"),
                                ("u3.npy", ">U3", "U2"), ("u3.npy", ">U3", "U4"),
                                ("s5.npy", "|S5", "U5"), ("u3.npy", ">U3", "S12")):
        expect_failure(f"--dtype {forced} on {descr}", ["split", "-a", "0", "-n", "2", "--dtype",
                                                        forced, name], work, 65,
                       [f"'{name}' has dtype '{descr}'",
                        f"--dtype {forced} contradicts the file's type ({descr})"])
    # The file's own width is accepted, and the outputs are NumPy's slices.
    for name, a, forced in (("s5.npy", s5, "S5"), ("u3.npy", u3, "U3")):
        prefix = "ok_" + name[:2]
        r = hostile.run(["split", "-a", "0", "-n", "2", "-q", "--dtype", forced, "-o", prefix,
                         name], work)
        if check(r.returncode == 0, f"--dtype {forced} on {name}: {r.returncode} {r.stderr}"):
            for i in range(2):
                clitest.check_output(f"--dtype {forced} output {i}",
                                     os.path.join(work, f"{prefix}_{i}.npy"),
                                     a[2 * i:2 * i + 2], False)


def dims(work):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }"
    announce = [
        ("INT64_MAX elements of 1 byte", "|u1", ((1 << 63) - 1,), (1 << 63) - 1),
        ("2^63-2 bytes", "|u1", ((1 << 62) - 1, 2), (1 << 63) - 2),
    ]
    for label, descr, shape, total in announce:
        name = label.replace(" ", "_").replace("^", "") + ".npy"
        write(os.path.join(work, name), npy_bytes(header % (descr, shape), b"x" * 64))
        expect_failure(label, ["split", "-a", "0", "-n", "1", name], work, 65,
                       [f"announces {total} data bytes but the file holds 64"])
    overflow = [
        ("2^63 bytes", "<i4", (1 << 61,), 4),
        ("2^63 bytes of u1", "|u1", (1 << 62, 2), 1),
        ("2^63+1 bytes", "|u1", (3, 3074457345618258603), 1),
        ("64 dimensions of 2", "|u1", (2,) * 64, 1),
        ("two 2^32", "<c16", (1 << 32, 1 << 32), 16),
    ]
    for label, descr, shape, item in overflow:
        total = item
        for d in shape:
            total *= d
        check(total > (1 << 63) - 1, f"{label}: the test's case does not overflow")
        name = label.replace(" ", "_").replace("^", "") + ".npy"
        write(os.path.join(work, name), npy_bytes(header % (descr, shape), b"x" * 64))
        expect_failure(label, ["split", "-a", "0", "-n", "1", name], work, 65,
                       [f"'{name}' is not a valid .npy file",
                        f"(elements of {item} bytes) overflows int64"])
    # Zero bytes of data whatever the other dimensions (docs/operators.md section 1: zero-size dims are
    # legal anywhere; the byte size is 0). NumPy refuses such arrays; cleave splits them.
    for shape, axis in (((0, 1 << 62, 1 << 62), 1), ((1 << 62, 0, 1 << 62), 2),
                        ((1 << 62, 1 << 62, 0), 0)):
        name = "zero.npy"
        write(os.path.join(work, name), npy_bytes(header % ("<i4", shape), b""))
        r = hostile.run(["split", "-a", str(axis), "-n", "2", "-q", "-f", name], work)
        if check(r.returncode == 0, f"zero-size {shape}: status {r.returncode}: {r.stderr}"):
            for i in range(2):
                path = os.path.join(work, f"zero_{i}.npy")
                _, h, offset, _ = clitest.read_header(path)
                want = list(shape)
                want[axis] //= 2
                check(h == {"descr": "<i4", "fortran_order": False, "shape": tuple(want)},
                      f"zero-size {shape} output {i}: header {h}")
                check(os.path.getsize(path) == offset, f"zero-size {shape} output {i}: data")


def test_headers():
    malformed_dicts(clitest.workdir("hostile-dicts"))
    encodings(clitest.workdir("hostile-encodings"))
    long_key_at_the_end(clitest.workdir("hostile-long-key"))
    dtypes(clitest.workdir("hostile-dtypes"))
    forced_widths(clitest.workdir("hostile-forced"))
    dims(clitest.workdir("hostile-dims"))
