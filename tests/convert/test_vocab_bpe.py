"""cleave convert's BPE vocabulary (tokenizer.json, as Llama 3, Qwen2 and Qwen3 ship it).

llama.cpp's converter reads these with transformers' AutoTokenizer, which cannot be installed
here, so the expected file is made in the test: tokenizer.ggml.model "gpt2", the pre-tokenizer's
name, the tokens by id and their types derived here from the tokenizer.json by the rules of
get_vocab_base (conversion/base.py), then gguf-py's own SpecialVocab (merges, special ids,
add_*_token, chat template, normalizer) written by gguf-py's own writer. And against llama.cpp's
vocabulary files (models/ggml-vocab-llama-bpe.gguf and ggml-vocab-qwen2.gguf of its source): a
tokenizer.json rebuilt from their tokens and merges gives their tokens, types and merges back."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vocab_util as v  # noqa: E402
from clitest import check  # noqa: E402

LLAMA3_REGEX = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?"
                "[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
QWEN2_REGEX = LLAMA3_REGEX.replace("\\p{N}{1,3}", "\\p{N}")


def pre_tokenizer(regex):
    return {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
         "use_regex": False}]}


WORDS = ["!", "a", "b", "c", "Ġ", "Ġa", "ab", "Ġab", "abc", "ĠĠ", "Ġ Ġ".replace(" ", ""), "Ċ",
         "th", "Ġth", "the", "Ġthe", "▁x"]


def llama3_tokenizer(pair_merges=True):
    vocab = {}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
    merges = [["a", "b"], ["Ġ", "a"], ["Ġa", "b"], ["ab", "c"], ["t", "h"], ["Ġ", "th"],
              ["a b", "c"]]
    added = [{"id": 20, "content": "<|begin_of_text|>", "special": True, "normalized": False},
             {"id": 21, "content": "<|end_of_text|>", "special": True, "normalized": False},
             {"id": 22, "content": "<|eot_id|>", "special": True},
             {"id": 23, "content": "▁plain▁word", "special": False},
             {"id": 24, "content": "<|looks|>", "special": False}]
    return {"version": "1.0", "added_tokens": added, "normalizer": None,
            "pre_tokenizer": pre_tokenizer(LLAMA3_REGEX),
            "post_processor": {"type": "Sequence", "processors": [
                {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                 "use_regex": True},
                {"type": "TemplateProcessing",
                 "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                            {"Sequence": {"id": "A", "type_id": 0}}],
                 "pair": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                          {"Sequence": {"id": "A", "type_id": 0}},
                          {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 1}},
                          {"Sequence": {"id": "B", "type_id": 1}}],
                 "special_tokens": {}}]},
            "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                      "vocab": vocab,
                      "merges": merges if pair_merges else [" ".join(m) for m in merges]}}


def qwen2_tokenizer():
    t = llama3_tokenizer(pair_merges=False)
    t["pre_tokenizer"] = pre_tokenizer(QWEN2_REGEX)
    t["normalizer"] = {"type": "NFC"}
    t["post_processor"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                           "use_regex": False}
    t["model"]["ignore_merges"] = False
    t["added_tokens"] = [
        {"id": 20, "content": "<|endoftext|>", "special": True},
        {"id": 21, "content": "<|im_start|>", "special": True},
        {"id": 22, "content": "<|im_end|>", "special": True},
        {"id": 23, "content": "<think>", "special": False},
        {"id": 0, "content": "!", "special": False}]
    return t


def expected(folder, pre, vocab_size, out):
    """The converter's keys for a BPE folder, by get_vocab_base's rules and gguf-py's
    SpecialVocab."""
    gguf = v.gguf_module()
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        t = json.load(f)
    vocab = dict(t["model"]["vocab"])
    added = {a["content"]: a for a in t["added_tokens"]}
    for a in t["added_tokens"]:
        vocab[a["content"]] = a["id"]
    by_id = {i: s for s, i in vocab.items()}
    tokens, types = [], []
    for i in range(vocab_size):
        if i not in by_id:
            tokens.append(f"[PAD{i}]")
            types.append(5)
            continue
        s = by_id[i]
        if s in added:
            looks = s.startswith("<|") and s.endswith("|>")
            if added[s].get("special") or looks:
                types.append(3)
            else:
                s = s.replace("\u2581", " ")
                types.append(4)
        else:
            types.append(1)
        tokens.append(s)
    w = gguf.GGUFWriter(out, "llama")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types(types)
    gguf.SpecialVocab(folder, load_merges=True).add_to_gguf(w)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.close()
    return v.tokenizer_keys(out)


def run(work, name, files, arch, pre, vocab_size):
    d = v.folder(os.path.join(work, name), files)
    mine = os.path.join(work, name + ".cleave.gguf")
    r = v.cleave(d, arch, mine)
    if not check(r.returncode == 0, f"{name}: {r.stderr}"):
        return None
    keys = v.tokenizer_keys(mine)
    v.same_keys(keys, expected(d, pre, vocab_size, os.path.join(work, name + ".expected.gguf")),
                name)
    return keys


def value(keys, name):
    return next((k[2] for k in keys if k[0] == name), None)


def test_llama3(work):
    """Llama 3's layout: llama-bpe, pair merges (a space inside a pair written U+0120), padding
    from config.json, special tokens from tokenizer_config.json, add_bos from the template."""
    files = {"tokenizer.json": llama3_tokenizer(),
             "config.json": v.llama_config(vocab_size=32, bos_token_id=20, eos_token_id=[21, 22]),
             "tokenizer_config.json": {"bos_token": "<|begin_of_text|>",
                                       "eos_token": "<|eot_id|>", "chat_template": "{{ x }}"}}
    keys = run(work, "llama3", files, "llama", "llama-bpe", 32)
    if keys is not None:
        check("a\u0120b c" in value(keys, "tokenizer.ggml.merges"), "pair with a space")
        check(value(keys, "tokenizer.ggml.tokens")[23] == " plain word", "user-defined token")
        check(value(keys, "tokenizer.ggml.add_bos_token") is True, "add_bos")


def test_no_config_size(work):
    """Without vocab_size: as many tokens as texts (an added token that is in model.vocab counted
    once); with ids past that, refused as the converter's assertion refuses them."""
    t = qwen2_tokenizer()
    for a in t["added_tokens"]:
        a["id"] = a["id"] - 4 if a["id"] >= 20 else a["id"]
    run(work, "nosize", {"tokenizer.json": t, "config.json": {}}, "qwen2", "qwen2", 20)
    d = v.folder(os.path.join(work, "gap"), {"tokenizer.json": qwen2_tokenizer(),
                                            "config.json": {}})
    v.refused(d, "qwen2", work, 65, "token id 23", "size 20 (the number of tokens)")


