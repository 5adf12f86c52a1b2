#!/usr/bin/python3
"""Writes ONNX backend test directories for `cleave onnx-test`, filling the upstream suite's gaps.

Usage: /usr/bin/python3 make_models.py OUT_DIR

Needs Debian's python3-onnx and python3-numpy. Every expected output is computed here with NumPy
slicing (never by cleave); concat_models.py adds the joining operators' cases. Writes:
  OUT_DIR/pass/<test>/    model.onnx + test_data_set_*/: cleave onnx-test must print PASS.
  OUT_DIR/expect/<test>/  the same layout plus expect.txt: models that must be rejected, and
                          malformed files. expect.txt holds `status N` (the exit status) and
                          `contains TEXT` lines, each TEXT a piece the FAIL line must contain.
"""

import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper

# ONNX data type codes and the NumPy dtype a test array of that type uses. bfloat16 arrays hold
# the raw bit patterns (uint16); strings are object arrays of bytes.
NP_OF = {
    TP.FLOAT: np.float32,
    TP.UINT8: np.uint8,
    TP.INT8: np.int8,
    TP.UINT16: np.uint16,
    TP.INT16: np.int16,
    TP.INT32: np.int32,
    TP.INT64: np.int64,
    TP.STRING: object,
    TP.BOOL: np.bool_,
    TP.FLOAT16: np.float16,
    TP.DOUBLE: np.float64,
    TP.UINT32: np.uint32,
    TP.UINT64: np.uint64,
    TP.COMPLEX64: np.complex64,
    TP.COMPLEX128: np.complex128,
    TP.BFLOAT16: np.uint16,
}
ALL_TYPES = list(NP_OF)
CODE_OF = {np.dtype(np.float32): TP.FLOAT, np.dtype(np.float64): TP.DOUBLE,
           np.dtype(np.int8): TP.INT8, np.dtype(np.int16): TP.INT16,
           np.dtype(np.int32): TP.INT32, np.dtype(np.int64): TP.INT64,
           np.dtype(np.uint8): TP.UINT8, np.dtype(np.uint16): TP.UINT16,
           np.dtype(np.uint32): TP.UINT32, np.dtype(np.uint64): TP.UINT64,
           np.dtype(np.bool_): TP.BOOL, np.dtype(np.float16): TP.FLOAT16,
           np.dtype(np.complex64): TP.COMPLEX64, np.dtype(np.complex128): TP.COMPLEX128,
           np.dtype(object): TP.STRING}


class Tensor:
    """A test tensor: a NumPy array and its ONNX type code."""

    def __init__(self, arr, code=None):
        self.arr = np.asarray(arr) if code != TP.STRING else np.asarray(arr, dtype=object)
        self.code = code if code is not None else CODE_OF[self.arr.dtype]


class Seq:
    """A test sequence of tensors of one ONNX type."""

    def __init__(self, items, code):
        self.items = list(items)
        self.code = code


def sample(code, shape):
    """Distinct, type-typical values, so that a misplaced element shows."""
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n)
    if code == TP.STRING:
        words = [b"", b"a", b"bc", "\u00e9t\u00e9".encode(), b"x" * 40, b"with space"]
        vals = [words[k % len(words)] + str(k).encode() if k % len(words) else b""
                for k in range(n)]
        return Tensor(np.array(vals, dtype=object).reshape(shape), code)
    if code == TP.BOOL:
        return Tensor(((i % 3) == 1).reshape(shape), code)
    if code == TP.BFLOAT16:
        return Tensor((0x3F80 + 7 * i).astype(np.uint16).reshape(shape), code)
    if code in (TP.FLOAT, TP.DOUBLE, TP.FLOAT16):
        v = ((i - n / 2) * 0.75).astype(NP_OF[code])
        if n > 1:
            v[1] = -0.0
        return Tensor(v.reshape(shape), code)
    if code in (TP.COMPLEX64, TP.COMPLEX128):
        return Tensor((i + 1j * (100 - 2 * i)).astype(NP_OF[code]).reshape(shape), code)
    dt = np.dtype(NP_OF[code])
    info = np.iinfo(dt)
    # Spread the values over the type's range, large magnitudes included.
    v = [(info.max - 3 * k) if k % 2 else (info.min + 5 * k) for k in range(n)]
    return Tensor(np.array(v, dtype=object).astype(dt).reshape(shape), code)


def tensor_proto(name, t, encoding):
    """A TensorProto for t, with raw_data (encoding 'raw') or the typed field ('typed')."""
    tp = TP()
    tp.name = name
    tp.data_type = t.code
    tp.dims.extend(t.arr.shape)
    flat = t.arr.reshape(-1)
    if t.code == TP.STRING:
        tp.string_data.extend(list(flat))
    elif encoding == "raw":
        if t.code == TP.BOOL:
            tp.raw_data = flat.astype(np.uint8).tobytes()
        else:
            tp.raw_data = flat.astype(flat.dtype.newbyteorder("<")).tobytes()
    elif t.code == TP.FLOAT:
        tp.float_data.extend(flat.tolist())
    elif t.code == TP.DOUBLE:
        tp.double_data.extend(flat.tolist())
    elif t.code in (TP.COMPLEX64, TP.COMPLEX128):
        pairs = np.stack([flat.real, flat.imag], axis=-1).reshape(-1).tolist()
        (tp.float_data if t.code == TP.COMPLEX64 else tp.double_data).extend(pairs)
    elif t.code == TP.INT64:
        tp.int64_data.extend(flat.tolist())
    elif t.code in (TP.UINT32, TP.UINT64):
        tp.uint64_data.extend(int(x) for x in flat)
    elif t.code == TP.FLOAT16:
        tp.int32_data.extend(flat.view(np.uint16).astype(np.int32).tolist())
    else:  # int8/16/32, uint8/16, bool, bfloat16 bits
        tp.int32_data.extend(flat.astype(np.int32).tolist())
    return tp


