#!/usr/bin/python3
"""Hostile output locations: every failure gives its status and one message naming the output,
and leaves no output, no temporary file and every existing file as it was.

- A directory cleave may not write: as an unprivileged user (setpriv; CI runs as root, and root
  writes anywhere) and on a read-only bind mount (a private mount namespace): 73.
- A directory that becomes unwritable between the writing and the commit: 74, no output; the
  temporaries cannot be removed either and stay, named as documented.
- A full file system (a small tmpfs in a private mount namespace): no space for the header, no
  space midway through the third output, no inode for a temporary; the space is free again after.
- A file-size limit (ulimit -f; cleave ignores SIGXFSZ itself) exactly at each output's size,
  one byte under it, at the header's size, under it and 0, on the three copy paths.
- Output names that are directories, symlinks (replaced as links, their targets untouched), paths
  through a regular file, names and prefixes too long, an output that appears while cleave runs,
  an output that is cleave's own input.
"""
import fcntl
import io
import os
import re
import resource
import signal
import subprocess
import sys
import time

import numpy as np

import clitest
import hostile
from clitest import check
from hostile import expect_failure, write

F_SETPIPE_SZ = 1031


def header_size(array):
    """The size of NumPy's version 1.0 header for `array` (cleave writes the same layout)."""
    f = io.BytesIO()
    np.lib.format.write_array_header_1_0(f, np.lib.format.header_data_from_array_1_0(array))
    return len(f.getvalue())


