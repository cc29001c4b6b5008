/*
 * pdc_utf8.h - UTF-8 validation for the writers that must emit valid
 * text (JSON, XML, the dump's quoted strings) from bytes in a capture.
 */
#ifndef PDC_UTF8_H
#define PDC_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length (1 to 4) of the valid UTF-8 sequence at s, n >= 1 bytes
 * left, and its code point in *cp (cp may be NULL); 0 when the bytes are
 * not one: a stray continuation byte, a truncated sequence, an overlong
 * form, a surrogate, or a value past U+10FFFF.  An ASCII byte (NUL
 * included) is a sequence of 1.
 */
size_t pdc_utf8_decode(const void *s, size_t n, uint32_t *cp);

static inline size_t pdc_utf8_len(const void *s, size_t n)
{
	return pdc_utf8_decode(s, n, NULL);
}

#endif /* PDC_UTF8_H */
