import numpy as np


def reference(x, axis, lengths):
    """The outputs of a split as NumPy slicing gives them."""
    cuts = np.cumsum(lengths)[:-1]
    return np.split(x, cuts, axis=axis)


def assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        if w.dtype.kind == "V":
            assert g.tobytes() == np.ascontiguousarray(w).tobytes()
        else:
            np.testing.assert_array_equal(g, w)


# No example database on disk (the suite runs from read-only or shared trees too), and no
# failure for slow example generation (the suite also runs under AddressSanitizer).
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("cleave", database=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("cleave")
