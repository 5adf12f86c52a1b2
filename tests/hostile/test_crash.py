#!/usr/bin/python3
"""Crash safety: cleave killed with SIGKILL (no clean-up possible) at several points of a large
split, and in the middle of its commit.

After every kill: no file named like a final output (PREFIX_i.npy) exists unless it is complete
and equal to NumPy's slice (an existing output replaced with --force is either its old self or
complete); every leftover file is output i in the run's staging folder .PREFIX.cleave-tmp-PID-TAG
(the killed process's PID), holding a prefix of output i. A new run succeeds, removes the
staging folder and says so with its size.

The same points with SIGINT and SIGTERM leave nothing at all (cleave's handler runs).

The large split: a 320 MB input (4 x 80 MB along axis 0, copied in the kernel) made in chunks.
The commit: 2000 small outputs; cleave is held before its commit by a one-page stdout pipe, then
released and killed as soon as the first output has its final name. Renames go in output order,
so the outputs 0..k-1 are final and k..1999 are still in the staging folder, beside the commit's
journal; the next run into the folder takes the k outputs back (the file they replaced restored)
and says so, before it does anything else.
"""
import fcntl
import io
import os
import re
import shutil
import signal
import subprocess
import threading
import time

import numpy as np

import clitest
import hostile
from clitest import check

F_SETPIPE_SZ = 1031
PARTS = 4
PART_ELEMENTS = 20 << 20  # uint32: 80 MB per output
OLD = b"the existing output 1, replaced only by a complete one"
FINAL = re.compile(r"^p_([0-9]+)\.npy$")


def make_input(path):
    """A (4, 20 Mi) uint32 array holding 0, 1, 2, ... written in chunks (never whole in memory).
    Returns the data offset."""
    shape = (PARTS, PART_ELEMENTS)
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<u4", "fortran_order": False,
                                                 "shape": shape})
        offset = f.tell()
        step = 4 << 20
        for start in range(0, PARTS * PART_ELEMENTS, step):
            f.write(np.arange(start, start + step, dtype="<u4").tobytes())
    return offset


class Expected:
    """What output i must hold, read from the input file by offsets (not from cleave)."""

    def __init__(self, work, offset):
        self.input = os.path.join(work, "in.npy")
        self.offset = offset
        b = io.BytesIO()
        np.lib.format.write_array_header_1_0(b, {"descr": "<u4", "fortran_order": False,
                                                 "shape": (1, PART_ELEMENTS)})
        self.headers = [b.getvalue()] * PARTS

    def size(self, i):
        return len(self.headers[i]) + 4 * PART_ELEMENTS

    def matches_prefix(self, i, path, whole):
        """Whether the file at `path` is output i's first bytes (all of them if `whole`)."""
        size = os.path.getsize(path)
        if size > self.size(i) or (whole and size != self.size(i)):
            return False
        with open(path, "rb") as out, open(self.input, "rb") as src:
            head = out.read(len(self.headers[i]))
            if head != self.headers[i][:len(head)]:
                # The header itself is checked by meaning (cleave may space it differently).
                if not whole:
                    return False
                _, h, data_at, _ = clitest.read_header(path)
                if h != {"descr": "<u4", "fortran_order": False, "shape": (1, PART_ELEMENTS)}:
                    return False
                out.seek(data_at)
            src.seek(self.offset + i * 4 * PART_ELEMENTS)
            while True:
                chunk = out.read(8 << 20)
                if not chunk:
                    return True
                if chunk != src.read(len(chunk)):
                    return False


def check_leftovers(label, work, pid, expected, allow_final):
    """The state after cleave `pid` died: returns the temporaries' names."""
    tags = set()
    temps = []
    for name in sorted(os.listdir(work)):
        path = os.path.join(work, name)
        if name == "in.npy":
            continue
        stage = clitest.STAGE_NAME.match(name)
        if stage and not stage.group("journal"):
            tags.add(stage.group("tag"))
            check(stage.group("base") == "p" and stage.group("pid") == str(pid),
                  f"{label}: staging folder {name} is not named after the prefix and PID {pid}")
            continue
        m = FINAL.match(name)
        if m:
            i = int(m.group(1))
            with open(path, "rb") as f:
                old = f.read(len(OLD) + 1) == OLD
            check(i < PARTS and (old and i == 1 or allow_final and
                                 expected.matches_prefix(i, path, whole=True)),
                  f"{label}: {name} is neither the existing file nor complete and correct")
            continue
        check(False, f"{label}: unexpected file {name!r}")
    for _, name, path, _ in clitest.staged_files(work):
        temps.append(path)
        m = FINAL.match(name)
        i = int(m.group(1)) if m else PARTS
        check(i < PARTS and expected.matches_prefix(i, path, whole=False),
              f"{label}: temporary {path} is not a prefix of output {i}")
    check(len(tags) <= 1, f"{label}: staging folders of one run with several tags {tags}")
    return temps


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def clean(work):
    for name in os.listdir(work):
        if name != "in.npy":
            remove(os.path.join(work, name))
    hostile.write(os.path.join(work, "p_1.npy"), OLD)


