# Tang Nano 20K: Gowin GW2AR-LV18QN88C8/I7 (GW2A-18C), 27 MHz oscillator,
# UART over the on-board BL616. The device runs at the oscillator's 27 MHz.
tangnano20k_TOP := ftpu_tangnano20k
tangnano20k_SRCS := boards/tangnano20k/ftpu_tangnano20k.sv $(BOARD_COMMON)
tangnano20k_FAMILY := gowin
tangnano20k_PART := GW2AR-18C
# LUT FF DSP BRAM: 20736 LUT4, 15552 flip-flops, 48 18x18 multipliers,
# 46 18-kbit BSRAM.
tangnano20k_CAP := 20736 15552 48 46
tangnano20k_FIT := yes
# Estimated flattened (~1.5 min for the 2x2 device): kept hierarchical, the
# count is an upper bound past the part (20,902 LUT4 + ALU, 101%), while
# the placed design uses 77% (docs/boards.md).
tangnano20k_ESTIMATE_FLAT := yes
# The device's parameters: spec/ftpu.toml [device.tangnano20k] (mk/spec.mk).
tangnano20k_PARAMS := $(SPEC_tangnano20k_PARAMS)
tangnano20k_CONSTRAINTS := tangnano20k.cst
tangnano20k_NEXTPNR = $(NEXTPNR_GOWIN) --device GW2AR-LV18QN88C8/I7 --vopt family=GW2A-18C \
	--vopt cst=boards/tangnano20k/tangnano20k.cst
tangnano20k_PACK = $(GOWIN_PACK) -d GW2A-18C
tangnano20k_FREQ := 27
tangnano20k_LOADER := tangnano20k
tangnano20k_SYNTH := synth_gowin -family gw2a
