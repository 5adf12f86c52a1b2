#!/usr/bin/python3
"""The Python package `cleave` against NumPy, PyTorch and the C library, in one process.

Times the statements a user writes (each in timeit's own loop, so no wrapper call is counted),
the variants of a case interleaved sample by sample, medians of --reps samples, ratios within
the run:

  (f)     [6,12,10,24] into 3 along axis 1 with out=: cleave.split(out=) and Plan.run(out=) vs
          torch.split_with_sizes_copy(out=), a loop of np.copyto, and the C library's own time
          for the same plan run (a C loop inside the extension, same buffers, GIL held);
  views   cleave.split(x, 4, axis=0) vs np.split and torch.split for 1 KiB and 1 GiB inputs;
  (a)-(e) with out= vs the C library's time for the same run;
  alloc   copy=True on (a) vs torch.split + clone (allocation and copy timed, release not);
          copy=True takes its block from the module's output arena (cleave.arena_stats()
          shows how many calls reused a kept block).

Every output buffer of every library is allocated the same way (64-byte aligned NumPy memory,
bench_peers.aligned_empty), and every result is checked against np.split. One thread.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py --reps 11
"""

import argparse
import os
import platform
import resource
import statistics
import sys
import time
import timeit

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctypes as C  # noqa: E402

import bench_peers  # noqa: E402
from bench_peers import CASES, aligned_empty, expected, fmt_time, pattern, same  # noqa: E402

import cleave  # noqa: E402


def interleaved(variants, c_variant, reps, calls, ns):
    """Median seconds per call: each sample runs every statement in turn, and the C loop."""
    timers = {name: timeit.Timer(stmt, globals=ns) for name, stmt in variants.items()}
    times = {name: [] for name in variants}
    if c_variant:
        times["C library"] = []
    for t in timers.values():
        t.timeit(1)
    for _ in range(reps):
        for name, t in timers.items():
            times[name].append(t.timeit(calls) / calls)
        if c_variant:
            times["C library"].append(c_variant(calls))
    return {name: statistics.median(v) for name, v in times.items()}


def plan_for(shape, axis, sizes, variadic):
    if variadic is None:
        return cleave.Plan("split", shape, np.float32, num_splits=len(sizes), axis=axis)
    return cleave.Plan("variadic_split", shape, np.float32, split_lengths=variadic, axis=axis)


def case_f(reps):
    letter, what, shape, axis, sizes, variadic = [c for c in CASES if c[0] == "f"][0]
    x = pattern(shape)
    tx = torch.from_numpy(x)
    want = expected(x, axis, sizes)
    shapes = [w.shape for w in want]
    bufs = {k: [aligned_empty(s) for s in shapes] for k in ("cl", "clp", "c", "np")}
    tout = [torch.from_numpy(aligned_empty(s)) for s in shapes]
    plan = plan_for(shape, axis, sizes, variadic)
    views = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    ns = {"cleave": cleave, "torch": torch, "np": np, "x": x, "tx": tx, "plan": plan,
          "cl": bufs["cl"], "clp": bufs["clp"], "nout": bufs["np"], "tout": tout,
          "views": views, "sizes": sizes, "axis": axis, "zip": zip}
    med = interleaved({
        "cleave.split(out=)": "cleave.split(x, 3, axis=1, out=cl)",
        "cleave Plan.run(out=)": "plan.run(x, out=clp)",
        "torch split_with_sizes_copy(out=)":
            "torch.split_with_sizes_copy(tx, sizes, axis, out=tout)",
        "numpy copyto loop": "for o, v in zip(nout, views): np.copyto(o, v)",
    }, lambda calls: plan._c_seconds(x, bufs["cl"], calls), max(reps, 11), 2000, ns)
    # The C loop writes the same buffers as cleave.split (so that buffer placement cannot tell
    # them apart); cleave.split's output is checked by one more call into cleared buffers.
    plan._c_seconds(x, bufs["c"], 1)
    for o in bufs["cl"]:
        o.fill(0)
    cleave.split(x, 3, axis=1, out=bufs["cl"])
    for name, outs in (("cleave", bufs["cl"]), ("plan", bufs["clp"]), ("C", bufs["c"]),
                       ("numpy", bufs["np"]), ("torch", [t.numpy() for t in tout])):
        assert all(same(g, w) for g, w in zip(outs, want)), name
    print(f"\n(f) {what}, out= given -- plan: {plan.kernels}")
    for name, t in med.items():
        print(f"    {name:36s} {fmt_time(t):>12s}")
    return med


