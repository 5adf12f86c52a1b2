#!/usr/bin/python3
"""Checks the public header's macros: each is defined once and every name is prefixed.

  check_header.py HEADER [--selftest]

A macro may be defined in two branches of one #if/#elif/#else (only one of them is compiled); two
definitions that can be compiled together are a duplicate, even when their texts agree (C
accepts an identical redefinition silently, so only a check like this one sees it). Every macro
name starts with CLEAVE_ (the include guard included).

--selftest: the checker itself must be able to fail: a header with a macro defined twice, one
defined in both branches of an #if, and an unprefixed one must give exactly two problems.

Each run prints one line per problem and exits 1 if there is any, 0 otherwise. Python's
standard library only (Debian's /usr/bin/python3, as the other script tests).
"""
import re
import sys

DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\s*(\w*)")


def problems_of(text, name="header"):
    """Lists the problems of a header's text."""
    problems = []
    # The conditional branches enclosing a line: a path of (group number, branch number).
    path, groups, seen = [], 0, {}
    for number, line in enumerate(text.split("\n"), 1):
        m = DIRECTIVE.match(line)
        if not m:
            continue
        directive, word = m.group(1), m.group(2)
        if directive in ("if", "ifdef", "ifndef"):
            groups += 1
            path.append((groups, 0))
        elif directive in ("elif", "else") and path:
            group, branch = path.pop()
            path.append((group, branch + 1))
        elif directive == "endif" and path:
            path.pop()
        elif directive == "define":
            if not word.startswith("CLEAVE_"):
                problems.append("%s:%d: macro %s lacks the CLEAVE_ prefix" % (name, number, word))
            here = tuple(path)
            for other_line, other in seen.get(word, []):
                # Compiled together unless the paths part in two branches of one group.
                apart = any(a[0] == b[0] and a[1] != b[1] for a, b in zip(here, other))
                if not apart:
                    problems.append("%s:%d: macro %s is defined again (first at line %d)" %
                                    (name, number, word, other_line))
            seen.setdefault(word, []).append((number, here))
    return problems


def selftest():
    text = "\n".join([
        "#ifndef CLEAVE_T_H", "#define CLEAVE_T_H",
        "#define CLEAVE_TWICE 1",
        "#if defined(X)", "#define CLEAVE_BRANCH 1", "#else", "#define CLEAVE_BRANCH 2", "#endif",
        "#define CLEAVE_TWICE 1",
        "#define UNPREFIXED 3",
        "#endif",
    ])
    found = problems_of(text)
    ok = len(found) == 2 and "CLEAVE_TWICE" in found[0] and "UNPREFIXED" in found[1]
    if not ok:
        print("selftest: expected a duplicate CLEAVE_TWICE and an unprefixed macro, got %r" % found)
    return 0 if ok else 1


def main():
    if len(sys.argv) == 3 and sys.argv[2] == "--selftest":
        return selftest()
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    with open(sys.argv[1], encoding="utf-8") as fh:
        problems = problems_of(fh.read(), sys.argv[1])
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
