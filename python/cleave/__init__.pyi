from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union, final, overload

import numpy as np

__version__: str
MAX_RANK: int

class _Unknown: ...

UNKNOWN: _Unknown

class Error(ValueError):
    status: int
    status_name: str
    message: str

@final
class ElementType:
    @property
    def name(self) -> str: ...
    @property
    def bits(self) -> int: ...
    @property
    def packed(self) -> bool: ...
    @property
    def storage(self) -> np.dtype: ...

bf16: ElementType
f8e4m3: ElementType
f8e5m2: ElementType
f8e4m3fnuz: ElementType
f8e5m2fnuz: ElementType
f8e8m0: ElementType
string: ElementType
u1: ElementType
u2: ElementType
u4: ElementType
i4: ElementType
nf4: ElementType
f4e2m1: ElementType
int4: ElementType
uint4: ElementType
int2: ElementType
uint2: ElementType
float4e2m1: ElementType

_Dim = Union[int, None, Tuple[int, Optional[int]]]
_Ints = Union[Sequence[int], np.ndarray]
_Out = Optional[Sequence[Any]]
# A NumPy dtype (or anything np.dtype reads), an ElementType, or a str naming one.
_DType = Union[ElementType, str, np.dtype, type, Any]

def library_version() -> str: ...
def set_arena_limit(limit_bytes: int, /) -> None: ...
def arena_limit() -> int: ...
def trim_arena(keep_bytes: int = ..., /) -> int: ...
def arena_stats() -> Dict[str, int]: ...
def ggml_dequantize(data: Any, type: Union[int, str], /) -> np.ndarray: ...
def ggml_quantize(x: Any, type: Union[int, str], /) -> np.ndarray: ...

# NumPy arrays give NumPy arrays; DLPack tensors give the producer's kind (typed Any).
@overload
def split(
    x: np.ndarray,
    num_splits: int,
    axis: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> Tuple[np.ndarray, ...]: ...
@overload
def split(
    x: Any,
    num_splits: int,
    axis: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> Tuple[Any, ...]: ...
@overload
def variadic_split(
    x: np.ndarray,
    split_lengths: _Ints,
    axis: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> Tuple[np.ndarray, ...]: ...
@overload
def variadic_split(
    x: Any,
    split_lengths: _Ints,
    axis: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> Tuple[Any, ...]: ...
@overload
def split_to_sequence(
    x: np.ndarray,
    split: Union[None, int, _Ints] = ...,
    axis: int = ...,
    keepdims: Union[bool, int] = ...,
    opset: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> List[np.ndarray]: ...
@overload
def split_to_sequence(
    x: Any,
    split: Union[None, int, _Ints] = ...,
    axis: int = ...,
    keepdims: Union[bool, int] = ...,
    opset: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> List[Any]: ...
@overload
def onnx_split(
    x: np.ndarray,
    split: Optional[_Ints] = ...,
    axis: int = ...,
    num_outputs: Optional[int] = ...,
    opset: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> Tuple[np.ndarray, ...]: ...
@overload
def onnx_split(
    x: Any,
    split: Optional[_Ints] = ...,
    axis: int = ...,
    num_outputs: Optional[int] = ...,
    opset: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> Tuple[Any, ...]: ...

_Shapes = Optional[Sequence[Sequence[int]]]

# NumPy arrays give a NumPy array; DLPack tensors give the first input's kind (typed Any).
@overload
def concat(
    arrays: Sequence[np.ndarray],
    axis: int = ...,
    *,
    out: Optional[np.ndarray] = ...,
    opset: Optional[int] = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shapes: _Shapes = ...,
) -> np.ndarray: ...
@overload
def concat(
    arrays: Sequence[Any],
    axis: int = ...,
    *,
    out: Any = ...,
    opset: Optional[int] = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shapes: _Shapes = ...,
) -> Any: ...
@overload
def concat_from_sequence(
    arrays: Sequence[np.ndarray],
    axis: int,
    new_axis: Union[bool, int] = ...,
    *,
    out: Optional[np.ndarray] = ...,
    opset: Optional[int] = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shapes: _Shapes = ...,
) -> np.ndarray: ...
@overload
def concat_from_sequence(
    arrays: Sequence[Any],
    axis: int,
    new_axis: Union[bool, int] = ...,
    *,
    out: Any = ...,
    opset: Optional[int] = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shapes: _Shapes = ...,
) -> Any: ...

@final
class Plan:
    def __new__(cls, operator: str, shape: Sequence[int], dtype: _DType, /, **params: Any) -> Plan: ...
    def run(self, x: Any, out: _Out = ..., threads: Optional[int] = ...) -> Any: ...
    def views(self, x: Any) -> Any: ...
    @property
    def output_shapes(self) -> Tuple[Tuple[int, ...], ...]: ...
    @property
    def num_outputs(self) -> int: ...
    @property
    def axis(self) -> int: ...
    @property
    def kernels(self) -> str: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...

@final
class ConcatPlan:
    def __new__(
        cls, operator: str, shapes: Sequence[Sequence[int]], dtype: _DType, /, **params: Any
    ) -> ConcatPlan: ...
    def run(self, arrays: Sequence[Any], out: Any = ..., threads: Optional[int] = ...) -> Any: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @property
    def num_inputs(self) -> int: ...
    @property
    def axis(self) -> int: ...
    @property
    def kernels(self) -> str: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def shapes(self) -> Tuple[Tuple[int, ...], ...]: ...

class Inference(NamedTuple):
    shapes: Tuple[Optional[Tuple[_Dim, ...]], ...]
    num_outputs: _Dim
    count_varies: bool
    axis: int
    axis_removed: bool
    text: Tuple[str, ...]

def infer(operator: str, shape: Any, dtype: _DType = ..., **params: Any) -> Inference: ...
