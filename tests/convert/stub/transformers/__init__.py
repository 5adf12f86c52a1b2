"""A stand-in for the `transformers` package, for the convert tests only.

llama.cpp's convert_hf_to_gguf.py imports `AutoConfig` from transformers at the top of its model
code and calls `AutoConfig.from_pretrained(dir).to_dict()` for the model's hyperparameters;
transformers itself cannot be installed here (it is not packaged by Debian, and the tests run
offline). This module gives the converter exactly config.json: an object with attribute access
and `to_dict`. It applies none of transformers' defaults, so the tests' models write every key
their config classes would default.
"""
import json
import os


class _Config:
    def __init__(self, values):
        self.__dict__.update(values)
        self._values = values

    def to_dict(self):
        return json.loads(json.dumps(self._values))


class AutoConfig:
    @staticmethod
    def from_pretrained(path, **kwargs):
        del kwargs
        with open(os.path.join(str(path), "config.json"), encoding="utf-8") as f:
            return _Config(json.load(f))
