"""A stand-in for `tqdm` (the convert tests only): llama.cpp's GGUF writer draws a progress bar
with it while writing tensors, and tqdm is not installed here. The bar draws nothing."""


class tqdm:
    def __init__(self, *args, **kwargs):
        del args, kwargs

    def update(self, n=1):
        del n

    def reset(self, total=None):
        del total

    def set_description(self, desc=None):
        del desc

    def close(self):
        pass
