# pipelines/report.mk: the report of one or many run directories.
#
#	make -f pipelines/report.mk RUN=runs/<id>
#	make -f pipelines/report.mk -j4 RUNS="runs/a runs/b runs/c"
#
# A run directory holds profiler traces (one file per rank, or per window
# of a rank) or Nsight Systems exports, and/or memory_snapshot*.json[.gz],
# and may hold context.yaml (or
# context.json): what is known of the run, as analyze-profile --context
# reads it.  The traces are the files whose names match TRACE_PATTERNS in
# names.mk beside this file (as for a directory given to analyze-profile
# --cpu-trace): tensorboard_trace_handler's, vLLM's, SGLang's and xDiT's
# names, and trace*, rank*, worker*; they are read in sorted order.
# memory_snapshot* is never a trace, and context.json, report.json and the
# stage files below match none of the patterns.  Nsight Systems SQLite
# exports (*.sqlite) are read as traces are, by nsys-extract instead of
# tr-extract; a report (X.nsys-rep) without its export beside it is
# exported first to X.sqlite when nsys is on PATH, and is otherwise an
# error that names the command that exports it.  A pickle (*.pickle,
# *.pkl) is never read: make says so, and the report lists it with how to
# dump the snapshot as JSON.  A run directory with no trace and no snapshot
# is an error naming it and the patterns, not an empty report; two traces
# of one rank over the same window are op-rank's error; an input that is no
# regular file (a FIFO, a device) stops make before anything runs, naming
# it.  Every name is
# quoted for the shell.  Names make
# cannot carry stop it before anything runs, naming them: a run directory
# or BASELINE with whitespace or one of $ : ; | % \ * ? [, and an input
# whose name holds whitespace or |.  Each
# stage writes one file into the run directory, from one tool, through
# $@.tmp and mv, so a failed stage leaves nothing half-written:
#	context.ndjson	analyze-profile's context record, read first by
#		rubric-apply and report-md
#	.<trace>.ops.ndjson, .<trace>.mem.ndjson, .<trace>.crit.ndjson	one
#		stage per trace: its tr-extract records piped through one tee
#		to op-rank --partial (a partial aggregate), to the filter that
#		keeps what mem-segments reads and to crit-path -s (each step's
#		critical path); the records themselves are never stored (they
#		are several times the trace's size).  The traces' stages run
#		in parallel under -j; the merge stage below removes these
#		files once it has made its own
#	ops.ndjson, trace-memory.ndjson, critical.ndjson	the merge stage:
#		op-rank --merge of the partials, the same records as one
#		op-rank over all the traces, mem-segments over the kept
#		records in the traces' order (mem-segments of each trace apart
#		would not add up), and the traces' critical paths in their
#		order, as analyze-profile writes them
#	memory.ndjson	mem-segments' records of the snapshots
#	churn.ndjson	churn-score's records of the snapshots
#	findings.ndjson	rubric-apply's findings (with several run
#		directories, one rubric-apply makes all of theirs, as one
#		report-md makes all the reports of each kind: below)
#	charts.ndjson	report-svg's chart records; its SVG files (memory.svg,
#		gpu-timeline.svg ...) go into the run directory beside them
#	report.md, report.json	report-md's report, naming the inputs;
#		report.md links the charts
#	report.html	report-html's page of report.md, the charts inline
#	diff.md, diff.json	with BASELINE=runs/<id>, report-diff of that
#		run's report.json (made first if need be) against this one's
# One run at a time: report.mk takes each run directory (and BASELINE) with
# flock(2) for the whole run, and a second run on one of them stops at
# once with a message naming it.  The run's outputs (the reports, the
# charts and the records naming them) are published as a set: when the
# run fails or is interrupted, those of the run before are put back, or
# removed where there were none, with the traces' stage files, so that a
# run directory never holds a report of one run beside another's
# (pipelines/report-run.bash).  What grows with the number of ranks (the
# merge's partials, report-md's inputs) reaches the tools in list files
# beside their targets, never on a command line: 10,000 ranks are one
# merge.
# A stage is rebuilt when an input, its tool or a rubric file changes;
# when one trace changes, every trace's stage runs again, as their files
# are gone.  Every stage runs as $(SUBMIT) command, its pipes inside one
# command, on the files of the run directory and nowhere else (it writes
# its file there itself), so that with SUBMIT='srun -N1 -n1 --quiet
# --quit-on-interrupt' and -j the stages spread over a Slurm cluster whose
# nodes share the run directory.
#
# Variables: RUN (one run directory) or RUNS (several), BASELINE (a run
# directory to compare each run with, optional), SUBMIT (the command that
# runs each stage, empty by default: here), BIN (the mrp binaries,
# default ../bin beside this file, else those on PATH), RUBRIC (the rubric
# directory, default ../rubric beside this file, as in the tree and as
# installed in share/mrp); BIN and RUBRIC must be plain paths, free of
# whitespace and of what make or the shell reads as syntax.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
# No built-in rules: each of 10,000 traces would be tried against all of
# them (a C source, an RCS file...), four fifths of make's time there.
MAKEFLAGS += --no-builtin-rules
.DELETE_ON_ERROR:
.SECONDARY:
.SECONDEXPANSION:

