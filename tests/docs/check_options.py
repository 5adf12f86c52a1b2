#!/usr/bin/python3
"""The documentation lists every option of the commands' tables, and no other.

usage: check_options.py CLEAVE SOURCE_DIR [--selftest]

For each command of COMMANDS, the checker runs `cleave ARGS --help` and reads its options from the
option lines the parser prints (`  -o, --output OUTDIR  ...`, `      --dry-run  ...`; -h/--help
aside), then checks:

1. docs/cli.md: every option, by its short and its long name, is in the first column of an option
   table (a table whose first header is "option") of the command's subsections; and every option
   those tables list for the command is one its --help lists. A table with a "format" column
   restricts a row to the commands whose `only` word the cell holds ("safetensors", "GGUF"); an
   empty cell is a row for every command, and a command whose `only` is None (`cleave ls`, which
   finds the format) takes every row.
2. docs/cleave.1: every option, by its short and its long name, appears as mdoc writes it (`--axis`
   is `Fl -axis`, `-o` is `Fl o`) in one of the command's man page sections (.Sh). The checker
   reads the first argument of each Fl: write `.Fl o , Fl -output`, not `.Fl o , -output`.
3. docs/cleave.1, the other way: a synopsis block (a line `.Nm` followed by `.Cm` or `.Op Cm` lines
   naming the command, then macro lines up to `.Pp` or text) gives only flags of that command.
   Its last Cm word is the verb, the ones before it its format words: `.Op Cm st | gguf` then
   `.Cm ls` may give the options of `st ls` and of `gguf ls`, `.Cm shard` alone those of
   `cleave shard`. Blocks of commands COMMANDS does not hold are not read.
4. Every verb that `cleave st --help` and `cleave gguf --help` list is in COMMANDS, with and (when
   the overview `cleave --help` lists the verb) without its format word, unless that word is in
   ELSEWHERE (documented as another command).

Adding a command: append a Command to COMMANDS: its words after `cleave`, the docs/cli.md
subsections that document its options as (level-2 heading, level-3 heading or None), the .Sh
sections of the man page, the `only` word of its rows (None: every row), and `exact`: False when
its tables are shared with commands that take options it lacks, so that only the first direction
of check 1 applies. Commands of a build without them (onnx-test without ONNX) are reported by the
help run.

--selftest: the checker must be able to fail. It checks copies of the pages, each changed in one
way (a row removed, a row's format changed, a row added, a man page flag renamed, a command left
out of COMMANDS, and a help text with continuation lines that start with an option), and expects
exactly the problems each change makes.

Each run prints one line per problem and exits 1 if there is any. Python's standard library only
(Debian's /usr/bin/python3, as the other script tests).
"""
import os
import re
import subprocess
import sys
from collections import namedtuple

Command = namedtuple("Command", "words md man only exact")
Option = namedtuple("Option", "short long")
Problem = namedtuple("Problem", "kind command option text")

ST_MAN = ("SAFETENSORS CHECKPOINTS",)
GGUF_MAN = ("GGUF FILES",)
VERBS = ("ls", "check", "split", "shard", "merge", "reshard", "verify")
# The verbs whose word without a format is another command, documented as that one.
ELSEWHERE = {"split"}


def checkpoint_commands():
    """`cleave VERB`, `cleave st VERB` and `cleave gguf VERB`: each verb's subsection of
    "Checkpoints" in docs/cli.md, the format's section of the man page."""
    commands = []
    for verb in VERBS:
        md = (("Checkpoints", "`%s`" % verb),)
        if verb not in ELSEWHERE:
            commands.append(Command((verb,), md, ST_MAN + GGUF_MAN, None, True))
        commands.append(Command(("st", verb), md, ST_MAN, "safetensors", True))
        commands.append(Command(("gguf", verb), md, GGUF_MAN, "GGUF", True))
    # convert: a verb without a format's word (it reads safetensors and writes GGUF).
    commands.append(Command(("convert",), (("Checkpoints", "`convert`"),), GGUF_MAN, None, True))
    return commands


