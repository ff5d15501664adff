# pipelines/common.mk: what report.mk and snippet.mk share, included by
# both after SHELL is set: where the mrp binaries are, quoting for the
# shell, and the names that never reach a rule.
#
# A name is data.  Every name a recipe passes to the shell is quoted with
# q; the names that make itself cannot carry are refused while the
# makefile is read, before any recipe runs, with an error that names them.

# Which pipeline this is, for its messages.
ME := $(notdir $(firstword $(MAKEFILE_LIST)))
PIPELINES := $(dir $(lastword $(MAKEFILE_LIST)))

# The mrp binaries: ../bin beside this directory in a build tree, else
# those on PATH (an installed copy of the pipelines sits in
# $(PREFIX)/share/mrp/pipelines, far from $(PREFIX)/bin).
ifeq ($(origin BIN),undefined)
BIN := $(patsubst %/,%,$(dir $(firstword \
	$(wildcard $(PIPELINES)../bin/report-md) $(shell command -v report-md))))
ifeq ($(BIN),)
$(error $(ME): no mrp binaries in $(PIPELINES)../bin or on PATH; name them with BIN=)
endif
endif

# $(call q,name): name quoted for the shell, as data.
q = '$(subst ','\'',$1)'
# $(call qs,names): each name quoted.
qs = $(foreach f,$1,$(call q,$f))

# What make reads as its own syntax where a name becomes a target or a
# prerequisite: $ (read again by .SECONDEXPANSION), : ; | (rule syntax),
# % (a pattern), \ * ? [ (wildcard escape and patterns).  A # is carried.
MAKE_SYNTAX := $$ : ; | % \ * ? [
# What the shell reads as its own syntax in a word, beyond those.
SHELL_SYNTAX := ' " ` & ( ) < > { } \#
# $(call chars_in,name,characters): the characters that name holds.
chars_in = $(strip $(foreach c,$2,$(if $(findstring $c,$1),$c)))
# $(call syntax_in,name): the characters of MAKE_SYNTAX that name holds.
syntax_in = $(call chars_in,$1,$(MAKE_SYNTAX))

# $(call refuse_dollar,variables): stops make when one of the variables,
# as given on the command line or in the environment, holds a $.  make
# would expand it as a reference (a $(shell ...) runs), so this reads
# them unexpanded, before anything else has expanded them.
refuse_dollar = $(foreach v,$1,$(if $(findstring $$,$(value $v)), \
	$(error $(ME): $v=$(value $v): a name with "$$" is make syntax; rename it)))

# $(call refuse_one,variable): stops make when the variable holds more
# than one word: a name with whitespace cannot be told from two names.
refuse_one = $(if $(word 2,$($1)), \
	$(error $(ME): $1=$($1): a name with whitespace is two names to make; rename it))

# $(call refuse_syntax,names): stops make at the first name that holds
# one of MAKE_SYNTAX.
refuse_syntax = $(foreach n,$1,$(if $(call syntax_in,$n), \
	$(error $(ME): $n: a name with "$(call syntax_in,$n)" is make syntax; rename it)))

# $(call refuse_path,variables): stops make when a directory taken from
# the settings (BIN, RUBRIC) is not a plain path: recipes name the tools
# and the rubric through it unquoted, as make names them as prerequisites.
refuse_path = $(foreach v,$1,$(call refuse_one,$v)$(if $(call chars_in, \
	$($v),$(MAKE_SYNTAX) $(SHELL_SYNTAX)),$(error $(ME): $v=$($v): a path \
	with "$(call chars_in,$($v),$(MAKE_SYNTAX) $(SHELL_SYNTAX))" is not \
	a plain path; install or link the tree elsewhere)))
