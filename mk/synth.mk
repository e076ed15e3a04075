# Synthesis report: Yosys resource counts for each design on each FPGA family,
# and an iCE40UP5K place and route for Fmax. `make synth` writes everything
# under $(BUILD)/synth/ and regenerates docs/synth.md from it.
#
#   make synth                 all designs x all families, P&R, docs/synth.md
#   make synth-<design>        one design (e.g. synth-pe), report on stdout
#   SYNTH_SRCS="a.sv b.sv"     synthesize other sources (default: rtl/core)
#
# A design: $(call synth_design,<name>,<top module>,<Name=Value ...>).
# A family: <family>_SYNTH_CMD, the Yosys synth_* command without -top.
# Results per design and family: $(SYNTH_DIR)/<design>.<family>.{stat.json,stat.txt,log}.
# P&R per design in SYNTH_PNR: $(SYNTH_DIR)/pnr/<design>.{iface.v,wrap.sv,json,log}.

SYNTH_DIR := $(BUILD)/synth
SYNTH_INC ?= rtl/include
# Packages first: a package is read before the files that import it.
SYNTH_SRCS ?= $(filter %_pkg.sv,$(RTL_ALL)) $(filter-out %_pkg.sv,$(RTL_ALL))

define synth_design
SYNTH_DESIGNS += $(1)
$(1)_SYNTH_TOP := $(2)
$(1)_SYNTH_PARAMS := $(3)
endef
SYNTH_DESIGNS :=
$(eval $(call synth_design,pe,ftpu_pe,))
$(eval $(call synth_design,array4x4,ftpu_systolic_array,Rows=4 Cols=4))
# The link layer, with a receive buffer of 2048 words (16 iCE40 BRAMs).
$(eval $(call synth_design,link_rx,ftpu_link_rx,Depth=2048))
$(eval $(call synth_design,link_tx,ftpu_link_tx,))
# The device's units so far: a 4x4 matrix unit at the boards' pipeline
# depth, one activation lane, the control-plane block.
$(eval $(call synth_design,matrix_unit4x4,ftpu_matrix_unit,Rows=4 Cols=4 AddCuts=7 InFlight=8))
$(eval $(call synth_design,activate,ftpu_activate,))
$(eval $(call synth_design,control,ftpu_control,))

SYNTH_FAMILIES := ice40 ecp5 xc7
# (synth_ice40 maps with the timing-driven abc9 by default.)
ice40_SYNTH_CMD := synth_ice40 -device u -dsp
ecp5_SYNTH_CMD := synth_ecp5
# (Gowin: boards only; a board names its family, e.g. -family gw2a.)
gowin_SYNTH_CMD := synth_gowin
# -noiopad: a core module, not a chip top; no IBUF/OBUF on its ports.
xc7_SYNTH_CMD := synth_xilinx -family xc7 -noiopad

# Place and route: iCE40UP5K in the iCEBreaker's package, its 20 MHz target
# (docs/boards.md, iCEBreaker), a fixed seed so the report is reproducible.
SYNTH_PNR ?= pe
SYNTH_SEED ?= 1
SYNTH_FREQ ?= 20
SYNTH_PNR_FLAGS := --up5k --package sg48 --freq $(SYNTH_FREQ) --seed $(SYNTH_SEED) \
	--timing-allow-fail

