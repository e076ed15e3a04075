# The boards (boards/<board>/board.mk, mk/boards.mk) and their simulated
# tops: board_icebreaker is the iCEBreaker top behind its pins, UART PHY
# included (sim/board_shim.cpp), at the board's own parameters; the sim
# transport opens it as sim:board=icebreaker.
BOARD_COMMON := $(wildcard boards/common/*.sv)
BOARDS := $(notdir $(patsubst %/board.mk,%,$(wildcard boards/*/board.mk)))
include $(wildcard boards/*/board.mk)

board_param = $(call dev_param,$(1),$($(2)_PARAMS))
board_icebreaker_TOP := ftpu_icebreaker_tb
board_icebreaker_SRCS := $(RTL_CORE) $(wildcard rtl/link/*.sv) $(RTL_CPU) rtl/ftpu_top.sv \
	$(icebreaker_SRCS) sim/tops/ftpu_icebreaker_tb.sv
board_icebreaker_VFLAGS := $(foreach p,$(icebreaker_PARAMS),-G$(p))
board_icebreaker_SHIM := sim/board_shim.cpp
board_icebreaker_SHIMFLAGS := -DFTPU_DEV_N=$(call board_param,N,icebreaker) \
	-DFTPU_DEV_ADD_CUTS=$(call board_param,AddCuts,icebreaker) \
	-DFTPU_DEV_ROW_DELAY=$(shell echo $$(( 1 + $(call popcount3,$(call board_param,AddCuts,icebreaker)) ))) \
	-DFTPU_DEV_UB_VECTORS=$(call board_param,UbVectors,icebreaker) \
	-DFTPU_DEV_WM_ROWS=$(call board_param,WmRows,icebreaker) \
	-DFTPU_DEV_ACC_VECTORS=$(call board_param,AccVectors,icebreaker) \
	-DFTPU_DEV_BIAS_VECTORS=$(call board_param,BiasVectors,icebreaker) \
	-DFTPU_DEV_IQ_WORDS=$(call board_param,IqWords,icebreaker) \
	-DFTPU_DEV_CLOCK_HZ=$(call board_param,ClockHz,icebreaker) \
	-DFTPU_DEV_IN_FLIGHT=$(call board_param,InFlight,icebreaker) \
	-DFTPU_BOARD_BAUD=$(call board_param,Baud,icebreaker)
MODELS += board_icebreaker
test_board_icebreaker_MODELS := device_16 device_4p board_icebreaker
