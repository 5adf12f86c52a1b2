"""The joining operators' test directories for make_models.py: Concat, ConcatFromSequence (fed by
SequenceConstruct or SplitToSequence) and the rules they break. Every expected output is NumPy's
(numpy.concatenate, numpy.stack, or the array a split came from), never cleave's."""

import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from make_models import (ALL_TYPES, Seq, Tensor, placeholder, reject, sample, sinfo, split_t,
                         squeeze_t, tinfo)


def parts_of(code, shape, lengths, axis):
    """Distinct inputs: one sample cut along axis, and their join per NumPy."""
    whole = list(shape)
    whole[axis] = sum(lengths)
    x = sample(code, whole)
    parts = split_t(x, lengths, axis)
    joined = np.concatenate([p.arr for p in parts], axis=axis)
    assert np.array_equal(joined.astype(object), x.arr.astype(object))
    return parts, Tensor(joined, code)


def stacked_of(code, shape, n, axis):
    """n distinct inputs of one shape, and numpy.stack of them along axis."""
    x = sample(code, [n] + list(shape))
    parts = [Tensor(x.arr[i], code) for i in range(n)]
    return parts, Tensor(np.stack([p.arr for p in parts], axis=axis), code)


def names(n, prefix="x"):
    return ["%s%d" % (prefix, i) for i in range(n)]


def write_concat(w, name, opset, parts, expected, axis=None, kind="pass", expect=None):
    attrs = {} if axis is None else {"axis": axis}
    ins = names(len(parts))
    code = parts[0].code
    return w.case(kind, name, opset, [helper.make_node("Concat", ins, ["y"], **attrs)],
                  [tinfo(n, p.code, list(p.arr.shape)) for n, p in zip(ins, parts)],
                  [tinfo("y", code)], parts, [expected], expect=expect)


def write_from_sequence(w, name, opset, parts, expected, axis=None, new_axis=None,
                        kind="pass", expect=None):
    """SequenceConstruct(x0, x1, ...) -> ConcatFromSequence."""
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if new_axis is not None:
        attrs["new_axis"] = new_axis
    ins = names(len(parts))
    code = parts[0].code
    nodes = [helper.make_node("SequenceConstruct", ins, ["seq"]),
             helper.make_node("ConcatFromSequence", ["seq"], ["y"], **attrs)]
    return w.case(kind, name, opset, nodes,
                  [tinfo(n, p.code, list(p.arr.shape)) for n, p in zip(ins, parts)],
                  [tinfo("y", code)], parts, [expected], expect=expect)


def write_round_trip(w, name, opset, x, sts_attrs, cfs_attrs, split=None):
    """SplitToSequence -> ConcatFromSequence: the output is the input."""
    node_inputs = ["x"]
    inits = []
    if split is not None:
        node_inputs.append("split")
        inits.append(("split", Tensor(np.array(split, dtype=np.int64))))
    nodes = [helper.make_node("SplitToSequence", node_inputs, ["seq"], **sts_attrs),
             helper.make_node("ConcatFromSequence", ["seq"], ["y"], **cfs_attrs)]
    return w.case("pass", name, opset, nodes, [tinfo("x", x.code, list(x.arr.shape))],
                  [tinfo("y", x.code)], [x], [x], inits=inits)