def start(work):
    return subprocess.Popen([hostile.CLEAVE, "split", "-a", "0", "-n", str(PARTS), "-f", "-q",
                             "-o", "p", "in.npy"], cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def temp_size(work, index):
    """The size of output `index` in the staging folder, or -1 when it does not exist."""
    for _, name, _, size in clitest.staged_files(work):
        if name == f"p_{index}.npy":
            return size
    return -1


# Points of the run: (label, condition on the work directory).
POINTS = [
    ("temporaries created", lambda w: temp_size(w, 0) >= 0),
    ("output 0 being written", lambda w: temp_size(w, 0) > (1 << 20)),
    ("output 2 being written", lambda w: temp_size(w, 2) > (1 << 20)),
]


def interrupt(work, expected, point, sig):
    label, condition = point
    label = f"{sig.name} at '{label}'"
    clean(work)
    proc = start(work)
    reached = False
    while proc.poll() is None:
        if condition(work):
            proc.send_signal(sig)
            reached = True
            break
    proc.communicate(timeout=120)
    if not check(reached, f"{label}: cleave finished before the point was reached"):
        return label, proc, []
    check(proc.returncode == -sig, f"{label}: status {proc.returncode}")
    temps = check_leftovers(label, work, proc.pid, expected, allow_final=False)
    if sig != signal.SIGKILL:
        check(temps == [], f"{label}: temporaries left: {temps}")
        check(sorted(os.listdir(work)) == ["in.npy", "p_1.npy"], f"{label}: files left")
    return label, proc, temps


def large_split(work):
    offset = make_input(os.path.join(work, "in.npy"))
    expected = Expected(work, offset)
    for sig in (signal.SIGINT, signal.SIGTERM):
        for point in POINTS:
            interrupt(work, expected, point, sig)
    counts = []
    for point in POINTS:
        label, proc, temps = interrupt(work, expected, point, signal.SIGKILL)
        counts.append(f"{label}: {len(temps)} temporaries")
    print("kill -9: " + "; ".join(counts))
    # A new run next to the leftovers of the last one: it succeeds, removes them and says so.
    stages = [n for n in os.listdir(work) if clitest.STAGE_NAME.match(n)]
    size = sum(os.path.getsize(p) for p in temps)
    r = hostile.run(["split", "-a", "0", "-n", str(PARTS), "-f", "-q", "-o", "p", "in.npy"], work)
    check(r.returncode == 0, f"run after kill -9: {r.returncode} {r.stderr}")
    for i in range(PARTS):
        check(expected.matches_prefix(i, os.path.join(work, f"p_{i}.npy"), whole=True),
              f"run after kill -9: output {i} is not complete and correct")
    check(len(stages) == 1 and r.stderr ==
          f"cleave: warning: removed '{stages[0]}' ({size} bytes in {len(temps)} "
          f"file{'s' if len(temps) != 1 else ''}), left by a cleave run that ended without "
          "cleaning up\n", f"run after kill -9: stderr {r.stderr!r} (leftovers {stages})")
    check(sorted(os.listdir(work)) == ["in.npy"] + [f"p_{i}.npy" for i in range(PARTS)],
          f"after the run: {sorted(os.listdir(work))}")
    for name in os.listdir(work):
        remove(os.path.join(work, name))


def during_commit(work):
    n = 2000
    a = np.arange(n * 8, dtype="<i4").reshape(n, 8)
    np.save(os.path.join(work, "rows.npy"), a)
    for attempt in range(5):
        for name in os.listdir(work):
            if name != "rows.npy":
                remove(os.path.join(work, name))
        hostile.write(os.path.join(work, "p_1500.npy"), OLD)
        proc = subprocess.Popen([hostile.CLEAVE, "split", "-a", "0", "-n", str(n), "-f", "-o",
                                 "p", "rows.npy"], cwd=work, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        fcntl.fcntl(proc.stdout.fileno(), F_SETPIPE_SZ, 4096)
        deadline = time.monotonic() + 60
        while len(clitest.temporaries(work)) < n and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        check(proc.poll() is None, "during the commit: cleave did not block on its report")
        # Release it (a thread drains the report) and kill it once output 0 has its final name.
        drain = threading.Thread(target=proc.stdout.read)
        drain.start()
        first = os.path.join(work, "p_0.npy")
        while proc.poll() is None and not os.path.exists(first):
            pass
        proc.kill()
        proc.wait(timeout=60)
        drain.join()
        proc.stderr.read()
        check(proc.returncode in (-signal.SIGKILL, 0), f"during the commit: {proc.returncode}")
        final, temps = set(), set()
        stages = []
        for name in os.listdir(work):
            m = FINAL.match(name)
            t = clitest.STAGE_NAME.match(name)
            if m:
                final.add(int(m.group(1)))
            elif t:
                check(t.group("base") == "p" and t.group("pid") == str(proc.pid),
                      f"during the commit: temporary {name}")
                stages.append(name)
            else:
                check(name == "rows.npy", f"during the commit: unexpected file {name!r}")
        for _, name, path, _ in clitest.staged_files(work):
            m = FINAL.match(name)
            check(m is not None, f"during the commit: unexpected staged file {path}")
            if m:
                temps.add(int(m.group(1)))
        with open(os.path.join(work, "p_1500.npy"), "rb") as f:
            if f.read() == OLD:
                final.discard(1500)  # the existing file, not yet replaced
        k = len(final)
        if k > 1500:
            temps.discard(1500)  # the file it replaced, set aside in the staging folder
        # Renames go in output order: outputs 0..k-1 are final, k..n-1 still staged; each output
        # is in exactly one place, and each final one is complete.
        check(final == set(range(k)), "during the commit: the renamed outputs are not the first "
              f"ones: {sorted(set(range(k)) ^ final)[:5]}")
        check(temps == set(range(k, n)), "during the commit: the staged files are not the "
              f"outputs after the renamed ones: {sorted(set(range(k, n)) ^ temps)[:5]}")
        for i in sorted(final):
            clitest.check_output(f"during the commit: p_{i}.npy",
                                 os.path.join(work, f"p_{i}.npy"), a[i:i + 1], False)
        if 0 < k < n:
            stage = [s for s in stages if not s.endswith(".commit")]
            check(sorted(stages) == sorted(stage + [stage[0] + ".commit"]) if stage else False,
                  f"during the commit: not a staging folder and its journal: {stages}")
            # The next run (without -f: refused, as p_1500.npy exists) first takes the commit
            # back: the folder is as it was before the killed run.
            r = hostile.run(["split", "-a", "0", "-n", str(n), "-o", "p", "rows.npy"], work)
            check(r.returncode == 73 and f"the {k} output{'s' if k != 1 else ''} it had put in "
                  f"place {'were' if k != 1 else 'was'} taken back ({int(k > 1500)} old "
                  f"file{'s' if k <= 1500 else ''} restored)" in r.stderr,
                  f"after the kill during the commit: {r.returncode} {r.stderr!r}")
            check(sorted(os.listdir(work)) == ["p_1500.npy", "rows.npy"],
                  f"after the kill during the commit: left {sorted(os.listdir(work))[:5]}")
            with open(os.path.join(work, "p_1500.npy"), "rb") as f:
                check(f.read() == OLD, "after the kill during the commit: p_1500.npy not restored")
            print(f"kill -9 during the commit: {k} of {n} outputs renamed, {len(temps)} "
                  f"staged; the next run took them back (attempt {attempt + 1})")
            break
        print(f"kill -9 during the commit: {k} of {n} renamed; trying again")
    else:
        print("kill -9 during the commit: never caught between two renames (invariants held)")


def test_crash():
    large_split(clitest.workdir("hostile-crash-large"))
    during_commit(clitest.workdir("hostile-crash-commit"))
