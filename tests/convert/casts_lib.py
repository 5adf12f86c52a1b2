"""The library's casts through ctypes, for the tests of tests/convert: cleave_cast and
cleave_dequantize_fp8_blocks on NumPy arrays, and the references the tests compare them with."""
import ctypes
import os
from fractions import Fraction

import numpy as np

F16, BF16, F32, F64, F8E4M3 = 10, 11, 12, 13, 16


def library_path():
    given = os.environ.get("CLEAVE_LIBRARY")
    if given:
        return given
    cleave = os.environ["CLEAVE"]
    return os.path.join(os.path.dirname(os.path.dirname(cleave)), "src", "libcleave.so")


class Error(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 512)]


_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(library_path())
        _lib.cleave_cast.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                                     ctypes.c_size_t, ctypes.POINTER(Error)]
        _lib.cleave_cast.restype = ctypes.c_int
        _lib.cleave_cast_supported.argtypes = [ctypes.c_int, ctypes.c_int]
        _lib.cleave_cast_supported.restype = ctypes.c_int
        _lib.cleave_dequantize_fp8_blocks.argtypes = [
            ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int,
            ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_size_t, ctypes.c_void_p,
            ctypes.c_int, ctypes.POINTER(Error)]
        _lib.cleave_dequantize_fp8_blocks.restype = ctypes.c_int
    return _lib


# The NumPy array type that holds each dtype's bits.
BITS = {F16: np.uint16, BF16: np.uint16, F32: np.uint32, F64: np.uint64, F8E4M3: np.uint8}


def cast(bits, src, dst):
    """cleave_cast of an array of `src` bits: (status, message, array of `dst` bits)."""
    bits = np.ascontiguousarray(bits, dtype=BITS[src])
    out = np.zeros(bits.size, dtype=BITS[dst])
    err = Error()
    status = lib().cleave_cast(bits.ctypes.data, src, out.ctypes.data, dst, bits.size,
                               ctypes.byref(err))
    return status, err.message.decode(), out


def dequantize(weight, scale, scale_type, block, dst, first=0, count=None):
    """cleave_dequantize_fp8_blocks: weight uint8 [..., rows, cols], scale bits."""
    rows, cols = weight.shape[-2:]
    flat = np.ascontiguousarray(weight).reshape(-1)
    count = flat.size - first if count is None else count
    scale = np.ascontiguousarray(scale, dtype=BITS[scale_type])
    out = np.zeros(count, dtype=BITS.get(dst, np.uint64))
    err = Error()
    status = lib().cleave_dequantize_fp8_blocks(
        flat.ctypes.data + first, rows, cols, scale.ctypes.data, scale_type, block[0], block[1],
        first, count, out.ctypes.data, dst, ctypes.byref(err))
    return status, err.message.decode(), out


def e4m3_value(byte):
    """The value of an e4m3 ("fn") byte, from the OCP definition, as a Python float (NaN for
    S.1111.111)."""
    sign = -1.0 if byte & 0x80 else 1.0
    e, m = (byte >> 3) & 0xF, byte & 7
    if e == 0xF and m == 7:
        return float("nan")
    if e == 0:
        return sign * m / 8 * 2.0 ** -6
    return sign * (1 + m / 8) * 2.0 ** (e - 7)


def round_exact(x, ebits, mbits):
    """The bits of the finite, non-NaN float `x` rounded to nearest even in a binary format of
    `ebits` exponent and `mbits` mantissa bits, by exact rational arithmetic."""
    sign = 1 << (ebits + mbits) if (x < 0 or (x == 0 and np.copysign(1, x) < 0)) else 0
    v = abs(Fraction(x))
    bias = (1 << (ebits - 1)) - 1
    top = (1 << ebits) - 1
    if v == 0:
        return sign
    unit = Fraction(2) ** (1 - bias - mbits)  # the smallest subnormal
    e = max(v.numerator.bit_length() - v.denominator.bit_length() - 1, 1 - bias)
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    while e > 1 - bias and Fraction(2) ** e > v:
        e -= 1
    ulp = Fraction(2) ** (e - mbits) if e >= 1 - bias else unit
    q, r = divmod(v, ulp)
    q = int(q)
    if r > ulp / 2 or (r == ulp / 2 and q & 1):
        q += 1
    value = q * ulp
    # Re-encode the rounded value.
    if value >= Fraction(2) ** (bias + 1):
        return sign | (top << mbits)
    if value < Fraction(2) ** (1 - bias):
        return sign | int(value / unit)
    e2 = e if value < Fraction(2) ** (e + 1) else e + 1
    mant = int(value / Fraction(2) ** (e2 - mbits)) - (1 << mbits)
    return sign | ((e2 + bias) << mbits) | mant
