#!/usr/bin/env python3
"""htmlcheck.py REPORT.html REPORT.md - the HTML rendering of the profile
report is the Markdown's: well-formed (every element closed in order),
a Content-Security-Policy first in <head> that allows no script, no
script, event handler or style attribute; the same h1/h2 headings in the
same order; the same tables, row by row and cell by cell (the Markdown's
cells with its escapes and code spans undone), the same sentences and
command blocks; relative links to files that exist beside it.  Prints
"ok N" (tables cells compared) or each problem."""
import html.parser
import os
import re
import sys

VOID = {'meta', 'br', 'hr', 'img', 'link', 'input'}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errs = [], []
        self.headings, self.tables, self.paras, self.code = [], [], [], []
        self.links, self.text = [], None
        self.first_head = None
        self.row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.stack and self.stack[-1] == 'head' and \
                self.first_head is None:
            self.first_head = (tag, a)
        if tag == 'script':
            self.errs.append('a <script>')
        for k in a:
            if k.startswith('on') or k == 'style':
                self.errs.append('attribute %s on <%s>' % (k, tag))
        if tag == 'a':
            self.links.append(a.get('href', ''))
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag in ('h1', 'h2', 'p', 'td', 'th', 'pre'):
            self.text = ''
        if tag == 'table':
            self.tables.append([])
        if tag == 'tr':
            self.row = []

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errs.append('</%s> closes <%s>' % (
                tag, self.stack[-1] if self.stack else 'nothing'))
            return
        self.stack.pop()
        if tag in ('h1', 'h2'):
            self.headings.append(self.text)
        elif tag == 'p':
            self.paras.append(self.text)
        elif tag == 'pre':
            self.code.append(self.text)
        elif tag in ('td', 'th'):
            self.row.append(self.text)
        elif tag == 'tr':
            self.tables[-1].append(self.row)
        if tag in ('h1', 'h2', 'p', 'td', 'th', 'pre'):
            self.text = None

    def handle_data(self, data):
        if self.text is not None:
            self.text += data


def unmd(s):
    """a Markdown cell or sentence as text: code spans' content, escapes
    undone"""
    out, i = '', 0
    while i < len(s):
        c = s[i]
        if c == '\\' and i + 1 < len(s) and s[i + 1] in \
                '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~':
            out += s[i + 1]
            i += 2
            continue
        if c == '`':
            run = len(s[i:]) - len(s[i:].lstrip('`'))
            end = s.find('`' * run, i + run)
            body = s[i + run:end]
            if body.startswith(' ') and body.endswith(' ') and body.strip():
                body = body[1:-1]
            out += body.replace('\\|', '|')
            i = end + run
            continue
        out += c
        i += 1
    return out


def md_parts(path):
    heads, tables, paras, code = [], [], [], []
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('```'):
            fence = line[:len(line) - len(line.lstrip('`'))]
            j = i + 1
            while lines[j] != fence:
                j += 1
            code.append('\n'.join(lines[i + 1:j]))
            i = j + 1
            continue
        if line.startswith('# ') or line.startswith('## '):
            heads.append(unmd(line.split(' ', 1)[1]))
        elif line.startswith('|'):
            rows = []
            while i < len(lines) and lines[i].startswith('|'):
                if not re.match(r'^\|(-+:?\|)+$', lines[i]):
                    cells = re.split(r'(?<!\\)\|', lines[i])[1:-1]
                    # a fields table's empty header row is not rendered
                    if any(c.strip() for c in cells):
                        rows.append([unmd(c.strip()) for c in cells])
                i += 1
            tables.append(rows)
            continue
        elif line.strip():
            paras.append(unmd(line.strip('*') if line.startswith('*')
                              else line))
        i += 1
    return heads, tables, paras, code


def main():
    page = Page()
    page.feed(open(sys.argv[1], encoding='utf-8').read())
    page.close()
    errs = list(page.errs)
    if page.stack:
        errs.append('unclosed: %s' % page.stack)
    fh = page.first_head
    if not fh or fh[0] != 'meta' or fh[1].get('http-equiv') != \
            'Content-Security-Policy' or \
            "script-src 'none'" not in fh[1].get('content', ''):
        errs.append('no CSP forbidding scripts first in <head>: %s' % (fh,))
    heads, tables, paras, code = md_parts(sys.argv[2])
    if page.headings != heads:
        errs.append('headings: html %s, md %s' % (page.headings, heads))
    n = 0
    if len(page.tables) != len(tables):
        errs.append('%d tables in html, %d in md' % (len(page.tables),
                                                     len(tables)))
    for k, (t, m) in enumerate(zip(page.tables, tables)):
        if t != m:
            errs.append('table %d: html %s, md %s' % (k, t[:3], m[:3]))
        n += sum(map(len, t))
    # sentences: the md's paragraphs that are not a link line
    mparas = [p for p in paras if not p.startswith('[')]
    if [p for p in page.paras if p not in
            [os.path.basename(x) for x in page.links]] != mparas:
        errs.append('sentences differ: html %s, md %s' % (page.paras[:4],
                                                           mparas[:4]))
    if page.code != code:
        errs.append('commands: html %s, md %s' % (page.code, code))
    for href in page.links:
        if not os.path.exists(os.path.join(os.path.dirname(sys.argv[1]),
                                           href)):
            errs.append('link to %s: no such file' % href)
    for e in errs:
        print(e)
    if not errs:
        print('ok', n)
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
