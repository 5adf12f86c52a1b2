#!/usr/bin/python3
"""Checks that the repository stands alone (a clone with nothing beside it is complete).

  check_repo.py ROOT checksums   every file of the conformance folders is listed in its
                                 SHA256SUMS with the right digest, and every listed file exists
  check_repo.py ROOT no-shared   no tracked file names the folder beside the repository
                                 ("../" followed by "shared") that users never have
  check_repo.py ROOT links       every relative link of README.md, CHANGELOG.md and docs/*.md
                                 resolves to a file inside the repository (and, for a link to a
                                 Markdown heading, to a heading that exists)

Each mode prints one line per problem and exits 1 if there is any, 0 otherwise.
"""
import hashlib
import os
import re
import subprocess
import sys

CONFORMANCE = ["tests/conformance/onnx", "tests/conformance/openvino"]
# Spelled in two pieces so that this file does not name the folder itself.
FORBIDDEN = "../" + "shared"


def tracked_files(root):
    """The files git tracks; without git (a source tarball), every file outside build folders."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for top, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(("build", ".git"))]
            found += [os.path.relpath(os.path.join(top, f), root) for f in files]
        return found


def check_checksums(root):
    problems = []
    for folder in CONFORMANCE:
        base = os.path.join(root, folder)
        sums = os.path.join(base, "SHA256SUMS")
        if not os.path.isfile(os.path.join(base, "SOURCE.txt")):
            problems.append(f"{folder}: SOURCE.txt (provenance) is missing")
        if not os.path.isfile(sums):
            problems.append(f"{folder}: SHA256SUMS is missing")
            continue
        listed = {}
        with open(sums) as f:
            for n, line in enumerate(f, 1):
                m = re.fullmatch(r"([0-9a-f]{64})  (?:\./)?(\S.*)\n?", line)
                if not m:
                    problems.append(f"{folder}/SHA256SUMS:{n}: malformed line {line!r}")
                    continue
                listed[os.path.normpath(m.group(2))] = m.group(1)
        present = set()
        for top, _, files in os.walk(base):
            for name in files:
                rel = os.path.normpath(os.path.relpath(os.path.join(top, name), base))
                if rel not in ("SHA256SUMS", "SOURCE.txt"):
                    present.add(rel)
        for rel in sorted(present - set(listed)):
            problems.append(f"{folder}/{rel}: not listed in SHA256SUMS")
        for rel, digest in sorted(listed.items()):
            path = os.path.join(base, rel)
            if not os.path.isfile(path):
                problems.append(f"{folder}/{rel}: listed in SHA256SUMS but missing")
                continue
            with open(path, "rb") as f:
                actual = hashlib.sha256(f.read()).hexdigest()
            if actual != digest:
                problems.append(f"{folder}/{rel}: sha256 {actual}, SHA256SUMS says {digest}")
        print(f"{folder}: {len(listed)} files checked")
    return problems


def check_no_shared(root):
    problems = []
    for rel in tracked_files(root):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        for n, line in enumerate(data.split(b"\n"), 1):
            if FORBIDDEN.encode() in line:
                problems.append(f"{rel}:{n}: names {FORBIDDEN}")
    return problems


def slug(heading):
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            m = None if in_code else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                k = seen.get(s, 0)
                seen[s] = k + 1
                found.add(s if k == 0 else f"{s}-{k}")
            for a in re.findall(r'<a (?:name|id)="([^"]+)"', line):
                found.add(a)
    return found


def markdown_links(path):
    in_code = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                continue
            line = re.sub(r"`[^`]*`", "", line)  # inline code is not a link
            for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
                yield n, target


def check_links(root):
    problems = []
    docs = [p for p in ("README.md", "CHANGELOG.md") if os.path.isfile(os.path.join(root, p))]
    docs_dir = os.path.join(root, "docs")
    if os.path.isdir(docs_dir):
        docs += sorted(os.path.join("docs", p) for p in os.listdir(docs_dir) if p.endswith(".md"))
    real_root = os.path.realpath(root)
    count = 0
    for doc in docs:
        doc_path = os.path.join(root, doc)
        for n, target in markdown_links(doc_path):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto: are outside the repository by design
            count += 1
            file_part, _, anchor = target.partition("#")
            dest = doc_path if not file_part else os.path.join(os.path.dirname(doc_path),
                                                               file_part)
            real = os.path.realpath(dest)
            if not (real == real_root or real.startswith(real_root + os.sep)):
                problems.append(f"{doc}:{n}: link {target!r} leaves the repository")
            elif not os.path.exists(real):
                problems.append(f"{doc}:{n}: link {target!r}: no such file")
            elif anchor and real.endswith(".md") and anchor not in anchors(real):
                problems.append(f"{doc}:{n}: link {target!r}: no heading with that anchor")
    print(f"{count} relative links checked in {len(docs)} files")
    return problems


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("checksums", "no-shared", "links"):
        print(__doc__, file=sys.stderr)
        return 2
    root, mode = sys.argv[1], sys.argv[2]
    check = {"checksums": check_checksums, "no-shared": check_no_shared,
             "links": check_links}[mode]
    problems = check(root)
    for p in problems:
        print(p)
    print(f"{mode}: {'FAIL' if problems else 'ok'} ({len(problems)} problems)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