OPS = ("split", "variadic-split", "split-to-sequence", "onnx-split", "concat",
       "concat-from-sequence")
JOINS = ("concat", "concat-from-sequence")
OPERATOR_MD = (("Commands", "Operator options"),
               ("Commands", "Output options (the six operator commands on files)"))
JOINING_MD = (("Joining: `concat` and `concat-from-sequence`", None),)
INFER_MD = (("Shape inference: `cleave infer`", None),)
OPERATOR_MAN = ("COMMANDS", "OPTIONS")


def operator_commands():
    """The .npy operator commands, on files and under `cleave infer`, and the IR and ONNX
    commands. The operator commands share the tables of their options (each takes some of the
    operator options' rows): not exact. `demo` takes no option but -h, and is not listed."""
    commands = []
    for op in OPS:
        joining = JOINING_MD if op in JOINS else ()
        commands.append(Command((op,), OPERATOR_MD + joining, OPERATOR_MAN, None, False))
    commands.append(Command(("infer",), INFER_MD, OPERATOR_MAN, None, False))
    for op in OPS:
        joining = JOINING_MD if op in JOINS else ()
        commands.append(Command(("infer", op), INFER_MD + OPERATOR_MD[:1] + joining,
                                OPERATOR_MAN, None, False))
    for other in ("onnx-test", "ir-check", "ir-run"):
        commands.append(Command((other,), (("Other command families", "`%s`" % other),),
                                ("COMMANDS",), None, True))
    return commands


COMMANDS = checkpoint_commands() + operator_commands()

OPTION_LINE = re.compile(r"^(?:  -([A-Za-z0-9])(?:, --([A-Za-z0-9][\w-]*))?|"
                         r"      --([A-Za-z0-9][\w-]*))(?= |$)")


def name(command):
    return "cleave " + " ".join(command.words)


def label(option):
    return "/".join(x for x in ("-" + option.short if option.short else "",
                                "--" + option.long if option.long else "") if x)


def help_options(text):
    """The options of a --help text, from its option lines (-h/--help aside)."""
    found = []
    for line in text.split("\n"):
        m = OPTION_LINE.match(line)
        if m:
            option = Option(m.group(1), m.group(2) or m.group(3))
            if option.long != "help" and option not in found:
                found.append(option)
    return found


def run_help(cleave, words):
    """(options, problem text or None) of `cleave WORDS --help`."""
    try:
        r = subprocess.run([cleave] + list(words) + ["--help"], capture_output=True, text=True,
                           timeout=30, env=dict(os.environ, LC_ALL="C"))
    except OSError as e:
        return [], "cannot run %s: %s" % (cleave, e)
    usage = "usage: cleave " + " ".join(words)
    if r.returncode != 0 or not r.stdout.startswith(usage):
        return [], "exit %d, %r" % (r.returncode, (r.stdout + r.stderr)[:200])
    return help_options(r.stdout), r.stdout


# ---- docs/cli.md -------------------------------------------------------------------------------