def case_views(reps):
    res = {}
    print("\n(views) split into 4 along axis 0, NumPy views returned")
    for label, shape in (("1 KiB", (64, 2, 2)), ("1 GiB", (64, 1024, 4096))):
        x = np.empty(shape, np.float32)  # never touched: views only compute addresses
        tx = torch.from_numpy(x)
        plan = cleave.Plan("split", shape, np.float32, num_splits=4, axis=0)
        ns = {"cleave": cleave, "np": np, "torch": torch, "x": x, "tx": tx, "plan": plan}
        med = interleaved({
            "cleave.split": "cleave.split(x, 4, axis=0)",
            "cleave Plan.views": "plan.views(x)",
            "np.split": "np.split(x, 4, 0)",
            "torch.split": "torch.split(tx, 16, 0)",
        }, None, reps, 2000, ns)
        v = cleave.split(x, 4, axis=0)
        assert all(np.shares_memory(a, x) for a in v)
        assert [a.__array_interface__["data"][0] for a in v] == \
               [a.__array_interface__["data"][0] for a in np.split(x, 4, 0)]
        res[label] = med
        print(f"    {label}: " + ", ".join(f"{k} {fmt_time(t)}" for k, t in med.items()))
    return res


def case_large(letter, reps):
    _, what, shape, axis, sizes, variadic = [c for c in CASES if c[0] == letter][0]
    x = pattern(shape)
    want = expected(x, axis, sizes)
    shapes = [w.shape for w in want]
    cl = [aligned_empty(s) for s in shapes]
    cc = [aligned_empty(s) for s in shapes]
    plan = plan_for(shape, axis, sizes, variadic)
    if variadic is None:
        stmt = f"cleave.split(x, {len(sizes)}, axis={axis}, out=cl)"
    else:
        stmt = f"cleave.variadic_split(x, {variadic}, axis={axis}, out=cl)"
    ns = {"cleave": cleave, "x": x, "cl": cl}
    # Runs of about 30 ms are timed one call per sample; shorter ones (d) in loops of 10.
    calls = 1 if x.nbytes >= (64 << 20) else 10
    # The C loop writes cleave's buffers (same placement); both are checked afterwards, cleave
    # by one more call into cleared buffers.
    med = interleaved({"cleave out=": stmt}, lambda calls: plan._c_seconds(x, cl, calls),
                      reps, calls, ns)
    plan._c_seconds(x, cc, 1)
    for o in cl:
        o.fill(0)
    eval(stmt, ns)
    assert all(same(g, w) for g, w in zip(cl, want)) and all(same(g, w) for g, w in zip(cc, want))
    print(f"\n({letter}) {what}, out= given -- plan: {plan.kernels}")
    for name, t in med.items():
        print(f"    {name:36s} {fmt_time(t):>12s}")
    return med


