# Boards (boards/<board>/, docs/boards.md): a top and constraints per board,
# Yosys resource estimates for all of them, and the open bitstream flows.
#
#   make boards                      every board's estimate against its part
#   make bitstream BOARD=icebreaker  Yosys + nextpnr-ice40 + icepack
#   make bitstream BOARD=ulx3s       Yosys + nextpnr-ecp5 + ecppack
#   make bitstream BOARD=tangnano20k Yosys + nextpnr-himbaechel (Gowin) + gowin_pack
#   make flash BOARD=...             openFPGALoader
#   make bitstream BOARD=arty|litefury  prints the Vivado command
#
# A board's boards/<board>/board.mk sets <board>_TOP, _SRCS (its own RTL),
# _FAMILY (ice40, ecp5, gowin, xc7), _PARAMS (the device's parameters, passed to
# the top), _PART (text), and _CAP: the part's LUT FF DSP BRAM counts in
# the units docs/synth.md's columns use. A folder may define more boards
# than its own name (the ULX3S's sizes): those set _DIR (their folder), and
# _DESIGN when they are another board's design on another part (its
# netlist and estimate are reused).

# The boards' definitions are read by mk/models/boards.mk (the simulated
# board models need them first).
BOARD ?= icebreaker
BOARD_DIR := $(BUILD)/boards
board_dir = $(or $($(1)_DIR),boards/$(1))
board_design = $(or $($(1)_DESIGN),$(1))

