#!/usr/bin/python3
"""Runs the README's ```sh blocks as a reader would: in order, in one shell, from the root of a
fresh copy of the repository's tracked files (a clone, without its history).

usage: run_blocks.py SOURCE_DIR [--keep]
       run_blocks.py --selftest

A block may be marked by an HTML comment on the line before its fence (invisible on the rendered
page):

  <!-- readme-test: skip (REASON) -->      not run (it needs root or the network, say), only
                                           checked for shell syntax (`sh -n`); REASON is required
  <!-- readme-test: fixture NAME (WHY) --> before the block runs, the test makes NAME, which the
                                           text tells the reader to bring: `app.c` (the README's
                                           C example), `phi3-mini` (a stand-in of that
                                           checkpoint: Phi-3's tensor names and files, small
                                           shapes) or `gguf` (model.gguf and moe.gguf with
                                           llama.cpp's tensor names)

The blocks run with `sh -e -x` and HOME in a temporary folder; any failing command fails the
test, which then prints the trace and names the block. After the run, the files the README says
its commands write must exist. --keep leaves the copy in place; --selftest checks that the runner
fails on a failing block, names it, and runs blocks in order in one shell.

Python's standard library only (Debian's /usr/bin/python3, as the other script tests).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

MARK = re.compile(r"^<!--\s*readme-test:\s*(skip|fixture)\s*(.*?)\s*-->\s*$")
# What the README's commands write, relative to the copy's root: a run that skipped a block by
# mistake, or a command that wrote elsewhere, fails here.
EXPECTED = ["build/tools/cleave", "app", "x_2.npy", "parts/x_2.npy", "seq_2.npy", "four_3.npy",
            "packed_1.npy", "out_2.npy", "phi3-llama/model.safetensors.index.json",
            "phi3-llama/config.json", "phi3-llama/tokenizer.json", "tp4/rank3.safetensors",
            "out/moe.gguf", "tp2/rank1.gguf", "merged.gguf", "venv/bin/python"]


def blocks(text):
    """Yields (line number, mark kind or None, mark argument, code) for each ```sh block."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.rstrip() != "```sh":
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"line {i + 1}: the ```sh block is not closed")
        mark = MARK.match(lines[i - 1]) if i > 0 else None
        yield (i + 1, mark.group(1) if mark else None, mark.group(2) if mark else "",
               "\n".join(lines[i + 1:end]) + "\n")


