"""NumPy's and PyTorch's conventions: dtype= names, keepdims as a bool, the public namespace,
Plan's repr, and docstrings that say where a same-named function means something else."""
import copy
import pickle
import pydoc

import numpy as np
import pytest

import cleave

# dtype= strings NumPy reads mean NumPy's type, whatever cleave's own names say.
NUMPY_MEANING = [
    ("i8", np.int64), ("u1", np.uint8), ("u2", np.uint16), ("u4", np.uint32), ("u8", np.uint64),
    ("i4", np.int32), ("f2", np.float16), ("f4", np.float32), ("f8", np.float64),
    ("float32", np.float32), ("int16", np.int16), ("<i4", np.int32), ("bool", np.bool_),
    ("c8", np.complex64), ("c16", np.complex128), ("U3", np.dtype("U3")), ("S5", np.dtype("S5")),
]


@pytest.mark.parametrize("name,want", NUMPY_MEANING)
def test_strings_numpy_reads_mean_numpys_type(name, want):
    assert cleave.Plan("split", (4,), name, num_splits=2).dtype == np.dtype(want)
    x = np.zeros(4, np.dtype(want))
    parts = cleave.split(x, 2, dtype=name, copy=True)
    assert parts[0].dtype == np.dtype(want) and parts[0].shape == (2,)


def test_f16_is_numpys_float128_not_cleaves_half():
    # 'f16' is NumPy's 16-byte float; cleave's 16-bit f16 is np.float16.
    assert cleave.Plan("split", (4,), "f16", num_splits=2).dtype == np.dtype("f16")
    with pytest.raises(TypeError, match="needs elements of its size"):
        cleave.split(np.zeros(4, np.float16), 2, dtype="f16")


# cleave's types NumPy lacks: the constants, with their bits, packing and NumPy storage.
CONSTANTS = [
    ("bf16", 16, False, np.uint16), ("f8e4m3", 8, False, np.uint8),
    ("f8e5m2", 8, False, np.uint8), ("f8e4m3fnuz", 8, False, np.uint8),
    ("f8e5m2fnuz", 8, False, np.uint8), ("f8e8m0", 8, False, np.uint8),
    ("string", 128, False, object), ("u1", 1, True, np.uint8), ("u2", 2, True, np.uint8),
    ("u4", 4, True, np.uint8), ("i4", 4, True, np.uint8), ("nf4", 4, True, np.uint8),
    ("f4e2m1", 4, True, np.uint8), ("int4", 4, True, np.uint8), ("uint4", 4, True, np.uint8),
    ("int2", 2, True, np.uint8), ("uint2", 2, True, np.uint8), ("float4e2m1", 4, True, np.uint8),
]


@pytest.mark.parametrize("name,bits,packed,storage", CONSTANTS)
def test_element_type_constants(name, bits, packed, storage):
    t = getattr(cleave, name)
    assert isinstance(t, cleave.ElementType)
    assert t.name == name and t.packed is packed and t.storage == np.dtype(storage)
    if name != "string":  # a string element is a pointer and a size: its bits depend on the host
        assert t.bits == bits
    assert repr(t) == "cleave." + name
    assert pickle.loads(pickle.dumps(t)) is t and copy.deepcopy(t) is t
    plan = cleave.Plan("split", (8,), t, num_splits=2)
    assert plan.dtype == np.dtype(storage)
    assert repr(plan).startswith("cleave.Plan('split', (8,), cleave.%s, " % name)


def test_constants_cannot_be_made():
    with pytest.raises(TypeError):
        cleave.ElementType()


# Strings NumPy does not read that name one of cleave's types (theirs or PyTorch's spelling).
CLEAVE_NAMES = [
    ("bf16", "bf16"), ("bfloat16", "bf16"), ("uint4", "uint4"), ("int4", "int4"),
    ("uint2", "uint2"), ("int2", "int2"), ("float4e2m1", "float4e2m1"), ("nf4", "nf4"),
    ("f4e2m1", "f4e2m1"), ("string", "string"), ("f8e4m3", "f8e4m3"),
    ("float8_e4m3fn", "f8e4m3"), ("float8_e5m2", "f8e5m2"), ("float8_e4m3fnuz", "f8e4m3fnuz"),
    ("float8_e5m2fnuz", "f8e5m2fnuz"), ("float8_e8m0fnu", "f8e8m0"),
]


@pytest.mark.parametrize("name,constant", CLEAVE_NAMES)
def test_names_numpy_does_not_read_select_cleaves_types(name, constant):
    by_name = cleave.Plan("split", (8,), name, num_splits=2)
    by_constant = cleave.Plan("split", (8,), getattr(cleave, constant), num_splits=2)
    assert repr(by_name) == repr(by_constant)
    assert by_name.dtype == by_constant.dtype


