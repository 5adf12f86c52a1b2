#!/usr/bin/python3
"""Writes the ONNX models of cases (a)-(f) for bench_ort: one Split-13 node each (the split
lengths as an int64 initializer), f32 input "x", outputs "y0", "y1", ... (split_X.onnx); and
for bench_ort_concat their inverses: one Concat-13 node joining inputs "x0", "x1", ... (the
split's outputs) along the same axis into "y" (concat_X.onnx).

    /usr/bin/python3 bench/make_ort_models.py DIR
"""

import os
import sys

from onnx import TensorProto, helper, save

CASES = {
    "a": ((64, 1024, 1024), 0, [16] * 4),
    "b": ((64, 1024, 1024), 1, [256] * 4),
    "c": ((64, 1024, 1024), 2, [256] * 4),
    "d": ((4096, 1024), 1, [1] * 1024),
    "e": ((64, 1024, 1024), 1, [128, 256, 384, 256]),
    "f": ((6, 12, 10, 24), 1, [4] * 3),
}


def model(shape, axis, lengths):
    names = [f"y{i}" for i in range(len(lengths))]
    split = helper.make_tensor("split", TensorProto.INT64, [len(lengths)], lengths)
    node = helper.make_node("Split", ["x", "split"], names, axis=axis)
    outs = []
    for n, length in zip(names, lengths):
        s = list(shape)
        s[axis] = length
        outs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, s))
    graph = helper.make_graph([node], "split", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, list(shape))], outs, initializer=[split])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def concat_model(shape, axis, lengths):
    names = [f"x{i}" for i in range(len(lengths))]
    node = helper.make_node("Concat", names, ["y"], axis=axis)
    ins = []
    for n, length in zip(names, lengths):
        s = list(shape)
        s[axis] = length
        ins.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, s))
    graph = helper.make_graph([node], "concat", ins, [helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, list(shape))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for letter, (shape, axis, lengths) in CASES.items():
        save(model(shape, axis, lengths), os.path.join(out, f"split_{letter}.onnx"))
        save(concat_model(shape, axis, lengths), os.path.join(out, f"concat_{letter}.onnx"))


if __name__ == "__main__":
    main()
