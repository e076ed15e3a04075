# make lint: verilator -Wall on every top (waivers in rtl/lint.vlt, each with
# its reason) and a Yosys read of every RTL file, as synthesis will see them.
LINT_TOPS := ftpu_systolic_array ftpu_pe
LINT_STAMP := $(BUILD)/lint/ok

$(LINT_STAMP): $(RTL_CORE) sim/tops/ftpu_lanes.sv $(wildcard rtl/*.vlt) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@set -e; for top in $(LINT_TOPS); do \
		echo "lint: verilator -Wall $$top"; \
		$(VERILATOR) --lint-only -Wall -Irtl/include -Irtl/core $(wildcard rtl/*.vlt) \
			--top-module $$top $(RTL_CORE); \
	done
	@for u in 0 1 2; do \
		$(VERILATOR) --lint-only -Wall -Irtl/core --top-module ftpu_lanes -GUnit=$$u \
			$(RTL_CORE) sim/tops/ftpu_lanes.sv || exit 1; \
	done
	@echo "lint: yosys read_verilog -sv of rtl/core"
	@yosys -q -p "read_verilog -sv -Irtl/include $(RTL_CORE); hierarchy -check -top ftpu_systolic_array; proc" \
		> $(BUILD)/lint/yosys.log 2>&1 || { cat $(BUILD)/lint/yosys.log; exit 1; }
	@touch $@

lint: $(LINT_STAMP)
