"""Run at interpreter start when tests/convert/stub is on PYTHONPATH (the convert tests only).

Debian's torch is 1.13; llama.cpp's converter names torch 2's float8 dtypes in its tables of
types at import time. The tests' models hold no float8 tensors, so distinct placeholders for the
two names suffice to import the converter; nothing converts through them."""
try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    for _name in ("float8_e4m3fn", "float8_e5m2"):
        if not hasattr(torch, _name):
            setattr(torch, _name, type(_name, (), {})())
