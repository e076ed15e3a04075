# ULX3S: ECP5 LFE5U-85F-6BG381C, 25 MHz oscillator, UART over its FT231X.
ulx3s_TOP := ftpu_ulx3s
ulx3s_SRCS := boards/ulx3s/ftpu_ulx3s.sv $(BOARD_COMMON)
ulx3s_FAMILY := ecp5
ulx3s_PART := LFE5U-85F
# 83640 LUT4 and as many flip-flops, 156 MULT18X18D, 208 DP16KD.
ulx3s_CAP := 83640 83640 156 208
ulx3s_FIT := yes
# The device's parameters: spec/ftpu.toml [device.ulx3s] (mk/spec.mk).
ulx3s_PARAMS := $(SPEC_ulx3s_PARAMS)
ulx3s_CONSTRAINTS := ulx3s.lpf
ulx3s_NEXTPNR = $(NEXTPNR_ECP5) --85k --package CABGA381
# 33.3 MHz from the PLL: at 50 MHz nextpnr routes the 4x4 device at 37.7.
ulx3s_FREQ := 33.33
ulx3s_LOADER := ulx3s
