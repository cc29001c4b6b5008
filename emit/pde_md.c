/*
 * pde_md.c - GitHub-flavoured Markdown for strings a capture controls.
 *
 * A symbol name such as std::vector<int>, a DSO path or a file name is
 * data: written into a table, a heading or a paragraph it must show as
 * those characters, never become an HTML tag, a link, emphasis, a
 * heading's closing sequence or the end of a table cell.  CommonMark lets
 * any ASCII punctuation character be backslash-escaped, so the
 * characters that can start such syntax are escaped, and only those, so
 * that ordinary names (loop.c:15, /usr/lib/libc.so.6, spin) stay as
 * they are.  Code spans are different: escapes do not work inside them,
 * so their content is written as it is, between a backtick fence longer
 * than any run of backticks it holds.
 */
#include "pde_text_int.h"
#include "pdc_text.h"

#include <string.h>

static bool is_word(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	       (c >= 'a' && c <= 'z');
}

/* a space, or a tab, which a code span gets as a space */
static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Whether s[i] must be escaped in inline text.  '_' only at a word's
 * edge: between letters or digits it can neither open nor close emphasis
 * (CommonMark's flanking rules), and names like mix_columns are common.
 */
static bool md_special(const unsigned char *s, size_t i, size_t n)
{
	switch (s[i]) {
	case '\\':
	case '`':
	case '*':
	case '[':
	case ']':
	case '<':
	case '>':
	case '&':
	case '#':
	case '|':
	case '~': /* GFM strikethrough */
	case '$': /* GitHub's inline math */
		return true;
	case '_':
		return !(i > 0 && is_word(s[i - 1]) && i + 1 < n &&
			 is_word(s[i + 1]));
	default:
		return false;
	}
}

/* The end of s: n bytes, or fewer before a NUL. */
static size_t md_len(const char *s, size_t n)
{
	const char *nul = memchr(s, '\0', n);

	return nul ? (size_t)(nul - s) : n;
}

/* A character past ASCII as it is, or a byte that is not text (control
 * characters, DEL, invalid UTF-8) as \xNN: common/pdc_text.h's rule. */
static size_t put_visible(FILE *out, const unsigned char *s, size_t n)
{
	const size_t len = pdc_text_char(s, n);
	char esc[PDC_TEXT_ESC_LEN];

	if (len) {
		fwrite(s, 1, len, out);
		return len;
	}
	pdc_text_esc(s[0], esc);
	fwrite(esc, 1, sizeof(esc), out);
	return 1;
}

void pde_md_text(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	n = md_len(str, n);
	for (size_t i = 0; i < n;) {
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			if (md_special(s, i, n))
				fputc('\\', out);
			fputc(s[i++], out);
			continue;
		}
		i += put_visible(out, s + i, n - i);
	}
}

void pde_md_code(FILE *out, const char *str, size_t n, bool in_cell)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0, longest = 0, fence;
	bool pad;

	n = md_len(str, n);
	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest + 1;
	/* a space just inside the fence is stripped from both ends, and a
	 * backtick there would join the fence: pad both ends */
	pad = n && (s[0] == '`' || s[n - 1] == '`' ||
		    (is_blank(s[0]) && is_blank(s[n - 1])));
	for (size_t k = 0; k < fence; k++)
		fputc('`', out);
	if (pad || !n)
		fputc(' ', out);
	for (size_t i = 0; i < n;) {
		if (s[i] == '\t') {
			/* source indentation: a tab is blank space */
			fputc(' ', out);
			i++;
		} else if (s[i] >= 0x20 && s[i] < 0x7f) {
			/* a table row splits on an unescaped '|' before it
			 * sees code: "\\|", and a backslash just before a
			 * '|' doubled, or it would escape the backslash
			 * and end the cell (GitHub then shows both) */
			if (in_cell &&
			    (s[i] == '|' ||
			     (s[i] == '\\' && i + 1 < n && s[i + 1] == '|')))
				fputc('\\', out);
			fputc(s[i++], out);
		} else {
			i += put_visible(out, s + i, n - i);
		}
	}
	if (pad)
		fputc(' ', out);
	for (size_t k = 0; k < fence; k++)
		fputc('`', out);
}
