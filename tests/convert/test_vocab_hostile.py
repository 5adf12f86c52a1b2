"""The vocabulary's files as hostile input: each broken tokenizer.model (written here byte by
byte as protobuf), tokenizer.json, tokenizer_config.json, added_tokens.json and config.json is
refused with its exit status, a message naming the file and what is wrong, and no output. Needs
no llama.cpp."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vocab_util as v  # noqa: E402
from test_vocab_bpe import QWEN2_REGEX, pre_tokenizer  # noqa: E402
from clitest import check  # noqa: E402


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, wire, payload):
    key = varint(number << 3 | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def piece(text, score=0.0, type_=None):
    body = field(1, 2, text if isinstance(text, bytes) else text.encode("utf-8"))
    body += field(2, 5, struct.pack("<f", score))
    if type_ is not None:
        body += field(3, 0, varint(type_))
    return body


def model(pieces, byte_fallback=None):
    data = b"".join(field(1, 2, p) for p in pieces)
    if byte_fallback is not None:
        data += field(2, 2, field(35, 0, varint(int(byte_fallback))))
    return data


GOOD = [piece("<unk>", 0, 2), piece("<s>", 0, 3), piece("</s>", 0, 3), piece("\u2581a", -1.0),
        piece("b", -2.0), piece("<u>", 0, 4)]


def run_case(work, name, files, status, *words, arch="llama"):
    base = {"config.json": {"vocab_size": 8}}
    d = v.folder(os.path.join(work, name), dict(base, **files))
    v.refused(d, arch, work, status, *words)


def test_good_model_written_by_hand(work):
    """The hand-written model converts: pieces by id, padding, a user-defined piece NORMAL."""
    d = v.folder(os.path.join(work, "good"), {"tokenizer.model": model(GOOD),
                                             "config.json": {"vocab_size": 8}})
    out = os.path.join(work, "good.gguf")
    r = v.cleave(d, "llama", out)
    if check(r.returncode == 0, r.stderr):
        keys = {k[0]: k[2] for k in v.tokenizer_keys(out)}
        check(keys["tokenizer.ggml.tokens"] == ["<unk>", "<s>", "</s>", "\u2581a", "b", "<u>",
                                                "[PAD6]", "[PAD7]"], "tokens")
        check(keys["tokenizer.ggml.token_type"] == [2, 3, 3, 1, 1, 1, 5, 5], "types")
        check(keys["tokenizer.ggml.scores"] == [0, 0, 0, -1, -2, 0, -10000, -10000], "scores")


def test_broken_models(work):
    cases = [
        ("garbage", b"\xff\xff\xff\xff\x0f", "not a SentencePiece model"),
        ("truncated", model(GOOD)[:-3], "not a SentencePiece model"),
        ("empty", b"", "without pieces"),
        ("not_utf8", model(GOOD + [piece(b"\xc3\x28")]), "piece 6 is not UTF-8"),
        ("nul", model(GOOD + [piece(b"a\x00b")]), "piece 6 is not UTF-8 text without NUL"),
        ("empty_piece", model(GOOD + [piece(b"")]), "piece 6 is empty"),
        ("type", model(GOOD + [piece("x", 0, 9)]), "piece 6 has type 9"),
        ("twice", model(GOOD + [piece("b")]), "pieces 4 and 6 are the same text"),
        ("no_unknown", model(GOOD[1:]), "0 unknown pieces"),
        ("two_unknown", model(GOOD + [piece("<unk2>", 0, 2)]), "2 unknown pieces"),
        ("byte_form", model(GOOD + [piece("<0xZZ>", 0, 6)]), "piece 6 is a byte piece"),
        ("byte_count", model(GOOD + [piece("<0x41>", 0, 6)], byte_fallback=True),
         "1 byte pieces in a model that falls back to bytes"),
    ]
    for name, data, words in cases:
        run_case(work, name, {"tokenizer.model": data}, 65, "tokenizer.model", words)


def test_too_large(work):
    d = v.folder(os.path.join(work, "large"), {"config.json": {}})
    with open(os.path.join(d, "tokenizer.model"), "wb") as f:
        f.truncate((64 << 20) + 1)
    v.refused(d, "llama", work, 65, "tokenizer.model", "67108865 bytes")


def test_broken_json_files(work):
    m = model(GOOD)
    cases = [
        ("config_json", {"config.json": "{"}, "config.json: not valid JSON at line 1"),
        ("config_array", {"config.json": []}, "config.json: not a JSON object"),
        ("vocab_size", {"config.json": {"vocab_size": "8"}}, "vocab_size is not an integer"),
        ("vocab_huge", {"config.json": {"vocab_size": 1 << 30}}, "vocab_size is not an integer"),
        ("negative_id", {"config.json": {"vocab_size": 8, "bos_token_id": -1}},
         "config.json: the bos token id -1 is negative"),
        ("added_list", {"added_tokens.json": [1]}, "added_tokens.json: not a JSON object"),
        ("added_id", {"added_tokens.json": {"x": "3"}}, "added_tokens.json: \"x\": the token id"),
        ("added_negative", {"added_tokens.json": {"x": -2}}, "token id -2 is negative"),
        ("tc_json", {"tokenizer_config.json": "{\"a\": }"}, "tokenizer_config.json: not valid"),
        ("decoder_key", {"tokenizer_config.json": {"added_tokens_decoder": {"x1": {}}}},
         "\"x1\" is not a token id"),
        ("decoder_content", {"tokenizer_config.json": {
            "added_tokens_decoder": {"3": {"content": 5}}}}, "added_tokens_decoder[3].content"),
        ("decoder_object", {"tokenizer_config.json": {"added_tokens_decoder": []}},
         "added_tokens_decoder is not an object"),
        ("template_list", {"tokenizer_config.json": {"chat_template": [{"name": "a",
                                                                        "template": 3}]}},
         "chat template 0 is not an object"),
        ("tokenizer_json", {"tokenizer.json": "[1, 2"}, "tokenizer.json: not valid JSON"),
        ("post_processor", {"tokenizer.json": {"post_processor": [1]},
                            "tokenizer_config.json": {"bos_token": "<s>"}},
         "post_processor is not an object"),
        ("normalizer", {"tokenizer.json": {"normalizer": {"type": "Sequence",
                                                          "normalizers": [3]}}},
         "a normalizer is not an object"),
        ("prefix_class", {"tokenizer_config.json": {"tokenizer_class": "HybridDNATokenizer"}},
         "HybridDNATokenizer"),
        ("tekken", {"tekken.json": {}}, "tekken.json without tokenizer.json"),
    ]
    for name, files, words in cases:
        files = dict(files)
        if name != "tekken":
            files.setdefault("tokenizer.model", m)
        run_case(work, name, files, 65, words)


def test_gpt2_json_shapes(work):
    """tokenizer.json's BPE parts of the wrong shape."""
    def tok(**model):
        base = {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}
        base.update(model)
        return {"model": base, "added_tokens": [], "normalizer": {"type": "NFC"},
                "pre_tokenizer": pre_tokenizer(QWEN2_REGEX)}
    cases = [
        ("vocab_list", tok(vocab=[]), "model.vocab is not an object"),
        ("vocab_id", tok(vocab={"a": -1}), "model.vocab[\"a\"] is not a token id"),
        ("vocab_twice", tok(vocab={"a": 0, "b": 0}), "gives id 0 to two texts"),
        ("merges_mixed", tok(merges=["a b", ["a", "b"]]), "model.merges[1] is not a text"),
        ("merges_kind", tok(merges=[3]), "neither a list of texts nor of pairs"),
        ("added_id", dict(tok(), added_tokens=[{"id": "1", "content": "x"}]),
         "added_tokens[0] is not an object with an integer id"),
        ("added_other_id", dict(tok(), added_tokens=[{"id": 1, "content": "a"}]),
         "has id 1, another than model.vocab's"),
    ]
    for name, t, words in cases:
        run_case(work, name, {"tokenizer.json": t}, 65, "tokenizer.json", words, arch="qwen2")
