#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""
mlx4emu-run --help, mlx4emu-run(1) and the launcher's own option parser
must agree (they come from emu/docs/mlx4emu-pages.md; this catches a
stale page, a hand edit of the help and an option the parser takes that
neither documents, or the reverse).

  check_launcher_pages.py LAUNCHER LAUNCHER_SOURCE MANDIR

- the options --help prints, with their descriptions, are the OPTIONS
  entries of mlx4emu-run.1 as man renders it, word for word;
- every option name the parser's case patterns accept is in --help, and
  every name --help shows is accepted by the parser;
- both pages render with groff without a warning.
"""
import os
import re
import subprocess
import sys


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def words(s):
    return ' '.join(s.split())


def help_entries(text):
    """{term: description} from --help: a term at column 2, its description
    from column 28 on, on its line or the ones below."""
    entries, term = {}, None
    for line in text.splitlines()[1:]:
        if line.startswith('  --') or line.startswith('  -h'):
            term = line[2:28].rstrip() if len(line) > 28 and line[27] == ' ' else line[2:].rstrip()
            entries[term] = line[28:] if line[2:].rstrip() != term else ''
        elif term and line.startswith(' ' * 28):
            entries[term] += ' ' + line.strip()
        else:
            term = None
    return {t: words(d) for t, d in entries.items()}


def man_entries(page):
    """{term: description} of the OPTIONS section as man renders it."""
    env = dict(os.environ, MANWIDTH='200', MAN_KEEP_FORMATTING='0')
    out = subprocess.run(['man', '-l', '-P', 'cat', page], env=env,
                         capture_output=True, text=True, check=True).stdout
    out = re.sub(r'.\x08', '', out).replace('\u2010', '-').replace('\u2212', '-')
    section = re.search(r'\nOPTIONS\n(.*?)\n[A-Z][A-Z ]+\n', out, re.S)
    if not section:
        fail('%s has no OPTIONS section' % page)
    entries, term = {}, None
    for line in section.group(1).splitlines():
        if re.match(r'^ {7}-', line):
            term = line.strip()
            entries[term] = ''
        elif term and re.match(r'^ {14}\S', line):
            entries[term] += ' ' + line.strip()
    return {t: words(d) for t, d in entries.items()}


def parser_names(source):
    """Option names the launcher's case patterns accept."""
    names = set()
    for pat in re.findall(r'^\t(-[^)\n]*)\)', source, re.M):
        for alt in pat.split('|'):
            m = re.match(r'^(--?[a-z][a-z0-9-]*)(=\*)?$', alt.strip())
            if m:
                names.add(m.group(1))
    return names


def help_names(entries):
    names = set()
    for term in entries:
        names.update(re.findall(r'(?:^|[ ,])(--?[a-z][a-z0-9-]*)', term))
    return names


def main(argv):
    launcher, source, mandir = argv[1:4]
    shown = subprocess.run([launcher, '--help'], capture_output=True, text=True)
    if shown.returncode != 0 or not shown.stdout.startswith('usage: mlx4emu-run'):
        fail('mlx4emu-run --help: exit %d\n%s' % (shown.returncode, shown.stdout))
    helped = help_entries(shown.stdout)
    paged = man_entries(os.path.join(mandir, 'mlx4emu-run.1'))
    if list(helped) != list(paged):
        fail('options differ: --help %s\nmlx4emu-run(1) %s' % (list(helped), list(paged)))
    for term in helped:
        if helped[term] != paged[term]:
            fail('%s: --help says "%s", mlx4emu-run(1) "%s"' % (term, helped[term], paged[term]))
    with open(source) as f:
        parsed = parser_names(f.read())
    documented = help_names(helped)
    if parsed - documented:
        fail('the launcher takes %s, which --help does not show' % sorted(parsed - documented))
    if documented - parsed:
        fail('--help shows %s, which the launcher does not take' % sorted(documented - parsed))
    for page in ('mlx4emu-run.1', 'mlx4emu.7'):
        r = subprocess.run(['groff', '-man', '-ww', '-z', os.path.join(mandir, page)],
                           capture_output=True, text=True)
        if r.returncode or r.stderr:
            fail('groff on %s: %s' % (page, r.stderr))
    print('PASS: %d options agree in --help, mlx4emu-run(1) and the parser (%d names)'
          % (len(helped), len(parsed)))


if __name__ == '__main__':
    main(sys.argv)
