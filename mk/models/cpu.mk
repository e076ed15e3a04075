# The control core (issue 7, docs/firmware.md): its Verilated model, the
# instruction-level test programs (tests/cpu/*.S) and the firmware
# (firmware/), built with Debian's riscv64-unknown-elf toolchain.
#
#   make build/tests/cpu/test_rv32i && make test-test_rv32i
#   make test-test_firmware            the firmware's protocol logic on the host
#   make firmware                      build/fw/: ROM image, update image, sizes
#   make fuzz-control                  libFuzzer over CONTROL requests (mk/fuzz.mk)

# ---- the model: ftpu_cpu in its test top, 8 KiB ROM, 16 KiB RAM -------------
CPU_ROM_WORDS := 2048
CPU_RAM_WORDS := 4096
cpu_TOP := ftpu_cpu_tb
cpu_SRCS := $(RTL_CPU) sim/tops/ftpu_cpu_tb.sv
cpu_VFLAGS := -GRomWords=$(CPU_ROM_WORDS) -GRamWords=$(CPU_RAM_WORDS)
cpu_SHIM := sim/cpu_shim.cpp
cpu_SHIMFLAGS := -DFTPU_CPU_ROM_WORDS=$(CPU_ROM_WORDS) -DFTPU_CPU_RAM_WORDS=$(CPU_RAM_WORDS)
MODELS += cpu
$(SIM_DIR)/cpu/shim.o: sim/ftpu_sim_cpu.h

test_rv32i_MODELS := cpu

# ---- RISC-V toolchain ----------------------------------------------------------
RV_PREFIX ?= riscv64-unknown-elf-
RV_CC := $(RV_PREFIX)gcc
RV_OBJCOPY := $(RV_PREFIX)objcopy
RV_SIZE := $(RV_PREFIX)size
# Debian's gcc spells the CSR instructions' extension out (-march=rv32i
# alone rejects csrr); it has no rv32i_zicsr multilib, so libgcc (the
# multiply/divide helpers of rv32i) is named explicitly.
RV_ARCH := -march=rv32i_zicsr -mabi=ilp32
RV_LIBGCC = $(shell $(RV_CC) -march=rv32i -mabi=ilp32 -print-libgcc-file-name)
rv_hex = $(RV_OBJCOPY) -O verilog --verilog-data-width=4 $(1) $(2)

