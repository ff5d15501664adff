#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jq.h>
#include <jv.h>

#include "base/err.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "report/jqx.h"

struct jqx {
	jq_state	*jq;
	char		*msg;	/* messages from the error callback */
	size_t		 len;
};

static void	 on_error(void *, jv);
static jv	 jv_of(const char *, size_t);
static char	*take_msg(struct jqx *, const char *fallback);

/*
 * jq reports through this callback: compile errors as strings, runtime
 * errors as invalid values with a message.  They are kept until the
 * caller asks, as one line for a message: "; " between them, and a space
 * for a newline inside one (a compile error quotes its line of the
 * program after one).
 */
static void
on_error(void *arg, jv msg)
{
	struct jqx *x = arg;
	const char *s;
	size_t n, i;

	if (jv_get_kind(msg) == JV_KIND_INVALID)
		msg = jv_invalid_get_msg(msg);
	if (jv_get_kind(msg) != JV_KIND_STRING)
		msg = jv_dump_string(msg, 0);
	s = jv_string_value(msg);
	/* jq's own prefix says nothing that ours does not. */
	if (strncmp(s, "jq: error: ", 11) == 0)
		s += 11;
	else if (strncmp(s, "jq: ", 4) == 0)
		s += 4;
	n = strlen(s);
	while (n > 0 && s[n - 1] == '\n')
		n--;
	x->msg = xrealloc(x->msg, x->len + n + 3);
	if (x->len > 0) {
		x->msg[x->len++] = ';';
		x->msg[x->len++] = ' ';
	}
	for (i = 0; i < n; i++)
		x->msg[x->len++] = s[i] == '\n' ? ' ' : s[i];
	x->msg[x->len] = '\0';
	jv_free(msg);
}

static char *
take_msg(struct jqx *x, const char *fallback)
{
	char *m;

	m = x->msg != NULL ? x->msg : xstrdup(fallback);
	x->msg = NULL;
	x->len = 0;
	return m;
}

/*
 * libjq puts $HOME/.jq into every program it compiles (1.6 binds its
 * definitions ahead of the builtins, so that they replace them; later
 * versions import it): a user's jq set-up would change what the rubric
 * and the report say, and a broken one would stop every report with a
 * syntax error blamed on the rubric.  HOME is hidden from libjq for the
 * call and put back.
 */
static int
compile_alone(jq_state *jq, const char *prog, jv args)
{
	char *home;
	int ok;

	if ((home = getenv("HOME")) != NULL) {
		home = xstrdup(home);
		if (unsetenv("HOME") != 0)
			die("unsetenv:");
	}
	ok = jq_compile_args(jq, prog, args);
	if (home != NULL) {
		if (setenv("HOME", home, 1) != 0)
			die("setenv:");
		free(home);
	}
	return ok;
}

struct jqx *
jqx_compile(const char *prog, jv args, char **errmsg)
{
	struct jqx *x;

	x = xcalloc(1, sizeof(*x));
	if ((x->jq = jq_init()) == NULL)
		die("out of memory");
	jq_set_error_cb(x->jq, on_error, x);
	if (!compile_alone(x->jq, prog, args)) {
		*errmsg = take_msg(x, "does not compile");
		jqx_free(x);
		return NULL;
	}
	return x;
}

int
jqx_run(struct jqx *x, jv in, jv *out, char **errmsg)
{
	jv r, first;
	int got;

	jq_start(x->jq, in, 0);
	first = jv_null();
	got = 0;
	while (jv_is_valid(r = jq_next(x->jq))) {
		if (got)
			jv_free(r);
		else {
			jv_free(first);
			first = r;
			got = 1;
		}
	}
	if (jq_halted(x->jq)) {
		jv_free(r);
		jv_free(first);
		*errmsg = take_msg(x, "the program halted");
		return -1;
	}
	if (jv_invalid_has_msg(jv_copy(r))) {
		on_error(x, r);
		jv_free(first);
		*errmsg = take_msg(x, "runtime error");
		return -1;
	}
	jv_free(r);
	*out = first;
	return got;
}

void
jqx_free(struct jqx *x)
{
	if (x == NULL)
		return;
	jq_teardown(&x->jq);
	free(x->msg);
	free(x);
}

/*
 * A jv string of n bytes of a reader's string: its JNULs become the
 * U+0000 that jq holds (and writes as \u0000), where jq would make them
 * U+FFFD as invalid UTF-8 and merge the names they tell apart.
 */
