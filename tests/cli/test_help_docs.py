#!/usr/bin/python3
"""The documentation agrees with the option tables: every option a command's --help lists (the
parser prints those lines from the command's table) is documented where the man page
(docs/cleave.1) and docs/cli.md describe that command. Covers the .npy operator commands, `infer`
and `infer OP`, `demo`, `ir-check`, `ir-run` and `onnx-test`."""
import os
import re

import clitest
from clitest import check

OPS = ["split", "variadic-split", "split-to-sequence", "onnx-split", "concat",
       "concat-from-sequence"]
# What `cleave help` lists for each: the words to type.
COMMANDS = [[op] for op in OPS] + [["infer"]] + [["infer", op] for op in OPS] + \
    [["demo"], ["ir-check"], ["ir-run"], ["onnx-test"]]


def help_options(text):
    """(short or '', long) of each option line of a --help: '  -a, --axis AXIS  ...' or
    '      --json  ...'."""
    return re.findall(r"^  (?:-(\w), |    )--([a-z0-9][a-z0-9-]*)", text, re.M)


def section(text, start, end):
    """text from the line `start` up to the line `end` (both regular expressions)."""
    m = re.search(start, text, re.M)
    if m is None:
        return ""
    rest = text[m.start():]
    n = re.search(end, rest[1:], re.M)
    return rest if n is None else rest[:n.start() + 1]


def man_item(man, command):
    """The .It Cm COMMAND item of the man page's COMMANDS section."""
    commands = section(man, r"^\.Sh COMMANDS$", r"^\.Sh ")
    return section(commands, r"^\.It Cm " + re.escape(command) + r"\b", r"^\.It ")


def man_flags(text):
    """Every flag the mdoc text names: the words after each Fl up to the next macro
    ('.Fl a , Fl -axis Ar axis' names a and -axis; '.Fl o , -output , f' names o, -output, f)."""
    flags = set()
    for line in text.splitlines():
        words = line.split()
        for i, word in enumerate(words):
            if word not in ("Fl", ".Fl"):
                continue
            for w in words[i + 1:]:
                if re.fullmatch(r"[A-Z][a-z][a-z]?", w):
                    break
                w = w.strip(",;:.()")
                if w:
                    flags.add(w)
    return flags


def md_names(text, option):
    """Whether the Markdown text names the option (a word of its own: '-a', '--axis')."""
    return re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", text) is not None


def main():
    work = clitest.workdir("help_docs")
    source = os.environ.get("CLEAVE_SOURCE_DIR", "")
    with open(os.path.join(source, "docs", "cleave.1")) as f:
        man = f.read()
    with open(os.path.join(source, "docs", "cli.md")) as f:
        md = f.read()
    man_options = section(man, r"^\.Sh OPTIONS$", r"^\.Sh ")
    md_operators = section(md, r"^## Commands$", r"^## JSON output$")
    # -h/--help is every command's: documented once.
    check({"h", "-help"} <= man_flags(man_options), "the man page's OPTIONS lack -h, --help")
    check(md_names(md_operators, "-h") and md_names(md_operators, "--help"),
          "docs/cli.md does not document -h, --help for the commands")
    built_with_onnx = os.environ.get("CLEAVE_WITH_ONNX", "OFF").upper() in ("ON", "1", "TRUE")
    listed = 0
    for words in COMMANDS:
        r = clitest.run(words + ["--help"], work)
        name = " ".join(words)
        check(r.returncode == 0 and r.stdout.startswith("usage: cleave " + name),
              f"{name} --help: {r.returncode} {r.stdout[:60]!r}")
        options = help_options(r.stdout)
        check(("h", "help") in options, f"{name} --help does not list -h, --help")
        if words[0] == "onnx-test" and not built_with_onnx:
            continue
        if words[0] in ("ir-check", "ir-run", "onnx-test"):
            man_text = man_item(man, words[0])
            md_text = section(md, r"^- `cleave " + re.escape(words[0]) + r"\b", r"^(- |$)")
        else:
            man_text = "".join(man_item(man, w) for w in words) + man_options
            md_text = md_operators
        check(man_text != "" and md_text != "", f"no documentation of {name} found")
        flags = man_flags(man_text)
        for short, long in options:
            if long == "help":
                continue
            listed += 1
            check("-" + long in flags, f"the man page does not document {name}'s --{long}")
            check(md_names(md_text, "--" + long), f"docs/cli.md does not document {name}'s --{long}")
            if short:
                check(short in flags, f"the man page does not document {name}'s -{short}")
                check(md_names(md_text, "-" + short),
                      f"docs/cli.md does not document {name}'s -{short}")
    check(listed >= 60, f"only {listed} options found in the --help texts")
    clitest.finish()


if __name__ == "__main__":
    main()
