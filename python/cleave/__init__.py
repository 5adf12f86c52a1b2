"""cleave: the tensor-split operators of OpenVINO and ONNX and their inverses, exactly as their
specs say.

One function per operator, NumPy's and PyTorch's conventions::

    >>> import numpy, cleave
    >>> cleave.split(numpy.arange(6), 3)
    (array([0, 1]), array([2, 3]), array([4, 5]))

- split(x, num_splits, axis=0)                   OpenVINO Split-1
- variadic_split(x, split_lengths, axis=0)       OpenVINO VariadicSplit-1
- split_to_sequence(x, split=None, axis=0, keepdims=True, opset=24)   ONNX SplitToSequence
- onnx_split(x, split=None, axis=0, num_outputs=None, opset=18)    ONNX Split
- concat(arrays, axis=0, opset=None)             OpenVINO Concat-1, or ONNX Concat at opset
- concat_from_sequence(arrays, axis, new_axis=0) ONNX ConcatFromSequence

The splits take copy=None|True|False, out=, threads= (see help(cleave.split)); the concats out=
and threads= (help(cleave.concat)). Plan binds a split to one shape and dtype for repeated runs,
ConcatPlan a concat to its inputs' shapes and dtype; infer gives output shapes, static or
partial. ggml_dequantize and ggml_quantize turn GGUF's block formats (Q4_0, Q8_0, Q4_K, ...)
into float32 and back, bit for bit as llama.cpp's gguf-py does. Errors raise cleave.Error (a ValueError) with the C library's status and message.

dtype= means what np.dtype reads ('u4' is uint32); the types NumPy lacks are constants:
cleave.bf16, cleave.u4, cleave.uint4, ... (help(cleave.ElementType)).
"""

from typing import NamedTuple as _NamedTuple
from typing import Optional as _Optional
from typing import Tuple as _Tuple
from typing import Union as _Union

from ._cleave import (  # noqa: F401  (re-exported)
    MAX_RANK,
    UNKNOWN,
    ConcatPlan,
    ElementType,
    Error,
    Plan,
    arena_limit,
    arena_stats,
    bf16,
    concat,
    concat_from_sequence,
    f4e2m1,
    f8e4m3,
    f8e4m3fnuz,
    f8e5m2,
    f8e5m2fnuz,
    f8e8m0,
    float4e2m1,
    ggml_dequantize,
    ggml_quantize,
    i4,
    int2,
    int4,
    library_version,
    nf4,
    onnx_split,
    set_arena_limit,
    split,
    split_to_sequence,
    string,
    trim_arena,
    u1,
    u2,
    u4,
    uint2,
    uint4,
    variadic_split,
)
from ._cleave import _infer

__version__ = library_version()  # the package is versioned with the library

# cleave's element types that NumPy lacks (help(cleave.ElementType)).
_ELEMENT_TYPES = ["bf16", "f8e4m3", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz", "f8e8m0", "string",
                  "u1", "u2", "u4", "i4", "nf4", "f4e2m1", "int4", "uint4", "int2", "uint2",
                  "float4e2m1"]

__all__ = [
    "ConcatPlan",
    "ElementType",
    "Error",
    "Inference",
    "MAX_RANK",
    "Plan",
    "UNKNOWN",
    "arena_limit",
    "arena_stats",
    "concat",
    "concat_from_sequence",
    "ggml_dequantize",
    "ggml_quantize",
    "infer",
    "library_version",
    "onnx_split",
    "set_arena_limit",
    "split",
    "split_to_sequence",
    "trim_arena",
    "variadic_split",
] + _ELEMENT_TYPES


def __dir__():
    """dir(cleave): the public API only."""
    return sorted(__all__ + ["__version__"])


_Dim = _Union[int, None, _Tuple[int, _Optional[int]]]


class Inference(_NamedTuple):
    """The outcome of infer().

    shapes: one shape per output (a tuple of dims; None for a dynamic rank). A dim is an int
        when known, None when it may be any size, (lo, hi) for an interval (hi None: no bound).
    num_outputs: the number of outputs (an int, or (lo, hi) when it varies).
    count_varies: True when the count is not known exactly (SplitToSequence); shapes then has
        one shape, the hull over every element.
    axis: the normalised axis, or -1 when unknown.
    axis_removed: True when the outputs drop the axis (keepdims=False).
    text: the shapes in the library's text form, e.g. ('[2,4]', '[2..3,?]').
    """

    shapes: _Tuple[_Optional[_Tuple[_Dim, ...]], ...]
    num_outputs: _Dim
    count_varies: bool
    axis: int
    axis_removed: bool
    text: _Tuple[str, ...]


def infer(operator: str, shape, dtype="float32", **params) -> Inference:
    """Infers the outputs of an operator from a static or partial input shape.

    operator: 'split', 'variadic_split', 'split_to_sequence', 'onnx_split', 'concat' or
    'concat_from_sequence'; params are that function's (num_splits, split_lengths, split, axis,
    keepdims, opset, num_outputs, new_axis).
    shape: a sequence of dims (int; None or -1 for any size; (lo, hi) with hi None for no upper
    bound), None for a dynamic rank, or the text form "[2..3,?,4]". For 'concat' and
    'concat_from_sequence', a sequence of such shapes, one per input; the result has one shape.
    dtype: the element type, as dtype= of the operator functions (a NumPy dtype or one of
    cleave's types NumPy lacks, such as cleave.u4).
    axis=cleave.UNKNOWN or split lengths that are all cleave.UNKNOWN infer without those values.
    The result is the tightest answer over every input consistent with what is known; an
    operator invalid for all of them raises cleave.Error as a run would.

    Example:
        >>> cleave.infer('split', (6, 4), num_splits=3).shapes
        ((2, 4), (2, 4), (2, 4))
        >>> cleave.infer('split', '[?,4]', num_splits=2).text
        ('[?,4]', '[?,4]')
        >>> cleave.infer('concat', [(2, 3), '[?,3]'], axis=0).text
        ('[2..,3]',)
    """
    (count, varies, shapes, axis, removed), text = _infer(operator, shape, dtype, params)
    return Inference(shapes, count, varies, axis, removed, text)


# help(cleave) lists the package's files from __path__; the only one is the private extension,
# already imported, and no other submodule exists, so the package drops its search path.
del __path__
