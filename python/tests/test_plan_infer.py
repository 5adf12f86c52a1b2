"""cleave.Plan and cleave.infer."""
import numpy as np
import pytest

import cleave
from conftest import assert_same, reference


def test_plan_run_and_views():
    p = cleave.Plan("variadic_split", (6, 4), np.float32, split_lengths=[1, -1, 2], axis=0)
    assert p.num_outputs == 3 and p.axis == 0
    assert p.output_shapes == ((1, 4), (3, 4), (2, 4))
    assert p.dtype == np.float32 and p.shape == (6, 4)
    assert isinstance(p.kernels, str)
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    want = reference(x, 0, [1, 3, 2])
    assert_same(p.run(x), want)
    out = [np.empty(s, np.float32) for s in p.output_shapes]
    assert_same(p.run(x, out=out), want)
    assert_same(out, want)
    views = p.views(x)
    assert all(np.shares_memory(v, x) for v in views)
    assert_same(views, want)


def test_plan_named_dtype_and_errors():
    p = cleave.Plan("split", (6,), "float32", num_splits=3)
    assert p.dtype == np.float32
    with pytest.raises(cleave.Error, match=r"the plan is for shape \(6,\) but x has shape \(5,\)"):
        p.run(np.zeros(5, np.float32))
    with pytest.raises(TypeError):
        p.run(np.zeros(6, np.float64))
    with pytest.raises(cleave.Error):
        cleave.Plan("split", (6,), "float32", num_splits=4)
    with pytest.raises(TypeError):
        cleave.Plan("split", (6,), "float32", num_splits=3, split=[1])
    with pytest.raises(ValueError):
        cleave.Plan("cut", (6,), "float32")


@pytest.mark.parametrize("operator,param", [("split", "num_splits"),
                                            ("variadic_split", "split_lengths")])
def test_plan_without_its_needed_parameter(operator, param):
    # With no keyword argument at all as with others: a TypeError naming the parameter (without
    # keywords this used to read a NULL parameter and crash).
    with pytest.raises(TypeError, match=f"Plan of {operator} needs {param}="):
        cleave.Plan(operator, (6,), "float32")
    with pytest.raises(TypeError, match=f"Plan of {operator} needs {param}="):
        cleave.Plan(operator, (6,), "float32", axis=0)


def test_plan_split_to_sequence_returns_lists():
    p = cleave.Plan("split_to_sequence", (3, 2), np.int64, axis=1, keepdims=0)
    x = np.arange(6).reshape(3, 2)
    got = p.run(x)
    assert isinstance(got, list)
    assert_same(got, [x[:, 0], x[:, 1]])


def test_infer_static():
    r = cleave.infer("split", (6, 4), num_splits=3)
    assert r.shapes == ((2, 4),) * 3 and r.num_outputs == 3 and not r.count_varies
    assert r.text == ("[2,4]",) * 3
    r = cleave.infer("split_to_sequence", [4, 3], split=3)
    assert r.shapes == ((3, 3), (1, 3))


def test_infer_partial():
    r = cleave.infer("split", "[2..4,6]", num_splits=3, axis=1)
    assert r.shapes == (((2, 4), 2),) * 3
    r = cleave.infer("variadic_split", [None, 8], split_lengths=[2, -1], axis=1)
    assert r.shapes == ((None, 2), (None, 6))
    r = cleave.infer("split", [4, 4], num_splits=2, axis=cleave.UNKNOWN)
    assert r.axis == -1 and r.shapes == (((2, 4), (2, 4)),) * 2
    r = cleave.infer("variadic_split", [6, 4], split_lengths=[cleave.UNKNOWN] * 2)
    assert r.shapes == (((0, 6), 4),) * 2
    r = cleave.infer("split", None, num_splits=2)
    assert r.shapes == (None, None)
    r = cleave.infer("split_to_sequence", [(2, None)], split=2)
    assert r.count_varies and r.num_outputs == (1, None)
    with pytest.raises(cleave.Error):
        cleave.infer("split", "[5]", num_splits=2)
    with pytest.raises(cleave.Error) as e:
        cleave.infer("split", "[5,", num_splits=2)
    assert e.value.status_name == "invalid shape"
    with pytest.raises(ValueError):
        cleave.infer("variadic_split", [6], split_lengths=[cleave.UNKNOWN, 2])


def test_docstrings():
    for fn in (cleave.split, cleave.variadic_split, cleave.split_to_sequence, cleave.onnx_split,
               cleave.infer, cleave.Plan):
        assert "Example" in fn.__doc__


def test_plan_of_strings():
    words = np.array(["a", "bb", "ccc", "dddd"], dtype=object)
    p = cleave.Plan("split", (4,), object, num_splits=2)
    got = p.run(words)
    assert got[1][0] is words[2] and got[1].dtype == object
    out = [np.empty(2, dtype=object) for _ in range(2)]
    p.run(words, out=out)
    assert out[0][1] is words[1]
    assert p.views(words)[0].base is not None