# ---- instruction-level tests: build/cpu-tests/<name>.hex -------------------------
CPU_TEST_DIR := $(BUILD)/cpu-tests
CPU_TEST_HEX := $(patsubst tests/cpu/%.S,$(CPU_TEST_DIR)/%.hex,$(wildcard tests/cpu/*.S))

$(CPU_TEST_DIR)/%.elf: tests/cpu/%.S tests/cpu/cpu_test.h tests/cpu/link.ld
	@mkdir -p $(@D)
	$(RV_CC) $(RV_ARCH) -nostdlib -nostartfiles -Wl,--no-relax -T tests/cpu/link.ld \
		-Itests/cpu $< -o $@
$(CPU_TEST_DIR)/%.hex: $(CPU_TEST_DIR)/%.elf
	$(call rv_hex,$<,$@)

# ---- firmware: build/fw/ -----------------------------------------------------------
# ftpu_fw.elf/.hex   the boot ROM image (ROM at 0, data in RAM)
# ftpu_fw_app.elf    the same firmware linked to run from the RAM's app slot
# ftpu_fw_app.img    ... as an update image (header + binary, mkimage)
# Version: FW_VERSION (major << 16 | minor << 8 | patch); the update test
# image gets FW_APP_VERSION so that a running update is told apart.
FW_DIR := $(BUILD)/fw
FW_VERSION ?= 0x000100
FW_APP_VERSION ?= 0x000101
FW_CFLAGS := $(RV_ARCH) -std=c11 -Os -g -ffreestanding -nostdlib -fno-builtin \
	-ffunction-sections -fdata-sections -msmall-data-limit=0 -msave-restore \
	-Wall -Wextra -Werror $(INC_firmware)
# Its sources and, from proto/ (freestanding there), the CRC-32; objects
# in name order whichever folder they come from.
FW_C_SRCS := $(wildcard firmware/*.c) proto/crc32.c
FW_SRC_NAMES := $(sort $(notdir $(FW_C_SRCS))) start.S
FW_ROM_OBJS := $(FW_SRC_NAMES:%=$(FW_DIR)/rom/%.o)
FW_APP_OBJS := $(FW_SRC_NAMES:%=$(FW_DIR)/app/%.o)
FW_HDRS := $(wildcard firmware/*.h firmware/include/*.h firmware/include/*.def proto/*.h)

define fw_obj_rules
$(FW_DIR)/rom/%.o: $(1)/% $(FW_HDRS)
	@mkdir -p $$(@D)
	$(RV_CC) $(FW_CFLAGS) -DFTPU_FW_VERSION=$(FW_VERSION) -c $$< -o $$@
$(FW_DIR)/app/%.o: $(1)/% $(FW_HDRS)
	@mkdir -p $$(@D)
	$(RV_CC) $(FW_CFLAGS) -DFTPU_FW_VERSION=$(FW_APP_VERSION) -c $$< -o $$@
endef
$(eval $(call fw_obj_rules,firmware))
$(eval $(call fw_obj_rules,proto))

$(FW_DIR)/ftpu_fw.elf: $(FW_ROM_OBJS) firmware/link.ld firmware/layout.ld
	$(RV_CC) $(FW_CFLAGS) -T firmware/link.ld -Wl,--gc-sections -Wl,-Map=$(@:.elf=.map) \
		$(FW_ROM_OBJS) $(RV_LIBGCC) -o $@
	@$(RV_SIZE) $@
$(FW_DIR)/ftpu_fw_app.elf: $(FW_APP_OBJS) firmware/link_app.ld firmware/layout.ld
	$(RV_CC) $(FW_CFLAGS) -T firmware/link_app.ld -Wl,--gc-sections -Wl,-Map=$(@:.elf=.map) \
		$(FW_APP_OBJS) $(RV_LIBGCC) -o $@
	@$(RV_SIZE) $@
$(FW_DIR)/%.hex: $(FW_DIR)/%.elf
	$(call rv_hex,$<,$@)
$(FW_DIR)/%.bin: $(FW_DIR)/%.elf
	$(RV_OBJCOPY) -O binary $< $@

# The image tool runs on the host; it shares the CRC and header code.
FW_MKIMAGE := $(FW_DIR)/mkimage
$(FW_MKIMAGE): firmware/tools/mkimage.c proto/crc32.c firmware/image.c $(FW_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(INC_firmware) $< -o $@
$(FW_DIR)/ftpu_fw_app.img: $(FW_DIR)/ftpu_fw_app.bin $(FW_DIR)/ftpu_fw_app.elf $(FW_MKIMAGE)
	$(FW_MKIMAGE) $(FW_DIR)/ftpu_fw_app.elf $< $(FW_APP_VERSION) $@

FW_IMAGES := $(FW_DIR)/ftpu_fw.hex $(FW_DIR)/ftpu_fw_app.img
firmware: $(FW_IMAGES) $(FW_ROM_SVH)
.PHONY: firmware

# The device models carry the ROM image (ftpu_top ControlCore; FW_ROM_SVH
# in mk/models.mk): a firmware change rebuilds them (an image that came
# out the same leaves the file, and the models, as they were).
$(FW_ROM_SVH): $(FW_ROM_HEX) scripts/fw/hex2svh.sh
	@bash scripts/fw/hex2svh.sh $< $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
# (Spelled out: model_lib is defined after this file is read.)
$(foreach m,$(DEVICE_MODELS),$(SIM_DIR)/$(m)/V$(m)__ALL.a): $(FW_ROM_SVH)

# The RTL test loads the programs and the firmware at run time.
$(BUILD)/tests/cpu/test_rv32i: $(CPU_TEST_HEX) $(FW_IMAGES)
$(BUILD)/tests/cpu/test_rv32i.o: CFLAGS += -DFTPU_CPU_TEST_DIR='"$(CPU_TEST_DIR)"' \
	-DFTPU_FW_DIR='"$(FW_DIR)"' -DFTPU_FW_VERSION=$(FW_VERSION) \
	-DFTPU_FW_APP_VERSION=$(FW_APP_VERSION)

# End to end (issue 7): the firmware in the simulated device, through the
# raw link and libftpu; it loads the update image at run time.
test_firmware_device_MODELS := device_16 device_4p
$(BUILD)/tests/firmware/test_firmware_device: $(FW_IMAGES)
$(BUILD)/tests/firmware/test_firmware_device.o: CFLAGS += -DFTPU_FW_DIR='"$(FW_DIR)"' \
	-DFTPU_FW_VERSION=$(FW_VERSION) -DFTPU_FW_APP_VERSION=$(FW_APP_VERSION)

# ---- fuzzing the firmware's CONTROL handling (tests/fuzz/fuzz_control.c) -------
# make fuzz-control: mk/fuzz.mk, with the other fuzz targets (make fuzz).

# Keep the ELF files (objdump them when a test fails).
.SECONDARY: $(CPU_TEST_HEX:.hex=.elf)
