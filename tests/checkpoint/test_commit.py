"""Commits are all or nothing, also with -f and with two runs at once; no debris.

Every run writes its outputs into one staging folder, .NAME.cleave-tmp-PID-TAG, and puts them in
place in one step: an output folder by one exchange of folders (renameat2 RENAME_EXCHANGE), files
among others one by one, each exchanged with the file it replaces, so that a failed rename takes
every earlier one back. The test hook CLEAVE_TEST_FAULT (tests/README.md) makes the Nth rename of
a commit fail (rename:N) or kills the run just before it (kill:N): the old output is then intact,
byte for byte, or (after a kill) the next run restores it and says so. Two -f runs into one place
leave one run's complete output. A run removes the temporaries dead runs left and names them with
their size; verify reports them.
"""
import fcntl
import os
import re
import subprocess

import numpy as np

import clitest
import gguf_util as g
import st_util as u
from clitest import check

RULES = ["--axis", "a.qkv=0", "--axis", "c.w=1"]
STAGE = r"\.{base}\.cleave-tmp-[0-9]+-[0-9a-f]{{8}}"


def run(args, cwd, fault=None):
    env = dict(os.environ)
    env.pop("CLEAVE_TEST_FAULT", None)
    if fault is not None:
        env["CLEAVE_TEST_FAULT"] = fault
    return clitest.run(args, cwd, env=env)


def models(work):
    for name, seed in (("st", 1), ("st2", 2)):
        os.makedirs(os.path.join(work, name))
        u.small_model(os.path.join(work, name), np.random.default_rng(seed))


def shard(work, model, out, *extra, fault=None, cwd=None):
    return run(["st", "shard", model, "-o", out, "-n", "2", "-q"] + RULES + list(extra),
               cwd or work, fault)


def verified_against(work, out, model):
    r = clitest.run(["st", "verify", out, "--against", model, "-q"], work)
    return r.returncode == 0 and r.stdout == "" and r.stderr == ""


def no_temporaries(label, work):
    check(clitest.temporaries(work) == [], f"{label}: temporaries left: "
          f"{clitest.temporaries(work)[:5]}")


def test_folder_rename_fails(work):
    """-f over an existing rank folder: the exchange fails, or (the folder being the current one,
    which cannot be exchanged) the third of its files: the old folder is intact."""
    models(work)
    r = shard(work, "st", "tp")
    check(r.returncode == 0, f"shard: {r.stderr}")
    before = clitest.snapshot(os.path.join(work, "tp"))
    r = shard(work, "st2", "tp", "-f", fault="rename:1")
    check(r.returncode == 74 and re.fullmatch(
        r"cleave: error: st shard: cannot exchange the staging folder '" + STAGE.format(base="tp") +
        r"' with 'tp/': Input/output error; nothing was changed\n", r.stderr) is not None,
        f"exchange fails: {r.returncode} {r.stderr!r}")
    check(r.stdout == "", f"exchange fails: stdout {r.stdout!r}")
    check(clitest.snapshot(os.path.join(work, "tp")) == before, "exchange fails: tp/ changed")
    check(verified_against(work, "tp", "st"), "exchange fails: tp/ is not the first run's")
    no_temporaries("exchange fails", work)

    tp = os.path.join(work, "tp")
    r = shard(work, "../st2", ".", "-f", fault="rename:3", cwd=tp)
    check(r.returncode == 74 and re.fullmatch(
        r"cleave: error: st shard: cannot rename '.*/" + STAGE.format(base="tp") +
        r"/cleave-manifest\.json' to '\./cleave-manifest\.json': Input/output error; the 2 "
        r"outputs already in place were taken back and the files they replaced restored\n",
        r.stderr) is not None, f"third rename fails: {r.returncode} {r.stderr!r}")
    check(clitest.snapshot(tp) == before, "third rename fails: tp/ changed")
    check(verified_against(work, "tp", "st"), "third rename fails: tp/ is not the first run's")
    no_temporaries("third rename fails", work)

    # Without a fault the same runs replace it, and keep a file of the user's.
    with open(os.path.join(tp, "notes.txt"), "w") as f:
        f.write("mine\n")
    r = shard(work, "st2", "tp", "-f")
    check(r.returncode == 0, f"-f over tp/: {r.stderr}")
    with open(os.path.join(tp, "notes.txt")) as f:
        check(f.read() == "mine\n", "-f over tp/: notes.txt lost")
    os.unlink(os.path.join(tp, "notes.txt"))
    check(verified_against(work, "tp", "st2"), "-f over tp/: not the second run's")
    no_temporaries("-f over tp/", work)


