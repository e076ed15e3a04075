# Arty A7-100T: xc7a100tcsg324-1, 100 MHz oscillator, UART over the
# FT2232HQ's channel B. Place and route: Vivado (boards/arty/build.tcl).
arty_TOP := ftpu_arty
arty_SRCS := boards/arty/ftpu_arty.sv $(BOARD_COMMON)
arty_FAMILY := xc7
arty_PART := XC7A100T
# 63400 LUT6, 126800 flip-flops, 240 DSP48E1, 135 RAMB36E1.
arty_CAP := 63400 126800 240 135
arty_FIT := yes
# The device's parameters: spec/ftpu.toml [device.arty] (mk/spec.mk).
arty_PARAMS := $(SPEC_arty_PARAMS)
arty_PNR_HOWTO := vivado -mode batch -source boards/arty/build.tcl
