# The boards (boards/<board>/board.mk, mk/boards.mk) and their simulated
# tops: board_icebreaker is the iCEBreaker top behind its pins, UART PHY
# included (sim/board_shim.cpp), at the board's own parameters; the sim
# transport opens it as sim:board=icebreaker (and so for every SIM_BOARDS).
BOARD_COMMON := $(wildcard boards/common/*.sv)
# The ROM image a board's control core starts from: the control firmware's,
# or <board>_FW_SVH (the soft device's, firmware/soc/).
board_fw_svh = $(or $($(1)_FW_SVH),$(FW_ROM_SVH))
BOARDS := $(notdir $(patsubst %/board.mk,%,$(wildcard boards/*/board.mk)))
include $(wildcard boards/*/board.mk)

# A UART board's top in its test wrapper (sim/tops/ftpu_<board>_tb.sv: only
# pins), at the board's parameters: model board_<board>, opened as
# sim:board=<board>. Its test (tests/rtl/test_board_<board>.c) gets the
# same configuration as FTPU_DEV_* defines (mk/spec.mk).
board_defines = $(SPEC_$(or $($(1)_SPEC),$(1))_DEFINES)
define board_model
board_$(1)_TOP := $($(1)_TOP)_tb
board_$(1)_SRCS := $(RTL_CORE) $(wildcard rtl/link/*.sv) $(RTL_CPU) rtl/ftpu_top.sv $(RTL_SOC) \
	$($(1)_SRCS) sim/tops/$($(1)_TOP)_tb.sv
# The firmware ROM image is read by the tops that run the control core.
board_$(1)_VFLAGS := $(foreach p,$($(1)_PARAMS),-G$(p)) \
	+define+FTPU_FW_ROM_SVH -I$(dir $(call board_fw_svh,$(1)))
board_$(1)_SHIM := sim/board_shim.cpp
board_$(1)_SHIMFLAGS := $(call board_defines,$(1))
MODELS += board_$(1)
test_board_$(1)_MODELS := device_16 device_4p board_$(1)
$(BUILD)/tests/rtl/test_board_$(1).o: CFLAGS += $(call board_defines,$(1)) -DFTPU_BOARD_NAME='"$(1)"'
endef
SIM_BOARDS := icebreaker tangnano20k ulx3s ulx3s_45f ulx3s_25f
$(foreach b,$(SIM_BOARDS),$(eval $(call board_model,$(b))))
$(foreach b,$(SIM_BOARDS),$(eval $(SIM_DIR)/board_$(b)/Vboard_$(b)__ALL.a: $(call board_fw_svh,$(b))))