def test_npy_rename_fails(work):
    """A .npy split with -f over outputs beside other files: the third rename fails, the two
    made are taken back."""
    np.save(os.path.join(work, "x.npy"), np.arange(24, dtype="<i4").reshape(6, 4))
    for i in range(3):
        with open(os.path.join(work, f"p_{i}.npy"), "wb") as f:
            f.write(b"old output %d" % i)
    before = clitest.snapshot(work)
    r = run(["split", "-a", "0", "-n", "3", "-o", "p", "x.npy", "-q", "-f"], work, "rename:3")
    check(r.returncode == 74 and re.fullmatch(
        r"cleave: error: split: cannot rename '" + STAGE.format(base="p") + r"/p_2\.npy' to "
        r"'p_2\.npy': Input/output error; the 2 outputs already in place were taken back and "
        r"the files they replaced restored\n", r.stderr) is not None,
        f"npy: {r.returncode} {r.stderr!r}")
    check(clitest.snapshot(work) == before, "npy: files changed")


def gguf_ranks(work):
    for name, seed in (("g1", 3), ("g2", 4)):
        w = np.random.default_rng(seed).standard_normal((4, 8)).astype(np.float32)
        g.write_gguf(os.path.join(work, f"{name}.gguf"), [("general.architecture", "str", "toy")],
                     [("blk.0.w", "F32", [4, 8], w.tobytes())])
        r = run(["gguf", "shard", f"{name}.gguf", "-o", name, "-n", "2", "-q", "--axis",
                 "blk.0.w=0"], work)
        check(r.returncode == 0, f"gguf shard {name}: {r.stderr}")


def test_gguf_file_rename_fails(work):
    """A GGUF merge into a file beside others, with its manifest: the manifest's rename fails,
    the merged file is taken back."""
    gguf_ranks(work)
    os.mkdir(os.path.join(work, "out"))
    with open(os.path.join(work, "out", "other.txt"), "w") as f:
        f.write("someone else's\n")
    r = run(["gguf", "merge", "g1", "-o", "out/model.gguf", "-q"], work)
    check(r.returncode == 0, f"merge: {r.stderr}")
    before = clitest.snapshot(os.path.join(work, "out"))
    r = run(["gguf", "merge", "g2", "-o", "out/model.gguf", "-q", "-f"], work, "rename:2")
    check(r.returncode == 74 and re.fullmatch(
        r"cleave: error: gguf merge: cannot rename 'out/" + STAGE.format(base=r"model\.gguf") +
        r"/model\.gguf\.cleave-manifest\.json' to 'out/model\.gguf\.cleave-manifest\.json': "
        r"Input/output error; the 1 output already in place was taken back and the files they "
        r"replaced restored\n", r.stderr) is not None, f"gguf: {r.returncode} {r.stderr!r}")
    check(clitest.snapshot(os.path.join(work, "out")) == before, "gguf: out/ changed")
    r = clitest.run(["gguf", "verify", "out/model.gguf", "--against", "g1", "-q"], work)
    check(r.returncode == 0, f"gguf: verify {r.returncode} {r.stdout} {r.stderr}")
    no_temporaries("gguf", work)


