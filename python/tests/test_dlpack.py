"""DLPack inputs (PyTorch tensors, bfloat16 included) and outputs handed back as tensors."""
import gc

import numpy as np
import pytest

import cleave

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int8,
                                   torch.uint8, torch.int64, torch.complex64])
# (torch 1.13 refuses to export torch.bool through DLPack: test_torch_bool covers it.)
@pytest.mark.parametrize("copy", [None, True])
def test_torch_round_trip(dtype, copy):
    t = (torch.arange(24) % 7).to(dtype).reshape(4, 6)
    got = cleave.split(t, 3, axis=1, copy=copy)
    want = torch.split(t, 2, dim=1)
    assert all(isinstance(g, torch.Tensor) for g in got)
    for g, w in zip(got, want):
        assert g.dtype == dtype and g.shape == w.shape and torch.equal(g, w)
        shares = g.data_ptr() == w.data_ptr()
        assert shares == (copy is None)


def test_torch_views_keep_the_tensor_alive():
    t = torch.arange(12, dtype=torch.float32)
    views = cleave.split(t, 3)
    del t
    gc.collect()
    assert torch.equal(views[2], torch.tensor([8.0, 9.0, 10.0, 11.0]))
    views[0][0] = 100.0  # views write through to the shared memory
    assert views[0][0].item() == 100.0


def test_torch_out_and_non_contiguous():
    t = torch.arange(48, dtype=torch.bfloat16).reshape(6, 8)[:, ::2]  # strided
    out = [torch.zeros(3, 4, dtype=torch.bfloat16) for _ in range(2)]
    got = cleave.split(t, 2, axis=0, out=out)
    assert got[0] is out[0]
    for o, w in zip(out, torch.split(t, 3, dim=0)):
        assert torch.equal(o, w)
    with pytest.raises(cleave.Error, match="dtype"):
        cleave.split(t, 2, axis=0, out=[torch.zeros(3, 4) for _ in range(2)])


def test_bfloat16_follows_onnx_versions():
    t = torch.zeros(4, dtype=torch.bfloat16)
    assert len(cleave.onnx_split(t, num_outputs=2, opset=13)) == 2
    with pytest.raises(cleave.Error) as e:
        cleave.onnx_split(t, num_outputs=2, opset=11)
    assert e.value.status_name == "unsupported type"


def test_numpy_from_torch_output():
    got = cleave.split(torch.arange(6), 2)
    assert np.array_equal(got[1].numpy(), [3, 4, 5])


def bool_tensor():
    return torch.tensor([[True, False, True, True, False, False],
                         [False, False, True, False, True, True]])


@pytest.mark.parametrize("copy", [None, True])
def test_torch_bool(copy):
    # DLPack refuses bool tensors in torch 1.13; NumPy's array protocol shares their memory.
    t = bool_tensor()
    got = cleave.split(t, 3, axis=1, copy=copy)
    for g, w in zip(got, torch.split(t, 2, dim=1)):
        assert isinstance(g, torch.Tensor) and g.dtype == torch.bool
        assert torch.equal(g, w)
        assert (g.data_ptr() == w.data_ptr()) == (copy is None)
    if copy is None:
        got[0][0, 0] = False  # views write through
        assert not t[0, 0].item()


def test_torch_bool_out_and_sequence():
    t = bool_tensor()
    out = [torch.ones(2, 3, dtype=torch.bool) for _ in range(2)]
    got = cleave.variadic_split(t, [3, 3], axis=1, out=out)
    assert got[0] is out[0] and got[1] is out[1]
    for o, w in zip(out, torch.split(t, 3, dim=1)):
        assert torch.equal(o, w)
    rows = cleave.split_to_sequence(t, axis=0, keepdims=False)
    assert [r.shape for r in rows] == [torch.Size([6])] * 2
    assert torch.equal(rows[1], t[1])


def test_torch_bool_out_must_be_shared_memory():
    # An out= tensor's memory is written in place: a wrong dtype is named, nothing is written.
    t = bool_tensor()
    out = [torch.zeros(2, 3, dtype=torch.uint8) for _ in range(2)]
    with pytest.raises(cleave.Error, match=r"out\[0\] has dtype"):
        cleave.split(t, 2, axis=1, out=out)
    assert all(not o.any() for o in out)


def test_refused_dlpack_keeps_the_producers_message():
    # A tensor that needs grad is refused by DLPack and by the array protocol alike: the
    # producer's own advice is what the caller sees.
    g = torch.zeros(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        cleave.split(g, 2)
    with pytest.raises(RuntimeError, match="detach"):
        cleave.split(torch.zeros(4), 2, out=[g[:2], g[2:]])


class CopyingArray:
    """Refuses DLPack and gives a copy through __array__: not a view of its memory."""

    def __init__(self):
        self.data = np.arange(4)

    def __dlpack__(self, stream=None):
        raise BufferError("no DLPack here")

    def __array__(self, dtype=None):
        return self.data.copy()


def test_array_protocol_copies_are_refused():
    x = CopyingArray()
    with pytest.raises(BufferError, match="no DLPack here"):
        cleave.split(x, 2)
    out = [CopyingArray(), CopyingArray()]
    with pytest.raises(BufferError, match="no DLPack here"):
        cleave.split(np.arange(4), 2, out=out)
    assert all(o.data.tolist() == [0, 1, 2, 3] for o in out)


class ViewingArray(CopyingArray):
    """Refuses DLPack; __array__ gives a view of its memory (no data_ptr to compare)."""

    def __array__(self, dtype=None):
        return self.data[:]


def test_array_protocol_views_are_taken():
    x = ViewingArray()
    got = cleave.split(x, 2)
    assert all(isinstance(g, np.ndarray) for g in got)  # no from_numpy in its module
    assert [g.tolist() for g in got] == [[0, 1], [2, 3]]
    assert np.shares_memory(got[0], x.data)


class ViewingElsewhere(CopyingArray):
    """__array__ gives a view, but of memory other than the one data_ptr() names."""

    def __init__(self):
        self.data = np.zeros(2, np.int64)
        self.other = np.zeros(2, np.int64)

    def __array__(self, dtype=None):
        return self.other[:]

    def data_ptr(self):
        return self.data.ctypes.data


def test_array_protocol_views_of_other_memory_are_refused():
    out = [ViewingElsewhere(), ViewingElsewhere()]
    with pytest.raises(BufferError, match="no DLPack here"):
        cleave.split(np.arange(4) + 10, 2, out=out)
    assert all(not o.data.any() and not o.other.any() for o in out)
    # The same objects pointing data_ptr() at the viewed memory are written in place.
    for o in out:
        o.data = o.other
    got = cleave.split(np.arange(4) + 10, 2, out=out)
    assert got[0] is out[0] and [o.data.tolist() for o in out] == [[10, 11], [12, 13]]
