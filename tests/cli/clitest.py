"""Shared helpers of the cleave CLI tests (pytest files run by Debian's /usr/bin/python3 with
python3-pytest and python3-numpy; tests/README.md says how to run them).

The tests find the cleave executable in $CLEAVE and make their files under $CLEAVE_TEST_TMP (both
set by the folders' CMakeLists.txt, or by tests/conftest.py when pytest runs by hand). Each check
records a failure instead of stopping, so that one run reports every broken case; after each test,
tests/conftest.py fails it with the list of its failed checks (`begin` and `results`).
"""
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

CLEAVE = os.environ.get("CLEAVE", "cleave")
TMP_ROOT = os.environ.get("CLEAVE_TEST_TMP", "/tmp/cleave-cli-tests")

_failures = []
_checks = 0


def check(condition, message):
    """Records a failure when `condition` is false."""
    global _checks
    _checks += 1
    if not condition:
        _failures.append(message)
        print("FAIL: " + message, file=sys.stderr)
    return bool(condition)


def begin():
    """Forgets the checks made so far: a test starts (tests/conftest.py calls it)."""
    global _checks
    _failures.clear()
    _checks = 0


def results():
    """The messages of the failed checks since `begin`, and the number of checks made."""
    return list(_failures), _checks


def groups(*pairs):
    """Parametrizes a test `test_x(group, work)` over (name, function) pairs: pytest runs each
    function as a test of its own, `test_x[name]`, in a fresh directory (`work`)."""
    return pytest.mark.parametrize("group", [pytest.param(f, id=name) for name, f in pairs])


def finish():
    """Prints a summary and exits: 0 when every check passed. For a file run as a program (a
    test's child process, or a script not yet made a pytest file); pytest tests do not call it."""
    if _failures:
        print(f"{len(_failures)} of {_checks} checks failed", file=sys.stderr)
        sys.exit(1)
    if _checks == 0:
        print("no check ran", file=sys.stderr)
        sys.exit(1)
    print(f"all {_checks} checks passed")
    sys.exit(0)


