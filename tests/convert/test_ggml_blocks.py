#!/usr/bin/python3
"""The library's ggml block kernels (cleave_ggml_dequantize, cleave_ggml_quantize, reached
through cleave.ggml_dequantize and cleave.ggml_quantize) against gguf-py's quants.py, the
reference: the same float32 bits for every block, the same quantized bytes.

gguf-py is llama.cpp's, from the pinned node-llama-cpp package (tests/gguf/llama/setup.sh
installs it and prints its folder). Where it cannot be had the tests are skipped saying why;
under CI (CI=true) that fails them instead.

- Random bytes are valid blocks for every type: each type is fed thousands of random blocks, with
  its f16 scales often replaced by NaNs (quiet and signalling, both signs), infinities, zeros,
  subnormals and the largest finite values, plus all-zero and all-ones blocks; every output
  element must have gguf-py's bits (compared as uint32, so NaN payloads count).
- Blocks gguf-py itself makes (its quantize, where it has one) dequantize to its values.
- Q8_0 (and F16, BF16) quantization gives gguf-py's bytes, for ordinary, extreme and non-finite
  values, and refuses exactly the rows gguf-py refuses (not a whole number of blocks).
"""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cleave
from clitest import check

HERE = os.path.dirname(os.path.abspath(__file__))
SETUP = os.path.join(HERE, "..", "gguf", "llama", "setup.sh")


@pytest.fixture(scope="module")
def gguf():
    """gguf-py's package (gguf.quants, gguf.GGMLQuantizationType, gguf.GGML_QUANT_SIZES)."""
    r = subprocess.run(["sh", SETUP], capture_output=True, text=True, timeout=1200,
                       stdin=subprocess.DEVNULL)
    reason = None
    if r.returncode != 0:
        reason = ("llama.cpp's gguf-py (node-llama-cpp, by tests/gguf/llama/setup.sh) cannot be "
                  "had here: " + (r.stderr.strip().splitlines() or ["no message"])[-1])
    else:
        folder = os.path.join(r.stdout.strip().splitlines()[-1], "llama.cpp", "gguf-py")
        if not os.path.isfile(os.path.join(folder, "gguf", "quants.py")):
            reason = "llama.cpp's gguf-py cannot be had here: no gguf/quants.py in " + folder
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (under CI this test must run)")
        pytest.skip(reason)
    sys.path.insert(0, folder)
    import gguf as module  # noqa: E402  (only found once setup.sh ran)
    return module


# The types cleave dequantizes, and the byte offsets of each one's f16 scales in a block.
SCALES = {
    "F32": [], "F16": [], "BF16": [],
    "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0],
    "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208],
    "TQ1_0": [52], "TQ2_0": [64], "IQ4_NL": [0], "IQ4_XS": [0], "MXFP4": [], "NVFP4": [],
}
# What quants.py dequantizes and cleave does not (yet): the grid-based i-quants.
NOT_YET = {"IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M"}

