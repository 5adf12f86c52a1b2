#!/usr/bin/python3
"""cleave against PyTorch and NumPy, in one process, on the same buffers.

Loads libcleave through ctypes and times, per case, cleave (a prepared plan into caller
buffers, on 1 thread and on a built-in pool), PyTorch's and NumPy's fastest ways of
materialising the same outputs, and checks that all of them wrote the same bytes. Medians of
--reps samples, the variants interleaved sample by sample so that bandwidth drift hits them alike.
Each variant is the statement a user would write, timed in timeit's loop (no wrapper call is
counted). cleave is called two ways: the usual ctypes binding (CDLL with argtypes; the call
releases the GIL) and the cheapest one (PyDLL, no argtypes, c_void_p arguments built once); the
faster one is compared, as the fastest PyTorch and NumPy ways are.

Run with Debian's interpreter (it sees python3-torch and python3-numpy):
    /usr/bin/python3 bench/bench_peers.py --lib build/src/libcleave.so
"""

import argparse
import ctypes as C
import os
import platform
import resource
import statistics
import sys
import time
import timeit

import numpy as np
import torch

# ---- the C API, as cleave.h declares it ---------------------------------------------------

CLEAVE_I64, CLEAVE_F32 = 5, 12
OP_SPLIT, OP_VARIADIC = 1, 2


ABSENT = C.c_size_t(-1).value  # CLEAVE_ABSENT (SIZE_MAX)


class Values(C.Structure):
    _fields_ = [("dtype", C.c_int), ("rank", C.c_size_t), ("count", C.c_size_t),
                ("data", C.c_void_p)]


NONE = Values(CLEAVE_I64, ABSENT, 0, None)  # cleave_values_none()


class Op(C.Structure):
    _fields_ = [("kind", C.c_int), ("opset", C.c_int64), ("axis", Values), ("lengths", Values),
                ("num_splits", C.c_int64), ("num_outputs", Values), ("keepdims", C.c_int64)]


class Type(C.Structure):
    _fields_ = [("dtype", C.c_int), ("width", C.c_int64)]


class Error(C.Structure):
    _fields_ = [("status", C.c_int), ("message", C.c_char * 512)]


class View(C.Structure):
    _fields_ = [("data", C.c_void_p), ("rank", C.c_size_t), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("contiguous", C.c_int)]


class Exec(C.Structure):
    _fields_ = [("parallel_for", C.c_void_p), ("context", C.c_void_p),
                ("num_threads", C.c_size_t)]


TASK = C.CFUNCTYPE(None, C.c_void_p, C.c_size_t)
PARALLEL_FOR = C.CFUNCTYPE(None, C.c_void_p, TASK, C.c_void_p, C.c_size_t)


