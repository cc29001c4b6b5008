/*
 * pde_html_int.h - what every standalone HTML page of emit/ carries
 * (pde_html.c): a Content-Security-Policy that lets the page run its own
 * inline script and style and nothing else.  Private to emit/.
 */
#ifndef PDE_HTML_INT_H
#define PDE_HTML_INT_H

#include "pd_config.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * Write the <meta http-equiv="Content-Security-Policy"> of a page whose
 * only active content is its inline script and style: script and style
 * are exactly the text the page writes between <script> and </script>,
 * and <style> and </style> (NULL: none of that kind may run).  The
 * policy is default-src 'none' (no network, frames, images, fonts or
 * plugins), script-src and style-src by the texts' sha256 (so no
 * 'unsafe-inline': neither a handler attribute such as onload nor a
 * style attribute runs), and base-uri and form-action 'none', which do
 * not fall back to default-src.  The browser applies it from where it
 * stands, so it goes first in <head>, before anything from a capture.
 * With xml the element is closed as XML wants it ("/>"), for an XHTML
 * <head> inside an SVG (pde_flame.c).
 */
void pde_html_csp(FILE *out, const char *script, const char *style, bool xml);

/*
 * n bytes of s (up to a NUL) as HTML text, safe in an element or a
 * quoted attribute: & < > " ' as references, printable ASCII and UTF-8
 * characters as they are, other bytes as \xNN (pdc_text's rule).
 */
void pde_html_text(FILE *out, const char *s, size_t n);

#endif /* PDE_HTML_INT_H */
