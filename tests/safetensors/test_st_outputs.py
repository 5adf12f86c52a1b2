#!/usr/bin/python3
"""The output folder of `cleave st shard` (tools/common/outputs.c, folder sets) on the paths the
other tests do not take: an output that appears while the outputs are written (the commit undoes
its renames and leaves only the newcomer), an output that exists as a directory, and an OUTDIR
that is not a folder. Each fails with status 73, names the path and leaves nothing behind."""
import os
import re
import signal
import subprocess

import numpy as np

import clitest
import st_util as u
from clitest import check


def model(work, rows):
    a = np.arange(rows * 64, dtype=np.uint32).reshape(rows, 64).astype(np.float32)
    u.write_st(os.path.join(work, "m.safetensors"), {"w": u.array_tensor(a)})


def shard_args(outdir, *extra):
    return ["st", "shard", "m.safetensors", "-o", outdir, "-n", "4", "--axis", "w=1", "-q"] + list(extra)


def appeared_while_writing(work):
    """Stops cleave while its temporaries hold data, plants the last output, lets it go on: the
    renames already done are undone, the temporaries removed, the planted file kept as it was."""
    model(work, 1 << 15)
    env = dict(os.environ, CLEAVE_CHUNK_BYTES="256")
    for attempt in range(4):
        late = os.path.join(work, f"late{attempt}")
        proc = subprocess.Popen([u.CLEAVE] + shard_args(f"late{attempt}"), cwd=work,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env=env)
        caught = False
        while proc.poll() is None and not caught:
            caught = any(m.group("base") == f"late{attempt}" and size > 65536
                         for m, _, _, size in clitest.staged_files(work))
        if not caught:
            proc.wait(timeout=120)
            continue
        proc.send_signal(signal.SIGSTOP)
        os.mkdir(late)  # the folder appears, with one of the outputs in it
        with open(os.path.join(late, "rank3.safetensors"), "wb") as f:
            f.write(b"planted")
        proc.send_signal(signal.SIGCONT)
        _, err = proc.communicate(timeout=120)
        check(proc.returncode == 73, f"appeared: status {proc.returncode}: {err}")
        check(re.fullmatch(rf"cleave: error: output 'late{attempt}/rank3\.safetensors' appeared "
                           r"while the outputs were written; nothing was written \(use "
                           r"-f/--force to overwrite it\)\n", err) is not None,
              f"appeared: message {err!r}")
        check(sorted(os.listdir(late)) == ["rank3.safetensors"],
              f"appeared: left in the folder: {sorted(os.listdir(late))}")
        with open(os.path.join(late, "rank3.safetensors"), "rb") as f:
            check(f.read() == b"planted", "appeared: the planted file changed")
        return
    check(False, "appeared: cleave always finished first")


def refused(work):
    model(work, 4)
    os.makedirs(os.path.join(work, "out", "rank1.safetensors"))
    u.expect_failure("output is a directory", shard_args("out"), work, 73,
                     ["output 'out/rank1.safetensors' exists and is a directory"])
    u.expect_failure("output is a directory, -f", shard_args("out", "-f"), work, 73,
                     ["output 'out/rank1.safetensors' exists and is a directory"])
    with open(os.path.join(work, "plain"), "wb") as f:
        f.write(b"x")
    u.expect_failure("OUTDIR is a file", shard_args("plain"), work, 73,
                     ["cannot create the output folder 'plain/': Not a directory"])


@clitest.groups(("appeared", appeared_while_writing), ("refused", refused))
def test_st_outputs(group, work):
    group(work)