def test_signal_during_commit(work):
    """A SIGTERM that arrives while files are put in place one by one (CLEAVE_TEST_FAULT=term:1:
    sent just before the first rename) takes back what was placed: the run dies of the signal
    with the old outputs as they were and no temporaries. Sent before the last rename, nothing
    is left to ask: the run commits, then dies of the signal with the new outputs complete."""
    gguf_ranks(work)
    os.mkdir(os.path.join(work, "out"))
    r = run(["gguf", "merge", "g1", "-o", "out/model.gguf", "-q"], work)
    check(r.returncode == 0, f"merge: {r.stderr}")
    before = clitest.snapshot(os.path.join(work, "out"))
    r = run(["gguf", "merge", "g2", "-o", "out/model.gguf", "-q", "-f"], work, "term:1")
    check(r.returncode == -15, f"term:1: status {r.returncode} {r.stderr!r}")
    check(re.fullmatch(r"cleave: error: gguf merge: interrupted by a signal while the outputs "
                       r"were put in place; nothing was written; the 1 output already in place "
                       r"was taken back and the files they replaced restored\n", r.stderr)
          is not None, f"term:1: {r.stderr!r}")
    check(clitest.snapshot(os.path.join(work, "out")) == before, "term:1: out/ changed")
    no_temporaries("term:1", work)
    r = run(["gguf", "merge", "g2", "-o", "out/model.gguf", "-q", "-f"], work, "term:2")
    check(r.returncode == -15 and r.stderr == "", f"term:2: {r.returncode} {r.stderr!r}")
    r = clitest.run(["gguf", "verify", "out/model.gguf", "--against", "g2", "-q"], work)
    check(r.returncode == 0, f"term:2: verify {r.returncode} {r.stdout} {r.stderr}")
    no_temporaries("term:2", work)


def test_killed_during_commit(work):
    """kill -9 between two renames of a commit: the next run into the folder takes the renames
    back before anything else, restores the replaced file and says so."""
    np.save(os.path.join(work, "x.npy"), np.arange(24, dtype="<i4").reshape(6, 4))
    with open(os.path.join(work, "p_0.npy"), "wb") as f:
        f.write(b"old output 0")
    before = clitest.snapshot(work)
    r = run(["split", "-a", "0", "-n", "3", "-o", "p", "x.npy", "-q", "-f"], work, "kill:3")
    check(r.returncode == -9, f"kill:3: {r.returncode} {r.stderr}")
    stages = sorted(n for n in os.listdir(work) if ".cleave-tmp-" in n)
    check(len(stages) == 2 and stages[1] == stages[0] + ".commit",
          f"kill:3: not a staging folder and its journal: {stages}")
    r = run(["split", "-a", "0", "-n", "3", "-o", "p", "x.npy", "-q"], work)
    check(r.returncode == 73 and r.stderr.startswith(
        f"cleave: warning: split: removed '{stages[0]}' (") and "left by a cleave run that "
        "ended "
        "without cleaning up; its commit had begun: the 2 outputs it had put in place were "
        "taken back (1 old file restored)\ncleave: error: split: output 'p_0.npy' exists (use "
        "-f/--force to overwrite it)\n" in r.stderr, f"after kill:3: {r.returncode} {r.stderr!r}")
    check(clitest.snapshot(work) == before, "after kill:3: the folder is not as it was")

    # The same kill just before a rank folder's exchange: the next run removes the staging
    # folder, the old folder never changed.
    models(work)
    r = shard(work, "st", "tp")
    check(r.returncode == 0, f"shard: {r.stderr}")
    old = clitest.snapshot(os.path.join(work, "tp"))
    r = shard(work, "st2", "tp", "-f", fault="kill:1")
    check(r.returncode == -9, f"kill:1: {r.returncode} {r.stderr}")
    check(clitest.snapshot(os.path.join(work, "tp")) == old, "kill:1: tp/ changed")
    staged = [p for p in clitest.temporaries(work) if not p.endswith("/")]
    size = sum(os.path.getsize(p) for p in staged)
    stage = [n for n in os.listdir(work) if re.fullmatch(STAGE.format(base="tp"), n)]
    check(len(stage) == 1, f"kill:1: staging folders {stage}")
    r = shard(work, "st2", "tp", "-f")
    check(r.returncode == 0 and stage and r.stderr ==
          f"cleave: warning: st shard: removed '{stage[0]}' ({size} bytes in {len(staged)} "
          "files), left by a cleave run that ended without cleaning up\n",
          f"after kill:1: {r.stderr!r}")
    check(verified_against(work, "tp", "st2"), "after kill:1: tp/ is not the new run's")
    no_temporaries("after kill:1", work)


