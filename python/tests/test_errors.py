"""Errors: the C library's status and message, TypeError for wrong Python types, and nothing
written on failure."""
import numpy as np
import pytest

import cleave


def test_error_carries_the_library_message():
    with pytest.raises(cleave.Error) as e:
        cleave.split(np.arange(6), 4)
    err = e.value
    assert isinstance(err, ValueError)
    assert err.status == 4 and err.status_name == "invalid split"
    assert "data.shape[0] = 6 is not divisible by num_splits = 4" in err.message
    assert str(err) == err.message


def test_variadic_message_names_the_sum():
    with pytest.raises(cleave.Error, match=r"split_lengths sum to 7 but data.shape\[0\] is 6"):
        cleave.variadic_split(np.zeros((6, 4)), [4, 3])


def test_axis_error():
    with pytest.raises(cleave.Error) as e:
        cleave.split(np.zeros((2, 2)), 2, axis=2)
    assert e.value.status_name == "invalid axis"
    with pytest.raises(cleave.Error):
        cleave.split(np.float32(1.0).reshape(()), 1)


@pytest.mark.parametrize("call", [
    lambda: cleave.split([1, 2, 3], 3),
    lambda: cleave.split(np.arange(6), 3.0),
    lambda: cleave.split(np.arange(6), "3"),
    lambda: cleave.split(np.arange(6), 3, axis=None),
    lambda: cleave.split(np.arange(6), 3, copy="yes"),
    lambda: cleave.variadic_split(np.arange(6), "12"),
    lambda: cleave.variadic_split(np.arange(6), [1, 2.5, 3]),
    lambda: cleave.variadic_split(np.arange(6), 6),
    lambda: cleave.split(np.arange(6), 3, out=np.zeros(6)),
    lambda: cleave.split(np.arange(6), 3, out=[[0, 1], [2, 3], [4, 5]]),
    lambda: cleave.split(np.arange(6), 3, bogus=1),
    lambda: cleave.split(np.arange(6)),
    lambda: cleave.split(np.arange(6), 3, 0, None),
    lambda: cleave.split(np.array([1, "a"], dtype=object), 2),
])
def test_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_threads_out_of_range():
    with pytest.raises(ValueError):
        cleave.split(np.arange(6), 3, threads=0)


SENTINEL = -7


def outs(shapes, dtype=np.int64):
    return [np.full(s, SENTINEL, dtype) for s in shapes]


def untouched(arrays):
    return all((a == SENTINEL).all() for a in arrays)


@pytest.mark.parametrize("case,pattern", [
    (lambda: outs([(2, 4), (2, 4)]), "out has 2 arrays but the operator produces 3 outputs"),
    (lambda: outs([(2, 4), (2, 4), (3, 4)]), r"out\[2\] has shape \(3, 4\) but output 2 has "
                                             r"shape \(2, 4\)"),
    (lambda: outs([(2, 4), (2, 4)]) + outs([(2, 4)], np.int32), r"out\[2\] has dtype"),
    (lambda: outs([(2, 4), (2, 4)]) + [np.full((4, 2), SENTINEL).T],
     r"out\[2\] is not C-contiguous"),
])
def test_out_validation_writes_nothing(case, pattern):
    x = np.arange(24).reshape(6, 4)
    o = case()
    with pytest.raises(cleave.Error, match=pattern) as e:
        cleave.split(x, 3, out=o)
    assert e.value.status_name == "invalid argument"
    assert untouched(o)


def test_out_read_only_and_overlaps():
    x = np.arange(24).reshape(6, 4)
    o = outs([(2, 4)] * 3)
    o[1].flags.writeable = False
    with pytest.raises(cleave.Error, match=r"out\[1\] is read-only"):
        cleave.split(x, 3, out=o)
    assert untouched(o)
    big = np.full((4, 4), SENTINEL)
    o = [big[0:2], big[1:3], np.full((2, 4), SENTINEL)]
    with pytest.raises(cleave.Error, match=r"out\[0\] and out\[1\] overlap"):
        cleave.split(x, 3, out=o)
    assert untouched(o)
    o = [x[0:2], np.full((2, 4), SENTINEL), np.full((2, 4), SENTINEL)]
    before = x.copy()
    with pytest.raises(cleave.Error, match=r"out\[0\] overlaps the input"):
        cleave.split(x, 3, out=o)
    np.testing.assert_array_equal(x, before)
    assert untouched(o[1:])


def test_out_with_copy_false_is_refused():
    with pytest.raises(ValueError):
        cleave.split(np.arange(4), 2, out=outs([(2,), (2,)]), copy=False)


def test_rule_error_writes_nothing():
    o = outs([(2,), (2,)])
    with pytest.raises(cleave.Error):
        cleave.variadic_split(np.arange(6), [2, 2], out=o)
    assert untouched(o)


def test_overlap_among_many_outputs_is_found():
    # more than 8 outputs take the sorting path; the pair is named and nothing is written
    x = np.ones((1, 64), np.float32)
    big = np.full(70, SENTINEL, np.float32)
    o = [big[i:i + 1].reshape(1, 1) for i in range(64)]
    o[40] = big[39:40].reshape(1, 1)
    with pytest.raises(cleave.Error, match=r"out\[39\] and out\[40\] overlap"):
        cleave.split(x, 64, axis=1, out=o)
    assert (big == SENTINEL).all()
    fine = [np.full((1, 1), SENTINEL, np.float32) for _ in range(64)]
    cleave.split(x, 64, axis=1, out=fine)
    assert all(f[0, 0] == 1 for f in fine)


def test_object_out_is_checked_like_the_others():
    x = np.array(["a", "b", "c", "d"], dtype=object)
    with pytest.raises(cleave.Error, match=r"out\[0\] overlaps the input"):
        cleave.split(x, 2, out=[x[2:], np.empty(2, dtype=object)])
    assert list(x) == ["a", "b", "c", "d"]
    with pytest.raises(cleave.Error, match="out has 1 arrays"):
        cleave.split(x, 2, out=[np.empty(2, dtype=object)])
    with pytest.raises(cleave.Error, match=r"out\[1\] has dtype"):
        cleave.split(x, 2, out=[np.empty(2, dtype=object), np.empty(2, dtype="U1")])
