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
