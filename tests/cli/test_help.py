#!/usr/bin/python3
"""--help of the tool and of each command explains every option of docs/cli.md; the man page names
them too; --version prints the command's and the library's versions."""
import os
import re
import shlex

import clitest
from clitest import check

OUTPUT_OPTIONS = ["-o, --output", "-f, --force", "--json", "-q, --quiet", "--no-progress",
                  "--dtype", "--shape", "-h, --help"]
OPTIONS = {
    "split": ["-a, --axis", "-n, --num-splits"] + OUTPUT_OPTIONS,
    "variadic-split": ["-a, --axis", "-l, --lengths"] + OUTPUT_OPTIONS,
    "split-to-sequence": ["-a, --axis", "-s, --split-size", "-l, --lengths", "-k, --keepdims",
                          "--opset"] + OUTPUT_OPTIONS,
    "onnx-split": ["--opset", "-a, --axis", "-l, --lengths", "-n, --num-splits"] +
                  OUTPUT_OPTIONS,
    "infer": ["--shape", "--dtype", "--json", "-h, --help"],
    "demo": [],
    "onnx-test": [],
}


def test_help():
    work = clitest.workdir("help")
    r = clitest.run(["--help"], work)
    check(r.returncode == 0 and r.stderr == "", f"--help: {r.returncode} {r.stderr!r}")
    for command in OPTIONS:
        check(re.search(r"^  " + re.escape(command) + " ", r.stdout, re.M) is not None,
              f"--help does not list {command}")
    for word in ["-V, --version", "64", "65", "66", "70", "73", "74"]:
        check(word in r.stdout, f"--help does not mention {word}")
    check(clitest.run(["-h"], work).stdout == r.stdout, "-h differs from --help")
    check(clitest.run(["help"], work).stdout == r.stdout, "help differs from --help")

    for command, options in OPTIONS.items():
        r = clitest.run([command, "--help"], work)
        check(r.returncode == 0 and r.stderr == "", f"{command} --help: {r.returncode}")
        check(r.stdout.startswith("usage: cleave " + command),
              f"{command} --help: {r.stdout[:60]!r}")
        for option in options:
            check(option in r.stdout, f"{command} --help does not explain {option}")
        check(clitest.run(["help", command], work).stdout == r.stdout,
              f"help {command} differs from {command} --help")
    # --help wins over the other options and needs no input.
    r = clitest.run(["split", "-a", "0", "--help"], work)
    check(r.returncode == 0 and "num-splits" in r.stdout, "split -a 0 --help")
    r = clitest.run(["infer", "split", "--help"], work)
    check(r.returncode == 0 and "--shape" in r.stdout, "infer split --help")

    # Help examples can be copied: a command wrapped over lines ends each but the last with a
    # backslash, and each command is whole shell words (no word or quote cut at a line's end).
    helps = [["--help"]] + [[c, "--help"] for c in OPTIONS] + \
        [["ir-check", "--help"], ["ir-run", "--help"], ["st", "--help"]] + \
        [["help", "st", sub] for sub in ("ls", "check", "split", "shard")] + \
        [["gguf", "--help"]] + [["gguf", sub, "--help"] for sub in ("ls", "check", "split",
                                                                     "shard", "merge")]
    examples = 0
    for args in helps:
        lines = clitest.run(args, work).stdout.splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("  cleave "):
                continue
            command = line
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + lines[i]
            examples += 1
            label = f"{' '.join(args)}: example {command.strip()!r}"
            try:
                words = shlex.split(command)
                check(words[0] == "cleave" and not command.endswith("\\"), label)
            except ValueError as e:
                check(False, f"{label}: {e}")
            after = lines[i + 1] if i + 1 < len(lines) else ""
            check(not re.match(r"^ {4,}\S", after) or after.lstrip().startswith("cleave "),
                  f"{label}: the next line {after!r} looks like its continuation")
    check(examples >= 2, f"only {examples} help examples found")

    # The man page documents every option too (mdoc spells --axis as "Fl -axis").
    source = os.environ.get("CLEAVE_SOURCE_DIR", "")
    with open(os.path.join(source, "docs", "cleave.1")) as f:
        man = f.read()
    for option in sorted({o.split(", ")[-1] for opts in OPTIONS.values() for o in opts} |
                         {"--sync", "--version"}):
        check("Fl " + option[1:] in man, f"the man page does not document {option}")
    for command in OPTIONS:
        check("Cm " + command in man, f"the man page does not document {command}")
    # NAME and SYNOPSIS name every command family of the overview.
    synopsis = man[man.index(".Sh SYNOPSIS"):man.index(".Sh DESCRIPTION")]
    overview = clitest.run(["--help"], work).stdout
    families = re.findall(r"^  ([a-z][a-z-]*)\b", overview.split("Commands:")[1].split("Options:")[0],
                          re.M)
    check(len(families) >= 10, f"the overview lists {families}")
    for family in families:
        check(f".Cm {family}\n" in synopsis, f"the man page's SYNOPSIS lacks {family}")
    name = man[man.index(".Sh NAME"):man.index(".Sh SYNOPSIS")]
    for word in (".npy", "ONNX", "OpenVINO IR", "safetensors", "GGUF"):
        check(word in name, f"the man page's NAME does not mention {word}")

    # --version: the command's version (the project's, CMakeLists.txt) and the library's
    # (include/cleave.h); in one build they are the same release.
    with open(os.path.join(source, "include", "cleave.h")) as f:
        header = f.read()
    library = ".".join(re.search(r"#define CLEAVE_VERSION_%s (\d+)" % p, header).group(1)
                       for p in ("MAJOR", "MINOR", "PATCH"))
    with open(os.path.join(source, "CMakeLists.txt")) as f:
        project = re.search(r"project\(cleave VERSION (\d+\.\d+\.\d+)", f.read()).group(1)
    check(project == library, f"CMakeLists.txt says {project}, cleave.h says {library}")
    r = clitest.run(["--version"], work)
    check(r.returncode == 0 and r.stdout == f"cleave {project} (libcleave {library})\n",
          f"--version printed {r.stdout!r}, expected cleave {project} (libcleave {library})")
    check(clitest.run(["-V"], work).stdout == r.stdout, "-V differs from --version")
    # Neither takes an argument: an extra word is a usage error, with nothing on stdout.
    for args in (["--version", "extra"], ["-V", "extra"], ["--help", "extra"], ["-h", "x.npy"]):
        clitest.expect_failure(" ".join(args), args, work, 64, [args[0], f"'{args[1]}'"])


