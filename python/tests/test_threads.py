"""Concurrent calls from Python threads: copies release the GIL, and the plan cache may drop a
plan while another thread runs it."""
import threading

import numpy as np

import cleave
from conftest import assert_same, reference


def test_concurrent_calls_with_plan_cache_eviction():
    # 12 shapes (more than the cache's 8 plans), each over 1 MiB so that the GIL is released.
    shapes = [(64 + 8 * k, 4096) for k in range(12)]
    inputs = [np.arange(s[0] * s[1], dtype=np.float32).reshape(s) for s in shapes]
    wants = [reference(x, 0, [x.shape[0] // 4] * 4) for x in inputs]
    errors = []

    def work(offset):
        try:
            for r in range(6):
                k = (offset + r) % len(shapes)
                x = inputs[k]
                got = cleave.split(x, 4, axis=0, copy=True, threads=1 + r % 2)
                assert_same(got, wants[k])
                out = [np.empty_like(w) for w in wants[k]]
                cleave.split(x, 4, axis=0, out=out)
                assert_same(out, wants[k])
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i * 3,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