def case_alloc(reps, lib_path):
    shape = (64, 1024, 1024)
    x = pattern(shape)
    tx = torch.from_numpy(x)
    want = expected(x, 0, [16] * 4)

    def timed(fn):
        t0 = time.perf_counter()
        outs = fn()
        t1 = time.perf_counter()
        assert all(same(np.asarray(o), w) for o, w in zip(outs, want))
        return t1 - t0

    # The C library's own allocating run (cleave_plan_run_alloc through ctypes, as
    # bench_peers.py calls it), so that the ratio can be compared with what the library reaches.
    lib = bench_peers.load(lib_path)
    plan = bench_peers.Plan(lib, shape, 0, n=4)
    ptrs = (C.c_void_p * 4)()

    def c_alloc():
        t0 = time.perf_counter()
        st = lib.cleave_plan_run_alloc(plan.handle, x.ctypes.data, None, ptrs, None)
        t1 = time.perf_counter()
        assert st == 0
        n = want[0].size
        for i in range(4):
            got = np.ctypeslib.as_array(C.cast(ptrs[i], C.POINTER(C.c_float)), (n,))
            assert same(got.reshape(want[i].shape), want[i])
            del got
        lib.cleave_outputs_free(ptrs, 4)
        return t1 - t0

    variants = [
        ("C cleave_plan_run_alloc", c_alloc),
        ("cleave.split(copy=True)", lambda: timed(lambda: cleave.split(x, 4, axis=0, copy=True))),
        ("torch split + clone",
         lambda: timed(lambda: [v.clone().numpy() for v in torch.split(tx, 16, 0)])),
    ]
    times = {n: [] for n, _ in variants}
    faults = {n: [] for n, _ in variants}
    for r in range(reps + 1):
        for k in range(len(variants)):
            name, fn = variants[(r + k) % len(variants)]
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t = fn()
            f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            if r > 0:
                times[name].append(t)
                faults[name].append(f1 - f0)
    med = {n: statistics.median(v) for n, v in times.items()}
    print("\n(alloc) (a) into fresh arrays (allocation + copy timed, release not)")
    s = cleave.arena_stats()
    print(f"    copy=True output arena: limit {s['limit_bytes'] >> 20} MiB, {s['reused']} calls "
          f"reused a kept block, {s['allocated']} allocated a new one")
    for n, t in med.items():
        print(f"    {n:36s} {fmt_time(t):>12s}  {statistics.median(faults[n]):8.0f} page faults")
    return med


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=11)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--lib", default=os.path.join(here, "..", "build", "src", "libcleave.so"),
                    help="libcleave.so, for the C library's allocating run (ctypes)")
    ap.add_argument("--only", default="fvabcdem", help="f, v (views), a-e, m (copy=True)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"cleave {cleave.__version__} (library {cleave.library_version()}) vs torch "
          f"{torch.__version__} and numpy {np.__version__}, python {platform.python_version()}; "
          f"medians of {args.reps} samples, float32, 1 thread")
    alloc = case_alloc(args.reps, args.lib) if "m" in args.only else None
    f = case_f(args.reps) if "f" in args.only else None
    views = case_views(args.reps) if "v" in args.only else None
    large = {c: case_large(c, args.reps) for c in "abcde" if c in args.only}

    print("\n| target | measured | status |\n|---|---|---|")

    def row(target, value, ok):
        print(f"| {target} | {value} | {'met' if ok else '**not met**'} |")

    if f:
        c = f["cleave.split(out=)"]
        r = f["torch split_with_sizes_copy(out=)"] / c
        row("(f) out=: >= 3.3x faster than torch.split_with_sizes_copy(out=)",
            f"{r:.2f}x (cleave {fmt_time(c)}, torch "
            f"{fmt_time(f['torch split_with_sizes_copy(out=)'])})", r >= 3.3)
        r = f["numpy copyto loop"] / c
        row("(f) out=: >= 2.3x faster than a loop of np.copyto",
            f"{r:.2f}x (numpy {fmt_time(f['numpy copyto loop'])})", r >= 2.3)
        cl = f["C library"]
        print(f"| (f) the C library's own time, for reference: vs torch, vs np.copyto | "
              f"{f['torch split_with_sizes_copy(out=)'] / cl:.2f}x, "
              f"{f['numpy copyto loop'] / cl:.2f}x | - |")
        r = c / f["C library"]
        row("(f) out=: within 1.25x of the C library's time",
            f"{r:.2f}x (C {fmt_time(f['C library'])}; Plan.run "
            f"{f['cleave Plan.run(out=)'] / f['C library']:.2f}x)", r <= 1.25)
    if views:
        for label, m in views.items():
            c = m["cleave.split"]
            rn, rt = m["np.split"] / c, m["torch.split"] / c
            row(f"views {label}: >= 10x faster than np.split, >= 6x than torch.split",
                f"{rn:.1f}x, {rt:.1f}x (cleave {fmt_time(c)}, np {fmt_time(m['np.split'])}, "
                f"torch {fmt_time(m['torch.split'])})", rn >= 10 and rt >= 6)
    for letter, m in large.items():
        r = m["cleave out="] / m["C library"]
        row(f"({letter}) out=: within 5% of the C library's time",
            f"{r:.3f} (cleave {fmt_time(m['cleave out='])}, C {fmt_time(m['C library'])})",
            r <= 1.05)
    if alloc:
        c, t = alloc["cleave.split(copy=True)"], alloc["torch split + clone"]
        lib_c = alloc["C cleave_plan_run_alloc"]
        row("(a) copy=True: >= 4x faster than torch split + clone",
            f"{t / c:.2f}x (cleave {fmt_time(c)}, torch {fmt_time(t)}; the C library's "
            f"cleave_plan_run_alloc {fmt_time(lib_c)}: {t / lib_c:.2f}x)", t / c >= 4)


if __name__ == "__main__":
    main()
