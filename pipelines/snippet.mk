# pipelines/snippet.mk: lint, smoke-run and print the Nsight command for
# profiling snippets, and hand what a run left behind to the report
# pipeline.  Run it from the repository the snippets belong to (the runner
# takes relative paths from there):
#
#	make -f pipelines/snippet.mk -j4 smoke
#	make -f pipelines/snippet.mk SNIPPETS=inference_profiling/snippets/nms nsys
#
# Targets (each for every snippet folder in SNIPPETS):
#	lint	$(OUT)/<snippet>/lint.ndjson: snip-lint's diagnostics; errors
#		stop the snippet, printed for a person
#	nsys	$(OUT)/<snippet>/nsys.sh: the nsys command, printed
#	smoke	$(OUT)/<snippet>/run.ndjson: snip-run's plan check and run
#		record (the runner's logs and manifest stay in its run dir)
#	report	$(OUT)/<snippet>/artifacts.txt: the PyTorch traces, memory
#		snapshots and Nsight Systems exports (or reports) the run
#		left, which then go to
#		"$(MAKE) -f pipelines/report.mk RUN=<run dir>".
#	all	lint, nsys, smoke and report
#
# Variables: SNIPPETS (default: every inference_profiling/snippets/*/ with
# a config.yaml), RUN_ID (default smoke), RUNNER (the runner command; empty:
# snip-run's default, or $SNIP_RUNNER), OUT (default snippet-out), BIN (the
# mrp binaries, default ../bin beside this file, else those on PATH; a
# plain path, as for report.mk).
#
# Every name is quoted for the shell.  A snippet folder, OUT or RUN_ID with
# whitespace or one of $ : ; | % \ * ? [ stops make before anything runs,
# naming it, and so does a run directory that report.mk cannot carry.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.SECONDARY:
# With -j, each stage's output stays in one piece.
MAKEFLAGS += --output-sync=target

include $(dir $(lastword $(MAKEFILE_LIST)))common.mk
# The report pipeline that sits beside this file.
REPORT_MK ?= $(PIPELINES)report.mk
$(call refuse_dollar,SNIPPETS OUT RUN_ID)
$(call refuse_path,BIN)
OUT ?= snippet-out
RUN_ID ?= smoke
RUNNER ?=
SNIPPETS ?= $(patsubst %/config.yaml,%,\
	$(wildcard inference_profiling/snippets/*/config.yaml))
$(call refuse_one,OUT)
$(call refuse_one,RUN_ID)

SNIP_LINT := $(BIN)/snip-lint
SNIP_RUN := $(BIN)/snip-run
RUNNER_FLAG := $(if $(strip $(RUNNER)),-r $(call q,$(RUNNER)))
# Snippet folders without the trailing slash a shell glob may leave.
SNIPS := $(patsubst %/,%,$(SNIPPETS))

# The snippet folders $(wildcard) would split: whitespace in their names.
ifeq ($(origin SNIPPETS),file)
SPLIT := $(shell find inference_profiling/snippets -mindepth 2 -maxdepth 2 \
	-name config.yaml -path '*[[:space:]]*' -print 2>/dev/null)
$(if $(SPLIT),$(error $(ME): $(SPLIT): a snippet folder with whitespace \
	is beyond make; rename it))
endif
$(call refuse_syntax,$(SNIPS) $(OUT) $(RUN_ID))

all: lint nsys smoke report

lint: $(SNIPS:%=$(OUT)/%/lint.ndjson)

nsys: $(SNIPS:%=$(OUT)/%/nsys.sh)
	@for f in $(call qs,$^); do echo "# $${f%/nsys.sh}"; cat "$$f"; done

smoke: $(SNIPS:%=$(OUT)/%/run.ndjson)

report: $(SNIPS:%=$(OUT)/%/artifacts.txt)

$(OUT)/%/:
	mkdir -p $(call q,$@)

# Errors fail the stage; the person at the terminal sees them as lines.
$(OUT)/%/lint.ndjson: %/config.yaml $(SNIP_LINT) | $(OUT)/%/
	$(SNIP_LINT) -j $(call q,$<) > $(call q,$@) || \
	    { $(SNIP_LINT) -h $(call q,$<) >&2; exit 1; }

$(OUT)/%/nsys.sh: %/config.yaml $(OUT)/%/lint.ndjson $(SNIP_RUN) | $(OUT)/%/
	$(SNIP_RUN) -p -i $(call q,$(RUN_ID)) $(call q,$<) > $(call q,$@)

$(OUT)/%/run.ndjson: %/config.yaml $(OUT)/%/lint.ndjson $(SNIP_RUN) | $(OUT)/%/
	$(SNIP_RUN) -f -i $(call q,$(RUN_ID)) $(RUNNER_FLAG) $(call q,$<) > \
	    $(call q,$@)

# Traces (*.json, *.json.gz), memory snapshots (*.pickle, *.pkl) and what
# nsys left (trace.nsys-rep, exported by report.mk, or its *.sqlite) in the
# run directory, one path a line.  Snapshots are only named here: turning a
# pickle into JSON safely is the report pipeline's job.  The run directory
# comes from the config (output_dir, profile_name): report.mk reads it
# unexpanded and refuses it if make cannot carry it.  jq runs without HOME,
# as the tools' libjq does, so that the user's ~/.jq neither changes nor
# breaks it.
$(OUT)/%/artifacts.txt: $(OUT)/%/run.ndjson | $(OUT)/%/
	run=$$(env -u HOME jq -r 'select(.kind == "run") | .run_dir' \
	    $(call q,$<)); \
	find "$$run" -maxdepth 1 -type f \( -name '*.json' -o \
	    -name '*.json.gz' -o -name '*.pickle' -o -name '*.pkl' -o \
	    -name '*.sqlite' -o -name '*.nsys-rep' \) | \
	    LC_ALL=C sort > $(call q,$@); \
	if [ -s $(call q,$@) ]; then \
		$(MAKE) -f $(call q,$(REPORT_MK)) BIN=$(call q,$(BIN)) \
		    RUN="$$run"; \
	else \
		echo $(call q,$*)": no trace or snapshot in $$run"; \
	fi

.PHONY: all lint nsys smoke report
