# ULX3S: ECP5 LFE5U-<size>F-6BG381C, 25 MHz oscillator, UART over its FT231X.
# The board comes with four sizes of ECP5; each is a board of its own here
# (its own estimate, bitstream and build/boards/<board>/), all built from
# this folder's top and pins, each at its spec's ClockHz (the PLL's output,
# boards/ulx3s/ftpu_ulx3s.sv), which nextpnr must meet:
#   ulx3s      LFE5U-85F  8x8   spec/ftpu.toml [device.ulx3s]
#   ulx3s_45f  LFE5U-45F  4x4   [device.ulx3s_45f] (half the weight memory)
#   ulx3s_25f  LFE5U-25F  2x2   [device.ulx3s_25f]
#   ulx3s_12f  LFE5U-12F  2x2   the 25F's design and netlist (one die)
#
# $(call ulx3s_board,board,part,nextpnr device flag,LUT FF DSP BRAM,spec config)
define ulx3s_board
$(1)_DIR := boards/ulx3s
$(1)_TOP := ftpu_ulx3s
$(1)_SRCS := boards/ulx3s/ftpu_ulx3s.sv $$(BOARD_COMMON)
$(1)_FAMILY := ecp5
$(1)_PART := $(2)
$(1)_CAP := $(4)
$(1)_FIT := yes
$(1)_SPEC := $(5)
$(1)_PARAMS := $$(SPEC_$(5)_PARAMS)
$(1)_CONSTRAINTS := ulx3s.lpf
$(1)_NEXTPNR = $$(NEXTPNR_ECP5) $(3) --package CABGA381
$(1)_FREQ := $$(shell awk 'BEGIN { printf "%g", $$(SPEC_$(5)_ClockHz) / 1e6 }')
$(1)_LOADER := ulx3s
endef

# LUT4 (as many flip-flops), MULT18X18D, DP16KD of each die, as nextpnr
# counts them (its report's "available").
$(eval $(call ulx3s_board,ulx3s,LFE5U-85F,--85k,83640 83640 156 208,ulx3s))
$(eval $(call ulx3s_board,ulx3s_45f,LFE5U-45F,--45k,43848 43848 72 108,ulx3s_45f))
$(eval $(call ulx3s_board,ulx3s_25f,LFE5U-25F,--25k,24288 24288 28 56,ulx3s_25f))
# The 12F is the 25F's die with another IDCODE (prjtrellis' devices.json):
# nextpnr --12k places on the 25k chip database with nothing held back, and
# ecppack writes the 12F's IDCODE (0x21111043) from the .device line that
# nextpnr puts in the config, so no --idcode. Lattice rates the 12F at 12k
# LUT4 and 32 DP16KD; the 2x2 device needs more LUT4 than that
# (docs/boards.md).
$(eval $(call ulx3s_board,ulx3s_12f,LFE5U-12F,--12k,24288 24288 28 56,ulx3s_25f))
ulx3s_12f_DESIGN := ulx3s_25f
BOARDS += ulx3s_45f ulx3s_25f ulx3s_12f
