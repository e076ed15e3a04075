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
# Estimated flattened (~2 min): kept hierarchical, each module mapped on its
# own, the count is an upper bound well past what places (docs/boards.md).
tangnano20k_ESTIMATE_FLAT := yes
# The device's parameters: spec/ftpu.toml [device.tangnano20k] (mk/spec.mk).
tangnano20k_PARAMS := $(SPEC_tangnano20k_PARAMS)
tangnano20k_CONSTRAINTS := tangnano20k.cst
tangnano20k_NEXTPNR = $(NEXTPNR_GOWIN) --device GW2AR-LV18QN88C8/I7 --vopt family=GW2A-18C \
	--vopt cst=boards/tangnano20k/tangnano20k.cst
tangnano20k_PACK = $(GOWIN_PACK) -d GW2A-18C
tangnano20k_FREQ := 27
tangnano20k_LOADER := tangnano20k
# -nowidelut: LUT4s only, no MUX2_LUT5..8 trees; those need a LUT on every
# input, and nextpnr adds one (a constant or a buffer) where Yosys has none:
# the 4x4 device packs into ~290 fewer LUTs.
tangnano20k_SYNTH := synth_gowin -family gw2a -nowidelut
