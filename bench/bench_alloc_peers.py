#!/usr/bin/python3
"""Repeated allocating splits: cleave (with its output arena and without) against PyTorch's
split + clone, in one process, on the same input.

Every sample is one call that allocates the outputs, fills them and releases them (all timed),
after a pause (--pause seconds) in which the host may take freed memory back, as it does
between the calls of a real program that does other work. Variants are interleaved and their
order rotated sample by sample; the allocated outputs are checked against NumPy's split once per
variant, outside the timing. 1 thread (cleave on the calling thread, torch.set_num_threads(1))
and 2 threads (a built-in pool of 2; torch.set_num_threads(2)).

Run with Debian's interpreter (it sees python3-torch and python3-numpy):
    /usr/bin/python3 bench/bench_alloc_peers.py --lib build/src/libcleave.so
"""

import argparse
import ctypes as C
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_peers as bp  # noqa: E402  (the C API's ctypes description and the cases)


class Allocator(C.Structure):
    _fields_ = [("alloc", C.c_void_p), ("free", C.c_void_p), ("user", C.c_void_p)]


def load(path):
    lib = bp.load(path)
    P = C.c_void_p
    for name, res, args in [
        ("cleave_arena_create", C.c_int, [C.c_size_t, P, C.POINTER(P), P]),
        ("cleave_arena_destroy", None, [P]),
        ("cleave_arena_allocator", Allocator, [P]),
        ("cleave_plan_run_alloc_with", C.c_int, [P, P, C.POINTER(bp.Exec), C.POINTER(Allocator),
                                                 P, P]),
    ]:
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


def run_case(lib, pool_exec, arena_alloc, case, reps, pause):
    letter, what, shape, axis, sizes, variadic = case
    x = bp.pattern(shape)
    tx = torch.from_numpy(x)
    plan = bp.Plan(lib, shape, axis, n=None if variadic else len(sizes), lengths=variadic)
    n = len(sizes)
    outs = (C.c_void_p * n)()
    nbytes = [lib.cleave_plan_output_bytes(plan.handle, i) for i in range(n)]
    expect = bp.expected(x, axis, sizes)

    def cleave(exec_ptr, alloc_ptr):
        if alloc_ptr is None:
            st = lib.cleave_plan_run_alloc(plan.handle, x.ctypes.data, exec_ptr, outs, None)
        else:
            st = lib.cleave_plan_run_alloc_with(plan.handle, x.ctypes.data, exec_ptr, alloc_ptr,
                                                outs, None)
        if st != 0:
            sys.exit(f"allocating run failed with status {st}")

    def cleave_check():
        for i in range(n):
            got = np.ctypeslib.as_array(C.cast(outs[i], C.POINTER(C.c_float)),
                                        (nbytes[i] // 4,)).reshape(expect[i].shape)
            if not bp.same(got, expect[i]):
                sys.exit(f"case {letter}: allocated output {i} differs")

    def variant(kind, threads):
        exec_ptr = C.byref(pool_exec) if threads == 2 else None
        alloc_ptr = C.byref(arena_alloc) if kind == "arena" else None

        def run(check=False):
            if kind == "torch":
                torch.set_num_threads(threads)
                t0 = time.perf_counter()
                clones = [v.clone() for v in torch.split(tx, sizes, axis)]
                if check:
                    assert all(bp.same(c.numpy(), e) for c, e in zip(clones, expect))
                del clones
                return time.perf_counter() - t0
            t0 = time.perf_counter()
            cleave(exec_ptr, alloc_ptr)
            if check:
                cleave_check()
            lib.cleave_outputs_free(outs, n)
            return time.perf_counter() - t0
        return run

    names = [f"{k} {t}T" for t in (1, 2) for k in ("cleave arena", "cleave no arena", "torch")]
    kinds = {f"{k} {t}T": variant({"cleave arena": "arena", "cleave no arena": "system",
                                   "torch": "torch"}[k], t)
             for t in (1, 2) for k in ("cleave arena", "cleave no arena", "torch")}
    for name in names:  # checks, and the arena's first block
        kinds[name](check=True)
    samples = {name: [] for name in names}
    for r in range(reps):
        for k in range(len(names)):
            name = names[(k + r) % len(names)]
            time.sleep(pause)
            samples[name].append(kinds[name]())
    med = {name: statistics.median(v) for name, v in samples.items()}
    print(f"({letter}) {what}")
    for name in names:
        print(f"    {name:18s} {med[name] * 1e3:10.3f} ms")
    torch.set_num_threads(1)
    return letter, med


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--lib", default=os.path.join(here, "..", "build", "src", "libcleave.so"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pause", type=float, default=1.0)
    ap.add_argument("--only", default="abcde", help="cases a-f")
    args = ap.parse_args()
    lib = load(args.lib)
    pool = C.c_void_p()
    if lib.cleave_threadpool_create(2, C.byref(pool), None) != 0:
        sys.exit("cannot create a thread pool")
    pool_exec = lib.cleave_exec_threadpool(pool)
    arena = C.c_void_p()
    if lib.cleave_arena_create(1 << 30, None, C.byref(arena), None) != 0:
        sys.exit("cannot create an arena")
    arena_alloc = lib.cleave_arena_allocator(arena)
    print(f"cleave {lib.cleave_version_string().decode()} vs torch {torch.__version__}: "
          f"medians of {args.reps} samples, pause {args.pause} s before each, f32")
    rows = [run_case(lib, pool_exec, arena_alloc, case, args.reps, args.pause)
            for case in bp.CASES if case[0] in args.only]
    lib.cleave_arena_destroy(arena)
    lib.cleave_threadpool_destroy(pool)
    print("\n| case | T | cleave arena | cleave no arena | torch split + clone | "
          "torch / arena | torch / no arena |")
    print("|---|---|---|---|---|---|---|")
    for letter, med in rows:
        for t in (1, 2):
            a, s, p = med[f"cleave arena {t}T"], med[f"cleave no arena {t}T"], med[f"torch {t}T"]
            print(f"| ({letter}) | {t} | {a * 1e3:.2f} ms | {s * 1e3:.2f} ms | {p * 1e3:.2f} ms | "
                  f"{p / a:.2f}x | {p / s:.2f}x |")


if __name__ == "__main__":
    main()
