#!/usr/bin/env python3
"""gfmcheck.py HTML FILE.md - the profile report as GitHub renders it.

HTML is FILE.md rendered by cmark-gfm (GitHub's own fork of cmark) with
the table extension.  mdcheck.py checks the Markdown's structure line by
line; this checks what the renderer made of it: every heading of the
Markdown is a heading of the same level and text, every table (a header
row and its delimiter row) is a <table> with the same number of rows,
each with the header's number of cells holding the Markdown cells'
text (GFM drops a cell past the header's count: a '|' a name holds
would lose text), no table row was left as a paragraph (a row GFM did not take ends up as text holding '|'), and no
raw HTML came through.  Prints each problem, or "ok N" (the tables and
headings compared); exits 1 on any problem."""
import html.parser
import re
import sys

DELIM = re.compile(r'^\|( *:?-+:? *\|)+$')


class Rendered(html.parser.HTMLParser):
    """The headings, the tables (rows of cell counts) and the paragraph
    texts of cmark-gfm's output."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.headings, self.tables, self.paras = [], [], []
        self.tags = set()
        self._text = None
        self._level = 0
        self._row = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if re.fullmatch(r'h[1-6]', tag):
            self._level, self._text = int(tag[1]), ''
        elif tag == 'p':
            self._text = ''
        elif tag == 'table':
            self.tables.append([])
        elif tag == 'tr':
            self._row = []
        elif tag in ('td', 'th') and self._row is not None:
            self._cell = ''

    def handle_endtag(self, tag):
        if re.fullmatch(r'h[1-6]', tag) and self._text is not None:
            self.headings.append((self._level, self._text.strip()))
            self._text = None
        elif tag == 'p' and self._text is not None:
            self.paras.append(self._text)
            self._text = None
        elif tag in ('td', 'th') and self._cell is not None:
            self._row.append(norm(self._cell))
            self._cell = None
        elif tag == 'tr' and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._text is not None:
            self._text += data
        if self._cell is not None:
            self._cell += data


def norm(text):
    """A cell's text with Markdown's markers and spacing dropped, so
    that the source's and the rendering's compare."""
    return re.sub(r'[`*_\\\s]', '', text)


def md_cells(line):
    """A table row's cells: GFM splits at every '|' not escaped."""
    out, cur, i = [], '', 0
    while i < len(line):
        if line[i] == '\\' and i + 1 < len(line):
            cur += line[i + 1] if line[i + 1] == '|' else line[i:i + 2]
            i += 2
            continue
        if line[i] == '|':
            out.append(cur)
            cur = ''
        else:
            cur += line[i]
        i += 1
    out.append(cur)
    return [norm(c) for c in out[1:-1]]


def md_structure(lines):
    """The Markdown's headings (level, text as rendered: code spans and
    emphasis markers dropped) and tables (rows of cells), outside
    fences."""
    headings, tables, fence = [], [], False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('```'):
            fence = not fence
        elif not fence:
            m = re.match(r'^(#{1,6}) (.*)$', line)
            if m:
                text = re.sub(r'[`*_]', '', m.group(2)).strip()
                headings.append((len(m.group(1)), text))
            elif (line.startswith('|') and i + 1 < len(lines) and
                  DELIM.match(lines[i + 1])):
                rows = [md_cells(line)]
                i += 2
                while i < len(lines) and lines[i].startswith('|'):
                    rows.append(md_cells(lines[i]))
                    i += 1
                tables.append(rows)
                continue
        i += 1
    return headings, tables


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    r = Rendered()
    with open(argv[1], encoding='utf-8') as f:
        r.feed(f.read())
    with open(argv[2], encoding='utf-8') as f:
        lines = f.read().splitlines()
    headings, tables = md_structure(lines)
    bad = []
    strip = [(lvl, re.sub(r'[`*_]', '', t)) for lvl, t in r.headings]
    if strip != headings:
        bad.append('headings differ: rendered %r, Markdown %r' %
                   (strip[:5], headings[:5]))
    if len(r.tables) != len(tables):
        bad.append('%d tables rendered, %d in the Markdown' %
                   (len(r.tables), len(tables)))
    for k, (got, want) in enumerate(zip(r.tables, tables)):
        if len(got) != len(want):
            bad.append('table %d: %d rows rendered, %d in the Markdown' %
                       (k + 1, len(got), len(want)))
        for g, w in zip(got, want):
            if g != w:
                bad.append('table %d: row %r rendered as %r' %
                           (k + 1, w[:4], g[:4]))
                break
    for p in r.paras:
        if re.search(r'^\|.*\|$', p.strip(), re.M):
            bad.append('a table row rendered as text: %r' % p[:80])
    raw = r.tags & {'script', 'style', 'iframe', 'div', 'span', 'img'}
    if raw:
        bad.append('raw HTML came through: %s' % ', '.join(sorted(raw)))
    for b in bad:
        print('%s: %s' % (argv[2], b))
    if bad:
        return 1
    print('ok %d' % (len(tables) + len(headings)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
