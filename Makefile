# ftpu - top-level build. Everything goes under build/; nothing built is committed.
#
#   make               build everything (library, tools, tests, benches, examples); runs nothing
#   make test          build and run the test suite (README's command)
#   make demo          train the Fashion-MNIST MLP on the simulated device
#   make deps          only install what is missing (scripts/deps.sh, scripts/tools.pin)
#   make spec          regenerate what spec/ftpu.toml describes (make test checks it)
#   make check-full    the long sweeps (exhaustive multiplier, ...)
#   make lint          verilator -Wall and yosys read of every RTL file
#   make formal        the SymbiYosys proofs in formal/ (mk/formal.mk; the fast ones run in make test)
#   make synth         resource and Fmax report (docs/synth.md)
#   make boards        every board's Yosys estimate (mk/boards.mk, docs/boards.md)
#   make bitstream / flash BOARD=icebreaker   the iCE40 flow
#   make firmware      the control core's images (mk/models/cpu.mk)
#   make bench         benchmarks (tables, never pass/fail)
#   make soak          30 minutes of random calls with link faults (SOAK_SECONDS)
#   make fuzz          every libFuzzer target, FUZZ_SECONDS (60) each or FUZZ_RUNS=n
#                      inputs (mk/fuzz.mk; make fuzz-idx etc. for one)
#   make sim           build the Verilated models
#   make clean         remove build/ (the tools in .venv/ stay; make distclean removes them too)
#   TRACE=1            build models with FST tracing; waves go to build/waves/

.DEFAULT_GOAL := all
SHELL := /bin/bash

TRACE ?= 0
# Traced builds (models, tests, examples) live apart, so switching TRACE
# never leaves a binary linked against the other kind of model.
BUILD ?= build$(if $(filter 1,$(TRACE)),/trace)
WAVES ?= build/waves
JOBS ?= $(shell nproc)
# Every goal runs JOBS recipes at once (make -jN on the command line wins):
# make test's lint, board estimates, proofs and bitstream overlap.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(JOBS)
endif

CC ?= gcc
CXX ?= g++
OPT ?= -O2
# -ffp-contract=off: a fused multiply-add would skip the FTZ of the product
# and break the numeric contract (docs/numerics.md).
CFLAGS_BASE := -std=c11 $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off \
	-fno-fast-math -D_GNU_SOURCE
CFLAGS += $(CFLAGS_BASE)
# libusb-1.0: the usb transport (host-lib/src/transports/usb_transport.c).
LDLIBS += -lusb-1.0 -lm

# --- layers: each folder compiles with the include path of its layer -------
# A folder sees itself and what is below it, so an include that goes up a
# layer does not compile; scripts/check-layers.py (make test) also checks
# every #include "..." against this table. The most specific key wins.
# (README.md, Layout.)
LIB_INC := -Ihost-lib/include -Ihost-lib/src -Ihost-lib/src/transports -Iproto
# The harness drives the library's GEMM planner (gemm_plan.h) for the
# device tests, as ftpu_gemm does: it sees host-lib/src, not the transports.
HARNESS_INC := -Iharness -Ihost-lib/include -Ihost-lib/src -Iproto -Imodel -Isim
INC_proto := -Iproto
INC_model := -Iproto -Imodel
INC_firmware := -Iproto -Ifirmware/include
INC_host-lib := $(LIB_INC)
INC_host-lib/src/transports/ref_transport.c := $(LIB_INC) -Imodel
INC_sim := -Isim -Iproto -Ihost-lib/include -Ihost-lib/src/transports
INC_tools := -Ihost-lib/include
INC_examples := -Ihost-lib/include
INC_harness := $(HARNESS_INC)
INC_tests/proto := -Iproto -Ihost-lib/include -Iharness
INC_tests/model := -Iproto -Imodel -Ihost-lib/include -Iharness
INC_tests/lib := $(LIB_INC) $(HARNESS_INC)
INC_tests/transport := $(LIB_INC) $(HARNESS_INC)
INC_tests/rtl := $(HARNESS_INC)
INC_tests/cpu := $(HARNESS_INC) -Ifirmware/include
INC_tests/firmware := $(HARNESS_INC) -Ifirmware/include
INC_tests/fuzz := $(LIB_INC) -Ifirmware/include
INC_tests/examples := -Ihost-lib/include -Iharness
INC_tests/tools := -Ihost-lib/include
INC_bench := $(LIB_INC) $(HARNESS_INC)
# Folders a layer may reach by a relative include (../x.c) beyond its -I.
ROOTS_tests/firmware := firmware tests/fuzz examples
ROOTS_tests/fuzz := firmware examples
ROOTS_tests/examples := examples
ROOTS_firmware := firmware
LAYERS := host-lib/src/transports/ref_transport.c proto model firmware host-lib sim \
	tools examples harness tests/proto tests/model tests/lib tests/transport tests/rtl \
	tests/cpu tests/firmware tests/fuzz tests/examples tests/tools bench
