"""cleave.concat, cleave.concat_from_sequence and cleave.ConcatPlan against np.concatenate and
np.stack, every error, out=, torch tensors, packed types, and the splits' inverse."""
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cleave
from conftest import DTYPES, sample
from test_packed import pack, unpack


def assert_equal(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind == "V":
        assert got.tobytes() == np.ascontiguousarray(want).tobytes()
    else:
        np.testing.assert_array_equal(got, want)


@st.composite
def concat_case(draw):
    """Shapes equal except on axis, the axis (either sign), and each input's length on it."""
    rank = draw(st.integers(1, 4))
    base = draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank))
    axis = draw(st.integers(-rank, rank - 1))
    lengths = draw(st.lists(st.integers(0, 5), min_size=1, max_size=5))
    shapes = []
    for n in lengths:
        s = list(base)
        s[axis] = n
        shapes.append(tuple(s))
    return shapes, axis


def parts(shapes, dtype):
    """Inputs of distinct values (each a slice of one sample, so no two are alike)."""
    total = sum(int(np.prod(s)) for s in shapes)
    flat = sample((total,), dtype)
    out, start = [], 0
    for s in shapes:
        n = int(np.prod(s))
        out.append(flat[start:start + n].reshape(s))
        start += n
    return out


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@given(case=concat_case())
def test_concat_matches_np_concatenate(dtype, case):
    shapes, axis = case
    xs = parts(shapes, dtype)
    # np.concatenate gives byte-swapped inputs in native order; cleave keeps the inputs' dtype.
    want = np.concatenate(xs, axis=axis).astype(xs[0].dtype)
    assert_equal(cleave.concat(xs, axis), want)
    out = np.empty_like(want)
    assert cleave.concat(xs, axis=axis, out=out) is out
    assert_equal(out, want)
    assert_equal(cleave.concat_from_sequence(xs, axis), want)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@given(rank=st.integers(0, 3), n=st.integers(1, 4), data=st.data())
def test_concat_from_sequence_new_axis_matches_np_stack(dtype, rank, n, data):
    shape = tuple(data.draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank)))
    axis = data.draw(st.integers(-rank - 1, rank))
    xs = parts([shape] * n, dtype)
    want = np.stack(xs, axis=axis).astype(xs[0].dtype)
    assert_equal(cleave.concat_from_sequence(xs, axis, new_axis=1), want)
    assert_equal(cleave.concat_from_sequence(xs, axis=axis, new_axis=True), want)
    out = np.empty_like(want)
    assert cleave.concat_from_sequence(xs, axis, True, out=out) is out
    assert_equal(out, want)


@given(case=concat_case(), threads=st.integers(1, 4))
def test_threads_give_the_same_output(case, threads):
    shapes, axis = case
    xs = parts(shapes, np.float32)
    assert_equal(cleave.concat(xs, axis, threads=threads), np.concatenate(xs, axis=axis))


def test_large_inputs_on_several_threads():
    xs = [np.random.default_rng(i).random((300, 700 + i)) for i in range(3)]
    want = np.concatenate(xs, axis=1)
    for threads in (1, 2, 3):
        assert_equal(cleave.concat(xs, 1, threads=threads), want)


def test_strided_and_reversed_inputs_are_read_as_their_values():
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    xs = [a[:, ::2], a[::-1, 1::2], a.T[:3].T]
    assert_equal(cleave.concat(xs, axis=1), np.concatenate(xs, axis=1))


def test_object_arrays_give_the_same_objects():
    x = np.array(["a", "bb", "ccc"], dtype=object)
    got = cleave.concat([x, x[:1]])
    assert list(got) == ["a", "bb", "ccc", "a"]
    assert got[3] is x[0]


def test_object_arrays_of_other_objects_are_refused():
    x = np.array([1, "a"], dtype=object)
    with pytest.raises(TypeError, match="object arrays must hold str .*element 0 is int"):
        cleave.concat([x, x])


def test_output_is_fresh_writable_and_c_contiguous():
    a = np.ones((2, 2), np.float32)
    got = cleave.concat([a, a])
    assert got.flags.c_contiguous and got.flags.writeable and got.flags.owndata is False
    got[0, 0] = 5
    assert a[0, 0] == 1
    assert not np.shares_memory(got, a)


def test_a_single_input_is_copied():
    a = np.arange(6).reshape(2, 3)
    got = cleave.concat([a], axis=1)
    assert_equal(got, a)
    assert not np.shares_memory(got, a)