# Defaults that work from any directory: the tree this file is in.
HERE := $(dir $(lastword $(MAKEFILE_LIST)))
include $(HERE)common.mk
$(call refuse_dollar,RUN RUNS BASELINE)
RUBRIC ?= $(HERE)../rubric
$(call refuse_path,BIN RUBRIC)
SUBMIT ?=
RUN ?=
RUNS ?= $(RUN)
# Each once, as the one directory it names ("runs/a/" is runs/a).
RUN_DIRS := $(sort $(patsubst %/,%,$(RUNS)))
BASELINE ?=
$(call refuse_one,RUN)
$(call refuse_one,BASELINE)
BASE := $(patsubst %/,%,$(strip $(BASELINE)))

ifeq ($(strip $(RUNS)),)
$(error name the run directory: make -f pipelines/report.mk RUN=runs/<id>)
endif

include $(HERE)names.mk
# $(call files,dir,patterns): the matching names that are not directories.
files = $(sort $(foreach f,$(wildcard $(addprefix $1/,$2)), \
	$(if $(wildcard $f/.),,$f)))
# $(call exports,dir): the nsys exports there and those its reports give.
exports = $(sort $(call files,$1,$(NSYS_PATTERNS)) \
	$(patsubst %.nsys-rep,%.sqlite,$(call files,$1,$(NSYS_REP_PATTERNS))))
traces = $(sort $(filter-out $1/memory_snapshot%,$(call files,$1, \
	$(TRACE_PATTERNS))) $(call exports,$1))
snaps = $(sort $(wildcard $(addprefix $1/,$(SNAP_PATTERNS))))
pickles = $(call files,$1,$(PICKLE_PATTERNS))
context = $(firstword $(wildcard $1/context.yaml $1/context.json))
stages = $(if $(call context,$1),$1/context.ndjson) \
	$(if $(call traces,$1),$1/ops.ndjson $1/critical.ndjson \
	    $1/trace-memory.ndjson) \
	$(if $(call snaps,$1),$1/memory.ndjson $1/churn.ndjson)