layer_of = $(firstword $(foreach l,$(LAYERS),$(if $(filter $(l) $(l)/%,$(1)),$(l))))
layer_inc = $(if $(call layer_of,$(1)),$(INC_$(call layer_of,$(1))),$(error $(1): in no layer (Makefile LAYERS)))

# --- tools: installed first, then make reads everything again -----------------
# scripts/deps.sh installs the Debian packages and the pinned tools
# (scripts/tools.pin) and writes their paths into TOOLS_MK. make remakes an
# included makefile before anything else and then restarts, so every rule
# and variable below sees the installed tools; nothing is evaluated against
# a tool that is not there yet.
TOOLS_MK := $(BUILD)/tools.mk
NO_TOOLS_GOALS := clean distclean
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(NO_TOOLS_GOALS),$(MAKECMDGOALS)),)
SKIP_TOOLS := 1
endif
endif
ifndef SKIP_TOOLS
include $(TOOLS_MK)
endif
# A tool that went away since (a deleted .venv) runs the script again.
TOOLS_GONE := $(filter-out $(wildcard $(TOOL_PATHS)),$(TOOL_PATHS))
$(TOOLS_MK): scripts/deps.sh scripts/tools.pin $(if $(TOOLS_GONE),FORCE)
	@bash scripts/deps.sh $@
deps:
	@echo "ftpu: tools ready ($(TOOLS_MK)):"; \
	 awk '/^TOOLS_SUMMARY/ { sub(/^TOOLS_SUMMARY := /, ""); n = split($$0, t, "|"); \
		for (i = 1; i <= n; i++) print "  " t[i] }' $(TOOLS_MK)
CFLAGS_BASE += $(LIBUSB_CFLAGS)

