"""The module's output arena: copy=True outputs come from it, freed outputs are kept (up to the
limit) and reused; the limit can be changed, 0 disables keeping, trim_arena releases memory, and
outputs stay valid across limit changes, threads and interpreter exit."""
import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import cleave
from conftest import assert_same, reference

MIB = 1 << 20


@pytest.fixture(autouse=True)
def default_arena():
    """Each test starts from an empty arena with the default limit and leaves it so."""
    gc.collect()
    cleave.set_arena_limit(0)
    cleave.set_arena_limit(512 * MIB)
    yield
    gc.collect()
    cleave.set_arena_limit(0)
    cleave.set_arena_limit(512 * MIB)


def test_default_limit_and_stats_keys():
    assert cleave.arena_limit() == 512 * MIB
    s = cleave.arena_stats()
    assert set(s) == {
        "limit_bytes",
        "kept_bytes",
        "kept_blocks",
        "used_bytes",
        "used_blocks",
        "reused",
        "allocated",
    }
    assert s["limit_bytes"] == 512 * MIB
    assert s["kept_bytes"] == s["used_bytes"] == 0


def test_copies_reuse_kept_memory_and_values_are_right():
    x = np.arange(512 * 1024, dtype=np.float32).reshape(512, 1024)  # 2 MiB
    want = reference(x, 0, [128] * 4)
    for r in range(5):
        got = cleave.split(x + r, 4, axis=0, copy=True)
        assert_same(got, [w + r for w in want])
        s = cleave.arena_stats()
        assert s["used_blocks"] == 1
        assert s["used_bytes"] >= x.nbytes
        del got
        s = cleave.arena_stats()
        assert s["used_blocks"] == 0
        assert s["kept_blocks"] == 1
        assert s["kept_bytes"] >= x.nbytes
    s = cleave.arena_stats()
    assert s["allocated"] == 1
    assert s["reused"] == 4


def test_reused_block_holds_new_values_not_old_ones():
    x = np.arange(4096, dtype=np.int64).reshape(64, 64)
    a = cleave.split(x, 2, axis=1, copy=True)
    del a
    y = -x
    b = cleave.split(y, 2, axis=1, copy=True)
    assert cleave.arena_stats()["reused"] == 1
    assert_same(b, reference(y, 1, [32, 32]))


def test_plan_run_uses_the_arena():
    x = np.ones((256, 256), dtype=np.float64)
    plan = cleave.Plan("split", x.shape, x.dtype, axis=0, num_splits=2)
    for _ in range(3):
        got = plan.run(x)
        assert_same(got, reference(x, 0, [128, 128]))
        del got
    s = cleave.arena_stats()
    assert (s["allocated"], s["reused"]) == (1, 2)


def test_limit_zero_keeps_nothing():
    cleave.set_arena_limit(0)
    assert cleave.arena_limit() == 0
    x = np.arange(1 << 18, dtype=np.float32)
    for _ in range(3):
        got = cleave.split(x, 2, copy=True)
        assert_same(got, reference(x, 0, [1 << 17] * 2))
        del got
        s = cleave.arena_stats()
        assert s["kept_bytes"] == 0 and s["kept_blocks"] == 0
        assert s["reused"] == 0


def test_blocks_larger_than_the_limit_are_not_kept():
    cleave.set_arena_limit(64 * 1024)
    x = np.zeros(1 << 18, dtype=np.uint8)  # 256 KiB > 64 KiB
    got = cleave.split(x, 2, copy=True)
    del got
    s = cleave.arena_stats()
    assert s["limit_bytes"] == 64 * 1024
    assert s["kept_bytes"] == 0
    assert s["kept_bytes"] <= s["limit_bytes"]


