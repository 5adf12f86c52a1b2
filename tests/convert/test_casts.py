"""The library's element casts (cleave_cast) and block-FP8 dequantization
(cleave_dequantize_fp8_blocks) against NumPy, torch and exact rational rounding: every f16, bf16
and e4m3 value, the f16 ties and their neighbours, random and edge f32 and f64 values; NaN, infinity,
overflow, subnormals; the errors."""
import numpy as np
import torch

import casts_lib as c
from clitest import check

RNG = np.random.default_rng(34)
ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def is_nan32(bits):
    return (bits & 0x7FFFFFFF) > 0x7F800000


def is_nan16(bits, fmt):
    b = bits.astype(np.uint32) & 0x7FFF
    return b > (0x7C00 if fmt == c.F16 else 0x7F80)


def same(label, got, want):
    bad = np.nonzero(got != want)[0]
    check(bad.size == 0, f"{label}: {bad.size} differ, first at {bad[:1]}: "
          f"got {got[bad[:3]]}, want {want[bad[:3]]}")


def f32_edges():
    """Edge float32 values: zeros, f16 and bf16 limits and overflow thresholds, f32 and f16
    subnormals, infinities, quiet and signalling NaNs with payloads, both signs."""
    v = [0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0x477FE000, 0x477FEFFF,
         0x477FF000, 0x477FF001, 0x47800000, 0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x7F800000,
         0x7FC00000, 0x7FC00001, 0x7FFFFFFF, 0x7F800001, 0x7FA00000, 0x7F802000, 0x33000000,
         0x33000001, 0x32FFFFFF, 0x33800000, 0x387FC000, 0x387FE000, 0x38800000, 0x3F808000,
         0x3F818000, 0x3F808001, 0x3F807FFF]
    v = np.array(v, dtype=np.uint32)
    return np.concatenate([v, v | 0x80000000])


def f16_ties():
    """Every f16 value widened to f32, the f32 midpoint between it and the next (a tie), and the
    f32 values just either side of that midpoint."""
    pos = np.arange(0, 0x7C00, dtype=np.uint16)
    lo64 = pos.view(np.float16).astype(np.float64)
    hi64 = (pos + 1).view(np.float16).astype(np.float64)
    mid = ((lo64 + hi64) / 2).astype(np.float32).view(np.uint32)  # exact: one more bit
    out = np.concatenate([mid, mid - 1, mid + 1])
    return np.concatenate([out, out | 0x80000000])


def test_f16_to_f32_every_value():
    st, msg, got = c.cast(ALL16, c.F16, c.F32)
    check(st == 0, f"status {st} {msg}")
    want = ALL16.view(np.float16).astype(np.float32).view(np.uint32)
    nan = is_nan16(ALL16, c.F16)
    same("f16->f32 (not NaN) vs numpy", got[~nan], want[~nan])
    # NaN: quiet, its sign, the payload shifted up (NumPy's bits for quiet NaNs).
    h = ALL16[nan].astype(np.uint32)
    rule = ((h & 0x8000) << 16) | 0x7FC00000 | ((h & 0x3FF) << 13)
    same("f16->f32 NaN rule", got[nan], rule)
    quiet = (ALL16[nan] & 0x200) != 0
    same("f16->f32 quiet NaN vs numpy", got[nan][quiet], want[nan][quiet])


def test_bf16_to_f32_every_value():
    st, msg, got = c.cast(ALL16, c.BF16, c.F32)
    want = torch.from_numpy(ALL16.view(np.int16).copy()).view(torch.bfloat16).float().numpy()
    want = want.view(np.uint32)
    nan = is_nan16(ALL16, c.BF16)
    same("bf16->f32 (not NaN) vs torch", got[~nan], want[~nan])
    same("bf16->f32 NaN quieted", got[nan], (ALL16[nan].astype(np.uint32) << 16) | 0x400000)
    check(st == 0, f"status {st} {msg}")