RULES := $(wildcard $(RUBRIC)/*.yaml) $(RUBRIC)/facts.jq $(RUBRIC)/format.jq \
	$(RUBRIC)/thresholds.tsv
# $(call rank_file,trace,kind): the trace's stage file of that kind (ops,
# crit or mem), beside it; $(call rank_files,dir,kind): those of every trace in
# dir, in the traces' order.
rank_file = $(dir $1).$(notdir $1).$2.ndjson
rank_files = $(foreach t,$(call traces,$1),$(call rank_file,$t,$2))
# op-rank and tr-extract read the families and precision tables from here,
# wherever $(SUBMIT) runs them.
export MRP_RUBRIC := $(RUBRIC)

# What mem-segments reads of a trace: memory records, step slices, traces.
TRACE_MEMORY := ^\{"kind":"(memory|trace)"|^\{"kind":"event","name":"ProfilerStep\#

# The inputs in a run directory whose names $(wildcard) would split
# (whitespace) or a prerequisite list would misread (|).
split_names = $(shell find $(call q,$1) -maxdepth 1 ! -type d \
	-name '*[[:space:]|]*' \( $(foreach p,$(TRACE_PATTERNS) \
	$(SNAP_PATTERNS) $(NSYS_PATTERNS) $(NSYS_REP_PATTERNS) \
	$(PICKLE_PATTERNS),-name '$p' -o) -false \) \
	-print 2>/dev/null)
refuse_split = $(if $2,$(error $(ME): $2: an input name with whitespace \
	or "|" is beyond make; rename it))
# The inputs in a run directory that are no regular files: a FIFO would
# hold its stage for ever (SQLite, or the reader, waiting for a writer),
# a device feed it for ever.
odd_inputs = $(shell find $(call q,$1) -maxdepth 1 \( -xtype p -o -xtype c \
	-o -xtype b -o -xtype s \) \( $(foreach p,$(TRACE_PATTERNS) \
	$(SNAP_PATTERNS) $(NSYS_PATTERNS) $(NSYS_REP_PATTERNS) \
	$(PICKLE_PATTERNS),-name '$p' -o) -false \) -print 2>/dev/null)
refuse_odd = $(if $1,$(error $(ME): $1: not a regular file; an input is \
	read from a file))

# Every name is checked before a rule can see it.
$(call refuse_syntax,$(RUNS) $(BASE))
$(foreach r,$(RUNS) $(BASE),$(call refuse_split,$r,$(call split_names,$r)))
$(foreach r,$(RUNS) $(BASE),$(call refuse_odd,$(sort $(call odd_inputs,$r))))

# $(call need_input,dir): fails, naming dir and the patterns, when it holds
# neither a trace nor a snapshot.
need_input = $(if $(call traces,$1)$(call snaps,$1),,printf '%s\n' \
	$(call q,report.mk: $1: no trace and no memory snapshot (none of \
	$(TRACE_PATTERNS) $(NSYS_PATTERNS) $(NSYS_REP_PATTERNS) \
	$(SNAP_PATTERNS))$(if $(call pickles,$1),; a \
	pickle is never read: dump the snapshot as JSON)) >&2; exit 1)
# $(call tell_pickles,dir): names each pickle in dir on stderr.
tell_pickles = $(foreach p,$(call pickles,$1),printf '%s\n' $(call q,$(ME): \
	$p: a pickle is never read; the report says how to dump the snapshot \
	as JSON) >&2;)
# $(call listed,target,names): writes the names, one a line, into a hidden
# file beside target, and gives its path: what grows with the number of
# ranks reaches a tool in a file, as no command line holds 10,000 names
# (the names hold no whitespace: see refuse_split).
empty :=
space := $(empty) $(empty)
tab := $(empty)	$(empty)
define newline


endef
list_of = $(dir $(strip $1)).$(notdir $(strip $1)).list
listed = $(call write,$(call list_of,$1),$(subst $(space),$(newline),$(strip \
	$2)))$(call list_of,$1)
# $(call write,file,text): text into file, unless make only prints the
# recipes (-n): a dry run leaves nothing behind.
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
write = $(if $(DRY_RUN),,$(file >$1,$2))
# $(call input_names,dir): the inputs a run's report names;
# $(call inputs,target,dir): report-md's -I for them.
input_names = $(call traces,$1) $(call snaps,$1) $(call pickles,$1)
inputs = -I $(call q,$(call listed,$1,$(call input_names,$2)))

# $(call into,command[,file]): runs command as a stage, through $(SUBMIT),
# into file.tmp, then renames that to file ($@ if not named).  One shell
# line, so that when the command fails its trap removes the .tmp.  The
# stage writes file.tmp itself, where it runs, as the traces' stages do:
# srun relays a step's standard output, and a relay cut short still exits
# 0 (seen once here: report.html whole up to byte 38,223 of its 69,614),
# which would publish a truncated file.
into = t=$(call q,$(or $2,$@).tmp); trap 'rm -f "$$t"' EXIT; \
	$(SUBMIT) $(call script,o=$$1; shift; exec "$$@" >"$$o","$$t" $1); \
	mv "$$t" $(call q,$(or $2,$@))

# $(call script,text,names): the command that runs text, a bash script that
# holds no name, with the names as its $$1, $$2..., each quoted once: one
# command, so that through $(SUBMIT) all its pipes run on one node.
script = bash -eu -o pipefail -c $(call q,$1) $(ME) $2

# One trace's stage, writing $$2 (the partial), $$3 (the records
# mem-segments reads) and $$5 (its critical path) from the trace $$1 with
# the extractor $$4 (tr-extract, or nsys-extract for an export): its
# records go through tee to op-rank and, on descriptors 4 and 5, to the
# filter and to crit-path -s, started first so that this shell can wait
# for them.  The trap waits for them too before it removes their files: a
# child scheduled late opens its file after a quick failure's rm (seen in
# CI: .crit.ndjson.tmp left behind).  A window without a path (crit-path's
# 1, said on stderr) leaves the others theirs.
RANK_STAGE = m= c=; trap 'exec 4>&- 5>&-; wait $$m $$c 2>/dev/null || :; \
	rm -f "$$2.tmp" "$$3.tmp" "$$5.tmp"' EXIT; \
	exec 4> >({ grep -E '$(TRACE_MEMORY)' || [ $$? = 1 ]; } >"$$3.tmp"); \
	m=$$!; \
	exec 5> >($(BIN)/crit-path -s >"$$5.tmp" || [ $$? = 1 ]); c=$$!; \
	"$$4" "$$1" | tee /dev/fd/4 /dev/fd/5 | \
	$(BIN)/op-rank --partial >"$$2.tmp"; \
	exec 4>&- 5>&-; wait $$m; wait $$c; mv "$$5.tmp" "$$5"; \
	mv "$$3.tmp" "$$3"; mv "$$2.tmp" "$$2"

# The outputs of a run, published as a set: report-svg's charts, the
# records naming them, the reports and the comparison.
PUBLISHED := charts.ndjson memory.svg memory-trace.svg segments.svg \
	ledger.svg critical-path.svg gpu-timeline.svg steps.svg families.svg \
	roofline.svg \
	report.md report.json report.html diff.md diff.json

ifeq ($(MRP_REPORT_LOCKED),)
# The make that was run takes the run directories (and the baseline's,
# whose report it may make) with flock(2), each for the whole run, and
# makes the goals in a second make under them: a second report.mk on one
# of them stops at once, naming it, instead of removing the first one's
# files.  The outputs already published are kept as hard links first; a
# run that fails or is interrupted puts them back, or removes what it
# published where there were none, and removes the traces' stage files,
# so that a run directory holds one whole set.  A run of RUNS whose set
# was made whole keeps it.  Under -n, -q or -t the second make just runs.
GOALS := $(or $(MAKECMDGOALS),all)
$(firstword $(GOALS)):
	+@bash $(call qs,$(HERE)report-run.bash $(MAKE) \
	    $(firstword $(MAKEFILE_LIST)) $(words $(sort $(RUNS) $(BASE))) \
	    $(sort $(RUNS) $(BASE)) $(PUBLISHED) -- $(MAKECMDGOALS))
$(filter-out $(firstword $(GOALS)),$(GOALS)): $(firstword $(GOALS)) ;@:
.PHONY: $(GOALS)
else
all: $(RUN_DIRS:%=%/report.md) $(RUN_DIRS:%=%/report.json) \
    $(RUN_DIRS:%=%/report.html) \
    $(if $(BASE),$(RUN_DIRS:%=%/diff.md) $(RUN_DIRS:%=%/diff.json))

# For run/N: run/.N.ops.ndjson, and run/.N.mem.ndjson and
# run/.N.crit.ndjson beside it, renamed before it (a pattern without a
# slash matches the file's name, and $$* is run/N).  The .mem and .crit
# files are no targets: make would run the stage a second time for them
# once the .ops file is read and gone.
.%.ops.ndjson: % $(BIN)/tr-extract $(BIN)/nsys-extract $(BIN)/op-rank \
    $(BIN)/crit-path $(RUBRIC)/op-families.tsv \
    $(RUBRIC)/kernel-precision.tsv $(RUBRIC)/cuda-calls.tsv
	$(SUBMIT) $(call script,$(RANK_STAGE),$(call qs,$* \
	    $(call rank_file,$*,ops) $(call rank_file,$*,mem) \
	    $(if $(filter %.sqlite,$*),$(BIN)/nsys-extract,$(BIN)/tr-extract) \
	    $(call rank_file,$*,crit)))

# An Nsight Systems report's export, made only where there is none (the
# prerequisite is order-only): nsys writes it under a hidden name, renamed
# once whole.  Without nsys, the command is named for a machine that has it.
%.sqlite: | %.nsys-rep
	@command -v nsys >/dev/null 2>&1 || { printf '%s\n' $(call q,$(ME): \
	    $|: nsys is not on PATH; export the report where it is: nsys \
	    export --type sqlite --output $@ $|) >&2; exit 1; }
	t=$(call q,$(dir $@).$(notdir $@).tmp.sqlite); trap 'rm -f "$$t"' EXIT; \
	$(SUBMIT) nsys export --type sqlite --force-overwrite true \
	    --output "$$t" $(call q,$|) >&2; mv "$$t" $(call q,$@)

# All three from the per-trace files, which go once all are made.
# mem-segments reads the kept records as one stream, as in one pass (given
# files, it would name each in its records); each trace's critical path is
# its own, in the traces' order.
%/ops.ndjson %/trace-memory.ndjson %/critical.ndjson: \
    $$(call rank_files,$$*,ops) $(BIN)/op-rank $(BIN)/mem-segments
	$(call into,$(BIN)/op-rank --merge -T $(call q,$(call listed, \
	    $*/ops.ndjson,$(call rank_files,$*,ops))),$*/ops.ndjson)
	$(call into,$(call script,xargs -d '\n' -a "$$1" cat -- | \
	    $(BIN)/mem-segments,$(call q,$(call listed,$*/trace-memory.ndjson, \
	    $(call rank_files,$*,mem)))),$*/trace-memory.ndjson)
	$(call into,$(call script,xargs -d '\n' -a "$$1" cat --,$(call q,$(call \
	    listed,$*/critical.ndjson,$(call rank_files,$*,crit)))),$*/critical.ndjson)
	$(call script,xargs -d '\n' -a "$$1" rm -f -- && \
	    xargs -d '\n' -a "$$2" rm -f -- && \
	    xargs -d '\n' -a "$$3" rm -f -- && rm -f -- "$$@", \
	    $(call qs,$(call list_of,$*/ops.ndjson) \
	    $(call list_of,$*/trace-memory.ndjson) \
	    $(call list_of,$*/critical.ndjson)))

