"""What the vocabulary tests share: llama.cpp's converter run on a folder (--vocab-only), cleave's
vocabulary of the same folder (the vocab_gguf test program, $CLEAVE_VOCAB_GGUF), the tokenizer.*
keys of both read with gguf-py's reader, and tiny SentencePiece models.

llama.cpp (its converter and gguf-py) comes from tests/gguf/llama/setup.sh; when it cannot be had
the tests that need it are skipped (under CI, failed)."""
import io
import json
import os
import subprocess
import sys

import pytest

from clitest import check

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SETUP = os.path.join(ROOT, "tests", "gguf", "llama", "setup.sh")
STUB = os.path.join(HERE, "stub")
_llama = None


def llama_dir():
    """The folder setup.sh installed llama.cpp in (its llama.cpp/ has the converter)."""
    global _llama
    if _llama is None:
        r = subprocess.run(["sh", SETUP], capture_output=True, text=True, timeout=1200,
                           stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            reason = ("llama.cpp (tests/gguf/llama/setup.sh) cannot be had here: "
                      + (r.stderr.strip().splitlines() or ["no message"])[-1])
            if os.environ.get("CI") == "true":
                pytest.fail(reason + " (under CI this test must run)")
            pytest.skip(reason)
        _llama = os.path.join(r.stdout.strip().splitlines()[-1], "llama.cpp")
        sys.path.insert(0, os.path.join(_llama, "gguf-py"))
    return _llama


def gguf_module():
    llama_dir()
    import gguf
    return gguf


def vocab_gguf():
    exe = os.environ.get("CLEAVE_VOCAB_GGUF") or os.path.join(ROOT, "build", "tests", "convert",
                                                              "vocab_gguf")
    if not os.access(exe, os.X_OK):
        pytest.fail(f"no vocab_gguf at {exe}: build it or set CLEAVE_VOCAB_GGUF", pytrace=False)
    return exe


def convert(folder, out):
    """llama.cpp's converter, --vocab-only, into `out`; its completed process."""
    llama = llama_dir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([STUB, os.path.join(llama, "gguf-py")]))
    return subprocess.run([sys.executable, os.path.join(llama, "convert_hf_to_gguf.py"), folder,
                           "--vocab-only", "--outfile", out], capture_output=True, text=True,
                          env=env, timeout=600)


def cleave(folder, arch, out):
    """cleave's vocabulary of `folder` as a GGUF of metadata only; its completed process."""
    return subprocess.run([vocab_gguf(), folder, arch, out], capture_output=True, text=True,
                          timeout=600)


def tokenizer_keys(path):
    """[(key, value types, value)] of the tokenizer.* keys of a GGUF file, in its order."""
    gguf = gguf_module()
    reader = gguf.GGUFReader(path)
    return [(f.name, [int(t) for t in f.types], f.contents()) for f in reader.fields.values()
            if f.name.startswith("tokenizer.")]


def same_keys(mine, theirs, what):
    """Checks that two lists of tokenizer_keys are equal, naming the first difference."""
    names = [k[0] for k in mine], [k[0] for k in theirs]
    if not check(names[0] == names[1], f"{what}: keys {names[0]} != converter's {names[1]}"):
        return False
    ok = True
    for a, b in zip(mine, theirs):
        if a != b:
            detail = ""
            if isinstance(a[2], list) and isinstance(b[2], list) and len(a[2]) == len(b[2]):
                i = next(i for i in range(len(a[2])) if a[2][i] != b[2][i] or a[1] != b[1])
                detail = f" (first at {i}: {a[2][i]!r} != {b[2][i]!r})"
            elif isinstance(a[2], list) and isinstance(b[2], list):
                detail = f" ({len(a[2])} items != {len(b[2])})"
            else:
                detail = f" ({str(a[2])[:200]!r} != {str(b[2])[:200]!r})"
            ok = check(False, f"{what}: {a[0]}: types {a[1]} vs {b[1]}{detail}") and ok
    return ok


def compare_with_converter(folder, arch, work):
    """Converts `folder` with both and checks that the tokenizer.* keys are the same; returns
    cleave's keys (or None when a side failed)."""
    theirs, mine = os.path.join(work, "converter.gguf"), os.path.join(work, "cleave.gguf")
    r = convert(folder, theirs)
    if not check(r.returncode == 0, f"converter on {folder}: {r.stderr[-3000:]}"):
        return None
    c = cleave(folder, arch, mine)
    if not check(c.returncode == 0, f"vocab_gguf on {folder}: {c.stderr}"):
        return None
    keys = tokenizer_keys(mine)
    same_keys(keys, tokenizer_keys(theirs), os.path.basename(folder))
    return keys


def refused(folder, arch, work, status, *words):
    """Checks that cleave refuses `folder` with `status`, every word in its message, and no
    output."""
    out = os.path.join(work, "refused.gguf")
    if os.path.exists(out):
        os.remove(out)
    r = cleave(folder, arch, out)
    check(r.returncode == status, f"{folder}: status {r.returncode}, not {status}: {r.stderr}")
    for w in words:
        check(w in r.stderr, f"{folder}: {w!r} not in the message: {r.stderr}")
    check(not os.path.exists(out), f"{folder}: an output was written")
    return r.stderr


TEXT = ["The quick brown fox jumps over the lazy dog.", "Hello world, hello cleave!",
        "Ünïcödé tëxt and 数字 123 456.", "Sentence piece makes tokens of text.",
        "A small corpus for a tiny model, with a tab\tand two  spaces."] * 20


def train_spm(model_type="bpe", vocab_size=330, byte_fallback=True, user=(), control=(),
              **options):
    """A tokenizer.model trained on TEXT (bytes)."""
    import sentencepiece
    out = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXT), model_writer=out, vocab_size=vocab_size,
        model_type=model_type, byte_fallback=byte_fallback, user_defined_symbols=list(user),
        control_symbols=list(control), hard_vocab_limit=False, minloglevel=2, **options)
    return out.getvalue()


def edit_spm(data, change):
    """The model `data` with change(ModelProto) applied."""
    from sentencepiece import sentencepiece_model_pb2 as pb
    m = pb.ModelProto()
    m.ParseFromString(data)
    change(m)
    return m.SerializeToString()


def llama_config(**extra):
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 16,
              "intermediate_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
              "num_hidden_layers": 1, "vocab_size": 340, "max_position_embeddings": 64,
              "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "bos_token_id": 1,
              "eos_token_id": 2, "torch_dtype": "float32", "tie_word_embeddings": False}
    config.update(extra)
    return {k: v for k, v in config.items() if v is not None}


def folder(path, files):
    """Makes the folder `path` with `files` {name: bytes, str, or JSON value}."""
    os.makedirs(path, exist_ok=True)
    for name, content in files.items():
        target = os.path.join(path, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if isinstance(content, bytes):
            data = content
        elif isinstance(content, str):
            data = content.encode("utf-8")
        else:
            data = json.dumps(content, ensure_ascii=False).encode("utf-8")
        with open(target, "wb") as f:
            f.write(data)
    return path
