# pipelines/names.mk: the names of a run's inputs, one list for
# pipelines/report.mk (which includes this file) and for analyze-profile
# --cpu-trace DIR and report-md -i (the Makefile compiles it into them as
# gen/names.h), so that a run directory and a directory of traces find the
# same files.  One glob a word, matched against a file's name alone.
#
# Traces, read in sorted order whatever the order here:
#	*.trace.json[.gz]	tensorboard_trace_handler's (and so vLLM's)
#		<worker>.<timestamp>.pt.trace.json[.gz]; SGLang's
#		<time>-TP-<rank>.trace.json.gz
#	profile_trace*.json[.gz]	xDiT's profile_trace_rank_<n>.json[.gz]
#	trace*, rank*, worker*	what users and launchers name them
TRACE_PATTERNS := *.trace.json *.trace.json.gz \
	profile_trace*.json profile_trace*.json.gz \
	trace*.json trace*.json.gz rank*.json rank*.json.gz \
	worker*.json worker*.json.gz
# Memory snapshots dumped as JSON, never traces whatever else they match.
SNAP_PATTERNS := memory_snapshot*.json memory_snapshot*.json.gz
# Nsight Systems SQLite exports (nsys export --type sqlite), read by
# nsys-extract as a trace is read by tr-extract; and reports, which
# report.mk exports first when nsys is on PATH (X.nsys-rep gives X.sqlite).
NSYS_PATTERNS := *.sqlite
NSYS_REP_PATTERNS := *.nsys-rep
# Pickles (what torch.cuda.memory._dump_snapshot() writes): never read,
# as loading one runs code, but named with how to dump JSON instead.
PICKLE_PATTERNS := *.pickle *.pkl
