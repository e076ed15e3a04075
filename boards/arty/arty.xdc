# Arty A7-100T (xc7a100tcsg324-1): the pins ftpu uses. The FT2232HQ's
# channel B is the UART. Names match boards/arty/ftpu_arty.sv.
set_property -dict {PACKAGE_PIN E3 IOSTANDARD LVCMOS33} [get_ports clk_100mhz_i]
create_clock -name clk_100mhz -period 10.000 [get_ports clk_100mhz_i]

# uart_txd_in: the FTDI's TXD, the FPGA's receive line.
set_property -dict {PACKAGE_PIN A9 IOSTANDARD LVCMOS33} [get_ports uart_rx_i]
set_property -dict {PACKAGE_PIN D10 IOSTANDARD LVCMOS33} [get_ports uart_tx_o]
set_false_path -from [get_ports uart_rx_i]
set_false_path -to [get_ports uart_tx_o]

# ck_rst (the RESET button), active low.
set_property -dict {PACKAGE_PIN C2 IOSTANDARD LVCMOS33} [get_ports rst_ni]
set_false_path -from [get_ports rst_ni]

set_property -dict {PACKAGE_PIN H5 IOSTANDARD LVCMOS33} [get_ports {led_o[0]}]
set_property -dict {PACKAGE_PIN J5 IOSTANDARD LVCMOS33} [get_ports {led_o[1]}]
set_property -dict {PACKAGE_PIN T9 IOSTANDARD LVCMOS33} [get_ports {led_o[2]}]
set_property -dict {PACKAGE_PIN T10 IOSTANDARD LVCMOS33} [get_ports {led_o[3]}]
set_false_path -to [get_ports {led_o[*]}]

set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
