import numpy as np


# Every kind of NumPy dtype: the library's types, those moved as bytes of their size (long
# double, datetime, void, structured), strings fixed and variable (object arrays of str).
DTYPES = [
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.longdouble,
    np.clongdouble, "S3", "U5", ">i4", "datetime64[s]", "timedelta64[ms]", "V6",
    [("a", "<i2"), ("b", "<f4")], object,
]


def sample(shape, dtype):
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt == object:
        return np.array([f"s{i}" for i in range(n)], dtype=object).reshape(shape)
    if dt.kind in "SU":
        return np.array([str(i)[-3:] for i in range(n)], dtype=dt).reshape(shape)
    if dt.kind == "V":
        raw = (np.arange(n * dt.itemsize) % 251).astype(np.uint8)
        return raw.view(dt).reshape(shape)
    if dt.kind in "mM":
        return np.arange(n).astype(dt).reshape(shape)
    if dt.kind == "b":
        return (np.arange(n) % 3 == 0).reshape(shape)
    return np.arange(n).astype(dt).reshape(shape)


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
