# LiteFury (xc7a100tfgg484-2L on an M.2 2280 card): the pins ftpu uses.
# The XDMA IP places its transceivers; the reference clock and PERST# are
# ours. Pin facts from public LiteFury constraint files: check them, and the
# M.2 lane order (it differs from the IP's default GT locations), against
# RHS Research's sample projects before building.
set_property PACKAGE_PIN F6 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN E6 [get_ports pcie_refclk_n]
create_clock -name pcie_refclk -period 10.000 [get_ports pcie_refclk_p]

set_property PACKAGE_PIN J1 [get_ports pcie_perst_ni]
set_property IOSTANDARD LVCMOS33 [get_ports pcie_perst_ni]
set_property PULLUP true [get_ports pcie_perst_ni]
set_false_path -from [get_ports pcie_perst_ni]

set_property PACKAGE_PIN G1 [get_ports pcie_clkreq_no]
set_property IOSTANDARD LVCMOS33 [get_ports pcie_clkreq_no]

set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4 [current_design]
set_property CONFIG_MODE SPIx4 [current_design]