def f32_samples():
    rand = RNG.integers(0, 1 << 32, size=400000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([f32_edges(), f16_ties(), rand])


def test_f32_to_f16():
    x = f32_samples()
    st, msg, got = c.cast(x, c.F32, c.F16)
    check(st == 0, f"status {st} {msg}")
    with np.errstate(all="ignore"):
        want = x.view(np.float32).astype(np.float16).view(np.uint16)
    nan = is_nan32(x)
    same("f32->f16 (not NaN) vs numpy", got[~nan], want[~nan])
    rule = (((x[nan] >> 16) & 0x8000) | 0x7E00 | ((x[nan] >> 13) & 0x3FF)).astype(np.uint16)
    same("f32->f16 NaN rule", got[nan], rule)
    quiet = (x[nan] & 0x400000) != 0
    same("f32->f16 quiet NaN vs numpy", got[nan][quiet], want[nan][quiet])
    # Named cases: a tie to even at 1 + 2^-11 (down) and at 1 + 3 * 2^-11 (up), overflow.
    for f, h in ((1 + 2.0 ** -11, 0x3C00), (1 + 3 * 2.0 ** -11, 0x3C02), (65520.0, 0x7C00),
                 (65519.996, 0x7BFF), (-1e9, 0xFC00), (2.0 ** -25, 0), (2.0 ** -25 * 1.5, 1),
                 (2.0 ** -24 * 1.5, 2), (float("inf"), 0x7C00)):
        got1 = c.cast(np.array([f], dtype=np.float32).view(np.uint32), c.F32, c.F16)[2][0]
        check(got1 == h, f"f32 {f!r} -> f16 {got1:#x}, want {h:#x}")


def test_f32_to_bf16():
    x = f32_samples()
    st, msg, got = c.cast(x, c.F32, c.BF16)
    check(st == 0, f"status {st} {msg}")
    want = torch.from_numpy(x.view(np.float32).copy()).to(torch.bfloat16).view(torch.int16)
    want = want.numpy().view(np.uint16)
    nan = is_nan32(x)
    same("f32->bf16 (not NaN) vs torch", got[~nan], want[~nan])
    same("f32->bf16 NaN rule", got[nan], ((x[nan] >> 16) | 0x40).astype(np.uint16))
    # A sample against exact rational rounding too (torch is the reference above).
    for bits in list(f32_edges()[:30]) + list(x[-200:]):
        v = np.array([bits], dtype=np.uint32).view(np.float32)[0]
        if np.isnan(v) or np.isinf(v):
            continue
        want1 = c.round_exact(float(v), 8, 7)
        got1 = c.cast(np.array([bits], dtype=np.uint32), c.F32, c.BF16)[2][0]
        check(got1 == want1, f"f32 {bits:#x} -> bf16 {got1:#x}, exact {want1:#x}")


def f64_samples():
    """Random f64 values in the f16 range and near its limits, the values one f64 ulp either
    side of every f16 tie (where rounding through f32 first would round twice), edges."""
    pos = np.arange(0, 0x7C00, dtype=np.uint16)
    mid = (pos.view(np.float16).astype(np.float64) +
           (pos + 1).view(np.float16).astype(np.float64)) / 2
    mid = mid.view(np.uint64)
    rand = RNG.standard_normal(100000) * np.exp2(RNG.integers(-30, 20, 100000))
    edges = np.array([0.0, 5e-324, 1e-300, 65504.0, 65520.0, np.inf, 1e300, 3.4028235677973366e38,
                      3.4028235677973366e38 * (1 + 2 ** -30), 1.401298464324817e-45,
                      7.006492321624085e-46, 7.006492321624087e-46, 2.0 ** -149 * 1.5,
                      2.0 ** -133 * 0.5, 2.0 ** -133 * 0.5000001],
                     dtype=np.float64).view(np.uint64)
    x = np.concatenate([mid, mid + 1, mid - 1, rand.view(np.uint64), edges])
    nans = np.array([0x7FF8000000000000, 0x7FF0000000000001, 0x7FFFFFFFFFFFFFFF,
                     0x7FF8000012345678], dtype=np.uint64)
    x = np.concatenate([x, nans])
    return np.concatenate([x, x | np.uint64(1 << 63)])


def test_f64_to_narrow():
    x = f64_samples()
    nan = (x & np.uint64(0x7FFFFFFFFFFFFFFF)) > np.uint64(0x7FF0000000000000)
    with np.errstate(all="ignore"):
        for dst, np_type, width in ((c.F16, np.float16, 16), (c.F32, np.float32, 32)):
            st, msg, got = c.cast(x, c.F64, dst)
            check(st == 0, f"status {st} {msg}")
            want = x.view(np.float64).astype(np_type).view(c.BITS[dst])
            same(f"f64->{np_type.__name__} (not NaN) vs numpy", got[~nan], want[~nan])
            quiet = (x[nan] & np.uint64(1 << 51)) != 0
            same(f"f64->{np_type.__name__} quiet NaN vs numpy", got[nan][quiet],
                 want[nan][quiet])
    # bf16: exact rational rounding on a sample (torch rounds f64 through f32, twice).
    st, msg, got = c.cast(x, c.F64, c.BF16)
    for i in list(range(0, x.size, 997)) + list(range(x.size - 40, x.size)):
        v = x[i:i + 1].view(np.float64)[0]
        if np.isnan(v):
            b = int(x[i])
            want1 = ((b >> 48) & 0x8000) | 0x7FC0 | ((b >> 45) & 0x7F)
        elif np.isinf(v):
            want1 = 0xFF80 if v < 0 else 0x7F80
        else:
            want1 = c.round_exact(float(v), 8, 7)
        check(got[i] == want1, f"f64 {int(x[i]):#x} -> bf16 {got[i]:#x}, exact {want1:#x}")


def test_f32_to_f64_and_back():
    x = f32_samples()
    st, msg, wide = c.cast(x, c.F32, c.F64)
    check(st == 0, f"status {st} {msg}")
    nan = is_nan32(x)
    with np.errstate(all="ignore"):
        want = x.view(np.float32).astype(np.float64).view(np.uint64)
    same("f32->f64 (not NaN) vs numpy", wide[~nan], want[~nan])
    st, msg, back = c.cast(wide, c.F64, c.F32)
    same("f32->f64->f32 (not NaN) is the identity", back[~nan], x[~nan])
    same("f32->f64->f32 NaN is quieted", back[nan], x[nan] | 0x400000)


def test_half_to_half():
    """bf16 <-> f16 round once (both widen to f32 exactly), as torch and NumPy through f32."""
    st, msg, got = c.cast(ALL16, c.BF16, c.F16)
    check(st == 0, f"status {st} {msg}")
    with np.errstate(all="ignore"):
        want = (ALL16.astype(np.uint32) << 16).view(np.float32).astype(np.float16).view(np.uint16)
    nan = is_nan16(ALL16, c.BF16)
    same("bf16->f16 vs numpy through f32", got[~nan], want[~nan])
    check(bool(np.all(is_nan16(got[nan], c.F16))), "bf16 NaN -> f16 NaN")
    st, msg, got = c.cast(ALL16, c.F16, c.BF16)
    want = torch.from_numpy(ALL16.view(np.int16).copy()).view(torch.float16).to(torch.bfloat16)
    want = want.view(torch.int16).numpy().view(np.uint16)
    nan = is_nan16(ALL16, c.F16)
    same("f16->bf16 vs torch", got[~nan], want[~nan])
    check(bool(np.all(is_nan16(got[nan], c.BF16))), "f16 NaN -> bf16 NaN")
    check(bool(np.all((got[nan] & 0x8000) == (ALL16[nan] & 0x8000))), "f16 NaN keeps its sign")


def e4m3_table():
    return np.array([c.e4m3_value(b) for b in range(256)], dtype=np.float64)


def test_e4m3_every_byte():
    table = e4m3_table()
    nan = np.isnan(table)
    check(int(nan.sum()) == 2, "e4m3 has two NaNs (0x7f, 0xff)")
    all8 = np.arange(256, dtype=np.uint8)
    want32 = table.astype(np.float32).view(np.uint32)
    want32[nan] = np.array([0x7FC00000, 0xFFC00000], dtype=np.uint32)
    for dst, want in ((c.F32, want32),
                      (c.F16, table.astype(np.float16).view(np.uint16)),
                      (c.F64, table.view(np.uint64)),
                      (c.BF16, (want32 >> 16).astype(np.uint16))):
        st, msg, got = c.cast(all8, c.F8E4M3, dst)
        check(st == 0, f"status {st} {msg}")
        same(f"e4m3 -> {dst} (not NaN): exact", got[~nan], want[~nan])
        bits = {c.F32: (0x7FC00000, 0xFFC00000), c.F16: (0x7E00, 0xFE00),
                c.BF16: (0x7FC0, 0xFFC0), c.F64: (0x7FF8000000000000, 0xFFF8000000000000)}[dst]
        check(list(got[nan]) == list(bits), f"e4m3 NaN -> {dst}: {got[nan]}, want {bits}")
    check(table[0x7E] == 448.0 and table[0x01] == 2.0 ** -9 and table[0x08] == 2.0 ** -6,
          "e4m3 limits: 448, 2^-9, 2^-6")


def reference_dequantize(weight, scale32, block, dst):
    """DeepSeek's rule in NumPy: e4m3 -> f32, times the block's f32 scale in f32, then rounded
    to `dst` (torch for bf16)."""
    rows, cols = weight.shape[-2:]
    table = e4m3_table().astype(np.float32)
    s = np.repeat(np.repeat(scale32, block[0], axis=-2), block[1], axis=-1)[..., :rows, :cols]
    with np.errstate(all="ignore"):
        y = (table[weight] * s).astype(np.float32)
    if dst == c.F32:
        return y.view(np.uint32).reshape(-1)
    if dst == c.F16:
        with np.errstate(all="ignore"):
            return y.astype(np.float16).view(np.uint16).reshape(-1)
    t = torch.from_numpy(y.copy()).to(torch.bfloat16).view(torch.int16).numpy()
    return t.view(np.uint16).reshape(-1)


def test_dequantize_fp8_blocks():
    weight = RNG.integers(0, 256, size=(2, 300, 260), dtype=np.uint64).astype(np.uint8)
    weight[weight == 0x7F] = 0x7E  # NaNs apart (their rule is tested on their own)
    weight[weight == 0xFF] = 0xFE
    scale32 = (RNG.random((2, 3, 3)) * 2.0 ** RNG.integers(-12, 4, (2, 3, 3))).astype(np.float32)
    scale32[0, 0, 0] = 1e30  # products overflow to infinity in f16 and bf16
    scale32[1, 2, 2] = 1e-40  # subnormal products
    for dst in (c.F32, c.F16, c.BF16):
        want = reference_dequantize(weight, scale32, (128, 128), dst)
        st, msg, got = c.dequantize(weight, scale32.view(np.uint32), c.F32, (128, 128), dst)
        check(st == 0, f"status {st} {msg}")
        same(f"dequantize to {dst} vs the reference", got, want)
        # Windows: any run of elements equals the same run of the whole.
        for first, count in ((0, 1), (127, 3), (259, 2), (300 * 260 - 5, 10), (1000, 40000)):
            st, msg, part = c.dequantize(weight, scale32.view(np.uint32), c.F32, (128, 128), dst,
                                         first, count)
            same(f"dequantize to {dst} window {first}+{count}", part, want[first:first + count])
    # A bf16 scale is widened exactly.
    scale16 = torch.from_numpy(scale32.copy()).to(torch.bfloat16)
    scale_back = scale16.float().numpy()
    want = reference_dequantize(weight, scale_back, (128, 128), c.BF16)
    st, msg, got = c.dequantize(weight, scale16.view(torch.int16).numpy().view(np.uint16), c.BF16,
                                (128, 128), c.BF16)
    same("dequantize with a bf16 scale", got, want)
    # Blocks other than square.
    w2 = weight[0, :100, :70].copy()
    s2 = (RNG.random((13, 5)) + 0.5).astype(np.float32)
    want = reference_dequantize(w2, s2, (8, 16), c.F32)
    st, msg, got = c.dequantize(w2, s2.view(np.uint32), c.F32, (8, 16), c.F32)
    same("dequantize with 8 x 16 blocks", got, want)
    # NaN weights stay NaN (quiet, their sign) whatever the scale.
    w3 = np.array([[0x7F, 0xFF, 0x38]], dtype=np.uint8)
    st, msg, got = c.dequantize(w3, np.array([[np.nan]], dtype=np.float32).view(np.uint32),
                                c.F32, (128, 128), c.F32)
    check(list(got[:2]) == [0x7FC00000, 0xFFC00000] and is_nan32(got[2:]).all(),
          f"NaN weights with a NaN scale: {[hex(v) for v in got]}")


def test_errors():
    x = np.zeros(4, dtype=np.uint32)
    for src, dst, name in ((c.F32, 2, "i8"), (c.F8E4M3 + 1, c.F32, "f8e5m2"),
                           (c.F32, c.F8E4M3, "f8e4m3"), (c.F32, 99, "unknown")):
        err = c.Error()
        out = np.full(16, 0xAB, dtype=np.uint8)
        st = c.lib().cleave_cast(x.ctypes.data, src, out.ctypes.data, dst, 4, c.ctypes.byref(err))
        msg = err.message.decode()
        check(st == 6 and name in msg, f"cast {src}->{dst}: status {st}, message {msg!r}")
        check(bool(np.all(out == 0xAB)), f"cast {src}->{dst}: nothing written")
        check(c.lib().cleave_cast_supported(src, dst) == 0, f"supported({src}, {dst}) is 0")
    check(c.lib().cleave_cast_supported(c.F8E4M3, c.BF16) == 1, "supported(e4m3, bf16)")
    check(c.lib().cleave_cast_supported(c.F64, c.F16) == 1, "supported(f64, f16)")
    err = c.Error()
    st = c.lib().cleave_cast(None, c.F32, None, c.F16, 3, c.ctypes.byref(err))
    check(st == 1 and "needs a source" in err.message.decode(), f"NULL: {st} {err.message}")
    st = c.lib().cleave_cast(None, c.F32, None, c.F16, 0, None)
    check(st == 0, "zero elements need no pointers")
    st = c.lib().cleave_cast(x.ctypes.data, c.F32, x.ctypes.data, c.F16, 2 ** 63,
                             c.ctypes.byref(err))
    check(st == 8 and "size_t" in err.message.decode(), f"overflow: {st} {err.message}")
    w = np.zeros((4, 4), dtype=np.uint8)
    s = np.zeros(1, dtype=np.uint32)
    for args, status, frag in (((w, s, c.F16, (4, 4), c.F32), 6, "scale of f16"),
                               ((w, s, c.F32, (4, 4), 2), 6, "i8"),
                               ((w, s, c.F32, (0, 4), c.F32), 1, "blocks 0 x 4")):
        st, msg, _ = c.dequantize(*args)
        check(st == status and frag in msg, f"dequantize {args[2:]}: {st} {msg!r}")
