#!/usr/bin/python3
"""A signal in the middle of a run leaves no output and no temporary file, and no existing file
changed; the process dies of the signal.

Two moments are tested: while the data is being written (by split, and by concat) (the test watches the temporary files
grow, then sends the signal), and after every temporary file is complete but before the commit
(cleave is blocked writing its report to a pipe nobody reads).

pytest runs each signal as test_signals.py::test_signal[SIGNAL] (TERM, INT or HUP).
"""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import clitest
from clitest import check


def prepare(work, rows):
    np.save(os.path.join(work, "in.npy"), np.zeros((rows, 2, 24), dtype=np.uint8))
    with open(os.path.join(work, "out_1.npy"), "wb") as f:
        f.write(b"existing output, replaced only on success")
    return clitest.snapshot(work)


def growing_temporary(work):
    """The size of the largest temporary with data beyond its header, or 0."""
    best = max([size for _, _, _, size in clitest.staged_files(work)], default=0)
    return best if best > 128 else 0


# Splitting along axis 1 moves 24-byte pieces: the slow path, a few hundred ms. Joining two
# copies along axis 1 does the same the other way, into out_1.npy, which exists.
SPLIT = ["split", "-a", "1", "-n", "2", "-f", "-q", "--no-progress", "-o", "out", "in.npy"]
CONCAT = ["concat", "-a", "1", "-f", "-q", "--no-progress", "-o", "out_1.npy", "in.npy", "in.npy"]


def during_write(work, sig, command):
    rows = 1 << 19
    for attempt in range(5):
        before = prepare(work, rows)
        proc = subprocess.Popen([clitest.CLEAVE] + command, cwd=work,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        caught = False
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if growing_temporary(work):
                proc.send_signal(sig)
                caught = True
                break
        proc.wait()
        if caught and proc.returncode == -sig:
            check(clitest.snapshot(work) == before,
                  f"{command[0]}: {sig.name} while writing: files left or changed: "
                  f"{sorted(set(clitest.snapshot(work)) ^ set(before))}")
            check(clitest.temporaries(work) == [],
                  f"{command[0]}: {sig.name} while writing: temporaries")
            return
        # Finished before the signal arrived (a fast machine): try a larger input.
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        rows *= 4
    check(False, f"{command[0]}: {sig.name}: cleave always finished before it could be "
          "interrupted")


def before_commit(work, sig):
    np.save(os.path.join(work, "in.npy"), np.arange(4000 * 2, dtype="<i2").reshape(4000, 2))
    with open(os.path.join(work, "a_long_prefix_for_the_outputs_of_this_test_1.npy"), "wb") as f:
        f.write(b"existing")
    before = clitest.snapshot(work)
    # 4000 report lines (~200 KB) do not fit in a pipe: cleave blocks before the commit.
    proc = subprocess.Popen([clitest.CLEAVE, "split-to-sequence", "-f", "-o",
                             "a_long_prefix_for_the_outputs_of_this_test", "in.npy"], cwd=work,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(clitest.temporaries(work)) < 4000 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    check(proc.poll() is None, f"{sig.name} before commit: cleave did not block on its report")
    check(len(clitest.temporaries(work)) == 4000, f"{sig.name} before commit: temporaries "
          f"{len(clitest.temporaries(work))}, expected 4000")
    proc.send_signal(sig)
    proc.wait(timeout=60)
    check(proc.returncode == -sig, f"{sig.name} before commit: status {proc.returncode}")
    check(clitest.snapshot(work) == before, f"{sig.name} before commit: files left or changed")


@pytest.mark.parametrize("name", ["TERM", "INT", "HUP"])
def test_signal(name):
    sig = getattr(signal, "SIG" + name)
    during_write(clitest.workdir(f"signal-{name}-write"), sig, SPLIT)
    during_write(clitest.workdir(f"signal-{name}-concat"), sig, CONCAT)
    before_commit(clitest.workdir(f"signal-{name}-commit"), sig)