def blocked_before_commit(args, cwd, count, wrap=()):
    """Starts cleave with a report of `count` lines on a one-page pipe nobody reads: cleave
    blocks before its commit. Returns the process once all `count` temporaries are complete."""
    proc = subprocess.Popen(list(wrap) + [hostile.CLEAVE] + args, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    fcntl.fcntl(proc.stdout.fileno(), F_SETPIPE_SZ, 4096)
    deadline = time.monotonic() + 60
    while len(clitest.temporaries(cwd)) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    # The report is written after the last temporary is complete; wait until cleave is stuck.
    time.sleep(0.2)
    check(proc.poll() is None, f"{args}: cleave did not block on its report")
    return proc


def not_writable(work):
    os.makedirs(os.path.join(work, "in"))
    np.save(os.path.join(work, "in", "x.npy"), np.arange(24, dtype="<i4").reshape(4, 6))
    ro = os.path.join(work, "ro")
    os.mkdir(ro, 0o755)
    write(os.path.join(ro, "p_1.npy"), b"existing")
    if hostile.setpriv_works(os.path.join(work, "in", "x.npy")):
        expect_failure("directory not writable (as nobody)", ["split", "-a", "0", "-n", "2", "-f",
                                                              "-o", "ro/p", "in/x.npy"],
                       work, 73, ["cannot create output 'ro/p_0.npy' (as 'ro/.p.cleave-tmp-",
                                  "Permission denied"], wrap=hostile.NOBODY)
        unwritable_at_commit(work)
    else:
        hostile.skip("setpriv cannot run cleave as nobody here (needs root and a path nobody "
                     "can read): unwritable-directory cases not run")
    if hostile.mount_namespace_works(ro):
        wrap = hostile.in_mount_namespace(f"mount --bind '{ro}' '{ro}' && "
                                          f"mount -o remount,ro,bind '{ro}'")
        expect_failure("read-only file system", ["split", "-a", "0", "-n", "2", "-f", "-o",
                                                 "ro/p", "in/x.npy"], work, 73,
                       ["cannot create output 'ro/p_0.npy'", "Read-only file system"], wrap=wrap)
    else:
        hostile.skip("no private mount namespace here: read-only mount case not run")


def unwritable_at_commit(work):
    """The directory is writable while the outputs are staged, then not: the commit's journal
    cannot be made (74), nothing is renamed; the outputs in the staging folder are removed, the
    staging folder cannot be without write permission on the directory, and stays, empty."""
    d = os.path.join(work, "late")
    os.mkdir(d)
    os.chown(d, 65534, 65534)
    n = 1000
    np.save(os.path.join(work, "in", "rows.npy"), np.arange(n * 2, dtype="<i2").reshape(n, 2))
    write(os.path.join(d, "p_1.npy"), b"existing")
    before = hostile.snapshot(d)
    proc = blocked_before_commit(["split-to-sequence", "-f", "-o", "late/p", "in/rows.npy"],
                                 work, n, wrap=hostile.NOBODY)
    os.chmod(d, 0o555)
    _, err = proc.communicate(timeout=60)
    os.chmod(d, 0o755)
    check(proc.returncode == 74, f"unwritable at commit: status {proc.returncode}: {err}")
    stage = rf"late/\.p\.cleave-tmp-{proc.pid}-[0-9a-f]{{8}}"
    check(re.fullmatch(rf"cleave: error: cannot create the commit's journal '{stage}\.commit': "
                       r"Permission denied \(no output was put in place\); the staging folder "
                       rf"'{stage}' cannot be removed either: Permission denied\n", err)
          is not None, f"unwritable at commit: message {err!r}")
    after = hostile.snapshot(d)
    left = sorted(set(after) - set(before))
    check(all(k in after and after[k] == v for k, v in before.items()),
          "unwritable at commit: an existing file changed or vanished")
    folders = sorted({name.split("/")[0] for name in left})
    names = [clitest.STAGE_NAME.match(name) for name in folders]
    check(len(names) == 1 and all(m is not None and m.group("base") == "p" and
                                  m.group("pid") == str(proc.pid) for m in names),
          f"unwritable at commit: unexpected files {left[:5]}")
    # The outputs in it are removed; the folder itself cannot be.
    check(left == [folders[0] + "/"], f"unwritable at commit: left {left[:5]}")
    print(f"unwritable at commit: the empty staging folder {folders[0]} stays (no permission to "
          "remove it)")


def full_disk_child(mount_point, input_dir):
    """Runs inside a private mount namespace: a tmpfs on `mount_point`, then the cases."""
    def mount(options):
        subprocess.run(["umount", mount_point], capture_output=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", mount_point], check=True)

    def free_blocks():
        return os.statvfs(mount_point).f_bfree

    x = os.path.join(input_dir, "x.npy")
    p = os.path.join(mount_point, "p")
    # No room even for a header: the tmpfs is filled to the last page.
    mount("size=64k")
    fd = os.open(os.path.join(mount_point, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while os.write(fd, b"f" * 4096) > 0:
            pass
    except OSError:
        pass
    os.close(fd)
    check(free_blocks() == 0, "the filler did not fill the tmpfs")
    expect_failure("no space for the header", ["split", "-a", "0", "-n", "4", "-o", p, x],
                   input_dir, 74, [f"writing output '{p}_0.npy' failed: No space left on device"],
                   watch=[mount_point, input_dir])
    # Room for two outputs and a bit: the third fails midway.
    mount("size=256k")
    write(os.path.join(mount_point, "p_1.npy"), b"existing output, kept")
    free = free_blocks()
    expect_failure("no space midway", ["split", "-a", "0", "-n", "4", "-f", "-o", p, x],
                   input_dir, 74, [f"writing output '{p}_2.npy' failed: No space left on device"],
                   watch=[mount_point, input_dir])
    check(free_blocks() == free, f"no space midway: {free - free_blocks()} blocks still used")
    # No inode for the third temporary.
    mount("size=1m,nr_inodes=4")
    write(os.path.join(mount_point, "p_3.npy"), b"existing")
    expect_failure("no inode", ["split", "-a", "0", "-n", "4", "-f", "-o", p, x], input_dir, 73,
                   [f"cannot create output '{p}_", "No space left on device"],
                   watch=[mount_point, input_dir])


def full_disk(work):
    mount_point = os.path.join(work, "tmpfs")
    os.mkdir(mount_point)
    if not hostile.mount_namespace_works(mount_point):
        hostile.skip("no private mount namespace here: full file system cases not run")
        return
    # 4 outputs of 100 KiB + a 128-byte header: 26 pages each; a 256 KiB tmpfs (64 pages) with
    # one page used holds two, and the third fails midway.
    a = np.arange(4 * 25600, dtype="<f4").reshape(4, 25600)
    np.save(os.path.join(work, "x.npy"), a)
    check(-(-(header_size(a[:1]) + a[:1].nbytes) // 4096) == 26, "unexpected output size")
    r = subprocess.run(["unshare", "-m", sys.executable, os.path.abspath(__file__), "--tmpfs",
                        mount_point, work], capture_output=True, text=True, timeout=120)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    check(r.returncode == 0, f"full file system cases failed (status {r.returncode})")


def size_limits(work):
    """RLIMIT_FSIZE at each boundary. Output sizes are computed from NumPy's header layout."""
    big = np.arange(4 * 300000, dtype=np.uint8).reshape(4, 300000)
    cases = [
        # (label, array, Fortran order, args giving the outputs' slices, slices)
        ("batched rows", np.arange(10 * 1000, dtype="<u2").reshape(10, 1000), False,
         ["variadic-split", "-a", "1", "-l", "100,400,200,300"],
         [np.s_[:, 0:100], np.s_[:, 100:500], np.s_[:, 500:700], np.s_[:, 700:1000]]),
        ("in-kernel copies", big, False, ["variadic-split", "-a", "0", "-l", "1,2,1"],
         [np.s_[0:1], np.s_[1:3], np.s_[3:4]]),
        ("Fortran order", np.asfortranarray(np.arange(60 * 50, dtype="<i8").reshape(60, 50)),
         True, ["variadic-split", "-a", "1", "-l", "10,25,15"],
         [np.s_[:, 0:10], np.s_[:, 10:35], np.s_[:, 35:50]]),
    ]
    for label, a, fortran, args, slices in cases:
        d = clitest.workdir(f"hostile-fsize-{label.replace(' ', '-')}")
        np.save(os.path.join(d, "x.npy"), a)
        parts = [a[s] for s in slices]
        sizes = [header_size(p) + p.nbytes for p in parts]
        largest = max(range(len(sizes)), key=lambda i: sizes[i])
        write(os.path.join(d, "p_0.npy"), b"existing")

        def limit(size):
            def apply():
                signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # cleave must ignore it itself
                resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
            return apply

        first_header = header_size(parts[0])
        for size, index in ((sizes[largest] - 1, largest), (first_header, 0),
                            (first_header - 1, 0), (1, 0), (0, 0)):
            expect_failure(f"{label}: file size limit {size}", args + ["-f", "-o", "p", "x.npy"],
                           d, 74, [f"writing output 'p_{index}.npy' failed: File too large"],
                           preexec_fn=limit(size))
        # Exactly the largest output's size: everything fits.
        r = hostile.run(args + ["-f", "-q", "-o", "p", "x.npy"], d,
                        preexec_fn=limit(sizes[largest]))
        if check(r.returncode == 0, f"{label}: limit {sizes[largest]}: {r.returncode} {r.stderr}"):
            for i, part in enumerate(parts):
                path = os.path.join(d, f"p_{i}.npy")
                check(os.path.getsize(path) == sizes[i], f"{label}: output {i} size")
                clitest.check_output(f"{label} output {i}", path, part, fortran)


def names(work):
    a = np.arange(24, dtype="<i4").reshape(4, 6)
    np.save(os.path.join(work, "x.npy"), a)
    os.mkdir(os.path.join(work, "d_1.npy"))
    write(os.path.join(work, "d_1.npy", "inside"), b"inside")
    for force in ([], ["-f"]):
        expect_failure(f"second output is a directory {force}", ["split", "-a", "0", "-n", "2",
                                                                  "-o", "d", "x.npy"] + force,
                       work, 73, ["output 'd_1.npy' exists and is a directory"])
    expect_failure("a path through a regular file", ["split", "-a", "0", "-n", "2", "-o",
                                                     "x.npy/p", "x.npy"], work, 73,
                   ["cannot create output 'x.npy/p_0.npy'", "Not a directory"])
    expect_failure("name too long", ["split", "-a", "0", "-n", "2", "-o", "n" * 250, "x.npy"],
                   work, 73, [f"cannot create output '{'n' * 250}_0.npy'", "File name too long"])
    prefix = "/".join(["q" * 200] * 21)
    expect_failure("prefix too long", ["split", "-a", "0", "-n", "2", "-o", prefix, "x.npy"],
                   work, 73, ["the output prefix", "is too long"])
    # Symlinks named like outputs: refused without --force (even dangling ones); with --force the
    # link itself is replaced, and what it pointed to is untouched.
    links = os.path.join(work, "links")
    os.mkdir(links)
    write(os.path.join(links, "target"), b"the target of a symlink")
    os.mkdir(os.path.join(links, "dir"))
    write(os.path.join(links, "dir", "kept"), b"kept")
    os.symlink("target", os.path.join(links, "s_0.npy"))
    os.symlink("dir", os.path.join(links, "s_1.npy"))
    os.symlink("nowhere", os.path.join(links, "s_2.npy"))
    for i in range(3):
        expect_failure(f"symlink output {i} without --force",
                       ["split", "-a", "1", "-n", "3", "-o", "links/s", "x.npy"], work, 73,
                       [f"output 'links/s_{i}.npy' exists"])
        os.rename(os.path.join(links, f"s_{i}.npy"), os.path.join(links, f"t_{i}.npy"))
    for i in range(3):
        os.rename(os.path.join(links, f"t_{i}.npy"), os.path.join(links, f"s_{i}.npy"))
    before = hostile.snapshot(links)
    r = hostile.run(["split", "-a", "1", "-n", "3", "-f", "-q", "-o", "links/s", "x.npy"], work)
    check(r.returncode == 0, f"symlink outputs with --force: {r.returncode} {r.stderr}")
    after = hostile.snapshot(links)
    for kept in ("target", "dir/", "dir/kept"):
        check(after.get(kept) == before.get(kept), f"symlink outputs: {kept} changed")
    for i in range(3):
        path = os.path.join(links, f"s_{i}.npy")
        check(not os.path.islink(path), f"symlink output {i} is still a link")
        clitest.check_output(f"symlink output {i}", path, a[:, 2 * i:2 * i + 2], False)
    # An output that is the input itself: it is read completely before being replaced.
    own = os.path.join(work, "own")
    os.mkdir(own)
    np.save(os.path.join(own, "p_0.npy"), a)
    expect_failure("own input without --force", ["split", "-a", "0", "-n", "2", "-o", "p",
                                                 "p_0.npy"], own, 73, ["output 'p_0.npy' exists"])
    r = hostile.run(["split", "-a", "0", "-n", "2", "-f", "-q", "-o", "p", "p_0.npy"], own)
    if check(r.returncode == 0, f"own input with --force: {r.returncode} {r.stderr}"):
        clitest.check_output("own input output 0", os.path.join(own, "p_0.npy"), a[:2], False)
        clitest.check_output("own input output 1", os.path.join(own, "p_1.npy"), a[2:], False)


def appears_meanwhile(work):
    """An output created by someone else while cleave writes: without --force nothing is
    renamed (73), the newcomer is kept, and the outputs renamed before it are removed again."""
    n = 1000
    np.save(os.path.join(work, "rows.npy"), np.arange(n * 2, dtype="<i2").reshape(n, 2))
    proc = blocked_before_commit(["split-to-sequence", "-o", "p", "rows.npy"], work, n)
    write(os.path.join(work, "p_150.npy"), b"someone else's")
    before = hostile.snapshot(work)
    _, err = proc.communicate(timeout=60)
    check(proc.returncode == 73, f"output appearing meanwhile: status {proc.returncode}: {err}")
    check("output 'p_150.npy' appeared while the outputs were written; nothing was written" in err,
          f"output appearing meanwhile: message {err!r}")
    after = hostile.snapshot(work)
    check(after == {k: v for k, v in before.items() if ".cleave-tmp-" not in k},
          f"output appearing meanwhile: files left: {sorted(set(after) ^ set(before))[:5]}")


def test_outputs():
    not_writable(clitest.workdir("hostile-unwritable"))
    full_disk(clitest.workdir("hostile-full"))
    size_limits(clitest.workdir("hostile-fsize"))
    names(clitest.workdir("hostile-names"))
    appears_meanwhile(clitest.workdir("hostile-appears"))


if __name__ == "__main__":
    # full_disk runs this file as a program, in a private mount namespace, for its cases.
    if len(sys.argv) != 4 or sys.argv[1] != "--tmpfs":
        sys.exit("usage: test_outputs.py --tmpfs MOUNT_POINT INPUT_DIR (full_disk's child; "
                 "pytest runs the tests)")
    full_disk_child(sys.argv[2], sys.argv[3])
    clitest.finish()
