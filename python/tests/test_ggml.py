"""cleave.ggml_dequantize and cleave.ggml_quantize: the binding's side (arguments, shapes,
layouts, errors). The values against gguf-py are tests/convert/test_ggml_blocks.py's."""
import sys

import numpy as np
import pytest

import cleave


def q8_0_block(d_bits, values):
    return np.array([d_bits], dtype="<u2").view(np.uint8).tobytes() + bytes(
        np.array(values, dtype=np.int8).view(np.uint8))


def test_known_block():
    block = q8_0_block(0x3800, list(range(-16, 16)))  # d = 0.5
    got = cleave.ggml_dequantize(block, "Q8_0")
    assert got.dtype == np.float32 and got.shape == (32,)
    assert np.array_equal(got, np.arange(-16, 16, dtype=np.float32) * 0.5)
    assert np.array_equal(cleave.ggml_dequantize(block, 8), got)
    assert np.array_equal(cleave.ggml_dequantize(bytearray(block), "q8_0"), got)
    assert np.array_equal(cleave.ggml_dequantize(memoryview(block), "Q8_0"), got)


def test_rows_keep_their_leading_shape():
    rows = np.frombuffer(q8_0_block(0x3c00, [1] * 32) * 6, dtype=np.uint8).reshape(3, 1, 68)
    got = cleave.ggml_dequantize(rows, "Q8_0")
    assert got.shape == (3, 1, 64) and np.all(got == 1.0)


def test_any_dtype_and_layout_is_read_as_its_bytes():
    # a uint16 array's last axis is twice as many bytes, as ndarray.view(uint8) makes it
    halves = np.array([[0x3c00, 0x4000], [0xc000, 0x0000]], dtype="<u2")
    assert np.array_equal(cleave.ggml_dequantize(halves, "F16"),
                          np.array([[1, 2], [-2, 0]], dtype=np.float32))
    # a non-contiguous view is read in its logical order
    big = np.array([[0x3c00, 0x1111], [0x4000, 0x2222]], dtype="<u2")
    assert np.array_equal(cleave.ggml_dequantize(big[:, :1].T, "F16"),
                          np.array([[1, 2]], dtype=np.float32))


def test_quantize_round_trip():
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32)
    q = cleave.ggml_quantize(x, "Q8_0")
    assert q.dtype == np.uint8 and q.shape == (2, 34)
    y = cleave.ggml_dequantize(q, "Q8_0")
    assert y.shape == (2, 32) and np.max(np.abs(y - x)) < 1 / 127
    assert np.array_equal(cleave.ggml_quantize(x.tolist(), 8), q)  # array-likes, type numbers
    assert np.array_equal(cleave.ggml_quantize(x.astype(np.float64), "Q8_0"), q)


def test_errors():
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_dequantize(np.zeros((2, 35), dtype=np.uint8), "Q8_0")
    assert e.value.status_name == "invalid shape"
    assert str(e.value) == "a row of 35 bytes is not a whole number of Q8_0 blocks of 34 bytes"
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_dequantize(np.array(3, dtype=np.uint8), "Q8_0")
    assert str(e.value) == "data must have at least one axis"
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_quantize(np.float32(3), "Q8_0")
    assert str(e.value) == "x must have at least one axis"
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_quantize(np.zeros(48, dtype=np.float32), "Q8_0")
    assert str(e.value) == "a row of 48 elements is not a whole number of Q8_0 blocks of 32"
    with pytest.raises(cleave.Error) as e:
        cleave.ggml_dequantize(b"", 2**70)
    assert str(e.value) == "1180591620717411303424 is no ggml type"
    with pytest.raises(TypeError):
        cleave.ggml_dequantize(b"", None)
    with pytest.raises(TypeError):
        cleave.ggml_dequantize(object(), "Q8_0")
    with pytest.raises(TypeError):
        cleave.ggml_quantize(np.zeros(32, dtype=np.float32))


def test_no_reference_leaks():
    data = np.zeros((4, 34), dtype=np.uint8)
    before = sys.getrefcount(data)
    for _ in range(100):
        cleave.ggml_dequantize(data, "Q8_0")
        cleave.ggml_dequantize(data[:, :35 - 1], "Q8_0")
        with pytest.raises(cleave.Error):
            cleave.ggml_dequantize(data[:, :33], "Q8_0")
    assert sys.getrefcount(data) == before
