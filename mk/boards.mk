# Boards (boards/<board>/, docs/boards.md): a top and constraints per board,
# Yosys resource estimates for all of them, and the iCE40 bitstream flow.
#
#   make boards                    every board's estimate against its part
#   make bitstream BOARD=icebreaker  Yosys + nextpnr-ice40 + icepack
#   make flash BOARD=icebreaker      openFPGALoader
#   make bitstream BOARD=ulx3s|arty|litefury  writes the place-and-route
#                                  script for the user's nextpnr-ecp5 / Vivado
#
# A board's boards/<board>/board.mk sets <board>_TOP, _SRCS (its own RTL),
# _FAMILY (ice40, ecp5, xc7), _PARAMS (the device's parameters, passed to
# the top), _PART (text), and _CAP: the part's LUT FF DSP BRAM counts in
# the units docs/synth.md's columns use.

# The boards' definitions are read by mk/models/boards.mk (the simulated
# board models need them first).
BOARD ?= icebreaker
BOARD_DIR := $(BUILD)/boards

# The device's RTL under every board top: core, link with its PHYs, the
# control core (the boards pass ControlCore 0 for now: docs/firmware.md).
BOARD_RTL := $(RTL_CORE) $(wildcard rtl/link/*.sv) $(RTL_CPU) rtl/ftpu_top.sv

# Estimates synthesize without flattening: each module once, however many
# times the array instantiates it (minutes instead of an hour for an 8x8
# array). Counts are then an upper bound: no optimization across modules
# (13% more LUTs than flattened for the iCEBreaker's device, measured).
# (synth_xilinx does not flatten unless asked.)
board_estimate_cmd = $($($(1)_FAMILY)_SYNTH_CMD)$(if $(filter xc7,$($(1)_FAMILY)),, -noflatten)
# The primitives board tops instantiate (PLL, clock buffers), per family.
ice40_SYNTH_LIBS := +/ice40/cells_sim.v
ecp5_SYNTH_LIBS := +/ecp5/cells_bb.v
xc7_SYNTH_LIBS := +/xilinx/cells_xtra.v
# The firmware goes into the design as ftpu_fw_rom.svh (ftpu_cpu_mem).
board_env = SYNTH_SRCS="$(BOARD_RTL) $($(1)_SRCS)" SYNTH_INC=rtl/include SYNTH_TOP=$($(1)_TOP) \
	SYNTH_PARAMS="$($(1)_PARAMS)" SYNTH_LIBS="$($($(1)_FAMILY)_SYNTH_LIBS)" \
	SYNTH_VFLAGS="-DFTPU_FW_ROM_SVH -I$(dir $(FW_ROM_SVH))"
$(BOARD_DIR)/%/estimate.stat.json: $$(BOARD_RTL) $$($$*_SRCS) boards/%/board.mk \
		scripts/synth/synth.sh $(FW_ROM_SVH)
	@mkdir -p $(@D)
	@echo "YOSYS  $* ($($*_TOP) on $($*_PART): $($*_PARAMS))"
	@$(call board_env,$*) SYNTH_CMD="$(call board_estimate_cmd,$*)" \
		SYNTH_OUT=$(BOARD_DIR)/$*/estimate bash scripts/synth/synth.sh $(BOARD_DIR)/$*/estimate.log \
		|| { echo "boards: Yosys failed, see $(BOARD_DIR)/$*/estimate.log" >&2; exit 1; }

# The table; fails when a board marked to fit (<board>_FIT = yes) does not.
board_args = $(foreach b,$(1),"$(b)|$($(b)_FAMILY)|$($(b)_PART)|$($(b)_CAP)|$($(b)_FIT)|$($(b)_PARAMS)")
# The table also goes into docs/boards.md (between its "boards-estimate"
# markers), with the Yosys that made it.
boards: $(foreach b,$(BOARDS),$(BOARD_DIR)/$(b)/estimate.stat.json) scripts/boards/check.sh
	@{ echo "From \`make boards\` ($$($(YOSYS) -V | cut -d' ' -f1-2)):"; echo; \
	  BOARD_DIR=$(BOARD_DIR) bash scripts/boards/check.sh $(call board_args,$(BOARDS)); } \
		> $(BOARD_DIR)/estimate.md; rc=$$?; cat $(BOARD_DIR)/estimate.md; \
	 bash scripts/docs/splice.sh docs/boards.md boards-estimate $(BOARD_DIR)/estimate.md || exit 1; \
	 exit $$rc

# --- iCE40: bitstream and flash --------------------------------------------------
$(BOARD_DIR)/%/ftpu.json: $$(BOARD_RTL) $$($$*_SRCS) boards/%/board.mk scripts/synth/synth.sh \
		$(FW_ROM_SVH)
	@mkdir -p $(@D)
	@echo "YOSYS  $* bitstream netlist ($($*_PARAMS))"
	@$(call board_env,$*) SYNTH_CMD="$(ice40_SYNTH_CMD)" \
		SYNTH_OUT=$(BOARD_DIR)/$*/ftpu SYNTH_NETLIST=$@.tmp \
		bash scripts/synth/synth.sh $(BOARD_DIR)/$*/yosys.log \
		|| { echo "boards: Yosys failed, see $(BOARD_DIR)/$*/yosys.log" >&2; exit 1; }
	@mv $@.tmp $@
# No --timing-allow-fail: missing the board's clock fails the build.
$(BOARD_DIR)/%/ftpu.asc: $(BOARD_DIR)/%/ftpu.json boards/%/$$($$*_CONSTRAINTS)
	@echo "PNR    $* ($($*_NEXTPNR) --freq $($*_FREQ))"
	@$($*_NEXTPNR) --freq $($*_FREQ) --seed 1 --json $< --pcf boards/$*/$($*_CONSTRAINTS) \
		--asc $@.tmp --report $(@D)/pnr.report.json > $(@D)/pnr.log 2>&1 \
		|| { grep -E "ERROR|Max frequency|Device utilisation" -A0 $(@D)/pnr.log | tail -20; \
		     echo "boards: nextpnr failed for $*, see $(@D)/pnr.log" >&2; exit 1; }
	@grep -E "Max frequency for clock" $(@D)/pnr.log | tail -2
	@mv $@.tmp $@
$(BOARD_DIR)/%/ftpu.bin: $(BOARD_DIR)/%/ftpu.asc
	$(ICEPACK) $< $@

ifeq ($($(BOARD)_FAMILY),ice40)
bitstream: $(BOARD_DIR)/$(BOARD)/ftpu.bin
	@echo "bitstream: $<"
flash: $(BOARD_DIR)/$(BOARD)/ftpu.bin
	$(OPENFPGALOADER) -b $($(BOARD)_LOADER) $<
else
bitstream flash:
	@echo "$(BOARD): $($(BOARD)_FAMILY) place and route runs with the user's tools:" >&2
	@echo "  $($(BOARD)_PNR_HOWTO)" >&2
	@echo "(docs/boards.md, section $(BOARD))" >&2
	@exit 1
endif

.PRECIOUS: $(BOARD_DIR)/%/estimate.stat.json $(BOARD_DIR)/%/ftpu.json $(BOARD_DIR)/%/ftpu.asc
.PHONY: boards bitstream flash
