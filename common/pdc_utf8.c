/*
 * pdc_utf8.c - UTF-8 validation (RFC 3629).
 */
#include "pdc_utf8.h"

size_t pdc_utf8_decode(const void *str, size_t n, uint32_t *cp_out)
{
	const unsigned char *s = str;
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80) {
		len = 1;
		cp = s[0];
	} else {
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
	}
	if (cp_out)
		*cp_out = cp;
	return len;
}
