/*
 * pdc_text.c - which bytes of a capture's strings text shows as they
 * are, and the \xNN form of the others (pdc_text.h).
 */
#include "pdc_text.h"
#include "pdc_utf8.h"

#include <stdint.h>

size_t pdc_text_char(const void *str, size_t n)
{
	const unsigned char *s = str;
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] < 0x7f;
	len = pdc_utf8_decode(s, n, &cp);
	/* a C1 control is a control all the same */
	return len && cp >= 0xa0 ? len : 0;
}

size_t pdc_text_plain(const void *str, size_t n)
{
	const unsigned char *s = str;
	size_t i = 0;

	while (i < n) {
		size_t len;

		/* the common case, printable ASCII, without a call */
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			i++;
			continue;
		}
		len = pdc_text_char(s + i, n - i);
		if (!len)
			break;
		i += len;
	}
	return i;
}

void pdc_text_esc(unsigned char c, char out[PDC_TEXT_ESC_LEN])
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 0xf];
}

void pdc_strbuf_add_text(struct pdc_strbuf *b, const void *str, size_t n)
{
	const unsigned char *s = str;
	size_t i = 0;

	while (i < n) {
		const size_t plain = pdc_text_plain(s + i, n - i);
		char esc[PDC_TEXT_ESC_LEN];

		pdc_strbuf_add(b, s + i, plain);
		i += plain;
		if (i == n)
			break;
		pdc_text_esc(s[i++], esc);
		pdc_strbuf_add(b, esc, sizeof(esc));
	}
}
