"""cleave convert's SentencePiece vocabulary (tokenizer.model) against llama.cpp's converter: for
each folder, every tokenizer.* key (name, order, type, value) equals what convert_hf_to_gguf.py
--vocab-only writes. The models are trained here with python3-sentencepiece (user-defined
symbols, control symbols, byte fallback, BPE and unigram) and edited with its ModelProto."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vocab_util as v  # noqa: E402
from clitest import check  # noqa: E402

USER = ("<tool>", "\u2581foo")
CONTROL = ("<ctl>",)


def value(keys, name):
    return next((k[2] for k in keys if k[0] == name), None)


def test_bpe_model_padded(work):
    """User-defined pieces are written NORMAL (the converter asks only IsUnknown, IsControl,
    IsUnused and IsByte); byte pieces BYTE; config.json's vocab_size pads with [PAD<id>]."""
    model = v.train_spm(user=USER, control=CONTROL)
    d = v.folder(os.path.join(work, "bpe"), {"tokenizer.model": model,
                                            "config.json": v.llama_config(vocab_size=400)})
    keys = v.compare_with_converter(d, "llama", work)
    if keys is None:
        return
    tokens, types = value(keys, "tokenizer.ggml.tokens"), value(keys, "tokenizer.ggml.token_type")
    check(len(tokens) == 400 and tokens[399] == "[PAD399]" and types[399] == 5,
          f"padding: {len(tokens)} tokens, last {tokens[-1]!r} type {types[-1]}")
    tool = tokens.index("<tool>")
    check(types[tool] == 1, f"<tool> (user-defined piece) has type {types[tool]}")
    check(types[tokens.index("<ctl>")] == 3 and types[tokens.index("<0x41>")] == 6
          and types[0] == 2, "control, byte and unknown types")
    check(value(keys, "tokenizer.ggml.model") == "llama" and
          value(keys, "tokenizer.ggml.pre") == "default", "model and pre")


def test_unigram_truncated(work):
    """A vocab_size below the piece count drops the pieces past it; a unigram model's scores."""
    model = v.train_spm(model_type="unigram", vocab_size=300, byte_fallback=False)
    d = v.folder(os.path.join(work, "unigram"), {"tokenizer.model": model,
                                                "config.json": v.llama_config(vocab_size=100)})
    keys = v.compare_with_converter(d, "llama", work)
    if keys is not None:
        check(len(value(keys, "tokenizer.ggml.tokens")) == 100, "100 tokens")


def test_piece_count_when_no_vocab_size(work):
    """No vocab_size (or null) in config.json: as many tokens as pieces; no special ids there.
    (qwen2: llama's converter needs vocab_size for its own key.)"""
    model = v.train_spm(vocab_size=310)
    for name, size in (("absent", None), ("null", "null")):
        config = v.llama_config(vocab_size=None, bos_token_id=None, eos_token_id=None,
                                architectures=["Qwen2ForCausalLM"], model_type="qwen2")
        if size == "null":
            config["vocab_size"] = None
        d = v.folder(os.path.join(work, name), {"tokenizer.model": model, "config.json": config})
        keys = v.compare_with_converter(d, "qwen2", os.path.join(work, name))
        if keys is not None:
            check(value(keys, "tokenizer.ggml.bos_token_id") is None, f"{name}: no bos id")


def test_unused_and_edited_pieces(work):
    """UNUSED pieces, a USER_DEFINED piece made in the proto, scores as the model stores them."""
    def change(m):
        m.pieces[300].type = m.pieces[300].UNUSED
        m.pieces[301].score = -1.5e-7
        m.pieces[302].type = m.pieces[302].USER_DEFINED
    model = v.edit_spm(v.train_spm(), change)
    d = v.folder(os.path.join(work, "edited"), {"tokenizer.model": model,
                                               "config.json": v.llama_config()})
    keys = v.compare_with_converter(d, "llama", work)
    if keys is not None:
        types = value(keys, "tokenizer.ggml.token_type")
        check(types[300] == 5 and types[302] == 1, f"types {types[300]}, {types[302]}")


def test_added_tokens_and_config(work):
    """added_tokens.json, tokenizer_config.json's added_tokens_decoder (special, looking special,
    U+2581 in a user-defined token, ids past the vocabulary), special tokens as texts and as
    objects looked up in tokenizer.json, add_bos/add_eos, add_prefix_space, the chat template."""
    model = v.train_spm(user=USER, control=CONTROL)
    config = {
        "add_bos_token": True, "add_eos_token": False, "add_prefix_space": False,
        "bos_token": "<s>", "eos_token": {"content": "</s>", "lstrip": False},
        "unk_token": "<unk>", "pad_token": "<|pad|>",
        "chat_template": "{% for m in messages %}{{ m['content'] }}{% endfor %}",
        "added_tokens_decoder": {
            "0": {"content": "<unk>", "special": True},
            "1": {"content": "<s>", "special": True},
            "2": {"content": "</s>", "special": True},
            "335": {"content": "<|pad|>", "special": False},
            "336": {"content": "\u2581hello\u2581there", "special": False},
            "337": {"content": "<unused0>", "special": 0},
            "338": {"content": "plain", "special": "yes"},
            "999": {"content": "<far>", "special": True},
        },
    }
    tokenizer_json = {"version": "1.0", "added_tokens": [
        {"id": 0, "content": "<unk>", "special": True},
        {"id": 1, "content": "<s>", "special": True},
        {"id": 2, "content": "</s>", "special": True},
        {"id": 335, "content": "<|pad|>", "special": True}],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Lowercase"}, {"type": "BertNormalizer", "strip_accents": False}]},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                    {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "<s>", "type_id": 1}},
                                    {"Sequence": {"id": "B", "type_id": 1}}]},
        "model": {"type": "Unigram"}}
    d = v.folder(os.path.join(work, "added"), {
        "tokenizer.model": model, "config.json": v.llama_config(),
        "added_tokens.json": {"<tool2>": 334, "<past>": 5000},
        "tokenizer_config.json": config, "tokenizer.json": tokenizer_json})
    keys = v.compare_with_converter(d, "llama", work)
    if keys is None:
        return
    tokens, types = value(keys, "tokenizer.ggml.tokens"), value(keys, "tokenizer.ggml.token_type")
    check(tokens[336] == " hello there" and types[336] == 4, f"336: {tokens[336]!r} {types[336]}")
    check(types[335] == 3 and types[337] == 3 and types[338] == 3, "looking special")
    check(value(keys, "tokenizer.ggml.padding_token_id") == 335, "pad id")
    check(value(keys, "tokenizer.ggml.add_space_prefix") is False, "add_space_prefix")
    check(value(keys, "tokenizer.ggml.normalizer.lowercase") is True, "lowercase")