# The device's RTL under every board top: core, link with its PHYs, the
# control core (the boards pass ControlCore 0 for now: docs/firmware.md),
# the soft device (the iCEBreaker's).
BOARD_RTL := $(RTL_CORE) $(wildcard rtl/link/*.sv) $(RTL_CPU) rtl/ftpu_top.sv $(RTL_SOC)

# Estimates synthesize without flattening: each module once, however many
# times the array instantiates it (minutes instead of an hour for an 8x8
# array). Counts are then an upper bound: no optimization across modules
# (13% more LUTs than flattened for the iCEBreaker's device, measured).
# (synth_xilinx does not flatten unless asked.)
# A board with <board>_ESTIMATE_FLAT = yes is estimated flattened, as its
# bitstream is synthesized (a small device, where the bound is too loose).
board_estimate_cmd = $(call board_synth_cmd,$(1))$(if $(filter xc7,$($(1)_FAMILY))$($(1)_ESTIMATE_FLAT),, -noflatten)
# The primitives board tops instantiate (PLL, clock buffers), per family.
ice40_SYNTH_LIBS := +/ice40/cells_sim.v
ecp5_SYNTH_LIBS := +/ecp5/cells_bb.v
gowin_SYNTH_LIBS :=
xc7_SYNTH_LIBS := +/xilinx/cells_xtra.v
# The firmware goes into the design as ftpu_fw_rom.svh (ftpu_cpu_mem).
board_env = SYNTH_SRCS="$(BOARD_RTL) $($(1)_SRCS)" SYNTH_INC=rtl/include SYNTH_TOP=$($(1)_TOP) \
	SYNTH_PARAMS="$($(1)_PARAMS)" SYNTH_LIBS="$($($(1)_FAMILY)_SYNTH_LIBS)" \
	SYNTH_VFLAGS="-DFTPU_FW_ROM_SVH -I$(dir $(call board_fw_svh,$(1)))"
$(BOARD_DIR)/%/estimate.stat.json: $$(BOARD_RTL) $$($$*_SRCS) $$(call board_dir,$$*)/board.mk \
		scripts/synth/synth.sh $$(call board_fw_svh,$$*)
	@mkdir -p $(@D)
	@echo "YOSYS  $* ($($*_TOP) on $($*_PART): $($*_PARAMS))"
	@$(call board_env,$*) SYNTH_CMD="$(call board_estimate_cmd,$*)" \
		SYNTH_OUT=$(BOARD_DIR)/$*/estimate bash scripts/synth/synth.sh $(BOARD_DIR)/$*/estimate.log \
		|| { echo "boards: Yosys failed, see $(BOARD_DIR)/$*/estimate.log" >&2; exit 1; }

# The table; fails when a board marked to fit (<board>_FIT = yes) does not.
board_args = $(foreach b,$(1),"$(b)|$($(b)_FAMILY)|$($(b)_PART)|$($(b)_CAP)|$($(b)_FIT)|$($(b)_PARAMS)|$(call board_design,$(b))")
# The table also goes into docs/boards.md (between its "boards-estimate"
# markers), with the Yosys that made it.
boards: $(sort $(foreach b,$(BOARDS),$(BOARD_DIR)/$(call board_design,$(b))/estimate.stat.json)) \
		scripts/boards/check.sh
	@{ echo "From \`make boards\` ($$($(YOSYS) -V | cut -d' ' -f1-2)):"; echo; \
	  BOARD_DIR=$(BOARD_DIR) bash scripts/boards/check.sh $(call board_args,$(BOARDS)); } \
		> $(BOARD_DIR)/estimate.md; rc=$$?; cat $(BOARD_DIR)/estimate.md; \
	 bash scripts/docs/splice.sh docs/boards.md boards-estimate $(BOARD_DIR)/estimate.md || exit 1; \
	 exit $$rc

# --- bitstreams: Yosys, nextpnr, the family's packer; and flash ----------------
# A board that has a flow sets <board>_NEXTPNR (the nextpnr command with its
# device flags), _CONSTRAINTS (its pin file in boards/<board>/), _FREQ (MHz,
# checked by nextpnr), _LOADER (openFPGALoader's -b) and, where the family
# needs one, _PACK (the packer with its device flag) and _SYNTH (the
# synth_* command, when the family's default does not fit the part).
board_synth_cmd = $(or $($(1)_SYNTH),$($($(1)_FAMILY)_SYNTH_CMD))
# Per family: how nextpnr takes the pins and writes its result, how that is
# packed ($(1) board, $(2) nextpnr's output, $(3) the bitstream), and the
# bitstream's file name. Gowin's pins come in through _NEXTPNR (--vopt cst).
ice40_PNR_PINS = --pcf $(call board_dir,$(1))/$($(1)_CONSTRAINTS)
ecp5_PNR_PINS = --lpf $(call board_dir,$(1))/$($(1)_CONSTRAINTS)
gowin_PNR_PINS =
ice40_PNR_IO = $(call ice40_PNR_PINS,$(1)) --asc $(2)
ecp5_PNR_IO = $(call ecp5_PNR_PINS,$(1)) --textcfg $(2)
gowin_PNR_IO = --write $(2)
ice40_PACK_CMD = $(ICEPACK) $(2) $(3)
ecp5_PACK_CMD = $(ECPPACK) --compress $(2) $(3)
gowin_PACK_CMD = $($(1)_PACK) -o $(3) $(2)
ice40_BITFILE := ftpu.bin
ecp5_BITFILE := ftpu.bit
gowin_BITFILE := ftpu.fs
board_bitfile = $(BOARD_DIR)/$(1)/$($($(1)_FAMILY)_BITFILE)

# The netlist of board $(1) as $(2).json (with $(2).stat.*), Yosys' log
# $(3); $(4), when given, is a module left out as a black box (array-share).
board_netlist = $(call board_env,$(1)) SYNTH_CMD="$(call board_synth_cmd,$(1))" \
	$(if $(4),SYNTH_BLACKBOX=$(4)) SYNTH_OUT=$(2) SYNTH_NETLIST=$(2).json.tmp \
	bash scripts/synth/synth.sh $(3) || { echo "boards: Yosys failed, see $(3)" >&2; exit 1; }; \
	mv $(2).json.tmp $(2).json
$(BOARD_DIR)/%/ftpu.json: $$(BOARD_RTL) $$($$*_SRCS) $$(call board_dir,$$*)/board.mk scripts/synth/synth.sh \
		$$(call board_fw_svh,$$*)
	@mkdir -p $(@D)
	@echo "YOSYS  $* bitstream netlist ($(call board_synth_cmd,$*): $($*_PARAMS))"
	@$(call board_netlist,$*,$(BOARD_DIR)/$*/ftpu,$(BOARD_DIR)/$*/yosys.log)
# No --timing-allow-fail: missing the board's clock fails the build (the
# log's last lines say by how much). The report (--report) is JSON:
# utilisation per cell type and Fmax per clock.
$(BOARD_DIR)/%/ftpu.pnr: $(BOARD_DIR)/$$(call board_design,$$*)/ftpu.json \
		$$(call board_dir,$$*)/$$($$*_CONSTRAINTS)
	@echo "PNR    $* ($(notdir $(firstword $($*_NEXTPNR))) --freq $($*_FREQ))"
	@mkdir -p $(@D)
	@start=$$(date +%s); \
	 $($*_NEXTPNR) --freq $($*_FREQ) --seed 1 --json $< $(call $($*_FAMILY)_PNR_IO,$*,$@.tmp) \
		--report $(@D)/pnr.report.json > $(@D)/pnr.log 2>&1 \
		|| { grep -E "ERROR|Max frequency|utilisation" -A0 $(@D)/pnr.log | tail -20; \
		     echo "boards: nextpnr failed for $*, see $(@D)/pnr.log" >&2; exit 1; }; \
	 echo $$(( $$(date +%s) - start )) > $(@D)/pnr.seconds
	@grep -E "Max frequency for clock" $(@D)/pnr.log | tail -2
	@mv $@.tmp $@
$(BOARD_DIR)/%/ftpu.bin $(BOARD_DIR)/%/ftpu.bit $(BOARD_DIR)/%/ftpu.fs: $(BOARD_DIR)/%/ftpu.pnr
	$(call $($*_FAMILY)_PACK_CMD,$*,$<,$@.tmp)
	@mv $@.tmp $@

# The boards with an open flow, and the table of their nextpnr reports in
# docs/boards.md (between its "boards-pnr" markers), with the tools' versions;
# a board not built in this build/ keeps the row an earlier run made.
PNR_BOARDS := $(foreach b,$(BOARDS),$(if $($(b)_NEXTPNR),$(b)))
pnr_args = $(foreach b,$(PNR_BOARDS),"$(b)|$($(b)_FAMILY)|$($(b)_PART)|$($(b)_PARAMS)|$($(b)_FREQ)")
boards-pnr-table: scripts/boards/pnr_table.py
	@{ echo "From \`make bitstream\` ($$($(YOSYS) -V | cut -d' ' -f1-2), nextpnr" \
		"$$($(NEXTPNR_ICE40) --version 2>&1 | grep -o '[0-9]*\.[0-9.]*' | head -1)):"; echo; \
	  python3 scripts/boards/pnr_table.py --keep docs/boards.md $(BOARD_DIR) $(call pnr_args); } \
		> $(BOARD_DIR)/pnr.md
	@bash scripts/docs/splice.sh docs/boards.md boards-pnr $(BOARD_DIR)/pnr.md
# Every board's bitstream (long: minutes to an hour each on 2 cores).
bitstreams:
	@rc=0; for b in $(PNR_BOARDS); do $(MAKE) --no-print-directory bitstream BOARD=$$b || rc=1; done; \
	 $(MAKE) --no-print-directory boards-pnr-table; exit $$rc

# The array's share of a board's device, in context (docs/boards.md, "The
# array in context"): the board's netlist and the same design with
# ftpu_systolic_array emptied into a black box, both packed by nextpnr
# (--pack-only: the cells placement would place, in minutes where routing
# takes up to an hour); the difference over the N x N PEs is one PE as the
# board has it, the second the device outside the array.
#   make array-share BOARD=<b>   one board; array-shares: all of them
$(BOARD_DIR)/%/noarray.json: $$(BOARD_RTL) $$($$*_SRCS) $$(call board_dir,$$*)/board.mk \
		scripts/synth/synth.sh $(FW_ROM_SVH)
	@mkdir -p $(@D)
	@echo "YOSYS  $* without its array ($(call board_synth_cmd,$*))"
	@$(call board_netlist,$*,$(BOARD_DIR)/$*/noarray,$(BOARD_DIR)/$*/noarray.log,ftpu_systolic_array)
$(BOARD_DIR)/%.pack.json: $(BOARD_DIR)/%.json
	@b=$(notdir $(*D)); echo "PACK   $(*F) of $$b"; \
	 $($(notdir $(*D))_NEXTPNR) --pack-only --json $< \
		$(call $($(notdir $(*D))_FAMILY)_PNR_PINS,$(notdir $(*D))) \
		--report $@.tmp > $(BOARD_DIR)/$*.pack.log 2>&1 \
		|| { echo "boards: nextpnr could not pack, see $(BOARD_DIR)/$*.pack.log" >&2; exit 1; }
	@mv $@.tmp $@
SHARE_BOARDS := $(foreach b,$(PNR_BOARDS),$(if $($(b)_DESIGN),,$(b)))
# <board>_PROFILE names a device the parameters do not tell (the soft one).
share_args = $(foreach b,$(SHARE_BOARDS),"$(b)|$($(b)_FAMILY)|$($(b)_PARAMS)|$($(b)_PROFILE)")
share_table = python3 scripts/boards/share_table.py --keep docs/boards.md $(BOARD_DIR) \
	$(call share_args) > $(BOARD_DIR)/share.md && \
	bash scripts/docs/splice.sh docs/boards.md boards-share $(BOARD_DIR)/share.md
array-shares: $(foreach b,$(SHARE_BOARDS),$(BOARD_DIR)/$(b)/ftpu.pack.json $(BOARD_DIR)/$(b)/noarray.pack.json)
	@$(share_table)
	@cat $(BOARD_DIR)/share.md

# Where a board's cells go, module by module: the same with each module a
# black box in turn (scripts/boards/breakdown.sh; a Yosys run and a pack
# each, about 15 minutes for the iCEBreaker). The table goes into
# docs/boards.md where it has "breakdown-<board>" markers.
#   make breakdown BOARD=<b>   (the rule is with bitstream's, below)
BREAKDOWN_MODULES := ftpu_systolic_array ftpu_matrix_unit ftpu_activate_unit ftpu_output_unit \
	ftpu_core_decoder ftpu_core_check ftpu_core_memories ftpu_core_hazards ftpu_core_events \
	ftpu_control ftpu_cpu ftpu_link_rx ftpu_link_tx ftpu_link_mux ftpu_link_errors ftpu_phy_uart
# A board with another device names its own (<board>_BREAKDOWN: the soft device's).
board_breakdown = $(or $($(1)_BREAKDOWN),$(BREAKDOWN_MODULES))

# make test builds whole bitstreams with their timing reports: the
# iCEBreaker's soft device and the quickest board of the hardware device,
# the ULX3S 25F's 2x2 (docs/boards.md has their times). It fails when
# nextpnr misses a board's clock.
TEST_BITSTREAMS := icebreaker ulx3s_25f
test-bitstream: $(foreach b,$(TEST_BITSTREAMS),$(call board_bitfile,$(b)))
	@$(foreach b,$(TEST_BITSTREAMS),echo "bitstream: $(call board_bitfile,$(b)) ($$(grep -E \
		'Max frequency for clock' $(BOARD_DIR)/$(b)/pnr.log | tail -1 | sed 's/^Info: *//'))";)
test: test-bitstream

# The targets of one board (BOARD) that need its open flow
ifneq ($($(BOARD)_NEXTPNR),)
array-share: $(BOARD_DIR)/$(BOARD)/ftpu.pack.json $(BOARD_DIR)/$(BOARD)/noarray.pack.json
	@$(share_table)
	@grep -E '^\| (board|$(BOARD)) ' $(BOARD_DIR)/share.md
breakdown: $(BOARD_DIR)/$(BOARD)/ftpu.pack.json scripts/boards/breakdown.sh scripts/boards/share_table.py
	@$(call board_env,$(BOARD)) SYNTH_CMD="$(call board_synth_cmd,$(BOARD))" \
	 BREAKDOWN_DIR=$(BOARD_DIR)/$(BOARD) BREAKDOWN_FAMILY=$($(BOARD)_FAMILY) \
	 BREAKDOWN_PACK="$($(BOARD)_NEXTPNR) $(call $($(BOARD)_FAMILY)_PNR_PINS,$(BOARD))" \
	 bash scripts/boards/breakdown.sh $(call board_breakdown,$(BOARD))
	@cat $(BOARD_DIR)/$(BOARD)/breakdown.md
	@if grep -q '^<!-- begin breakdown-$(BOARD):' docs/boards.md; then \
	   bash scripts/docs/splice.sh docs/boards.md breakdown-$(BOARD) $(BOARD_DIR)/$(BOARD)/breakdown.md; fi
bitstream: $(call board_bitfile,$(BOARD))
	@echo "bitstream: $< ($$(cat $(BOARD_DIR)/$(BOARD)/pnr.seconds) s of place and route)"
	@$(MAKE) --no-print-directory boards-pnr-table
flash: $(call board_bitfile,$(BOARD))
	$(OPENFPGALOADER) -b $($(BOARD)_LOADER) $<
else
bitstream flash array-share breakdown:
	@echo "$(BOARD): $($(BOARD)_FAMILY) place and route runs with the vendor's tools:" >&2
	@echo "  $($(BOARD)_PNR_HOWTO)" >&2
	@echo "(docs/boards.md, section $(BOARD))" >&2
	@exit 1
endif

.PRECIOUS: $(BOARD_DIR)/%/estimate.stat.json $(BOARD_DIR)/%/ftpu.json $(BOARD_DIR)/%/ftpu.pnr \
	$(BOARD_DIR)/%/noarray.json $(BOARD_DIR)/%.pack.json
.PHONY: boards bitstream bitstreams boards-pnr-table flash test-bitstream \
	array-share array-shares breakdown
