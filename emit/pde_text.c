/*
 * pde_text.c - strings from a capture written as text: the one UTF-8
 * check of emit/, and the plain and quoted forms that terminals and text
 * files get.  A capture's strings (comm, file names, symbols) can hold
 * any bytes; these writers show them without letting them act as
 * terminal escapes.
 */
#include "pde_text_int.h"

#include <inttypes.h>

int pde_out_rc(FILE *out)
{
	return ferror(out) ? PD_ERR_IO : 0;
}

size_t pde_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	/* overlong, surrogate or beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void pde_text_str(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f)
			fputc(s[i], out);
		else if (s[i] >= 0x80) {
			size_t len = pde_utf8_len(s + i, n - i);

			if (len) {
				fwrite(s + i, 1, len, out);
				i += len - 1;
			} else {
				fprintf(out, "\\x%02x", s[i]);
			}
		} else {
			fprintf(out, "\\x%02x", s[i]);
		}
	}
}

void pde_text_quoted(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		size_t len;

		if (s[i] == '"' || s[i] == '\\') {
			fputc('\\', out);
			fputc(s[i], out);
		} else if (s[i] >= 0x20 && s[i] < 0x7f) {
			fputc(s[i], out);
		} else if (s[i] >= 0x80 && (len = pde_utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, len, out);
			i += len - 1;
		} else {
			fprintf(out, "\\x%02x", s[i]);
		}
	}
	fputc('"', out);
}
