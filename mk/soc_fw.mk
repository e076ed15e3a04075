# The soft device (firmware/soc/): the iCEBreaker's ftpu device as firmware
# on the control core, with the SoC's UART and 2x2 array behind soc_hal.h.
#
#   make soc-firmware            build/fw/soc/: ftpu_soc_fw.elf, .hex and
#                                ftpu_fw_rom.svh (the board build's ROM
#                                image, named as the control firmware's);
#                                prints the sizes, fails beyond the ROM
#   make test-test_soc_device    the device on the host against the C model
#
# RV_CC, FW_CFLAGS, RV_LIBGCC and rv_hex: mk/models/cpu.mk.

# SOC_FW_DIR and SOC_FW_SVH: mk/models.mk (the board build includes the svh).
SOC_FW_ELF := $(SOC_FW_DIR)/ftpu_soc_fw.elf
SOC_FW_HEX := $(SOC_FW_DIR)/ftpu_soc_fw.hex
# The SoC's ROM: ftpu_cpu RomWords 2048, 4 bytes each.
SOC_ROM_BYTES := 8192
# firmware/soc/libc: the <string.h> of proto/link.c, for the target only.
# -flto: inlining across the device, its hal and proto/ saves ~10% of the
# ROM; memset & co stay outside it (gcc calls them by itself, after LTO).
# FTPU_CRC32_RAM_TABLE: proto/crc32.c's byte table, built in RAM (1 KiB):
# ~50 cycles a byte instead of ~80, on every byte in and out.
SOC_FW_CFLAGS := $(FW_CFLAGS) -flto -DFTPU_CRC32_RAM_TABLE -Ifirmware/soc/libc -Ifirmware/soc
# The device, its hal and main; start-up and memset & co from firmware/;
# the protocol's receiver and encoder, the CRC-32 and the numerics that
# need no FPU from proto/ (freestanding there).
SOC_FW_SRCS := $(wildcard firmware/soc/*.c) firmware/libc.c firmware/start.S \
	proto/link.c proto/crc32.c proto/numeric_int.c
SOC_FW_OBJS := $(SOC_FW_SRCS:%=$(SOC_FW_DIR)/obj/%.o)
SOC_FW_HDRS := $(wildcard firmware/soc/*.h firmware/soc/libc/*.h firmware/*.h \
	firmware/include/*.h firmware/include/*.def proto/*.h)

$(SOC_FW_DIR)/obj/firmware/libc.c.o: SOC_FW_CFLAGS += -fno-lto
$(SOC_FW_DIR)/obj/%.o: % $(SOC_FW_HDRS)
	@mkdir -p $(@D)
	$(RV_CC) $(SOC_FW_CFLAGS) -c $< -o $@

$(SOC_FW_ELF): $(SOC_FW_OBJS) firmware/soc/soc.ld scripts/fw/rom_check.sh
	$(RV_CC) $(SOC_FW_CFLAGS) -T firmware/soc/soc.ld -Wl,--gc-sections \
		-Wl,-Map=$(@:.elf=.map) $(SOC_FW_OBJS) $(RV_LIBGCC) -o $@.tmp
	@RV_PREFIX=$(RV_PREFIX) bash scripts/fw/rom_check.sh $@.tmp $(SOC_ROM_BYTES) || \
		{ rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@
$(SOC_FW_HEX): $(SOC_FW_ELF)
	$(call rv_hex,$<,$@)
$(SOC_FW_SVH): $(SOC_FW_HEX) scripts/fw/hex2svh.sh
	@bash scripts/fw/hex2svh.sh $< $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

soc-firmware: $(SOC_FW_HEX) $(SOC_FW_SVH)
.PHONY: soc-firmware
