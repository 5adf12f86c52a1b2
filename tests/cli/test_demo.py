#!/usr/bin/python3
"""cleave demo: runs without files, prints the output shapes of the spec examples (the expected
shapes below are copied from the OpenVINO spec texts and worked out from the ONNX text) and
reports that every round trip holds, by offsets and by cleave's own concat."""
import os

import clitest
from clitest import check

EXPECTED = [
    ("OpenVINO Split-1", "[6,12,10,24]", ["[6,4,10,24]"] * 3),
    ("OpenVINO VariadicSplit-1", "[6,12,10,24]", ["[1,12,10,24]", "[2,12,10,24]",
                                                   "[3,12,10,24]"]),
    ("OpenVINO VariadicSplit-1", "[6,12,10,24]", ["[4,12,10,24]", "[2,12,10,24]"]),
    ("ONNX SplitToSequence-24", "[7,3]", ["[3,3]", "[3,3]", "[1,3]"]),
    ("ONNX SplitToSequence-24", "[3,4]", ["[3]"] * 4),
]


def test_demo():
    work = clitest.workdir("demo")
    r = clitest.run(["demo"], work)
    check(r.returncode == 0, f"demo: exit {r.returncode}: {r.stderr}")
    check(os.listdir(work) == [], "demo wrote files")
    blocks = [b for b in r.stdout.strip().split("\n\n")]
    check(len(blocks) == len(EXPECTED) + 1, f"demo printed {len(blocks)} blocks")
    for block, (title, data, shapes) in zip(blocks, EXPECTED):
        lines = block.splitlines()
        check(lines[0].startswith(f"{title}: data {data}, "), f"demo: {lines[0]!r}")
        printed = [line.split(": ", 1)[1] for line in lines[1:-2]]
        check(printed == shapes, f"demo {title}: shapes {printed}, expected {shapes}")
        check(lines[-2].startswith("  round trip: ") and "gives the input back" in lines[-2],
              f"demo {title}: {lines[-2]!r}")
        inverse = "ConcatFromSequence-11 (new_axis 1)" if "keepdims 0" in lines[0] else "Concat-1"
        check(lines[-1] == f"  inverse: cleave's {inverse} of the outputs gives the input back",
              f"demo {title}: {lines[-1]!r}")
    check("split_lengths [1,2,3]" in blocks[1] and "split_lengths [-1,2]" in blocks[2],
          "demo: the VariadicSplit examples' lengths")
    check("keepdims 0" in blocks[4], "demo: the keepdims 0 example")
    check(blocks[-1] == "demo: all 5 examples passed the round trip", f"demo: {blocks[-1]!r}")