def value_proto(name, v, encoding):
    if isinstance(v, Seq):
        sp = onnx.SequenceProto()
        sp.name = name
        sp.elem_type = onnx.SequenceProto.TENSOR
        sp.tensor_values.extend(tensor_proto("", t, encoding) for t in v.items)
        return sp
    return tensor_proto(name, v, encoding)


def tinfo(name, code, shape=None):
    return helper.make_tensor_value_info(name, code, shape)


def sinfo(name, code):
    return helper.make_tensor_sequence_value_info(name, code, None)


def split_np(arr, lengths, axis):
    """NumPy's own slicing of arr into pieces of the given lengths along axis."""
    cuts = np.cumsum(lengths)[:-1] if len(lengths) else []
    parts = np.split(arr, cuts, axis=axis)
    return parts if len(lengths) else []


def split_t(t, lengths, axis):
    return [Tensor(p, t.code) for p in split_np(t.arr, lengths, axis)]


def squeeze_t(t, axis):
    """Every index of axis, the axis removed (SplitToSequence keepdims=0 without split)."""
    return [Tensor(np.take(t.arr, k, axis=axis), t.code) for k in range(t.arr.shape[axis])]


def scalar_lengths(d, s):
    return [s] * (d // s) + ([d % s] if d % s else [])


def uneven_lengths(d, n):
    c = -(-d // n)
    return [c] * (n - 1) + [d - c * (n - 1)]


class Writer:
    def __init__(self, out):
        self.out = out
        self.count = {"pass": 0, "expect": 0}

    def case(self, kind, name, opset, nodes, inputs, outputs, feeds, expected, inits=(),
             encoding="raw", expect=None, data_sets=None):
        """Writes one test directory. feeds/expected: the values of the non-initializer graph
        inputs and of the graph outputs (data_sets: several (feeds, expected) pairs)."""
        d = os.path.join(self.out, kind, name)
        os.makedirs(d)
        graph = helper.make_graph(nodes, name, inputs, outputs,
                                  initializer=[tensor_proto(n, t, "raw") for n, t in inits])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="cleave-tests")
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())
        init_names = {n for n, _ in inits}
        fed = [i.name for i in inputs if i.name not in init_names]
        for k, (fs, ex) in enumerate(data_sets or [(feeds, expected)]):
            s = os.path.join(d, "test_data_set_%d" % k)
            os.makedirs(s)
            assert len(fs) == len(fed) and len(ex) == len(outputs), name
            for j, v in enumerate(fs):
                with open(os.path.join(s, "input_%d.pb" % j), "wb") as f:
                    f.write(value_proto(fed[j], v, encoding).SerializeToString())
            for j, v in enumerate(ex):
                with open(os.path.join(s, "output_%d.pb" % j), "wb") as f:
                    f.write(value_proto(outputs[j].name, v, encoding).SerializeToString())
        if expect is not None:
            with open(os.path.join(d, "expect.txt"), "w") as f:
                f.write("status %d\n" % expect[0])
                for text in expect[1:]:
                    f.write("contains %s\n" % text)
        self.count[kind] += 1
        return d


def split_node(inputs, outputs, **attrs):
    return helper.make_node("Split", inputs, outputs, **attrs)


def sts_node(inputs, output="seq", **attrs):
    return helper.make_node("SplitToSequence", inputs, [output], **attrs)


def outs(n, prefix="y"):
    return ["%s%d" % (prefix, i) for i in range(n)]


