#!/usr/bin/python3
"""No user document cites what users do not have: the project's internal specifications, its
issue tracker, or a "contract" other than docs/cli.md (which users have).

usage: check_citations.py ROOT

Reads README.md, CHANGELOG.md, every file of docs/ (but docs/examples/), every tracked README.md
and bench/RESULTS.md, and fails on: the names of the internal specifications (SEMANTICS.md,
CLI.md spelled in capitals), "the project's contract" or a section of it ("§"), and issue
numbers ("issue 17", "the issue"). Python's standard library only.
"""
import os
import re
import sys

PATTERNS = [
    (re.compile(r"SEMANTICS\.md"), "an internal specification"),
    (re.compile(r"\bCLI\.md"), "an internal specification (docs/cli.md is spelled in lower case)"),
    (re.compile(r"project's contract|contract's section|contract rule|where (even )?the contract "
                r"is silent"), "a contract users do not have"),
    (re.compile(r"§"), "a section of a contract users do not have"),
    (re.compile(r"\b[Ii]ssues? #?\d+|\b[Tt]he issue\b|\bissue's\b"), "the issue tracker"),
]


def documents(root):
    found = ["README.md", "CHANGELOG.md", os.path.join("bench", "RESULTS.md")]
    for top, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".", "venv")) and
                   d != "conformance"]
        rel = os.path.relpath(top, root)
        for name in names:
            path = os.path.normpath(os.path.join(rel, name))
            if name == "README.md" and path != "README.md":
                found.append(path)
            elif rel.split(os.sep)[0] == "docs" and not path.startswith(
                    os.path.join("docs", "examples")):
                found.append(path)
    return sorted(set(found))


def main(root):
    problems = []
    checked = 0
    for path in documents(root):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            continue
        checked += 1
        with open(full, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for pattern, what in PATTERNS:
                    m = pattern.search(line)
                    if m:
                        problems.append(f"{path}:{number}: '{m.group(0)}' cites {what}")
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    if checked < 10:
        print(f"FAIL: only {checked} documents found under {root}", file=sys.stderr)
        return 1
    print(f"{checked} documents checked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
