# iCEBreaker: iCE40UP5K-SG48, 12 MHz oscillator, UART over the FT2232H's
# channel B. The device runs at 21 MHz from the PLL (target >= 20 MHz:
# docs/boards.md, iCEBreaker).
icebreaker_TOP := ftpu_icebreaker
icebreaker_SRCS := boards/icebreaker/ftpu_icebreaker.sv $(BOARD_COMMON)
icebreaker_FAMILY := ice40
icebreaker_PART := iCE40UP5K
# LUT FF DSP BRAM of the UP5K: 5280 logic cells, 8 SB_MAC16, 30 SB_RAM40_4K.
icebreaker_CAP := 5280 5280 8 30
# The hardware device does not fit the UP5K (docs/boards.md): this board
# runs the soft device (ftpu_soc, docs/soft_device.md), firmware/soc/ in
# its ROM and the device's memories in SPRAM (-spram: Yosys maps the 64 KiB
# RAM to two SB_SPRAM256KA).
icebreaker_FIT := yes
# Estimated flattened, as the bitstream is built: at 98% of the part an
# unflattened upper bound would say it does not fit.
icebreaker_ESTIMATE_FLAT := yes
icebreaker_FW_SVH = $(SOC_FW_SVH)
icebreaker_SYNTH := synth_ice40 -device u -dsp -spram
# The device for make array-share's table, and make breakdown's modules.
icebreaker_PROFILE := soft device
icebreaker_BREAKDOWN := ftpu_systolic_array ftpu_soc_array ftpu_rv32i ftpu_cpu_sys \
	ftpu_soc_uart ftpu_board_leds
# The hardware's parameters from spec/ftpu.toml [device.icebreaker]
# (mk/spec.mk); the memories and the receive buffer are the firmware's,
# from the same spec (FTPU_DEV_ICEBREAKER_*).
icebreaker_PARAMS := $(filter N=% AddCuts=% ColSkew=% ClockHz=% Baud=%,$(SPEC_icebreaker_PARAMS))
icebreaker_CONSTRAINTS := icebreaker.pcf
icebreaker_NEXTPNR = $(NEXTPNR_ICE40) --up5k --package sg48
# nextpnr checks the clock the PLL makes (spec ClockHz, in MHz), which is
# above the 20 MHz goal.
icebreaker_FREQ := $(shell awk 'BEGIN { printf "%g", $(SPEC_icebreaker_ClockHz) / 1e6 }')
# openFPGALoader has no "icebreaker" board: ice40_generic is its FT2232H +
# SPI-flash pinout, which the iCEBreaker uses.
icebreaker_LOADER := ice40_generic