def md_sections(text):
    """{(level-2 heading, level-3 heading or None): its lines}, outside fenced code."""
    sections, h2, h3, fence = {}, None, None, False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^(#{1,3}) +(.*?) *$", line)
        if m:
            if len(m.group(1)) <= 2:
                h2, h3 = m.group(2), None
            else:
                h3 = m.group(2)
            sections.setdefault((h2, h3), [])
            continue
        sections.setdefault((h2, h3), []).append(line)
    return sections


def cells(row):
    """The cells of a Markdown table row (`\\|` inside a cell is not a separator)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def option_rows(lines):
    """(option words of the first cell, the "format" cell or '') of each row of each option table
    of `lines`."""
    rows, header = [], None
    for line in lines + [""]:
        if not line.startswith("|"):
            header = None
            continue
        row = cells(line)
        if header is None:
            header = [c.lower() for c in row]
            continue
        if set("".join(row)) <= set("-: ") or header[0] != "option":
            continue
        words = [span.split()[0] for span in re.findall(r"`([^`]+)`", row[0])]
        words = [w for w in words if re.match(r"^--?[A-Za-z0-9][\w-]*$", w)]
        only = row[header.index("format")] if "format" in header else ""
        rows.append((words, only))
    return rows


def check_md(command, options, md_text, page="docs/cli.md"):
    problems, sections = [], md_sections(md_text)
    listed = set()
    for h2, h3 in command.md:
        where = "'%s'%s" % (h2, " > '%s'" % h3 if h3 else "")
        if (h2, h3) not in sections:
            problems.append(Problem("md-section", name(command), None,
                                    "%s: %s has no section %s" % (name(command), page, where)))
            continue
        lines = sections[(h2, h3)]
        if h3 is None:  # a level-2 section with its subsections
            lines = [x for k, v in sections.items() if k[0] == h2 for x in v]
        for words, only in option_rows(lines):
            applies = command.only is None or only == "" or command.only.lower() in only.lower()
            if applies:
                listed.update(words)
                for w in words if command.exact else []:
                    known = any(("--" + o.long if w.startswith("--") else "-" + str(o.short)) == w
                                for o in options)
                    if not known:
                        problems.append(Problem(
                            "md-extra", name(command), w,
                            "%s, section %s: the option table lists %s for %s, whose --help does "
                            "not" % (page, where, w, name(command))))
    for o in options:
        for w in ("--" + o.long if o.long else None, "-" + o.short if o.short else None):
            if w and w not in listed:
                problems.append(Problem(
                    "md-missing", name(command), w,
                    "%s: %s (its --help lists %s) is not in an option table of %s, section%s %s%s"
                    % (name(command), w, label(o), page, "s" if len(command.md) > 1 else "",
                     ", ".join("'%s'%s" % (a, " > '%s'" % b if b else "") for a, b in command.md),
                     " (rows for %s)" % command.only if command.only else "")))
    return problems


# ---- docs/cleave.1 -----------------------------------------------------------------------------

def man_sections(text):
    """{.Sh name: its text}."""
    found, current = {}, None
    for line in text.split("\n"):
        m = re.match(r"^\.Sh +(.*?) *$", line)
        if m:
            current = m.group(1)
            found[current] = []
        elif current is not None:
            found[current].append(line)
    return {k: "\n".join(v) for k, v in found.items()}


def has_flag(text, flag):
    return re.search(r"\bFl\s+" + re.escape(flag[1:]) + r"(?![\w-])", text) is not None


def check_man(command, options, man_text, page="docs/cleave.1"):
    problems, sections = [], man_sections(man_text)
    for sh in command.man:
        if sh not in sections:
            problems.append(Problem("man-section", name(command), None,
                                    "%s: %s has no section %s" % (name(command), page, sh)))
    text = "\n".join(sections.get(sh, "") for sh in command.man)
    for o in options:
        for w in ("--" + o.long if o.long else None, "-" + o.short if o.short else None):
            if w and not has_flag(text, w):
                problems.append(Problem(
                    "man-missing", name(command), w,
                    "%s: %s (its --help lists %s) is not in %s, section%s %s (as 'Fl %s')" %
                    (name(command), w, label(o), page, "s" if len(command.man) > 1 else "",
                     " or ".join(command.man), w[1:])))
    return problems


def synopsis_blocks(man_text):
    """(line number, command words, flags) of each synopsis block of the man page."""
    lines = man_text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() != ".Nm":
            continue
        j, words = i + 1, []
        while j < len(lines) and re.match(r"^\.(?:Op +)?Cm ", lines[j]):
            words += [w for w in re.sub(r"^\.(?:Op +)?Cm +", "", lines[j]).split()
                      if w not in ("|", "Cm")]
            j += 1
        flags = []
        while (j < len(lines) and lines[j].startswith(".") and
               not re.match(r"^\.(?:Pp|Nm|Sh|Ss|It|El|Bl)\b", lines[j])):
            flags += ["-" + f for f in re.findall(r"\bFl\s+(-?[A-Za-z0-9][\w-]*)", lines[j])]
            j += 1
        if words:
            yield i + 1, words, flags


def check_synopses(commands, helps, man_text, page="docs/cleave.1"):
    problems, by_words = [], {c.words: c for c in commands}
    for number, words, flags in synopsis_blocks(man_text):
        verb, formats = words[-1], words[:-1]
        targets = [(f, verb) for f in formats] if formats else [(verb,)]
        if not all(t in by_words for t in targets):
            continue
        allowed = set()
        for t in targets:
            for o in helps.get(t, []):
                allowed.update(x for x in ("--" + o.long if o.long else None,
                                           "-" + o.short if o.short else None) if x)
        shown = " ".join((["|".join(formats)] if formats else []) + [verb])
        for f in flags:
            if f not in allowed and f != "--help":
                problems.append(Problem(
                    "man-extra", " / ".join(name(by_words[t]) for t in targets), f,
                    "%s:%d: the synopsis of 'cleave %s' gives %s, which %s does not list" %
                    (page, number, shown, f,
                     " nor ".join("'%s --help'" % name(by_words[t]) for t in targets))))
    return problems


# ---- the commands themselves ---------------------------------------------------------------------

def check_families(commands, family_helps, overview):
    """Every verb of `cleave st --help` and `cleave gguf --help` is in `commands`, with its format
    word and, when the overview lists it, without."""
    problems, known = [], {c.words for c in commands}
    listed = set(re.findall(r"^  ([a-z][a-z-]*) ", overview.split("Commands:")[-1], re.M))
    for family, text in sorted(family_helps.items()):
        for verb in sorted(set(re.findall(r"cleave %s ([a-z][a-z-]*)\b" % family, text))):
            wanted = [(family, verb)]
            if verb in listed and verb not in ELSEWHERE:
                wanted.append((verb,))
            for words in wanted:
                if words not in known:
                    problems.append(Problem(
                        "command", "cleave " + " ".join(words), None,
                        "cleave %s: 'cleave %s --help' lists it but COMMANDS of "
                        "check_options.py does not: document it and add it there" %
                        (" ".join(words), family)))
    return problems


def check_all(commands, helps, md_text, man_text, family_helps, overview):
    problems = []
    for c in commands:
        problems += check_md(c, helps[c.words], md_text)
        problems += check_man(c, helps[c.words], man_text)
    problems += check_synopses(commands, helps, man_text)
    problems += check_families(commands, family_helps, overview)
    return problems


# ---- selftest ----------------------------------------------------------------------------------

FAKE_HELP = """usage: cleave fake MODEL

  -n, --num-splits RANKS   the number of ranks
      --axis GLOB=AXIS     split the tensors matching GLOB along AXIS (the first matching
                           --axis rule applies)
      --unmatched replicate|error  what happens to a tensor
  -q, --quiet              print nothing
  -V                       a short option alone
  -h, --help               print this help

Experts:
  --tensor '*.experts.{e}.w1.weight' -a 0 --into '*.experts.w1.weight'   (stack)
    --axis 'blk.*.attn_q.weight=0' \\
"""


def section_of(md_text, h2, h3):
    """The slice of md_text that is the level-3 section h3 of the level-2 section h2."""
    start = md_text.index("\n## %s\n" % h2)
    start = md_text.index("\n### %s\n" % h3, start)
    end = re.search(r"\n#{1,3} ", md_text[start + 1:])
    return start, start + 1 + end.start() if end else len(md_text)


def in_section(md_text, h3, old, new):
    a, b = section_of(md_text, "Checkpoints", h3)
    part = md_text[a:b]
    assert old in part, (h3, old)
    return md_text[:a] + part.replace(old, new, 1) + md_text[b:]


def selftest(commands, helps, md_text, man_text, family_helps, overview):
    base = set(check_all(commands, helps, md_text, man_text, family_helps, overview))
    failures = 0

    def expect(label, md, man, cmds, wanted):
        nonlocal failures
        got = set(check_all(cmds, helps, md, man, family_helps, overview))
        new = {(p.kind, p.command, p.option) for p in got - base}
        lost = base - got
        if new != set(wanted) or lost:
            failures += 1
            print("selftest %s: expected %s, got %s%s" %
                  (label, sorted(wanted), sorted(new), ", lost %s" % sorted(lost) if lost else ""))

    glob_row = [line for line in md_text.split("\n") if line.startswith("| `--glob PAT` |")][0]
    expect("row removed", in_section(md_text, "`ls`", glob_row + "\n", ""), man_text, commands,
           [("md-missing", "cleave ls", "--glob"), ("md-missing", "cleave st ls", "--glob"),
            ("md-missing", "cleave gguf ls", "--glob")])
    expect("format changed",
           in_section(md_text, "`ls`", "| `--metadata` | GGUF |", "| `--metadata` | safetensors |"),
           man_text, commands,
           [("md-extra", "cleave st ls", "--metadata"),
            ("md-missing", "cleave gguf ls", "--metadata")])
    expect("row added",
           in_section(md_text, "`verify`", "| `--json` |",
                      "| `--bogus` | | made up |\n| `--json` |"),
           man_text, commands,
           [("md-extra", "cleave verify", "--bogus"), ("md-extra", "cleave st verify", "--bogus"),
            ("md-extra", "cleave gguf verify", "--bogus")])
    a = man_text.index(".Sh SAFETENSORS CHECKPOINTS")
    b = man_text.index(".Sh GGUF FILES")
    doctored = man_text[:a] + man_text[a:b].replace("Fl -glob", "Fl -glab") + man_text[b:]
    expect("man flag renamed", md_text, doctored, commands,
           [("man-missing", "cleave st ls", "--glob"), ("man-extra", "cleave st ls", "--glab")])
    fewer = [c for c in commands if c.words != ("gguf", "reshard")]
    expect("command left out", md_text, man_text, fewer,
           [("command", "cleave gguf reshard", None)])

    got = help_options(FAKE_HELP)
    wanted = [Option("n", "num-splits"), Option(None, "axis"), Option(None, "unmatched"),
              Option("q", "quiet"), Option("V", None)]
    if got != wanted:
        failures += 1
        print("selftest help lines: expected %s, got %s" % (wanted, got))
    print("selftest: %s" % ("%d failed" % failures if failures else "the checker fails as it must"))
    return 1 if failures else 0


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--selftest"):
        sys.stderr.write(__doc__)
        return 2
    cleave, source = argv[1], argv[2]
    with open(os.path.join(source, "docs", "cli.md"), encoding="utf-8") as f:
        md_text = f.read()
    with open(os.path.join(source, "docs", "cleave.1"), encoding="utf-8") as f:
        man_text = f.read()
    problems, helps = [], {}
    for c in COMMANDS:
        options, text = run_help(cleave, c.words)
        helps[c.words] = options
        if not options:
            problems.append(Problem("help", name(c), None,
                                    "%s --help: no option lines (%s)" % (name(c), text[:200])))
    family_helps = {f: run_help(cleave, (f,))[1] for f in ("st", "gguf")}
    overview = subprocess.run([cleave, "--help"], capture_output=True, text=True,
                              timeout=30).stdout
    if len(argv) == 4:
        return selftest(COMMANDS, helps, md_text, man_text, family_helps, overview)
    problems += check_all(COMMANDS, helps, md_text, man_text, family_helps, overview)
    for p in problems:
        print(p.text)
    count = sum(len(v) for v in helps.values())
    print("%d commands, %d options: %s" % (len(COMMANDS), count,
                                           "%d problems" % len(problems) if problems else "ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
