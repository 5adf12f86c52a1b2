"""Views keep their base alive; object outputs share (and count) the same str objects."""
import gc
import sys
import weakref

import numpy as np

import cleave


class Owner(np.ndarray):
    """An ndarray subclass, so that a weak reference can watch the input die."""


def owning(n):
    """An Owner that owns its memory (a view would hand its base on to the outputs)."""
    x = Owner((n,), dtype=np.float64)
    x[...] = np.arange(n)
    return x


def test_views_keep_the_input_alive():
    x = owning(12)
    ref = weakref.ref(x)
    views = cleave.split(x, 3)
    del x
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(views[2], [8, 9, 10, 11])
    del views
    gc.collect()
    assert ref() is None


def test_copies_do_not_keep_the_input_alive():
    x = owning(12)
    ref = weakref.ref(x)
    copies = cleave.split(x, 3, copy=True)
    del x
    gc.collect()
    assert ref() is None
    np.testing.assert_array_equal(copies[1], [4, 5, 6, 7])


def test_buffer_input_is_kept_alive():
    data = bytearray(range(8))
    before = sys.getrefcount(data)
    views = cleave.split(data, 2)
    assert sys.getrefcount(data) > before
    del views
    gc.collect()
    assert sys.getrefcount(data) == before


def test_object_outputs_share_the_str_objects():
    words = [f"word-{i}" for i in range(6)]
    x = np.array(words, dtype=object)
    before = [sys.getrefcount(w) for w in words]
    for copy in (None, True):
        parts = cleave.split(x, 3, copy=copy)
        assert parts[1][0] is words[2]
        if copy:
            # each copy holds one more reference to each str
            assert [sys.getrefcount(w) for w in words] == [b + 1 for b in before]
        del parts
        gc.collect()
        assert [sys.getrefcount(w) for w in words] == before
    out = [np.empty(2, dtype=object) for _ in range(3)]
    cleave.split(x, 3, out=out)
    assert out[2][1] is words[5]
    del out
    gc.collect()
    assert [sys.getrefcount(w) for w in words] == before


def test_allocated_block_is_released():
    x = np.arange(1 << 16, dtype=np.float32)
    parts = cleave.split(x, 4, copy=True)
    first = parts[0]
    del parts
    gc.collect()
    # the block lives while any output does
    np.testing.assert_array_equal(first[:3], [0, 1, 2])
    del first
    gc.collect()


def test_no_reference_leak_in_a_loop():
    x = np.arange(24).reshape(4, 6)
    out = [np.empty((4, 3), x.dtype) for _ in range(2)]
    rx, ro = sys.getrefcount(x), sys.getrefcount(out[0])
    for _ in range(200):
        cleave.split(x, 2, axis=1)
        cleave.split(x, 2, axis=1, copy=True)
        cleave.split(x, 2, axis=1, out=out)
        try:
            cleave.split(x, 5, axis=1)
        except cleave.Error:
            pass
    gc.collect()
    first = out[0]
    counts = (sys.getrefcount(x), sys.getrefcount(first) - 1)  # - 1: the name `first`
    assert counts == (rx, ro)


def test_concat_keeps_no_reference_to_its_inputs_or_out():
    a, b = owning(4), owning(6)
    out = np.empty(10)
    words = [f"w{i}" for i in range(3)]
    s = np.array(words, dtype=object)
    counts = lambda: [sys.getrefcount(o) for o in (a, b, out, s, *words)]  # noqa: E731
    before = counts()
    for _ in range(50):
        cleave.concat([a, b])
        cleave.concat((a, b), out=out)
        cleave.concat_from_sequence([a, a], 0, new_axis=1)
        cleave.concat([s, s])
        try:
            cleave.concat([a, b.astype(np.float32)], out=out)
        except cleave.Error:
            pass
    gc.collect()
    assert counts() == before
    refs = [weakref.ref(x) for x in (a, b)]
    joined = cleave.concat([a, b])
    del a, b
    gc.collect()
    assert all(r() is None for r in refs)
    np.testing.assert_array_equal(joined, np.r_[np.arange(4.0), np.arange(6.0)])
