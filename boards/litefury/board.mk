# LiteFury: an M.2 PCIe card with an Artix-7 xc7a100tfgg484-2L; the host
# link is the Xilinx XDMA IP (PCIe x4 Gen2, AXI4-Stream, 128-bit at 125 MHz)
# and the driver's /dev/xdma0_* character devices. Place and route: Vivado
# (boards/litefury/build.tcl generates the IP). Yosys sees the IP as a black
# box (boards/litefury/xdma_0_stub.v): its own LUTs are not in the estimate.
litefury_TOP := ftpu_litefury
litefury_SRCS := boards/litefury/ftpu_litefury.sv $(BOARD_COMMON) boards/litefury/xdma_0_stub.v
litefury_FAMILY := xc7
litefury_PART := XC7A100T
litefury_CAP := 63400 126800 240 135
litefury_FIT := yes
# The device's parameters: spec/ftpu.toml [device.litefury] (mk/spec.mk).
litefury_PARAMS := $(SPEC_litefury_PARAMS)
litefury_PNR_HOWTO := vivado -mode batch -source boards/litefury/build.tcl