def pass_cases(w):
    # Concat-13 on every ONNX type the runner holds, three inputs (one empty) along a middle axis.
    for code in ALL_TYPES:
        parts, y = parts_of(code, [2, 0, 3], [1, 0, 2], 1)
        write_concat(w, "concat13_%s" % TP.DataType.Name(code).lower(), 13, parts, y, axis=1)
    # Each version at its opset, and opsets between them.
    parts, y = parts_of(TP.FLOAT16, [2, 0, 2], [3, 1], 1)
    write_concat(w, "concat1_f16_default_axis", 1, parts, y)  # Concat-1's default axis is 1
    parts, y = parts_of(TP.DOUBLE, [0, 3], [2, 2, 1], 0)
    write_concat(w, "concat1_f64_axis0", 3, parts, y, axis=0)
    parts, y = parts_of(TP.INT32, [2, 3, 0], [1, 4], 2)
    write_concat(w, "concat4_int32", 4, parts, y, axis=2)
    parts, y = parts_of(TP.UINT8, [3, 0], [2, 5, 1], -1)
    write_concat(w, "concat11_negative_axis", 12, parts, y, axis=-1)
    parts, y = parts_of(TP.BFLOAT16, [0, 2], [3, 1], 0)
    write_concat(w, "concat13_bf16_axis0", 13, parts, y, axis=0)
    parts, y = parts_of(TP.INT64, [4], [4], 0)
    write_concat(w, "concat13_one_input", 21, parts, y, axis=0)
    parts, y = parts_of(TP.FLOAT, [2, 3], [0, 0], 0)
    write_concat(w, "concat13_all_empty", 13, parts, y, axis=0)

    # ConcatFromSequence on a SequenceConstruct: new_axis 0 (absent and given) and 1.
    parts, y = parts_of(TP.FLOAT, [2, 0, 4], [3, 3, 3], 1)
    write_from_sequence(w, "cfs11_new_axis_absent", 11, parts, y, axis=1)
    parts, y = parts_of(TP.INT16, [0, 3], [1, 2], 0)
    write_from_sequence(w, "cfs11_new_axis_0", 11, parts, y, axis=-2, new_axis=0)
    for axis in (0, 1, 2, -1, -3):
        parts, y = stacked_of(TP.FLOAT, [2, 3], 3, axis)
        write_from_sequence(w, "cfs11_new_axis_1_axis_%s" % str(axis).replace("-", "m"), 11,
                            parts, y, axis=axis, new_axis=1)
    parts, y = stacked_of(TP.STRING, [3], 2, 1)
    write_from_sequence(w, "cfs11_stack_strings", 13, parts, y, axis=1, new_axis=1)
    parts, y = parts_of(TP.STRING, [0, 2], [1, 2], 0)
    write_from_sequence(w, "cfs11_strings", 11, parts, y, axis=0)
    parts, y = stacked_of(TP.INT8, [], 4, 0)  # scalars stacked into a vector
    write_from_sequence(w, "cfs11_stack_scalars", 11, parts, y, axis=0, new_axis=1)

    # SplitToSequence -> ConcatFromSequence gives the input back.
    x = sample(TP.FLOAT, [3, 5])
    write_round_trip(w, "sts_cfs_lengths", 11, x, {"axis": 1}, {"axis": 1}, split=[2, 0, 3])
    write_round_trip(w, "sts_cfs_scalar_split", 24, sample(TP.INT64, [7, 2]), {"axis": 0},
                     {"axis": 0}, split=3)
    write_round_trip(w, "sts_cfs_keepdims0_new_axis_1", 11, sample(TP.DOUBLE, [2, 3, 4]),
                     {"axis": -2, "keepdims": 0}, {"axis": -2, "new_axis": 1})
    write_round_trip(w, "sts_cfs_every_index", 11, sample(TP.STRING, [4, 2]), {"axis": 1},
                     {"axis": 1})
    # The sequence's tensors, stacked: keepdims 0 then new_axis 1 at another axis is a transpose.
    x = sample(TP.FLOAT, [2, 3])
    items = squeeze_t(x, 1)
    y = Tensor(np.stack([t.arr for t in items], axis=0), TP.FLOAT)
    nodes = [helper.make_node("SplitToSequence", ["x"], ["seq"], axis=1, keepdims=0),
             helper.make_node("ConcatFromSequence", ["seq"], ["y"], axis=0, new_axis=1)]
    w.case("pass", "sts_cfs_transpose", 11, nodes, [tinfo("x", TP.FLOAT, [2, 3])],
           [tinfo("y", TP.FLOAT)], [x], [y])