synth_stats = $(foreach f,$(SYNTH_FAMILIES),$(SYNTH_DIR)/$(1).$(f).stat.json)
SYNTH_STATS := $(foreach d,$(SYNTH_DESIGNS),$(call synth_stats,$(d)))
SYNTH_PNR_LOGS := $(SYNTH_PNR:%=$(SYNTH_DIR)/pnr/%.log)
SYNTH_DEPS := $(SYNTH_SRCS) $(wildcard $(SYNTH_INC)/*.svh) scripts/synth/synth.sh mk/synth.mk

# Environment for scripts/synth/synth.sh; $(1) = design.
synth_env = SYNTH_SRCS="$(strip $(SYNTH_SRCS))" SYNTH_INC="$(SYNTH_INC)" \
	SYNTH_TOP="$($(1)_SYNTH_TOP)" SYNTH_PARAMS="$($(1)_SYNTH_PARAMS)"
# Arguments for scripts/synth/report.sh; $(1) = designs.
synth_report = SYNTH_DIR="$(SYNTH_DIR)" SYNTH_FAMILIES="$(SYNTH_FAMILIES)" \
	SYNTH_PNR="$(filter $(1),$(SYNTH_PNR))" \
	SYNTH_PNR_CMD="$(NEXTPNR_ICE40) $(SYNTH_PNR_FLAGS)" \
	$(foreach f,$(SYNTH_FAMILIES),SYNTH_CMD_$(f)="$($(f)_SYNTH_CMD)") \
	bash scripts/synth/report.sh $(foreach d,$(1),"$(d)|$($(d)_SYNTH_TOP)|$($(d)_SYNTH_PARAMS)")

synth-check-srcs:
	@test -n "$(strip $(SYNTH_SRCS))" || { echo "synth: no RTL (rtl/core/*.sv)" >&2; exit 1; }

# <design>.<family>.stat.json; the stem's basename is the design, its suffix the family.
$(SYNTH_DIR)/%.stat.json: $(SYNTH_DEPS) | synth-check-srcs
	@mkdir -p $(@D)
	@echo "YOSYS  $* ($($(basename $*)_SYNTH_TOP) $($(basename $*)_SYNTH_PARAMS))"
	@$(call synth_env,$(basename $*)) SYNTH_CMD="$($(patsubst .%,%,$(suffix $*))_SYNTH_CMD)" \
		SYNTH_OUT=$(SYNTH_DIR)/$* bash scripts/synth/synth.sh $(SYNTH_DIR)/$*.log \
		|| { echo "synth: Yosys failed, see $(SYNTH_DIR)/$*.log" >&2; exit 1; }

# P&R: the design's ports, a pin-saving wrapper around it, its iCE40 netlist, nextpnr.
$(SYNTH_DIR)/pnr/%.iface.v: $(SYNTH_DEPS) | synth-check-srcs
	@mkdir -p $(@D)
	@$(call synth_env,$*) SYNTH_IFACE=$@ bash scripts/synth/synth.sh $(@:.v=.log) \
		|| { echo "synth: Yosys failed, see $(@:.v=.log)" >&2; exit 1; }

$(SYNTH_DIR)/pnr/%.wrap.sv: $(SYNTH_DIR)/pnr/%.iface.v scripts/synth/wrap.sh
	@echo "WRAP   $* (ftpu_synth_wrap around $($*_SYNTH_TOP))"
	@bash scripts/synth/wrap.sh $($*_SYNTH_TOP) "$($*_SYNTH_PARAMS)" $< > $@.tmp && mv $@.tmp $@

$(SYNTH_DIR)/pnr/%.json: $(SYNTH_DIR)/pnr/%.wrap.sv $(SYNTH_DEPS)
	@echo "YOSYS  $* (iCE40 netlist of ftpu_synth_wrap around $($*_SYNTH_TOP))"
	@SYNTH_SRCS="$(strip $(SYNTH_SRCS)) $<" SYNTH_INC="$(SYNTH_INC)" SYNTH_TOP=ftpu_synth_wrap \
		SYNTH_CMD="$(ice40_SYNTH_CMD)" SYNTH_OUT=$(SYNTH_DIR)/pnr/$* SYNTH_NETLIST=$@.tmp \
		bash scripts/synth/synth.sh $(SYNTH_DIR)/pnr/$*.yosys.log \
		|| { echo "synth: Yosys failed, see $(SYNTH_DIR)/pnr/$*.yosys.log" >&2; exit 1; }
	@mv $@.tmp $@

$(SYNTH_DIR)/pnr/%.log: $(SYNTH_DIR)/pnr/%.json
	@echo "PNR    $* ($(NEXTPNR_ICE40) $(SYNTH_PNR_FLAGS))"
	@$(NEXTPNR_ICE40) $(SYNTH_PNR_FLAGS) --json $< --report $(@:.log=.report.json) \
		> $@.tmp 2>&1 || { echo "synth: nextpnr failed, see $@.tmp" >&2; exit 1; }
	@mv $@.tmp $@

docs/synth.md: $(SYNTH_STATS) $(SYNTH_PNR_LOGS) scripts/synth/report.sh
	@$(call synth_report,$(SYNTH_DESIGNS)) > $@.tmp && mv $@.tmp $@
	@echo "wrote $@"

synth: docs/synth.md

# Needs .SECONDEXPANSION, which the main Makefile turns on before including us.
synth-%: $$(call synth_stats,$$*) $$(filter $(SYNTH_DIR)/pnr/$$*.log,$$(SYNTH_PNR_LOGS))
	@$(call synth_report,$*)

.PRECIOUS: $(SYNTH_DIR)/%.stat.json $(SYNTH_DIR)/pnr/%.iface.v $(SYNTH_DIR)/pnr/%.wrap.sv \
	$(SYNTH_DIR)/pnr/%.json $(SYNTH_DIR)/pnr/%.log
.PHONY: synth synth-check-srcs
