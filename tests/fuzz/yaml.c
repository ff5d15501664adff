/*
 * yaml: profiling-snippet configs, as snip-lint and snip-run read them.
 *
 * Every input goes through snip-lint's own lint_file(), compiled in with
 * its main() renamed (main() would close stdout in finish()): libyaml's
 * parser, lib/io/pyyaml's PyYAML rules (tags, anchors, merge keys),
 * lib/snippet/snipcfg's checks, lib/snippet/snipin's checks of an inputs
 * section and the linter's warnings.  The input's size picks -w and -h.
 * Then, as snip-run plans a run, a config that parses is given overrides,
 * its run directory, its nsys command and its manifest, which is written
 * as JSON and must read back as JSON.  What aliases and merge keys
 * repeat stays within YAML_MAX_EXPAND, and a map's key index finds what a
 * scan from the end finds.  The input is a file as it is: a crash replays
 * with "snip-lint FILE".
 */
#include "fuzz.h"
#include "io/gzin.h"
#include "io/json.h"

int	snip_lint_main(int, char *[]);

#define main	snip_lint_main
#include "snip-lint.c"
#undef main

static FILE	*out;
static char	 outpath[64];

/* What ynode_json() wrote is one JSON value. */
static void
check_json(void)
{
	struct jreader *r;
	struct jdoc d = { 0 };
	struct gzin *in;

	if ((in = gzin_open(outpath)) == NULL)
		abort();
	r = jr_open(in, 0);
	if (jr_value(r, &d) != 1 || jr_value(r, &d) != 0)
		abort();
	jr_close(r);
	jdoc_free(&d);
}

/*
 * The expanded tree is the input's own nodes (never more than two and the
 * text per byte) plus what aliases repeat; every indexed lookup agrees
 * with a scan from the last pair.
 */
static void
check_doc(const struct ydoc *doc, size_t size)
{
	const struct ynode *m, *k;
	size_t i, j, p;

	if (doc->root != NULL && doc->root->size > 3 * size + 1 +
	    YAML_MAX_EXPAND)
		abort();
	for (i = 0; i < doc->nall; i++) {
		m = doc->all[i];
		if (m->type != Y_MAP || m->n > 256)
			continue;
		for (p = 0; p < m->n; p++) {
			k = m->v[2 * p];
			if (k->type != Y_STR || strlen(k->s) != k->len)
				continue;
			for (j = m->n; j-- > 0;)
				if (m->v[2 * j]->type == Y_STR &&
				    m->v[2 * j]->len == k->len &&
				    memcmp(m->v[2 * j]->s, k->s, k->len) == 0)
					break;
			if (ymap_key(m, k->s) != m->v[2 * j] ||
			    ymap_get(m, k->s) != m->v[2 * j + 1])
				abort();
		}
	}
}

static void
plan(const uint8_t *data, size_t size)
{
	static const struct snipover o = {
		.device = "cuda:1", .has_warmup = 1, .warmup = 2
	};
	struct snipcfg c;
	struct sdiags d = { 0 };
	struct ynode *ids, *desc, *m;
	char *run_dir, *nsys;
	struct jw *w;
	int rc;

	rc = snipcfg_parse(&c, (const char *)data, size, &d);
	if (c.doc.root != NULL)
		check_doc(&c.doc, size);
	if (rc == 0 && snipcfg_override(&c, &o, &d) == 0) {
		run_dir = snipcfg_run_dir(&c, "20240101T000000Z-0001");
		nsys = snipcfg_nsys(&c, run_dir, "profile.yaml");
		ids = snipcfg_records(&c, &desc, &d);
		snipcfg_target(&c, &d);
		/* snip-run writes a manifest only when nothing was found. */
		if (d.n == 0) {
			m = snipcfg_manifest(&c, "20240101T000000Z-0001",
			    run_dir, "python -m runner", NULL, ids, desc);
			if (ftruncate(fileno(out), 0) == -1 ||
			    fseek(out, 0, SEEK_SET) != 0)
				abort();
			w = jw_new(out);
			ynode_json(w, m);
			jw_free(w);
			check_json();
		}
		free(run_dir);
		free(nsys);
	}
	sdiag_sort(&d);
	sdiag_free(&d);
	snipcfg_free(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jw *w = NULL;

	fuzz_init("snip-lint");
	if (out == NULL) {
		out = fuzz_memfile("out");
		snprintf(outpath, sizeof(outpath), "/proc/self/fd/%d",
		    fileno(out));
	}
	fuzz_stdin(data, size);
	wflag = (int)(size & 1);
	hflag = (int)(size >> 1 & 1);
	if (!hflag)
		w = jw_new(stdout);
	(void)lint_file(NULL, w);
	jw_free(w);
	plan(data, size);
	return 0;
}
