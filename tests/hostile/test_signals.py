#!/usr/bin/python3
"""Signals at any moment leave all of the outputs or none, and never a temporary file.
Extends tests/cli/test_signals.py (SIGTERM, SIGINT, SIGHUP while writing and before the commit):

- SIGQUIT and SIGPIPE, the other signals cleave cleans up on, while writing.
- A signal the caller ignores (nohup, background jobs) stays ignored: cleave finishes, with the
  right outputs.
- Signals (one, or two different ones back to back) at random moments of runs with more outputs
  than cleave keeps open at once (300), --force over an existing output: after each run either
  every output is there and equals NumPy's slice, or none is and the existing file is unchanged;
  no temporary file ever remains. Moments are drawn from a fixed seed, spread over the whole run
  (creating the temporaries, writing, reporting, renaming, exiting).

SIGINT and SIGTERM while a few hundred MB are copied in the kernel are in test_crash.py.
"""
import os
import random
import resource
import signal
import subprocess
import time

import numpy as np

import clitest
import hostile
from clitest import check

CLEANUP_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE]


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start_and_wait_for_data(work, args, preexec_fn=no_core):
    """Starts cleave; returns (process, True) once a temporary holds data beyond its header,
    or (process, False) if cleave finished first."""
    proc = subprocess.Popen([hostile.CLEAVE] + args, cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn)
    while proc.poll() is None:
        if any(size > 4096 for _, _, _, size in clitest.staged_files(work)):
            return proc, True
    return proc, False


def slow_split_args():
    # 24-byte pieces along axis 1: the gathering path, a few hundred ms for 2^19 rows.
    return ["split", "-a", "1", "-n", "2", "-f", "-q", "-o", "out", "in.npy"]


def other_signals(work):
    for sig in (signal.SIGQUIT, signal.SIGPIPE):
        rows = 1 << 19
        for attempt in range(4):
            for name in os.listdir(work):
                os.unlink(os.path.join(work, name))
            np.save(os.path.join(work, "in.npy"), np.zeros((rows, 2, 24), dtype=np.uint8))
            hostile.write(os.path.join(work, "out_1.npy"), b"existing")
            before = hostile.snapshot(work)
            proc, caught = start_and_wait_for_data(work, slow_split_args())
            if caught:
                proc.send_signal(sig)
            proc.wait(timeout=120)
            if caught and proc.returncode == -sig:
                check(hostile.snapshot(work) == before, f"{sig.name} while writing: files left "
                      f"or changed: {sorted(set(hostile.snapshot(work)) ^ set(before))}")
                break
            rows *= 4
        else:
            check(False, f"{sig.name}: cleave always finished before it could be interrupted")


def ignored_signals(work):
    """A signal ignored by whoever started cleave has no effect on it."""
    a = np.arange((1 << 19) * 2 * 24, dtype=np.uint32).astype(np.uint8).reshape(1 << 19, 2, 24)
    np.save(os.path.join(work, "in.npy"), a)
    for sig in (signal.SIGINT, signal.SIGHUP):
        def ignore():
            no_core()
            signal.signal(sig, signal.SIG_IGN)
        for name in os.listdir(work):
            if name != "in.npy":
                os.unlink(os.path.join(work, name))
        proc, caught = start_and_wait_for_data(work, slow_split_args(), preexec_fn=ignore)
        if caught:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        check(proc.returncode == 0, f"ignored {sig.name}: status {proc.returncode}: {err}")
        if not caught:
            print(f"ignored {sig.name}: cleave finished before the signal could be sent")
        for i in range(2):
            clitest.check_output(f"ignored {sig.name} output {i}",
                                 os.path.join(work, f"out_{i}.npy"), a[:, i:i + 1], False)


def random_moments(work):
    n = 300
    a = np.arange(n * 40 * 16, dtype="<i4").reshape(n * 40, 16)
    np.save(os.path.join(work, "in.npy"), a)
    args = ["split", "-a", "0", "-n", str(n), "-f", "-o", "p", "in.npy"]
    expected = {}
    # A calibration run (its outputs are checked too) gives the span of the moments.
    start = time.monotonic()
    r = hostile.run(args, work)
    span = time.monotonic() - start
    check(r.returncode == 0, f"calibration run: {r.returncode} {r.stderr}")
    for i in range(n):
        clitest.check_output(f"calibration output {i}", os.path.join(work, f"p_{i}.npy"),
                             a[40 * i:40 * i + 40], False)
        with open(os.path.join(work, f"p_{i}.npy"), "rb") as f:
            expected[f"p_{i}.npy"] = f.read()
    rng = random.Random(8)
    outcomes = {"finished": 0, "nothing": 0, "killed after its commit": 0}
    for run in range(40):
        for name in os.listdir(work):
            if name != "in.npy":
                os.unlink(os.path.join(work, name))
        hostile.write(os.path.join(work, "p_7.npy"), b"existing")
        sigs = rng.sample(CLEANUP_SIGNALS, rng.choice([1, 2]))
        delay = rng.uniform(0, span * 1.2)
        proc = subprocess.Popen([hostile.CLEAVE] + args, cwd=work, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, preexec_fn=no_core)
        time.sleep(delay)
        for sig in sigs:
            try:
                proc.send_signal(sig)
            except ProcessLookupError:
                pass
        proc.communicate(timeout=120)
        label = f"run {run} ({'+'.join(s.name for s in sigs)} after {delay * 1000:.1f} ms)"
        names = sorted(os.listdir(work))
        check(not any(".cleave-tmp-" in name for name in names), f"{label}: temporaries left")
        outputs = [name for name in names if name.startswith("p_")]
        with open(os.path.join(work, "p_7.npy"), "rb") as f:
            p7 = f.read()
        if p7 == b"existing":
            check(outputs == ["p_7.npy"], f"{label}: {len(outputs) - 1} new outputs beside "
                  f"the untouched existing one")
            check(proc.returncode in [-s for s in sigs],
                  f"{label}: nothing written but status {proc.returncode}")
            outcomes["nothing"] += 1
            continue
        check(len(outputs) == n, f"{label}: {len(outputs)} of {n} outputs")
        for name in outputs:
            with open(os.path.join(work, name), "rb") as f:
                if not check(f.read() == expected[name], f"{label}: {name} differs"):
                    break
        check(proc.returncode == 0 or proc.returncode in [-s for s in sigs],
              f"{label}: status {proc.returncode}")
        outcomes["finished" if proc.returncode == 0 else "killed after its commit"] += 1
    print("random moments: " + ", ".join(f"{v} {k}" for k, v in outcomes.items()))


def test_signals():
    other_signals(clitest.workdir("hostile-signals-other"))
    ignored_signals(clitest.workdir("hostile-signals-ignored"))
    random_moments(clitest.workdir("hostile-signals-random"))