%/context.ndjson: $$(call context,$$*) $(BIN)/analyze-profile
	$(call into,$(BIN)/analyze-profile --context $(call q,$(call context,$*)))

%/memory.ndjson: $$(call snaps,$$*) $(BIN)/mem-segments
	$(call into,$(BIN)/mem-segments $(call qs,$(call snaps,$*)))

%/churn.ndjson: $$(call snaps,$$*) $(BIN)/churn-score
	$(call into,$(BIN)/churn-score $(call qs,$(call snaps,$*)))

%/findings.ndjson: $$(call stages,$$*) $(BIN)/rubric-apply $(RULES)
	@$(call need_input,$*)
	$(call into,$(BIN)/rubric-apply -r $(RUBRIC) $(call qs,$(call stages,$*)))

# The SVG files are written through temporary files and renamed by
# report-svg itself; charts.ndjson, which names them, comes last.
%/charts.ndjson: $$(call stages,$$*) $(BIN)/report-svg
	@$(call need_input,$*)
	$(call into,$(BIN)/report-svg -o $(call q,$*) $(call qs,$(call stages,$*)))

%/report.md: $$(call stages,$$*) $$(call pickles,$$*) %/findings.ndjson \
    %/charts.ndjson $(BIN)/report-md $(RULES) $(RUBRIC)/diff.jq \
    $(RUBRIC)/report.jq
	@$(call tell_pickles,$*)
	$(call into,$(BIN)/report-md -r $(RUBRIC) $(call inputs,$@,$*) \
	    $(call qs,$(call stages,$*) $*/findings.ndjson $*/charts.ndjson))
	rm -f $(call q,$(call list_of,$@))

