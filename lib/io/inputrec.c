#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/sha256.h"
#include "base/xalloc.h"
#include "io/inputrec.h"
#include "io/ndjson.h"

/*
 * Below malloc's mmap threshold, so that what is freed is used again: a
 * megabyte freed into the heap after each of many inputs stayed resident
 * beside the report being built.
 */
#define CHUNK	(64 << 10)

int
inputrec_hash(const char *path, uint64_t *sizep, char hex[65])
{
	struct sha256 c;
	char *buf;
	uint64_t size = 0;
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY)) == -1)
		return -1;
	buf = xmalloc(CHUNK);
	sha256_init(&c);
	while ((n = read(fd, buf, CHUNK)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			saved = errno;
			free(buf);
			close(fd);
			errno = saved;
			return -1;
		}
		sha256_update(&c, buf, (size_t)n);
		size += (uint64_t)n;
	}
	free(buf);
	close(fd);
	sha256_hex(&c, hex);
	*sizep = size;
	return 0;
}

int
inputrec_write(struct jw *w, const char *path, const char *role)
{
	uint64_t size;
	char hex[65];

	if (inputrec_hash(path, &size, hex) != 0)
		return -1;
	inputrec_put(w, path, role, size, hex);
	return 0;
}

void
inputrec_put(struct jw *w, const char *path, const char *role, uint64_t size,
    const char *hex)
{
	jw_record(w, "input");
	jw_key(w, "path");
	jw_cstring(w, path);
	if (role != NULL) {
		jw_key(w, "role");
		jw_cstring(w, role);
	}
	jw_key(w, "size");
	jw_uint(w, size);
	jw_key(w, "sha256");
	jw_cstring(w, hex);
	jw_key(w, "version");
	jw_cstring(w, MRP_VERSION);
	jw_end(w);
}
