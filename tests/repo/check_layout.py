#!/usr/bin/python3
"""Checks that the layout shows the architecture (the rules of README.md, "Layout").

  check_layout.py ROOT BUILD circles   no circle between source files: reading the build's object
                                       files (nm), no file uses a symbol defined in another file
                                       that, directly or through others, uses one of its own
  check_layout.py ROOT BUILD layers    dependencies point down: tools/common uses only the
                                       library; tools/checkpoint (but its commands/) only common;
                                       a format's readers neither the commands (cmd_*, and
                                       tools/checkpoint/commands) nor the CLI (tools/cli); and
                                       no #include names a header of a layer above; in the library
                                       every file sits in a layer folder of src/ and uses (by
                                       symbol and by #include) only the folders SRC_USES lists
  check_layout.py ROOT BUILD errors    one error type under tools/ (tool_error): no other struct
                                       that carries a status and a message

Each mode prints one line per problem and exits 1 if there is any, 0 otherwise.
"""
import os
import re
import subprocess
import sys

def objects(build, root):
    """Maps each object file of the project's own code to its source path (relative to ROOT).
    Objects left in the build folder by a source that has since moved or gone are skipped."""
    found = {}
    for top, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if d != "CompilerIdC" and d != "CompilerIdCXX"]
        for f in files:
            if not f.endswith(".o"):
                continue
            path = os.path.join(top, f)
            rel = os.path.relpath(path, build)
            # The pip install test builds a second copy of the sources inside the build folder.
            if "/CMakeFiles/" not in "/" + rel or "install-pip" in rel:
                continue
            head, tail = ("/" + rel).split("/CMakeFiles/", 1)
            target_dir = head.strip("/")
            source = tail.split(".dir/", 1)[1][: -len(".o")].replace("__/", "../")
            src = os.path.normpath(os.path.join(target_dir, source))
            if src.startswith(("tests/", "fuzz/", "bench/")) or src.startswith(".."):
                continue
            if not os.path.exists(os.path.join(root, src)):
                continue
            found[path] = src
    return found


def symbol_graph(build, root):
    """Edges source -> sources that define a symbol it uses (within the project's objects)."""
    objs = objects(build, root)
    defs, uses = {}, {}
    for obj, src in objs.items():
        out = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
        uses.setdefault(src, set())
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                uses[src].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCGSV":
                defs.setdefault(parts[2], set()).add(src)
    graph = {src: set() for src in uses}
    for src, names in uses.items():
        for name in names:
            for d in defs.get(name, ()):
                if d != src:
                    graph[src].add(d)
    return graph


def strongly_connected(graph):
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(100000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def check_circles(root, build):
    problems = []
    for comp in strongly_connected(symbol_graph(build, root)):
        problems.append("circle of %d files: %s" % (len(comp), " ".join(comp)))
    return problems


def layer(src):
    """The layer of a tools/ source: cli, command, format, checkpoint, common (None: not tools)."""
    parts = src.split("/")
    if parts[0] != "tools" or len(parts) < 3:
        return None
    if parts[1] == "cli":
        return "cli"
    if parts[1] == "common":
        return "common"
    if parts[1] == "checkpoint":
        # The checkpoint commands are written once over the formats' drivers: above them.
        return "command" if parts[2] == "commands" else "checkpoint"
    if os.path.basename(src).startswith("cmd_"):
        return "command"
    return "format"


RANK = {"common": 0, "checkpoint": 1, "format": 2, "command": 3, "cli": 4}


def allowed(a, b):
    """May a file of layer `a` use one of layer `b`?"""
    la, lb = layer(a), layer(b)
    if la is None or lb is None:
        return True
    if la == "format" and lb == "format":
        return True  # a format may use another format's reader (ir-run reads .npy)
    if la == "command" and lb == "command":
        # commands of one family may share a file (tools/safetensors/cmd_st_write.c)
        return a.split("/")[1] == b.split("/")[1]
    return RANK[la] > RANK[lb] or (la == lb and la in ("common", "checkpoint", "cli"))


# The library's layer folders (src/README.md) and the folders each may use.
SRC_USES = {
    "core": {"core"},
    "rules": {"core", "rules"},
    "infer": {"core", "rules", "infer"},
    "copy": {"core", "copy"},
    "memory": {"core", "memory"},
    "convert": {"core", "convert"},
    "run": {"core", "rules", "infer", "copy", "memory", "run"},
    "convert": {"core", "copy", "convert"},
}


def src_folder(src):
    """The layer folder of a library source ("" for a file outside every folder), None if the
    file is not the library's."""
    parts = src.split("/")
    if parts[0] != "src":
        return None
    return parts[1] if len(parts) == 3 else ""


def check_src_layers(root, graph):
    problems = []
    for a in sorted(graph):
        fa = src_folder(a)
        if fa is None:
            continue
        if fa not in SRC_USES:
            problems.append("%s is in no layer folder of src/ (%s)" % (a, " ".join(sorted(SRC_USES))))
            continue
        for b in sorted(graph[a]):
            fb = src_folder(b)
            if fb is not None and fb not in SRC_USES[fa]:
                problems.append("%s (src/%s) uses %s (src/%s)" % (a, fa, b, fb))
    include = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/[^"]+"', re.M)
    for top, dirs, files in os.walk(os.path.join(root, "src")):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(top, f), root)
            fa = src_folder(rel)
            if fa not in SRC_USES:
                continue
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                text = fh.read()
            for folder in include.findall(text):
                if folder not in SRC_USES[fa]:
                    problems.append("%s (src/%s) includes a header of src/%s" % (rel, fa, folder))
    return problems


def check_layers(root, build):
    problems = []
    graph = symbol_graph(build, root)
    problems += check_src_layers(root, graph)
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if not allowed(a, b):
                problems.append("%s (%s) uses %s (%s)" % (a, layer(a), b, layer(b)))
    include = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
    headers = {}
    for top, dirs, files in os.walk(os.path.join(root, "tools")):
        for f in files:
            if f.endswith(".h"):
                rel = os.path.relpath(os.path.join(top, f), root)
                headers.setdefault(f, []).append(rel)
                headers.setdefault(os.path.relpath(os.path.join(top, f), os.path.join(root, "tools")), []).append(rel)
    for top, dirs, files in os.walk(os.path.join(root, "tools")):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(top, f), root)
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                text = fh.read()
            for name in include.findall(text):
                for target in headers.get(name, []):
                    if target == rel:
                        continue
                    # A header stands for the .c files of its layer.
                    if not allowed(rel, target.replace(".h", ".c")) and layer(target) != layer(rel):
                        problems.append("%s includes %s (%s above %s)" %
                                        (rel, target, layer(target), layer(rel)))
    return problems


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True).stdout
    files = [p for p in out.decode().split("\0") if p]
    if files:
        return files
    found = []
    for top, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".git"))]
        found += [os.path.relpath(os.path.join(top, n), root) for n in names]
    return found


def check_errors(root, build):
    problems = []
    pattern = re.compile(r"typedef struct (\w+) \{[^}]*\bint status;[^}]*\bmessage\[", re.S)
    for rel in tracked(root):
        if not rel.startswith("tools/") or not rel.endswith((".c", ".h")):
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            for name in pattern.findall(fh.read()):
                if name != "tool_error":
                    problems.append("%s defines an error type of its own: %s" % (rel, name))
    return problems


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("circles", "layers", "errors"):
        sys.stderr.write(__doc__)
        return 2
    root, build, mode = sys.argv[1:]
    problems = globals()["check_" + mode](root, build)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
