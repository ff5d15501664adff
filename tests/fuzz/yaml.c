/*
 * yaml: profiling-snippet configs, as snip-lint and snip-run read them.
 *
 * Every input goes through snip-lint's own lint_file(), compiled in with
 * its main() renamed (main() would close stdout in finish()): libyaml's
 * parser, lib/pyyaml's PyYAML rules (tags, anchors, merge keys), lib/snipcfg's
 * checks and the linter's warnings.  The input's size picks -w and -h.
 * Then, as snip-run plans a run, a config that parses is given overrides,
 * its run directory, its nsys command and its manifest, which is written
 * as JSON and must read back as JSON.  The input is a file as it is: a
 * crash replays with "snip-lint FILE".
 */
#include "fuzz.h"
#include "gzin.h"
#include "json.h"

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

	if (snipcfg_parse(&c, (const char *)data, size, &d) == 0 &&
	    snipcfg_override(&c, &o, &d) == 0) {
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
