/*
 * snipcfg: a profiling-snippet config (roboflow/inference's
 * development/profiling runner) read exactly as the runner reads it, and
 * what the runner derives from it: the run directory, the record ids of the
 * dummy and images data sources, the manifest's deterministic fields and
 * the Nsight Systems command.  The rules and the error texts are those of
 * ../shared/contracts/snippets.md, sections 1.3, 1.4, 1.8 and 1.9.
 *
 * Ownership: a snipcfg owns its ydoc, every string member and every node it
 * makes; snipcfg_free() releases them all.  Node pointers into the config
 * (the at_* members, root, target...) are borrowed from that ydoc.
 * Diagnostics own their messages; sdiag_free() releases them.  Functions
 * that return char * give the caller a string to free.
 */
#ifndef SNIPCFG_H
#define SNIPCFG_H

#include <stddef.h>
#include <stdint.h>

#include "io/pyyaml.h"

enum { SD_ERROR, SD_WARNING };

struct sdiag {
	int		 sev;
	uint32_t	 line, col;	/* 0: not a place in the file */
	const char	*code;		/* a static string */
	char		*msg;
};

struct sdiags {
	struct sdiag	*v;
	size_t		 n, cap;
};

/* Adds a diagnostic placed at node at (NULL: no place). */
__attribute__((format(printf, 5, 6)))
void sdiag_add(struct sdiags *, int sev, const struct ynode *at,
    const char *code, const char *fmt, ...);

/* Orders the diagnostics by place, keeping the order of equal places. */
void sdiag_sort(struct sdiags *);

/* How many diagnostics have severity sev. */
size_t sdiag_count(const struct sdiags *, int sev);

void sdiag_free(struct sdiags *);

#define SNIP_NCUDA	5
/* The cuda keys, then NULL, as the key lists of a linter end. */
extern const char *const snip_cuda_keys[SNIP_NCUDA + 1];
extern const int snip_cuda_default[SNIP_NCUDA];

struct snipcfg {
	struct ydoc		 doc;
	/* The sections as written; NULL when absent or not a mapping. */
	const struct ynode	*root, *target, *data, *workload, *cuda,
				*profile;
	struct ynode		*params;	/* merged data-source parameters */
	/* The parsed values; a string is NULL when it could not be made. */
	char			*profile_name, *target_name, *import_path;
	char			*ds_name, *device, *record_loading;
	char			*capture_range, *output_dir;
	int			 profile_prepare, validate_output;
	int			 write_manifest, has_seed;
	int64_t			 warmup, iterations, seed;
	int			 cuda_flags[SNIP_NCUDA];
	/* Where each value came from (NULL: a default or an override). */
	const struct ynode	*at_profile_name, *at_target_name;
	const struct ynode	*at_ds_name, *at_device, *at_warmup;
	const struct ynode	*at_iterations, *at_capture_range;
	const struct ynode	*at_record_loading, *at_seed;
};

/* The runner's command-line overrides (apply_overrides); NULL: none. */
struct snipover {
	const char	*target, *data_source, *device, *capture_range;
	const char	*record_loading;
	int		 has_warmup, has_iterations, has_seed;
	int64_t		 warmup, iterations, seed;
};

/*
 * Reads path (NULL or "-": stdin, gzip or plain) into *buf, which the caller
 * frees.  Returns 0; -1 with errno set when it cannot be opened; -2 after
 * reporting a read error or an input larger than max bytes.
 */
int snip_slurp(const char *path, size_t max, char **buf, size_t *len,
    int *gzip);

/*
 * Parses and validates a config as load_profile_config() does, adding an
 * error for each rule broken (where Python stops at the first).  Returns 0
 * or -1; after -1 the members that could be parsed are still set.
 */
int snipcfg_parse(struct snipcfg *, const char *buf, size_t len,
    struct sdiags *);

/* Applies the overrides and validates again; 0 or -1. */
int snipcfg_override(struct snipcfg *, const struct snipover *,
    struct sdiags *);

void snipcfg_free(struct snipcfg *);

/* str(Path(s)): "//" kept, other repeated '/', "." parts and a trailing
 * '/' dropped, "" made ".". */
char *snip_path(const char *);

/* str(Path(a) / b): an absolute b replaces a. */
char *snip_path_join(const char *a, const char *b);

/* Path(s).name of a normalized path; borrowed from s. */
const char *snip_path_name(const char *);

/*
 * Why the len bytes at s cannot be one folder of the snippet tree (a run id,
 * a profile name): "is empty", "is . or ..", "has a '/'", "has a NUL" or
 * "has a control character"; NULL when they can.  The runner takes any
 * string and joins it to a path, so that "../x" or "/abs" lands outside the
 * tree; our tools refuse such names.  The result is a static string.
 */
const char *snip_name_problem(const char *s, size_t len);

/*
 * snip_name_problem() of the profile name as the runner uses it (stripped),
 * a NUL in the value as written counted; NULL when there is no name or it
 * is empty, which validation reports already.
 */
const char *snipcfg_profile_problem(const struct snipcfg *);

/* shlex.quote(s). */
char *snip_quote(const char *);

/* output_dir / profile_name / "runs" / run_id. */
char *snipcfg_run_dir(const struct snipcfg *, const char *run_id);

/*
 * Whether the target's source, import_path's file as the runner finds it
 * (from the current directory), captures CUDA graphs: torch.cuda.graph(),
 * CUDAGraph, make_graphed_callables, or torch.compile's mode
 * "reduce-overhead", read as Python tokens (comments and other strings do
 * not count).  0 when there is no such file or it cannot be read.
 */
int snipcfg_uses_graphs(const struct snipcfg *);

/*
 * The text --print-nsys-command prints, trailing newline included;
 * config_path as the runner was given it.  A target that captures CUDA
 * graphs (snipcfg_uses_graphs()) gets --cuda-graph-trace=node, so that
 * Nsight Systems traces each node of a replayed graph, not the replay as
 * one range.
 */
char *snipcfg_nsys(const struct snipcfg *, const char *run_dir,
    const char *config_path);

/*
 * Builds the data source as the runner would and returns its record ids (a
 * sequence), with describe() in *desc; both belong to the config's doc.
 * Relative image paths are taken from the current directory.  Returns NULL
 * after adding errors.
 */
struct ynode *snipcfg_records(struct snipcfg *, struct ynode **desc,
    struct sdiags *);

/*
 * resolve_target()'s checks that need no Python: a built-in name, or an
 * import_path "<file.py>:<attr>" whose file exists (relative paths from
 * the current directory).  Returns 0, or -1 after adding errors.
 */
int snipcfg_target(const struct snipcfg *, struct sdiags *);

/*
 * The manifest the runner will write, less output_summaries; git_commit
 * NULL is written as null.  The map belongs to the config's doc.
 */
struct ynode *snipcfg_manifest(struct snipcfg *, const char *run_id,
    const char *run_dir, const char *command_line, const char *git_commit,
    struct ynode *record_ids, struct ynode *desc);

#endif
