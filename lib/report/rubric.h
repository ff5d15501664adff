/*
 * rubric: the rules that turn collected facts into findings, loaded from a
 * rubric directory, and the data files that sit beside them.
 *
 * A rubric directory holds facts.jq (jq definitions, among them "facts",
 * which turns the gathered records of recset(3) into the object the rules
 * read), format.jq (the formatting that templates and reports share),
 * thresholds.tsv (the limits the rules and the facts judge by, each named
 * with its unit and source) and any number of *.yaml files, each a mapping
 * with a "rules" sequence; mrp-rubric(5) describes the format.  Files are
 * read in sorted name order and rules keep their order within a file.
 *
 * Every program compiled from the rubric sees the thresholds as the jq
 * variable $th, an object of name to number; rules and jq files read one
 * as $th.NAME, and a name that thresholds.tsv lacks is refused when the
 * rubric is loaded, not read as null.
 *
 * rubric_load() reports every problem as a usage error (exit 2) naming the
 * file, line and column, as a jq program that does not compile is one.
 * Ownership: a rubric owns every string in it; rubric_free() frees them.
 */
#ifndef RUBRIC_H
#define RUBRIC_H

#include <stddef.h>
#include <stdint.h>

#include <jv.h>

#include "report/thresholds.h"

struct jw;

/* The texts of a rule, in the order they are written. */
enum { RT_OBSERVATION, RT_CAUSE, RT_ACTION, RT_METRIC, RT_CAPTURE, RT_N };

struct rule {
	char		*id, *area, *confidence;
	char		*file;		/* the YAML file's name, no directory */
	uint32_t	 line;
	char		*when, *impact;
	uint32_t	 when_line, impact_line;
	char		*basis;		/* what impact is a fraction of */
	char		*recovers;	/* why that fraction: for readers */
	char		*pool;		/* time or memory shared with others */
	char		*measure;	/* the metric's value: jq, or NULL */
	char		*better;	/* "lower" or "higher" with measure */
	uint32_t	 measure_line;
	int		 blocking;	/* the run cannot go on: rank first */
	char		**needs;
	size_t		 nneeds;
	char		**evname, **evexpr;	/* evidence name -> jq */
	uint32_t	*evline;
	size_t		 nev;
	char		*text[RT_N];	/* templates; capture may be NULL */
	uint32_t	 text_line[RT_N];
	/*
	 * A text written as cases: casex[t], a jq expression on the facts,
	 * names the case, and the text is the template of that name among
	 * casename[t] -> casetext[t] (ncase[t] of them, in the order
	 * written); text[t] is NULL then.
	 */
	char		*casex[RT_N];
	char		**casename[RT_N], **casetext[RT_N];
	uint32_t	*caseline[RT_N];
	size_t		 ncase[RT_N];
};

struct rubric {
	char		*dir;
	char		*facts;		/* facts.jq's text */
	char		*format;	/* format.jq's */
	struct thresholds th;
	struct rule	*rule;
	size_t		 n, cap;
};

/* The member names of the texts: "observation", "cause", ... */
extern const char *const rubric_text_name[RT_N];

/*
 * The rubric directory: dir when not NULL, else $MRP_RUBRIC, else rubric/
 * or share/mrp/rubric/ beside the directory that holds the program.  The
 * caller frees the result; no directory found is a usage error.
 */
char *rubric_dir(const char *dir);

/*
 * Reads dir/name whole into a NUL-terminated buffer the caller frees.
 * Failure is a usage error.
 */
char *rubric_slurp(const char *dir, const char *name);

/*
 * Loads every rule and the thresholds of dir into r (zeroed by the
 * caller).
 */
void rubric_load(struct rubric *, const char *dir);

/*
 * The jq program that evaluates the rules on the gathered records: its
 * output is {"objective": O, "phase": P, "results": [...]}, O and P the
 * objective and phase of the run's context (or null),
 * results holding one element per rule (none when nothing was gathered):
 * null when the rule did not fire, {"mrp_error": message} when it failed,
 * and otherwise an object with impact, evidence and the texts; and
 * "measures", one element per rule as well: the value of its measure on
 * the facts, fired or not (null without a measure, or when it fails).  The
 * caller frees the result.
 */
char *rubric_program(const struct rubric *);

/*
 * Compiles the program; when it does not compile, finds the rule and the
 * member at fault and exits 2 with "prog: file:line: rule id: member: why".
 */
struct jqx *rubric_compile(const struct rubric *);

/*
 * Compiles the files of dir named in files (NULL-terminated), in order,
 * followed by the jq expression call, with args (consumed) and $th (from
 * dir's thresholds.tsv) as named arguments: how report-md and report-diff
 * build their programs.  A program that does not compile, or that names a
 * threshold thresholds.tsv lacks, is a usage error naming the file.
 */
struct jqx *rubric_compile_files(const char *dir, const char *const *files,
    const char *call, jv args);

/*
 * Writes a "rule" record describing rule i: its members as written, each
 * $th.NAME in them replaced by that threshold's value as written.
 */
void rubric_write_rule(struct jw *, const struct rubric *, size_t i);

void rubric_free(struct rubric *);

#endif