SPECIAL_F16 = np.array([0x7c00, 0xfc00, 0x7c01, 0xfc01, 0x7e00, 0xfe00, 0x7d55, 0xfdff, 0x7fff,
                        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x7bff, 0xfbff, 0x3c00],
                       dtype=np.uint16)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def reference(gguf, data, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN arithmetic warns
        return gguf.quants.dequantize(data, gguf.GGMLQuantizationType[name])


def random_blocks(rng, name, type_size, n):
    data = rng.integers(0, 256, size=(n, type_size), dtype=np.uint8)
    for off in SCALES[name]:
        sel = rng.random(n) < 0.4
        v = SPECIAL_F16[rng.integers(0, len(SPECIAL_F16), size=int(sel.sum()))]
        data[sel, off] = v & 0xFF
        data[sel, off + 1] = v >> 8
    data[::53] = 0
    data[1::71] = 0xFF
    return data


def assert_same_bits(gguf, name, data, got, want):
    """got == want bit for bit, save one case where NumPy's own choice is not a function of the
    values: Q4_1 and Q5_1 add a NaN minimum to a NaN product (a NaN scale, or an infinite one
    times 0), and which of the two NaNs NumPy returns depends on where the element falls in its
    vector loop (memory alignment); there cleave gives the minimum's, and gguf-py's result must
    be a NaN."""
    g, w = bits(got), bits(want)
    differ = g != w
    if name in ("Q4_1", "Q5_1") and differ.any():
        blocks = np.ascontiguousarray(data).reshape(-1, {"Q4_1": 20, "Q5_1": 24}[name])
        m = blocks[:, 2:4].copy().view(np.float16).astype(np.float32)
        quiet_m = np.repeat(bits(m).reshape(-1) | 0x00400000, 32).reshape(g.shape)
        m_nan = np.repeat(np.isnan(m).reshape(-1), 32).reshape(g.shape)
        differ &= ~(m_nan & (g == quiet_m) & np.isnan(want))
    first = tuple(np.argwhere(differ)[0]) if differ.any() else None
    check(first is None,
          "%s: %d of %d elements differ; first at %s: cleave %#010x, gguf-py %#010x"
          % (name, int(differ.sum()), differ.size, first, int(g[first]) if first else 0,
             int(w[first]) if first else 0))


def test_coverage(gguf):
    """Every type quants.py dequantizes is dequantized here, save the ones listed as not yet."""
    T = gguf.GGMLQuantizationType
    theirs = {t.name for t in T if t.name in ("F32", "F16") or t in gguf.quants._type_traits}
    ours = {t.name for t in T if _can(t.name)}
    check(ours == theirs - NOT_YET, "cleave dequantizes %s, gguf-py %s" % (sorted(ours), sorted(theirs)))
    check(set(SCALES) == ours, "the test covers %s" % sorted(SCALES))


def _can(name):
    try:
        cleave.ggml_dequantize(b"", name)
        return True
    except cleave.Error:
        return False


@pytest.mark.parametrize("name", sorted(SCALES))
def test_random_blocks(gguf, name):
    """Random blocks, with special scales, as 2-D rows of several blocks."""
    rng = np.random.default_rng(sum(map(ord, name)))
    _, type_size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[name]]
    data = random_blocks(rng, name, type_size, 6000).reshape(1000, 6 * type_size)
    want = reference(gguf, data, name)
    got = cleave.ggml_dequantize(data, name)
    check(got.shape == want.shape and got.dtype == np.float32,
          "%s: %s %s, gguf-py %s" % (name, got.shape, got.dtype, want.shape))
    assert_same_bits(gguf, name, data, got, want)


@pytest.mark.parametrize("name", sorted(SCALES))
def test_bytes_and_type_numbers(gguf, name):
    """A bytes object is one row; gguf-py's enum (an int) names the type as the name does."""
    rng = np.random.default_rng(7)
    T = gguf.GGMLQuantizationType[name]
    _, type_size = gguf.GGML_QUANT_SIZES[T]
    data = random_blocks(rng, name, type_size, 5).reshape(-1)
    want = reference(gguf, data, name)
    assert_same_bits(gguf, name, data, cleave.ggml_dequantize(data.tobytes(), T), want)
    assert_same_bits(gguf, name, data, cleave.ggml_dequantize(data, name.lower()), want)
    check(cleave.ggml_dequantize(b"", T).shape == (0,), "empty input")


QUANTIZED_BY_GGUF = ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "TQ1_0", "TQ2_0", "MXFP4", "BF16"]


@pytest.mark.parametrize("name", QUANTIZED_BY_GGUF)
def test_real_blocks(gguf, name):
    """Blocks gguf-py's own quantize makes, from weights-like values of several scales."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((64, 512)) * np.logspace(-6, 4, 64)[:, None]).astype(np.float32)
    x[5] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = gguf.quants.quantize(x, gguf.GGMLQuantizationType[name])
    want = reference(gguf, data, name)
    got = cleave.ggml_dequantize(data, name)
    assert_same_bits(gguf, name, data, got, want)
    # and the values follow the weights (ternary types only roughly), so that a wrong layout
    # cannot pass unseen
    r = np.corrcoef(got[6:].ravel(), x[6:].ravel())[0, 1]
    check(r > 0.6, "%s: correlation %s with the weights" % (name, r))


def test_a_changed_bit_changes_the_values(gguf):
    """The comparison can fail: one flipped bit in a Q4_K block changes cleave's output."""
    rng = np.random.default_rng(11)
    data = rng.integers(0, 256, size=(4, 144), dtype=np.uint8)
    data[:, 0:4] = np.array([0x3c00, 0x3c00], dtype=np.uint16).view(np.uint8)
    before = cleave.ggml_dequantize(data, "Q4_K")
    data[2, 100] ^= 0x10
    after = cleave.ggml_dequantize(data, "Q4_K")
    check(not np.array_equal(bits(before), bits(after)), "a flipped bit changed nothing")
    check(np.array_equal(bits(after), bits(reference(gguf, data, "Q4_K"))), "gguf-py differs")