def test_eos_from_template_and_eot(work):
    """A TemplateProcessing whose last token is not the EOS: that token becomes the EOS and the
    old EOS the EOT; a BertNormalizer sets both flags; a pair template with a separator."""
    model = v.train_spm(control=("<eot>", "<sep>"))
    tokenizer_json = {
        "added_tokens": [{"id": 1, "content": "<s>"}, {"id": 2, "content": "</s>"},
                         {"id": 3, "content": "<eot>", "special": True},
                         {"id": 4, "content": "<sep>", "special": True}],
        "normalizer": {"type": "BertNormalizer", "lowercase": True, "strip_accents": True},
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel"},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}},
                        {"SpecialToken": {"id": "<eot>"}}],
             "pair": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}},
                      {"SpecialToken": {"id": "<sep>"}}, {"Sequence": {"id": "B"}},
                      {"SpecialToken": {"id": "<eot>"}}]}]}}
    d = v.folder(os.path.join(work, "eot"), {
        "tokenizer.model": model, "config.json": v.llama_config(),
        "tokenizer.json": tokenizer_json,
        "tokenizer_config.json": {"bos_token": "<s>", "eos_token": "</s>",
                                  "sep_token": "<sep>"}})
    keys = v.compare_with_converter(d, "llama", work)
    if keys is not None:
        check(value(keys, "tokenizer.ggml.eot_token_id") == 2, "eot id")


def test_chat_template_files(work):
    """chat_template.jinja (CRLF read as Python reads text) with one additional template; and
    chat_template.json; tokenizer_config.json's own template wins over both."""
    model = v.train_spm()
    base = {"tokenizer.model": model, "config.json": v.llama_config(),
            "tokenizer_config.json": {"bos_token": "<s>"}}
    cases = {
        "jinja": {"chat_template.jinja": "{{ bos_token }}\r\n{% for m in messages %}\r{% endfor %}",
                  "additional_chat_templates/tool-use.jinja": "tool {{ x }}\n"},
        "json": {"chat_template.json": {"chat_template": "from json {{ x }}"}},
        "list": {"tokenizer_config.json": {"chat_template": [
            {"name": "default", "template": "d"}, {"name": "rag é", "template": "r"},
            {"name": "", "template": "ignored"}]}},
        "own": {"chat_template.jinja": "not this",
                "tokenizer_config.json": {"chat_template": "this"}},
    }
    for name, files in cases.items():
        d = v.folder(os.path.join(work, name), dict(base, **files))
        keys = v.compare_with_converter(d, "llama", os.path.join(work, name))
        if keys is not None and name == "jinja":
            check(value(keys, "tokenizer.chat_template.tool_use") == "tool {{ x }}\n",
                  "additional template")


def test_codellama_and_granite(work):
    """vocab_size 32016: CodeLlama's second SpecialVocab (eot 32010; prefix, suffix and middle have
    no key); 49152: add_bos_token false, overwriting tokenizer_config's in its place."""
    model = v.train_spm(user=USER)
    for size in (32016, 49152):
        d = v.folder(os.path.join(work, str(size)), {
            "tokenizer.model": model, "config.json": v.llama_config(vocab_size=size),
            "tokenizer_config.json": {"add_bos_token": True, "chat_template": "t"}})
        keys = v.compare_with_converter(d, "llama", os.path.join(work, str(size)))
        if keys is not None and size == 32016:
            check(value(keys, "tokenizer.ggml.eot_token_id") == 32010, "CodeLlama's eot")
        if keys is not None and size == 49152:
            check(value(keys, "tokenizer.ggml.add_bos_token") is False, "Granite's add_bos")


def test_qwen2_sentencepiece(work):
    """qwen2 and qwen3 take tokenizer.model when there is one."""
    model = v.train_spm()
    for hf, arch in (("Qwen2ForCausalLM", "qwen2"), ("Qwen3ForCausalLM", "qwen3")):
        config = v.llama_config(architectures=[hf], model_type=arch, head_dim=8)
        d = v.folder(os.path.join(work, arch), {"tokenizer.model": model, "config.json": config})
        v.compare_with_converter(d, arch, os.path.join(work, arch))