def test_tuples_and_generators_of_sequences():
    a = np.arange(4)
    assert_equal(cleave.concat((a, a)), np.concatenate((a, a)))
    assert_equal(cleave.concat([memoryview(b"ab"), memoryview(b"c")]),
                 np.frombuffer(b"abc", np.uint8))


# ONNX Concat-1's default axis is 1; every other version needs an axis, which the binding
# supplies as NumPy's default 0 (an explicit axis is passed to the operator unchanged).
def test_opset_1_defaults_to_axis_1():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(4, dtype=np.float32).reshape(2, 2)
    for opset in (1, 2, 3):
        assert_equal(cleave.concat([a, b], opset=opset), np.concatenate([a, b], axis=1))
    c = np.arange(3, dtype=np.float32).reshape(1, 3)
    for opset in (None, 4, 11, 13, 23):
        assert_equal(cleave.concat([a, c], opset=opset), np.concatenate([a, c], axis=0))


@pytest.mark.parametrize("opset", [1, 4, 11, 13])
def test_onnx_concat_versions(opset):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_equal(cleave.concat([a, a], 1, opset=opset), np.concatenate([a, a], axis=1))
    if opset < 11:
        with pytest.raises(cleave.Error, match=r"axis -1 is out of range \[0, 1\].*negative"):
            cleave.concat([a, a], -1, opset=opset)
    else:
        assert_equal(cleave.concat([a, a], -1, opset=opset), np.concatenate([a, a], axis=-1))


ERRORS = [
    # (call, exception type, message pattern)
    (lambda a, b: cleave.concat([a, b]), cleave.Error,
     r"inputs\[1\]\.shape\[1\] is 2 but inputs\[0\]\.shape\[1\] is 3: the inputs of OpenVINO "
     r"Concat-1 must have equal dims except on axis 0"),
    (lambda a, b: cleave.concat([a, a.astype(np.float64)]), cleave.Error,
     r"inputs\[1\] has type f64 but inputs\[0\] has type f32"),
    (lambda a, b: cleave.concat([a, a.astype(">f4")]), cleave.Error,
     r"inputs\[1\] has dtype >f4 but inputs\[0\] has dtype float32: nothing is converted"),
    (lambda a, b: cleave.concat([]), cleave.Error, r"needs at least one input, got none"),
    (lambda a, b: cleave.concat(a), TypeError,
     r"arrays must be a sequence of arrays \(a list or tuple\), not numpy\.ndarray"),
    (lambda a, b: cleave.concat(5), TypeError, r"arrays must be a sequence of arrays.*not int"),
    (lambda a, b: cleave.concat("ab"), TypeError, r"arrays must be a sequence.*not str"),
    (lambda a, b: cleave.concat([a, 5]), TypeError,
     r"inputs\[1\] must be a NumPy array, an object with the buffer protocol or one with "
     r"__dlpack__, not int"),
    (lambda a, b: cleave.concat([a, a[None]]), cleave.Error,
     r"inputs\[1\] has rank 3 but inputs\[0\] has rank 2"),
    (lambda a, b: cleave.concat([a, a], axis=2), cleave.Error,
     r"axis 2 is out of range \[-2, 1\] for inputs of rank 2"),
    (lambda a, b: cleave.concat([a, a], axis=-3), cleave.Error, r"axis -3 is out of range"),
    (lambda a, b: cleave.concat([a, a], axis=None), TypeError,
     r"axis must be an int, not None"),
    (lambda a, b: cleave.concat([a, a], axis="0"), TypeError, r"axis"),
    (lambda a, b: cleave.concat([a, a], opset=0), cleave.Error, r"opset"),
    (lambda a, b: cleave.concat([a, a], threads=0), ValueError,
     r"threads must be between 1 and 1024, not 0"),
    (lambda a, b: cleave.concat([a, a], bogus=1), TypeError, r"unexpected keyword argument"),
    (lambda a, b: cleave.concat([np.zeros(()), np.zeros(())]), cleave.Error, r"rank"),
    (lambda a, b: cleave.concat([a, a], out=np.zeros((4, 3), np.float64)), cleave.Error,
     r"out has dtype float64 but the output has dtype float32"),
    (lambda a, b: cleave.concat([a, a], out=np.zeros((4, 2), np.float32)), cleave.Error,
     r"out has shape \(4, 2\) but the output has shape \(4, 3\)"),
    (lambda a, b: cleave.concat([a, a], out=np.zeros((3, 4), np.float32).T), cleave.Error,
     r"out is not C-contiguous"),
    (lambda a, b: cleave.concat([a, a], out=[0] * 12), TypeError,
     r"out must be a NumPy array or a DLPack tensor, not list"),
    (lambda a, b: cleave.concat_from_sequence([a, a]), TypeError, r"axis"),
    (lambda a, b: cleave.concat_from_sequence([a, b], 0, new_axis=1), cleave.Error,
     r"inputs\[1\]\.shape\[1\] is 2 but inputs\[0\]\.shape\[1\] is 3: ConcatFromSequence-11 "
     r"with new_axis = 1 needs inputs of one shape"),
    (lambda a, b: cleave.concat_from_sequence([a, a], 3, new_axis=1), cleave.Error,
     r"axis 3 is out of range"),
    (lambda a, b: cleave.concat_from_sequence([a, a], 0, new_axis=2), (TypeError, ValueError),
     r"new_axis"),
    (lambda a, b: cleave.concat_from_sequence([np.zeros(2, np.uint16)] * 2, 0,
                                              dtype=cleave.bf16), cleave.Error,
     r"ConcatFromSequence-11 does not accept bf16 data"),
    (lambda a, b: cleave.concat([a, a], dtype=cleave.bf16), TypeError,
     r"inputs\[0\]: dtype=cleave.bf16 needs elements of its size"),
    (lambda a, b: cleave.concat([a, a], dtype=cleave.u4), TypeError,
     r"a packed dtype= needs shapes="),
    (lambda a, b: cleave.concat([a, a], shapes=[(1,), (1,)]), TypeError,
     r"shapes= is only for packed dtypes"),
]


