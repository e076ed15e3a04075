# Verilated models. Each model is built once under $(BUILD)/sim/<name>/ and
# reused by every test and benchmark that names it in <test>_MODELS.
#
# A model: <name>_TOP (module), <name>_SRCS (RTL), <name>_VFLAGS (parameters),
# <name>_SHIM (the sim/*.cpp template compiled against it).

VERILATOR ?= verilator
VINC := /usr/share/verilator/include
SIM_DIR := $(BUILD)/sim$(if $(filter 1,$(TRACE)),-trace)
VFLAGS_COMMON := --cc -Wall -Wno-fatal --x-assign fast --x-initial fast -O3 \
	-Irtl/include -Irtl/core \
	$(if $(filter 1,$(TRACE)),--trace-fst) \
	-CFLAGS "-O2 -fno-strict-aliasing" \
	-MAKEFLAGS "CXX=$(MODEL_CXX) OPT_FAST=-O2 OPT_SLOW=-O1"
# clang's code for the Verilated models runs ~12% faster than gcc's here
# (bench/bench_sim_speed.c); the shims and runtime stay with $(CXX).
MODEL_CXX ?= clang++
SHIM_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Werror -Isim -isystem $(VINC) \
	-isystem $(VINC)/vltstd $(if $(filter 1,$(TRACE)),-DFTPU_TRACE=1 -DVM_TRACE=1 -DVM_TRACE_FST=1)

RTL_CORE := $(wildcard rtl/core/*.sv)

# Numeric unit lanes: many copies of one unit side by side, for fast sweeps.
LANES_SRCS := $(RTL_CORE) sim/tops/ftpu_lanes.sv
mul_lanes_TOP := ftpu_lanes
mul_lanes_SRCS := $(LANES_SRCS)
mul_lanes_VFLAGS := -GUnit=0
mul_lanes_SHIM := sim/lanes_shim.cpp
add_lanes_TOP := ftpu_lanes
add_lanes_SRCS := $(LANES_SRCS)
add_lanes_VFLAGS := -GUnit=1
add_lanes_SHIM := sim/lanes_shim.cpp
mac_lanes_TOP := ftpu_lanes
mac_lanes_SRCS := $(LANES_SRCS)
mac_lanes_VFLAGS := -GUnit=2
mac_lanes_SHIM := sim/lanes_shim.cpp

# The systolic array at the sizes tests and benchmarks use.
define array_model
array_$(1)x$(2)_TOP := ftpu_systolic_array
array_$(1)x$(2)_SRCS := $(RTL_CORE)
array_$(1)x$(2)_VFLAGS := -GRows=$(1) -GCols=$(2)
array_$(1)x$(2)_SHIM := sim/array_shim.cpp
array_$(1)x$(2)_SHIMFLAGS := -DFTPU_ROWS=$(1) -DFTPU_COLS=$(2)
endef
$(eval $(call array_model,16,16))
$(eval $(call array_model,8,8))
$(eval $(call array_model,4,6))

MODELS := mul_lanes add_lanes mac_lanes array_16x16 array_8x8 array_4x6

model_lib = $(SIM_DIR)/$(1)/V$(1)__ALL.a
model_shim = $(SIM_DIR)/$(1)/shim.o
model_libs = $(foreach m,$(1),$(call model_lib,$(m)) $(call model_shim,$(m))) \
	$(if $(1),$(SIM_DIR)/sim_api.o $(VRUNTIME))
# Link order: shims, models, then the Verilator runtime.
model_link = $(foreach m,$(1),$(call model_shim,$(m))) $(SIM_DIR)/sim_api.o \
	$(foreach m,$(1),$(call model_lib,$(m))) $(if $(1),$(VRUNTIME))

define model_rules
$(call model_lib,$(1)): $$($(1)_SRCS) | $(DEPS_STAMP)
	@mkdir -p $(SIM_DIR)/$(1)
	$(VERILATOR) $(VFLAGS_COMMON) --top-module $$($(1)_TOP) --prefix V$(1) \
		$$($(1)_VFLAGS) -Mdir $(SIM_DIR)/$(1) --build -j $(JOBS) $$($(1)_SRCS) \
		> $(SIM_DIR)/$(1)/verilator.log 2>&1 || { tail -40 $(SIM_DIR)/$(1)/verilator.log; exit 1; }
$(call model_shim,$(1)): $$($(1)_SHIM) sim/sim_model.hpp sim/ftpu_sim.h $(call model_lib,$(1))
	$(CXX) $(SHIM_CXXFLAGS) -I$(SIM_DIR)/$(1) -DFTPU_MODEL=$(1) -DFTPU_VCLASS=V$(1) \
		'-DFTPU_VHEADER="V$(1).h"' $$($(1)_SHIMFLAGS) -c $$< -o $$@
endef
$(foreach m,$(MODELS),$(eval $(call model_rules,$(m))))

$(SIM_DIR)/sim_api.o: sim/sim_api.cpp sim/sim_model.hpp sim/ftpu_sim.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(SHIM_CXXFLAGS) -c $< -o $@

# The Verilator runtime, compiled once for all models.
VRUNTIME := $(SIM_DIR)/libverilated.a
VRUNTIME_SRCS := verilated.cpp verilated_threads.cpp \
	$(if $(filter 1,$(TRACE)),verilated_fst_c.cpp)
VRUNTIME_OBJS := $(VRUNTIME_SRCS:%.cpp=$(SIM_DIR)/runtime/%.o)
VRUNTIME_DEFS := -DVM_COVERAGE=0 -DVM_SC=0 \
	$(if $(filter 1,$(TRACE)),-DVM_TRACE=1 -DVM_TRACE_FST=1,-DVM_TRACE=0)
$(SIM_DIR)/runtime/%.o: $(VINC)/%.cpp | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O2 -faligned-new -w -I$(VINC) -I$(VINC)/vltstd $(VRUNTIME_DEFS) -c $< -o $@
$(VRUNTIME): $(VRUNTIME_OBJS)
	$(AR) rcs $@ $^

sim: $(VRUNTIME) $(foreach m,$(MODELS),$(call model_lib,$(m)) $(call model_shim,$(m))) $(SIM_DIR)/sim_api.o

# Which models each RTL test and benchmark links.
test_mul_MODELS := mul_lanes
test_add_MODELS := add_lanes
test_mac_MODELS := mac_lanes
test_array_MODELS := array_16x16 array_4x6
bench_sim_speed_MODELS := array_16x16 array_8x8
