#!/usr/bin/python3
"""Truncated and lying .npy files: status 65 (74 when the file shrinks during the run), a message
with the numbers the test computes from the bytes, and nothing written.

- Every cut inside the preamble and the header of NumPy's version 1.0, 2.0 and 3.0 files, and
  cuts inside the data, through each of the four operator commands.
- Shapes that promise more data than the file holds (including byte counts near 2^63), checked
  without allocating what the header announces (under an address-space limit).
- Header lengths of gigabytes in 2.0/3.0 files (a 4-byte length near 4 GiB), also in a sparse
  file that really is that large; the 1 MiB limit itself is accepted.
- A file truncated while cleave reads it: status 74, nothing left.
"""
import os
import subprocess

import numpy as np

import clitest
import hostile
from clitest import check
from hostile import expect_failure, npy_bytes, write

A = np.arange(24, dtype="<i4").reshape(4, 6)
MIB = 1 << 20
# The four commands, each a valid request for a (4, 6) input.
COMMANDS = [["split", "-a", "0", "-n", "2"], ["variadic-split", "-a", "1", "-l", "2,4"],
            ["split-to-sequence", "-a", "1", "-s", "3"], ["onnx-split", "--opset", "18", "-n", "2"]]


def layout(content):
    """(preamble length, header length, data offset) of a well-formed file, read by hand."""
    pre = 10 if content[6] == 1 else 12
    hlen = int.from_bytes(content[8:pre], "little")
    return pre, hlen, pre + hlen


def cut_message(content, cut):
    """The fragments the message must hold for `content` cut to `cut` bytes."""
    pre, hlen, offset = layout(content)
    if cut < 6:
        return ["magic string"]
    if cut < pre:
        return [f"the file ends inside the preamble ({cut} bytes)"]
    if cut < offset:
        return [f"the header length {hlen} runs past the end of the file ({cut} bytes)"]
    return [f"announces {len(content) - offset} data bytes but the file holds {cut - offset}"]


def truncations(work):
    # An existing output of every command's prefix: it must survive each failure.
    write(os.path.join(work, "t_0.npy"), b"precious")
    count = 0
    for version in [(1, 0), (2, 0), (3, 0)]:
        path = os.path.join(work, "full.npy")
        with open(path, "wb") as f:
            np.lib.format.write_array(f, A, version=version)
        with open(path, "rb") as f:
            content = f.read()
        os.unlink(path)
        _, _, offset = layout(content)
        check(len(content) == offset + A.nbytes, f"version {version}: unexpected NumPy layout")
        # Every byte of the preamble and header, and a few cuts in the data.
        cuts = list(range(offset)) + [offset, offset + 1, offset + 4, len(content) - 1]
        for cut in cuts:
            write(os.path.join(work, "t.npy"), content[:cut])
            args = COMMANDS[count % len(COMMANDS)] + ["-f", "t.npy"]
            count += 1
            expect_failure(f"version {version} cut at {cut}", args, work, 65,
                           ["'t.npy' is not a valid .npy file"] + cut_message(content, cut))
    os.unlink(os.path.join(work, "t.npy"))