@pytest.mark.parametrize("call,kind,pattern", ERRORS)
def test_errors(call, kind, pattern):
    a = np.zeros((2, 3), np.float32)
    b = np.zeros((2, 2), np.float32)
    with pytest.raises(kind, match=pattern):
        call(a, b)


def test_errors_write_nothing_into_out():
    a = np.ones((2, 3), np.float32)
    out = np.full((4, 3), 7, np.float32)
    with pytest.raises(cleave.Error):
        cleave.concat([a, a.astype(np.float64)], out=out)
    with pytest.raises(cleave.Error):
        cleave.concat([a, np.ones((2, 2), np.float32)], out=out)
    assert (out == 7).all()


def test_bf16_is_refused_below_onnx_concat_13():
    x = np.zeros((2, 2), np.uint16)
    assert_equal(cleave.concat([x, x], dtype=cleave.bf16), np.zeros((4, 2), np.uint16))
    assert_equal(cleave.concat([x, x], opset=13, dtype=cleave.bf16), np.zeros((4, 2), np.uint16))
    with pytest.raises(cleave.Error, match="bf16"):
        cleave.concat([x, x], opset=11, dtype=cleave.bf16)


# out= and overlaps: np.concatenate(out=) copies input after input, so an out that is also an
# input reads values already overwritten; cleave refuses any out sharing a byte with an input.
def test_out_sharing_memory_with_an_input_is_refused():
    buf = np.arange(16, dtype=np.float32)
    a, b = buf[:4].reshape(2, 2), buf[4:8].reshape(2, 2)
    out = buf[6:14].reshape(4, 2)
    before = buf.copy()
    with pytest.raises(cleave.Error, match=r"out overlaps inputs\[1\]: the output must not share "
                                           r"memory with an input"):
        cleave.concat([a, b], out=out)
    assert (buf == before).all()
    with pytest.raises(cleave.Error, match=r"out overlaps inputs\[0\]"):
        cleave.concat([buf[8:16].reshape(4, 2)[::2]], out=buf[8:12].reshape(2, 2))
    # Adjacent but disjoint: allowed.
    got = cleave.concat([a, b], out=buf[8:16].reshape(4, 2))
    assert_equal(got, np.arange(8, dtype=np.float32).reshape(4, 2))


def test_read_only_out_is_refused():
    a = np.ones(2)
    out = np.zeros(4)
    out.flags.writeable = False
    with pytest.raises(cleave.Error, match="out is read-only"):
        cleave.concat([a, a], out=out)


def test_out_of_an_equivalent_dtype_and_empty_out():
    a = np.ones(2, np.int64)
    out = np.zeros(4, np.dtype("=i8"))
    assert cleave.concat([a, a], out=out) is out
    e = np.zeros((0, 3))
    out = np.zeros((0, 3))
    assert cleave.concat([e, e], out=out) is out


