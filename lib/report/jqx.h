/*
 * jqx: every call into libjq, and the bridge between jq's jv values and
 * the project's own reader (jdoc) and writer (jw).
 *
 * A jqx holds one compiled jq program.  Compile errors and runtime errors
 * are collected by an error callback installed before compiling and handed
 * back as text, so that each caller can prefix them with the rubric file
 * or input it was working on and pick the exit status.
 *
 * The jv ownership rule: every jv_* call consumes its jv arguments, except
 * jv_copy, jv_get_kind, jv_string_value, jv_number_value and jv_is_integer.
 * Wrap an argument in jv_copy() whenever it is still needed afterwards.
 * Each local jv ends in exactly one jv_free() or one hand-off.  The
 * functions below follow the same rule: a jv argument is consumed unless
 * the comment says it is borrowed.
 */
#ifndef JQX_H
#define JQX_H

#include <stdint.h>

#include <jv.h>

struct jdoc;
struct strmap;
struct jw;
struct jqx;

/*
 * Compiles prog with the named arguments args (an object of $name to
 * value; consumed).  Returns the program, or NULL with the reason in
 * *errmsg, which the caller frees.  The user's $HOME/.jq, which libjq
 * would add to the program, is left out: HOME is unset for the call, so
 * no other thread may read the environment meanwhile.
 */
struct jqx *jqx_compile(const char *prog, jv args, char **errmsg);

/*
 * Runs the program on in (consumed) and stores its first output in *out
 * (the caller's).  Later outputs are discarded.  Returns 1, 0 when the
 * program gave no output (*out is then jv_null()), or -1 on a runtime
 * error or halt, with the reason in *errmsg, which the caller frees.
 */
int jqx_run(struct jqx *, jv in, jv *out, char **errmsg);

/* Frees the program; NULL is allowed. */
void jqx_free(struct jqx *);

/*
 * Node i of doc (borrowed) and everything below it, as a new jv; a JNUL
 * (json.h) in a string or a member name is the U+0000 of jq's strings.
 * names, when not NULL, keeps the member names made for the next
 * documents: records of one kind share their names, and libjq hashes
 * each name once.  Its vals are the caller's, freed by
 * strmap_free(names, jqx_free_name).
 */
jv jqx_from_jdoc(const struct jdoc *, uint32_t i, struct strmap *names);

/* Frees a member name that jqx_from_jdoc() kept. */
void jqx_free_name(void *);

/*
 * Writes v (borrowed) through the writer: members in the object's own
 * order, a U+0000 in a string or name as \u0000 (JNUL to a document
 * writer), integral numbers up to 2^53 as integers, others as jw_double().
 */
void jqx_write(struct jw *, jv v);

/*
 * Writes the members of object v (borrowed) as one record of the given
 * kind, ending the line.
 */
void jqx_write_record(struct jw *, const char *kind, jv v);

/* A jv string's bytes; v is borrowed and must be a string. */
const char *jqx_str(jv v);

#endif