def write_split(w, name, opset, x, lengths, axis, *, attr_split=False, split_from=None,
                num_outputs=None, give_axis=True, encoding="raw", split_dtype=np.int64,
                node_outputs=None):
    """A single Split node on graph input x. split_from: 'input', 'initializer', 'constant',
    'constant_ints' or None. split_dtype: the split tensor's type (Split-1's input has the
    data's type T). node_outputs: the node's output names, when not one per length; an empty
    name omits that output, and only the listed, named outputs are graph outputs."""
    r = x.arr.ndim
    expected = split_t(x, lengths, axis)
    names = outs(len(expected))
    if node_outputs is not None:
        expected = [e for e, n in zip(expected, node_outputs) if n]
        names, node_names = [n for n in node_outputs if n], node_outputs
    else:
        node_names = names
    attrs = {}
    if give_axis:
        attrs["axis"] = axis
    if attr_split:
        attrs["split"] = list(lengths)
    if num_outputs is not None:
        attrs["num_outputs"] = num_outputs
    nodes, inputs, feeds, inits = [], [tinfo("x", x.code, list(x.arr.shape))], [x], []
    split_t_ = Tensor(np.array(lengths, dtype=split_dtype))
    node_inputs = ["x"]
    if split_from == "input":
        inputs.append(tinfo("split", split_t_.code, [len(lengths)]))
        feeds.append(split_t_)
        node_inputs.append("split")
    elif split_from == "initializer":
        inits.append(("split", split_t_))
        node_inputs.append("split")
    elif split_from == "constant":
        nodes.append(helper.make_node("Constant", [], ["split"],
                                      value=tensor_proto("c", split_t_, "typed")))
        node_inputs.append("split")
    elif split_from == "constant_ints":
        nodes.append(helper.make_node("Constant", [], ["split"], value_ints=list(lengths)))
        node_inputs.append("split")
    nodes.append(split_node(node_inputs, node_names, **attrs))
    outputs = [tinfo(n, x.code, list(e.arr.shape)) for n, e in zip(names, expected)]
    assert r >= 1
    return w.case("pass", name, opset, nodes, inputs, outputs, feeds, expected, inits=inits,
                  encoding=encoding)


def write_sts(w, name, opset, x, expected, *, split=None, split_from="input", axis=None,
              keepdims=None, encoding="raw", kind="pass", expect=None):
    attrs = {}
    if axis is not None:
        attrs["axis"] = axis
    if keepdims is not None:
        attrs["keepdims"] = keepdims
    inputs, feeds, inits, nodes = [tinfo("x", x.code, list(x.arr.shape))], [x], [], []
    node_inputs = ["x"]
    if split is not None:
        node_inputs.append("split")
        if split_from == "input":
            inputs.append(tinfo("split", split.code, list(split.arr.shape)))
            feeds.append(split)
        else:
            inits.append(("split", split))
    nodes.append(sts_node(node_inputs, **attrs))
    outputs = [sinfo("seq", x.code)]
    return w.case(kind, name, opset, nodes, inputs, outputs, feeds, [Seq(expected, x.code)],
                  inits=inits, encoding=encoding, expect=expect)


