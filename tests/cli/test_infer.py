#!/usr/bin/python3
"""cleave infer: one shape per line, --json, types; static shapes, and partial shapes with unknown
values (docs/operators.md section 6). The expected shapes are the examples of the OpenVINO and ONNX
texts and of docs/operators.md, and cases worked out by hand from its rules."""
import re

import clitest
from clitest import check

CASES = [
    # OpenVINO Split-1 example: [6,12,10,24], axis 1, num_splits 3.
    (["split", "-a", "1", "-n", "3", "--shape", "[6,12,10,24]"],
     ["[6,4,10,24]", "[6,4,10,24]", "[6,4,10,24]"]),
    # OpenVINO VariadicSplit-1 examples.
    (["variadic-split", "-a", "0", "-l", "1,2,3", "--shape", "[6,12,10,24]"],
     ["[1,12,10,24]", "[2,12,10,24]", "[3,12,10,24]"]),
    (["variadic-split", "-a", "0", "-l", "-1,2", "--shape", "[6, 12, 10, 24]"],
     ["[4,12,10,24]", "[2,12,10,24]"]),
    (["variadic-split", "-a", "-1", "-l", "24", "--shape", "[6,12,10,24]"], ["[6,12,10,24]"]),
    (["split", "-a", "0", "-n", "5", "--shape", "[0,3]"], ["[0,3]"] * 5),
    # SplitToSequence: scalar split with a remainder; keepdims 0; empty sequence.
    (["split-to-sequence", "-a", "1", "-s", "3", "--shape", "[3,5]"], ["[3,3]", "[3,2]"]),
    (["split-to-sequence", "-a", "1", "-k", "0", "--shape", "[2,3]"], ["[2]", "[2]", "[2]"]),
    (["split-to-sequence", "-a", "1", "-k", "0", "-s", "2", "--shape", "[2,3]"],
     ["[2,2]", "[2,1]"]),
    (["split-to-sequence", "--shape", "[0,3]"], []),
    (["split-to-sequence", "-k", "0", "--shape", "[2]"], ["[]", "[]"]),
    (["split-to-sequence", "-l", "0,2", "--opset", "11", "--shape", "[2,2]"],
     ["[0,2]", "[2,2]"]),
    # ONNX Split: versions by opset; Split-18's num_outputs rule.
    (["onnx-split", "--opset", "18", "-n", "4", "--shape", "[6]"], ["[2]", "[2]", "[2]", "[0]"]),
    (["onnx-split", "--opset", "18", "-n", "3", "--shape", "[7,2]"], ["[3,2]", "[3,2]",
                                                                      "[1,2]"]),
    (["onnx-split", "--opset", "12", "-n", "2", "--shape", "[4]"], ["[2]", "[2]"]),
    (["onnx-split", "--opset", "13", "-a", "-1", "-l", "1,3", "-n", "2", "--shape", "[2,4]"],
     ["[2,1]", "[2,3]"]),
    (["onnx-split", "--opset", "2", "-l", "2,2", "--shape", "[4]", "--dtype", "string"],
     ["[2]", "[2]"]),
    (["onnx-split", "--opset", "13", "-n", "2", "--shape", "[4]", "--dtype", "bf16"],
     ["[2]", "[2]"]),
    (["split", "-a", "0", "-n", "2", "--shape", "[4]", "--dtype", "U7"], ["[2]", "[2]"]),
    (["split", "-a", "0", "-n", "2", "--shape", "[4]", "--dtype", "f8e8m0"], ["[2]", "[2]"]),
    (["variadic-split", "-a", "0", "-l", "3,5", "--shape", "[8]", "--dtype", "u1"],
     ["[3]", "[5]"]),
    # Partial shapes: the examples of docs/operators.md section 6.
    (["split", "-a", "0", "-n", "2", "--shape", "[3..6]"], ["[2..3]", "[2..3]"]),
    (["split", "-a", "0", "-n", "41", "--shape", "[1..41]"], ["[1]"] * 41),
    (["split", "-a", "?", "-n", "2", "--shape", "[2,6,4]"], ["[1..2,3..6,2..4]"] * 2),
    (["split-to-sequence", "-a", "1", "-s", "3", "--shape", "[3,5..6]"], ["[3,3]", "[3,2..3]"]),
    # ... and cases worked out from its rules.
    (["split", "-a", "1", "-n", "2", "--shape", "[?,4]"], ["[?,2]", "[?,2]"]),
    (["split", "-a", "0", "-n", "2", "--shape", "[4..]"], ["[2..]", "[2..]"]),
    (["split", "-a", "0", "-n", "2", "--shape", "[-1]"], ["[?]", "[?]"]),
    (["variadic-split", "-a", "0", "-l", "2,-1", "--shape", "[3..7]"], ["[2]", "[1..5]"]),
    (["variadic-split", "-a", "0", "-l", "2,3", "--shape", "[4..9]"], ["[2]", "[3]"]),
    (["variadic-split", "-a", "0", "-l", "?,?", "--shape", "[5]"], ["[0..5]", "[0..5]"]),
    (["variadic-split", "-a", "0", "-l", "?", "--shape", "[5,2]"], ["[5,2]"]),
    (["split", "-a", "0", "-n", "3", "--shape", "[...]"], ["[...]"] * 3),
    (["split-to-sequence", "-a", "0", "-s", "?", "--shape", "[0]"], []),
]