def workdir(name):
    """Returns a fresh, empty directory for one test."""
    path = os.path.join(TMP_ROOT, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def run_groups(name, groups, usage=None, shared=False):
    """The main() of a script made of groups of checks: runs them, then exits through finish().
    The way before pytest, kept for scripts not yet made pytest files (tests/README.md says how:
    `groups` replaces it).

    `groups` is a list of (group name, function) pairs; each function is called with the
    directory it works in. With `usage` (the script's docstring) the script takes one group's name as its
    argument, as CTest runs each group as a test of its own, and runs that group alone in
    workdir(name + group); a missing or unknown name exits with the usage. Without, every group
    runs in turn, each in a directory named after it under workdir(name), or with `shared` all
    in workdir(name) itself (where later groups read what earlier ones wrote).
    """
    if usage is not None:
        table = dict(groups)
        if len(sys.argv) != 2 or sys.argv[1] not in table:
            sys.exit(usage)
        table[sys.argv[1]](workdir(name + sys.argv[1]))
    else:
        root = workdir(name)
        for group, function in groups:
            work = root if shared else os.path.join(root, group)
            os.makedirs(work, exist_ok=True)
            function(work)
    finish()


def run(args, cwd, **kwargs):
    """Runs cleave with `args` in `cwd`; returns the CompletedProcess (text output)."""
    return subprocess.run([CLEAVE] + list(args), cwd=cwd, capture_output=True, text=True,
                          timeout=120, **kwargs)


def snapshot(root):
    """Maps every file under `root` (hidden ones included) to (size, sha256, mtime_ns)."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if os.path.isdir(path):
                state[rel + "/"] = None
                continue
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            st = os.stat(path)
            state[rel] = (st.st_size, digest, st.st_mtime_ns)
    return state


# A run's staging folder (tools/common/outputs_staging.h): .NAME.cleave-tmp-PID-TAG, beside the
# output folder or among the output files, holding the outputs under their own names; its
# commit's journal is that name and ".commit".
STAGE_NAME = re.compile(r"^\.(?P<base>.*)\.cleave-tmp-(?P<pid>[0-9]+)-(?P<tag>[0-9a-f]{8})"
                        r"(?P<journal>\.commit)?$")


def temporaries(root):
    """Lists the cleave temporaries left under `root`: every file inside a staging folder, every
    file whose name marks it as one (a journal), and every empty staging folder."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        inside = ".cleave-tmp-" in os.path.relpath(dirpath, root)
        found += [os.path.join(dirpath, n) for n in filenames if inside or ".cleave-tmp-" in n]
        if inside and not dirnames and not filenames:
            found.append(dirpath + "/")
    return found


def staged_files(folder):
    """The files in the staging folders directly in `folder`: a list of (match of STAGE_NAME,
    file name, path, size); files that vanish meanwhile are left out."""
    found = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return found
    for entry in entries:
        m = STAGE_NAME.match(entry.name)
        if m is None or m.group("journal"):
            continue
        try:
            inner = list(os.scandir(entry.path))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for f in inner:
            try:
                found.append((m, f.name, f.path, f.stat().st_size))
            except FileNotFoundError:
                pass
    return found


def expect_failure(label, args, cwd, status, fragments, **kwargs):
    """Runs cleave expecting exit `status`, a "cleave: error:" message holding every fragment,
    nothing on stdout, and the directory tree of `cwd` unchanged (no output, no temporary file,
    no existing file modified)."""
    before = snapshot(cwd)
    r = run(args, cwd, **kwargs)
    check(r.returncode == status,
          f"{label}: exit status {r.returncode}, expected {status}; stderr: {r.stderr.strip()}")
    check("cleave: error: " in r.stderr, f"{label}: no 'cleave: error:' in {r.stderr!r}")
    for fragment in fragments:
        check(fragment in r.stderr, f"{label}: message lacks {fragment!r}: {r.stderr.strip()}")
    check(r.stdout == "", f"{label}: unexpected stdout {r.stdout!r}")
    after = snapshot(cwd)
    check(after == before,
          f"{label}: files changed: added {sorted(set(after) - set(before))}, removed "
          f"{sorted(set(before) - set(after))}, modified "
          f"{sorted(k for k in before if k in after and before[k] != after[k])}")
    return r


def read_header(path):
    """Returns (version, header dict, data offset) of a .npy file, parsed independently of
    cleave and of numpy.lib.format."""
    with open(path, "rb") as f:
        head = f.read(12)
        assert head[:6] == b"\x93NUMPY", path
        major = head[6]
        if major == 1:
            hlen = int.from_bytes(head[8:10], "little")
            pre = 10
        else:
            hlen = int.from_bytes(head[8:12], "little")
            pre = 12
        f.seek(pre)
        text = f.read(hlen).decode("latin1" if major < 3 else "utf8")
    return (major, head[7]), ast.literal_eval(text), pre + hlen, text


def slice_along(a, axis, start, length, remove_axis=False):
    """NumPy's own slicing of `a`: indices [start, start+length) along `axis` (or index `start`
    with the axis removed)."""
    index = [slice(None)] * a.ndim
    index[axis] = start if remove_axis else slice(start, start + length)
    return a[tuple(index)]


def check_output(label, path, expected, fortran):
    """Checks that the .npy file at `path` holds exactly `expected`: dtype string (byte order
    included), shape, memory order flag and bytes."""
    if not check(os.path.exists(path), f"{label}: {path} was not written"):
        return
    try:
        _, header, offset, _ = read_header(path)
        out = np.load(path, allow_pickle=False)
    except Exception as e:  # a malformed output is a failed check, not a crashed test
        check(False, f"{label}: {path} does not load: {e}")
        return
    check(header["fortran_order"] == fortran,
          f"{label}: fortran_order {header['fortran_order']}, expected {fortran}")
    check(offset % 64 == 0, f"{label}: data offset {offset} is not 64-byte aligned")
    check(out.dtype.str == expected.dtype.str,
          f"{label}: dtype {out.dtype.str}, expected {expected.dtype.str}")
    check(out.shape == expected.shape, f"{label}: shape {out.shape}, expected {expected.shape}")
    if out.dtype.str == expected.dtype.str and out.shape == expected.shape:
        check(np.ascontiguousarray(out).tobytes() == np.ascontiguousarray(expected).tobytes(),
              f"{label}: values differ from NumPy's slicing")


def write_manifest(path, m, version=None):
    """Writes the checkpoint manifest `m` to `path` as cleave writes one (docs/manifest.md): one
    line, and for version 2 its checksum of itself recomputed last (XXH3-64 of every byte before
    ', "self_xxh3"'), so that a test's edit reaches the checks after it. `version` replaces the
    manifest's; version 1 gets no checksum of itself."""
    import xxhash
    body = {k: v for k, v in m.items() if k != "self_xxh3"}
    if version is not None:
        body["version"] = version
    text = json.dumps(body, ensure_ascii=False)
    if body.get("version") == 2:
        digest = xxhash.xxh3_64(text[:-1].encode()).hexdigest()
        text = text[:-1] + f', "self_xxh3": "{digest}"}}'
    with open(path, "w") as f:
        f.write(text + "\n")