def test_trim_returns_memory():
    x = np.arange(1 << 20, dtype=np.uint8)
    y = np.arange(1 << 19, dtype=np.uint8)
    a = cleave.split(x, 2, copy=True)
    b = cleave.split(y, 2, copy=True)
    del a, b
    kept = cleave.arena_stats()["kept_bytes"]
    assert kept >= x.nbytes + y.nbytes
    assert cleave.arena_stats()["kept_blocks"] == 2
    released = cleave.trim_arena(kept - 1)  # releases the oldest block only
    assert 0 < released < kept
    assert cleave.arena_stats()["kept_blocks"] == 1
    assert cleave.trim_arena() == kept - released
    s = cleave.arena_stats()
    assert s["kept_bytes"] == 0 and s["kept_blocks"] == 0
    assert cleave.trim_arena() == 0


def test_outputs_outlive_limit_changes():
    x = np.arange(1 << 16, dtype=np.int32).reshape(256, 256)
    want = reference(x, 1, [64] * 4)
    first = cleave.split(x, 4, axis=1, copy=True)
    cleave.set_arena_limit(MIB)  # the old arena is retired while `first` uses its block
    second = cleave.split(x * 2, 4, axis=1, copy=True)
    cleave.set_arena_limit(0)
    third = cleave.split(x * 3, 4, axis=1, copy=True)
    gc.collect()
    assert_same(first, want)
    assert_same(second, [w * 2 for w in want])
    assert_same(third, [w * 3 for w in want])
    first[0][:] = 7  # still writeable memory
    assert (first[0] == 7).all()
    del first, second, third  # frees into retired arenas (released with their last block)
    gc.collect()


def test_argument_errors():
    with pytest.raises(ValueError, match="limit_bytes"):
        cleave.set_arena_limit(-1)
    with pytest.raises(TypeError, match="limit_bytes must be an int"):
        cleave.set_arena_limit(1.5)
    with pytest.raises(ValueError, match="keep_bytes"):
        cleave.trim_arena(-5)
    with pytest.raises(TypeError):
        cleave.trim_arena(1, 2)
    assert cleave.arena_limit() == 512 * MIB  # unchanged by the failed calls


def test_concurrent_copies_and_limit_changes_from_threads():
    shapes = [(64 + 16 * k, 4096) for k in range(4)]  # over 1 MiB: the GIL is released
    inputs = [np.arange(s[0] * s[1], dtype=np.float32).reshape(s) for s in shapes]
    wants = [reference(x, 0, [x.shape[0] // 4] * 4) for x in inputs]
    errors = []
    kept_alive = []

    def work(offset):
        try:
            for r in range(8):
                k = (offset + r) % len(shapes)
                got = cleave.split(inputs[k], 4, axis=0, copy=True, threads=1 + r % 2)
                assert_same(got, wants[k])
                if r % 3 == 0:
                    kept_alive.append((k, got))
        except Exception as e:  # reported by the main thread
            errors.append(e)

    def change_limits():
        try:
            for limit in [0, 8 * MIB, 512 * MIB, 0, 512 * MIB]:
                cleave.set_arena_limit(limit)
                cleave.trim_arena()
                cleave.arena_stats()
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    threads.append(threading.Thread(target=change_limits))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for k, got in kept_alive:
        assert_same(got, wants[k])


def test_concurrent_copies_reuse_blocks():
    x = np.arange(1 << 20, dtype=np.float32).reshape(1024, 1024)  # 4 MiB
    want = reference(x, 0, [256] * 4)
    errors = []

    def work():
        try:
            for _ in range(6):
                assert_same(cleave.split(x, 4, axis=0, copy=True), want)
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    s = cleave.arena_stats()
    assert s["allocated"] + s["reused"] == 18
    assert s["reused"] >= 18 - 3  # at most one block per thread is ever in use at once
    assert s["used_blocks"] == 0


def test_outputs_alive_at_interpreter_exit():
    code = (
        "import numpy as np, cleave\n"
        "x = np.arange(1 << 18, dtype=np.float64)\n"
        "kept = cleave.split(x, 4, copy=True)\n"
        "cleave.split(x, 4, copy=True)  # freed at once: a kept block\n"
        "cleave.set_arena_limit(1 << 20)\n"
        "later = cleave.split(x, 2, copy=True)\n"
        "assert float(kept[3][-1]) == float(x[-1])\n"
        "print('ok')\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ)
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok\n"
