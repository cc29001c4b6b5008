/*
 * pdc_sha256.h - SHA-256 (FIPS 180-4), for the hashes a Content Security
 * Policy names: the HTML writers hash their own inline script and style
 * at write time (emit/pde_html.c), so the page runs them and nothing
 * else.  Not for secrets: no constant-time claims, no key handling.
 *
 *	struct pdc_sha256 h;
 *	unsigned char md[PDC_SHA256_SIZE];
 *	char b64[PDC_SHA256_B64_SIZE];
 *
 *	pdc_sha256_init(&h);
 *	pdc_sha256_update(&h, text, strlen(text));	(any number of times)
 *	pdc_sha256_final(&h, md);
 *	pdc_sha256_base64(md, b64);			("ungWv48B...=")
 *
 * Thread-safe on distinct states; no allocation.
 */
#ifndef PDC_SHA256_H
#define PDC_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define PDC_SHA256_SIZE 32     /* digest bytes */
#define PDC_SHA256_B64_SIZE 45 /* its base64, 44 characters, and a NUL */

/* Invariant: buf holds len % 64 bytes not yet compressed into state. */
struct pdc_sha256 {
	uint32_t state[8];
	uint64_t len; /* bytes hashed so far */
	unsigned char buf[64];
};

void pdc_sha256_init(struct pdc_sha256 *h);
void pdc_sha256_update(struct pdc_sha256 *h, const void *data, size_t len);
/* The digest of everything updated; h must be initialised again after. */
void pdc_sha256_final(struct pdc_sha256 *h, unsigned char md[PDC_SHA256_SIZE]);
/* The digest of data in one call. */
void pdc_sha256(const void *data, size_t len,
		unsigned char md[PDC_SHA256_SIZE]);
/* md in standard base64 (RFC 4648 section 4, padded), NUL-terminated:
 * the form of CSP's 'sha256-...' sources. */
void pdc_sha256_base64(const unsigned char md[PDC_SHA256_SIZE],
		       char out[PDC_SHA256_B64_SIZE]);

#endif /* PDC_SHA256_H */