%/report.html: %/report.md %/charts.ndjson $(BIN)/report-html
	$(call into,$(BIN)/report-html $(call q,$*/report.md))

%/report.json: $$(call stages,$$*) $$(call pickles,$$*) %/findings.ndjson \
    $(BIN)/report-md $(RULES) $(RUBRIC)/diff.jq $(RUBRIC)/report.jq
	$(call into,$(BIN)/report-md -j -r $(RUBRIC) $(call inputs,$@,$*) \
	    $(call qs,$(call stages,$*) $*/findings.ndjson))
	rm -f $(call q,$(call list_of,$@))

# With several run directories, rubric-apply and report-md run once for
# them all, each output a line of a plan (their -O): compiling the rubric
# and the report is most of what a run of either costs, so 100 runs
# compile each program once, not 100 times, and the outputs are the bytes
# of one run each.  One run directory's changed stages make all of them
# again, as cheap as one alone.  The plan is a hidden file in the first
# run directory, removed once read, as the lists are.
ifneq ($(word 2,$(RUN_DIRS)),)
# $(call line,output fields...): a plan's line, its names joined by "|"
# (they hold no whitespace and no "|": see refuse_split), a tab in the plan,
# so that the spaces between lines are where its newlines go.
line = $(subst $(space),|,$(strip $1))
plan_of = $(firstword $(RUN_DIRS))/.$1.plan
# $(call batch,file,command,lines,lists): runs command (ending in -O) on
# the plan of lines for file's outputs, then removes it and the lists.
batch = p=$(call q,$(call plan_of,$1))$(call write,$(call plan_of,$1),$(subst \
	|,$(tab),$(subst $(space),$(newline),$(strip $3)))); \
	trap 'rm -f "$$p" $(subst ','\'',$(call qs,$4))' EXIT; \
	$(SUBMIT) $2 "$$p"