def pass_cases(w):
    f32 = lambda shape: sample(TP.FLOAT, shape)  # noqa: E731

    # Split at every operator version, and opsets between them.
    write_split(w, "split1_f16_split_attribute", 1, sample(TP.FLOAT16, [2, 4]), [1, 3], 1,
                attr_split=True)
    # Split-1's split input has the data's type T, with whole-number values (docs/operators.md section 5).
    write_split(w, "split1_f64_split_input", 1, sample(TP.DOUBLE, [3, 2]), [2, 1], 0,
                split_from="initializer", split_dtype=np.float64)
    write_split(w, "split1_f16_split_input_fed", 1, sample(TP.FLOAT16, [2, 5]), [0, 2, 3], 1,
                split_from="input", split_dtype=np.float16)
    write_split(w, "split1_f32_split_input_constant", 1, sample(TP.FLOAT, [4, 2]), [3, 1], 0,
                split_from="constant", split_dtype=np.float32)
    # Split-18 may list fewer outputs than num_outputs; empty output names are omitted.
    write_split(w, "split18_fewer_outputs_than_num_outputs", 18, sample(TP.INT32, [7, 2]),
                uneven_lengths(7, 3), 0, num_outputs=3, node_outputs=["y0", "y1"])
    write_split(w, "split18_one_of_four_outputs", 18, sample(TP.FLOAT, [6, 3]),
                uneven_lengths(6, 4), 0, num_outputs=4, node_outputs=["y0"])
    write_split(w, "split18_empty_output_names", 18, sample(TP.UINT8, [2, 9]),
                uneven_lengths(9, 3), 1, num_outputs=3, node_outputs=["", "y1", ""])
    write_split(w, "split13_empty_output_name", 13, sample(TP.INT64, [6]), [1, 2, 3], 0,
                split_from="initializer", node_outputs=["y0", "", "y2"])
    write_split(w, "split2_empty_output_name_equal_parts", 2, sample(TP.FLOAT, [4, 2]), [2, 2],
                0, node_outputs=["", "y1"])
    write_split(w, "split1_empty_output_name", 1, sample(TP.DOUBLE, [3]), [1, 1, 1], 0,
                node_outputs=["y0", "y1", ""])
    write_split(w, "split2_u8_equal_parts", 2, sample(TP.UINT8, [4, 3]), [2, 2], 0)
    write_split(w, "split11_negative_axis_zero_length", 11, sample(TP.INT16, [2, 3]), [2, 0, 1],
                -1, attr_split=True)
    write_split(w, "split12_runs_split11", 12, sample(TP.INT32, [3, 2]), [1, 2], -2,
                attr_split=True)
    write_split(w, "split13_rank4_initializer", 13, f32([2, 3, 4, 5]), [1, 1, 2], 2,
                split_from="initializer")
    write_split(w, "split13_constant_tensor", 13, sample(TP.INT64, [4, 2]), [3, 1], 0,
                split_from="constant")
    write_split(w, "split13_constant_value_ints_bool", 13, sample(TP.BOOL, [4, 2, 2]),
                [1, 1, 1, 1], 0, split_from="constant_ints")
    write_split(w, "split13_string_split_input", 13, sample(TP.STRING, [2, 5]), [2, 3], 1,
                split_from="input")
    write_split(w, "split17_zero_size_data", 17, f32([0, 4]), [1, 3], 1, split_from="input")
    write_split(w, "split13_default_axis_rank3", 13, sample(TP.UINT32, [4, 2, 3]), [2, 2], 0,
                give_axis=False)
    write_split(w, "split18_int64_uneven", 18, sample(TP.INT64, [7, 2]), uneven_lengths(7, 3), 0,
                num_outputs=3)
    write_split(w, "split18_last_output_empty", 18, sample(TP.INT8, [6]), uneven_lengths(6, 4),
                0, num_outputs=4)
    write_split(w, "split18_negative_axis_rank3", 18, sample(TP.UINT16, [2, 3, 6]), [3, 3], -1,
                num_outputs=2)
    write_split(w, "split18_zero_lengths", 18, sample(TP.DOUBLE, [5]), [0, 5, 0], 0,
                split_from="input")
    write_split(w, "split18_zero_size_axis", 18, sample(TP.FLOAT16, [3, 0]), [0, 0], 1,
                num_outputs=2)
    write_split(w, "split24_runs_split18", 24, sample(TP.BFLOAT16, [4, 3]), [1, 3], 0,
                split_from="constant")

    # Every ONNX Split type at Split-13 and SplitToSequence-24, with raw_data and typed fields.
    for code in ALL_TYPES:
        tname = TP.DataType.Name(code).lower()
        for enc in ("raw", "typed"):
            if code == TP.STRING and enc == "raw":
                continue  # strings only have string_data
            x = sample(code, [3, 4])
            write_split(w, "types_split13_%s_%s" % (tname, enc), 13, x, [1, 3], -1,
                        split_from="initializer", encoding=enc)
            write_sts(w, "types_sts24_%s_%s" % (tname, enc), 24, x, split_t(x, [1, 1, 1], 0),
                      encoding=enc)

    # SplitToSequence.
    x = sample(TP.INT64, [6, 2])
    write_sts(w, "sts11_int32_split_list", 11, x, split_t(x, [1, 2, 3], 0),
              split=Tensor(np.array([1, 2, 3], dtype=np.int32)), axis=0)
    x = sample(TP.FLOAT, [5, 3])
    write_sts(w, "sts11_int32_scalar_split_remainder", 11, x,
              split_t(x, scalar_lengths(5, 2), 0), split=Tensor(np.array(2, dtype=np.int32)))
    x = sample(TP.DOUBLE, [3, 10])
    write_sts(w, "sts11_scalar_split_keepdims0_ignored", 11, x,
              split_t(x, scalar_lengths(10, 4), 1), split=Tensor(np.array(4, dtype=np.int64)),
              axis=1, keepdims=0)
    x = sample(TP.INT8, [2, 3, 4])
    write_sts(w, "sts11_keepdims0_negative_axis_rank3", 11, x, squeeze_t(x, 1), axis=-2,
              keepdims=0)
    x = sample(TP.UINT64, [2, 2, 3, 2])
    write_sts(w, "sts24_keepdims1_rank4_no_split", 24, x, split_t(x, [1, 1, 1], 2), axis=2)
    x = sample(TP.BOOL, [2, 5])
    write_sts(w, "sts11_keepdims0_list_split_ignored", 11, x, split_t(x, [4, 1], 1),
              split=Tensor(np.array([4, 1], dtype=np.int64)), split_from="initializer", axis=1,
              keepdims=0)
    x = sample(TP.FLOAT16, [3, 2])
    write_sts(w, "sts11_zero_lengths", 11, x, split_t(x, [0, 3, 0], 0),
              split=Tensor(np.array([0, 3, 0], dtype=np.int32)))
    x = sample(TP.STRING, [4, 3])
    write_sts(w, "sts24_string_scalar_split", 24, x, split_t(x, scalar_lengths(3, 2), -1),
              split=Tensor(np.array(2, dtype=np.int64)), axis=-1)
    x = sample(TP.BFLOAT16, [4, 2])
    write_sts(w, "sts24_bfloat16_scalar_split", 24, x, split_t(x, scalar_lengths(4, 3), 0),
              split=Tensor(np.array(3, dtype=np.int32)))
    x = sample(TP.INT32, [5, 0])
    write_sts(w, "sts11_zero_size_element_dims", 11, x, split_t(x, [2, 3], 0),
              split=Tensor(np.array([2, 3], dtype=np.int64)))

    # An empty sequence, and its length.
    x = sample(TP.FLOAT, [0, 3])
    w.case("pass", "sts11_empty_sequence", 11,
           [sts_node(["x"]), helper.make_node("SequenceLength", ["seq"], ["len"])],
           [tinfo("x", TP.FLOAT, [0, 3])], [sinfo("seq", TP.FLOAT), tinfo("len", TP.INT64, [])],
           [x], [Seq([], TP.FLOAT), Tensor(np.array(0, dtype=np.int64))])
    x = sample(TP.INT16, [0])
    w.case("pass", "sts24_scalar_split_on_empty_axis", 24,
           [sts_node(["x", "s"]), helper.make_node("SequenceLength", ["seq"], ["len"])],
           [tinfo("x", TP.INT16, [0]), tinfo("s", TP.INT64, [])], [sinfo("seq", TP.INT16),
                                                                  tinfo("len", TP.INT64, [])],
           [x, Tensor(np.array(5, dtype=np.int64))],
           [Seq([], TP.INT16), Tensor(np.array(0, dtype=np.int64))])

    # SequenceAt with a negative int32 position from a Constant, and SequenceLength.
    x = sample(TP.UINT8, [3, 4])
    pos = Tensor(np.array(-1, dtype=np.int32))
    w.case("pass", "sequence_at_negative_position", 11,
           [helper.make_node("Constant", [], ["p"], value=tensor_proto("p", pos, "typed")),
            sts_node(["x"], axis=1, keepdims=0),
            helper.make_node("SequenceAt", ["seq", "p"], ["last"]),
            helper.make_node("SequenceLength", ["seq"], ["len"])],
           [tinfo("x", TP.UINT8, [3, 4])],
           [tinfo("last", TP.UINT8, [3]), tinfo("len", TP.INT64, [])],
           [x], [Tensor(x.arr[:, -1]), Tensor(np.array(4, dtype=np.int64))])

    # A sequence fed as a graph input.
    items = [sample(TP.INT32, [2, k]) for k in (1, 0, 3)]
    w.case("pass", "sequence_graph_input", 11,
           [helper.make_node("SequenceAt", ["s", "p"], ["t"]),
            helper.make_node("SequenceLength", ["s"], ["len"])],
           [sinfo("s", TP.INT32), tinfo("p", TP.INT64, [])],
           [tinfo("t", TP.INT32, None), tinfo("len", TP.INT64, [])],
           [Seq(items, TP.INT32), Tensor(np.array(2, dtype=np.int64))],
           [items[2], Tensor(np.array(3, dtype=np.int64))])

    # A chain: SplitToSequence, SequenceAt, then Split of that element.
    x = sample(TP.FLOAT, [2, 6])
    row = x.arr[1]
    w.case("pass", "chain_sequence_at_then_split", 13,
           [sts_node(["x"], axis=0, keepdims=0),
            helper.make_node("SequenceAt", ["seq", "p"], ["row"]),
            split_node(["row", "split"], ["a", "b"], axis=0)],
           [tinfo("x", TP.FLOAT, [2, 6])], [tinfo("a", TP.FLOAT, [4]), tinfo("b", TP.FLOAT, [2])],
           [x], [Tensor(row[:4]), Tensor(row[4:])],
           inits=[("p", Tensor(np.array(1, dtype=np.int64))),
                  ("split", Tensor(np.array([4, 2], dtype=np.int64)))])

    # Several data sets with different shapes for one model.
    sets = []
    for d in (4, 6, 0):
        x = sample(TP.INT64, [d, 2])
        sets.append(([x], split_t(x, [d // 2, d // 2], 0)))
    w.case("pass", "split18_several_data_sets", 18,
           [split_node(["x"], ["y0", "y1"], num_outputs=2)], [tinfo("x", TP.INT64, None)],
           [tinfo("y0", TP.INT64, None), tinfo("y1", TP.INT64, None)], None, None,
           data_sets=sets)


def reject(w, name, opset, nodes, inputs, outputs, feeds, expected, expect, inits=(),
           encoding="raw"):
    return w.case("expect", name, opset, nodes, inputs, outputs, feeds, expected, inits=inits,
                  encoding=encoding, expect=expect)


def placeholder(code):
    """An expected output for a test that must fail before any comparison."""
    return sample(code, [0])


def reject_cases(w):
    x6 = sample(TP.FLOAT, [6])
    ph = placeholder(TP.FLOAT)

    # Operator rules (docs/operators.md sections 4 and 5): a FAIL line naming the rule.
    reject(w, "split13_sum_mismatch", 13, [split_node(["x", "split"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "Split-13", "invalid split", "split", "5", "6"),
           inits=[("split", Tensor(np.array([2, 3], dtype=np.int64)))])
    reject(w, "sts11_scalar_split_zero", 11, [sts_node(["x", "s"])],
           [tinfo("x", TP.FLOAT, [6]), tinfo("s", TP.INT64, [])], [sinfo("seq", TP.FLOAT)],
           [x6, Tensor(np.array(0, dtype=np.int64))], [Seq([], TP.FLOAT)],
           (1, "SplitToSequence-11", "invalid split", "split", "0"))
    reject(w, "split18_axis_out_of_range", 18,
           [split_node(["x"], ["a", "b"], axis=2, num_outputs=2)],
           [tinfo("x", TP.FLOAT, [2, 6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [sample(TP.FLOAT, [2, 6])], [ph, ph], (1, "Split-18", "invalid axis", "axis", "2"))
    reject(w, "sts24_negative_axis_out_of_range", 24, [sts_node(["x"], axis=-3)],
           [tinfo("x", TP.FLOAT, [2, 6])], [sinfo("seq", TP.FLOAT)],
           [sample(TP.FLOAT, [2, 6])], [Seq([], TP.FLOAT)],
           (1, "SplitToSequence-24", "invalid axis", "axis", "-3"))
    reject(w, "split18_split_and_num_outputs", 18,
           [split_node(["x", "split"], ["a", "b"], num_outputs=2)],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "Split-18", "invalid split", "num_outputs", "split"),
           inits=[("split", Tensor(np.array([3, 3], dtype=np.int64)))])
    reject(w, "split18_neither_split_nor_num_outputs", 18, [split_node(["x"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "Split-18", "invalid split", "num_outputs"))
    reject(w, "split18_num_outputs_negative_last", 18,
           [split_node(["x"], outs(4), num_outputs=4)],
           [tinfo("x", TP.FLOAT, [5])], [tinfo(n, TP.FLOAT) for n in outs(4)],
           [sample(TP.FLOAT, [5])], [ph] * 4, (1, "Split-18", "invalid split", "4", "5"))
    reject(w, "split13_unequal_parts", 13, [split_node(["x"], outs(3))],
           [tinfo("x", TP.FLOAT, [7])], [tinfo(n, TP.FLOAT) for n in outs(3)],
           [sample(TP.FLOAT, [7])], [ph] * 3, (1, "Split-13", "invalid split", "7", "3"))
    reject(w, "split13_split_count_mismatch", 13, [split_node(["x", "split"], outs(3))],
           [tinfo("x", TP.FLOAT, [6])], [tinfo(n, TP.FLOAT) for n in outs(3)],
           [x6], [ph] * 3, (1, "Split-13", "invalid split", "2", "3"),
           inits=[("split", Tensor(np.array([2, 4], dtype=np.int64)))])
    reject(w, "split11_negative_length", 11, [split_node(["x"], ["a", "b"], split=[-1, 7])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "Split-11", "invalid split", "-1"))
    reject(w, "sts11_split_rank2", 11, [sts_node(["x", "s"])],
           [tinfo("x", TP.FLOAT, [6]), tinfo("s", TP.INT64, [1, 2])], [sinfo("seq", TP.FLOAT)],
           [x6, Tensor(np.array([[3, 3]], dtype=np.int64))], [Seq([], TP.FLOAT)],
           (1, "SplitToSequence-11", "invalid split", "rank", "2"))
    reject(w, "sts11_empty_split_list", 11, [sts_node(["x", "s"])],
           [tinfo("x", TP.FLOAT, [0]), tinfo("s", TP.INT64, [0])], [sinfo("seq", TP.FLOAT)],
           [sample(TP.FLOAT, [0]), Tensor(np.zeros([0], dtype=np.int64))], [Seq([], TP.FLOAT)],
           (1, "SplitToSequence-11", "invalid split", "split"))
    reject(w, "sts11_keepdims_2", 11, [sts_node(["x"], keepdims=2)],
           [tinfo("x", TP.FLOAT, [6])], [sinfo("seq", TP.FLOAT)], [x6], [Seq([], TP.FLOAT)],
           (1, "SplitToSequence-11", "invalid attribute", "keepdims", "2"))
    bf = sample(TP.BFLOAT16, [4])
    reject(w, "sts11_bfloat16", 11, [sts_node(["x"])], [tinfo("x", TP.BFLOAT16, [4])],
           [sinfo("seq", TP.BFLOAT16)], [bf], [Seq([], TP.BFLOAT16)],
           (1, "SplitToSequence-11", "unsupported type", "bf16"))
    reject(w, "split1_int32_data", 1, [split_node(["x"], ["a", "b"])],
           [tinfo("x", TP.INT32, [6])], [tinfo("a", TP.INT32), tinfo("b", TP.INT32)],
           [sample(TP.INT32, [6])], [placeholder(TP.INT32)] * 2,
           (1, "Split-1", "unsupported type", "i32"))
    reject(w, "split1_int64_split_input", 1, [split_node(["x", "split"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "Split-1", "invalid split", "data's type T", "got i64"),
           inits=[("split", Tensor(np.array([3, 3], dtype=np.int64)))])
    reject(w, "split1_split_input_not_whole", 1, [split_node(["x", "split"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "Split-1", "invalid split", "split[0]", "2.5", "whole number"),
           inits=[("split", Tensor(np.array([2.5, 3.5], dtype=np.float32)))])
    reject(w, "split1_split_input_other_float_type", 1, [split_node(["x", "split"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "ONNX Split-1", "invalid split", "data's type T", "got f64"),
           inits=[("split", Tensor(np.array([3, 3], dtype=np.float64)))])
    reject(w, "split18_more_outputs_than_num_outputs", 18,
           [split_node(["x"], outs(3), num_outputs=2)],
           [tinfo("x", TP.FLOAT, [6])], [tinfo(n, TP.FLOAT) for n in outs(3)],
           [x6], [ph] * 3, (1, "Split-18", "invalid split", "lists 3 outputs",
                            "num_outputs is 2"))
    reject(w, "split13_int32_split_input", 13, [split_node(["x", "split"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [6]), tinfo("split", TP.INT32, [2])],
           [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6, Tensor(np.array([3, 3], dtype=np.int32))], [ph, ph],
           (1, "Split-13", "invalid split", "i32"))
    reject(w, "sts_opset10_below_first_version", 10, [sts_node(["x"])],
           [tinfo("x", TP.FLOAT, [6])], [sinfo("seq", TP.FLOAT)], [x6], [Seq([], TP.FLOAT)],
           (1, "SplitToSequence", "unsupported version", "10"))
    # 8-bit floats are not ONNX Split types (docs/operators.md section 5); packed sub-byte types
    # cannot even be held. Their bytes are given raw.
    f8 = Tensor(np.arange(6, dtype=np.uint8), 17)  # FLOAT8E4M3FN
    reject(w, "split13_float8_data", 13, [split_node(["x"], ["a", "b"])],
           [tinfo("x", 17, [6])], [tinfo("a", 17), tinfo("b", 17)],
           [f8], split_t(f8, [3, 3], 0), (1, "Split-13", "unsupported type", "f8e4m3"))
    i4 = Tensor(np.arange(3, dtype=np.uint8), 22)  # INT4, two per byte
    reject(w, "split13_int4_data", 13, [split_node(["x"], ["a", "b"])],
           [tinfo("x", 22, [3])], [tinfo("a", 22), tinfo("b", 22)],
           [i4], [i4, i4], (1, "INT4", "not supported"))
    seq_x = sample(TP.FLOAT, [3, 2])
    reject(w, "sequence_at_out_of_range", 11,
           [sts_node(["x"]), helper.make_node("SequenceAt", ["seq", "p"], ["t"])],
           [tinfo("x", TP.FLOAT, [3, 2]), tinfo("p", TP.INT64, [])], [tinfo("t", TP.FLOAT)],
           [seq_x, Tensor(np.array(3, dtype=np.int64))], [ph],
           (1, "SequenceAt-11", "position 3", "out of range"))

    # Operators outside the supported set are reported by name.
    reject(w, "unsupported_operator_relu", 13,
           [split_node(["x"], ["a", "b"]), helper.make_node("Relu", ["a"], ["r"], name="act")],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("r", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "unsupported operator 'Relu'", "node 'act'"))
    reject(w, "unsupported_operator_other_domain", 13,
           [helper.make_node("Split", ["x"], ["a", "b"], domain="com.example")],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], (1, "unsupported operator 'com.example::Split'"))

    # Outputs that differ from the expected ones: the comparison must be able to fail.
    reject(w, "wrong_expected_value", 13, [split_node(["x"], ["a", "b"])],
           [tinfo("x", TP.INT32, [4])], [tinfo("a", TP.INT32), tinfo("b", TP.INT32)],
           [Tensor(np.array([1, 2, 3, 4], dtype=np.int32))],
           [Tensor(np.array([1, 2], dtype=np.int32)), Tensor(np.array([3, 5], dtype=np.int32))],
           (1, "output 'b'", "element [1]", "4", "5"))
    reject(w, "wrong_expected_shape", 13, [split_node(["x"], ["a", "b"], axis=1)],
           [tinfo("x", TP.FLOAT, [2, 4])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [sample(TP.FLOAT, [2, 4])],
           [Tensor(np.zeros([2, 2], np.float32)), Tensor(np.zeros([4, 1], np.float32))],
           (1, "output 'a'", "element"))
    x = sample(TP.FLOAT, [2, 4])
    reject(w, "wrong_expected_shape_only", 13, [split_node(["x"], ["a", "b"], axis=1)],
           [tinfo("x", TP.FLOAT, [2, 4])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x], [Tensor(x.arr[:, :2]), Tensor(x.arr[:, 2:].reshape(4, 1))],
           (1, "output 'b'", "shape [4,1] expected, got [2,2]"))
    reject(w, "wrong_sequence_length", 11, [sts_node(["x"])],
           [tinfo("x", TP.FLOAT, [3])], [sinfo("seq", TP.FLOAT)], [sample(TP.FLOAT, [3])],
           [Seq(split_t(sample(TP.FLOAT, [3]), [1, 1], 0)[:2], TP.FLOAT)],
           (1, "output 'seq'", "sequence of 2 tensors expected, got 3"))
    reject(w, "wrong_string_value", 13, [split_node(["x"], ["a", "b"])],
           [tinfo("x", TP.STRING, [2])], [tinfo("a", TP.STRING), tinfo("b", TP.STRING)],
           [Tensor([b"left", b"right"], TP.STRING)],
           [Tensor([b"left"], TP.STRING), Tensor([b"righ"], TP.STRING)],
           (1, "output 'b'", "\"right\"", "\"righ\""))
    reject(w, "declared_output_type_mismatch", 13, [split_node(["x"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [4])], [tinfo("a", TP.INT64), tinfo("b", TP.FLOAT)],
           [sample(TP.FLOAT, [4])], [placeholder(TP.INT64), ph],
           (1, "graph output 'a'", "INT64", "FLOAT"))


def malformed_cases(w):
    x6 = sample(TP.FLOAT, [6])
    ph = placeholder(TP.FLOAT)
    good = lambda name, expect, **kw: w.case(  # noqa: E731
        "expect", name, 13, [split_node(["x"], ["a", "b"])], [tinfo("x", TP.FLOAT, [6])],
        [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)], [x6], split_t(x6, [3, 3], 0),
        expect=expect, **kw)

    d = good("garbage_model", (65, "malformed protobuf", "model.onnx", "onnx.ModelProto"))
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(b"\x0a\xff\xff\xff\xff\x0fnot a model")
    d = good("truncated_input", (65, "malformed protobuf", "input_0.pb", "onnx.TensorProto"))
    p = os.path.join(d, "test_data_set_0", "input_0.pb")
    data = open(p, "rb").read()
    with open(p, "wb") as f:
        f.write(data[:-5])
    d = good("raw_data_size_mismatch", (65, "output_1.pb", "raw_data has 8 bytes", "12"))
    p = os.path.join(d, "test_data_set_0", "output_1.pb")
    t = TP()
    t.ParseFromString(open(p, "rb").read())
    t.raw_data = t.raw_data[:8]
    with open(p, "wb") as f:
        f.write(t.SerializeToString())
    d = good("typed_count_mismatch", (65, "input_0.pb", "5 float_data values", "6"),
             encoding="typed")
    p = os.path.join(d, "test_data_set_0", "input_0.pb")
    t = TP()
    t.ParseFromString(open(p, "rb").read())
    del t.float_data[-1]
    with open(p, "wb") as f:
        f.write(t.SerializeToString())
    # Dims a file may claim: checked against the data before anything is allocated.
    for name, dims, expect in [
            ("huge_dims_small_data", [1 << 40, 1 << 20],
             (65, "input_0.pb", "raw_data has 24 bytes", "4611686018427387904")),
            ("dims_overflow", [1 << 62, 8], (65, "input_0.pb", "overflows")),
            ("negative_dim", [-1, 6], (65, "input_0.pb", "dims[0] is -1"))]:
        d = good(name, expect)
        p = os.path.join(d, "test_data_set_0", "input_0.pb")
        t = TP()
        t.ParseFromString(open(p, "rb").read())
        del t.dims[:]
        t.dims.extend(dims)
        with open(p, "wb") as f:
            f.write(t.SerializeToString())
    d = good("raw_data_and_typed_field", (65, "input_0.pb", "both raw_data and float_data"))
    p = os.path.join(d, "test_data_set_0", "input_0.pb")
    t = TP()
    t.ParseFromString(open(p, "rb").read())
    t.float_data.extend([1.0] * 6)
    with open(p, "wb") as f:
        f.write(t.SerializeToString())
    d = good("missing_output_file", (65, "1 output file but", "2 outputs"))
    os.remove(os.path.join(d, "test_data_set_0", "output_1.pb"))
    d = good("no_test_data_set", (65, "no test_data_set"))
    shutil.rmtree(os.path.join(d, "test_data_set_0"))
    d = good("missing_model", (66, "cannot open", "model.onnx"))
    os.remove(os.path.join(d, "model.onnx"))
    d = good("input_name_mismatch", (65, "input_0.pb", "'other'", "'x'"))
    p = os.path.join(d, "test_data_set_0", "input_0.pb")
    t = TP()
    t.ParseFromString(open(p, "rb").read())
    t.name = "other"
    with open(p, "wb") as f:
        f.write(t.SerializeToString())
    d = good("uint8_value_out_of_range", (65, "int32_data[0] = 300", "UINT8"))
    g = onnx.load(os.path.join(d, "model.onnx"))
    g.graph.input[0].type.tensor_type.elem_type = TP.UINT8
    for o in g.graph.output:
        o.type.tensor_type.elem_type = TP.UINT8
    onnx.save(g, os.path.join(d, "model.onnx"))
    u8 = Tensor(np.arange(6, dtype=np.uint8))
    for j, (nm, v) in enumerate([("x", u8)]):
        t = tensor_proto(nm, v, "typed")
        t.int32_data[0] = 300
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % j), "wb") as f:
            f.write(t.SerializeToString())
    for j, v in enumerate(split_t(u8, [3, 3], 0)):
        with open(os.path.join(d, "test_data_set_0", "output_%d.pb" % j), "wb") as f:
            f.write(tensor_proto("", v, "raw").SerializeToString())
    w.case("expect", "undefined_name", 13, [split_node(["x", "nowhere"], ["a", "b"])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], expect=(65, "malformed model", "'nowhere'"))
    w.case("expect", "split13_split_attribute", 13,
           [split_node(["x"], ["a", "b"], split=[3, 3])],
           [tinfo("x", TP.FLOAT, [6])], [tinfo("a", TP.FLOAT), tinfo("b", TP.FLOAT)],
           [x6], [ph, ph], expect=(65, "malformed model", "Split-13", "attribute 'split'"))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_models.py OUT_DIR")
    out = sys.argv[1]
    if os.path.exists(out):
        shutil.rmtree(out)
    w = Writer(out)
    pass_cases(w)
    reject_cases(w)
    malformed_cases(w)
    # The joining operators' cases use this module's helpers: run as a script, it must be the
    # module they import (one Seq class for isinstance).
    sys.modules.setdefault("make_models", sys.modules[__name__])
    import concat_models
    concat_models.pass_cases(w)
    concat_models.reject_cases(w)
    print("wrote %d passing and %d failing test directories under %s"
          % (w.count["pass"], w.count["expect"], out))


if __name__ == "__main__":
    main()