@pytest.mark.parametrize("split,join", [
    (lambda x, c: cleave.split(x, 3, axis=1, copy=c), lambda p: cleave.concat(p, 1)),
    (lambda x, c: cleave.variadic_split(x, [2, -1, 0, 1], axis=-2, copy=c),
     lambda p: cleave.concat(p, -2)),
    (lambda x, c: cleave.split_to_sequence(x, [1, 4, 1], axis=1, copy=c),
     lambda p: cleave.concat_from_sequence(p, 1)),
    (lambda x, c: cleave.split_to_sequence(x, axis=1, keepdims=False, copy=c),
     lambda p: cleave.concat_from_sequence(p, 1, new_axis=1)),
    (lambda x, c: cleave.split_to_sequence(x, 4, axis=1, copy=c),
     lambda p: cleave.concat_from_sequence(p, 1)),
    (lambda x, c: cleave.onnx_split(x, axis=1, num_outputs=4, copy=c),
     lambda p: cleave.concat(p, 1, opset=18)),
    (lambda x, c: cleave.onnx_split(x, [3, 3], axis=1, opset=13, copy=c),
     lambda p: cleave.concat(p, 1, opset=13)),
    (lambda x, c: cleave.onnx_split(x, [1, 2], opset=11, copy=c),
     lambda p: cleave.concat(p, opset=11)),
])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("copy", [None, True])
def test_concat_undoes_every_split(split, join, dtype, copy):
    x = sample((3, 6, 2), dtype)
    assert_equal(join(split(x, copy)), x)


@given(rank=st.integers(1, 4), data=st.data())
def test_split_then_concat_is_the_identity(rank, data):
    shape = tuple(data.draw(st.lists(st.integers(0, 5), min_size=rank, max_size=rank)))
    axis = data.draw(st.integers(-rank, rank - 1))
    lengths = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    lengths[-1] += shape[axis] - sum(lengths) if sum(lengths) <= shape[axis] else 0
    if sum(lengths) != shape[axis] or lengths[-1] < 0:
        lengths = [shape[axis]]
    x = np.random.default_rng(rank).integers(0, 100, shape).astype(np.int16)
    assert_equal(cleave.concat(cleave.variadic_split(x, lengths, axis), axis), x)


def test_packed_concat_matches_the_bit_reference():
    for name, bits, msb in [(cleave.u4, 4, False), (cleave.u1, 1, True), (cleave.u2, 2, True),
                            ("int4", 4, False)]:
        rng = np.random.default_rng(bits)
        rows, lengths = 3, [3, 1, 2]
        grids = [rng.integers(0, 1 << bits, (rows, n)) for n in lengths]
        bufs = [pack(g.ravel(), bits, msb) for g in grids]
        shapes = [g.shape for g in grids]
        got = cleave.concat(bufs, 1, dtype=name, shapes=shapes)
        want = np.concatenate(grids, axis=1)
        assert got.dtype == np.uint8
        assert (unpack(got, bits, want.size, msb) == want.ravel()).all()
        out = np.zeros(got.size, np.uint8)
        assert cleave.concat(bufs, 1, dtype=name, shapes=shapes, out=out) is out
        assert (out == got).all()


def test_packed_errors():
    buf = np.zeros(2, np.uint8)
    with pytest.raises(cleave.Error, match=r"inputs\[1\] holds 2 bytes but its shape and dtype "
                                           r"need 3"):
        cleave.concat([buf, buf], dtype=cleave.u4, shapes=[(4,), (5,)])
    with pytest.raises(cleave.Error, match=r"shapes= has 1 shapes but arrays has 2"):
        cleave.concat([buf, buf], dtype=cleave.u4, shapes=[(4,)])
    with pytest.raises(cleave.Error, match=r"out has dtype float32 but the output has dtype "
                                           r"uint8 \(packed bytes\)"):
        cleave.concat([buf, buf], dtype=cleave.u4, shapes=[(4,), (4,)],
                      out=np.zeros(1, np.float32))


