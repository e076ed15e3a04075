# The uart and xdma transports (issue 6): end-to-end tests and the
# throughput bench serve the simulated device over a pty and named pipes
# (harness/sim_peer.h), so they link the device models.
test_transport_uart_MODELS := device_16 device_4p
test_transport_xdma_MODELS := device_16 device_4p
test_discover_MODELS := device_16 device_4p
bench_transport_MODELS := device_16 device_4p
bench_soak_MODELS := device_16 device_4p
# These run the ftpu command (the binary next to them in the build tree):
# `ftpu list`, and `ftpu info` as a second process on a held port.
$(BUILD)/tests/transport/test_discover $(BUILD)/tests/transport/test_transport_uart: $(BUILD)/tools/ftpu
