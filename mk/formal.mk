# make formal: the SymbiYosys proofs in formal/ (docs/phy.md, docs/protocol.md,
# "Formal proofs"). One .sby and one property file per proof; each runs in
# build/formal/<proof>/ and fails make when its proof fails (counterexample
# traces in build/formal/<proof>/engine_0/).
#
# FORMAL_FAST run in make test (each well under 3 minutes on one core);
# FORMAL_SLOW only in make formal and make check-full.
#
# The solver: z3 from scripts/tools.pin (Z3, build/tools.mk), put first on
# PATH for yosys-smtbmc, which calls it by name. Debian 12's z3 4.8.12 hangs
# parsing the models of these proofs.
# <proof>_TASK: the .sby task to run, for a file with several (link_rx's
# bmc task, the CRC properties, is too slow for make: docs/protocol.md).
FORMAL_FAST := async_fifo link_rx
FORMAL_SLOW :=
link_rx_TASK := prove
FORMAL_DIR := $(BUILD)/formal
FORMAL_RTL := $(RTL_PKG) $(RTL_LINK) rtl/include/ftpu_assert.svh
Z3 ?= z3
formal_sby = PATH="$(dir $(Z3)):$$PATH" nice -n 19 $(SBY) --yosys $(YOSYS) \
	--smtbmc $(YOSYS_SMTBMC) --witness $(YOSYS_WITNESS)

# A proof's PASS stamp: sby -f (re)starts the work directory; sby's exit
# status fails the rule on a counterexample or an error.
$(FORMAL_DIR)/%/PASS: formal/%.sby formal/%.svh $(FORMAL_RTL)
	@mkdir -p $(FORMAL_DIR)
	@echo "formal: $* (sby, log in $(FORMAL_DIR)/$*/logfile.txt)"
	@start=$$(date +%s); \
	$(formal_sby) -f -d $(FORMAL_DIR)/$* $< $($*_TASK) > $(FORMAL_DIR)/$*.log 2>&1 || \
		{ grep -E 'failed|Assert|ERROR|summary' $(FORMAL_DIR)/$*.log | tail -20; exit 1; }; \
	echo "formal: $* passed in $$(( $$(date +%s) - start )) s"; touch $@

formal-fast: $(FORMAL_FAST:%=$(FORMAL_DIR)/%/PASS)
formal: formal-fast $(FORMAL_SLOW:%=$(FORMAL_DIR)/%/PASS)
.PHONY: formal formal-fast
