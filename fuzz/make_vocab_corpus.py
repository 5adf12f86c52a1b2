#!/usr/bin/env python3
"""Writes the seeds of fuzz_vocab (fuzz/corpus/vocab): a first byte picking the file (0
tokenizer.model, 1 tokenizer.json, 2 tokenizer_config.json), then a small valid file of that kind,
written here byte by byte (a SentencePiece ModelProto) or as JSON.

  python3 fuzz/make_vocab_corpus.py [OUT_DIR]"""
import json
import os
import struct
import sys


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
    return key + (varint(len(payload)) + payload if wire == 2 else payload)


def piece(text, score, type_):
    return field(1, 2, text.encode()) + field(2, 5, struct.pack("<f", score)) + \
        field(3, 0, varint(type_))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus",
                                                              "vocab")
    os.makedirs(out, exist_ok=True)
    pieces = [piece("<unk>", 0, 2), piece("<s>", 0, 3), piece("<0x41>", 0, 6),
              piece("\u2581a", -1.5, 1), piece("<u>", 0, 4)]
    model = b"".join(field(1, 2, p) for p in pieces) + field(2, 2, field(35, 0, varint(0)))
    # Qwen2's (tools/convert/vocab_pre.c), so that the seed is accepted.
    regex = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?"
             "[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
    tokenizer = {
        "added_tokens": [{"id": 3, "content": "<|endoftext|>", "special": True}],
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated",
             "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"Sequence": {"id": "A"}},
                                      {"SpecialToken": {"id": "<|endoftext|>"}}]},
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},
                  "merges": [["a", "b"]]}}
    config = {"bos_token": "<s>", "add_bos_token": True, "chat_template": [
        {"name": "default", "template": "x"}, {"name": "tool", "template": "y"}],
        "added_tokens_decoder": {"4": {"content": "\u2581u", "special": False}}}
    seeds = {"model.bin": b"\x00" + model,
             "tokenizer.bin": b"\x01" + json.dumps(tokenizer).encode(),
             "config.bin": b"\x02" + json.dumps(config).encode()}
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
