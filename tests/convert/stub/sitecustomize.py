"""Loaded at start-up when this folder is on PYTHONPATH (the convert tests). Debian's torch 1.13
has no float8 dtypes, which llama.cpp's converter names in tables at import; the tests convert no
float8 tensor, so two distinct placeholders let it import."""
try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    for name in ("float8_e4m3fn", "float8_e5m2"):
        if not hasattr(torch, name):
            setattr(torch, name, type(name, (), {})())
