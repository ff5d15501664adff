/*
 * report-md: render the records of the other tools and rubric-apply's
 * findings as a Markdown report, or with -j as one JSON report record.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/inputrec.h"
#include "io/ndjson.h"
#include "io/outdir.h"
#include "io/runnames.h"
#include "io/textout.h"
#include "memory/memsnap.h"
#include "report/jqx.h"
#include "report/recset.h"
#include "report/rubric.h"

/* Records kept per kind, rank and class: the report shows the top ones. */
#define KEEP	64

/* What render_one() renders, for recset_each(). */
struct program {
	struct jqx	*x;
	int		 json;
};

static void	usage(void);
static int	add_inputs(struct recset *, int ni, char *iflag[],
		    const char *Iflag);
static int	gather(void *, struct recset *, int nargs, char *args[],
		    const char *where);
static jv	input_record(const char *, jv *);
static int	put_report(FILE *, const char *, jv, int json,
		    const char *input);
static int	render_one(void *, jv records, FILE *, const char *path,
		    const char *input);

static struct jqx *compile(const char *dir, const char *call);

static const struct optdoc options[] = {
	{ "-i file", "name file among the inputs (repeatable)" },
	{ "-I list", "name each file that list names, one a line" },
	{ "-j", "write the JSON report instead" },
	{ "-J file", "also write the JSON report to file" },
	{ "-o dir", "write the report of each file into dir, on its own" },
	{ "-O plan", "write each report the plan names from its files" },
	{ "-r rubric", "the rubric directory" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-j | -J file] [-i file] [-I list] [-r rubric] [file ...]\n"
	"-o dir [-j] [-r rubric] file ...\n"
	"-O plan [-j] [-r rubric]",
	"render profile records and findings as a Markdown or JSON report",
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
	struct recset rs;
	struct outdir od;
	struct program prog;
	struct jqx *x;
	const char *oflag = NULL, *Oflag = NULL, *rflag = NULL, *Iflag = NULL,
	    *Jflag = NULL;
	char **iflag, *dir, *msg;
	int ch, batch, ni = 0, jflag = 0, status = 0, rc;
	FILE *jf = NULL;
	jv out;

	setprogname(argv[0]);
	iflag = xcalloc((size_t)argc, sizeof(*iflag));
	while ((ch = getopt_long(argc, argv, "i:I:jJ:o:O:r:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			iflag[ni++] = optarg;
			break;
		case 'I':
			if (Iflag != NULL) {
				warnmsg("-I: one list at most");
				usage();
			}
			Iflag = optarg;
			break;
		case 'j':
			jflag = 1;
			break;
		case 'J':
			Jflag = optarg;
			break;
		case 'o':
			oflag = optarg;
			break;
		case 'O':
			Oflag = optarg;
			break;
		case 'r':
			rflag = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	if (jflag && Jflag != NULL) {
		warnmsg("-j and -J: one JSON report at most");
		usage();
	}
	if (oflag != NULL && Oflag != NULL)
		usage();
	batch = oflag != NULL ? 'o' : Oflag != NULL ? 'O' : 0;
	if (batch != 0) {
		if (Jflag != NULL) {
			warnmsg("-%c and -J: -%c writes one report a file",
			    batch, batch);
			usage();
		}
		if (ni > 0 || Iflag != NULL) {
			warnmsg("-%c and -i or -I: they name the inputs of one "
			    "report", batch);
			usage();
		}
		if ((oflag != NULL) != (argc > 0))
			usage();
		if (oflag != NULL)
			outdir_init(&od, oflag, argv, (size_t)argc,
			    jflag ? ".json" : ".md");
		else
			outdir_plan(&od, Oflag);
	}

	dir = rubric_dir(rflag);
	/*
	 * Both reports from one program: compiling it costs libjq more than
	 * running it, and both read the same facts.
	 */
	x = compile(dir, Jflag != NULL ?
	    "[report(\"markdown\"), report(\"json\")]" :
	    jflag ? "report(\"json\")" : "report(\"markdown\")");
	free(dir);
	if (batch != 0) {
		prog.x = x;
		prog.json = jflag;
		status = recset_each(&od, KEEP, Oflag != NULL ? gather : NULL,
		    render_one, &prog);
		outdir_free(&od);
		free(iflag);
		jqx_free(x);
		return finish(status != 0);
	}
	if (Jflag != NULL && (jf = fopen(Jflag, "w")) == NULL)
		die("%s:", Jflag);
	recset_init(&rs, KEEP);
	if ((rc = recset_read_operands(&rs, argc, argv)) < 0)
		exit(1);
	status |= rc;
	status |= add_inputs(&rs, ni, iflag, Iflag);
	free(iflag);

	rc = jqx_run(x, recset_take(&rs), &out, &msg);
	/* Nothing gathered gives null or "": no report, no output. */
	if (rc < 0)
		die("report.jq: %s", msg);
	if (jf != NULL) {
		if (rc > 0 && (put_report(stdout, NULL,
		    jv_array_get(jv_copy(out), 0), 0, NULL) != 0 ||
		    put_report(jf, Jflag, jv_array_get(jv_copy(out), 1), 1,
		    NULL) != 0))
			exit(1);
		if (close_out(jf, Jflag) != 0)
			status = 1;
	} else if (put_report(stdout, NULL, jv_copy(out), jflag, NULL) != 0)
		exit(1);
	jv_free(out);
	jqx_free(x);
	recset_free(&rs);
	return finish(status != 0);
}

/*
 * The report program: the rubric's facts, the before-and-after comparison
 * (which the JSON report's measures come from), then its report template,
 * called as call.
 */
static struct jqx *
compile(const char *dir, const char *call)
{
	static const char *const files[] = {
		"facts.jq", "format.jq", "diff.jq", "report.jq", NULL
	};
	jv args;

	args = jv_object();
	args = jv_object_set(args, jv_string("version"),
	    jv_string(MRP_VERSION));
	return rubric_compile_files(dir, files, call, args);
}

/*
 * The input records of the -i files and of those the list Iflag names, as
 * recset_read_operands() adds records: 0, or 1 when a file could not be
 * hashed (after a message naming it).
 */
static int
add_inputs(struct recset *rs, int ni, char *iflag[], const char *Iflag)
{
	struct oplist inputs;
	int i, status = 0;
	jv rec, warning;

	/* A run of thousands of ranks names more than exec(2) takes. */
	oplist_read(&inputs, ni, iflag, Iflag);
	/* After the operands' input records, as analyze-profile adds them. */
	for (i = 0; i < inputs.argc; i++) {
		rec = input_record(inputs.argv[i], &warning);
		if (jv_get_kind(rec) == JV_KIND_INVALID) {
			warnmsg("%s:", inputs.argv[i]);
			status = 1;
			continue;
		}
		recset_add(rs, rec);
		if (jv_get_kind(warning) != JV_KIND_INVALID)
			recset_add(rs, warning);
	}
	oplist_free(&inputs);
	return status;
}

/*
 * -O: the records of a plan's line, whose fields are the operands and the
 * -i and -I options of one run, each option's argument the field after
 * it.  Returns as recset_read_operands() does; a line with no file to
 * read is an error naming it.
 */
static int
gather(void *arg, struct recset *rs, int nargs, char *args[],
    const char *where)
{
	char **files, **iflag, *Iflag = NULL;
	int k, nfiles = 0, ni = 0, nlists = 0, rc;

	(void)arg;
	files = xcalloc((size_t)nargs, sizeof(*files));
	iflag = xcalloc((size_t)nargs, sizeof(*iflag));
	for (k = 0; k < nargs; k++) {
		if (k + 1 < nargs && strcmp(args[k], "-i") == 0)
			iflag[ni++] = args[++k];
		else if (k + 1 < nargs && strcmp(args[k], "-I") == 0) {
			Iflag = args[++k];
			nlists++;
		} else
			files[nfiles++] = args[k];
	}
	if (nlists > 1)
		rc = error("%s: -I: one list at most", where);
	else if (nfiles == 0)
		rc = error("%s: no file to read", where);
	else if ((rc = recset_read_operands(rs, nfiles, files)) == 0)
		rc = add_inputs(rs, ni, iflag, Iflag);
	free(files);
	free(iflag);
	return rc;
}

/* -o, -O: the report of one output's records into its stream. */
static int
render_one(void *arg, jv records, FILE *out, const char *path,
    const char *input)
{
	const struct program *prog = arg;
	char *msg;
	jv report;
	int rc;

	if (jqx_run(prog->x, records, &report, &msg) < 0) {
		rc = error("%s: report.jq: %s", input, msg);
		free(msg);
		return rc;
	}
	return put_report(out, path, report, prog->json, input);
}

/*
 * Writes a report (consumed) to f, named name unless it is stdout: the
 * Markdown text, or with json the record; null, from nothing gathered,
 * writes nothing.  Returns 0, or -1 after a message, having written
 * nothing, when the report is neither; input names the file of the
 * records in the message under -o, NULL otherwise.
 */
static int
put_report(FILE *f, const char *name, jv report, int json,
    const char *input)
{
	struct jw *w;
	int rc = 0;

	if (json && jv_get_kind(report) == JV_KIND_OBJECT) {
		w = jw_new(f);
		if (name != NULL)
			jw_name(w, name);
		jqx_write_record(w, "report", report);
		jw_free(w);
	} else if (jv_get_kind(report) == JV_KIND_STRING)
		textout_write(f, jqx_str(report),
		    (size_t)jv_string_length_bytes(jv_copy(report)));
	else if (jv_get_kind(report) != JV_KIND_NULL)
		rc = error("%s%sreport.jq: the report is not a %s",
		    input != NULL ? input : "", input != NULL ? ": " : "",
		    json ? "JSON object" : "string");
	jv_free(report);
	return rc;
}

/*
 * The "input" record of an -i file, or an invalid jv with errno set.  Its
 * role is what its name is in a run directory (pipelines/names.mk); a
 * pickle is listed, never read beyond its hash, and *warning is the
 * record that says how to dump JSON instead.
 */
static jv
input_record(const char *path, jv *warning)
{
	const char *base = strrchr(path, '/'), *role = NULL;
	enum runname what;
	uint64_t size;
	char hex[65];
	jv r;

	*warning = jv_invalid();
	if (inputrec_hash(path, &size, hex) != 0)
		return jv_invalid();
	what = runname_of(base != NULL ? base + 1 : path);
	if (what == RN_PICKLE) {
		role = "pickle";
		r = jv_object();
		r = jv_object_set(r, jv_string("kind"), jv_string("warning"));
		r = jv_object_set(r, jv_string("tool"),
		    jv_string(getprogname()));
		r = jv_object_set(r, jv_string("file"), jv_string(path));
		r = jv_object_set(r, jv_string("line"), jv_null());
		r = jv_object_set(r, jv_string("col"), jv_null());
		r = jv_object_set(r, jv_string("message"),
		    jv_string("a pickle is never read.  " MSNAP_PICKLE_ADVICE));
		*warning = r;
	} else if (what == RN_SNAPSHOT)
		role = "memory_snapshot";
	else if (what == RN_TRACE)
		role = "trace";
	else if (what == RN_NSYS)
		role = "nsys_export";
	r = jv_object();
	r = jv_object_set(r, jv_string("kind"), jv_string("input"));
	r = jv_object_set(r, jv_string("path"), jv_string(path));
	if (role != NULL)
		r = jv_object_set(r, jv_string("role"), jv_string(role));
	r = jv_object_set(r, jv_string("size"), jv_number((double)size));
	r = jv_object_set(r, jv_string("sha256"), jv_string(hex));
	r = jv_object_set(r, jv_string("version"), jv_string(MRP_VERSION));
	return r;
}
