#!/usr/bin/python3
"""Signals and failing writes during `cleave st shard` (and `st merge`, `st reshard`): every
output or none, no temporary file
left, an OUTDIR the run created removed again, existing files unchanged; after kill -9 (no
clean-up possible) only temporaries of the killed process, which a new run leaves alone.

The runs gather inner-axis parts through 256-byte buffers (CLEAVE_CHUNK_BYTES) so that they last
long enough to be interrupted while the temporaries hold data."""
import os
import resource
import signal
import subprocess

import numpy as np

import clitest
import st_util as u
from clitest import check

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE]


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start_and_wait(work, outdir, args, preexec_fn=no_core):
    env = dict(os.environ, CLEAVE_CHUNK_BYTES="256")
    proc = subprocess.Popen([u.CLEAVE] + args, cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn, env=env)
    # The staging folder of OUTDIR is beside it: .OUTDIR.cleave-tmp-PID-TAG.
    while proc.poll() is None:
        if any(m.group("base") == outdir and size > 65536
               for m, _, _, size in clitest.staged_files(work)):
            return proc, True
    return proc, False


def model(work, rows):
    a = np.arange(rows * 64, dtype=np.uint32).reshape(rows, 64).astype(np.float32)
    u.write_st(os.path.join(work, "m.safetensors"), {"w": u.array_tensor(a),
                                                     "b": u.array_tensor(np.ones(8, np.int8))})
    return a


def shard_args(outdir, *extra):
    return ["st", "shard", "m.safetensors", "-o", outdir, "-n", "4", "--axis", "w=1", "-q"] + list(extra)


def signals_while_writing(work):
    rows = 1 << 15
    model(work, rows)
    for sig in SIGNALS:
        for attempt in range(4):
            before = u.snapshot(work)
            proc, caught = start_and_wait(work, "fresh", shard_args("fresh"))
            if caught:
                proc.send_signal(sig)
            proc.wait(timeout=120)
            if caught and proc.returncode == -sig:
                check(u.snapshot(work) == before,
                      f"{sig.name}: files left or changed: "
                      f"{sorted(set(u.snapshot(work)) ^ set(before))}")
                break
            # cleave finished first: a larger model, and clean up.
            subprocess.run(["rm", "-rf", os.path.join(work, "fresh")])
            rows *= 4
            model(work, rows)
        else:
            check(False, f"{sig.name}: cleave always finished before it could be interrupted")
    # Into an existing folder with an existing output and -f: it is left unchanged.
    os.makedirs(os.path.join(work, "existing"), exist_ok=True)
    with open(os.path.join(work, "existing", "rank1.safetensors"), "wb") as f:
        f.write(b"keep me")
    before = u.snapshot(work)
    proc, caught = start_and_wait(work, "existing", shard_args("existing", "-f"))
    if caught:
        proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)
    if check(caught and proc.returncode == -signal.SIGTERM, "SIGTERM with -f: not interrupted"):
        check(u.snapshot(work) == before, "SIGTERM with -f: existing folder changed")


def ignored_signal(work):
    a = model(work, 1 << 15)

    def ignore_hup():
        no_core()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    proc, caught = start_and_wait(work, "ign", shard_args("ign"), preexec_fn=ignore_hup)
    if caught:
        proc.send_signal(signal.SIGHUP)
    proc.wait(timeout=120)
    check(proc.returncode == 0, f"ignored SIGHUP: status {proc.returncode}")
    for rank, want in enumerate(np.split(a, 4, axis=1)):
        _, got = u.read_st(os.path.join(work, "ign", f"rank{rank}.safetensors"))
        check(np.array_equal(u.as_array(got["w"]), want), f"ignored SIGHUP: rank {rank}")


def failing_write(work):
    """A file-size limit makes a write fail: status 74, the message names the output, nothing
    is left (the OUTDIR this run created included)."""
    model(work, 1 << 14)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))

    before = u.snapshot(work)
    r = subprocess.run([u.CLEAVE] + shard_args("full"), cwd=work, capture_output=True, text=True,
                       preexec_fn=limit)
    check(r.returncode == 74, f"file-size limit: status {r.returncode}: {r.stderr}")
    check("full/rank" in r.stderr and "failed" in r.stderr, f"file-size limit: {r.stderr}")
    check(u.snapshot(work) == before, "file-size limit: files left behind")
    # An output folder that cannot be created.
    os.makedirs(os.path.join(work, "ro"))
    os.chmod(os.path.join(work, "ro"), 0o555)
    before = u.snapshot(work)
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", u.CLEAVE] +
                       shard_args("ro/out"), cwd=work, capture_output=True, text=True)
    check(r.returncode == 73 and "ro/out" in r.stderr, f"unwritable folder: {r.returncode} {r.stderr}")
    check(u.snapshot(work) == before, "unwritable folder: files changed")