def test_boolean_is_numpys_bool():
    assert cleave.Plan("split", (4,), "boolean", num_splits=2).dtype == np.bool_


# cleave's names that NumPy's spelling reads as a byte count: refused, with what to write.
AMBIGUOUS = [
    ("i16", "int16"), ("i32", "int32"), ("i64", "int64"), ("u16", "uint16"), ("u32", "uint32"),
    ("u64", "uint64"), ("f32", "float32"), ("f64", "float64"), ("c64", "complex64"),
    ("c128", "complex128"),
]


@pytest.mark.parametrize("name,numpy_name", AMBIGUOUS)
def test_ambiguous_names_are_refused(name, numpy_name):
    msg = (r"dtype '%s' is ambiguous: NumPy counts the digits of '%s' in bytes \(and has no such "
           r"type\), cleave in bits; for cleave's %s write '%s' \(np.%s\)"
           % (name, name, name, numpy_name, numpy_name))
    for call in (lambda: cleave.Plan("split", (4,), name, num_splits=2),
                 lambda: cleave.split(np.zeros(4, np.uint8), 2, dtype=name),
                 lambda: cleave.infer("split", (4,), name, num_splits=2)):
        with pytest.raises(ValueError, match=msg) as e:
            call()
        assert not isinstance(e.value, cleave.Error)
    assert np.dtype(numpy_name).itemsize * 8 == int(name[1:])


def test_unsupported_packed_names_say_so():
    for name in ("u3", "u6"):
        with pytest.raises(ValueError, match=r"dtype '%s' is ambiguous.*%s is not supported: "
                                             r"OpenVINO packs it in 3-byte groups" % (name, name)):
            cleave.Plan("split", (6,), name, num_splits=2)


@pytest.mark.parametrize("name", ["xyz", "bfloat", "uint3", "float4_e2m1fn", "U4X"])
def test_unknown_names_are_type_errors_naming_them(name):
    with pytest.raises(TypeError, match=r"dtype '%s' is neither a NumPy dtype nor one of "
                                        r"cleave's type names" % name):
        cleave.Plan("split", (4,), name, num_splits=2)


@pytest.mark.parametrize("name", ["S", "U", "V", "bytes", "str"])
def test_unsized_numpy_dtypes_are_refused(name):
    with pytest.raises(TypeError, match="has no size: give one, such as 'S8' or 'U8'"):
        cleave.Plan("split", (4,), name, num_splits=2)


