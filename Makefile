# ftpu - top-level build. Everything goes under build/; nothing built is committed.
#
#   make / make test   build everything and run the test suite
#   make check-full    the long sweeps (exhaustive multiplier, ...)
#   make lint          verilator -Wall and yosys read of every RTL file
#   make synth         resource and Fmax report (docs/synth.md)
#   make bench         benchmarks (tables, never pass/fail)
#   make sim           build the Verilated models
#   TRACE=1            build models with FST tracing; waves go to build/waves/

.DEFAULT_GOAL := test
SHELL := /bin/bash

TRACE ?= 0
# Traced builds (models, tests, examples) live apart, so switching TRACE
# never leaves a binary linked against the other kind of model.
BUILD ?= build$(if $(filter 1,$(TRACE)),/trace)
WAVES ?= build/waves
JOBS ?= $(shell nproc)

CC ?= gcc
CXX ?= g++
OPT ?= -O2
# -ffp-contract=off: a fused multiply-add would skip the FTZ of the product
# and break the numeric contract (docs/numerics.md).
CFLAGS_BASE := -std=c11 $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off \
	-fno-fast-math -D_GNU_SOURCE -Ihost-lib/include -Ihost-lib/src -Idriver -Isim
CFLAGS += $(CFLAGS_BASE)
LDLIBS += -lm

# --- dependencies: install missing Debian packages once --------------------
DEPS_STAMP := $(BUILD)/.deps-ok
$(DEPS_STAMP): scripts/deps.sh
	@bash scripts/deps.sh
	@mkdir -p $(@D) && touch $@
deps: $(DEPS_STAMP)

# --- host library -----------------------------------------------------------
LIB_SRCS := $(wildcard host-lib/src/*.c driver/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIBFTPU := $(BUILD)/host-lib/libftpu.a

$(BUILD)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBFTPU): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

# --- Verilated models (see mk/models.mk) ------------------------------------
include mk/models.mk

# --- tests -------------------------------------------------------------------
HOST_TESTS := $(patsubst %.c,$(BUILD)/%,$(wildcard tests/host/test_*.c))
RTL_TESTS := $(patsubst %.c,$(BUILD)/%,$(wildcard tests/rtl/test_*.c))

$(HOST_TESTS): $(BUILD)/tests/host/%: $(BUILD)/tests/host/%.o $(LIBFTPU)
	$(CC) $(CFLAGS) $^ -o $@ -lcmocka -lz $(LDLIBS)

# An RTL test links the models named in its <test>_MODELS variable.
.SECONDEXPANSION:
$(RTL_TESTS): $(BUILD)/tests/rtl/%: $(BUILD)/tests/rtl/%.o $$(call model_libs,$$($$*_MODELS)) $(LIBFTPU)
	$(CXX) $< $(call model_link,$($*_MODELS)) $(LIBFTPU) -o $@ \
		-lcmocka -lz -lpthread $(LDLIBS)

TESTS := $(HOST_TESTS) $(RTL_TESTS)

# TRACE=1: tests that open array models write FST waves here.
ifeq ($(TRACE),1)
export FTPU_TRACE_DIR := $(abspath $(WAVES))
endif

test: $(TESTS) lint
	@mkdir -p $(WAVES)
	@bash scripts/run-tests.sh $(TESTS)

# One test by name: make test-test_array (add TRACE=1 for waves).
test_binary = $(filter %/$(1),$(TESTS))
test-%: $$(call test_binary,$$*)
	@mkdir -p $(WAVES)
	@bash scripts/run-tests.sh $<

# Long sweeps: each test binary runs its full variant when FTPU_FULL=1.
check-full: $(TESTS)
	@FTPU_FULL=1 bash scripts/run-tests.sh $(TESTS)

# --- benchmarks --------------------------------------------------------------
BENCHES := $(patsubst %.c,$(BUILD)/%,$(wildcard bench/bench_*.c))
$(BENCHES): $(BUILD)/bench/%: $(BUILD)/bench/%.o $$(call model_libs,$$($$*_MODELS)) $(LIBFTPU)
	$(CXX) $< $(call model_link,$($*_MODELS)) $(LIBFTPU) -o $@ -lz -lpthread $(LDLIBS)

# --- examples and the demo ---------------------------------------------------
EXAMPLES := $(patsubst %.c,$(BUILD)/%,$(wildcard examples/*.c))
$(EXAMPLES): $(BUILD)/examples/%: $(BUILD)/examples/%.o $$(call model_libs,$$($$*_MODELS)) $(LIBFTPU)
	$(CXX) $< $(call model_link,$($*_MODELS)) $(LIBFTPU) -o $@ -lz -lpthread $(LDLIBS)

demo: $(BUILD)/examples/array_demo
	@mkdir -p $(WAVES)
	$< $(if $(filter 1,$(TRACE)),32 64 32 $(WAVES)/array_demo.fst,128 784 128)

bench: $(BENCHES)
	@set -e; for b in $(BENCHES); do echo "== $$b"; $$b; echo; done

# --- lint and synthesis --------------------------------------------------------
include mk/lint.mk
-include mk/synth.mk

clean:
	rm -rf $(BUILD)

.PHONY: deps test check-full bench clean sim lint synth demo
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
