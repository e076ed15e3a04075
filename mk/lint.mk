# make lint: verilator -Wall on every top (waivers in rtl/lint.vlt, each with
# its reason) and a Yosys read of every RTL file, as synthesis will see them.
RTL_LINK := $(wildcard rtl/link/*.sv)
RTL_TOP := rtl/ftpu_top.sv
RTL_ALL := $(RTL_CORE) $(RTL_LINK) $(RTL_CPU) $(RTL_SOC) $(RTL_TOP)
# top module : sources it needs
LINT_TOPS := ftpu_systolic_array:core ftpu_pe:core ftpu_matrix_unit:core ftpu_activate:core \
	ftpu_f32_to_bf16:core ftpu_link_rx:link ftpu_link_tx:link ftpu_control:core \
	ftpu_activate_unit:core ftpu_output_unit:core ftpu_core:core ftpu_link_mux:link \
	ftpu_link_errors:link ftpu_top:all ftpu_phy_uart:link ftpu_phy_ft245:link \
	ftpu_phy_axis:link ftpu_icebreaker:boards ftpu_ulx3s:boards ftpu_arty:boards \
	ftpu_tangnano20k:boards ftpu_icebreaker_tb:boards ftpu_tangnano20k_tb:boards ftpu_ulx3s_tb:boards ftpu_rv32i:cpu ftpu_cpu:cpu ftpu_cpu_tb:cputb \
	ftpu_soc:all
LINT_STAMP := $(BUILD)/lint/ok
# The UART boards' tops and the simulated iCEBreaker (the LiteFury top needs
# Xilinx primitives and the XDMA IP: Yosys reads it in make boards).
LINT_BOARDS := $(sort $(BOARD_COMMON) $(icebreaker_SRCS) $(ulx3s_SRCS) $(arty_SRCS) \
	$(tangnano20k_SRCS)) \
	$(sort $(foreach b,$(SIM_BOARDS),sim/tops/$($(b)_TOP)_tb.sv))
lint_srcs = $(if $(filter core,$(1)),$(RTL_CORE),$(if $(filter link,$(1)),$(RTL_PKG) $(RTL_LINK),\
	$(if $(filter cpu,$(1)),$(RTL_CPU),$(if $(filter cputb,$(1)),$(RTL_CPU) sim/tops/ftpu_cpu_tb.sv,\
	$(if $(filter boards,$(1)),$(RTL_ALL) $(LINT_BOARDS),$(RTL_ALL))))))

$(LINT_STAMP): $(RTL_ALL) $(RTL_PKG) $(LINT_BOARDS) $(wildcard sim/tops/*.sv) $(wildcard rtl/*.vlt)
	@mkdir -p $(@D)
	@set -e; $(foreach t,$(LINT_TOPS), \
		echo "lint: verilator -Wall $(word 1,$(subst :, ,$(t)))"; \
		$(VERILATOR) --lint-only -Wall -Irtl/include $(wildcard rtl/*.vlt) \
			--top-module $(word 1,$(subst :, ,$(t))) \
			$(call lint_srcs,$(word 2,$(subst :, ,$(t))));)
	@echo "lint: verilator -Wall on the test tops in sim/tops"
	@set -e; for u in 0 1 2 3 4 5; do \
		$(VERILATOR) --lint-only -Wall -Irtl/include $(wildcard rtl/*.vlt) --top-module ftpu_lanes -GUnit=$$u \
			$(RTL_CORE) sim/tops/ftpu_lanes.sv; \
	done; \
	$(VERILATOR) --lint-only -Wall -Irtl/include $(wildcard rtl/*.vlt) --top-module ftpu_link_loop \
		$(RTL_PKG) $(RTL_LINK) sim/tops/ftpu_link_loop.sv; \
	$(VERILATOR) --lint-only -Wall -Irtl/include $(wildcard rtl/*.vlt) --top-module ftpu_matrix_unit_tb $(RTL_CORE) \
		sim/tops/ftpu_matrix_unit_tb.sv
	@echo "lint: yosys read_verilog -sv of rtl/"
	@$(YOSYS) -q -p "read_verilog -sv -Irtl/include $(RTL_ALL); \
		hierarchy -check -top ftpu_systolic_array; proc; \
		design -reset; read_verilog -sv -Irtl/include $(RTL_CORE); hierarchy -check -top ftpu_matrix_unit; proc; \
		design -reset; read_verilog -sv -Irtl/include $(RTL_CORE); hierarchy -check -top ftpu_activate; proc; \
		design -reset; read_verilog -sv -Irtl/include $(RTL_CORE); hierarchy -check -top ftpu_control; proc; \
		design -reset; read_verilog -sv -Irtl/include $(RTL_PKG) $(RTL_LINK); hierarchy -check -top ftpu_link_rx; proc; \
		design -reset; read_verilog -sv -Irtl/include $(RTL_PKG) $(RTL_LINK); hierarchy -check -top ftpu_link_tx; proc; \
		design -reset; read_verilog -sv -Irtl/include $(RTL_CPU); hierarchy -check -top ftpu_cpu; proc; \
		design -reset; read_verilog -sv -Irtl/include $(RTL_ALL); \
		hierarchy -check -top ftpu_top -chparam UbVectors 64 -chparam WmRows 64 \
			-chparam AccVectors 64 -chparam IqWords 256; proc" \
		> $(BUILD)/lint/yosys.log 2>&1 || { cat $(BUILD)/lint/yosys.log; exit 1; }
	@touch $@

lint: $(LINT_STAMP)
