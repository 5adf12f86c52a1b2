"""Every operator and version against NumPy slicing, for every kind of dtype."""
import numpy as np
import pytest

import cleave
from conftest import DTYPES, assert_same, reference, sample

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("copy", [None, True, False, "out"])
def test_split_every_dtype(dtype, copy):
    x = sample((4, 6, 3), dtype)
    want = reference(x, 1, [2, 2, 2])
    if copy == "out":
        out = [np.zeros_like(w) for w in want]
        got = cleave.split(x, 3, axis=1, out=out)
        assert all(g is o for g, o in zip(got, out))
    else:
        got = cleave.split(x, 3, axis=1, copy=copy)
    assert isinstance(got, tuple)
    assert_same(got, want)
    for g in got:
        if copy is True or copy == "out":
            assert not np.shares_memory(g, x) and g.flags.c_contiguous
        else:
            assert np.shares_memory(g, x)


@pytest.mark.parametrize("copy", [None, True])
def test_variadic_split(copy):
    x = sample((6, 4), np.float32)
    got = cleave.variadic_split(x, [1, -1, 2], axis=0, copy=copy)
    assert_same(got, reference(x, 0, [1, 3, 2]))
    got = cleave.variadic_split(x, np.array([0, 4], dtype=np.int32), axis=-1, copy=copy)
    assert_same(got, reference(x, 1, [0, 4]))


@pytest.mark.parametrize("copy", [None, True])
def test_split_to_sequence(copy):
    x = sample((5, 2), np.int16)
    got = cleave.split_to_sequence(x, 2, copy=copy)
    assert isinstance(got, list)
    assert_same(got, reference(x, 0, [2, 2, 1]))
    got = cleave.split_to_sequence(x, [1, 4], copy=copy)
    assert_same(got, reference(x, 0, [1, 4]))
    got = cleave.split_to_sequence(x, axis=1, keepdims=0, copy=copy)
    assert_same(got, [x[:, 0], x[:, 1]])
    got = cleave.split_to_sequence(x, axis=1, keepdims=1, opset=11, copy=copy)
    assert_same(got, reference(x, 1, [1, 1]))


@pytest.mark.parametrize("copy", [None, True])
def test_onnx_split_versions(copy):
    x = sample((7, 3), np.float64)
    assert_same(cleave.onnx_split(x, num_outputs=3, copy=copy), reference(x, 0, [3, 3, 1]))
    assert_same(cleave.onnx_split(x, [2, 5], opset=13, copy=copy), reference(x, 0, [2, 5]))
    assert_same(cleave.onnx_split(x, axis=1, num_outputs=3, opset=11, copy=copy),
                reference(x, 1, [1, 1, 1]))
    with pytest.raises(cleave.Error) as e:
        cleave.onnx_split(x, num_outputs=2, opset=13)
    assert e.value.status_name == "invalid split"


def test_onnx_split_1_refuses_integer_types_it_does_not_allow():
    # ONNX Split-1 and -2 allow only float types.
    with pytest.raises(cleave.Error) as e:
        cleave.onnx_split(np.arange(4), num_outputs=2, opset=1)
    assert e.value.status_name == "unsupported type"


def test_empty_and_zero_lengths():
    x = np.zeros((0, 3), np.float32)
    got = cleave.split(x, 3, axis=1, copy=True)
    assert [g.shape for g in got] == [(0, 1)] * 3
    got = cleave.split_to_sequence(np.zeros((0,)), 2)
    assert got == []


def test_non_contiguous_input():
    base = sample((6, 8), np.int32)
    x = base[:, ::2]
    for copy in (None, False):
        got = cleave.split(x, 2, axis=0, copy=copy)
        assert all(np.shares_memory(g, base) for g in got)
        assert_same(got, reference(x, 0, [3, 3]))
    got = cleave.split(x, 2, axis=1, copy=True)
    assert_same(got, reference(x, 1, [2, 2]))
    xt = base.T
    out = [np.empty((4, 6), np.int32), np.empty((4, 6), np.int32)]
    cleave.split(xt, 2, axis=0, out=out)
    assert_same(out, reference(xt, 0, [4, 4]))


def test_buffer_protocol_inputs():
    data = bytearray(range(12))
    got = cleave.split(data, 3)
    assert [bytes(g) for g in got] == [bytes(range(0, 4)), bytes(range(4, 8)), bytes(range(8, 12))]
    got[0][0] = 99  # a view of the bytearray
    assert data[0] == 99
    mv = memoryview(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert_same(cleave.split(mv, 2, axis=1, copy=True),
                reference(np.asarray(mv), 1, [2, 2]))
    ro = bytes(range(6))
    v = cleave.split(ro, 2)
    assert not v[0].flags.writeable


def test_threads_give_the_same_bytes():
    x = np.arange(3 << 20, dtype=np.float32).reshape(48, -1)
    want = reference(x, 1, [x.shape[1] // 4] * 4)
    for threads in (1, 2, 3):
        assert_same(cleave.split(x, 4, axis=1, copy=True, threads=threads), want)
        out = [np.empty_like(w) for w in want]
        cleave.split(x, 4, axis=1, out=out, threads=threads)
        assert_same(out, want)


def test_dtype_reinterprets_same_sized_elements():
    x = np.arange(8, dtype=np.uint16)
    got = cleave.onnx_split(x, num_outputs=2, dtype="bf16", copy=True)
    assert_same(got, reference(x, 0, [4, 4]))
    with pytest.raises(cleave.Error) as e:  # bfloat16 came to ONNX Split in opset 13
        cleave.onnx_split(x, num_outputs=2, opset=11, dtype="bf16")
    assert e.value.status_name == "unsupported type"
    with pytest.raises(TypeError):
        cleave.split(np.arange(4, dtype=np.uint8), 2, dtype="bf16")


ONNX_FLOATS = {np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("opset", [1, 2, 11, 13, 18])
def test_onnx_split_every_version_and_dtype(dtype, opset):
    x = sample((4, 6), dtype)
    try:
        if opset < 18:
            # (no explicit split here: Split-1 reads it with the data's float type)
            got = cleave.onnx_split(x, axis=1, num_outputs=2, opset=opset)
        else:
            got = cleave.onnx_split(x, axis=1, num_outputs=4, opset=opset)
    except cleave.Error as e:
        # Split-1 takes only float16/float/double; from Split-2 on every type.
        assert opset < 2 and np.dtype(dtype) not in ONNX_FLOATS, e.message
        assert e.status_name == "unsupported type"
        return
    assert opset >= 2 or np.dtype(dtype) in ONNX_FLOATS
    assert_same(got, reference(x, 1, [3, 3] if opset < 18 else [2, 2, 2, 0]))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("opset", [11, 24])
def test_split_to_sequence_every_version_and_dtype(dtype, opset):
    x = sample((5, 3), dtype)
    assert_same(cleave.split_to_sequence(x, 2, opset=opset), reference(x, 0, [2, 2, 1]))
    assert_same(cleave.split_to_sequence(x, axis=1, keepdims=0, opset=opset),
                [x[:, i] for i in range(3)])
