# The boards (boards/<board>/board.mk, mk/boards.mk) and their simulated
# tops: board_icebreaker is the iCEBreaker top behind its pins, UART PHY
# included (sim/board_shim.cpp), at the board's own parameters; the sim
# transport opens it as sim:board=icebreaker.
BOARD_COMMON := $(wildcard boards/common/*.sv)
BOARDS := $(notdir $(patsubst %/board.mk,%,$(wildcard boards/*/board.mk)))
include $(wildcard boards/*/board.mk)

board_param = $(call dev_param,$(1),$($(2)_PARAMS))
# A UART board's top in its test wrapper (sim/tops/ftpu_<board>_tb.sv: only
# pins), at the board's parameters: model board_<board>, opened as
# sim:board=<board>. Its test (tests/rtl/test_board_<board>.c) gets the
# same parameters as FTPU_BOARD_* defines.
board_defines = -DFTPU_DEV_N=$(call board_param,N,$(1)) \
	-DFTPU_DEV_ADD_CUTS=$(call board_param,AddCuts,$(1)) \
	-DFTPU_DEV_ROW_DELAY=$(shell echo $$(( 1 + $(call popcount3,$(call board_param,AddCuts,$(1))) ))) \
	-DFTPU_DEV_UB_VECTORS=$(call board_param,UbVectors,$(1)) \
	-DFTPU_DEV_WM_ROWS=$(call board_param,WmRows,$(1)) \
	-DFTPU_DEV_ACC_VECTORS=$(call board_param,AccVectors,$(1)) \
	-DFTPU_DEV_BIAS_VECTORS=$(call board_param,BiasVectors,$(1)) \
	-DFTPU_DEV_IQ_WORDS=$(call board_param,IqWords,$(1)) \
	-DFTPU_DEV_CLOCK_HZ=$(call board_param,ClockHz,$(1)) \
	-DFTPU_DEV_IN_FLIGHT=$(call board_param,InFlight,$(1)) \
	-DFTPU_BOARD_BAUD=$(call board_param,Baud,$(1))
define board_model
board_$(1)_TOP := ftpu_$(1)_tb
board_$(1)_SRCS := $(RTL_CORE) $(wildcard rtl/link/*.sv) $(RTL_CPU) rtl/ftpu_top.sv \
	$($(1)_SRCS) sim/tops/ftpu_$(1)_tb.sv
board_$(1)_VFLAGS := $(foreach p,$($(1)_PARAMS),-G$(p))
board_$(1)_SHIM := sim/board_shim.cpp
board_$(1)_SHIMFLAGS := $(call board_defines,$(1))
MODELS += board_$(1)
test_board_$(1)_MODELS := device_16 device_4p board_$(1)
$(BUILD)/tests/rtl/test_board_$(1).o: CFLAGS += $(call board_defines,$(1)) -DFTPU_BOARD_NAME='"$(1)"'
endef
SIM_BOARDS := icebreaker tangnano20k
$(foreach b,$(SIM_BOARDS),$(eval $(call board_model,$(b))))