def test_reinterpreting_with_a_constant():
    # bfloat16 bits in uint16 storage: the same elements, split as bf16.
    x = np.arange(8, dtype=np.uint16)
    for dtype in (cleave.bf16, "bf16", "bfloat16"):
        parts = cleave.split(x, 2, dtype=dtype, copy=True)
        assert [p.tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6, 7]]
        assert parts[0].dtype == np.uint16
    plan = cleave.Plan("split", (8,), cleave.bf16, num_splits=2)
    assert [p.tolist() for p in plan.run(x)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    with pytest.raises(TypeError, match="needs elements of its size"):
        cleave.split(np.zeros(8, np.uint8), 2, dtype=cleave.bf16)


def test_packed_through_a_name_and_a_constant_agree():
    buf = np.array([0x21, 0x43, 0x65, 0x87], np.uint8)  # 1 2 3 4 / 5 6 7 8, low nibble first
    for dtype in (cleave.u4, cleave.uint4, "uint4"):
        got = cleave.split(buf, 2, axis=1, dtype=dtype, shape=(2, 4))
        assert [g.tolist() for g in got] == [[0x21, 0x65], [0x43, 0x87]]
    # 'u4' is NumPy's uint32: four bytes are one element, and shape= is for packed types only.
    with pytest.raises(TypeError, match="shape= is only for packed dtypes"):
        cleave.split(buf, 2, dtype="u4", shape=(2, 4))


def test_infer_default_dtype_and_names():
    assert cleave.infer("split", (6,), num_splits=2).shapes == ((3,), (3,))
    assert cleave.infer("split", (6,), cleave.u1, num_splits=2).shapes == ((3,), (3,))
    assert cleave.infer("split", (6,), "float8_e5m2", num_splits=3).num_outputs == 3


@pytest.mark.parametrize("keepdims,shape", [(True, (1,)), (False, ()), (1, (1,)), (0, ()),
                                            (np.True_, (1,)), (np.False_, ())])
def test_keepdims_takes_bools(keepdims, shape):
    parts = cleave.split_to_sequence(np.arange(3), keepdims=keepdims)
    assert [p.shape for p in parts] == [shape] * 3 and [int(p.reshape(-1)[0]) for p in parts] == [
        0, 1, 2]
    plan = cleave.Plan("split_to_sequence", (3,), np.int64, keepdims=keepdims)
    assert plan.output_shapes == (shape,) * 3
    assert cleave.infer("split_to_sequence", (3,), keepdims=keepdims).shapes == (shape,) * 3


def test_keepdims_other_values():
    with pytest.raises(TypeError, match="keepdims must be a bool or an int, not str"):
        cleave.split_to_sequence(np.arange(3), keepdims="no")
    with pytest.raises(cleave.Error) as e:
        cleave.split_to_sequence(np.arange(3), keepdims=2)
    assert e.value.status_name == "invalid attribute"


PUBLIC = sorted(["ConcatPlan", "ElementType", "Error", "Inference", "MAX_RANK", "Plan", "UNKNOWN",
                 "arena_limit", "arena_stats", "concat", "concat_from_sequence", "ggml_dequantize",
                 "ggml_quantize", "infer", "library_version", "onnx_split",
                 "set_arena_limit", "split", "split_to_sequence", "trim_arena", "variadic_split"]
                + [c[0] for c in CONSTANTS])


def test_dir_shows_the_public_api_only():
    assert dir(cleave) == sorted(PUBLIC + ["__version__"])
    assert sorted(cleave.__all__) == PUBLIC


def help_sections(text):
    """{section title: [the entries at its top level]} of pydoc's plain text."""
    sections, title = {}, None
    for line in text.splitlines():
        if line and not line[0].isspace():
            title = line
            sections[title] = []
        elif title and len(line) > 4 and line.startswith("    ") and not line[4].isspace():
            sections[title].append(line[4:])
    return sections


def test_help_shows_the_public_api_only():
    sections = help_sections(pydoc.render_doc(cleave, renderer=pydoc.plaintext))
    assert "PACKAGE CONTENTS" not in sections and "SUBMODULES" not in sections
    classes = [e.split()[1].split("(")[0] for e in sections["CLASSES"] if e.startswith("class ")]
    functions = [e.split("(")[0] for e in sections["FUNCTIONS"]]
    data = [e.split(" = ")[0] for e in sections["DATA"]]
    assert sorted(classes + functions + data) == PUBLIC


def test_plan_repr_shows_operator_shape_dtype_params_and_outputs():
    cases = [
        (cleave.Plan("split", (6, 4), np.float32, num_splits=3),
         "cleave.Plan('split', (6, 4), 'float32', num_splits=3, axis=0): 3 outputs"),
        (cleave.Plan("variadic_split", (6, 4), "int16", split_lengths=[1, -1, 2], axis=-1),
         "cleave.Plan('variadic_split', (6, 4), 'int16', split_lengths=[1, -1, 2], axis=-1): "
         "3 outputs"),
        (cleave.Plan("split_to_sequence", (5,), "uint8", split=2, keepdims=False),
         "cleave.Plan('split_to_sequence', (5,), 'uint8', split=2, axis=0, keepdims=0, "
         "opset=24): 3 outputs"),
        (cleave.Plan("split_to_sequence", (1, 3), "bool"),
         "cleave.Plan('split_to_sequence', (1, 3), 'bool', split=None, axis=0, keepdims=1, "
         "opset=24): 1 output"),
        (cleave.Plan("onnx_split", (6,), "U2", num_outputs=4),
         "cleave.Plan('onnx_split', (6,), '<U2', split=None, axis=0, num_outputs=4, opset=18): "
         "4 outputs"),
        (cleave.Plan("onnx_split", (6,), cleave.string, split=[2, 4], opset=13),
         "cleave.Plan('onnx_split', (6,), cleave.string, split=[2, 4], axis=0, opset=13): "
         "2 outputs"),
        (cleave.Plan("split", (2, 8), cleave.u4, num_splits=2, axis=1),
         "cleave.Plan('split', (2, 8), cleave.u4, num_splits=2, axis=1): 2 outputs"),
    ]
    for plan, want in cases:
        assert repr(plan) == want


def first_line(fn):
    doc = fn.__doc__
    return doc.strip().splitlines()[0]


def test_split_says_it_differs_from_torch_split_first():
    line = first_line(cleave.split)
    assert "torch.split takes a size" in line and "count" in line
    # ... and it does: two parts, where torch.split(x, 2) gives parts of two.
    assert len(cleave.split(np.arange(8), 2)) == 2


def test_docstrings_say_which_convention_the_lengths_follow():
    assert "np.split takes the indices" in cleave.variadic_split.__doc__
    assert "as torch.split(x, n) does" in cleave.split_to_sequence.__doc__
    assert "np.split would take" in cleave.onnx_split.__doc__