def test_qwen(work):
    """Qwen2's layout for qwen2, qwen3 and the MoE architectures (which take tokenizer.json even
    beside a tokenizer.model); an added token that is also in the vocabulary."""
    spm = v.train_spm()
    for arch in ("qwen2", "qwen3", "qwen2moe", "qwen3moe"):
        files = {"tokenizer.json": qwen2_tokenizer(),
                 "config.json": {"vocab_size": 24, "eos_token_id": 20},
                 "tokenizer_config.json": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
                                           "add_bos_token": False, "bos_token": None}}
        if arch.endswith("moe"):
            files["tokenizer.model"] = spm
        keys = run(work, arch, files, arch, "qwen2", 24)
        if keys is not None:
            check(value(keys, "tokenizer.ggml.token_type")[23] == 4, f"{arch}: <think> type")


def test_merges_txt(work):
    """No merges in tokenizer.json: merges.txt (its '#' first line skipped, malformed lines
    skipped, CRLF and CR line ends)."""
    t = llama3_tokenizer()
    del t["model"]["merges"]
    files = {"tokenizer.json": t, "config.json": v.llama_config(vocab_size=25),
             "merges.txt": "#version: 0.2\r\na b\r\nĠ a\rbad\n\n  ab   c  \nx y z\n"}
    keys = run(work, "merges_txt", files, "llama", "llama-bpe", 25)
    if keys is not None:
        check(value(keys, "tokenizer.ggml.merges") == ["a b", "Ġ a", "ab c"],
              f"merges {value(keys, 'tokenizer.ggml.merges')}")


