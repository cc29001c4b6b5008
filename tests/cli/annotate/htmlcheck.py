#!/usr/bin/env python3
"""htmlcheck.py - what an annotate HTML page may contain (issue 11,
finding 2), for html-escape.test.

    htmlcheck.py PAGE NAME

NAME is a hostile source file name (its last component) that the binary's
DWARF gives.  The page must hold only the elements and attributes the
writer uses (no element or handler from a name), NAME must come back
whole, decoded, in the asm rows' title attribute, the hottest-lines cell
and the "called at" line, and the page's Content-Security-Policy must be
the first thing in <head> and allow exactly its own inline script and
style by their sha256, and nothing from the network.
"""

import base64
import hashlib
import html.parser
import re
import sys

ELEMENTS = {"html", "head", "meta", "title", "style", "body", "h1", "h2",
            "h3", "p", "small", "section", "table", "tr", "td", "th", "div",
            "script"}
ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "class", "id",
              "colspan", "data-l", "title"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []          # (tag, attrs) in order
        self.titles = []        # title attribute values
        self.text = []          # text outside script and style
        self.raw = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        for key, value in attrs:
            if key == "title":
                self.titles.append(value)
        if tag in ("script", "style"):
            self.raw = tag

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == self.raw:
            self.raw = None

    def handle_data(self, data):
        if self.raw is None:
            self.text.append(data)


def csp_source(text):
    digest = hashlib.sha256(text.encode()).digest()
    return "'sha256-%s'" % base64.b64encode(digest).decode()


def main(argv):
    page = open(argv[1], encoding="utf-8").read()
    name = argv[2]
    fails = []
    p = Page()
    p.feed(page)
    p.close()

    for tag, attrs in p.tags:
        if tag not in ELEMENTS:
            fails.append("element <%s>" % tag)
        for key in attrs:
            if key not in ATTRIBUTES:
                fails.append("attribute %s= on <%s>" % (key, tag))
    for bad in ("<svg", "<img", "<script>alert"):
        if bad in page:
            fails.append("raw %r in the page" % bad)

    # the name, whole and decoded, in each sink
    if not any(t.startswith(name + ":") for t in p.titles):
        fails.append("no title attribute of %r" % name)
    text = "".join(p.text)
    if "called at " + name + ":" not in text:
        fails.append("no 'called at %s:N'" % name)
    hot = text.split("Hottest source lines", 1)[-1]
    if name + ":" not in hot:
        fails.append("%r not in the hottest lines" % name)
    if "<script>alert(3)</script>" not in text:
        fails.append("the source text's markup is not shown as text")

    # the policy: first in <head>, only the page's own script and style
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    if len(scripts) != 1 or len(styles) != 1:
        fails.append("%d scripts and %d styles, not one each" %
                     (len(scripts), len(styles)))
    names = [t for t, _ in p.tags]
    metas = [a for t, a in p.tags if t == "meta" and
             a.get("http-equiv", "").lower() == "content-security-policy"]
    if len(metas) != 1:
        fails.append("%d CSP meta elements" % len(metas))
    elif names[:4] != ["html", "head", "meta", "meta"] or \
            p.tags[3][1] is not metas[0]:
        fails.append("the CSP is not first in <head>: %s" % names[:5])
    else:
        policy = {}
        for d in metas[0]["content"].split(";"):
            words = d.split()
            if words:
                policy[words[0]] = words[1:]
        want = {
            "default-src": ["'none'"],
            "script-src": [csp_source(s) for s in scripts],
            "style-src": [csp_source(s) for s in styles],
            "base-uri": ["'none'"],
            "form-action": ["'none'"],
        }
        if policy != want:
            fails.append("policy %s, want %s" % (policy, want))
    for f in fails:
        print("FAIL:", f)
    if not fails:
        print("ok: the page is inert but for its own script and style")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
