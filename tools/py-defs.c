/*
 * py-defs: find the def, async def and class statements of Python source,
 * with the line numbers CPython's ast reports, without running Python.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/usage.h"
#include "io/ndjson.h"
#include "snippet/pysrc.h"

struct sel {
	const char	*qualname;	/* -n, or NULL */
	uint32_t	 first, last;	/* -l, or 0 */
};

static void	usage(void) __attribute__((noreturn));
static void	parse_lines(const char *, struct sel *);
static int	defs(const char *, const struct sel *, struct jw *);
static void	put_def(const struct pysrc *, size_t, const uint32_t *,
		    struct jw *);

static const char *const types[] = { "def", "async def", "class" };

static const struct optdoc options[] = {
	{ "-l first[-last]",
	    "only the innermost definition holding these lines" },
	{ "-n qualname", "only the definitions with this qualified name" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-l lines] [-n qualname] [file ...]",
	"find the functions and classes of Python source without running "
	    "Python",
	options
};

static void
usage(void)
{
	usage_error(&use);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sel sel = { NULL, 0, 0 };
	struct jw *w;
	int ch, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "l:n:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			parse_lines(optarg, &sel);
			break;
		case 'n':
			if (*optarg == '\0')
				die_usage("-n: qualified name is empty");
			sel.qualname = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	w = jw_new(stdout);
	if (argc == 0)
		status = defs(NULL, &sel, w);
	for (; argc > 0; argc--, argv++)
		status |= defs(*argv, &sel, w);
	jw_free(w);
	return finish(status);
}

/* "first" or "first-last", both line numbers from 1. */
static void
parse_lines(const char *arg, struct sel *sel)
{
	char buf[64];
	char *dash;

	if (strlen(arg) >= sizeof(buf))
		die_usage("-l: line range is invalid: %s", arg);
	memcpy(buf, arg, strlen(arg) + 1);
	if ((dash = strchr(buf, '-')) != NULL)
		*dash++ = '\0';
	sel->first = (uint32_t)parse_num(buf, 1, UINT32_MAX, "-l: first line");
	sel->last = dash == NULL ? sel->first :
	    (uint32_t)parse_num(dash, 1, UINT32_MAX, "-l: last line");
	if (sel->last < sel->first)
		die_usage("-l: line range is invalid: %s", arg);
}

static int
defs(const char *path, const struct sel *sel, struct jw *w)
{
	struct pysrc src;
	uint32_t range[2];
	size_t i;
	int found = 0, d;

	if (pysrc_read(&src, path) < 0) {
		pysrc_free(&src);
		return 1;
	}
	if (sel->first != 0) {
		if ((d = pysrc_select(&src, sel->first, sel->last,
		    sel->qualname, &range[0], &range[1])) < 0) {
			pysrc_free(&src);
			return 1;
		}
		put_def(&src, (size_t)d, range, w);
		pysrc_free(&src);
		return 0;
	}
	for (i = 0; i < src.ndef; i++) {
		if (sel->qualname != NULL &&
		    strcmp(src.def[i].qualname, sel->qualname) != 0)
			continue;
		put_def(&src, i, NULL, w);
		found = 1;
	}
	if (sel->qualname != NULL && !found) {
		warnmsg("%s: no definition named %s", src.name, sel->qualname);
		pysrc_free(&src);
		return 1;
	}
	pysrc_free(&src);
	return 0;
}

static void
put_def(const struct pysrc *s, size_t i, const uint32_t *range, struct jw *w)
{
	const struct pydef *f = &s->def[i];
	const struct pyline *hl = &s->line[f->line];
	const struct pyline *el = &s->line[f->end];
	size_t from = s->line[f->decorator].off;

	jw_record(w, "def");
	jw_key(w, "file");
	jw_cstring(w, s->name);
	jw_key(w, "qualname");
	jw_cstring(w, f->qualname);
	jw_key(w, "name");
	jw_cstring(w, f->name);
	jw_key(w, "type");
	jw_cstring(w, types[f->type]);
	if (f->parent >= 0) {
		jw_key(w, "parent");
		jw_cstring(w, s->def[f->parent].qualname);
		jw_key(w, "parent_type");
		jw_cstring(w, types[s->def[f->parent].type]);
	}
	jw_key(w, "decorator_line");
	jw_uint(w, f->decorator);
	jw_key(w, "line");
	jw_uint(w, f->line);
	jw_key(w, "header_end");
	jw_uint(w, f->header_end);
	jw_key(w, "end_line");
	jw_uint(w, f->end);
	jw_key(w, "end_line_comments");
	jw_uint(w, f->end_comments);
	jw_key(w, "oneline");
	jw_bool(w, f->oneline);
	jw_key(w, "indent");
	jw_uint(w, hl->cols);
	jw_key(w, "indent_text");
	jw_string(w, s->text + hl->off, hl->ws);
	if (range != NULL) {
		jw_key(w, "select_first");
		jw_uint(w, range[0]);
		jw_key(w, "select_last");
		jw_uint(w, range[1]);
	}
	jw_key(w, "text");
	jw_string(w, s->text + from, el->off + el->len + el->eol - from);
	jw_end(w);
}
