from typing import Any, List, NamedTuple, Optional, Sequence, Tuple, Union, final

import numpy as np

__version__: str
MAX_RANK: int

class _Unknown: ...

UNKNOWN: _Unknown

class Error(ValueError):
    status: int
    status_name: str
    message: str

Dim = Union[int, None, Tuple[int, Optional[int]]]
_Ints = Union[Sequence[int], np.ndarray]
_Out = Optional[Sequence[Any]]
_DType = Any

def library_version() -> str: ...
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
def split_to_sequence(
    x: Any,
    split: Union[None, int, _Ints] = ...,
    axis: int = ...,
    keepdims: int = ...,
    opset: int = ...,
    *,
    copy: Optional[bool] = ...,
    out: _Out = ...,
    threads: Optional[int] = ...,
    dtype: _DType = ...,
    shape: Optional[Sequence[int]] = ...,
) -> List[Any]: ...
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

class Inference(NamedTuple):
    shapes: Tuple[Optional[Tuple[Dim, ...]], ...]
    num_outputs: Dim
    count_varies: bool
    axis: int
    axis_removed: bool
    text: Tuple[str, ...]

def infer(operator: str, shape: Any, dtype: _DType = ..., **params: Any) -> Inference: ...
