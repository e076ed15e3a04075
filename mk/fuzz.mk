# ---- fuzzing (tests/fuzz/, docs/firmware.md and docs/libftpu.md, "Fuzzing") ----
#   make fuzz                 every target below for FUZZ_SECONDS each (60),
#                             or FUZZ_RUNS=n inputs each; a table at the end
#   make fuzz-<target>        one of them (make fuzz-control, make fuzz-idx, ...)
#   make fuzz-seeds           rewrite the committed seeds (tests/fuzz/corpus/)
#
# Each target is tests/fuzz/fuzz_<target>.c (LLVMFuzzerTestOneInput and a
# checker fuzz_<target>_one) built with clang's libFuzzer, ASan and UBSan.
# The library and the demo's IDX reader are compiled again with coverage
# and the sanitizers ($(FUZZ_DIR)/obj/); a target links only what it calls
# from them (a static archive), the firmware targets include the firmware's
# sources. The corpus grows in $(FUZZ_DIR)/<target>/ (not committed),
# seeded from tests/fuzz/corpus/<target>/; a crash's input is written to
# $(FUZZ_DIR)/<target>-crash-*. Every committed seed and regression input
# (tests/fuzz/crashes/<target>/) is replayed by make test:
# test_fuzz_replay (link_rx, program_file, idx, uri) and test_firmware
# (control, fw_image).
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := control fw_image link_rx program_file idx uri
FUZZ_CC := clang
FUZZ_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -ffp-contract=off -fno-fast-math \
	-D_GNU_SOURCE $(LIBUSB_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
# Each run (scripts/run-fuzz.sh): the corpus directories, the budget, a
# fixed seed, the largest input (fuzz_max_len_<target>, else 512 bytes),
# and a malloc limit that reports an allocation far beyond what an input
# of that size can justify.
fuzz_max_len_fw_image := 2048
fuzz_max_len_uri := 256
FUZZ_FLAGS = $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS)) -seed=1 \
	-malloc_limit_mb=512
fuzz_spec = $(foreach t,$(1),$(t)=$(or $(fuzz_max_len_$(t)),512))

# clang's libFuzzer and sanitizer runtimes (deps.sh, group fuzz).
FUZZ_DEPS_STAMP := $(BUILD)/.deps-fuzz-ok
$(FUZZ_DEPS_STAMP): scripts/deps.sh
	@FTPU_DEPS=fuzz bash scripts/deps.sh
	@mkdir -p $(@D) && touch $@

FUZZ_LIB := $(FUZZ_DIR)/libftpu_fuzz.a
FUZZ_LIB_SRCS := $(LIB_SRCS) examples/fashion_mnist/idx.c examples/fashion_mnist/fail.c
$(FUZZ_DIR)/obj/%.o: %.c | $(FUZZ_DEPS_STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(call layer_inc,$<) -MMD -MP \
		-c $< -o $@
$(FUZZ_LIB): $(FUZZ_LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
$(FUZZ_BINS): $(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) | $(FUZZ_DEPS_STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(INC_tests/fuzz) -MMD -MP -MF $@.d \
		$< $(FUZZ_LIB) -o $@ -lz -lusb-1.0 -lpthread -lm

# A RESET whose device stays busy polls STATE FW_RESET_POLLS times before
# its timeout fault: 100000 polls made a quarter of the control target's
# inputs take milliseconds (859 inputs/s); 64 keeps every path (the fake
# device's busy counts are 0, 3, 50 and forever).
$(FUZZ_DIR)/fuzz_control: FUZZ_CFLAGS += -DFW_RESET_POLLS=64u

FUZZ_RUN_GOALS := $(FUZZ_TARGETS:%=fuzz-%)
$(FUZZ_RUN_GOALS): fuzz-%: $(FUZZ_DIR)/fuzz_%
	@bash scripts/run-fuzz.sh $(FUZZ_DIR) "$(FUZZ_FLAGS)" $(call fuzz_spec,$*)
fuzz: $(FUZZ_BINS)
	@bash scripts/run-fuzz.sh $(FUZZ_DIR) "$(FUZZ_FLAGS)" $(call fuzz_spec,$(FUZZ_TARGETS))

# The seeds: small valid and malformed inputs, made by the library's own
# encoders (tests/fuzz/make_seeds.c); rerun after a format change and
# commit tests/fuzz/corpus/.
FUZZ_SEEDS := $(BUILD)/tests/fuzz/make_seeds
$(FUZZ_SEEDS): $(BUILD)/tests/fuzz/make_seeds.o $(LIBFTPU)
	$(CC) $(CFLAGS) $^ -o $@ -lz $(LDLIBS)
fuzz-seeds: $(FUZZ_SEEDS)
	$(FUZZ_SEEDS) tests/fuzz/corpus

.PHONY: fuzz fuzz-seeds $(FUZZ_RUN_GOALS)