# --- host library -----------------------------------------------------------
# libftpu: the library with its transports, and the layers below it (the
# protocol and numerics, the C model behind the ref transport).
LIB_SRCS := $(wildcard proto/*.c model/*.c host-lib/src/*.c host-lib/src/transports/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIBFTPU := $(BUILD)/host-lib/libftpu.a

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(call layer_inc,$<) -MMD -MP -c $< -o $@

$(LIBFTPU): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

# The shared library carries the simulated devices (sim/: the models and
# the sim transport, so "sim" works for any program linked with -lftpu); the
# static one does not: a static program that wants "sim" links the device
# models too (model_link, as the tools here do).
# The version is ftpu.h's (FTPU_VERSION_STRING), not written twice.
SO_VERSION := $(shell sed -n 's/^\#define FTPU_VERSION_STRING "\(.*\)"$$/\1/p' host-lib/include/ftpu.h)
LIBFTPU_SO := $(BUILD)/host-lib/libftpu.so.$(SO_VERSION)
LIB_SO_MODELS := device_16 device_4p device_16_t2 $(SIM_BOARDS:%=board_%)
LIB_PIC_OBJS := $(LIB_SRCS:%.c=$(BUILD)/pic/%.o)
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(call layer_inc,$<) -fPIC -MMD -MP -c $< -o $@

# --- the spec (spec/ftpu.toml): constants and configurations -------------------
# spec/gen.py writes proto/ftpu_spec.h, rtl/ftpu_pkg.sv, mk/spec.mk and the
# tables in docs/ from it; they are committed, and make test fails when one
# disagrees with the spec (a hand edit, or a spec edit without make spec).
include mk/spec.mk
spec:
	@python3 spec/gen.py
SPEC_CHECK := $(BUILD)/spec/ok
$(SPEC_CHECK): spec/ftpu.toml spec/gen.py $(wildcard proto/ftpu_spec.h rtl/ftpu_pkg.sv mk/spec.mk docs/*.md)
	@python3 spec/gen.py --check
	@mkdir -p $(@D) && touch $@
spec-check: $(SPEC_CHECK)

# --- Verilated models (see mk/models.mk) ------------------------------------
include mk/models.mk
include mk/soc_fw.mk

$(LIBFTPU_SO): $(LIB_PIC_OBJS) $(call model_libs,$(LIB_SO_MODELS)) host-lib/libftpu.map
	$(CXX) -shared -Wl,-soname,libftpu.so.0 -Wl,--version-script=host-lib/libftpu.map \
		-o $@ $(LIB_PIC_OBJS) $(foreach m,$(LIB_SO_MODELS),$(call model_shim,$(m))) \
		$(SIM_LIB_OBJS) -Wl,--whole-archive \
		$(foreach m,$(LIB_SO_MODELS),$(call model_lib,$(m))) $(VRUNTIME) \
		-Wl,--no-whole-archive -lusb-1.0 -lz -lpthread -lm
	@ln -sf $(@F) $(@D)/libftpu.so.0 && ln -sf libftpu.so.0 $(@D)/libftpu.so

# --- the ftpu command ------------------------------------------------------------
FTPU_CLI := $(BUILD)/tools/ftpu
ftpu_MODELS := device_16 device_4p device_16_t2 $(SIM_BOARDS:%=board_%)
$(FTPU_CLI): $(BUILD)/tools/ftpu.o $(call model_libs,$(ftpu_MODELS)) $(LIBFTPU)
	$(CXX) $< $(call model_link,$(ftpu_MODELS)) $(LIBFTPU) -o $@ -lz -lpthread $(LDLIBS)

# --- install --------------------------------------------------------------------------
PREFIX ?= /usr/local
# udev reads rules only from /etc, /run, /lib and /usr/lib/udev/rules.d
# (the case in the install rule): with another prefix (the default
# /usr/local, $HOME/.local) pass UDEV_RULES_DIR=/etc/udev/rules.d
# (docs/transports.md); make install says where the rules went and whether
# udev sees them there.
UDEV_RULES_DIR ?= $(PREFIX)/lib/udev/rules.d
install: $(LIBFTPU) $(LIBFTPU_SO) $(FTPU_CLI) host-lib/ftpu.pc.in host-lib/udev/99-ftpu.rules
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -d $(DESTDIR)$(UDEV_RULES_DIR)
	install -m 644 host-lib/udev/99-ftpu.rules $(DESTDIR)$(UDEV_RULES_DIR)/
	install -m 644 host-lib/include/ftpu.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIBFTPU) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBFTPU_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libftpu.so.$(SO_VERSION) $(DESTDIR)$(PREFIX)/lib/libftpu.so.0
	ln -sf libftpu.so.0 $(DESTDIR)$(PREFIX)/lib/libftpu.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SO_VERSION)|' host-lib/ftpu.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/ftpu.pc
	install -m 755 $(FTPU_CLI) $(DESTDIR)$(PREFIX)/bin/
	@rules='$(DESTDIR)$(patsubst %/,%,$(UDEV_RULES_DIR))/99-ftpu.rules'; \
	 case '$(patsubst %/,%,$(UDEV_RULES_DIR))' in \
	 /etc/udev/rules.d|/run/udev/rules.d|/lib/udev/rules.d|/usr/lib/udev/rules.d) \
		echo "udev rules in $$rules: run 'sudo udevadm control --reload &&" \
			"sudo udevadm trigger' and replug the board";; \
	 *) printf '%s\n' "udev rules in $$rules, where udev does not read them" \
			"  (it reads /etc/udev/rules.d and /usr/lib/udev/rules.d). For a board, copy them:" \
			"  sudo cp $$rules /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger" \
			"  and replug it; or install with UDEV_RULES_DIR=/etc/udev/rules.d (docs/transports.md).";; \
	 esac

# --- tests -------------------------------------------------------------------
# tests/<what>/test_*.c, by what they test: proto, model, lib, transport,
# rtl, cpu, firmware, examples, tools. A test with models (<test>_MODELS,
# mk/models.mk) links them with C++; one without is a host test, also
# built under the sanitizers.
TEST_SRCS := $(wildcard tests/*/test_*.c)
test_name = $(basename $(notdir $(1)))
HOST_TESTS := $(foreach t,$(TEST_SRCS),$(if $($(call test_name,$(t))_MODELS),,$(BUILD)/$(t:.c=)))
RTL_TESTS := $(foreach t,$(TEST_SRCS),$(if $($(call test_name,$(t))_MODELS),$(BUILD)/$(t:.c=)))

$(HOST_TESTS): $(BUILD)/%: $(BUILD)/%.o $(LIBFTPU)
	$(CC) $(CFLAGS) $^ -o $@ -lcmocka -lz $(LDLIBS)
# tests/tools/ run the built ftpu command (not linked into them).
$(filter $(BUILD)/tests/tools/%,$(HOST_TESTS)): | $(FTPU_CLI)