def sigkill(work):
    """kill -9 while writing (no clean-up possible): the staging folder .OUTDIR.cleave-tmp-PID-TAG
    of the killed process is left beside OUTDIR, which does not exist; a new run removes it,
    says so with its size, and its outputs are right."""
    import re
    a = model(work, 1 << 15)
    for attempt in range(4):
        proc, caught = start_and_wait(work, "killed", shard_args("killed"))
        if caught:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=120)
        if caught and proc.returncode == -signal.SIGKILL:
            break
        subprocess.run(["rm", "-rf", os.path.join(work, "killed")])
        a = model(work, (1 << 15) * 4 ** (attempt + 1))
    else:
        check(False, "SIGKILL: cleave always finished first")
        return
    pattern = re.compile(rf"^\.killed\.cleave-tmp-{proc.pid}-[0-9a-f]{{8}}$")
    left = [n for n in os.listdir(work) if ".cleave-tmp-" in n]
    check(len(left) == 1 and pattern.match(left[0]), f"SIGKILL: leftovers {left}")
    check(not os.path.exists(os.path.join(work, "killed")), "SIGKILL: OUTDIR was made")
    temps = clitest.temporaries(work)
    size = sum(os.path.getsize(p) for p in temps if not p.endswith("/"))
    r = subprocess.run([u.CLEAVE] + shard_args("killed"), cwd=work, capture_output=True, text=True)
    check(r.returncode == 0, f"run after SIGKILL: {r.stderr}")
    if left:
        check(f"cleave: warning: removed '{left[0]}' ({size} bytes in {len(temps)} files), left "
              "by a cleave run that ended without cleaning up\n" in r.stderr,
              f"run after SIGKILL: no warning of the removal: {r.stderr!r}")
    check(clitest.temporaries(work) == [], "run after SIGKILL: leftovers stay")
    for rank, want in enumerate(np.split(a, 4, axis=1)):
        _, got = u.read_st(os.path.join(work, "killed", f"rank{rank}.safetensors"))
        check(np.array_equal(u.as_array(got["w"]), want), f"run after SIGKILL: rank {rank}")


def merge_interrupted(work):
    """merge and reshard of ranks interrupted while writing, or failing a write: nothing left."""
    rows = 1 << 15
    model(work, rows)
    r = subprocess.run([u.CLEAVE] + shard_args("tp"), cwd=work, capture_output=True, text=True)
    check(r.returncode == 0, f"shard for merge: {r.stderr}")
    for verb, extra in (("merge", []), ("reshard", ["-n", "2"])):
        for sig in (signal.SIGINT, signal.SIGTERM):
            before = u.snapshot(work)
            args = ["st", verb, "tp", "-o", "out", "-q", "--axis", "w=1"] + extra
            proc, caught = start_and_wait(work, "out", args)
            if caught:
                proc.send_signal(sig)
            proc.wait(timeout=120)
            if check(caught and proc.returncode == -sig, f"{verb} {sig.name}: not interrupted "
                     f"({proc.returncode})"):
                check(u.snapshot(work) == before, f"{verb} {sig.name}: files left or changed")
            subprocess.run(["rm", "-rf", os.path.join(work, "out")])

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))

    before = u.snapshot(work)
    r = subprocess.run([u.CLEAVE, "st", "merge", "tp", "-o", "full", "--axis", "w=1"], cwd=work,
                       capture_output=True, text=True, preexec_fn=limit)
    check(r.returncode == 74 and "full/model.safetensors" in r.stderr,
          f"merge with a file-size limit: {r.returncode} {r.stderr}")
    check(u.snapshot(work) == before, "merge with a file-size limit: files left behind")


@clitest.groups(("signals", signals_while_writing), ("ignored", ignored_signal),
                ("write", failing_write), ("sigkill", sigkill), ("merge", merge_interrupted))
def test_st_signals(group, work):
    os.chmod(os.path.dirname(work), 0o755)
    os.chmod(work, 0o777)
    group(work)
