/*
 * opfield: the partial format of the operator aggregator (op-rank
 * --partial): the ranges its integers must lie in, reading and writing
 * one, and each summed record described once, as a table of its int64_t
 * fields (name, offset, range, how two records merge, how the final
 * record writes it, its place in a partial), with one walker that writes
 * the final record's fields, writes them into a partial, reads them back
 * checked, and merges one record into another: adding a field is one
 * line of its table.  Records that show a sum otherwise (a step's times
 * from the rank's origin, a summary's few fields) are written by their
 * owners.  And oppartial.c's entry points: a rank's partial written,
 * partials merged, reread.
 *
 * Ownership: the tables are static; records are the caller's.  Only the
 * aggregator's own files (lib/trace/op*.c) include this header.
 */
#ifndef OPFIELD_H
#define OPFIELD_H

#include <stddef.h>
#include <stdint.h>

struct jdoc;
struct jw;
struct oprank;

#define PARTIAL_VERSION	3	/* of the op_partial records */

/* oppartial.c: the partials written, merged back in, and read again. */
void	op_output_partial(struct oprank *r, struct jw *w);
int	op_merge_file(struct oprank *r, const char *path);
int	op_reread(int argc, char *argv[]);
int	op_merge_again(struct oprank *r, int argc, char *argv[]);

/*
 * What a partial's integers may hold: P_TIME a time in ns (or a sum of
 * self times, which may be negative) within 2^62 of 0, 146 years either
 * way; P_SIZE a duration, count or size from 0 to 2^62; P_ANY any
 * integer.  The difference or sum of any two times or sizes then fits in
 * 64 bits, as a trace's do (tr-extract refuses a time beyond them).
 */
enum { P_ANY, P_TIME, P_SIZE };
#define P_MAX	((int64_t)1 << 62)

static inline int
op_in_range(int64_t v, int range)
{
	switch (range) {
	case P_TIME:
		return v >= -P_MAX && v <= P_MAX;
	case P_SIZE:
		return v >= 0 && v <= P_MAX;
	}
	return 1;
}

/* The node of the record's member key for messages, or the record's. */
uint32_t	op_member(const struct jdoc *d, const char *key);

/*
 * Member key of the partial record at hand (of object obj), an integer
 * in range, into *v; -1 after saying which member is wrong and why.
 */
int	op_get_num(struct oprank *r, uint32_t obj, const char *key, int range,
	    int64_t *v);
/* The array member key of n integers (in range), read into v, or written. */
int	op_get_nums(struct oprank *r, const char *key, int range, int64_t *v,
	    size_t n);
void	op_put_nums(struct jw *w, const char *key, const int64_t *v, size_t n);

enum opf_merge {
	OPF_SUM,	/* added, saturating */
	OPF_MIN,	/* the smaller kept */
	OPF_MAX,	/* the larger kept */
	OPF_APART	/* never merged: each record is kept apart */
};

/* How a final record writes a field: as it is, or ns as µs. */
enum opf_unit { OPF_INT, OPF_US };

/*
 * A table lists its fields in the final record's order.  A partial
 * writes them in the order of part: a field added later takes the next
 * place, so partials keep their bytes.  A derived field is the final
 * record's alone: its value is off's less that of less.  An optional
 * field is left out of a partial while 0, and read as 0 when absent.
 */
#define OPF_DERIVED	(-1)
struct opfield {
	const char	*key;
	size_t		 off;		/* of an int64_t in the record */
	int		 range;		/* P_ANY, P_TIME or P_SIZE */
	enum opf_merge	 merge;
	enum opf_unit	 unit;
	int		 part;		/* its place in a partial, or OPF_DERIVED */
	int		 optional;
	size_t		 less;		/* OPF_DERIVED: what is subtracted */
};

/*
 * A record whose count field is 0 is empty: it merges as nothing, and
 * into it the smallest and largest of the other are taken whole.
 */
#define OPF_NOCOUNT	SIZE_MAX
struct opfields {
	const struct opfield	*v;
	size_t			 n;
	size_t			 count;		/* its offset, or OPF_NOCOUNT */
};

/* A name's calls and times (struct stat), as key_averages() sums them. */
extern const struct opfields op_stat_fields;
/* A rank's compiled regions (struct compsum), graph launches (graphsum). */
extern const struct opfields op_compsum_fields, op_graphsum_fields;
/* A device's GPU time (struct devsum), a runtime call's (struct rtsum). */
extern const struct opfields op_devsum_fields, op_rtsum_fields;
/* A thread's busy time (struct thsum), a step's bounds (struct step). */
extern const struct opfields op_thsum_fields, op_step_fields;

/* Writes each field of rec as "key":value into a final record. */
void	opf_put_final(struct jw *, const struct opfields *, const void *rec);

/* Writes each field of rec as "key":value into a partial, in ns. */
void	opf_put(struct jw *, const struct opfields *, const void *rec);

/*
 * Reads each field of the partial record being read (of its object obj)
 * into rec; -1 after a data error naming the first field missing or out
 * of range.
 */
int	opf_get(struct oprank *, uint32_t obj, const struct opfields *,
	    void *rec);

/* Merges src into dst, field by field. */
void	opf_merge(const struct opfields *, void *dst, const void *src);

#endif
