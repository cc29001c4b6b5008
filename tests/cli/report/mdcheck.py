#!/usr/bin/env python3
"""mdcheck.py FILE.md... - a structural check that a profile report reads
as GitHub-flavoured Markdown (no Markdown parser is installed here): one
top heading, blank lines before headings, tables and fences; every
table's delimiter row and rows have the header's number of cells (a '|'
a name holds would add one); fences closed; code spans closed on their
line; no raw HTML tag or entity outside code; relative links to files
that exist beside the report.  Prints each problem, exits 1 on any."""
import os
import re
import sys


def cells(line):
    """The cells of a table row: GFM splits at every '|' not escaped,
    inside code spans too."""
    out, cur, i, n = [], '', 0, len(line)
    while i < n:
        c = line[i]
        if c == '\\' and i + 1 < n:
            cur += line[i:i + 2]
            i += 2
            continue
        if c == '|':
            out.append(cur)
            cur = ''
        else:
            cur += c
        i += 1
    out.append(cur)
    return out[1:-1] if line.startswith('|') and line.endswith('|') else None


def strip_code(line):
    """line without its code spans (None when one is not closed)."""
    out, i = '', 0
    while i < len(line):
        if line[i] == '\\' and i + 1 < len(line):
            out += line[i:i + 2]
            i += 2
            continue
        if line[i] == '`':
            run = len(line[i:]) - len(line[i:].lstrip('`'))
            end = line.find('`' * run, i + run)
            if end < 0:
                return None
            i = end + run
            continue
        out += line[i]
        i += 1
    return out


def check(path):
    errs = []
    lines = open(path, encoding='utf-8').read().split('\n')
    fence = None
    table = None
    h1 = 0
    for no, line in enumerate(lines, 1):
        prev = lines[no - 2] if no > 1 else ''
        if fence:
            if line == fence:
                fence = None
            continue
        m = re.match(r'^(`{3,})(\w*)$', line)
        if m:
            if prev != '':
                errs.append(f'{no}: fence without a blank line before it')
            fence = m.group(1)
            continue
        if line.startswith('#'):
            if not re.match(r'^#{1,6} \S', line):
                errs.append(f'{no}: heading without a space')
            if line.startswith('# '):
                h1 += 1
            if no > 1 and prev != '':
                errs.append(f'{no}: heading without a blank line before it')
        if line.startswith('|'):
            c = cells(line)
            if c is None:
                errs.append(f'{no}: table row not closed or a code span '
                            f'not closed: {line}')
                continue
            if table is None:
                if prev != '':
                    errs.append(f'{no}: table without a blank line before it')
                table = len(c)
                nxt = cells(lines[no]) if no < len(lines) else None
                if not nxt or not all(re.match(r'^-+:?$', x) for x in nxt):
                    errs.append(f'{no}: table header without a delimiter row')
            elif len(c) != table:
                errs.append(f'{no}: {len(c)} cells, the header has {table}: '
                            f'{line}')
        else:
            table = None
        text = strip_code(line)
        if text is None:
            errs.append(f'{no}: code span not closed: {line}')
            continue
        if re.search(r'(?<!\\)<[A-Za-z/!?]', text):
            errs.append(f'{no}: raw HTML: {line}')
        if re.search(r'(?<!\\)&[A-Za-z#][A-Za-z0-9]*;', text):
            errs.append(f'{no}: an HTML entity: {line}')
        for target in re.findall(r'(?<!\\)\]\(([^)]*)\)', text):
            if '://' in target:
                continue
            f = os.path.join(os.path.dirname(path), target)
            if not os.path.exists(f):
                errs.append(f'{no}: link to a missing file: {target}')
    if fence:
        errs.append('a fence is not closed')
    if h1 != 1:
        errs.append(f'{h1} top-level headings, not 1')
    return errs


def main():
    bad = 0
    for path in sys.argv[1:]:
        for e in check(path):
            print(f'{path}:{e}')
            bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main())
