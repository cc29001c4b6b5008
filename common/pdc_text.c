/*
 * pdc_text.c - which bytes of a capture's strings text shows as they
 * are, and the \xNN form of the others (pdc_text.h).
 */
#include "pdc_text.h"
#include "pdc_utf8.h"

#include <stdint.h>
#include <string.h>

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

/*
 * Whether any of the 8 bytes of w is outside printable ASCII (below
 * 0x20, or 0x7f and up): SWAR, so the common case costs about an
 * instruction a byte (every folded line and name is scanned).
 */
static inline int has_unprintable(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t high = 0x8080808080808080ull;
	/* a byte below 0x20: its high bit set by the borrow, not by itself */
	const uint64_t low = (w - 0x20 * ones) & ~w & high;
	/* a byte of 0x7f or more: itself, or itself plus 1, reaches 0x80 */
	const uint64_t top = (w | (w + ones)) & high;

	return (low | top) != 0;
}

size_t pdc_text_plain(const void *str, size_t n)
{
	const unsigned char *s = str;
	size_t i = 0;

	while (n - i >= 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (has_unprintable(w))
			break;
		i += 8;
	}
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