def tracked_files(root):
    """The files git tracks (as they are in the work tree); without git (CI runs the suite in a
    copy of those files), every file outside build folders and git's own."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        files = [p for p in out.decode().split("\0") if p]
        return [p for p in files if os.path.lexists(os.path.join(root, p))]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for top, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(("build", "_build", ".git", "venv"))]
            found += [os.path.relpath(os.path.join(top, n), root) for n in names]
        return found


def copy_tree(root, dest):
    for rel in tracked_files(root):
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(root, rel), target, follow_symlinks=False)


def safetensors(path, tensors):
    """Writes `tensors` (name -> (dtype, shape, bytes)) as the reference writer lays them out
    (enough for a stand-in: one dtype, names sorted)."""
    head, data = {}, b""
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        head[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(head, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def fixture_phi3(dest):
    """phi3-mini/: Phi-3-mini's tensor names, shards and files, with hidden size 8, MLP size 16,
    a vocabulary of 12 and 2 layers (BF16, distinct bytes so that moved data would show)."""
    folder = os.path.join(dest, "phi3-mini")
    os.makedirs(folder)
    hidden, mlp, vocab, layers = 8, 16, 12, 2
    counter = [0]

    def bf16(*shape):
        n = 1
        for d in shape:
            n *= d
        raw = bytes((counter[0] + k) % 251 for k in range(2 * n))
        counter[0] += 7
        return ("BF16", list(shape), raw)

    shards = [{}, {}]
    shards[0]["model.embed_tokens.weight"] = bf16(vocab, hidden)
    for layer in range(layers):
        p = f"model.layers.{layer}."
        shard = shards[layer]
        shard[p + "self_attn.qkv_proj.weight"] = bf16(3 * hidden, hidden)
        shard[p + "self_attn.o_proj.weight"] = bf16(hidden, hidden)
        shard[p + "mlp.gate_up_proj.weight"] = bf16(2 * mlp, hidden)
        shard[p + "mlp.down_proj.weight"] = bf16(hidden, mlp)
        shard[p + "input_layernorm.weight"] = bf16(hidden)
        shard[p + "post_attention_layernorm.weight"] = bf16(hidden)
    shards[1]["model.norm.weight"] = bf16(hidden)
    shards[1]["lm_head.weight"] = bf16(vocab, hidden)
    weight_map, total = {}, 0
    for k, shard in enumerate(shards):
        name = f"model-0000{k + 1}-of-00002.safetensors"
        safetensors(os.path.join(folder, name), shard)
        for tensor, (_, _, raw) in shard.items():
            weight_map[tensor] = name
            total += len(raw)
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    config = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3",
              "auto_map": {"AutoConfig": "configuration_phi3.Phi3Config",
                           "AutoModelForCausalLM": "modeling_phi3.Phi3ForCausalLM"},
              "hidden_size": hidden, "intermediate_size": mlp, "num_attention_heads": 2,
              "num_key_value_heads": 2, "num_hidden_layers": layers, "vocab_size": vocab,
              "hidden_act": "silu", "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
              "rope_scaling": None, "sliding_window": 2047, "max_position_embeddings": 4096,
              "torch_dtype": "bfloat16"}
    files = {"config.json": json.dumps(config, indent=2), "generation_config.json": "{}",
             "tokenizer.json": "{}", "tokenizer_config.json": "{}", "tokenizer.model": "",
             "special_tokens_map.json": "{}", "added_tokens.json": "{}",
             "configuration_phi3.py": "", "modeling_phi3.py": ""}
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)


def fixture_gguf(dest):
    """model.gguf (llama.cpp's names for a Llama-style model: 2 blocks, hidden size 64, F16 and
    Q8_0 matrices) and moe.gguf (fused gate/up experts), written by the GGUF test suite's own
    independent writer (tests/gguf/gguf_util.py of the copy)."""
    sys.path[:0] = [os.path.join(dest, "tests", "gguf"), os.path.join(dest, "tests", "cli")]
    import gguf_util
    hidden, ff, vocab = 64, 128, 32

    def f16(*shape):
        n = 1
        for d in shape:
            n *= d
        return bytes((k * 7) % 251 for k in range(2 * n))

    def q8(rows, cols):  # Q8_0: blocks of 32 elements in 34 bytes along the innermost axis
        return bytes((k * 3) % 251 for k in range(rows * cols // 32 * 34))

    meta = [("general.architecture", "str", "llama"), ("general.name", "str", "stand-in"),
            ("llama.block_count", "u32", 2), ("llama.embedding_length", "u32", hidden),
            ("llama.rope.freq_base", "f32", 10000.0)]
    tensors = [("token_embd.weight", "F16", (vocab, hidden), f16(vocab, hidden))]
    for b in range(2):
        p = f"blk.{b}."
        tensors += [(p + "attn_norm.weight", "F32", (hidden,), bytes(4 * hidden)),
                    (p + "attn_q.weight", "Q8_0", (hidden, hidden), q8(hidden, hidden)),
                    (p + "attn_k.weight", "Q8_0", (hidden, hidden), q8(hidden, hidden)),
                    (p + "attn_v.weight", "Q8_0", (hidden, hidden), q8(hidden, hidden)),
                    (p + "attn_output.weight", "Q8_0", (hidden, hidden), q8(hidden, hidden)),
                    (p + "ffn_norm.weight", "F32", (hidden,), bytes(4 * hidden)),
                    (p + "ffn_gate.weight", "F16", (ff, hidden), f16(ff, hidden)),
                    (p + "ffn_up.weight", "F16", (ff, hidden), f16(ff, hidden)),
                    (p + "ffn_down.weight", "F16", (hidden, ff), f16(hidden, ff))]
    tensors += [("output_norm.weight", "F32", (hidden,), bytes(4 * hidden)),
                ("output.weight", "F16", (vocab, hidden), f16(vocab, hidden))]
    gguf_util.write_gguf(os.path.join(dest, "model.gguf"), meta, tensors)
    experts = 4
    moe_meta = meta + [("llama.expert_count", "u32", experts)]
    moe = [(f"blk.{b}.ffn_gate_up_exps.weight", "F16", (experts, 2 * ff, hidden),
            f16(experts, 2 * ff, hidden)) for b in range(2)]
    moe += [(f"blk.{b}.ffn_down_exps.weight", "F16", (experts, hidden, ff),
             f16(experts, hidden, ff)) for b in range(2)]
    gguf_util.write_gguf(os.path.join(dest, "moe.gguf"), moe_meta, moe)


def fixture_app(dest, readme_text):
    """app.c: the README's first ```c block, which the text tells the reader to save."""
    m = re.search(r"^```c\n(.*?)^```", readme_text, re.S | re.M)
    if m is None:
        raise ValueError("README.md has no ```c block for app.c")
    with open(os.path.join(dest, "app.c"), "w") as f:
        f.write(m.group(1))


