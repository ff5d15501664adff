/*
 * opcoll: collectives (opcoll.c): each communication call's kind, process
 * group and size, a rank's calls kept in order, and the calls of one
 * collective matched across ranks to say which rank the others waited for.
 *
 * Ownership: a struct agg owns its calls (cc); struct oprank owns the
 * groups' names; op_coll_sums() returns an array the caller frees.
 */
#ifndef OPCOLL_H
#define OPCOLL_H

#include <stddef.h>
#include <stdint.h>

struct agg;
struct jw;
struct oprank;

#define MAXCCALLS	4096	/* communication calls a rank keeps, the first */

/*
 * A communication operator's call, kept to match the ranks' calls of a
 * collective by their order (opranks.c): ts in the rank's time.
 */
struct ccall {
	int64_t		ts, dur;
	int64_t		bytes;		/* -1: unknown */
	uint32_t	name;
	uint32_t	group;		/* op_coll_group(); 0: unnamed */
	int32_t		gsize;		/* the group's size; 0: unknown */
	int8_t		kind;		/* op_coll_kind(); -1: unknown */
	int8_t		gpu;		/* a kernel's, not an operator's */
};

/* A rank's part in the collectives matched across ranks (opcoll.c). */
struct collsum {
	size_t		instances, last, names;
	int64_t		total, waited;	/* ns */
	uint32_t	name;
};

/* Where an event's collective members are: jdoc nodes, or -1. */
struct collargs {
	int	coll, group, gsize, in, out, dtype;
};

/* opcoll.c */
int	op_coll_kind(const char *s, size_t len);
const char	*op_coll_kind_name(int kind);
uint32_t	op_coll_group(struct oprank *r, const char *s, size_t len);
const char	*op_coll_group_name(const struct oprank *r, uint32_t g);
void	op_coll_call(struct oprank *r, struct agg *a,
	    const struct collargs *ca, struct ccall *c);
void	op_put_collectives(struct oprank *r, struct jw *w);
struct collsum	*op_coll_sums(struct oprank *r);
void	op_ccall_add(struct agg *a, const struct ccall *c);

#endif
