/*
 * pde_text.c - strings from a capture written as text: the plain and
 * quoted forms that terminals and text files get.  A capture's strings
 * (comm, file names, symbols) can hold any bytes; these writers show
 * them by common/pdc_text.h's one rule, so that none acts as a terminal
 * escape or starts a line.
 */
#include "pde_text_int.h"
#include "pdc_text.h"

#include <string.h>

int pde_out_rc(FILE *out)
{
	return ferror(out) ? PD_ERR_IO : 0;
}

static void put_esc(FILE *out, unsigned char c)
{
	char esc[PDC_TEXT_ESC_LEN];

	pdc_text_esc(c, esc);
	fwrite(esc, 1, sizeof(esc), out);
}

void pde_text_str(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < n) {
		const size_t plain = pdc_text_plain(s + i, n - i);

		fwrite(s + i, 1, plain, out);
		i += plain;
		if (i == n || s[i] == '\0')
			break;
		put_esc(out, s[i++]);
	}
}

void pde_text_puts(FILE *out, const char *s)
{
	if (s)
		pde_text_str(out, s, strlen(s));
}

void pde_text_quoted(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	for (size_t i = 0; i < n;) {
		size_t len;

		if (s[i] == '"' || s[i] == '\\') {
			fputc('\\', out);
			fputc(s[i++], out);
		} else if ((len = pdc_text_char(s + i, n - i))) {
			fwrite(s + i, 1, len, out);
			i += len;
		} else {
			put_esc(out, s[i++]);
		}
	}
	fputc('"', out);
}

void pde_csv_str(FILE *out, const char *s)
{
	const char *q;

	fputc('"', out);
	while ((q = strchr(s, '"'))) {
		pde_text_str(out, s, (size_t)(q - s));
		fputs("\"\"", out);
		s = q + 1;
	}
	pde_text_puts(out, s);
	fputc('"', out);
}