# $(call report_line,run,report,files...): the plan's line of the run's
# report (report.md or report.json): its inputs' list, its stages, its
# findings and the files given.
report_line = $(call line,$1/$2 -I $(call listed,$1/$2,$(call \
	input_names,$1)) $(call stages,$1) $1/findings.ndjson $3)

$(RUN_DIRS:%=%/findings.ndjson) &: $(foreach r,$(RUN_DIRS), \
    $(call stages,$r)) $(BIN)/rubric-apply $(RULES)
	@$(foreach r,$(RUN_DIRS),$(or $(call need_input,$r),:);)
	$(call batch,findings.ndjson,$(BIN)/rubric-apply -r $(RUBRIC) -O, \
	    $(foreach r,$(RUN_DIRS),$(call line,$r/findings.ndjson \
	    $(call stages,$r))))

$(RUN_DIRS:%=%/report.md) &: $(foreach r,$(RUN_DIRS),$(call stages,$r) \
    $(call pickles,$r) $r/findings.ndjson $r/charts.ndjson) \
    $(BIN)/report-md $(RULES) $(RUBRIC)/diff.jq $(RUBRIC)/report.jq
	@$(foreach r,$(RUN_DIRS),$(call tell_pickles,$r))
	$(call batch,report.md,$(BIN)/report-md -r $(RUBRIC) -O, \
	    $(foreach r,$(RUN_DIRS),$(call report_line,$r,report.md, \
	    $r/charts.ndjson)),$(RUN_DIRS:%=%/.report.md.list))

$(RUN_DIRS:%=%/report.json) &: $(foreach r,$(RUN_DIRS), \
    $(call stages,$r) $(call pickles,$r) $r/findings.ndjson) \
    $(BIN)/report-md $(RULES) $(RUBRIC)/diff.jq $(RUBRIC)/report.jq
	$(call batch,report.json,$(BIN)/report-md -j -r $(RUBRIC) -O, \
	    $(foreach r,$(RUN_DIRS),$(call report_line,$r,report.json)), \
	    $(RUN_DIRS:%=%/.report.json.list))
endif

# Before and after: the baseline run's report against this run's.
%/diff.md: $(BASE)/report.json %/report.json $(BIN)/report-diff \
    $(RUBRIC)/facts.jq $(RUBRIC)/format.jq $(RUBRIC)/diff.jq \
    $(RUBRIC)/thresholds.tsv
	$(call into,$(BIN)/report-diff -r $(RUBRIC) \
	    $(call q,$(BASE)/report.json) $(call q,$*/report.json))

%/diff.json: $(BASE)/report.json %/report.json $(BIN)/report-diff \
    $(RUBRIC)/facts.jq $(RUBRIC)/format.jq $(RUBRIC)/diff.jq \
    $(RUBRIC)/thresholds.tsv
	$(call into,$(BIN)/report-diff -j -r $(RUBRIC) \
	    $(call q,$(BASE)/report.json) $(call q,$*/report.json))

.PHONY: all
endif