def test_exit_statuses():
    """The overview's exit statuses are every status cleave gives (1 included: verify's
    differences, ir-check's layers not OK, onnx-test's failed tests), and docs/cli.md's table and
    the man page's EXIT STATUS list the same ones."""
    work = clitest.workdir("help-statuses")
    overview = clitest.run(["--help"], work).stdout
    paragraph = overview[overview.index("Exit status:"):].split("\n\n")[0]
    in_help = [int(s) for s in re.findall(r"(?:^|[:;] )(\d+) ", paragraph.replace("\n", " "))]
    expected = [0, 1, 64, 65, 66, 70, 73, 74]
    check(in_help == expected, f"--help lists the statuses {in_help}, expected {expected}")
    source = os.environ.get("CLEAVE_SOURCE_DIR", "")
    with open(os.path.join(source, "docs", "cli.md")) as f:
        page = f.read()
    table = page[page.index("## Exit statuses"):].split("\n\n")[1]
    in_page = [int(s) for s in re.findall(r"^\| (\d+) \|", table, re.M)]
    check(in_page == expected, f"docs/cli.md's table lists {in_page}, expected {expected}")
    with open(os.path.join(source, "docs", "cleave.1")) as f:
        man = f.read()
    section = man[man.index(".Sh EXIT STATUS"):].split("\n.El")[0]
    in_man = [int(s) for s in re.findall(r"^\.It (\d+)$", section, re.M)]
    check(in_man == expected, f"cleave.1's EXIT STATUS lists {in_man}, expected {expected}")
    # Status 1 is explained in each, with its three commands.
    for where, text in (("--help", paragraph), ("cleave.1", section)):
        for command in ("verify", "ir-check", "onnx-test"):
            check(command in text, f"{where}: status 1 does not name {command}")
