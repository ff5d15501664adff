/*
 * inputrec: the "input" record that names one artifact a report was made
 * from, byte for byte: its path, size and SHA-256, and the mrp version
 * that read it.  Nothing is kept; the file is read once, in chunks.
 */
#ifndef INPUTREC_H
#define INPUTREC_H

/* The version written into reports. */
#define MRP_VERSION	"0.1.0"

#include <stdint.h>

struct jw;

/*
 * Reads path (borrowed) through and stores its size and SHA-256 (64 hex
 * digits).  Returns 0, or -1 with errno set.
 */
int inputrec_hash(const char *path, uint64_t *size, char hex[65]);

/*
 * Hashes path (borrowed) and writes its "input" record with role (what the
 * file is, e.g. "trace" or "memory_snapshot"; NULL to leave it out).
 * Returns 0, or -1 with errno set when the file cannot be read, having
 * written nothing.
 */
int inputrec_write(struct jw *, const char *path, const char *role);

/* The same record, of a file already hashed (hex: 64 hex digits). */
void inputrec_put(struct jw *, const char *path, const char *role,
    uint64_t size, const char *hex);

#endif
