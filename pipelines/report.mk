# pipelines/report.mk: the report of one or many run directories.
#
#	make -f pipelines/report.mk RUN=runs/<id>
#	make -f pipelines/report.mk -j4 RUNS="runs/a runs/b runs/c"
#
# A run directory holds trace*.json[.gz] (one file per rank) and/or
# memory_snapshot*.json[.gz], and may hold context.yaml (or context.json):
# what is known of the run, as analyze-profile --context reads it.  Each
# stage writes one file into the run directory, from one tool, through
# $@.tmp and mv, so a failed stage leaves nothing half-written:
#	context.ndjson	analyze-profile's context record, read first by
#		rubric-apply and report-md
#	ops.ndjson, trace-memory.ndjson	op-rank's and mem-segments' records of
#		the traces; tr-extract's records are piped to both through one
#		tee, never stored (they are several times the trace's size)
#	memory.ndjson	mem-segments' records of the snapshots
#	churn.ndjson	churn-score's records of the snapshots
#	findings.ndjson	rubric-apply's findings
#	report.md, report.json	report-md's report, naming the inputs
# A stage is rebuilt when an input, its tool or a rubric file changes.
#
# Variables: RUN or RUNS (run directories), BIN (the mrp binaries, default
# ../bin beside this file), RUBRIC (the rubric directory, default ../rubric
# beside this file).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.SECONDARY:
.SECONDEXPANSION:

# Defaults that work from any directory: the tree this file is in.
HERE := $(dir $(lastword $(MAKEFILE_LIST)))
BIN ?= $(HERE)../bin
RUBRIC ?= $(HERE)../rubric
RUN ?=
RUNS ?= $(RUN)

ifeq ($(strip $(RUNS)),)
$(error name the run directory: make -f pipelines/report.mk RUN=runs/<id>)
endif

traces = $(sort $(wildcard $1/trace*.json $1/trace*.json.gz))
snaps = $(sort $(wildcard $1/memory_snapshot*.json \
	$1/memory_snapshot*.json.gz))
context = $(firstword $(wildcard $1/context.yaml $1/context.json))
stages = $(if $(call context,$1),$1/context.ndjson) \
	$(if $(call traces,$1),$1/ops.ndjson $1/trace-memory.ndjson) \
	$(if $(call snaps,$1),$1/memory.ndjson $1/churn.ndjson)
RULES := $(wildcard $(RUBRIC)/*.yaml) $(RUBRIC)/facts.jq

# What mem-segments reads of a trace: memory records, step slices, traces.
TRACE_MEMORY := ^\{"kind":"(memory|trace)"|^\{"kind":"event","name":"ProfilerStep\#

all: $(RUNS:%=%/report.md) $(RUNS:%=%/report.json)

# $(call q,name): name quoted for the shell, as data; make itself still
# reads names with spaces or $ as it always does.
q = '$(subst ','\'',$1)'

# $(call into,command): runs command into $@.tmp, then renames that to $@.
# One shell line, so that when the command fails its trap removes the .tmp.
into = trap 'rm -f $@.tmp' EXIT; $1 >$@.tmp; mv $@.tmp $@

# Both outputs come from one run of tr-extract (a pattern rule with two
# targets makes both at once).
%/ops.ndjson %/trace-memory.ndjson: $$(call traces,$$*) $(BIN)/tr-extract \
    $(BIN)/op-rank $(BIN)/mem-segments $(RUBRIC)/op-families.tsv \
    $(RUBRIC)/kernel-precision.tsv
	trap 'rm -f $*/.trace.fifo $*/ops.ndjson.tmp \
	    $*/trace-memory.ndjson.tmp' EXIT; \
	rm -f $*/.trace.fifo; \
	mkfifo $*/.trace.fifo; \
	{ grep -E '$(TRACE_MEMORY)' <$*/.trace.fifo || [ $$? = 1 ]; } | \
	    $(BIN)/mem-segments >$*/trace-memory.ndjson.tmp & \
	MRP_RUBRIC=$(RUBRIC) $(BIN)/tr-extract $(call traces,$*) | \
	    tee $*/.trace.fifo | \
	    MRP_RUBRIC=$(RUBRIC) $(BIN)/op-rank >$*/ops.ndjson.tmp; \
	wait $$!; \
	mv $*/trace-memory.ndjson.tmp $*/trace-memory.ndjson; \
	mv $*/ops.ndjson.tmp $*/ops.ndjson

%/context.ndjson: $$(call context,$$*) $(BIN)/analyze-profile
	$(call into,$(BIN)/analyze-profile --context $(call q,$(call context,$*)))

%/memory.ndjson: $$(call snaps,$$*) $(BIN)/mem-segments
	$(call into,$(BIN)/mem-segments $(call snaps,$*))

%/churn.ndjson: $$(call snaps,$$*) $(BIN)/churn-score
	$(call into,$(BIN)/churn-score $(call snaps,$*))

%/findings.ndjson: $$(call stages,$$*) $(BIN)/rubric-apply $(RULES)
	$(call into,$(BIN)/rubric-apply -r $(RUBRIC) $(call stages,$*))

%/report.md: $$(call stages,$$*) %/findings.ndjson $(BIN)/report-md \
    $(RULES) $(RUBRIC)/report.jq
	$(call into,$(BIN)/report-md -r $(RUBRIC) $(foreach f,$(call traces,$*) \
	    $(call snaps,$*),-i $f) $(call stages,$*) $*/findings.ndjson)

%/report.json: $$(call stages,$$*) %/findings.ndjson $(BIN)/report-md \
    $(RULES) $(RUBRIC)/report.jq
	$(call into,$(BIN)/report-md -j -r $(RUBRIC) \
	    $(foreach f,$(call traces,$*) $(call snaps,$*),-i $f) \
	    $(call stages,$*) $*/findings.ndjson)

.PHONY: all
