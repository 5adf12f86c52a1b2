"""Fault injection (issue 33): every writing verb of both checkpoint formats (`split`, `shard`,
`merge`, `reshard`; GGUF's `merge` of ranks and of a split set), and a plain `.npy` `cleave split`,
killed with SIGKILL or interrupted with SIGINT at random points of its run and at fixed ones: as
soon as its first temporary appears, just after its first output gets its final name (or, with
-f, replaces an old one), and (CLEAVE_TEST_FAULT=kill:N, tests/README.md) just before the Nth
rename of its commit, also with the files of a folder placed one by one (`noexchange`). Each verb
runs into a fresh output folder and, with -f, over an older complete output of its own.

After each kill:
- the inputs are unchanged (checksums), nothing appeared outside the output folder (nor in
  $TMPDIR), apart from temporaries of the documented pattern beside it;
- the output folder holds nothing, or the old complete output (-f), or the new complete one:
  the data files byte for byte those of an uninterrupted run and `cleave verify` content;
- what else is left are temporaries of the pattern docs/cli.md gives (hidden names holding
  `.cleave-tmp-`, named after the killed run's PID; an output folder's staging folder beside
  it), which `verify` reports (status 1); and then the same command run again (with -f when
  outputs are in place) succeeds with a warning about them, writes the new complete output and
  leaves no temporary. Outputs put in place one file at a time (`.npy` outputs, a GGUF merge's
  file and its manifest, a folder's files with `noexchange`) may be a mix of old and new after a
  kill -9 only while such temporaries (the commit's journal) remain, for the next run to finish
  or undo;
- a SIGINT ends cleave as killed by SIGINT (status 130 in a shell) and leaves no temporary and
  no output folder it made: the output folder is as it was, or (a signal held back during the
  commit) holds the new output. A SIGINT as the first temporary appears is sent four times per
  mode: it meets the moment a run makes its temporaries known to its signal handler.

The random kill delays come from a seeded generator: the seed is printed, fixed by default, and
$CLEAVE_FAULT_SEED changes it; $CLEAVE_FAULT_ROUNDS sets the number of random points per verb,
mode and signal (default 2). The runs copy through 1 KiB buffers (CLEAVE_CHUNK_BYTES) so that
they last long enough to be caught between their first temporary and their commit."""
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import clitest
import gguf_util as g
import st_util as u
from clitest import check

SEED = int(os.environ.get("CLEAVE_FAULT_SEED", "33"))
ROUNDS = int(os.environ.get("CLEAVE_FAULT_ROUNDS", "2"))
MARK = ".cleave-tmp-"
CHUNK = "1024"

# Each verb: its arguments ({out} is the output folder), and whether its outputs are a folder of
# the run's own ("folder") or files put into an existing folder among others ("files").
JOBS = {
    "st-shard": (["st", "shard", "st", "-o", "{out}", "-n", "8", "--axis", "layers.*.w=1"],
                 "folder"),
    "st-merge": (["st", "merge", "tp", "-o", "{out}"], "folder"),
    "st-reshard": (["st", "reshard", "tp", "-o", "{out}", "-n", "8"], "folder"),
    "st-split": (["st", "split", "st", "-o", "{out}", "--max-shard-size", "200KB", "--tensor",
                  "layers.*.w", "-a", "1", "-n", "2", "--into", "*.a,*.b"], "folder"),
    "gguf-shard": (["gguf", "shard", "g/model.gguf", "-o", "{out}", "-n", "8", "--axis",
                    "blk.*.w=1"], "folder"),
    "gguf-merge": (["gguf", "merge", "gtp", "-o", "{out}/merged.gguf"], "files"),
    "gguf-merge-set": (["gguf", "merge", "gset/model-00001-of-00006.gguf", "-o",
                        "{out}/whole.gguf"], "files"),
    "gguf-reshard": (["gguf", "reshard", "gtp", "-o", "{out}", "-n", "8"], "folder"),
    "gguf-split": (["gguf", "split", "g/model.gguf", "-o", "{out}", "--max-tensors", "4",
                    "--tensor", "blk.*.w", "-a", "0", "-n", "2", "--into", "*.a,*.b"], "folder"),
    "npy-split": (["split", "-a", "1", "-n", "64", "-o", "{out}/p", "in.npy"], "files"),
}
# The inputs each argument stands for (the folder checked), and their older versions, from which
# the old outputs that -f replaces are made.
INPUTS = {"st": "st", "tp": "tp", "g/model.gguf": "g", "gtp": "gtp",
          "gset/model-00001-of-00006.gguf": "gset", "in.npy": "in.npy"}
