"""DLPack inputs (PyTorch tensors, bfloat16 included) and outputs handed back as tensors."""
import gc

import numpy as np
import pytest

import cleave

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int8,
                                   torch.uint8, torch.int64, torch.complex64])
# (torch 1.13 refuses to export torch.bool through DLPack, so it is not listed.)
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