def test_refusals(work):
    """What cleave cannot decide from the files is refused, naming it; nothing is written."""
    cfg = v.llama_config(vocab_size=32)
    unknown = llama3_tokenizer()
    unknown["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\s+|\\w+"
    cases = [
        ("unknown_pre", {"tokenizer.json": unknown, "config.json": cfg}, "llama", 65,
         ["unknown BPE pre-tokenizer", "\\s+|\\w+", "architecture llama"]),
        ("no_pre", {"tokenizer.json": dict(llama3_tokenizer(), pre_tokenizer=None),
                    "config.json": cfg}, "llama", 65, ["pre_tokenizer: none"]),
        ("qwen_for_llama", {"tokenizer.json": qwen2_tokenizer(), "config.json": cfg}, "llama",
         65, ["qwen2's", "architecture llama"]),
        ("qwen_with_bos", {"tokenizer.json": dict(qwen2_tokenizer(),
                                                  post_processor=llama3_tokenizer()[
                                                      "post_processor"]),
                           "config.json": cfg}, "qwen2", 65, ["<|begin_of_text|>", "in front"]),
        ("llama_hf", {"tokenizer.json": dict(
            llama3_tokenizer(), decoder={"type": "Sequence", "decoders": []},
            model=dict(llama3_tokenizer()["model"], byte_fallback=True, ignore_merges=False)),
            "config.json": cfg}, "llama", 65, ["byte_fallback", "LlamaHfVocab"]),
        ("unigram", {"tokenizer.json": dict(llama3_tokenizer(), model={"type": "Unigram",
                                                                        "vocab": []}),
                     "config.json": cfg}, "qwen2", 65, ["model.type is Unigram"]),
        ("past_size", {"tokenizer.json": llama3_tokenizer(),
                       "config.json": v.llama_config(vocab_size=24)}, "llama", 65,
         ["token id 24", "vocab_size"]),
        ("nothing", {"config.json": cfg}, "llama", 66, ["tokenizer.model or tokenizer.json"]),
        ("arch", {"tokenizer.json": llama3_tokenizer(), "config.json": cfg}, "gemma", 65,
         ["architecture gemma"]),
    ]
    for name, files, arch, status, words in cases:
        d = v.folder(os.path.join(work, name), files)
        v.refused(d, arch, work, status, *words)


def vocab_file(name, work):
    """models/ggml-vocab-NAME.gguf of llama.cpp's source (its git clone), or None."""
    llama = v.llama_dir()
    out = os.path.join(work, f"ggml-vocab-{name}.gguf")
    with open(out, "wb") as f:
        r = subprocess.run(["git", "-C", llama, "show", f"HEAD:models/ggml-vocab-{name}.gguf"],
                           stdout=f, stderr=subprocess.PIPE)
    return out if r.returncode == 0 else None


def rebuilt_folder(gguf_path, regex, normalizer, post, work, name):
    """A folder whose tokenizer.json holds the tokens and merges of a llama.cpp vocabulary file:
    control and user-defined tokens as added tokens, the others in model.vocab."""
    keys = {k[0]: k[2] for k in v.tokenizer_keys(gguf_path)}
    tokens, types = keys["tokenizer.ggml.tokens"], keys["tokenizer.ggml.token_type"]
    vocab, added = {}, []
    for i, (s, t) in enumerate(zip(tokens, types)):
        if s == f"[PAD{i}]":
            continue
        if t in (3, 4):
            added.append({"id": i, "content": s, "special": t == 3})
        else:
            vocab[s] = i
    t = {"added_tokens": added, "normalizer": normalizer, "pre_tokenizer": pre_tokenizer(regex),
         "post_processor": post, "decoder": {"type": "ByteLevel"},
         "model": {"type": "BPE", "byte_fallback": False, "ignore_merges": True, "vocab": vocab,
                   "merges": keys["tokenizer.ggml.merges"]}}
    d = v.folder(os.path.join(work, name), {"tokenizer.json": t,
                                            "config.json": {"vocab_size": len(tokens)}})
    return d, keys


def test_llama_vocab_files(work):
    """llama.cpp's own vocabulary files give their tokens, types, merges and pre-tokenizer name
    back. (ggml-vocab-qwen2.gguf was written by an older converter that typed padding tokens
    USER_DEFINED, where the converter of this llama.cpp types them UNUSED: padding is compared by
    text only.)"""
    for name, regex, norm, arch in (("llama-bpe", LLAMA3_REGEX, None, "llama"),
                                    ("qwen2", QWEN2_REGEX, {"type": "NFC"}, "qwen2")):
        path = vocab_file(name, work)
        if not check(path is not None, f"models/ggml-vocab-{name}.gguf not in llama.cpp's source"):
            continue
        d, theirs = rebuilt_folder(path, regex, norm, None, work, name)
        out = os.path.join(work, name + ".cleave.gguf")
        r = v.cleave(d, arch, out)
        if not check(r.returncode == 0, f"{name}: {r.stderr}"):
            continue
        mine = {k[0]: k[2] for k in v.tokenizer_keys(out)}
        for key in ("tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
                    "tokenizer.ggml.merges"):
            check(mine.get(key) == theirs[key], f"{name}: {key} differs")
        tokens = theirs["tokenizer.ggml.tokens"]
        bad = [i for i, (a, b) in enumerate(zip(mine["tokenizer.ggml.token_type"],
                                                theirs["tokenizer.ggml.token_type"]))
               if a != b and tokens[i] != f"[PAD{i}]"]
        check(not bad, f"{name}: token types differ at {bad[:5]}")
