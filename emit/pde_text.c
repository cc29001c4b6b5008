/*
 * pde_text.c - strings from a capture written as text: the plain and quoted forms that terminals and text
 * files get.  A capture's strings (comm, file names, symbols) can hold
 * any bytes; these writers show them without letting them act as
 * terminal escapes.
 */
#include "pde_text_int.h"
#include "pdc_utf8.h"

#include <inttypes.h>

int pde_out_rc(FILE *out)
{
	return ferror(out) ? PD_ERR_IO : 0;
}

void pde_text_str(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f)
			fputc(s[i], out);
		else if (s[i] >= 0x80) {
			size_t len = pdc_utf8_len(s + i, n - i);

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
		} else if (s[i] >= 0x80 && (len = pdc_utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, len, out);
			i += len - 1;
		} else {
			fprintf(out, "\\x%02x", s[i]);
		}
	}
	fputc('"', out);
}