def test_infer():
    work = clitest.workdir("infer")
    for args, shapes in CASES:
        r = clitest.run(["infer"] + args, work)
        label = "infer " + " ".join(args)
        check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr.strip()}")
        check(r.stdout.splitlines() == shapes, f"{label}: printed {r.stdout!r}")
        r = clitest.run(["infer"] + args + ["--json"], work)
        # "shape" is the text form; "dims" the same as integers, only for a static shape.
        expected = ('{"op": "' + args[0] + '", "outputs": [' +
                    ", ".join('{"shape": "' + s + '"' +
                              (', "dims": [' + s[1:-1].replace(",", ", ") + "]"
                               if re.fullmatch(r"\[(\d+(,\d+)*)?\]", s) else "") + "}"
                              for s in shapes) + "]}\n")
        check(r.stdout == expected, f"{label} --json: {r.stdout!r}, expected {expected!r}")
    # A split-to-sequence whose element count varies: "COUNT x ELEMENT" (docs/operators.md, docs/cli.md).
    args = ["infer", "split-to-sequence", "-a", "1", "-s", "2", "--shape", "[3,3..6]"]
    r = clitest.run(args, work)
    check(r.returncode == 0 and r.stdout == "2..3 x [3,1..2]\n", f"varying count: {r.stdout!r}")
    r = clitest.run(args + ["--json"], work)
    check(r.stdout == '{"op": "split-to-sequence", "count": "2..3", "element": "[3,1..2]"}\n',
          f"varying count --json: {r.stdout!r}")
    # A varying count of static elements: the element's shape as integers too.
    r = clitest.run(["infer", "split-to-sequence", "-a", "1", "--shape", "[3,3..6]", "--json"],
                    work)
    check(r.stdout == '{"op": "split-to-sequence", "count": "3..6", "element": "[3,1]", '
          '"element_dims": [3, 1]}\n', f"varying count, static element --json: {r.stdout!r}")
    # Partial inputs that no valid input fits give the operator's error (65).
    for args in (["split", "-a", "0", "-n", "4", "--shape", "[5..7]"],
                 ["variadic-split", "-a", "0", "-l", "2,3", "--shape", "[6..9]"],
                 ["split", "-a", "?", "-n", "4", "--shape", "[2,3]"],
                 ["variadic-split", "-a", "0", "-l", "?,1", "--shape", "[3]"]):
        clitest.expect_failure("infer " + " ".join(args), ["infer"] + args, work,
                               64 if "?,1" in args else 65, [])
    # Type rules reach infer too (status 65), and the CLI's own type names (64).
    for args, status in [
        (["onnx-split", "--opset", "1", "-n", "2", "--shape", "[4]", "--dtype", "i8"], 65),
        (["onnx-split", "--opset", "11", "-n", "2", "--shape", "[4]", "--dtype", "bf16"], 65),
        (["split-to-sequence", "--shape", "[4]", "--dtype", "f8e4m3"], 65),
        (["split", "-a", "0", "-n", "2", "--shape", "[4]", "--dtype", "bytes"], 64),
        (["split", "-a", "0", "-n", "2", "--shape", "[4]", "--dtype", "S0"], 64),
        (["split", "-a", "0", "-n", "2", "--shape", "[]"], 65),
    ]:
        clitest.expect_failure("infer " + " ".join(args), ["infer"] + args, work, status, [])
