#!/usr/bin/python3
"""Writes the seed corpus of fuzz_npy (fuzz/corpus/npy/): small .npy files, valid ones as NumPy
writes them (versions 1.0, 2.0, 3.0, several dtypes and layouts) and in the other spellings NumPy
reads, and broken ones (each seed names what is wrong with it). Data is kept to a few bytes.

usage: /usr/bin/python3 fuzz/make_npy_corpus.py   (rewrites the folder; commit the result)
"""
import io
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "npy")


def saved(array, version=None):
    f = io.BytesIO()
    np.lib.format.write_array(f, array, version=version)
    return f.getvalue()


def raw(text, data=b"", version=1, length=None, pad=True):
    """A file with the header text as given (padded to 64 like NumPy unless pad is False)."""
    body = text.encode("utf8" if version == 3 else "latin1")
    pre = 10 if version == 1 else 12
    if pad:
        body += b" " * ((-(pre + len(body) + 1)) % 64) + b"\n"
    n = len(body) if length is None else length
    fmt = "<H" if version == 1 else "<I"
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack(fmt, n) + body + data


def dict_text(descr="<i4", fortran="False", shape="(2, 3)"):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


def seeds():
    a = np.arange(6, dtype="<i4").reshape(2, 3)
    yield "valid_v1_i4", saved(a)
    yield "valid_v2_f8_fortran", saved(np.asfortranarray(np.ones((2, 2), ">f8")), (2, 0))
    yield "valid_v3_U2", saved(np.array(["ab", "c"], "<U2"), (3, 0))
    yield "valid_v1_S3", saved(np.array([b"abc"], "|S3"))
    yield "valid_v1_V2", saved(np.zeros(2, "|V2"))
    yield "valid_v1_c16_big", saved(np.zeros(1, ">c16"))
    yield "valid_v1_b1", saved(np.array([True, False]))
    yield "valid_scalar", saved(np.float32(1.5))
    yield "valid_zero_size", saved(np.zeros((0, 5), "<u2"))
    yield "valid_rank64", raw(dict_text(descr="|u1", shape="(" + "1, " * 64 + ")"), b"\0")
    yield "valid_dquote", raw('{"descr": "<i4", "fortran_order": False, "shape": (2, 3)}',
                              a.tobytes())
    yield "valid_long_suffix", raw(dict_text(shape="(2L, 3L)"), a.tobytes())
    yield "valid_unpadded", raw(dict_text() + "\n", a.tobytes(), pad=False)
    yield "valid_native_order", raw(dict_text(descr="=i4"), a.tobytes())
    yield "bad_v3_unicode_space", raw(dict_text() + "\u3000", a.tobytes(), version=3)
    yield "bad_empty", b""
    yield "bad_magic", b"\x93NUMPZ\x01\x00"
    yield "bad_preamble_cut", b"\x93NUMPY\x02\x00\x10"
    yield "bad_version_4", raw(dict_text(), version=4)
    yield "bad_header_past_end", raw(dict_text(), length=60000)
    yield "bad_header_4gib", raw(dict_text(), version=2, length=0xFFFFFFFF)
    yield "bad_header_cut", saved(a)[:40]
    yield "bad_data_cut", saved(a)[:-5]
    yield "bad_shape_promises_more", raw(dict_text(shape="(2000, 3000)"), a.tobytes())
    yield "bad_v3_utf8", (b"\x93NUMPY\x03\x00" + struct.pack("<I", 52) +
                          b"{'descr': '<i4', \xff" + b" " * 34 + b"\n")
    # Invalid UTF-8 the reader once let through: a surrogate, an overlong form, beyond U+10FFFF.
    for label, seq in (("surrogate", b"\xed\xa0\x80"), ("overlong", b"\xe0\x80\xaf"),
                       ("above_10ffff", b"\xf4\x90\x80\x80")):
        yield "regress_v3_utf8_" + label, (b"\x93NUMPY\x03\x00" + struct.pack("<I", 52) +
                                           b"{'descr': '<i4', '" + seq + b"'" +
                                           b" " * (32 - len(seq)) + b"\n")
    yield "bad_negative_dim", raw(dict_text(shape="(-2, 3)"))
    yield "bad_dim_overflow", raw(dict_text(shape="(9223372036854775808,)"))
    yield "bad_size_overflow", raw(dict_text(shape="(4611686018427387904, 2)"))
    yield "bad_not_tuple", raw(dict_text(shape="(6)"))
    yield "bad_missing_key", raw("{'descr': '<i4', 'shape': (2, 3)}")
    yield "bad_duplicate_key", raw("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, "
                                   "'shape': (2, 3)}")
    yield "bad_structured", raw("{'descr': [('a', '<i4')], 'fortran_order': False, "
                                "'shape': (2,)}")
    yield "bad_object", raw(dict_text(descr="|O"))
    yield "bad_datetime", raw(dict_text(descr="<M8[ns]"))
    yield "bad_escape", raw(dict_text(descr="<i\\x34"))
    yield "bad_bool", raw(dict_text(fortran="1"))
    yield "bad_nul", raw(dict_text().replace(",", "\0", 1))
    yield "bad_text_after", raw(dict_text() + " 42")
    # Regressions (fuzz_npy findings). The target takes a --dtype from the last two bytes (width,
    # then type): these ask for U6 on "<U2" data and S1 on "|S3" data, once accepted silently.
    yield "regress_dtype_U6_on_U2", saved(np.array(["ab", "c"], "<U2")) + bytes([5, 21])
    yield "regress_dtype_S1_on_S3", saved(np.array([b"abc"], "|S3")) + bytes([0, 20])
    # A key too long for the parser, ending where the header ends: the message quoted 40 bytes
    # from the key's start, reading past the header.
    yield "regress_long_key_at_header_end", raw("{'descr': '<f4', '" + "L" * 34 + "'", pad=False)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for name, content in seeds():
        with open(os.path.join(OUT, name + ".npy"), "wb") as f:
            f.write(content)


if __name__ == "__main__":
    main()
