#!/usr/bin/python3
"""cleave.concat against np.concatenate and torch.cat, on the inverses of cases (a)-(f).

Each case's input is split as bench_peers.CASES says (four 64 MiB parts on axis 0, 1 or 2 for
(a)-(c), 1024 columns for (d), the variadic parts for (e), three parts for (f)); the parts, each
a 64-byte aligned contiguous array, are joined back along the same axis:

  alloc  cleave.concat(parts, axis), np.concatenate(parts, axis), torch.cat(tparts, axis): a fresh
         output per call (allocation, copy and release all timed: timeit drops each result);
  out=   the same into a caller's 64-byte aligned array (cleave.concat(out=), ConcatPlan.run(out=),
         np.concatenate(out=), torch.cat(out=)), and the C library's own time for the same plan
         run (ConcatPlan._c_seconds: a C loop inside the extension), the binding's floor.

The variants of a case are interleaved sample by sample (timeit's own loop, so no wrapper call is
counted), medians of --reps samples, ratios within the run; every output is checked against the
tensor the parts came from. One thread everywhere (torch.set_num_threads(1)).

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_concat_peers.py --reps 11
"""

import argparse
import os
import platform
import statistics
import sys
import timeit

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_peers import CASES, aligned_empty, expected, fmt_time, pattern, same  # noqa: E402

import cleave  # noqa: E402


def interleaved(variants, c_loop, reps, calls, ns):
    """Median seconds per call of each statement, and of c_loop(calls) (seconds per call); each
    sample runs every one in turn."""
    timers = {name: timeit.Timer(stmt, globals=ns).timeit for name, stmt in variants.items()}
    timers = {name: (lambda t: lambda n: t(n) / n)(t) for name, t in timers.items()}
    timers["C library"] = c_loop
    times = {name: [] for name in timers}
    for t in timers.values():
        t(1)
    for r in range(reps):
        names = list(timers)
        names = names[r % len(names):] + names[:r % len(names)]  # rotate who goes first
        for name in names:
            times[name].append(timers[name](calls))
    return {name: statistics.median(v) for name, v in times.items()}


def run_case(letter, what, shape, axis, sizes, reps):
    x = pattern(shape)
    parts = []
    for v in expected(x, axis, sizes):
        p = aligned_empty(v.shape)
        np.copyto(p, v)
        parts.append(p)
    tparts = [torch.from_numpy(p) for p in parts]
    plan = cleave.ConcatPlan("concat", [p.shape for p in parts], np.float32, axis=axis)
    outs = {k: aligned_empty(shape) for k in ("cl", "clp", "np", "c")}
    tout = torch.from_numpy(aligned_empty(shape))
    ns = {"cleave": cleave, "np": np, "torch": torch, "parts": parts, "tparts": tparts,
          "axis": axis, "plan": plan, "cl": outs["cl"], "clp": outs["clp"], "nout": outs["np"],
          "tout": tout}
    variants = {
        "cleave.concat": "cleave.concat(parts, axis)",
        "np.concatenate": "np.concatenate(parts, axis)",
        "torch.cat": "torch.cat(tparts, axis)",
        "cleave.concat(out=)": "cleave.concat(parts, axis, out=cl)",
        "ConcatPlan.run(out=)": "plan.run(parts, out=clp)",
        "np.concatenate(out=)": "np.concatenate(parts, axis, out=nout)",
        "torch.cat(out=)": "torch.cat(tparts, axis, out=tout)",
    }
    calls = 1 if x.nbytes >= (64 << 20) else 10 if x.nbytes >= (1 << 20) else 2000
    # The C library's own time: the same plan run in a C loop inside the extension (GIL held).
    med = interleaved(variants, lambda n: plan._c_seconds(parts, outs["c"], n), reps, calls, ns)
    for name, got in (("cleave", cleave.concat(parts, axis)), ("np", np.concatenate(parts, axis)),
                      ("torch", torch.cat(tparts, axis).numpy())):
        assert same(got, x), name
    for name, buf in list(outs.items()) + [("torch out", tout.numpy())]:
        assert same(buf, x), name
    print(f"\n({letter}) join of: {what} -- {len(parts)} inputs, plan: {plan.kernels}")
    for name, t in med.items():
        print(f"    {name:24s} {fmt_time(t):>12s}")
    return med


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--only", default="abcdef", help="the cases to run, among a-f")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"cleave {cleave.__version__} (library {cleave.library_version()}) vs torch "
          f"{torch.__version__} and numpy {np.__version__}, python {platform.python_version()}; "
          f"medians of {args.reps} samples, float32, 1 thread; load {os.getloadavg()[0]:.2f}")
    res = {}
    for letter, what, shape, axis, sizes, _ in CASES:
        if letter in args.only:
            res[letter] = run_case(letter, what, shape, axis, sizes, args.reps)

    print("\n| case | cleave | np.concatenate / cleave | torch.cat / cleave | cleave out= | "
          "np out= / cleave | torch out= / cleave | ConcatPlan.run out= | C library |")
    print("|---|---|---|---|---|---|---|---|---|")
    for letter, m in res.items():
        c, co = m["cleave.concat"], m["cleave.concat(out=)"]
        print(f"| ({letter}) | {fmt_time(c)} | {m['np.concatenate'] / c:.2f}x | "
              f"{m['torch.cat'] / c:.2f}x | {fmt_time(co)} | "
              f"{m['np.concatenate(out=)'] / co:.2f}x | {m['torch.cat(out=)'] / co:.2f}x | "
              f"{fmt_time(m['ConcatPlan.run(out=)'])} | {fmt_time(m['C library'])} |")


if __name__ == "__main__":
    main()