def load(path):
    lib = C.CDLL(path)
    P = C.c_void_p
    sig = {
        "cleave_plan_create": (C.c_int, [C.POINTER(Op), Type, P, C.c_size_t, C.POINTER(P),
                                         C.POINTER(Error)]),
        "cleave_plan_destroy": (None, [P]),
        "cleave_plan_run": (C.c_int, [P, P, P, P]),
        "cleave_plan_run_exec": (C.c_int, [P, P, P, P, P]),
        "cleave_plan_run_alloc": (C.c_int, [P, P, C.POINTER(Exec), P, P]),
        "cleave_outputs_free": (None, [P, C.c_size_t]),
        "cleave_plan_views": (C.c_int, [P, P, C.POINTER(View), C.c_size_t, P, C.c_size_t, P]),
        "cleave_plan_description": (C.c_char_p, [P]),
        "cleave_plan_output_bytes": (C.c_int64, [P, C.c_size_t]),
        "cleave_threadpool_create": (C.c_int, [C.c_size_t, C.POINTER(P), P]),
        "cleave_threadpool_destroy": (None, [P]),
        "cleave_exec_threadpool": (Exec, [P]),
        "cleave_version_string": (C.c_char_p, []),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


def load_fast_run(path):
    """`cleave_plan_run` bound the cheapest way ctypes offers, for calls of a microsecond:
    through PyDLL (the call keeps the GIL instead of releasing and retaking it, as NumPy does
    for small copies) and without argtypes (the caller passes c_void_p objects and None, which
    ctypes hands over without conversion; the result is read as a C int)."""
    fn = C.PyDLL(path).cleave_plan_run
    fn.restype = C.c_int
    return fn


class Plan:
    """A cleave plan for an f32 input of `shape`: Split-1 (n) or VariadicSplit (lengths)."""

    def __init__(self, lib, shape, axis, n=None, lengths=None):
        self.lib = lib
        self._axis = C.c_int64(axis)
        axis_v = Values(CLEAVE_I64, 0, 1, C.cast(C.pointer(self._axis), C.c_void_p))
        if lengths is None:
            op = Op(OP_SPLIT, 1, axis_v, NONE, n, NONE, 1)
        else:
            self._lengths = (C.c_int64 * len(lengths))(*lengths)
            op = Op(OP_VARIADIC, 1, axis_v,
                    Values(CLEAVE_I64, 1, len(lengths), C.cast(self._lengths, C.c_void_p)), 0, NONE,
                    1)
        self._shape = (C.c_int64 * len(shape))(*shape)
        self.handle = C.c_void_p()
        err = Error()
        st = lib.cleave_plan_create(C.byref(op), Type(CLEAVE_F32, 0), self._shape, len(shape),
                                    C.byref(self.handle), C.byref(err))
        if st != 0:
            raise RuntimeError(err.message.decode())
        self.kernels = lib.cleave_plan_description(self.handle).decode()

    def __del__(self):
        self.lib.cleave_plan_destroy(self.handle)


def pointer_array(arrays):
    return (C.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])


# ---- data and checks ----------------------------------------------------------------------

def aligned_empty(shape):
    """An f32 array on a 64-byte boundary (as PyTorch aligns tensors), allocated by NumPy, which
    advises transparent huge pages for large arrays. Every caller-provided buffer of every library
    is allocated this way, so that none gets better memory than another."""
    n = int(np.prod(shape))
    raw = np.empty(n * 4 + 64, dtype=np.uint8)
    skip = (-raw.ctypes.data) % 64
    return raw[skip:skip + n * 4].view(np.float32).reshape(shape)


def pattern(shape):
    """Finite, mostly distinct float32 values (bit patterns with a small exponent)."""
    x = aligned_empty(shape)
    bits = x.reshape(-1).view(np.uint32)
    np.multiply(np.arange(bits.size, dtype=np.uint32), np.uint32(2654435761), out=bits)
    np.bitwise_and(bits, np.uint32(0x3FFFFFFF), out=bits)
    return x


def same(a, b):
    return a.shape == b.shape and np.array_equal(np.ascontiguousarray(a).view(np.uint32),
                                                 np.ascontiguousarray(b).view(np.uint32))


def expected(x, axis, sizes):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


# ---- timing -------------------------------------------------------------------------------

def interleaved(variants, reps, calls, namespace):
    """Median seconds per call of each variant; each sample runs every variant once, in turn.

    A variant is a statement, compiled by timeit into its own loop (so that no Python function
    call wraps it) and run in `namespace`."""
    timers = {name: timeit.Timer(stmt, globals=namespace) for name, stmt in variants.items()}
    times = {name: [] for name in variants}
    for t in timers.values():
        t.timeit(1)  # warm-up: first touches, lazy initialisation
    for _ in range(reps):
        for name, t in timers.items():
            times[name].append(t.timeit(calls) / calls)
    return {name: statistics.median(v) for name, v in times.items()}


def fmt_time(s):
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.2f} us"


# ---- cases --------------------------------------------------------------------------------