def test_concat_plan_runs_many_times():
    plan = cleave.ConcatPlan("concat", [(2, 3), (2, 1)], np.float32, axis=1)
    assert plan.output_shape == (2, 4) and plan.num_inputs == 2 and plan.axis == 1
    assert plan.shapes == ((2, 3), (2, 1)) and plan.dtype == np.float32
    assert isinstance(plan.kernels, str)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        xs = [rng.random((2, 3), np.float32), rng.random((2, 1), np.float32)]
        want = np.concatenate(xs, axis=1)
        assert_equal(plan.run(xs), want)
        out = np.empty((2, 4), np.float32)
        assert plan.run(xs, out=out) is out
        assert_equal(out, want)
    stack = cleave.ConcatPlan("concat_from_sequence", [(3,)] * 2, "int8", axis=-1, new_axis=1)
    a = np.arange(3, dtype=np.int8)
    assert_equal(stack.run([a, a + 3]), np.stack([a, a + 3], axis=-1))


def test_concat_plan_refuses_other_shapes_and_dtypes():
    plan = cleave.ConcatPlan("concat", [(2, 3), (2, 1)], np.float32, axis=1)
    f32 = np.zeros((2, 3), np.float32)
    with pytest.raises(cleave.Error, match=r"the plan is for inputs\[1\] of shape \(2, 1\) but "
                                           r"it has shape \(2, 2\)"):
        plan.run([f32, np.zeros((2, 2), np.float32)])
    with pytest.raises(TypeError, match=r"the plan is for dtype dtype\('float32'\), not "
                                        r"dtype\('float64'\) \(inputs\[0\]\)"):
        plan.run([np.zeros((2, 3)), np.zeros((2, 1))])
    with pytest.raises(cleave.Error, match=r"the plan has 2 inputs but arrays has 1"):
        plan.run([f32])
    with pytest.raises(cleave.Error, match=r"out has shape \(2, 3\) but the output has shape "
                                           r"\(2, 4\)"):
        plan.run([f32, np.zeros((2, 1), np.float32)], out=f32)
    with pytest.raises(cleave.Error, match=r"inputs\[1\]\.shape\[0\] is 3 but inputs\[0\]"):
        cleave.ConcatPlan("concat", [(2, 3), (3, 1)], np.float32, axis=1)
    with pytest.raises(ValueError, match=r"unknown operator 'join': expected 'concat' or "
                                         r"'concat_from_sequence'"):
        cleave.ConcatPlan("join", [(2, 3)], np.float32, axis=1)
    with pytest.raises(TypeError, match=r"'bogus' is not a parameter of concat \(it takes axis, "
                                        r"opset\)"):
        cleave.ConcatPlan("concat", [(2, 3)], np.float32, bogus=1)


def test_concat_plan_repr():
    plan = cleave.ConcatPlan("concat", [(2, 3), (2, 2)], "int64", axis=1)
    assert re.fullmatch(r"cleave\.ConcatPlan\('concat', \(\(2, 3\), \(2, 2\)\), 'int64', "
                        r"axis=1, opset=None\): output \(2, 5\)", repr(plan))


@pytest.mark.parametrize("name", ["float32", "bfloat16", "float16", "int8", "uint8", "int64",
                                  "complex64", "bool"])
def test_torch_tensors_give_a_torch_tensor(name):
    torch = pytest.importorskip("torch")
    dtype = getattr(torch, name)
    a = (torch.arange(12) % 5).to(dtype).reshape(3, 4)
    b = (torch.arange(6) % 3).to(dtype).reshape(3, 2)
    got = cleave.concat([a, b], axis=1)
    assert isinstance(got, torch.Tensor) and got.dtype == dtype
    assert torch.equal(got, torch.cat([a, b], dim=1))
    if name != "bfloat16":  # not among ConcatFromSequence's ONNX types
        stacked = cleave.concat_from_sequence([a, a], 0, new_axis=1)
        assert isinstance(stacked, torch.Tensor) and torch.equal(stacked, torch.stack([a, a]))
    out = torch.empty(3, 6, dtype=dtype)
    assert cleave.concat([a, b], 1, out=out) is out
    assert torch.equal(out, torch.cat([a, b], dim=1))


def test_torch_out_overlapping_an_input_is_refused():
    torch = pytest.importorskip("torch")
    buf = torch.zeros(8)
    with pytest.raises(cleave.Error, match=r"out overlaps inputs\[0\]"):
        cleave.concat([buf[:4], torch.ones(4)], out=buf)


def test_mixed_kinds_take_the_first_inputs_kind():
    torch = pytest.importorskip("torch")
    a = np.ones((2, 2), np.float32)
    t = torch.zeros(2, 2)
    assert isinstance(cleave.concat([a, t]), np.ndarray)
    got = cleave.concat([t, a])
    assert isinstance(got, torch.Tensor)
    assert torch.equal(got, torch.cat([t, torch.from_numpy(a)]))
