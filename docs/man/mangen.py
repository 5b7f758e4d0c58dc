#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""
Reference pages (man section 3) generated from the doc comments of
<infiniband/mlx4dv.h>: one page per public function, one per macro family
(the #defines under one comment), a .so page for every other member of a
family. The header is the only source of the text.

  mangen.py HEADER OUTDIR VERSION [--list]

A function's page holds its prototype (SYNOPSIS), the comment right above
it (DESCRIPTION) and the last comment of its section that describes no
declaration (NOTES), such as the common arguments of the one-call writes.
Names that begin with __ are the header's own and get no page; the three
functions whose pages rdma-core installs (mlx4dv_init_obj(3) ...) get none
either. --list prints the pages and names instead of writing them.
"""
import os
import re
import sys

RDMA_CORE_PAGES = {'mlx4dv_init_obj', 'mlx4dv_query_device',
                   'mlx4dv_set_context_attr'}
# the title of the banner of lib.h, the part that needs -lmlx4dv
LIBRARY_PART = 'libmlx4dv: queue handles from ibverbs objects (-lmlx4dv).'


def parse(text):
    """Top-level items in order: ('comment', text, start, end),
    ('func', name, proto, start, end), ('macro', name, start, end),
    ('other', start, end), ('pp', start, end). Lines are 0-based."""
    lines = text.split('\n')
    items = []
    i, n = 0, len(lines)
    while i < n:
        s = lines[i].strip()
        if not s:
            i += 1
            continue
        if s.startswith('/*'):
            j = i
            while '*/' not in lines[j]:
                j += 1
            items.append(('comment', '\n'.join(lines[i:j + 1]), i, j))
            i = j + 1
            continue
        if s.startswith('#'):
            j = i
            while lines[j].rstrip().endswith('\\'):
                j += 1
            m = re.match(r'#\s*define\s+([A-Za-z_]\w*)', s)
            if m:
                items.append(('macro', m.group(1), i, j))
            else:
                items.append(('pp', i, j))
            i = j + 1
            continue
        if s in ('extern "C" {', '}') and i > 0 and \
                lines[i - 1].strip() in ('#ifdef __cplusplus',):
            items.append(('pp', i, i))
            i += 1
            continue
        # a declaration: up to ';' at depth 0, or a body {...}
        j = i
        depth = 0
        body = False
        buf = ''
        while j < n:
            line = re.sub(r'/\*.*?\*/', '', lines[j])
            # a deprecated name's attribute names its replacement in a
            # string: neither is the declaration's name or prototype
            line = re.sub(r'__MLX4DV_DEPRECATED\("[^"]*"\)\s*', '', line)
            buf += line + '\n'
            for c in line:
                if c == '{':
                    depth += 1
                    head = buf[:buf.index('{')] if not body else None
                    if not body and head is not None:
                        body = True
                        body_head = head
                elif c == '}':
                    depth -= 1
            if depth == 0 and (buf.rstrip().endswith(';') or
                               (body and buf.rstrip().endswith('}'))):
                break
            j += 1
        head = body_head if body else buf
        m = re.search(r'\b((?:__)?mlx4dv_\w+)\s*\(', head)
        is_func = m and '{' not in head[:m.start()] and \
            not re.match(r'\s*(struct|enum|union)\s+\w+\s*\{', head)
        if is_func and not (body and '(' not in head):
            proto = ' '.join(head.split()).rstrip(';').strip()
            items.append(('func', m.group(1), proto, i, j))
        else:
            items.append(('other', i, j))
        i = j + 1
    return lines, items


def clean_comment(c):
    body = c.strip()
    body = re.sub(r'^/\*+', '', body)
    body = re.sub(r'\*+/$', '', body)
    out = []
    for line in body.split('\n'):
        line = re.sub(r'^\s*\* ?', '', line) if line.strip().startswith('*') \
            else line.strip()
        out.append(line.rstrip())
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def is_banner(c):
    return bool(re.search(r'(={6,}|-{4,})', c.split('\n')[0] + c))


def public(name):
    # include guards (_MLX4DV_H_, _MLX4DV_SEND_H_, ...) are no API
    return not name.startswith('__') and not re.match(r'_MLX4DV(_\w+)?_H_$', name)


def start_of(it):
    return it[{'func': 3, 'macro': 2, 'comment': 2}.get(it[0], 1)]


def end_of(it):
    return it[{'func': 4, 'macro': 3, 'comment': 3}.get(it[0], 2)]


def collect(text):
    """pages: list of dict(name, kind, names, protos, doc, notes, part).

    A comment is a declaration's doc when nothing but preprocessor lines
    stands between them (no blank line). A comment followed by a blank line
    and then by another comment or a public declaration introduces what
    follows: it becomes the NOTES of the pages after it, until the next
    banner (a part of the header or a numbered section)."""
    lines, items = parse(text)
    pages = []
    part = ''
    notes = None
    doc = None
    family = None
    for k, it in enumerate(items):
        kind = it[0]
        if kind == 'comment':
            c = it[1]
            family = None
            if is_banner(c):
                # a part's banner (=====): its title line names the part
                m = re.match(r'/\* ={6,}\n \* (.*)\n', c)
                if m:
                    part = m.group(1)
                notes = None
                doc = None
                continue
            gap = lines[it[3] + 1:start_of(items[k + 1])] if k + 1 < len(items) else ['']
            if gap and any(not g.strip() for g in gap):
                nxt = items[k + 1] if k + 1 < len(items) else None
                if part and nxt is not None and (
                        nxt[0] == 'comment' or
                        (nxt[0] in ('func', 'macro') and public(nxt[1]))):
                    notes = c
                doc = None
            else:
                doc = c
            continue
        if kind == 'pp':
            continue
        this_doc, doc = doc, None
        if kind == 'func':
            name, proto = it[1], it[2]
            if public(name) and name not in RDMA_CORE_PAGES:
                prev = items[k - 1] if k else None
                if this_doc is None and prev is not None and prev[0] == 'func' \
                        and pages and pages[-1]['kind'] == 'func' and \
                        pages[-1]['names'][-1] == prev[1]:
                    # no comment of its own, right after a documented one:
                    # one page for both (the byte-order helpers, ...)
                    pages[-1]['names'].append(name)
                    pages[-1]['protos'].append(proto)
                else:
                    pages.append(dict(name=name, kind='func', names=[name],
                                      protos=[proto], doc=this_doc,
                                      notes=notes, part=part))
            family = None
            continue
        if kind == 'macro':
            name = it[1]
            if public(name):
                contiguous = family is not None and family['end'] + 1 == start_of(it)
                if this_doc is not None or not contiguous:
                    family = dict(name=name, kind='macro', names=[name],
                                  protos=[], doc=this_doc, notes=notes,
                                  part=part, end=it[3])
                    pages.append(family)
                elif name not in family['names']:
                    family['names'].append(name)
                family['end'] = it[3]
                defn = ' '.join(' '.join(lines[it[2]:it[3] + 1]).replace('\\', ' ').split())
                family['protos'].append(defn)
            else:
                family = None
            continue
        family = None
    # the same name defined in two #if branches: one page
    seen = {}
    out = []
    for p in pages:
        if p['name'] in seen:
            q = seen[p['name']]
            for nm in p['names']:
                if nm not in q['names']:
                    q['names'].append(nm)
            q['protos'] += p['protos']
            if not q['doc']:
                q['doc'] = p['doc']
            continue
        for nm in p['names']:
            seen[nm] = p
        out.append(p)
    return out


def roff_text(lines):
    out = []
    for line in lines:
        line = line.replace('\\', '\\e')
        if line.startswith(('.', "'")):
            line = '\\&' + line
        out.append(line)
    return out


def wrap(proto, width=72):
    """A prototype over lines: the return type, then the name and the
    parameters, continuation lines aligned to the parenthesis."""
    m = re.match(r'^(.*?)\b((?:__)?mlx4dv_\w+)\((.*)\);$', proto)
    if not m:
        return [proto]
    head, name, params = m.group(1).strip(), m.group(2), m.group(3)
    parts = [x.strip() for x in params.split(',')]
    lines = [head] if head else []
    cur = name + '('
    pad = ' ' * len(cur)
    for k, prm in enumerate(parts):
        piece = prm + (',' if k < len(parts) - 1 else ');')
        if len(cur) + 1 + len(piece) > width and not cur.endswith('('):
            lines.append(cur)
            cur = pad + piece
        else:
            cur += ('' if cur.endswith('(') else ' ') + piece
    lines.append(cur)
    return lines


def one_line(page):
    doc = clean_comment(page['doc']) if page['doc'] else []
    text = ' '.join(l.strip() for l in doc)
    m = re.match(r'^(?:[\w, ()]+?) - (.*)', text)
    if m and page['name'] in text.split(' - ')[0]:
        text = m.group(1)
    # the whole first sentence, however long: a NAME line cut short
    # ("...by BlueFlame when...") says less than the page's first line
    sent = re.split(r'(?<=[.:;])\s', text, maxsplit=1)[0].rstrip('.:;')
    return sent or page['name']


SEE_ALSO_MAX = 8


def see_also(page, documented, neighbours=()):
    """The pages this page's text names (functions and macros that have a
    page, in the order they first appear, at most SEE_ALSO_MAX), after
    libmlx4dv(7); rdma-core's pages when named. A page that names fewer
    than two gets its neighbours in the header (the pages before and
    after it in the same part) too."""
    text = '\n'.join((page['doc'] or '', page['notes'] or ''))
    own = set(page['names'])
    seen = []
    for m in re.finditer(r'\b((?:mlx4dv|MLX4DV)_\w+)', text):
        name = m.group(1)
        if name in own or name in seen:
            continue
        if name in documented or name in RDMA_CORE_PAGES:
            seen.append(name)
        if len(seen) == SEE_ALSO_MAX:
            break
    if len(seen) < 2:
        seen += [n for n in neighbours if n not in own and n not in seen]
    refs = ['.BR libmlx4dv (7)'] + ['.BR %s (3)' % n for n in seen]
    return [r + ',' for r in refs[:-1]] + [refs[-1]]


def render(page, version, documented=frozenset(), neighbours=()):
    name = page['name']
    title = name.upper()
    lib = page['part'] == LIBRARY_PART and page['kind'] == 'func'
    out = ['.\\" SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause',
           '.\\" Generated from include/infiniband/mlx4dv.h by docs/man/mangen.py.',
           '.TH %s 3 "" "mlx4dv %s" "mlx4dv"' % (title, version),
           '.SH NAME',
           '%s \\- %s' % (', '.join(page['names']),
                          one_line(page).replace('\\', '\\e')),
           '.SH SYNOPSIS', '.nf', '.B #include <infiniband/mlx4dv.h>', '.PP']
    for p in page['protos']:
        text = p + (';' if page['kind'] == 'func' else '')
        out += roff_text(wrap(text) if page['kind'] == 'func' else [text])
    out.append('.fi')
    out.append('.PP')
    if lib:
        out.append('Link with \\fI\\-lmlx4dv \\-lmlx4 \\-libverbs\\fP.')
    elif page['kind'] == 'func':
        out.append('Inline in the header: no library is called.')
    else:
        out.append('A macro of the header.')
    out += ['.SH DESCRIPTION', '.nf']
    out += roff_text(clean_comment(page['doc'])) if page['doc'] else ['(none)']
    out.append('.fi')
    if page['notes']:
        out += ['.SH NOTES', '.nf'] + roff_text(clean_comment(page['notes'])) + ['.fi']
    out += ['.SH SEE ALSO'] + see_also(page, documented, neighbours)
    return '\n'.join(out) + '\n'


PART_INCLUDE = re.compile(r'^#include <infiniband/mlx4dv/([a-z0-9_]+)\.h>\n', re.M)


def header_text(umbrella):
    """The umbrella with its parts spliced in where each is first
    included (later includes dropped, as the include guards drop them)."""
    parts_dir = os.path.join(os.path.dirname(umbrella), 'mlx4dv')
    seen = set()

    def splice(m):
        part = m.group(1)
        if part in seen:
            return ''
        seen.add(part)
        with open(os.path.join(parts_dir, part + '.h')) as f:
            return PART_INCLUDE.sub(splice, f.read())

    with open(umbrella) as f:
        return PART_INCLUDE.sub(splice, f.read())


def main(argv):
    header, outdir, version = argv[1], argv[2], argv[3]
    pages = collect(header_text(header))
    if '--list' in argv:
        for p in pages:
            print(p['name'], ' '.join(p['names'][1:]), '' if p['doc'] else '(NO DOC)')
        return 0
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.endswith('.3'):
            os.remove(os.path.join(outdir, f))
    documented = set(n for p in pages if p['doc'] for n in p['names'])
    with_doc = [p for p in pages if p['doc']]
    for i, p in enumerate(pages):
        if not p['doc']:
            print('mangen: %s has no doc comment, no page' % p['name'],
                  file=sys.stderr)
            continue
        with open(os.path.join(outdir, p['name'] + '.3'), 'w') as f:
            k = with_doc.index(p)
            near = [q['name'] for q in with_doc[max(k - 1, 0):k + 2]
                    if q is not p and q['part'] == p['part']]
            f.write(render(p, version, documented, near))
        for other in p['names'][1:]:
            with open(os.path.join(outdir, other + '.3'), 'w') as f:
                f.write('.so man3/%s.3\n' % p['name'])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