def promises(work):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }"
    cases = [
        # (label, descr, item size, Fortran order, shape, data bytes in the file)
        ("one row short", "<i4", 4, False, (5, 6), A.nbytes),
        ("one byte short", "|u1", 1, False, (97,), 96),
        ("empty data", "<f8", 8, False, (1,), 0),
        ("a terabyte", "|u1", 1, False, (1 << 40,), 16),
        ("2^63-1 bytes", "|u1", 1, False, (7 * 7 * 73, 127 * 337, 92737 * 649657), 64),
        ("2^63-4 bytes of U", "<U2305843009213693951", 4 * 2305843009213693951, False, (1,), 64),
        ("Fortran order", "<i8", 8, True, (3, 1 << 30), 64),
    ]
    for label, descr, item, fortran, shape, nbytes in cases:
        total = item
        for d in shape:
            total *= d
        check(total <= (1 << 63) - 1, f"{label}: the test's case overflows")
        name = label.replace(" ", "_").replace("^", "") + ".npy"
        data = bytes(range(256)) * (nbytes // 256) + bytes(nbytes % 256)
        write(os.path.join(work, name), npy_bytes(header % (descr, fortran, shape), data))
        args = ["split-to-sequence", "-a", "0", name]
        expect_failure(label, args, work, 65,
                       [f"'{name}' is not a valid .npy file",
                        f"announces {total} data bytes but the file holds {nbytes}"])
        # What the header announces is never allocated: the same under 64 MiB of address space.
        if not hostile.sanitized():
            expect_failure(label + " (64 MiB address space)", args, work, 65,
                           [f"announces {total} data bytes"],
                           preexec_fn=hostile.limit_address_space(64 * MIB))
    if hostile.sanitized():
        hostile.skip("address-space limits: AddressSanitizer reserves terabytes of address space")


def header_lengths(work):
    text = "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 6), }"
    limit = MIB
    small = [
        (1, 0xFFFF, "runs past the end"),
        (2, limit + 1, "is absurd"),
        (2, 0x7FFFFFFF, "is absurd"),
        (3, 0x80000000, "is absurd"),
        (3, 0xFFFFFFF4, "is absurd"),
        (2, 0xFFFFFFFF, "is absurd"),
    ]
    for version, hlen, what in small:
        name = f"len_v{version}_{hlen:x}.npy"
        write(os.path.join(work, name), npy_bytes(text, A.tobytes(), version, raw_len=hlen))
        expect_failure(f"version {version}.0 header length {hlen}",
                       ["split", "-a", "0", "-n", "2", name], work, 65,
                       [f"'{name}'", f"the header length {hlen} {what}"] +
                       ([f"the limit is {limit} bytes"] if what == "is absurd" else []))
    # A sparse file large enough for a 4 GiB header: the limit, not the file size, refuses it,
    # before anything of that size is read or allocated. The input lives outside the watched
    # directory (hashing 4 GiB would take a while); its size and time are checked instead.
    big_dir = os.path.join(work, "sparse")
    os.mkdir(big_dir)
    big = os.path.join(big_dir, "big.npy")
    write(big, npy_bytes(text, A.tobytes(), 3, raw_len=0xFFFFFFF0))
    os.truncate(big, 0xFFFFFFF0 + 12 + A.nbytes)
    stat = os.stat(big)
    out = os.path.join(work, "out")
    os.mkdir(out)
    extra = {} if hostile.sanitized() else {"preexec_fn": hostile.limit_address_space(64 * MIB)}
    expect_failure("4 GiB header in a 4 GiB file", ["split", "-a", "0", "-n", "2", "-o",
                                                    os.path.join(out, "p"), big], work, 65,
                   ["the header length 4294967280 is absurd"], watch=[out], **extra)
    after = os.stat(big)
    check((after.st_size, after.st_mtime_ns) == (stat.st_size, stat.st_mtime_ns),
          "the sparse input changed")
    os.unlink(big)
    # The largest header accepted: exactly the limit (NumPy's own reader needs max_header_size).
    name = "limit.npy"
    content = npy_bytes(text + " " * (limit - len(text) - 1) + "\n", A.tobytes(), 2, pad=False)
    check(int.from_bytes(content[8:12], "little") == limit, "the limit case is not 1 MiB")
    write(os.path.join(work, name), content)
    r = hostile.run(["split", "-a", "1", "-n", "3", "-q", name], work)
    if check(r.returncode == 0, f"1 MiB header: status {r.returncode}: {r.stderr}"):
        for i in range(3):
            clitest.check_output(f"1 MiB header output {i}", os.path.join(work, f"limit_{i}.npy"),
                                 A[:, 2 * i:2 * i + 2], False)
    content = npy_bytes(text + " " * (limit - len(text)) + "\n", A.tobytes(), 2, pad=False)
    write(os.path.join(work, "over.npy"), content)
    expect_failure("1 MiB + 1 header", ["split", "-a", "1", "-n", "3", "over.npy"], work, 65,
                   [f"the header length {limit + 1} is absurd"])


def shrinks_while_read(work):
    """The input is cut to its header while cleave copies it: a read error (74), no output."""
    rows = 1 << 18
    for attempt in range(4):
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        np.save(os.path.join(work, "in.npy"), np.ones((rows, 2, 24), dtype=np.uint8))
        _, _, offset, _ = clitest.read_header(os.path.join(work, "in.npy"))
        write(os.path.join(work, "out_0.npy"), b"existing")
        before = clitest.snapshot(work)
        del before["in.npy"]
        # Axis 1 with 24-byte pieces: the slow gathering path, so the copy takes a while.
        proc = subprocess.Popen([hostile.CLEAVE, "split", "-a", "1", "-n", "2", "-f", "-q",
                                 "-o", "out", "in.npy"], cwd=work, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        cut = False
        while proc.poll() is None:
            if any(size > 4096 for _, _, _, size in clitest.staged_files(work)):
                os.truncate(os.path.join(work, "in.npy"), offset)
                cut = True
                break
        out, err = proc.communicate(timeout=120)
        if cut and proc.returncode != 0:
            check(proc.returncode == 74, f"input cut while read: status {proc.returncode}: {err}")
            check("'in.npy' ended before its data did" in err,
                  f"input cut while read: message {err!r}")
            after = clitest.snapshot(work)
            del after["in.npy"]
            check(after == before, f"input cut while read: files changed: "
                  f"{sorted(set(after) ^ set(before))}")
            return
        rows *= 4
    check(False, "cleave always finished before its input could be cut")


def test_truncated():
    truncations(clitest.workdir("hostile-truncated"))
    promises(clitest.workdir("hostile-promises"))
    header_lengths(clitest.workdir("hostile-header-lengths"))
    shrinks_while_read(clitest.workdir("hostile-shrinks"))