CASES = [
    ("a", "[64,1024,1024] into 4 along axis 0", (64, 1024, 1024), 0, [16, 16, 16, 16], None),
    ("b", "[64,1024,1024] into 4 along axis 1", (64, 1024, 1024), 1, [256] * 4, None),
    ("c", "[64,1024,1024] into 4 along axis 2", (64, 1024, 1024), 2, [256] * 4, None),
    ("d", "[4096,1024] into 1024 along axis 1", (4096, 1024), 1, [1] * 1024, None),
    ("e", "VariadicSplit of (a)'s tensor on axis 1, [128,256,384,-1]", (64, 1024, 1024), 1,
     [128, 256, 384, 256], [128, 256, 384, -1]),
    ("f", "[6,12,10,24] into 3 along axis 1, per call", (6, 12, 10, 24), 1, [4, 4, 4], None),
]


def run_case(lib, fast_run, pool_exec, pool1_exec, letter, what, shape, axis, sizes, variadic,
             reps):
    x = pattern(shape)
    tx = torch.from_numpy(x)
    plan = Plan(lib, shape, axis, n=None if variadic else len(sizes), lengths=variadic)
    expect = expected(x, axis, sizes)
    out_shapes = [e.shape for e in expect]
    # Output buffers: the same kind for everyone (aligned_empty); cleave is also measured into
    # plain np.empty buffers, which are only 16-byte aligned. Each cleave variant has its own
    # buffers, so that the check after timing covers each of them.
    cl = [aligned_empty(s) for s in out_shapes]
    clk = [aligned_empty(s) for s in out_shapes]
    cl16 = [np.empty(s, np.float32) for s in out_shapes]
    tout = [torch.from_numpy(aligned_empty(s)) for s in out_shapes]
    nout = [aligned_empty(s) for s in out_shapes]
    cl_ptrs, clk_ptrs, cl16_ptrs = pointer_array(cl), pointer_array(clk), pointer_array(cl16)
    views_np = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    # Each variant is the statement a user would write, timed in timeit's own loop. cleave's
    # arguments are addresses (ints, converted by argtypes) or, for the GIL-keeping binding,
    # c_void_p objects built once (ctypes passes those without conversion).
    ns = {"run": lib.cleave_plan_run, "run_exec": lib.cleave_plan_run_exec, "fast_run": fast_run,
          "h": plan.handle.value, "xp": x.ctypes.data, "op": C.addressof(cl_ptrs),
          "op16": C.addressof(cl16_ptrs), "pe": C.addressof(pool_exec),
          "pe1": C.addressof(pool1_exec),
          "hv": C.c_void_p(plan.handle.value), "xv": C.c_void_p(x.ctypes.data),
          "okv": C.c_void_p(C.addressof(clk_ptrs)), "torch": torch, "np": np, "tx": tx,
          "x": x, "sizes": sizes, "cuts": list(np.cumsum(sizes)[:-1]), "axis": axis,
          "tout": tout, "nout": nout, "views_np": views_np, "zip": zip}
    variants = {
        "cleave 1T": "run(h, xp, op, None)",
        "cleave 1T, GIL kept (ctypes.PyDLL)": "fast_run(hv, xv, okv, None)",
        "cleave 2T": "run_exec(h, xp, op, pe, None)",
        # The 1-thread twin of "cleave 2T": the same call, with a built-in pool of 1 thread.
        "cleave 1T, pool of 1 thread": "run_exec(h, xp, op, pe1, None)",
        "cleave 1T into np.empty outputs": "run(h, xp, op16, None)",
        "torch split_with_sizes_copy(out=)":
            "torch.split_with_sizes_copy(tx, sizes, axis, out=tout)",
        "torch split + copy_": "for o, v in zip(tout, torch.split(tx, sizes, axis)): o.copy_(v)",
        # clone(), not contiguous(): the latter returns axis-0 pieces as views, copying nothing.
        "torch split + clone": "[v.clone() for v in torch.split(tx, sizes, axis)]",
        "numpy copyto": "for o, v in zip(nout, views_np): np.copyto(o, v)",
        # copy(), not ascontiguousarray(): the latter returns axis-0 pieces as views.
        "numpy split + copy": "[v.copy() for v in np.split(x, cuts, axis=axis)]",
    }
    small = x.nbytes < (1 << 20)
    calls = 2000 if small else 1
    med = interleaved(variants, reps if not small else max(reps, 11), calls, ns)
    # Every way must have produced the same bytes.
    for name, outs in (("cleave", cl), ("cleave (GIL kept)", clk), ("cleave (np.empty)", cl16),
                       ("torch", [t.numpy() for t in tout]), ("numpy", nout)):
        for i, (got, want) in enumerate(zip(outs, expect)):
            if not same(got, want):
                sys.exit(f"case {letter}: {name} output {i} differs from np.split")
    for got, want in zip(eval(variants["torch split + clone"], ns), expect):
        assert same(got.numpy(), want)
    for got, want in zip(eval(variants["numpy split + copy"], ns), expect):
        assert same(got, want)
    best_torch = min(v for k, v in med.items() if k.startswith("torch"))
    best_numpy = min(v for k, v in med.items() if k.startswith("numpy"))
    # cleave's fastest single-thread binding, as "fastest torch" is PyTorch's fastest way.
    best_cleave = min(med["cleave 1T"], med["cleave 1T, GIL kept (ctypes.PyDLL)"])
    swsc = med["torch split_with_sizes_copy(out=)"]
    one_exec = med["cleave 1T, pool of 1 thread"]
    print(f"\n({letter}) {what} -- cleave plan: {plan.kernels}")
    moved = 2 * x.nbytes
    for name, t in med.items():
        print(f"    {name:36s} {fmt_time(t):>12s}  {moved / t / 1e9:7.2f} GB/s")
    print(f"    fastest cleave 1T vs fastest torch: {best_torch / best_cleave:.2f}x, "
          f"vs fastest numpy: {best_numpy / best_cleave:.2f}x, "
          f"vs torch split_with_sizes_copy(out=): {swsc / best_cleave:.2f}x "
          f"(GIL released: {swsc / med['cleave 1T']:.2f}x); "
          f"2T/1T speed: {one_exec / med['cleave 2T']:.2f}x")
    row = {"case": letter, "cleave1": best_cleave, "cleave1_exec": one_exec,
           "cleave2": med["cleave 2T"], "torch": best_torch, "numpy": best_numpy, "swsc": swsc}
    if small:
        row["threads_touched"] = count_parallel_calls(lib, plan, x, cl_ptrs)
        print(f"    parallel-for calls when 2 threads are offered: {row['threads_touched']}")
    return row


