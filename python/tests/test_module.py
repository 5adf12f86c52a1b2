"""The extension as a module: what it exports to the dynamic linker, and which exception each
library status raises."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import cleave
from cleave import _cleave


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_only_the_init_function_is_exported():
    out = subprocess.run(["nm", "-D", "--defined-only", _cleave.__file__], capture_output=True,
                         text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert names == ["PyInit__cleave"]


INTERPOSER = """
const char *cleave_version_string(void) { return "interposed"; }
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_another_libcleave_in_the_process_does_not_take_the_calls(tmp_path):
    # A library loaded ahead of the extension (LD_PRELOAD) that defines a libcleave function:
    # the extension still calls its own copy.
    src = tmp_path / "interposer.c"
    src.write_text(INTERPOSER)
    lib = tmp_path / "libinterposer.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    env = dict(os.environ)
    env["LD_PRELOAD"] = ":".join(p for p in (env.get("LD_PRELOAD"), str(lib)) if p)
    probe = "import cleave, ctypes; print(cleave.library_version())"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == cleave.library_version()
    assert out != "interposed"
    # The interposer does take calls made through the dynamic linker, so the test can fail.
    seen = subprocess.run(
        [sys.executable, "-c", "import ctypes; f = ctypes.CDLL(None).cleave_version_string; "
         "f.restype = ctypes.c_char_p; print(f().decode())"],
        env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert seen == "interposed"


def test_out_of_memory_status_raises_memory_error():
    # A packed input of more than 2^60 bytes cannot be in memory: the library's
    # CLEAVE_ERROR_OUT_OF_MEMORY, raised as MemoryError (chosen by the status, not the message).
    with pytest.raises(MemoryError) as e:
        cleave.Plan("split", (2 ** 62,), cleave.u4, num_splits=2)
    err = e.value
    assert not isinstance(err, cleave.Error)
    assert err.status == 9 and err.status_name == "out of memory"
    assert err.message == "a packed input of more than 2^60 bytes cannot be in memory"
    assert str(err) == err.message


def test_other_statuses_raise_cleave_error():
    cases = [
        (lambda: cleave.split(np.arange(6), 4), 4, "invalid split"),
        (lambda: cleave.split(np.arange(6), 2, axis=3), 3, "invalid axis"),
        (lambda: cleave.split_to_sequence(np.arange(6), keepdims=2), 5, "invalid attribute"),
        (lambda: cleave.onnx_split(np.arange(6), num_outputs=2, opset=0), 7,
         "unsupported version"),
        (lambda: cleave.Plan("split", (2 ** 62, 4), np.float32, num_splits=2), 8, "overflow"),
    ]
    for call, status, name in cases:
        with pytest.raises(cleave.Error) as e:
            call()
        assert not isinstance(e.value, MemoryError)
        assert (e.value.status, e.value.status_name) == (status, name)
        assert str(e.value) == e.value.message


def test_more_outputs_than_memory_can_list_is_memory_error():
    # A zero-size uint8 input with 2^62 rows: 2^62 outputs of one row, whose lengths (8 bytes
    # each) no buffer can hold; the byte count must not wrap into a small allocation.
    x = np.empty((2 ** 62, 0), np.uint8)
    for call in (lambda: cleave.split_to_sequence(x, 1),
                 lambda: cleave.split_to_sequence(x, 1, copy=True),
                 lambda: cleave.infer("split_to_sequence", (2 ** 62, 0), np.uint8, split=1),
                 lambda: cleave.Plan("split_to_sequence", (2 ** 62, 0), np.uint8,
                                     split=1).output_shapes):
        with pytest.raises(MemoryError):
            call()
    # The same on a size that fits, for contrast.
    assert cleave.infer("split_to_sequence", (2 ** 10, 0), np.uint8, split=1).num_outputs == 1024
    assert len(cleave.split_to_sequence(np.empty((2 ** 10, 0), np.uint8), 1)) == 1024
