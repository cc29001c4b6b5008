/*
 * pdc_sha256.c - SHA-256 as FIPS 180-4 specifies it (sections 4.1.2,
 * 4.2.2, 5.1.1, 5.3.3 and 6.2), written from the standard; the test
 * vectors are the standard's examples (tests/unit/check_common.c).
 */
#include "pdc_sha256.h"

#include <string.h>

/* the first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (4.2.2) */
static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* One 64-byte block into the state (6.2.2). */
static void compress(uint32_t state[8], const unsigned char *block)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (unsigned t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (unsigned t = 16; t < 64; t++) {
		const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^
				    (w[t - 15] >> 3);
		const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^
				    (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = state[0], b = state[1], c = state[2], d = state[3];
	e = state[4], f = state[5], g = state[6], h = state[7];
	for (unsigned t = 0; t < 64; t++) {
		const uint32_t t1 = h +
				    (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
				    ((e & f) ^ (~e & g)) + k[t] + w[t];
		const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
				    ((a & b) ^ (a & c) ^ (b & c));

		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	state[0] += a, state[1] += b, state[2] += c, state[3] += d;
	state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

void pdc_sha256_init(struct pdc_sha256 *h)
{
	/* the fractional parts of the square roots of the first 8 primes
	 * (5.3.3) */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(h->state, h0, sizeof(h0));
	h->len = 0;
}

void pdc_sha256_update(struct pdc_sha256 *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t used = (size_t)(h->len % 64);

	h->len += len;
	if (used) {
		size_t take = 64 - used < len ? 64 - used : len;

		memcpy(h->buf + used, p, take);
		p += take;
		len -= take;
		if (used + take < 64)
			return;
		compress(h->state, h->buf);
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(h->state, p);
	if (len)
		memcpy(h->buf, p, len);
}

void pdc_sha256_final(struct pdc_sha256 *h, unsigned char md[PDC_SHA256_SIZE])
{
	const uint64_t bits = h->len * 8;
	size_t used = (size_t)(h->len % 64);

	/* 5.1.1: a 1 bit, zeros to 56 mod 64 bytes, the length in bits */
	h->buf[used++] = 0x80;
	if (used > 56) {
		memset(h->buf + used, 0, 64 - used);
		compress(h->state, h->buf);
		used = 0;
	}
	memset(h->buf + used, 0, 56 - used);
	store_be32(h->buf + 56, (uint32_t)(bits >> 32));
	store_be32(h->buf + 60, (uint32_t)bits);
	compress(h->state, h->buf);
	for (unsigned i = 0; i < 8; i++)
		store_be32(md + 4 * i, h->state[i]);
}

void pdc_sha256(const void *data, size_t len, unsigned char md[PDC_SHA256_SIZE])
{
	struct pdc_sha256 h;

	pdc_sha256_init(&h);
	pdc_sha256_update(&h, data, len);
	pdc_sha256_final(&h, md);
}

void pdc_sha256_base64(const unsigned char md[PDC_SHA256_SIZE],
		       char out[PDC_SHA256_B64_SIZE])
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0, i;

	/* 32 bytes: ten groups of three, then two bytes and one '=' */
	for (i = 0; i + 3 <= PDC_SHA256_SIZE; i += 3) {
		const uint32_t v = (uint32_t)md[i] << 16 |
				   (uint32_t)md[i + 1] << 8 | md[i + 2];

		out[o++] = digits[v >> 18];
		out[o++] = digits[(v >> 12) & 63];
		out[o++] = digits[(v >> 6) & 63];
		out[o++] = digits[v & 63];
	}
	{
		const uint32_t v =
			((uint32_t)md[i] << 16) | ((uint32_t)md[i + 1] << 8);

		out[o++] = digits[v >> 18];
		out[o++] = digits[(v >> 12) & 63];
		out[o++] = digits[(v >> 6) & 63];
		out[o++] = '=';
	}
	out[o] = '\0';
}
