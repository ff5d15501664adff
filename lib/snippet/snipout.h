/*
 * snipout: what snip-new writes into a snippet folder, made safe for
 * where it lands, and the folder itself.  Names from a source or a trace
 * are text: escaped for Markdown (a code span, or inline text), for a
 * Python comment or docstring, for a YAML scalar or comment; config.yaml's
 * runner settings are written as the profiling skill's template has them;
 * and the three files are written whole or not at all.
 *
 * Ownership: strings are borrowed for the call; the functions append to
 * the caller's strbuf.
 */
#ifndef SNIPOUT_H
#define SNIPOUT_H

#include "base/strbuf.h"

/* s as a Markdown code span, whatever backticks or controls it holds. */
void snip_md_code(struct strbuf *, const char *s);

/* s as Markdown text in the middle of a line, inline syntax escaped. */
void snip_md_text(struct strbuf *, const char *s);

/* s inside a Python comment or a "..." string: it cannot end either. */
void snip_py_text(struct strbuf *, const char *s);

/* s as a YAML scalar PyYAML reads back as the same string. */
void snip_yaml_scalar(struct strbuf *, const char *s);

/* s for a YAML comment: line breaks and controls as spaces. */
void snip_yaml_comment(struct strbuf *, const char *s);

/* What config.yaml says to the runner. */
struct snipconf {
	const char	*profile;	/* profile_name and target.name */
	const char	*import_path;	/* "<target.py>:<attribute>" */
	const char	*device;
	const char	*images;	/* the images source's folder; NULL: dummy */
	const char	*output_dir;	/* NULL: the runner's default */
	int		 warmup, iterations;
};

/* config.yaml up to its own sections (inputs), which the caller adds. */
void snip_config_yaml(struct strbuf *, const struct snipconf *);

/* A snippet folder: where it goes, and its three files. */
struct snipfiles {
	const char		*odir, *profile, *folder;
	const char		*target, *config, *readme;
	const struct strbuf	*py, *cfg, *md;
};

/*
 * Makes the folder with its three files, whole: they are written into a
 * temporary folder beside it, renamed into place at the end.  On a failure
 * (a full disk) nothing is left, not even the folders made above it, and
 * -1 is returned after a message; else 0.
 */
int snip_new_folder(const struct snipfiles *);

/*
 * Replaces the three files of an existing folder: each is written whole
 * beside its place before any is renamed into place, so that a failure
 * leaves the snippet as it was (its other files, runs/, are kept).
 * Returns 0, or -1 after a message.
 */
int snip_replace_files(const struct snipfiles *);

#endif
