/*
 * sha256: the SHA-256 digest (FIPS 180-4) of a byte stream, for naming the
 * exact inputs of a report.  A context is a plain struct the caller owns;
 * nothing here allocates.
 */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t	h[8];
	uint64_t	len;		/* bytes hashed so far */
	unsigned char	buf[64];
	size_t		n;		/* bytes waiting in buf */
};

void sha256_init(struct sha256 *);
void sha256_update(struct sha256 *, const void *, size_t);
/* Writes the digest as 64 lowercase hex digits and a NUL into hex. */
void sha256_hex(struct sha256 *, char hex[65]);

#endif
