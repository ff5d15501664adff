# mrp: one non-recursive Makefile for every tool, the library, the man
# pages and the tests.  "make BUILD=dir" builds out of tree; "make asan"
# builds into build-asan/ with the sanitizers and runs the whole suite there.
#
# lib/ is in folders by layer, lowest first: base (errors, allocation,
# strings, maps, hashing), io (gzip, the JSON reader, the NDJSON writer,
# YAML, spill files, input names, terminal text), the artifact analyses
# side by side (trace, memory, snippet: none includes another), report
# (rubric, jq glue, record sets: over base and io, meeting the analyses
# through records only), then tools/, one program each.  A module includes
# headers of its own folder and of the layers it stands on only, as
# "layer/name.h" from -Ilib; tools never include each other.  make check
# runs tests/layers, which reads the #include lines and names any that
# breaks this.
.SUFFIXES:
.DELETE_ON_ERROR:

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# The pipelines find the rubric and each other beside them, as in the tree:
# keep PIPELINEDIR and RUBRICDIR in one directory.
MRPDIR ?= $(PREFIX)/share/mrp
RUBRICDIR ?= $(MRPDIR)/rubric
PIPELINEDIR ?= $(MRPDIR)/pipelines
INSTALL ?= install
BATS ?= bats
MANDOC ?= mandoc

BUILD ?= .
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wpedantic -Wstrict-prototypes -Wmissing-prototypes \
	-Wshadow -Wformat=2 -Wvla -Wwrite-strings -fno-common
ifdef DEVELOPER
WARN += -Werror
endif
ifdef SANITIZE
SAN_CFLAGS = -fsanitize=$(SANITIZE) -fno-sanitize-recover=$(SANITIZE) \
	-fno-omit-frame-pointer -g -O1
endif
# -pthread: gzin reads a file ahead on a thread of its own, and
# analyze-profile ranks on one where it has the CPUs (io/docrelay.h).
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) \
	-pthread $(CFLAGS) $(SAN_CFLAGS)
ALL_LDFLAGS = -pthread $(LDFLAGS) $(SAN_CFLAGS)
LIBS = -Wl,--as-needed -ljq -lyaml -lsqlite3 -lz -lm

