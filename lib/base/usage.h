/*
 * usage: a tool's synopsis and one line on each of its options, kept in one
 * static table per tool so that the usage error and -h/--help cannot drift.
 *
 * Everything is borrowed: the tables are static and outlive the process's
 * use of them.  A synopsis leaves out "usage: prog "; a '\n' in it starts
 * another form, indented under the first as BSD usage lines are.
 */
#ifndef USAGE_H
#define USAGE_H

struct optdoc {
	const char	*option;	/* "-n count", "--merge" */
	const char	*what;		/* one line, no final period */
};

struct usage {
	const char		*synopsis;
	const char		*purpose;	/* the man page's one line */
	const struct optdoc	*options;	/* ends with { NULL, NULL } */
};

/* The last option of most tools; snip-lint's -h is its own. */
#define OPTDOC_HELP	{ "-h, --help", "print this help and exit" }
#define OPTDOC_END	{ NULL, NULL }

/* The synopsis on stderr; exits 2. */
__attribute__((noreturn))
void usage_error(const struct usage *);

/*
 * The synopsis, the purpose and every option on stdout, then where the
 * manual is; exits 0, or 1 when the write fails.
 */
__attribute__((noreturn))
void usage_help(const struct usage *);

#endif
