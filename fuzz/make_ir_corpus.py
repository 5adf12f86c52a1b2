#!/usr/bin/python3
"""Writes the seed corpus of fuzz_ir (fuzz/corpus/ir): IR nets from tests/openvino/irgen.py, each
as its .xml followed by "\\0BIN\\0" and its .bin, plus a few malformed ones.
Usage: /usr/bin/python3 fuzz/make_ir_corpus.py fuzz/corpus/ir"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "openvino"))
from irgen import Net, pack_strings, seed_examples  # noqa: E402


def nets():
    out = dict(seed_examples())
    net = Net(version=10)
    data = net.parameter("data", "f32", "1..4,?,...".replace(",...", ""), dims=[-1, -1])
    axis = net.const_array("axis", np.array([1], dtype="<i4"))
    a = net.const_array("a", np.array([2], dtype="<i4"))
    b = net.const_array("b", np.array([-1], dtype="<i4"))
    lens = net.layer("Concat", "concat", inputs=[(a, [1], "I32"), (b, [1], "I32")],
                     outputs=[([2], "I32")], data={"axis": 0})[0]
    for i, o in enumerate(net.variadic("v", data, [-1, -1], axis, lens, 2,
                                       [[-1, 2], [-1, -1]], lengths_precision="I32")):
        net.result("r%d" % i, o, [-1, -1])
    out["hull_v10"] = net
    net = Net()
    s = net.const("s", "string", [4], pack_strings([b"ab", b"", b"cde", b"f"]))
    u = net.const("u", "u4", [3, 4], bytes(range(6)))
    axis = net.const_array("axis", np.array(0, dtype="<u8"))
    for i, o in enumerate(net.split("split", s, [4], axis, 2, [[2], [2]], precision="STRING")):
        net.result("r%d" % i, o, [2], precision="STRING")
    net.result("ru", u, [3, 4], precision="U4")
    out["consts"] = net
    # Concat layers: partial input shapes joined on the last axis, and inputs of two ranks (the
    # rule broken).
    net = Net()
    x = net.parameter("x", "f32", "1..3,?", dims=[-1, -1])
    y = net.parameter("y", "f32", "2,4")
    c = net.concat("cat", [(x, [-1, -1]), (y, [2, 4])], -1, [2, -1])
    z = net.parameter("z", "f32", "3")
    d = net.concat("bad", [(c, [2, -1]), (z, [3])], 0, [4, 4])
    net.result("rc", c, [2, -1])
    net.result("rd", d, [4, 4])
    out["concat"] = net
    return out


def main():
    target = sys.argv[1]
    os.makedirs(target, exist_ok=True)
    for stem, net in nets().items():
        with open(os.path.join(target, stem), "wb") as f:
            f.write(net.xml().encode() + b"\0BIN\0" + bytes(net.bin))
    good = seed_examples()["variadic-split-1"].xml()
    bad = {
        "bad_doctype": '<?xml version="1.0"?><!DOCTYPE net [<!ENTITY a "b">]><net version="11"/>',
        "bad_cycle": good.replace('from-layer="0" from-port="0" to-layer="3" to-port="0"',
                                  'from-layer="3" from-port="3" to-layer="3" to-port="0"'),
        "bad_dim": good.replace("<dim>6</dim>", "<dim>9223372036854775808</dim>", 1),
        "bad_truncated": good[:700],
    }
    for name, text in bad.items():
        with open(os.path.join(target, name), "wb") as f:
            f.write(text.encode())


if __name__ == "__main__":
    main()
