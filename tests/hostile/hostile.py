"""Helpers of the hostile-input tests (tests/hostile), on top of tests/cli's clitest.py.

Every failing case goes through `expect_failure`: the exit status, exactly one line on stderr
("cleave: error: ..." holding each expected fragment), nothing on stdout, and every watched
directory unchanged (no output, no temporary file, no existing file modified: sizes, SHA-256 and
modification times compared before and after).
"""
import hashlib
import os
import resource
import shutil
import stat
import struct
import subprocess

import clitest
from clitest import check

CLEAVE = clitest.CLEAVE

# setpriv runs cleave as nobody, for whom a directory owned by root is not writable.
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def snapshot(root):
    """Maps every entry under `root` (hidden ones included) to what identifies its state: a
    symlink to its target, a directory to its mode, a file to (size, SHA-256, mtime_ns, mode)."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                state[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                state[rel + "/"] = ("dir", st.st_mode)
            else:
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                state[rel] = (st.st_size, digest, st.st_mtime_ns, st.st_mode)
    return state


def run(args, cwd, wrap=(), **kwargs):
    """Runs `wrap + [cleave] + args` in `cwd`; returns the CompletedProcess (text, undecodable
    bytes escaped)."""
    return subprocess.run(list(wrap) + [CLEAVE] + list(args), cwd=cwd, capture_output=True,
                          text=True, errors="backslashreplace", timeout=120, **kwargs)


def expect_failure(label, args, cwd, status, fragments, watch=None, wrap=(), **kwargs):
    """Runs cleave expecting exit `status` and one error line holding every fragment, with the
    directories in `watch` (default: cwd) unchanged. Returns the CompletedProcess."""
    watch = [cwd] if watch is None else watch
    before = [snapshot(d) for d in watch]
    r = run(args, cwd, wrap=wrap, **kwargs)
    check(r.returncode == status,
          f"{label}: exit status {r.returncode}, expected {status}; stderr: {r.stderr.strip()}")
    lines = r.stderr.splitlines()
    check(len(lines) == 1 and lines[0].startswith("cleave: error: "),
          f"{label}: stderr is not one 'cleave: error:' line: {r.stderr!r}")
    for fragment in fragments:
        check(fragment in r.stderr, f"{label}: message lacks {fragment!r}: {r.stderr.strip()}")
    check(r.stdout == "", f"{label}: unexpected stdout {r.stdout!r}")
    for d, b in zip(watch, before):
        after = snapshot(d)
        check(after == b,
              f"{label}: files changed in {d}: added {sorted(set(after) - set(b))}, removed "
              f"{sorted(set(b) - set(after))}, modified "
              f"{sorted(k for k in b if k in after and b[k] != after[k])}")
    return r


def npy_bytes(text, data=b"", version=1, raw_len=None, pad=True):
    """A .npy file whose header is `text` (padded with spaces and a newline to a multiple of 64
    like NumPy, unless pad is False) and whose header length field is raw_len when given."""
    body = text.encode("utf8" if version == 3 else "latin1") if isinstance(text, str) else text
    pre = 10 if version == 1 else 12
    if pad:
        body += b" " * ((-(pre + len(body) + 1)) % 64) + b"\n"
    hlen = len(body) if raw_len is None else raw_len
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<H" if version == 1 else "<I",
                                                             hlen) + body + data


def write(path, content):
    with open(path, "wb") as f:
        f.write(content)


def sanitized():
    """True when cleave is built with AddressSanitizer (which reserves terabytes of address
    space, so an address-space limit cannot be used to bound its memory)."""
    with open(CLEAVE, "rb") as f:
        return b"__asan_init" in f.read()


def limit_address_space(size):
    """A preexec_fn capping the address space of the child at `size` bytes."""
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return apply


def setpriv_works(probe_dir):
    """Whether setpriv can drop to nobody here (it needs root)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    r = subprocess.run(NOBODY + ["test", "-r", probe_dir], capture_output=True)
    return r.returncode == 0


def in_mount_namespace(setup):
    """A command prefix running `setup` (sh commands: mounts) in a private mount namespace,
    then cleave with the arguments that follow."""
    return ["unshare", "-m", "sh", "-c", setup + ' && exec "$@"', "sh"]


def mount_namespace_works(probe_dir):
    """Whether unshare -m and mounts are allowed here (root, and not a locked-down container)."""
    if shutil.which("unshare") is None:
        return False
    r = subprocess.run(in_mount_namespace(
        f"mount -t tmpfs -o size=64k tmpfs '{probe_dir}'") + ["true"], capture_output=True)
    return r.returncode == 0


def skip(reason):
    """Reports a case that cannot run here (it is not counted as a check)."""
    print("SKIPPED: " + reason)
