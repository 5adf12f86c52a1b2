"""Stand-in for `transformers` in the convert tests (it cannot be installed here).

llama.cpp's convert_hf_to_gguf.py needs only AutoConfig from it for a SentencePiece vocabulary:
AutoConfig.from_pretrained(folder).to_dict() must give config.json. Nothing else is provided, so
a code path of the converter that needs a real tokenizer fails loudly."""
import json
import os


class _Loaded:
    def __init__(self, values):
        self.__dict__.update(values)
        self._values = values

    def to_dict(self):
        return json.loads(json.dumps(self._values))


class AutoConfig:
    @staticmethod
    def from_pretrained(folder, **_):
        with open(os.path.join(str(folder), "config.json"), encoding="utf-8") as f:
            return _Loaded(json.load(f))
