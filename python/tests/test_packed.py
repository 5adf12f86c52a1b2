"""Packed sub-byte types through dtype= on uint8 buffers, against a bit-level reference."""
import numpy as np
import pytest

import cleave


def unpack(buf, bits, count, msb_first):
    per = 8 // bits
    out = []
    for k in range(count):
        byte = int(buf[k // per])
        slot = k % per
        shift = (per - 1 - slot) * bits if msb_first else slot * bits
        out.append((byte >> shift) & ((1 << bits) - 1))
    return np.array(out)


def pack(values, bits, msb_first):
    per = 8 // bits
    buf = np.zeros((len(values) + per - 1) // per, np.uint8)
    for k, v in enumerate(values):
        slot = k % per
        shift = (per - 1 - slot) * bits if msb_first else slot * bits
        buf[k // per] |= int(v) << shift
    return buf


@pytest.mark.parametrize("name,bits,msb", [(cleave.u4, 4, False), (cleave.u1, 1, True),
                                           (cleave.u2, 2, True), ("int4", 4, False),
                                           (cleave.uint2, 2, False), ("nf4", 4, False)])
@pytest.mark.parametrize("lengths", [[2, 3, 1], [4, 2, 0]])
def test_packed_split_matches_the_bit_reference(name, bits, msb, lengths):
    rows, cols = 3, sum(lengths)
    rng = np.random.default_rng(1)
    values = rng.integers(0, 1 << bits, rows * cols)
    buf = pack(values, bits, msb)
    grid = values.reshape(rows, cols)
    got = cleave.variadic_split(buf, lengths, axis=1, dtype=name, shape=(rows, cols))
    start = 0
    for g, n in zip(got, lengths):
        want = grid[:, start:start + n].reshape(-1)
        start += n
        assert g.dtype == np.uint8 and g.size == (want.size * bits + 7) // 8
        np.testing.assert_array_equal(unpack(g, bits, want.size, msb), want)
        # tail bits of the last byte are zero
        if want.size * bits % 8:
            assert unpack(g, bits, g.size * 8 // bits, msb)[want.size:].sum() == 0
    out = [np.full(g.size, 0xFF, np.uint8) for g in got]
    cleave.variadic_split(buf, lengths, axis=1, dtype=name, shape=(rows, cols), out=out)
    for o, g in zip(out, got):
        np.testing.assert_array_equal(o, g)


def test_packed_errors():
    buf = np.zeros(4, np.uint8)
    with pytest.raises(cleave.Error, match="holds 4 bytes but shape and dtype need 2"):
        cleave.split(buf, 2, dtype=cleave.u4, shape=(4,))
    with pytest.raises(TypeError, match="shape="):
        cleave.split(buf, 2, dtype=cleave.u4)
    with pytest.raises(ValueError, match="always copies"):
        cleave.split(buf, 2, dtype=cleave.u4, shape=(8,), copy=False)
    with pytest.raises(ValueError, match="u3 is not supported: OpenVINO packs it in 3-byte groups"):
        cleave.split(buf, 2, dtype="u3", shape=(8,))
    p = cleave.Plan("split", (2, 8), cleave.u4, num_splits=2, axis=1)
    assert p.output_shapes == ((4,), (4,))
    got = p.run(np.arange(8, dtype=np.uint8))
    assert [g.tolist() for g in got] == [[0, 1, 4, 5], [2, 3, 6, 7]]


def test_packed_plan_views_are_refused():
    p = cleave.Plan("split", (8,), cleave.u4, num_splits=2)
    with pytest.raises(ValueError, match="Plan.run, not Plan.views"):
        p.views(np.zeros(4, np.uint8))