def extreme_floats(rng, n):
    """Values that test the Q8_0 quantizer's arithmetic: ordinary, huge, tiny, subnormal,
    halfway cases, signed zeros, and blocks holding an infinity or a NaN."""
    x = rng.standard_normal(n).astype(np.float32)
    blocks = x.reshape(-1, 32)
    k = len(blocks)
    scale = np.float32(10.0) ** rng.integers(-44, 38, size=k).astype(np.float32)
    blocks *= scale[:, None]
    blocks[0] = 0
    blocks[1] = -0.0
    blocks[2, 5] = np.inf
    blocks[3, 7] = -np.inf
    blocks[4, 9] = np.nan
    blocks[5] = np.float32(3.4e38)
    blocks[6, :] = np.arange(32, dtype=np.float32) - 15.5   # halfway products
    blocks[7, :] = np.float32(1e-45) * np.arange(32, dtype=np.float32)  # subnormals
    blocks[8, :] = np.float32(2.9e-39) * rng.standard_normal(32).astype(np.float32)
    blocks[9, :] = 65504.0 * 127
    blocks[10, 0] = 65520.0 * 127  # d rounds to f16 infinity
    blocks[11] = np.float32(6e-8) * 127  # d near f16's smallest subnormal
    return x


def test_quantize_q8_0(gguf):
    rng = np.random.default_rng(5)
    x = extreme_floats(rng, 32 * 4000).reshape(500, 256)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = gguf.quants.quantize(x, gguf.GGMLQuantizationType.Q8_0)
    got = cleave.ggml_quantize(x, "Q8_0")
    check(got.dtype == np.uint8 and got.shape == want.shape == (500, 8 * 34),
          "Q8_0: %s %s, gguf-py %s" % (got.dtype, got.shape, want.shape))
    differ = np.argwhere(got != want)
    check(len(differ) == 0, "Q8_0: %d bytes differ, first at %s" % (
        len(differ), differ[0] if len(differ) else None))
    # and back: cleave's blocks dequantize as gguf-py's do
    check(np.array_equal(bits(cleave.ggml_dequantize(got, 8)), bits(reference(gguf, want, "Q8_0"))),
          "Q8_0 blocks dequantize differently")


@pytest.mark.parametrize("name", ["F16", "BF16", "F32"])
def test_quantize_casts(gguf, name):
    rng = np.random.default_rng(6)
    x = extreme_floats(rng, 32 * 1000).reshape(100, 320)
    extra = np.array([0x7f800001, 0xff800001, 0x7fa00000, 0x7fc00001, 0x33000000, 0x33000001,
                      0x387fe000, 0x477fefff, 0x477ff000, 0x7f7fffff, 0x00000001, 0x80000000],
                     dtype=np.uint32).view(np.float32)
    x[0, :len(extra)] = extra
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = gguf.quants.quantize(x, gguf.GGMLQuantizationType[name])
    got = cleave.ggml_quantize(x, name)
    want = np.ascontiguousarray(want).view(np.uint8)
    differ = np.argwhere(got != want)
    check(got.shape == want.shape and len(differ) == 0,
          "%s: %d bytes differ, first at %s" % (name, len(differ), differ[0] if len(differ) else None))


def test_rows_that_are_not_whole_blocks(gguf):
    """ggml_quantize refuses exactly the rows gguf-py's can_quantize refuses, naming the row."""
    for n in [0, 1, 16, 31, 32, 33, 48, 64, 96, 100, 4096, 4097]:
        x = np.ones((2, n), dtype=np.float32)
        theirs = gguf.quants.Q8_0.can_quantize(x)
        if theirs:
            check(cleave.ggml_quantize(x, "Q8_0").shape == (2, n // 32 * 34), "row of %d" % n)
        else:
            with pytest.raises(cleave.Error) as e:
                cleave.ggml_quantize(x, "Q8_0")
            check(e.value.status_name == "invalid shape", e.value.status_name)
            check(str(e.value) == "a row of %d elements is not a whole number of Q8_0 blocks of 32"
                  % n, str(e.value))


def test_errors():
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_dequantize(bytes(35), "Q8_0")
    check(e.value.status_name == "invalid shape", e.value.status_name)
    check(str(e.value) == "a row of 35 bytes is not a whole number of Q8_0 blocks of 34 bytes", str(e.value))
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_dequantize(bytes(66), "IQ2_XXS")
    check(e.value.status_name == "unsupported type", e.value.status_name)
    check(str(e.value) == "IQ2_XXS cannot be dequantized", str(e.value))
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_dequantize(bytes(4), 5)
    check(str(e.value) == "5 is no ggml type", str(e.value))
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_dequantize(bytes(4), "Q9_9")
    check(e.value.status_name == "unsupported type", e.value.status_name)
    check(str(e.value) == "no ggml type is named 'Q9_9'", str(e.value))
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_quantize(np.ones(256, dtype=np.float32), "Q4_K")
    check(str(e.value) == "quantizing to Q4_K is not supported", str(e.value))
    with pytest.raises(TypeError):
        cleave.ggml_dequantize(bytes(4), 1.5)
    with pytest.raises(TypeError):
        cleave.ggml_dequantize(bytes(4))