def test_concurrent_runs(work):
    """Two -f runs into one folder (and two into one .npy prefix) at once: one run's complete
    output, verified; never one's ranks with the other's manifest."""
    models(work)
    for attempt in range(6):
        procs = [subprocess.Popen([clitest.CLEAVE, "st", "shard", m, "-o", "tp", "-n", "2", "-q",
                                   "-f"] + RULES, cwd=work, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for m in ("st", "st2")]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
        for rc, err in results:
            check(rc == 0 and err == "", f"concurrent shard {attempt}: {rc} {err!r}")
        one = [verified_against(work, "tp", m) for m in ("st", "st2")]
        check(one in ([True, False], [False, True]),
              f"concurrent shard {attempt}: tp/ verifies against {one}")
        no_temporaries(f"concurrent shard {attempt}", work)
    for name, value in (("a.npy", 1), ("b.npy", 2)):
        np.save(os.path.join(work, name), np.full((64, 4), value, dtype="<i4"))
    for attempt in range(6):
        procs = [subprocess.Popen([clitest.CLEAVE, "split", "-a", "0", "-n", "8", "-o", "p", "-q",
                                   "-f", x], cwd=work, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for x in ("a.npy", "b.npy")]
        for p in procs:
            check(p.wait(timeout=120) == 0, f"concurrent split {attempt}: {p.stderr.read()}")
        values = {int(np.load(os.path.join(work, f"p_{i}.npy"))[0, 0]) for i in range(8)}
        check(len(values) == 1, f"concurrent split {attempt}: outputs of both runs: {values}")
        no_temporaries(f"concurrent split {attempt}", work)


def test_verify_reports_temporaries(work):
    """verify: a dead run's temporary in the folder (or its own staging folder beside it) is a
    difference, with its size; a live run's (its lock held) a warning. A run removes the dead
    ones, names each with its size, and leaves the live one alone."""
    models(work)
    r = shard(work, "st", "tp")
    check(r.returncode == 0, f"shard: {r.stderr}")
    tp = os.path.join(work, "tp")
    with open(os.path.join(tp, ".rank0.safetensors.cleave-tmp-99-0000abcd"), "wb") as f:
        f.write(b"12345")
    os.mkdir(os.path.join(work, ".tp.cleave-tmp-99-deadbeef"))
    with open(os.path.join(work, ".tp.cleave-tmp-99-deadbeef", "rank0.safetensors"), "wb") as f:
        f.write(b"1234567")
    live = os.path.join(tp, ".model.gguf.cleave-tmp-98-0000beef")
    os.mkdir(live)
    fd = os.open(live, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        r = clitest.run(["st", "verify", "tp", "-q"], work)
        check(r.returncode == 1, f"verify: status {r.returncode}: {r.stderr}")
        check(sorted(r.stdout.splitlines()) == sorted([
            ".rank0.safetensors.cleave-tmp-99-0000abcd: is a temporary that a cleave run left "
            "(5 bytes in 1 file); the next run into this folder removes it",
            "../.tp.cleave-tmp-99-deadbeef: is a temporary that a cleave run left (7 bytes in 1 "
            "file); the next run into this folder removes it"]), f"verify: {r.stdout!r}")
        check(r.stderr == "cleave: warning: st verify: '.model.gguf.cleave-tmp-98-0000beef' is a "
              "temporary of a cleave run that is still writing there\n", f"verify: {r.stderr!r}")
        r = shard(work, "st", "tp", "-f")
        check(r.returncode == 0, f"rerun: {r.stderr}")
        check(sorted(r.stderr.splitlines()) == sorted([
            "cleave: warning: st shard: removed '.tp.cleave-tmp-99-deadbeef' (7 bytes in 1 file), "
            "left by a cleave run that ended without cleaning up",
            "cleave: warning: st shard: removed 'tp/.rank0.safetensors.cleave-tmp-99-0000abcd' (5 "
            "bytes in 1 file), left by a cleave run that ended without cleaning up"]),
            f"rerun: {r.stderr!r}")
        check(os.path.isdir(live), "rerun: the live run's staging folder was removed")
    finally:
        os.close(fd)
    os.rmdir(live)
    r = clitest.run(["st", "verify", "tp", "-q"], work)
    check(r.returncode == 0 and r.stdout == "" and r.stderr == "",
          f"verify after: {r.returncode} {r.stdout!r} {r.stderr!r}")


def test_commit_lock_held(work):
    """A run whose commit lock another run holds (here the test, with CLEAVE_TEST_FAULT=nowait in
    place of a minute's wait) refuses (73), naming the run by the PID in its journal's name, and
    leaves nothing; the old output is intact."""
    models(work)
    r = shard(work, "st", "tp")
    check(r.returncode == 0, f"shard: {r.stderr}")
    before = clitest.snapshot(work)
    journal = os.path.join(work, ".tp.cleave-tmp-4242-0000abcd.commit")
    fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with open(journal, "w"):
            pass
        r = shard(work, "st2", "tp", "-f", fault="nowait")
        os.unlink(journal)
    finally:
        os.close(fd)
    check(r.returncode == 73 and r.stderr == "cleave: error: st shard: another cleave run (pid "
          "4242) has been committing into '.' for a minute; nothing was written\n",
          f"lock held: {r.returncode} {r.stderr!r}")
    check(clitest.snapshot(work) == before, "lock held: files changed")
    check(verified_against(work, "tp", "st"), "lock held: tp/ is not the first run's")


def test_no_exchange(work):
    """On a file system that refuses RENAME_EXCHANGE (CLEAVE_TEST_FAULT=noexchange: EINVAL, as
    such a file system answers), the folder's files are placed one by one, each replaced file
    kept aside first: a rename failing at the manifest puts the two ranks' old files back; a run
    killed between two renames is taken back by the next one."""
    models(work)
    r = shard(work, "st", "tp")
    check(r.returncode == 0, f"shard: {r.stderr}")
    before = clitest.snapshot(work)
    r = shard(work, "st2", "tp", "-f", fault="noexchange,rename:3")
    check(r.returncode == 74 and re.fullmatch(
        r"cleave: error: st shard: cannot rename '" + STAGE.format(base="tp") +
        r"/cleave-manifest\.json' to 'tp/cleave-manifest\.json': Input/output error; the 2 "
        r"outputs already in place were taken back and the files they replaced restored\n",
        r.stderr) is not None,
        f"noexchange, rename:3: {r.returncode} {r.stderr!r}")
    check(clitest.snapshot(work) == before, "noexchange, rename:3: files changed")

    r = shard(work, "st2", "tp", "-f", fault="noexchange,kill:2")
    check(r.returncode == -9, f"noexchange, kill:2: {r.returncode} {r.stderr}")
    check(not verified_against(work, "tp", "st"), "noexchange, kill:2: no rank was replaced")
    r = shard(work, "st2", "tp")
    check(r.returncode == 73 and "its commit had begun: the 1 output it had put in place was "
          "taken back (1 old file restored)\ncleave: error: st shard: output "
          "'tp/rank0.safetensors' exists "
          "(use -f/--force to replace it)\n" in r.stderr,
          f"after noexchange, kill:2: {r.returncode} {r.stderr!r}")
    check(clitest.snapshot(work) == before, "after noexchange, kill:2: not as before")

    r = shard(work, "st2", "tp", "-f", fault="noexchange")
    check(r.returncode == 0 and r.stderr == "", f"noexchange: {r.returncode} {r.stderr!r}")
    check(verified_against(work, "tp", "st2"), "noexchange: tp/ is not the new run's")
    no_temporaries("noexchange", work)
