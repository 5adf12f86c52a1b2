#!/usr/bin/python3
"""Checks the extension's layout table in python/README.md against the built object files.

  check_layers.py README SRC OBJDIR

README's table lists every file of SRC (python/src) bottom to top with the files it may use.
From the objects in OBJDIR (nm), each file must use only files in its "may use" column, and that
column must name only files listed above it (so that the files form layers, without circles).
Prints one line per problem and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys


def table(readme):
    """[(stem, [allowed stems])] in the table's order."""
    rows = []
    for line in open(readme, encoding="utf-8"):
        m = re.match(r"\|\s*`([a-z_]+)\.c`\s*\|.*\|\s*([^|]*?)\s*\|\s*$", line)
        if m:
            allowed = [] if m.group(2) == "nothing" else re.findall(r"`([a-z_]+)`", m.group(2))
            rows.append((m.group(1), allowed))
    return rows


def uses(src, objdir):
    """{stem: set of stems whose symbols it uses}, for the .c files of src."""
    stems = sorted(f[:-2] for f in os.listdir(src) if f.endswith(".c"))
    defs, used = {}, {}
    for stem in stems:
        obj = os.path.join(objdir, stem + ".c.o")
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        used[stem] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                used[stem].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCGSV":
                defs[parts[2]] = stem
    return {s: {defs[n] for n in names if n in defs and defs[n] != s} for s, names in used.items()}


def main(readme, src, objdir):
    rows = table(readme)
    graph = uses(src, objdir)
    problems = []
    listed = [stem for stem, _ in rows]
    for stem in sorted(set(graph) - set(listed)):
        problems.append("%s.c is not in the table of %s" % (stem, readme))
    for stem in sorted(set(listed) - set(graph)):
        problems.append("the table lists %s.c, which is not in %s" % (stem, src))
    for i, (stem, allowed) in enumerate(rows):
        for a in allowed:
            if a not in listed[:i]:
                problems.append("%s.c may use %s, which is not listed above it" % (stem, a))
        for dep in sorted(graph.get(stem, ())):
            if dep not in allowed:
                problems.append("%s.c uses %s.c, which its row does not allow" % (stem, dep))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
