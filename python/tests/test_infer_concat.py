"""cleave.infer of 'concat' and 'concat_from_sequence', against NumPy on every static instance."""
import itertools
import random

import numpy as np
import pytest

import cleave


def numpy_shape(shapes, axis, stack):
    """The output shape NumPy gives for inputs of these shapes, or None when it refuses."""
    arrays = [np.empty(s, np.uint8) for s in shapes]
    try:
        out = np.stack(arrays, axis) if stack else np.concatenate(arrays, axis)
    except (ValueError, np.AxisError):
        return None
    return out.shape


def instances(dims):
    """Every static shape of a partial shape whose dims are (lo, hi) pairs."""
    return itertools.product(*[range(lo, hi + 1) for lo, hi in dims])


def hull(shapes):
    """The (lo, hi) of each dim over a set of static shapes of one rank."""
    return tuple((min(s[d] for s in shapes), max(s[d] for s in shapes))
                 for d in range(len(shapes[0])))


def as_dims(shape):
    """cleave.infer's dims as (lo, hi) pairs (ints are exact)."""
    return tuple((d, d) if isinstance(d, int) else d for d in shape)


def test_static_matches_numpy():
    rng = random.Random(7)
    for _ in range(300):
        rank = rng.randint(1, 3)
        base = [rng.randint(0, 3) for _ in range(rank)]
        axis = rng.randint(-rank, rank - 1)
        shapes = []
        for _ in range(rng.randint(1, 4)):
            s = list(base)
            s[axis] = rng.randint(0, 3)
            if rng.random() < 0.1:
                s[(axis + 1) % rank] += 1  # sometimes a mismatch off the axis
            shapes.append(tuple(s))
        want = numpy_shape(shapes, axis, stack=False)
        if want is None:
            with pytest.raises(cleave.Error):
                cleave.infer("concat", shapes, axis=axis)
            continue
        r = cleave.infer("concat", shapes, axis=axis)
        assert r.shapes == (want,) and r.num_outputs == 1 and not r.count_varies
        assert r.axis == axis % rank and not r.axis_removed
        assert r.text == ("[" + ",".join(map(str, want)) + "]",)


def test_stack_matches_numpy():
    rng = random.Random(11)
    for _ in range(200):
        rank = rng.randint(0, 3)
        shape = tuple(rng.randint(0, 3) for _ in range(rank))
        n = rng.randint(1, 3)
        axis = rng.randint(-rank - 1, rank)
        want = numpy_shape([shape] * n, axis, stack=True)
        r = cleave.infer("concat_from_sequence", [shape] * n, axis=axis, new_axis=1)
        assert r.shapes == (want,)


@pytest.mark.parametrize("unknown_axis", [False, True])
def test_partial_is_the_hull_of_every_instance(unknown_axis):
    """Small intervals: enumerate every static instance, hull NumPy's valid outputs."""
    rng = random.Random(3 + unknown_axis)
    checked = 0
    for _ in range(150):
        rank = rng.randint(1, 2)
        n = rng.randint(1, 3)
        parts = []
        for _ in range(n):
            dims = []
            for _ in range(rank):
                lo = rng.randint(0, 2)
                dims.append((lo, lo + rng.randint(0, 2)))
            parts.append(dims)
        axis = rng.randint(0, rank - 1)
        axes = range(rank) if unknown_axis else [axis]
        outs = []
        for a in axes:
            for static in itertools.product(*[list(instances(p)) for p in parts]):
                s = numpy_shape(static, a, stack=False)
                if s is not None:
                    outs.append(s)
        arg = [[d if d[0] != d[1] else d[0] for d in p] for p in parts]
        kw = {"axis": cleave.UNKNOWN if unknown_axis else axis}
        if not outs:
            with pytest.raises(cleave.Error):
                cleave.infer("concat", arg, **kw)
            continue
        r = cleave.infer("concat", arg, **kw)
        assert as_dims(r.shapes[0]) == hull(outs), (parts, axis, unknown_axis)
        checked += 1
    assert checked > 50


def test_dynamic_rank_and_text_forms():
    r = cleave.infer("concat", [None, "[2,3]", (1, 3)], axis=0)
    assert r.shapes == (((3, None), 3),)
    assert cleave.infer("concat", [None, None], axis=0).shapes == (None,)
    r = cleave.infer("concat", [(2, 3), (2, 3)], opset=1)  # ONNX Concat-1's default axis, 1
    assert r.shapes == ((2, 6),) and r.axis == 1


def test_errors():
    with pytest.raises(TypeError, match="one per input"):
        cleave.infer("concat", "[2,3]", axis=0)
    with pytest.raises(TypeError, match="sequence of input shapes"):
        cleave.infer("concat", 5, axis=0)
    with pytest.raises(cleave.Error, match=r"inputs\[1\]\.shape\[1\] is 4"):
        cleave.infer("concat", [(2, 3), (2, 4)], axis=0)
    with pytest.raises(cleave.Error, match="at least one input"):
        cleave.infer("concat", [], axis=0)
    with pytest.raises(cleave.Error, match="needs the axis"):
        cleave.infer("concat_from_sequence", [(2,)])
    with pytest.raises(TypeError, match="does not flatten"):
        cleave.infer("concat", [(2,), (2,)], axis=None)
    with pytest.raises(ValueError, match="'concat' or 'concat_from_sequence'"):
        cleave.infer("join", [(2,)], axis=0)
    with pytest.raises(cleave.Error) as e:
        cleave.infer("concat", [(2,), "[2,"], axis=0)
    assert e.value.status_name == "invalid shape"