def count_parallel_calls(lib, plan, x, ptrs):
    """Runs the plan with a Python parallel-for offered for 2 threads; returns its call count."""
    calls = [0]

    def parallel_for(_ctx, task, task_ctx, count):
        calls[0] += 1
        for i in range(count):
            task(task_ctx, i)

    cb = PARALLEL_FOR(parallel_for)
    ex = Exec(C.cast(cb, C.c_void_p), None, 2)
    lib.cleave_plan_run_exec(plan.handle, x.ctypes.data, ptrs, C.addressof(ex), None)
    return calls[0]


def run_alloc(lib, pool_exec, reps):
    shape, sizes = (64, 1024, 1024), [16, 16, 16, 16]
    x = pattern(shape)
    tx = torch.from_numpy(x)
    plan = Plan(lib, shape, 0, n=4)
    outs = (C.c_void_p * 4)()
    nbytes = [lib.cleave_plan_output_bytes(plan.handle, i) for i in range(4)]
    expect = expected(x, 0, sizes)

    # Each variant allocates and fills the outputs (timed), checks them and releases them (not
    # timed). Returns seconds.
    def cleave_alloc(exec_ptr):
        t0 = time.perf_counter()
        st = lib.cleave_plan_run_alloc(plan.handle, x.ctypes.data, exec_ptr, outs, None)
        t1 = time.perf_counter()
        if st != 0:
            sys.exit(f"cleave_plan_run_alloc failed with status {st}")
        for i in range(4):
            got = np.ctypeslib.as_array(C.cast(outs[i], C.POINTER(C.c_float)),
                                        (nbytes[i] // 4,)).reshape(expect[i].shape)
            if not same(got, expect[i]):
                sys.exit(f"allocated output {i} differs")
            del got
        lib.cleave_outputs_free(outs, 4)
        return t1 - t0

    def torch_clone():
        t0 = time.perf_counter()
        clones = [v.clone() for v in torch.split(tx, 16, dim=0)]
        t1 = time.perf_counter()
        assert all(same(c.numpy(), e) for c, e in zip(clones, expect))
        return t1 - t0

    def numpy_copy():
        t0 = time.perf_counter()
        copies = [v.copy() for v in np.split(x, 4, axis=0)]
        t1 = time.perf_counter()
        assert all(same(c, e) for c, e in zip(copies, expect))
        return t1 - t0

    variants = [("cleave_plan_run_alloc 1T", lambda: cleave_alloc(None)),
                ("cleave_plan_run_alloc 2T", lambda: cleave_alloc(C.byref(pool_exec))),
                ("torch split + clone", torch_clone), ("numpy split + copy", numpy_copy)]
    times = {name: [] for name, _ in variants}
    faults = {name: [] for name, _ in variants}
    for r in range(reps + 1):
        # The order turns every round, so that no variant always runs right after another's
        # release (whose freed pages the kernel may hand on while they are still warm).
        for k in range(len(variants)):
            name, fn = variants[(r + k) % len(variants)]
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t = fn()
            f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            if r > 0:  # the first round warms up
                times[name].append(t)
                faults[name].append(f1 - f0)
    med = {k: statistics.median(v) for k, v in times.items()}
    print("\n(alloc) (a) with library-allocated outputs (allocation + copy timed, release not; "
          "page faults of the whole variant, check included)")
    for name, t in med.items():
        n = statistics.median(faults[name])
        print(f"    {name:36s} {fmt_time(t):>12s}  {n:8.0f} page faults")
    c1 = med["cleave_plan_run_alloc 1T"]
    print(f"    torch split + clone / cleave 1T: {med['torch split + clone'] / c1:.1f}x, "
          f"/ cleave 2T: {med['torch split + clone'] / med['cleave_plan_run_alloc 2T']:.1f}x")
    med["torch faults"] = statistics.median(faults["torch split + clone"])
    med["cleave faults"] = statistics.median(faults["cleave_plan_run_alloc 1T"])
    return med


def run_views(lib, reps):
    """View creation for (a)'s split: the same cost for a 1 KiB and a 1 GiB tensor."""
    print("\n(views) Split-1 into 4 along axis 0, cleave_plan_views through ctypes vs the peers' "
          "split (views)")
    res = {}
    for label, shape in (("1 KiB", (64, 2, 2)), ("1 GiB", (64, 1024, 4096))):
        # Views only compute addresses: the 1 GiB input is allocated but never touched.
        x = np.empty(shape, np.float32)
        tx = torch.from_numpy(x)
        plan = Plan(lib, shape, 0, n=4)
        views = (View * 4)()
        dims = (C.c_int64 * 24)()
        ns = {"fn": lib.cleave_plan_views, "h": plan.handle.value, "xp": x.ctypes.data,
              "views": views, "dims": dims, "torch": torch, "tx": tx, "np": np, "x": x}
        med = interleaved({
            "cleave_plan_views": "fn(h, xp, views, 4, dims, 24, None)",
            "torch.split": "torch.split(tx, 16, 0)",
            "np.split": "np.split(x, 4, 0)",
        }, reps, 2000, ns)
        assert views[1].data == x.ctypes.data + x.nbytes // 4 and views[1].contiguous == 1
        res[label] = med
        print(f"    {label}: " + ", ".join(f"{k} {fmt_time(v)}" for k, v in med.items()))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--lib", default=os.path.join(here, "..", "build", "src", "libcleave.so"))
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--only", default="abcdefvm", help="cases a-f, v (views), m (allocation)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    lib = load(args.lib)
    fast_run = load_fast_run(args.lib)
    pool = C.c_void_p()
    if lib.cleave_threadpool_create(2, C.byref(pool), None) != 0:
        sys.exit("cannot create a thread pool")
    pool_exec = lib.cleave_exec_threadpool(pool)
    pool1 = C.c_void_p()
    if lib.cleave_threadpool_create(1, C.byref(pool1), None) != 0:
        sys.exit("cannot create a thread pool")
    pool1_exec = lib.cleave_exec_threadpool(pool1)
    print(f"cleave {lib.cleave_version_string().decode()} vs torch {torch.__version__} "
          f"(threads: {torch.get_num_threads()}) and numpy {np.__version__}, "
          f"python {platform.python_version()}; medians of {args.reps} samples, f32")
    # The allocation comparison runs first: the cases leave freed memory in the C library's heap,
    # which PyTorch's allocator then reuses without page faults for part of its outputs (seen:
    # 49155 page faults instead of 65540), so that it would no longer pay for a fresh allocation.
    alloc = run_alloc(lib, pool_exec, args.reps) if "m" in args.only else None
    rows = []
    for letter, what, shape, axis, sizes, variadic in CASES:
        if letter in args.only:
            rows.append(run_case(lib, fast_run, pool_exec, pool1_exec, letter, what, shape, axis,
                                 sizes, variadic, args.reps))
    views = run_views(lib, args.reps) if "v" in args.only else None
    lib.cleave_threadpool_destroy(pool)
    lib.cleave_threadpool_destroy(pool1)
    summary(rows, views, alloc)


def summary(rows, views, alloc):
    """The results as Markdown tables, with the issue's peer targets."""
    print("\n| case | cleave 1T | cleave 2T | fastest torch | fastest numpy | torch / cleave 1T "
          "| numpy / cleave 1T | 2T / 1T speed | target |")
    print("|---|---|---|---|---|---|---|---|---|")
    targets = {"d": ("torch and numpy >= 15x", lambda r: min(r["torch"], r["numpy"]) /
                     r["cleave1"] >= 15),
               "f": ("torch split_with_sizes_copy(out=) >= 3x, no thread",
                     lambda r: r["swsc"] / r["cleave1"] >= 3 and r.get("threads_touched") == 0)}
    for r in rows:
        text, check = targets.get(r["case"], ("(vs plain copy: C benchmark)", None))
        verdict = "" if check is None else (" **met**" if check(r) else " **not met**")
        print(f"| ({r['case']}) | {fmt_time(r['cleave1'])} | {fmt_time(r['cleave2'])} "
              f"| {fmt_time(r['torch'])} | {fmt_time(r['numpy'])} "
              f"| {r['torch'] / r['cleave1']:.1f}x | {r['numpy'] / r['cleave1']:.1f}x "
              f"| {r['cleave1_exec'] / r['cleave2']:.2f}x | {text}{verdict} |")
    if views:
        small, large = views["1 KiB"]["cleave_plan_views"], views["1 GiB"]["cleave_plan_views"]
        print(f"\nViews of (a): cleave_plan_views {fmt_time(small)} for 1 KiB, "
              f"{fmt_time(large)} for 1 GiB (ratio {large / small:.2f}; torch.split "
              f"{fmt_time(views['1 GiB']['torch.split'])}, np.split "
              f"{fmt_time(views['1 GiB']['np.split'])}).")
    if alloc:
        c1, c2 = alloc["cleave_plan_run_alloc 1T"], alloc["cleave_plan_run_alloc 2T"]
        t = alloc["torch split + clone"]
        print(f"\nAllocated outputs of (a): cleave 1T {fmt_time(c1)}, 2T {fmt_time(c2)}, torch "
              f"split + clone {fmt_time(t)}, numpy split + copy "
              f"{fmt_time(alloc['numpy split + copy'])}: torch / cleave 1T = {t / c1:.2f}x "
              f"(target 4x: {'met' if t / c1 >= 4 else 'not met'}), / cleave 2T = {t / c2:.2f}x; "
              f"page faults: cleave {alloc['cleave faults']:.0f}, "
              f"torch {alloc['torch faults']:.0f}.")


if __name__ == "__main__":
    main()
