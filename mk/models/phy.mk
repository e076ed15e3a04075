# The PHY adapters (rtl/link/ftpu_phy_*.sv), each in its test top
# (sim/tops/ftpu_phy_*_tb.sv) behind sim/phy_shim.cpp (sim/ftpu_sim_phy.h),
# at the configurations their tests need. Only these models include the
# PHY sources.
PHY_ASYNC_FIFO := rtl/link/ftpu_phy_async_fifo.sv
PHY_UART_SRCS := rtl/link/ftpu_phy_uart.sv rtl/link/ftpu_phy_uart_rx.sv \
	rtl/link/ftpu_phy_uart_tx.sv sim/tops/ftpu_phy_uart_tb.sv
PHY_FT245_SRCS := rtl/link/ftpu_phy_ft245.sv $(PHY_ASYNC_FIFO) sim/tops/ftpu_phy_ft245_tb.sv
PHY_AXIS_SRCS := rtl/link/ftpu_phy_axis.sv $(PHY_ASYNC_FIFO) sim/tops/ftpu_phy_axis_tb.sv
# The clock-crossing models catch a pointer bit changing at the other
# clock's last edge at either value (ftpu_phy_async_fifo, simulation only).
PHY_CDC_JITTER := +define+FTPU_CDC_JITTER

# $(1) model, $(2) ClockHz, $(3) Baud, $(4) FifoDepth.
define phy_uart_model
$(1)_TOP := ftpu_phy_uart_tb
$(1)_SRCS := $(PHY_UART_SRCS)
$(1)_VFLAGS := -GClockHz=$(2) -GBaud=$(3) -GFifoDepth=$(4)
$(1)_SHIM := sim/phy_shim.cpp
$(1)_SHIMFLAGS := -DFTPU_PHY_UART=1 -DFTPU_PHY_CLOCK_HZ=$(2) -DFTPU_PHY_BAUD=$(3) \
	-DFTPU_PHY_FIFO_DEPTH=$(4)
endef
# 3 Mbaud at 4 clocks per bit (the iCEBreaker's 12 MHz), at 4.5 (the
# smallest fractional divisor) and at 16.67 (50 MHz).
$(eval $(call phy_uart_model,phy_uart_4,12000000,3000000,8))
$(eval $(call phy_uart_model,phy_uart_4p5,13500000,3000000,8))
$(eval $(call phy_uart_model,phy_uart_50m,50000000,3000000,4))

# $(1) model, $(2) RxDepth, $(3) TxDepth, $(4) Burst, $(5) FlushIdle.
define phy_ft245_model
$(1)_TOP := ftpu_phy_ft245_tb
$(1)_SRCS := $(PHY_FT245_SRCS)
$(1)_VFLAGS := -GRxDepth=$(2) -GTxDepth=$(3) -GBurst=$(4) -GFlushIdle=$(5) $(PHY_CDC_JITTER)
$(1)_SHIM := sim/phy_shim.cpp
$(1)_SHIMFLAGS := -DFTPU_PHY_FT245=1 -DFTPU_PHY_RX_DEPTH=$(2) -DFTPU_PHY_TX_DEPTH=$(3) \
	-DFTPU_PHY_BURST=$(4) -DFTPU_PHY_FLUSH_IDLE=$(5)
endef
# The defaults, and the smallest FIFOs with short bursts (every corner of
# the room and turn-round logic is reached often).
$(eval $(call phy_ft245_model,phy_ft245,16,16,64,16))
$(eval $(call phy_ft245_model,phy_ft245_min,4,4,3,3))

# $(1) model, $(2) DataW, $(3) Async, $(4) FifoDepth, $(5) FlushIdle.
define phy_axis_model
$(1)_TOP := ftpu_phy_axis_tb
$(1)_SRCS := $(PHY_AXIS_SRCS)
$(1)_VFLAGS := -GDataW=$(2) -GAsync=$(3) -GFifoDepth=$(4) -GFlushIdle=$(5) $(PHY_CDC_JITTER)
$(1)_SHIM := sim/phy_shim.cpp
$(1)_SHIMFLAGS := -DFTPU_PHY_AXIS=1 -DFTPU_PHY_DATA_W=$(2) -DFTPU_PHY_ASYNC=$(3) \
	-DFTPU_PHY_FIFO_DEPTH=$(4) -DFTPU_PHY_FLUSH_IDLE=$(5)
endef
# XDMA's 64-bit streams on the device clock and across clocks, and a
# 128-bit stream through the smallest FIFOs.
$(eval $(call phy_axis_model,phy_axis,64,0,16,8))
$(eval $(call phy_axis_model,phy_axis_async,64,1,16,8))
$(eval $(call phy_axis_model,phy_axis_w128,128,1,4,3))

PHY_UART_MODELS := phy_uart_4 phy_uart_4p5 phy_uart_50m
PHY_FT245_MODELS := phy_ft245 phy_ft245_min
PHY_AXIS_MODELS := phy_axis phy_axis_async phy_axis_w128
MODELS += $(PHY_UART_MODELS) $(PHY_FT245_MODELS) $(PHY_AXIS_MODELS)

# The shims also include the PHY header (the generic rule knows only
# sim/ftpu_sim.h and sim/sim_model.hpp).
$(foreach m,$(PHY_UART_MODELS) $(PHY_FT245_MODELS) $(PHY_AXIS_MODELS),\
	$(eval $(SIM_DIR)/$(m)/shim.o: sim/ftpu_sim_phy.h))

test_phy_uart_MODELS := $(PHY_UART_MODELS)
test_phy_ft245_MODELS := $(PHY_FT245_MODELS)
test_phy_axis_MODELS := $(PHY_AXIS_MODELS)
