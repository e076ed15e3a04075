# iCEBreaker: iCE40UP5K-SG48, 12 MHz oscillator, UART over the FT2232H's
# channel B. The device runs at 24 MHz from the PLL (target >= 20 MHz:
# docs/boards.md, iCEBreaker).
icebreaker_TOP := ftpu_icebreaker
icebreaker_SRCS := boards/icebreaker/ftpu_icebreaker.sv $(BOARD_COMMON)
icebreaker_FAMILY := ice40
icebreaker_PART := iCE40UP5K
# LUT FF DSP BRAM of the UP5K: 5280 logic cells, 8 SB_MAC16, 30 SB_RAM40_4K.
icebreaker_CAP := 5280 5280 8 30
# The smallest device the host library takes (a 2x2 array) does not fit
# the UP5K (docs/boards.md): the estimate is reported, not required.
icebreaker_FIT := no
# The device's parameters: spec/ftpu.toml [device.icebreaker] (mk/spec.mk).
icebreaker_PARAMS := $(SPEC_icebreaker_PARAMS)
icebreaker_CONSTRAINTS := icebreaker.pcf
icebreaker_NEXTPNR = $(NEXTPNR_ICE40) --up5k --package sg48
icebreaker_FREQ := 20
# openFPGALoader has no "icebreaker" board: ice40_generic is its FT2232H +
# SPI-flash pinout, which the iCEBreaker uses.
icebreaker_LOADER := ice40_generic