def reject_cases(w):
    ph = placeholder(TP.FLOAT)
    a, b = sample(TP.FLOAT, [2, 3]), sample(TP.FLOAT, [3, 3])
    # Operator rules (docs/operators.md section 8): FAIL (1) with the library's message, which
    # names the input and the dimension.
    write_concat(w, "concat13_dims_differ", 13, [a, b], ph, axis=1, kind="expect",
                 expect=(1, "Concat-13", "inputs[1].shape[0] is 3", "inputs[0].shape[0] is 2"))
    write_concat(w, "concat13_ranks_differ", 13, [a, sample(TP.FLOAT, [6])], ph, axis=0,
                 kind="expect", expect=(1, "Concat-13", "inputs[1]", "rank"))
    write_concat(w, "concat13_axis_out_of_range", 13, [a, a], ph, axis=2, kind="expect",
                 expect=(1, "Concat-13", "axis 2"))
    write_concat(w, "concat4_negative_axis", 4, [a, a], ph, axis=-1, kind="expect",
                 expect=(1, "Concat-4", "-1"))
    write_concat(w, "concat1_int32_refused", 1, [sample(TP.INT32, [2, 2])] * 2,
                 placeholder(TP.INT32), kind="expect", expect=(1, "Concat-1", "i32"))
    write_concat(w, "concat13_types_differ", 13, [a, sample(TP.DOUBLE, [2, 3])], ph, axis=0,
                 kind="expect", expect=(1, "Concat-13", "inputs[1]"))
    write_from_sequence(w, "cfs11_stack_shapes_differ", 11, [a, b], ph, axis=0, new_axis=1,
                        kind="expect", expect=(1, "ConcatFromSequence-11", "inputs[1]"))
    write_from_sequence(w, "cfs11_new_axis_2", 11, [a, a], ph, axis=0, new_axis=2,
                        kind="expect", expect=(1, "ConcatFromSequence-11", "new_axis", "2"))
    write_from_sequence(w, "cfs11_stack_axis_out_of_range", 11, [a, a], ph, axis=3, new_axis=1,
                        kind="expect", expect=(1, "ConcatFromSequence-11", "axis 3"))
    write_from_sequence(w, "cfs11_no_axis", 11, [a, a], ph, kind="expect",
                        expect=(65, "malformed model", "ConcatFromSequence", "'axis'"))
    # A sequence fed as a graph input, at an opset before ConcatFromSequence.
    reject(w, "cfs_opset10", 10, [helper.make_node("ConcatFromSequence", ["seq"], ["y"], axis=0)],
           [sinfo("seq", TP.FLOAT)], [tinfo("y", TP.FLOAT)], [Seq([a, a], TP.FLOAT)], [ph],
           (1, "ConcatFromSequence at opset 10", "opset 11 or later"))
    write_from_sequence(w, "sequence_construct_types_differ", 11,
                        [a, sample(TP.INT32, [2, 3])], ph, axis=0, kind="expect",
                        expect=(1, "SequenceConstruct", "inputs[1] is INT32",
                                "inputs[0] is FLOAT"))
    # An empty sequence (SplitToSequence of an empty axis) has nothing to join.
    nodes = [helper.make_node("SplitToSequence", ["x"], ["seq"], axis=0),
             helper.make_node("ConcatFromSequence", ["seq"], ["y"], axis=0)]
    reject(w, "cfs11_empty_sequence", 11, nodes, [tinfo("x", TP.FLOAT, [0, 2])],
           [tinfo("y", TP.FLOAT)], [sample(TP.FLOAT, [0, 2])], [ph],
           (1, "ConcatFromSequence-11", "at least one"))
    # A sequence where a tensor is wanted, and the reverse.
    nodes = [helper.make_node("SequenceConstruct", ["x0"], ["seq"]),
             helper.make_node("Concat", ["seq"], ["y"], axis=0)]
    reject(w, "concat_of_a_sequence", 13, nodes, [tinfo("x0", TP.FLOAT, [2, 3])],
           [tinfo("y", TP.FLOAT)], [a], [ph], (65, "malformed model", "sequence, not a tensor"))
    reject(w, "cfs_of_a_tensor", 11,
           [helper.make_node("ConcatFromSequence", ["x0"], ["y"], axis=0)],
           [tinfo("x0", TP.FLOAT, [2, 3])], [tinfo("y", TP.FLOAT)], [a], [ph],
           (65, "malformed model", "tensor, not a sequence"))