static jv
jv_of(const char *s, size_t n)
{
	char *t;
	size_t i, k = 0;
	jv v;

	/* No valid UTF-8 holds a C0 byte: most strings go as they are. */
	if (memchr(s, 0xc0, n) == NULL)
		return jv_string_sized(s, (int)n);
	t = xmalloc(n);
	for (i = 0; i < n; i++)
		if (i + 1 < n && memcmp(s + i, JNUL, 2) == 0) {
			t[k++] = '\0';
			i++;
		} else
			t[k++] = s[i];
	v = jv_string_sized(t, (int)k);
	free(t);
	return v;
}

/* Member name c of d, made once in names when there are names. */
static jv
name_of(const struct jdoc *d, uint32_t c, struct strmap *names)
{
	const char *key = jdoc_key(d, c);
	size_t len = d->node[c].keylen;
	struct strent *e;
	jv *v;

	if (names == NULL)
		return jv_of(key, len);
	e = strmap_put(names, key, len);
	if (e->val == NULL) {
		v = xmalloc(sizeof(*v));
		*v = jv_of(key, len);
		e->val = v;
	}
	return jv_copy(*(jv *)e->val);
}

void
jqx_free_name(void *v)
{
	jv_free(*(jv *)v);
	free(v);
}

jv
jqx_from_jdoc(const struct jdoc *d, uint32_t i, struct strmap *names)
{
	const struct jnode *n = &d->node[i];
	uint32_t c;
	jv v;

	switch (n->type) {
	case JT_NULL:
		return jv_null();
	case JT_FALSE:
		return jv_false();
	case JT_TRUE:
		return jv_true();
	case JT_NUMBER:
		return jv_number(jnum_double(jdoc_str(d, i)));
	case JT_STRING:
		return jv_of(jdoc_str(d, i), n->len);
	case JT_ARRAY:
		v = jv_array();
		for (c = i + 1; c < n->next; c = d->node[c].next)
			v = jv_array_append(v, jqx_from_jdoc(d, c, names));
		return v;
	default:
		v = jv_object();
		for (c = i + 1; c < n->next; c = d->node[c].next)
			v = jv_object_set(v, name_of(d, c, names),
			    jqx_from_jdoc(d, c, names));
		return v;
	}
}

void
jqx_write(struct jw *w, jv v)
{
	double d;
	int i, n;

	switch (jv_get_kind(v)) {
	case JV_KIND_NULL:
	case JV_KIND_INVALID:
		jw_null(w);
		break;
	case JV_KIND_FALSE:
		jw_bool(w, 0);
		break;
	case JV_KIND_TRUE:
		jw_bool(w, 1);
		break;
	case JV_KIND_NUMBER:
		d = jv_number_value(v);
		if (d == floor(d) && fabs(d) <= 9007199254740992.0)
			jw_int(w, (int64_t)d);
		else
			jw_double(w, d);
		break;
	case JV_KIND_STRING:
		jw_string(w, jv_string_value(v),
		    (size_t)jv_string_length_bytes(jv_copy(v)));
		break;
	case JV_KIND_ARRAY:
		jw_begin_array(w);
		n = jv_array_length(jv_copy(v));
		for (i = 0; i < n; i++) {
			jv e = jv_array_get(jv_copy(v), i);

			jqx_write(w, e);
			jv_free(e);
		}
		jw_end_array(w);
		break;
	case JV_KIND_OBJECT:
		jw_begin_object(w);
		for (i = jv_object_iter(v); jv_object_iter_valid(v, i);
		    i = jv_object_iter_next(v, i)) {
			jv k = jv_object_iter_key(v, i);
			jv e = jv_object_iter_value(v, i);

			jw_ckey_sized(w, jv_string_value(k),
			    (size_t)jv_string_length_bytes(jv_copy(k)));
			jqx_write(w, e);
			jv_free(k);
			jv_free(e);
		}
		jw_end_object(w);
		break;
	}
}

void
jqx_write_record(struct jw *w, const char *kind, jv v)
{
	int i;

	jw_crecord(w, kind);
	for (i = jv_object_iter(v); jv_object_iter_valid(v, i);
	    i = jv_object_iter_next(v, i)) {
		jv k = jv_object_iter_key(v, i);
		jv e = jv_object_iter_value(v, i);

		jw_ckey_sized(w, jv_string_value(k),
		    (size_t)jv_string_length_bytes(jv_copy(k)));
		jqx_write(w, e);
		jv_free(k);
		jv_free(e);
	}
	jw_end(w);
}

const char *
jqx_str(jv v)
{
	return jv_string_value(v);
}
