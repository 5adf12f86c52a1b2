#!/usr/bin/python3
"""Runs every `$ cleave ...` example of the user documentation and compares its output exactly.

usage: check_examples.py CLEAVE DOC.md... [--selftest]

An example is a line `$ cleave ARGS` inside a fenced code block (``` ... ```, indented or not),
written with shell quoting, followed by the lines it prints (standard output, then standard error)
up to the next `$ ` line or the end of the block. Each example runs in a fresh directory that
holds `x.npy` (float32, shape [6,12], values 0..71), the file the examples split. An example
whose output has a `cleave: error: ` line must fail (non-zero status, nothing on standard output);
any other must succeed (status 0, nothing on standard error). Lines of a block before its first
`$ ` line (usage synopses, message lists) are not examples.

--selftest: the checker itself must be able to fail. For each document it changes one character
of the first expected output line, and of the first command, and checks that exactly that
example is then reported.

Python's standard library only (Debian's /usr/bin/python3, as the other script tests).
"""
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^(\s*)```')


def examples(text):
    """Yields (line number, command line, expected output lines) for each example of `text`."""
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        i += 1
        current = None
        while i < len(lines) and not FENCE.match(lines[i]):
            line = lines[i][indent:] if lines[i][:indent].strip() == '' else lines[i]
            if line.startswith('$ '):
                if current:
                    yield current
                if not line.startswith('$ cleave '):
                    raise ValueError('line %d: an example must run cleave: %s' % (i + 1, line))
                current = (i + 1, line[2:], [])
            elif current:
                current[2].append(line)
            i += 1
        if i >= len(lines):
            raise ValueError('a fenced block is not closed')
        if current:
            yield current
        i += 1


def write_npy(path):
    """x.npy: '<f4', C order, shape (6, 12), values 0..71 (format 1.0, header padded to 64)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (6, 12), }"
    header += ' ' * (64 - 10 - len(header) - 1) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1'))
        f.write(struct.pack('<72f', *range(72)))


def run(cleave, command, workdir):
    argv = shlex.split(command)
    argv[0] = cleave
    for name in os.listdir(workdir):
        os.remove(os.path.join(workdir, name))
    write_npy(os.path.join(workdir, 'x.npy'))
    env = dict(os.environ, LC_ALL='C')
    env.pop('CLEAVE_CHUNK_BYTES', None)
    return subprocess.run(argv, cwd=workdir, capture_output=True, text=True, timeout=30,
                          env=env)


def check(cleave, name, text, workdir):
    """Returns (number of examples, list of failure descriptions)."""
    failures = []
    count = 0
    for lineno, command, expected in examples(text):
        count += 1
        while expected and expected[-1] == '':
            expected.pop()
        want = ''.join(line + '\n' for line in expected)
        r = run(cleave, command, workdir)
        got = r.stdout + r.stderr
        should_fail = any(line.startswith('cleave: error: ') for line in expected)
        problems = []
        if got != want:
            problems.append('output differs\n--- documented\n%s--- actual\n%s---' % (want, got))
        if should_fail and (r.returncode == 0 or r.stdout):
            problems.append('documented as failing, but status %d, stdout %r'
                            % (r.returncode, r.stdout))
        if not should_fail and (r.returncode != 0 or r.stderr):
            problems.append('documented as succeeding, but status %d, stderr %r'
                            % (r.returncode, r.stderr))
        if problems:
            failures.append('%s:%d: $ %s\n%s' % (name, lineno, command, '\n'.join(problems)))
    return count, failures


def selftest(cleave, name, text, workdir):
    """Breaks one expected line and one command of `text`; each must be the one failure."""
    lines = text.split('\n')
    first = next(examples(text))
    cmd_line = first[0] - 1
    out_line = next(i for i in range(cmd_line + 1, len(lines)) if lines[i].strip())
    ok = True
    for what, index in (('expected output', out_line), ('command', cmd_line)):
        broken = list(lines)
        broken[index] = broken[index] + '7' if what == 'command' else broken[index] + 'X'
        _, failures = check(cleave, name, '\n'.join(broken), workdir)
        if len(failures) != 1 or ':%d:' % (cmd_line + 1) not in failures[0]:
            print('SELFTEST FAILED: %s: a changed %s at line %d gave %d failure(s)'
                  % (name, what, index + 1, len(failures)))
            ok = False
    return ok


def main(argv):
    args = [a for a in argv[1:] if a != '--selftest']
    if len(args) < 2:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 64
    cleave, docs = os.path.abspath(args[0]), args[1:]
    total, failed = 0, 0
    with tempfile.TemporaryDirectory(prefix='cleave-docs-') as workdir:
        for path in docs:
            with open(path, encoding='utf-8') as f:
                text = f.read()
            name = os.path.basename(path)
            if '--selftest' in argv:
                if not selftest(cleave, name, text, workdir):
                    failed += 1
                continue
            count, failures = check(cleave, name, text, workdir)
            if count == 0:
                failures.append('%s: no `$ cleave` example found' % name)
            for failure in failures:
                print('FAIL ' + failure)
            print('%s: %d examples, %d failed' % (name, count, len(failures)))
            total += count
            failed += len(failures)
    if '--selftest' in argv:
        print('selftest: %s' % ('failed' if failed else 'every broken example was caught'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