# A test with models links those named in its <test>_MODELS variable, and
# the objects in its <test>_OBJS (code under test outside the library).
.SECONDEXPANSION:
$(RTL_TESTS): $(BUILD)/%: $(BUILD)/%.o $$($$(notdir $$*)_OBJS) \
		$$(call model_libs,$$($$(notdir $$*)_MODELS)) $(LIBFTPU)
	$(CXX) $< $($(notdir $*)_OBJS) $(call model_link,$($(notdir $*)_MODELS)) $(LIBFTPU) -o $@ \
		-lcmocka -lz -lpthread $(LDLIBS)

# The host tests again under AddressSanitizer and UndefinedBehaviorSanitizer
# (their own objects and library under $(BUILD)/san).
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_TESTS := $(patsubst $(BUILD)/%,$(BUILD)/san/%_san,\
	$(filter-out $(BUILD)/tests/tools/%,$(HOST_TESTS)))
SAN_OBJS := $(LIB_SRCS:%.c=$(BUILD)/san/%.o)
LIBFTPU_SAN := $(BUILD)/san/libftpu.a
$(BUILD)/san/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(call layer_inc,$<) $(SAN_FLAGS) -MMD -MP -c $< -o $@
$(LIBFTPU_SAN): $(SAN_OBJS)
	$(AR) rcs $@ $^
$(SAN_TESTS): $(BUILD)/san/%_san: $(BUILD)/san/%.o $(LIBFTPU_SAN)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $^ -o $@ -lcmocka -lz -lpthread $(LDLIBS)

# make install into a temporary prefix, and the README's example built
# against it with pkg-config (scripts/test-install.sh).
INSTALL_CHECK := $(BUILD)/tests/test_install
$(INSTALL_CHECK): scripts/test-install.sh $(LIBFTPU) $(LIBFTPU_SO) $(FTPU_CLI) host-lib/ftpu.pc.in
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nBUILD=%s exec bash %s/scripts/test-install.sh\n' '$(BUILD)' '$(CURDIR)' > $@
	@chmod +x $@

# No #include "..." crosses a layer upward (the table above).
LAYER_CHECK := $(BUILD)/tests/check_layers
$(LAYER_CHECK): scripts/check-layers.py Makefile
	@mkdir -p $(@D)
	@printf '#!/bin/sh\ncd %s && exec python3 scripts/check-layers.py' '$(CURDIR)' > $@
	@printf " '%s'" $(foreach l,$(LAYERS),'$(l)|$(INC_$(l))|$(ROOTS_$(l))') >> $@
	@printf '\n' >> $@
	@chmod +x $@

TESTS := $(HOST_TESTS) $(RTL_TESTS) $(SAN_TESTS) $(INSTALL_CHECK) $(LAYER_CHECK)

# TRACE=1: tests that open array models write FST waves here.
ifeq ($(TRACE),1)
export FTPU_TRACE_DIR := $(abspath $(WAVES))
endif

# boards: every board's Yosys estimate against its part (mk/boards.mk).
# formal-fast: the quick formal proofs (mk/formal.mk).
test: $(TESTS) spec-check lint boards formal-fast
	@mkdir -p $(WAVES)
	@JOBS=$(JOBS) bash scripts/run-tests.sh $(TESTS)

# One test by name: make test-test_array (add TRACE=1 for waves).
test_binary = $(filter %/$(1),$(TESTS))
test-%: $$(call test_binary,$$*)
	@mkdir -p $(WAVES)
	@JOBS=$(JOBS) bash scripts/run-tests.sh $<

# Long sweeps: each test binary runs its full variant when FTPU_FULL=1.
check-full: $(TESTS) formal
	@FTPU_FULL=1 JOBS=$(JOBS) bash scripts/run-tests.sh $(TESTS)

# --- benchmarks --------------------------------------------------------------
BENCHES := $(patsubst %.c,$(BUILD)/%,$(wildcard bench/bench_*.c))
$(BENCHES): $(BUILD)/bench/%: $(BUILD)/bench/%.o $$(call model_libs,$$($$*_MODELS)) $(LIBFTPU)
	$(CXX) $< $(call model_link,$($*_MODELS)) $(LIBFTPU) -o $@ -lz -lpthread $(LDLIBS)