TOOLS := $(basename $(notdir $(wildcard tools/*.c)))
LIB_SRC := $(wildcard lib/*/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ := $(TOOLS:%=$(BUILD)/tools/%.o)
BINS := $(TOOLS:%=$(BUILD)/bin/%)
FUZZERS := $(basename $(notdir $(wildcard tests/fuzz/*.c)))
# Test programs that check the library from inside, for the bats suite.
TESTBINS := $(basename $(notdir $(wildcard tests/bin/*.c)))
MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)
RUBRIC := $(wildcard rubric/*)
PIPELINE := $(wildcard pipelines/*)
DEPS := $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(FUZZERS:%=$(BUILD)/fuzz/%.d) \
	$(TESTBINS:%=$(BUILD)/testbin/%.d)

# Quiet by default, as git and Linux build: one line per file made.  V=1
# shows each command whole, and make -s nothing (the first word of MAKEFLAGS
# holds the one-letter options).
ifeq ($(findstring s,$(filter-out -% %=%,$(word 1,$(MAKEFLAGS)))),)
ifneq ($(V),1)
QUIET_CC = @echo '   ' CC $@;
QUIET_LINK = @echo '   ' LINK $@;
QUIET_AR = @echo '   ' AR $@;
QUIET_GEN = @echo '   ' GEN $@;
endif
endif

all: $(BINS) rubric/interpretation.md

# Keep the objects: they are not throwaway intermediates.
.SECONDARY: $(TOOL_OBJ)

$(BUILD)/bin/%: $(BUILD)/tools/%.o $(BUILD)/lib/libutil.a | deps
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/lib/libutil.a \
	    $(LIBS) $(LDLIBS)

$(BUILD)/lib/libutil.a: $(LIB_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/%.o: %.c | deps
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Ilib -MMD -MP \
	    -c -o $@ $<

# $(call cstring,s): s as a C string literal, quoted for the shell.
cstring = '"$(subst ','\'',$(subst ",\",$(subst \,\\,$1)))"'

# The rubric directory compiled in (lib/base/progdir.h): the tree's for the
# tree's tools; make install links its own copies of the tools with
# RUBRICDIR instead, relinked when RUBRICDIR changes (the value is kept in
# $(BUILD)/inst/rubricdir, rewritten only when it differs), so that a tool
# installed with MRPDIR=... finds its rubric and the tree's tools stay as
# they are.
$(BUILD)/lib/base/instdir.o: CPPFLAGS += \
	-DMRP_RUBRICDIR=$(call cstring,$(abspath rubric))
$(BUILD)/inst/rubricdir: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' $(call cstring,$(RUBRICDIR)) | cmp -s - $@ || \
	    printf '%s\n' $(call cstring,$(RUBRICDIR)) >$@
$(BUILD)/inst/instdir.o: lib/base/instdir.c $(BUILD)/inst/rubricdir | deps
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -Ilib \
	    -DMRP_RUBRICDIR=$(call cstring,$(RUBRICDIR)) -c -o $@ $<
$(BUILD)/inst/bin/%: $(BUILD)/tools/%.o $(BUILD)/inst/instdir.o \
    $(BUILD)/lib/libutil.a | deps
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/inst/instdir.o \
	    $(BUILD)/lib/libutil.a $(LIBS) $(LDLIBS)

# The names of a run's inputs, kept in pipelines/names.mk for report.mk,
# as C for the tools: each NAME_PATTERNS := glob ... (continued with \)
# becomes #define NAME_PATTERNS "glob", ...
GEN_NAMES = /^[A-Z_]+_PATTERNS :=/ { name = $$1; sub(/^[^=]*:=/, ""); k++; \
	order[k] = name; more = 1 } \
	more { more = /\\$$/; sub(/\\$$/, ""); \
	for (i = 1; i <= NF; i++) list[name] = list[name] " \"" $$i "\","; } \
	END { print "/* Made by the Makefile from pipelines/names.mk. */"; \
	for (i = 1; i <= k; i++) \
		printf "\#define %s\t%s\n", order[i], substr(list[order[i]], 2) }
$(BUILD)/gen/names.h: pipelines/names.mk
	@mkdir -p $(@D)
	$(QUIET_GEN)awk '$(GEN_NAMES)' pipelines/names.mk >$@.tmp && \
	    mv $@.tmp $@
# The one object that includes a made header finds it under $(BUILD);
# every other sees -Ilib alone.
$(BUILD)/lib/io/runnames.o: $(BUILD)/gen/names.h
$(BUILD)/lib/io/runnames.o: CPPFLAGS += -I$(BUILD)

# The rubric's reference for reviewers, generated from the rules themselves
# so that the two cannot drift; the generated file is committed too.
RUBRIC_SRC := $(filter-out rubric/interpretation.md,$(RUBRIC))
rubric/interpretation.md: $(RUBRIC_SRC) $(BUILD)/bin/rubric-apply \
    $(BUILD)/bin/report-md
	$(QUIET_GEN)$(BUILD)/bin/rubric-apply -l -r rubric >$@.rules && \
	    $(BUILD)/bin/report-md -r rubric <$@.rules >$@.tmp && \
	    rm -f $@.rules && mv $@.tmp $@

# What each target needs, by the sets of .ci/deps: it installs what is
# missing on Debian when run as root, and otherwise names it.  A plain make
# only names it (.ci/deps -n): the goals below, which a user runs to set up
# and use the tree, may install.
INSTALL_GOALS = example check check-slurm asan bench fuzz
deps:
	@.ci/deps $(if $(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),,-n )build

# The bats files run side by side, JOBS files at a time (bats --jobs, with
# GNU parallel, which .ci/deps test installs; one at a time without it or
# with JOBS=1), and make check says how long it took, passed or not.  The
# tests of a file run one after another: bats 1.8 runs a file's tests side
# by side through a semaphore that polls with sleep(1), which cost half a
# second a test, a third of the suite's time.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
# The files that take longest start first (GNU parallel keeps the order
# given), so that none of them starts last beside an idle CPU: 2 to 5
# minutes each on 2 CPUs, against a minute or less for the others.
SLOW_TESTS := tests/outputs.bats tests/analyze-profile.bats \
	tests/report-pipeline.bats tests/snippet-e2e.bats tests/op-rank-spill.bats
TESTS := $(SLOW_TESTS) $(filter-out $(SLOW_TESTS),$(sort $(wildcard tests/*.bats)))

check: all testbins
	@.ci/deps test html
	@t0=$$(date +%s); \
	trap 's=$$(($$(date +%s) - t0)); \
	    printf "make check: %dm%02ds\n" $$((s / 60)) $$((s % 60))' EXIT; \
	set -e; \
	jobs=; \
	if [ "$(JOBS)" -gt 1 ] && command -v parallel >/dev/null; then \
		jobs="--jobs $(JOBS) --no-parallelize-within-files"; \
	fi; \
	echo tests/layers; \
	tests/layers; \
	echo "BUILD=$(abspath $(BUILD)) $(BATS) $$jobs $(SLOW_TESTS) ..."; \
	BUILD=$(abspath $(BUILD)) $(BATS) $$jobs $(TESTS); \
	echo "$(MANDOC) -T lint -W warning $(MAN1) $(MAN5)"; \
	$(MANDOC) -T lint -W warning $(MAN1) $(MAN5)

# report.mk's stages through srun on a single-node Slurm cluster that
# tests/slurm.bats starts and stops (installing Slurm when root on Debian).
check-slurm: all
	@.ci/deps test
	MRP_SLURM_TEST=1 BUILD=$(abspath $(BUILD)) $(BATS) tests/slurm.bats

asan:
	$(MAKE) BUILD=build-asan SANITIZE=address,undefined check

# The report alone: the build says only what goes wrong.
example: deps
	@$(MAKE) --no-print-directory all >/dev/null
	@$(BUILD)/bin/analyze-profile \
	    --cpu-trace fixtures/example/trace.json.gz \
	    --memory-json fixtures/example/memory_snapshot.json.gz

bench: all
	@.ci/deps test
	tests/bench/run $(BENCH)

# The README's picture of the HTML report: the example's page, shot by the
# command tests/html.bats checks.  Needs chromium-headless-shell.
doc/report.png: $(BINS) tests/html-shot
	$(BUILD)/bin/analyze-profile --cpu-trace fixtures/example/trace.json.gz \
	    --memory-json fixtures/example/memory_snapshot.json.gz \
	    --html-out $@.html >/dev/null
	tests/html-shot $@.html $@
	rm -f $@.html

# libFuzzer harnesses, built with clang into build-fuzz/ with ASan and
# UBSan; tests/fuzz/run runs each on its corpus for FUZZ_SECONDS.
FUZZ_CFLAGS = -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=address,undefined -fno-omit-frame-pointer \
	-DJR_BUFCAP=1024 -DGZIN_BUFCAP=1024 -DJW_BUFCAP=1024 \
	-DSNIP_MAX_RECORDS=1000
fuzz:
	@.ci/deps build fuzz
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_CFLAGS)" fuzzers

fuzzers: $(FUZZERS:%=$(BUILD)/fuzz/%)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/lib/libutil.a | deps
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(CPPFLAGS) \
	    -Ilib -Itools -MMD -MP -o $@ $< $(BUILD)/lib/libutil.a \
	    $(LIBS) $(LDLIBS)

# The Markdown escaping's harness reads the rubric's format.jq and checks it
# with cmark-gfm, GitHub's parser.
$(BUILD)/fuzz/markdown: CPPFLAGS += -DRUBRIC_DIR='"$(abspath rubric)"'
$(BUILD)/fuzz/markdown: LDLIBS += -lcmark-gfm-extensions -lcmark-gfm
# The partials', the step labels', the critical path's and the overlay's
# harnesses read their tables from the rubric.
$(BUILD)/fuzz/partial $(BUILD)/fuzz/serve $(BUILD)/fuzz/critpath \
    $(BUILD)/fuzz/overlay: CPPFLAGS += -DRUBRIC_DIR='"$(abspath rubric)"'

# The harnesses' checks without libFuzzer, compiled like the tools (and
# with the sanitizers under make asan), run by bats on named files.
testbins: $(TESTBINS:%=$(BUILD)/testbin/%)

$(BUILD)/testbin/%: tests/bin/%.c $(BUILD)/lib/libutil.a | deps
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(LDFLAGS) -Ilib \
	    -Itests/fuzz -MMD -MP -o $@ $< $(BUILD)/lib/libutil.a \
	    $(LIBS) $(LDLIBS)

install: all $(TOOLS:%=$(BUILD)/inst/bin/%)
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5
	$(INSTALL) -m 755 $(TOOLS:%=$(BUILD)/inst/bin/%) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5
	mkdir -p $(DESTDIR)$(RUBRICDIR) $(DESTDIR)$(PIPELINEDIR)
	$(INSTALL) -m 644 $(RUBRIC) $(DESTDIR)$(RUBRICDIR)
	$(INSTALL) -m 644 $(PIPELINE) $(DESTDIR)$(PIPELINEDIR)

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%)
	rm -f $(MAN5:man/%=$(DESTDIR)$(MANDIR)/man5/%)
	rm -f $(RUBRIC:rubric/%=$(DESTDIR)$(RUBRICDIR)/%)
	rm -f $(PIPELINE:pipelines/%=$(DESTDIR)$(PIPELINEDIR)/%)
	rmdir $(DESTDIR)$(PIPELINEDIR) $(DESTDIR)$(RUBRICDIR) \
	    $(DESTDIR)$(MRPDIR) 2>/dev/null || :

clean:
	rm -rf bin testbin gen inst build-asan build-fuzz tools/*.o tools/*.d \
	    lib/*/*.o lib/*/*.d lib/libutil.a

.PHONY: all deps check check-slurm asan example bench fuzz fuzzers testbins \
	install uninstall \
	clean FORCE

-include $(DEPS)