OLD = {"st": "st_old", "tp": "tp_old", "g/model.gguf": "g_old/model.gguf", "gtp": "gtp_old",
       "gset/model-00001-of-00006.gguf": "gset_old/model-00001-of-00006.gguf",
       "in.npy": "in_old.npy"}

print(f"fault injection: seed {SEED} (set CLEAVE_FAULT_SEED to change it), {ROUNDS} random "
      "point(s) per verb, mode and signal", file=sys.stderr)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tree(root, skip=(), digest=True):
    """Every path under `root` (relative; folders end with '/') mapped to its file's checksum
    (with `digest`), leaving out the top-level names in `skip`."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d not in skip]
            filenames = [f for f in filenames if f not in skip]
        for d in dirnames:
            state[os.path.normpath(os.path.join(rel, d)) + "/"] = None
        for f in filenames:
            path = os.path.join(dirpath, f)
            state[os.path.normpath(os.path.join(rel, f))] = sha(path) if digest else None
    return state


def is_temp(name):
    """A temporary of the pattern docs/cli.md gives: a hidden name holding '.cleave-tmp-'."""
    return name.startswith(".") and MARK in name


def few(names):
    """A list for a message: its first names and how many there are."""
    names = sorted(names)
    return f"{names[:3]}{f' and {len(names) - 3} more' if len(names) > 3 else ''}"


def entries(path):
    try:
        return list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []


def make_inputs(root):
    """The models (a few MB, many tensors) and their older versions, in `root`."""
    for tag, seed in (("", 1), ("_old", 2)):
        rng = np.random.default_rng(seed)
        os.makedirs(os.path.join(root, "st" + tag))
        tensors = {}
        for i in range(48):
            tensors[f"layers.{i}.w"] = u.array_tensor(
                rng.standard_normal((64, 256)).astype(np.float32))
            tensors[f"layers.{i}.norm"] = u.array_tensor(rng.standard_normal(256).astype(
                np.float32))
        u.write_st(os.path.join(root, "st" + tag, "model.safetensors"), tensors)
        with open(os.path.join(root, "st" + tag, "config.json"), "w") as f:
            f.write('{"model_type": "toy"}\n')
        os.makedirs(os.path.join(root, "g" + tag))
        g.write_gguf(os.path.join(root, "g" + tag, "model.gguf"),
                     [("general.architecture", "str", "toy")],
                     [(f"blk.{i}.w", "F32", [256, 64],
                       rng.standard_normal((64, 256)).astype(np.float32).tobytes())
                      for i in range(48)])
        np.save(os.path.join(root, f"in{tag}.npy"),
                rng.standard_normal((64, 16384)).astype(np.float32))
        for args in (["st", "shard", "st" + tag, "-o", "tp" + tag, "-n", "4", "--axis",
                      "layers.*.w=1"],
                     ["gguf", "shard", f"g{tag}/model.gguf", "-o", "gtp" + tag, "-n", "4",
                      "--axis", "blk.*.w=1"],
                     ["gguf", "split", f"g{tag}/model.gguf", "-o", "gset" + tag,
                      "--max-tensors", "8"]):
            r = clitest.run(args + ["-q"], root)
            assert r.returncode == 0, f"{' '.join(args)}: {r.stderr}"


@pytest.fixture(scope="module")
def root(shared_work):
    make_inputs(shared_work)
    return shared_work


class Job:
    """One verb under test in `root`, its output folder `out`."""

    def __init__(self, root, name, tmpdir):
        template, self.kind = JOBS[name]
        self.root, self.name, self.out = root, name, "out-" + name
        self.path = os.path.join(root, self.out)
        self.args = [a.replace("{out}", self.out) for a in template]
        # (The first word is the command's: `st` there is the format, not the model.)
        self.old_args = self.args[:1] + [OLD.get(a, a) for a in self.args[1:]]
        self.inputs = [INPUTS[a] for a in template[1:] if a in INPUTS]
        self.env = dict(os.environ, CLEAVE_CHUNK_BYTES=CHUNK, TMPDIR=tmpdir)
        self.tmpdir = tmpdir
        # What the verify of an output names: the folder, or a GGUF merge's file.
        self.target = next((a for a in self.args if a.startswith(self.out + "/") and
                            a.endswith(".gguf")), self.out)

    def clear(self):
        shutil.rmtree(self.path, ignore_errors=True)
        for e in entries(self.root):
            if e.name.startswith("." + self.out + MARK):
                shutil.rmtree(e.path) if e.is_dir(follow_symlinks=False) else os.unlink(e.path)
        if self.kind == "files":
            os.makedirs(self.path)

    def outputs(self):
        """The output folder's files that are not temporaries: name -> bytes."""
        found = {}
        for e in entries(self.path):
            if not is_temp(e.name):
                if e.is_dir(follow_symlinks=False):
                    found[e.name + "/"] = None
                else:
                    with open(e.path, "rb") as f:
                        found[e.name] = f.read()
        return found

    def temps(self):
        """The temporaries in the output folder and beside it, named after it."""
        inside = [os.path.join(self.out, e.name) for e in entries(self.path) if is_temp(e.name)]
        beside = [e.name for e in entries(self.root) if e.name.startswith("." + self.out + MARK)]
        return inside + beside

    def input_state(self):
        return {i: tree(os.path.join(self.root, i)) if os.path.isdir(os.path.join(self.root, i))
                else sha(os.path.join(self.root, i)) for i in self.inputs}

    def outside(self):
        """The names of everything in `root` but the output folder and its temporaries beside."""
        skip = {self.out} | {e.name for e in entries(self.root)
                             if e.name.startswith("." + self.out + MARK)}
        return set(tree(self.root, skip, digest=False))

    def start(self, force, fault=None):
        env = self.env if fault is None else dict(self.env, CLEAVE_TEST_FAULT=fault)
        return subprocess.Popen([clitest.CLEAVE] + self.args + (["-f"] if force else []) +
                                ["-q"], cwd=self.root, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def verify(self, files):
        """`cleave verify` of `files` (the outputs without any temporary) in a folder of their
        own; None for outputs without a manifest (.npy)."""
        if not any(n.endswith("cleave-manifest.json") for n in files):
            return None
        scratch = clitest.workdir("test_faults-verify")
        for name, data in files.items():
            with open(os.path.join(scratch, name), "wb") as f:
                f.write(data)
        target = os.path.join(scratch, os.path.relpath(self.target, self.out))
        r = subprocess.run([clitest.CLEAVE, "verify", target], capture_output=True, text=True)
        return r


def data_of(files):
    return {n: d for n, d in files.items() if not n.endswith("cleave-manifest.json")}


class Faults:
    def __init__(self, job):
        self.job = job
        job.clear()
        self.inputs = job.input_state()
        # The old output -f replaces: the same verb on the older inputs; then the new output.
        # How long a run lasts: the shorter of the two (the machine may be busy).
        begin = time.monotonic()
        r = subprocess.run([clitest.CLEAVE] + job.old_args + ["-q"], cwd=job.root, env=job.env,
                           capture_output=True, text=True)
        self.seconds = time.monotonic() - begin
        assert r.returncode == 0, f"{job.name} on the old inputs: {r.stderr}"
        self.old = job.outputs()
        job.clear()
        begin = time.monotonic()
        r = subprocess.run([clitest.CLEAVE] + job.args + ["-q"], cwd=job.root, env=job.env,
                           capture_output=True, text=True)
        self.seconds = min(self.seconds, time.monotonic() - begin)
        assert r.returncode == 0, f"{job.name}: {r.stderr}"
        self.new = job.outputs()
        check(data_of(self.new) != data_of(self.old), f"{job.name}: old and new outputs are alike")
        v = job.verify(self.new)
        check(v is None or v.returncode == 0, f"{job.name}: verify of an uninterrupted run: "
              f"{v and v.stdout} {v and v.stderr}")
        if job.name == "npy-split":
            a = np.load(os.path.join(job.root, "in.npy"))
            for i, part in enumerate(np.split(a, 64, axis=1)):
                clitest.check_output(f"{job.name} output {i}", os.path.join(job.path, f"p_{i}.npy"),
                                     part, False)
        self.counts = {}
        self.states = {}
        self.reruns = 0

    def state(self):
        """What the output folder holds, temporaries aside: 'nothing', 'old', 'new' or 'mixed
        (...)'."""
        files = self.job.outputs()
        if not files:
            return "nothing"
        if files == self.old:
            return "old"
        if set(files) == set(self.new) and data_of(files) == data_of(self.new):
            v = self.job.verify(files)
            if v is None or v.returncode == 0:
                return "new"
            said = (v.stdout + v.stderr).strip().splitlines()
            return f"mixed (the new data, but verify says {v.returncode}: {said[:2]}, " \
                   f"{len(said)} lines)"
        names = sorted(n for n in files if files[n] != self.new.get(n))
        return f"mixed ({len(files)} files; not the new output's: {names[:6]})"

    def trigger(self, proc, point, force, delay):
        """Waits for the kill point; returns whether cleave still ran then."""
        job = self.job
        if point.startswith("commit"):
            return False  # cleave kills itself (CLEAVE_TEST_FAULT)
        if point == "random":
            time.sleep(delay)
            return proc.poll() is None
        if point == "temporary":
            while proc.poll() is None:
                if job.temps():
                    return True
            return False
        # "rename": a final name appears, or one gets another file (-f), or the output folder
        # is swapped in with its outputs. (A commit takes a fraction of a millisecond: the poll
        # may see it only once it is over, when the run has ended.)
        home, old = self.finals()
        while proc.poll() is None:
            now_home, now = self.finals()
            if now_home != home and now or any(old.get(n) != i for n, i in now.items()):
                return True
        return False

    def finals(self):
        """The output folder's inode and its non-temporary entries' inodes by name."""
        try:
            home = os.stat(self.job.path).st_ino
        except FileNotFoundError:
            return None, {}
        return home, {e.name: e.inode() for e in entries(self.job.path) if not is_temp(e.name)}

    def kill(self, sig, force, point, delay=0.0):
        job = self.job
        label = (f"{job.name} {'-f over an old output' if force else 'into a fresh folder'}, "
                 f"{sig.name} at {point}" + (f" after {delay * 1000:.1f} ms (seed {SEED})"
                                             if point == "random" else ""))
        job.clear()
        if force:
            os.makedirs(job.path, exist_ok=True)
            for name, data in self.old.items():
                with open(os.path.join(job.path, name), "wb") as f:
                    f.write(data)
        before = self.state()
        outside = job.outside()
        fault = None
        if point.startswith("commit"):
            # "commit N": killed before the Nth rename of its commit; "noexchange" places a
            # folder's files one by one, as where the file system cannot swap folders.
            fault = ",".join(point.split()[2:] + [f"kill:{point.split()[1]}"])
        proc = job.start(force, fault)
        caught = self.trigger(proc, point, force, delay)
        if caught:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        key = (sig.name, point)
        landed = proc.returncode == -sig
        tally = self.counts.setdefault(key, [0, 0])
        tally[0 if landed else 1] += 1
        if not landed:
            # It finished first: a complete run.
            check(proc.returncode == 0, f"{label}: status {proc.returncode}: {err.strip()}")
        check(job.input_state() == self.inputs, f"{label}: the inputs changed")
        check(job.outside() == outside, f"{label}: files outside the output folder: added "
              f"{sorted(job.outside() - outside)}, removed {sorted(outside - job.outside())}")
        check(not os.listdir(job.tmpdir), f"{label}: files in $TMPDIR: {os.listdir(job.tmpdir)}")
        temps = job.temps()
        state = self.state()
        kind = state.split(" ")[0] + (" with temporaries" if temps else "")
        self.states[kind] = self.states.get(kind, 0) + 1
        if sig == signal.SIGINT or not landed:
            check(not temps, f"{label}: temporaries left: {few(temps)}")
            check(state in (before, "new"), f"{label}: the output folder holds {state}, "
                  f"expected {before} or new")
            if job.kind == "folder" and not force and state == "nothing":
                check(not os.path.exists(job.path), f"{label}: the output folder {job.out} "
                      "was left behind, empty")
            return
        strays = [t for t in temps if f"{MARK}{proc.pid}-" not in t]
        check(not strays, f"{label}: temporaries not named after the killed run's PID "
              f"{proc.pid}: {few(strays)}")
        allowed = ("old" if force else "nothing", "new")
        if (job.kind == "files" or "noexchange" in point) and temps:
            allowed += (state,)  # a commit among other files, for the next run to settle
        check(state in allowed, f"{label}: the output folder holds {state}, expected "
              f"{' or '.join(allowed)}; temporaries: {few(temps)}")
        if not temps:
            return
        if state in ("old", "new") and job.name != "npy-split":
            # verify reports what a dead run left.
            v = subprocess.run([clitest.CLEAVE, "verify", job.target], cwd=job.root,
                               capture_output=True, text=True)
            check(v.returncode == 1 and MARK in v.stdout + v.stderr,
                  f"{label}: verify {job.target} with temporaries {few(temps)} left: status "
                  f"{v.returncode}: {(v.stdout + v.stderr).strip()[:300]}")
        # The same command again, with -f when outputs are in place: it removes the dead run's
        # temporaries, saying so, and writes the new output.
        again = force or bool(job.outputs())
        self.reruns += 1
        r = subprocess.run([clitest.CLEAVE] + job.args + (["-f"] if again else []) + ["-q"],
                           cwd=job.root, env=job.env, capture_output=True, text=True)
        rerun = f"{label}, then the same command{' with -f' if again else ''}"
        check(r.returncode == 0, f"{rerun}: status {r.returncode}: {r.stderr.strip()}")
        check("cleave: warning:" in r.stderr and MARK in r.stderr,
              f"{rerun}: no warning naming the temporaries it found: {r.stderr.strip()!r}")
        check(not job.temps(), f"{rerun}: temporaries left: {few(job.temps())}")
        check(self.state() == "new", f"{rerun}: the output folder holds {self.state()}")
        if job.name != "npy-split":
            v = subprocess.run([clitest.CLEAVE, "verify", job.target], cwd=job.root,
                               capture_output=True, text=True)
            check(v.returncode == 0, f"{rerun}: verify {job.target}: {v.returncode} "
                  f"{v.stdout.strip()} {v.stderr.strip()}")
        check(job.input_state() == self.inputs, f"{rerun}: the inputs changed")
        check(job.outside() == outside, f"{rerun}: files outside the output folder: "
              f"{sorted(job.outside() ^ outside)}")


@pytest.mark.parametrize("name", list(JOBS))
def test_faults(name, root):
    rng = random.Random(f"{SEED}-{name}")
    tmpdir = clitest.workdir("test_faults-tmpdir")
    job = Job(root, name, tmpdir)
    begin = time.monotonic()
    f = Faults(job)
    plan = []
    for sig in (signal.SIGKILL, signal.SIGINT):
        for force in (False, True):
            # A SIGINT as the first temporary appears meets the moment a run makes its
            # temporaries known to its signal handler: four times, fresh and with -f.
            fixed = ["temporary", "rename", "commit 1", "commit 2"] + \
                (["commit 33"] if name == "npy-split" else []) + \
                (["commit 2 noexchange"] if JOBS[name][1] == "folder" else []) \
                if sig == signal.SIGKILL else ["temporary"] * 4 + (["rename"] if force else [])
            plan += [(sig, force, p, 0.0) for p in fixed]
            plan += [(sig, force, "random", rng.uniform(0, 1.1 * f.seconds))
                     for _ in range(ROUNDS)]
    for sig, force, point, delay in plan:
        f.kill(sig, force, point, delay)
    job.clear()
    if job.kind == "files":
        os.rmdir(job.path)
    landed = sum(v[0] for v in f.counts.values())
    print(f"{name}: {landed} of {len(plan)} kills landed during the run (a run lasts "
          f"{f.seconds * 1000:.0f} ms; {time.monotonic() - begin:.1f} s in all): " +
          ", ".join(f"{s} at {p} {v[0]}/{sum(v)}" for (s, p), v in sorted(f.counts.items())) +
          "; left: " + ", ".join(f"{k} {v}" for k, v in sorted(f.states.items())) +
          f"; {f.reruns} reruns")
    # The model is large enough that the first temporary is met while the run goes on.
    caught = sum(v[0] for (s, p), v in f.counts.items() if p == "temporary")
    check(caught >= 1, f"{name}: never caught after its first temporary: a larger model is "
          "needed")