# --- examples and the demo ---------------------------------------------------
EXAMPLES := $(patsubst %.c,$(BUILD)/%,$(wildcard examples/*.c))
$(EXAMPLES): $(BUILD)/examples/%: $(BUILD)/examples/%.o $$(call model_libs,$$($$*_MODELS)) $(LIBFTPU)
	$(CXX) $< $(call model_link,$($*_MODELS)) $(LIBFTPU) -o $@ -lz -lpthread $(LDLIBS)

# The training demo (examples/fashion_mnist/, docs/demo.md): sources in a
# directory of their own; the test that checks them links the same objects.
FMNIST_DIR := examples/fashion_mnist
FMNIST_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(FMNIST_DIR)/main.c,\
	$(wildcard $(FMNIST_DIR)/*.c)))
FMNIST := $(BUILD)/$(FMNIST_DIR)/fashion_mnist
test_fashion_mnist_OBJS := $(FMNIST_OBJS)
$(FMNIST): $(BUILD)/$(FMNIST_DIR)/main.o $(FMNIST_OBJS) \
		$(call model_libs,$(fashion_mnist_MODELS)) $(LIBFTPU)
	$(CXX) $< $(FMNIST_OBJS) $(call model_link,$(fashion_mnist_MODELS)) $(LIBFTPU) \
		-o $@ -lz -lpthread $(LDLIBS)
fashion_mnist: $(FMNIST)
# MPI, where pkg-config finds it (Open MPI or MPICH): mpirun -np N runs a
# replica a rank (collective.c); without it the demo is one process.
MPI_PKG := $(firstword $(foreach p,ompi-c mpich,$(if $(shell pkg-config --exists $(p) && echo y),$(p))))
ifneq ($(MPI_PKG),)
$(BUILD)/$(FMNIST_DIR)/collective.o: CFLAGS += $(shell pkg-config --cflags $(MPI_PKG)) -DFTPU_HAVE_MPI
$(FMNIST) $(BUILD)/tests/examples/test_fashion_mnist: LDLIBS += $(shell pkg-config --libs $(MPI_PKG))
endif
# its test runs the binary too (checkpoints, resuming in a new process)
$(BUILD)/tests/examples/test_fashion_mnist: | $(FMNIST)

# The dataset (Debian's dataset-fashion-mnist): deps.sh's demo group.
DEMO_DEPS_STAMP := $(BUILD)/.deps-demo-ok
$(DEMO_DEPS_STAMP): scripts/deps.sh
	@FTPU_DEPS=demo bash scripts/deps.sh
	@mkdir -p $(@D) && touch $@

# make demo: the MLP trained on the simulated device (a full epoch, ~14 minutes);
# DEMO_ARGS passes flags (DEMO_ARGS="--backend ref --epochs 5": the full run).
# TRACE=1 keeps the small traced GEMM of examples/array_demo.c instead.
DEMO_ARGS ?=
ifeq ($(TRACE),1)
demo: $(BUILD)/examples/array_demo
	@mkdir -p $(WAVES)
	$< 32 64 32 $(WAVES)/array_demo.fst
else
demo: $(FMNIST) $(DEMO_DEPS_STAMP)
	$< $(DEMO_ARGS)
endif

# README's quoted program outputs (scripts/docs/outputs.py): hello_gemm's in
# every make test, the demo's (~14 minutes of simulation) in check-full.
docs-outputs: $(BUILD)/examples/hello_gemm
	@python3 scripts/docs/outputs.py check README.md hello_gemm
docs-outputs-full: $(FMNIST) $(DEMO_DEPS_STAMP)
	@python3 scripts/docs/outputs.py check README.md demo
test: docs-outputs
check-full: docs-outputs-full

bench: $(BENCHES)
	@set -e; for b in $(BENCHES); do echo "== $$b"; $$b; echo; done

# make soak: random GEMMs, programs and CONTROL requests against the
# simulated device behind a pty with link faults injected (bench/bench_soak.c);
# fails on a wrong result, an unclean error, a hang or memory growth.
SOAK_SECONDS ?= 1800
SOAK_SEED ?= 1
soak: $(BUILD)/bench/bench_soak
	$< --seconds $(SOAK_SECONDS) --seed $(SOAK_SEED)

# make test compiles (never runs) every benchmark and example too, so that
# none of them rots; plain make builds all of it and runs nothing.
test: $(BENCHES) $(EXAMPLES) $(FMNIST)
all: $(LIBFTPU) $(LIBFTPU_SO) $(FTPU_CLI) $(TESTS) $(BENCHES) $(EXAMPLES) $(FMNIST) firmware

# --- lint and synthesis --------------------------------------------------------
include mk/fuzz.mk
include mk/lint.mk
-include mk/synth.mk
include mk/boards.mk
include mk/formal.mk

clean:
	rm -rf $(BUILD)
distclean: clean
	rm -rf .venv

.PHONY: all deps test check-full bench soak docs-outputs docs-outputs-full clean distclean sim lint synth demo install fashion_mnist \
	spec spec-check
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
