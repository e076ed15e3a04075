# The usb transport (issue 6, docs/usb.md): its end-to-end test and bench
# run libusb against devices emulated under umockdev (harness/usb_emu.h)
# with the simulated device behind them (sim_peer.h), so they link the
# device models and, these two alone, GLib and libumockdev. The flags come
# in through target-specific variables (private: not passed on to the
# library and models they depend on).
# (pkg-config's answers for umockdev-1.0 come from build/tools.mk, written
# by scripts/deps.sh once the packages are installed.)
UMOCKDEV_CFLAGS := $(patsubst -I%,-isystem %,$(UMOCKDEV_PC_CFLAGS))

test_transport_usb_MODELS := device_16 device_4p
bench_usb_MODELS := device_16 device_4p

$(BUILD)/tests/transport/test_transport_usb.o $(BUILD)/bench/bench_usb.o: private CFLAGS += $(UMOCKDEV_CFLAGS)
$(BUILD)/tests/transport/test_transport_usb $(BUILD)/bench/bench_usb: private LDLIBS += $(UMOCKDEV_LIBS)
