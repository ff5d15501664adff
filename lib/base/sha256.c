#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHANI_CODE 1
#endif

#include "base/sha256.h"

static const uint32_t K[64] = {
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
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

static void	block(struct sha256 *, const unsigned char *);
static void	blocks(struct sha256 *, const unsigned char *, size_t);
#ifdef HAVE_SHANI_CODE
static int	have_shani(void);
static void	blocks_shani(uint32_t *, const unsigned char *, size_t);
#endif

void
sha256_init(struct sha256 *c)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(c->h, h0, sizeof(h0));
	c->len = 0;
	c->n = 0;
}

static void
block(struct sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, cc, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
		    (w[i - 15] >> 3)) + w[i - 7] + (ROR(w[i - 2], 17) ^
		    ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3];
	e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		    ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		    ((a & b) ^ (a & cc) ^ (b & cc));
		h = g; g = f; f = e; e = d + t1;
		d = cc; cc = b; b = a; a = t1 + t2;
	}
	c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d;
	c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}

/*
 * Whole blocks: with the CPU's SHA extensions when it has them, which hash
 * several times faster, so that naming a multi-GB input in a report costs
 * less than reading it.
 */
static void
blocks(struct sha256 *c, const unsigned char *p, size_t nblocks)
{
#ifdef HAVE_SHANI_CODE
	if (nblocks > 0 && have_shani()) {
		blocks_shani(c->h, p, nblocks);
		return;
	}
#endif
	for (; nblocks > 0; nblocks--, p += 64)
		block(c, p);
}

#ifdef HAVE_SHANI_CODE
static int
have_shani(void)
{
	unsigned int a, b, c, d;

	/* SHA (leaf 7 EBX bit 29), SSSE3 and SSE4.1 (leaf 1 ECX 9, 19). */
	if (!__get_cpuid(1, &a, &b, &c, &d) || (c & (1u << 9)) == 0 ||
	    (c & (1u << 19)) == 0)
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & (1u << 29)) != 0;
}

/*
 * The state is kept as the ABEF and CDGH halves that sha256rnds2 works on;
 * each group of four rounds also prepares the message words for the group
 * three ahead (sha256msg1) and one ahead (sha256msg2), as FIPS 180-4's
 * schedule does one word at a time.  The loops are unrolled so that m[g % 4]
 * names a register, not memory: a fifth faster.
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void
blocks_shani(uint32_t *h, const unsigned char *p, size_t nblocks)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
	    0x0405060700010203ULL);
	__m128i st0, st1, tmp, msg, m[4], abef, cdgh;
	int g;

	tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h),
	    0xb1);
	st1 = _mm_shuffle_epi32(_mm_loadu_si128(
	    (const __m128i *)(const void *)(h + 4)), 0x1b);
	st0 = _mm_alignr_epi8(tmp, st1, 8);
	st1 = _mm_blend_epi16(st1, tmp, 0xf0);
	for (; nblocks > 0; nblocks--, p += 64) {
		abef = st0;
		cdgh = st1;
#pragma GCC unroll 4
		for (g = 0; g < 4; g++)
			m[g] = _mm_shuffle_epi8(_mm_loadu_si128(
			    (const __m128i *)(const void *)(p + 16 * g)), bswap);
#pragma GCC unroll 16
		for (g = 0; g < 16; g++) {
			msg = _mm_add_epi32(m[g % 4], _mm_loadu_si128(
			    (const __m128i *)(const void *)(K + 4 * g)));
			st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
			if (g >= 3 && g <= 14) {
				tmp = _mm_alignr_epi8(m[g % 4], m[(g + 3) % 4],
				    4);
				m[(g + 1) % 4] = _mm_sha256msg2_epu32(
				    _mm_add_epi32(m[(g + 1) % 4], tmp), m[g % 4]);
			}
			st0 = _mm_sha256rnds2_epu32(st0, st1,
			    _mm_shuffle_epi32(msg, 0x0e));
			if (g >= 1 && g <= 12)
				m[(g + 3) % 4] = _mm_sha256msg1_epu32(
				    m[(g + 3) % 4], m[g % 4]);
		}
		st0 = _mm_add_epi32(st0, abef);
		st1 = _mm_add_epi32(st1, cdgh);
	}
	tmp = _mm_shuffle_epi32(st0, 0x1b);
	st1 = _mm_shuffle_epi32(st1, 0xb1);
	_mm_storeu_si128((__m128i *)(void *)h, _mm_blend_epi16(tmp, st1, 0xf0));
	_mm_storeu_si128((__m128i *)(void *)(h + 4),
	    _mm_alignr_epi8(st1, tmp, 8));
}
#endif

void
sha256_update(struct sha256 *c, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t k;

	c->len += n;
	if (c->n > 0) {
		k = 64 - c->n < n ? 64 - c->n : n;
		memcpy(c->buf + c->n, p, k);
		c->n += k;
		p += k;
		n -= k;
		if (c->n < 64)
			return;
		block(c, c->buf);
		c->n = 0;
	}
	blocks(c, p, n / 64);
	p += n / 64 * 64;
	n %= 64;
	memcpy(c->buf, p, n);
	c->n = n;
}

void
sha256_hex(struct sha256 *c, char hex[65])
{
	uint64_t bits = c->len * 8;
	unsigned char pad[72];
	size_t padlen;
	int i;

	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	padlen = c->n < 56 ? 56 - c->n : 120 - c->n;
	for (i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(c, pad, padlen + 8);
	for (i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", (unsigned)c->h[i]);
}
