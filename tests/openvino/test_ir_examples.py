#!/usr/bin/python3
"""The seed examples in docs/examples (the Split-1 and VariadicSplit-1 examples of the OpenVINO
specs, completed into IR nets by tests/openvino/irgen.py): the committed files are exactly what
the generator writes, ir-check finds them consistent, and ir-run's outputs equal NumPy slicing."""
import os

import numpy as np

import clitest
from clitest import check, check_output
from irgen import seed_examples

# stem -> (axis, [(start, stop)] of each output along the axis), from the specs' examples.
EXPECTED = {
    "split-1": (1, [(0, 4), (4, 8), (8, 12)]),
    "variadic-split-1": (0, [(0, 1), (1, 3), (3, 6)]),
    "variadic-split-1-inferred": (0, [(0, 4), (4, 6)]),
}


def test_ir_examples():
    work = clitest.workdir("ir_examples")
    examples = os.path.join(os.environ["CLEAVE_SOURCE_DIR"], "docs", "examples")
    nets = seed_examples()
    check(sorted(nets) == sorted(EXPECTED), f"examples: {sorted(nets)}")
    data = np.arange(6 * 12 * 10 * 24, dtype="<f4").reshape(6, 12, 10, 24)
    np.save(os.path.join(work, "data.npy"), data)
    for stem, net in nets.items():
        net.write(work, stem)
        for ext in (".xml", ".bin"):
            with open(os.path.join(work, stem + ext), "rb") as f:
                fresh = f.read()
            with open(os.path.join(examples, stem + ext), "rb") as f:
                committed = f.read()
            check(fresh == committed, f"docs/examples/{stem}{ext} differs from what irgen.py "
                                      "writes (regenerate: tests/openvino/irgen.py docs/examples)")
        xml = os.path.join(examples, stem + ".xml")
        r = clitest.run(["ir-check", xml], work)
        check(r.returncode == 0 and "1 OK, 0 MISMATCH" in r.stdout,
              f"ir-check {stem}: {r.returncode} {r.stdout} {r.stderr}")
        r = clitest.run(["ir-run", xml, "--input", "data=data.npy", "-o", stem], work)
        check(r.returncode == 0, f"ir-run {stem}: {r.returncode} {r.stderr}")
        axis, pieces = EXPECTED[stem]
        for i, (start, stop) in enumerate(pieces):
            check_output(f"{stem} output {i}", os.path.join(work, "%s_%d.npy" % (stem, i)),
                         clitest.slice_along(data, axis, start, stop - start), False)
        check(not os.path.exists(os.path.join(work, "%s_%d.npy" % (stem, len(pieces)))),
              f"{stem}: more outputs than the example has")
