"""Property-based tests: random shapes, axes and lengths against NumPy slicing."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import cleave
from conftest import assert_same, reference


@st.composite
def cases(draw):
    rank = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(0, 5), min_size=rank, max_size=rank))
    axis = draw(st.integers(-rank, rank - 1))
    dim = shape[axis]
    n = draw(st.integers(1, 4))
    cuts = sorted(draw(st.lists(st.integers(0, dim), min_size=n - 1, max_size=n - 1)))
    lengths = [b - a for a, b in zip([0] + cuts, cuts + [dim])]
    dtype = draw(st.sampled_from([np.uint8, np.int16, np.float32, np.complex128, "U3", "S2"]))
    step = draw(st.sampled_from([1, 2]))
    return shape, axis, lengths, dtype, step


@settings(max_examples=150, deadline=None)
@given(cases(), st.sampled_from([None, True, "out"]))
def test_variadic_split_matches_numpy(case, copy):
    shape, axis, lengths, dtype, step = case
    full = list(shape)
    full[-1] *= step
    x = np.arange(int(np.prod(full))).astype(dtype).reshape(full)
    x = x[..., ::step]  # a non-contiguous input when step is 2
    want = reference(x, axis, lengths)
    if copy == "out":
        out = [np.empty(w.shape, x.dtype) for w in want]
        got = cleave.variadic_split(x, lengths, axis=axis, out=out)
    else:
        got = cleave.variadic_split(x, lengths, axis=axis, copy=copy)
    assert_same(got, want)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 12), st.integers(1, 5), st.sampled_from([11, 13, 18]))
def test_onnx_split_num_outputs(dim, n, opset):
    x = np.arange(dim * 2).reshape(dim, 2)
    if opset == 18:
        size = -(-dim // n)
        lengths = [min(size, max(dim - i * size, 0)) for i in range(n)]
        ok = dim >= n and (dim % size == 0 or True) and sum(lengths) == dim and all(lengths)
        ok = ok or dim == 0
    else:
        lengths = [dim // n] * n
        ok = dim % n == 0
    try:
        got = cleave.onnx_split(x, num_outputs=n, opset=opset, copy=True)
    except cleave.Error:
        assert not ok or opset == 18
        return
    assert_same(got, reference(x, 0, [g.shape[0] for g in got]))
    if opset != 18:
        assert [g.shape[0] for g in got] == lengths


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3),
       st.integers(-4, 3),
       st.lists(st.integers(-2, 5), min_size=1, max_size=4))
def test_any_lengths_either_match_numpy_or_write_nothing(shape, axis, lengths):
    """Valid or not, a call with out= either gives NumPy's answer or raises cleave.Error and
    leaves every out array as it was."""
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    # out arrays shaped by the lengths as written (a -1 takes what is left, when it can)
    ok_axis = -len(shape) <= axis < len(shape)
    dim = shape[axis] if ok_axis else 0
    rest = dim - sum(n for n in lengths if n != -1)
    sizes = [rest if n == -1 else n for n in lengths]
    out = [np.full([max(s, 0) if d == (axis % len(shape)) else shape[d]
                    for d in range(len(shape))], -9, np.int32) for s in sizes]
    try:
        cleave.variadic_split(x, lengths, axis=axis, out=out)
    except cleave.Error as e:
        assert e.message
        assert all((o == -9).all() for o in out)
        return
    valid = ok_axis and lengths.count(-1) <= 1 and all(s >= 0 for s in sizes) and \
        sum(sizes) == dim
    assert valid
    assert_same(out, reference(x, axis, sizes))