def make_fixture(argument, dest, readme_text):
    name = argument.split()[0] if argument else ""
    if name == "phi3-mini":
        fixture_phi3(dest)
    elif name == "gguf":
        fixture_gguf(dest)
    elif name == "app.c":
        fixture_app(dest, readme_text)
    else:
        raise ValueError(f"unknown fixture {argument!r}")


def run_readme(readme_text, dest, home, expected):
    """Runs the blocks in `dest`; returns a list of failures (empty when all ran)."""
    failures = []
    script = ["set -e"]
    ran = 0
    for line, kind, argument, code in blocks(readme_text):
        if kind == "skip":
            if not re.match(r"^\(\S.*\)$", argument):
                failures.append(f"line {line}: a skipped block needs a reason in parentheses")
            syntax = subprocess.run(["sh", "-n"], input=code, text=True, capture_output=True)
            if syntax.returncode != 0:
                failures.append(f"line {line}: skipped block is not valid sh: {syntax.stderr}")
            continue
        if kind == "fixture":
            make_fixture(argument, dest, readme_text)
        script.append(f"echo '== README.md line {line}' >&2")
        script.append(code)
        ran += 1
    if ran == 0:
        failures.append("no block ran")
        return failures
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CLEAVE_CHUNK_BYTES", "DESTDIR")}
    env["HOME"] = home
    env["LC_ALL"] = "C.UTF-8"
    path = os.path.join(dest, ".readme-blocks.sh")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run(["sh", "-e", "-x", path], cwd=dest, env=env, capture_output=True,
                       text=True, timeout=1500)
    os.remove(path)
    if r.returncode != 0:
        at = re.findall(r"== README.md line (\d+)", r.stderr)
        tail = "\n".join((r.stdout + r.stderr).splitlines()[-60:])
        failures.append(f"the block at README.md line {at[-1] if at else '?'} failed with status "
                        f"{r.returncode}:\n{tail}")
        return failures
    for rel in expected:
        if not os.path.exists(os.path.join(dest, rel)):
            failures.append(f"after the blocks, {rel} does not exist")
    print(f"{ran} blocks ran")
    return failures


def selftest():
    """The runner fails on a failing block and names it; blocks share one shell, in order."""
    with tempfile.TemporaryDirectory() as work:
        good = ("x\n\n```sh\nexport A=1\n```\n\n<!-- readme-test: skip (needs root) -->\n"
                "```sh\nfalse\n```\n\n```sh\ntest \"$A\" = 1 && touch made\n```\n")
        bad = good + "\n```sh\ntrue\nfalse\necho never\n```\n"
        unexplained = "```sh\ntrue\n```\n<!-- readme-test: skip -->\n```sh\ntrue\n```\n"
        problems = []
        if run_readme(good, work, work, ["made"]):
            problems.append("a good README failed")
        failures = run_readme(bad, work, work, [])
        if not failures or "README.md line 16 failed" not in failures[0]:
            problems.append(f"a failing block was not reported at its line: {failures}")
        if not run_readme(unexplained, work, work, []):
            problems.append("a skipped block without a reason passed")
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    return 1 if problems else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    source = os.path.abspath(argv[1])
    with open(os.path.join(source, "README.md")) as f:
        text = f.read()
    work = tempfile.mkdtemp(prefix="cleave-readme-")
    try:
        dest = os.path.join(work, "cleave")
        home = os.path.join(work, "home")
        os.makedirs(home)
        copy_tree(source, dest)
        failures = run_readme(text, dest, home, EXPECTED)
    finally:
        if "--keep" in argv:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
