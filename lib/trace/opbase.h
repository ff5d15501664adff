/*
 * opbase: what every part of the operator aggregator uses (opbase.c):
 * growing an array, medians, a prefix test, the rank and warning members
 * of op-rank's records, rounding, names kept lower case, and a pid or
 * tid as the trace wrote it.  It calls no other part, so that the parts
 * form layers: this first, the output and the intake last.
 *
 * Ownership: a struct jid owns its text (op_jid_free()); op_lower_dup()
 * and op_gpu_keep() allocate what their caller frees.
 */
#ifndef OPBASE_H
#define OPBASE_H

#include <stddef.h>
#include <stdint.h>

struct jdoc;
struct jw;

/* A pid or tid as the trace wrote it: a number's text or a string. */
struct jid {
	char	*text;		/* NULL when absent */
	int	 str;
};

void	*op_grow(void *p, size_t *cap, size_t n, size_t size);
int	op_cmpi64(const void *a, const void *b);
double	op_median(const int64_t *v, size_t m);
int	op_prefix(const char *s, const char *p);
void	op_put_rank(struct jw *w, int64_t rank);
void	op_put_warning(struct jw *w, int64_t rank, const char *msg);
double	op_round3(double x);
void	op_gpu_keep(char **dst, const char *src);
char	*op_lower_dup(const char *s);
int	op_get_jid(const struct jdoc *d, int i, struct jid *id);
void	op_jid_copy(struct jid *dst, const struct jid *src);
void	op_jid_free(struct jid *id);
void	op_put_jid(struct jw *w, const char *key, const struct jid *id);

#endif
