/*
 * pdc_text.h - the one rule for showing a string from a capture or a
 * binary (a comm, a file name, a symbol) as text: which bytes are shown
 * as they are, and the \xNN form of every other byte.
 *
 * Such a string can hold any bytes.  Written raw, a newline in a symbol
 * forges a folded line and its count, and ESC or BEL reaches the
 * terminal as an escape sequence (window titles, clipboard writes).  So
 * text shows only printable characters as they are: printable ASCII
 * (0x20..0x7e) and valid UTF-8 for a character from U+00A0 on.  Every
 * other byte is written as a backslash, 'x' and two lowercase hex digits:
 * the C0 controls (NUL, tab and newline included), DEL, the C1 controls
 * U+0080..U+009F (both bytes of their UTF-8 form, since a terminal may
 * take them as CSI, OSC ...), and each byte that is not part of valid
 * UTF-8.  A string without such bytes is written unchanged, and a
 * written string has none, so writing it again changes nothing.
 *
 * Every writer of text goes through this rule: emit/pde_text.c for
 * terminals and text files (and pdtool's messages), emit/pde_md.c for
 * Markdown, and the folded names of analyze/profile (pda_fold.c).  The
 * XML and JSON writers have their own escapes for what their formats
 * forbid.
 *
 *	size_t plain = pdc_text_plain(s, n);	// the run shown as it is
 *	fwrite(s, 1, plain, out);
 *	if (plain < n)
 *		pdc_text_esc(s[plain], buf);	// "\x1b"
 */
#ifndef PDC_TEXT_H
#define PDC_TEXT_H

#include "pdc_strbuf.h"

#include <stddef.h>

#define PDC_TEXT_ESC_LEN 4 /* "\xNN" */

/*
 * The length (1 to 4) of the character at s, n >= 1 bytes left, when
 * text shows it as it is; 0 when s[0] is written as \xNN.
 */
size_t pdc_text_char(const void *s, size_t n);

/* The length of the longest start of s[0..n) shown as it is. */
size_t pdc_text_plain(const void *s, size_t n);

/* Byte c as "\xNN" in out (PDC_TEXT_ESC_LEN bytes, no NUL). */
void pdc_text_esc(unsigned char c, char out[PDC_TEXT_ESC_LEN]);

/* Append s[0..n) with every byte not shown as it is written as \xNN. */
void pdc_strbuf_add_text(struct pdc_strbuf *b, const void *s, size_t n);

#endif /* PDC_TEXT_H */
