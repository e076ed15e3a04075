// SPDX-License-Identifier: Apache-2.0
// board_shim.cpp - the device API (ftpu_sim_device_*, device_iface.hpp) over
// a board top's pins: host bytes go out as 8N1 frames on uart_rx_i at
// FTPU_DEV_BAUD, bytes the board sends are sampled off uart_tx_o, and the
// busy LED (busy_o) is the device's idle. So the sim transport, the tests
// and `ftpu` run the very top a board is built from, UART PHY included.
//
// This side of the line is the FT2232H: a transmitter with exact bit times
// (bit k of a byte starts floor(k * ClockHz / Baud) cycles after its start
// bit) and a receiver that samples the middle of each bit and drops a byte
// whose stop bit is low (counted as a framing error).
//
// No register port and no counters here: a board shows only its pins.
#include <cstddef>
#include <new>
#include <vector>

#include "sim_model.hpp"
#include FTPU_VHEADER

#include "device_iface.hpp"

namespace {

struct Board : ftpu::Model<FTPU_VCLASS>, ftpu::DeviceIface {
	static constexpr uint64_t kClockHz = FTPU_DEV_CLOCK_HZ;
	static constexpr uint64_t kBaud = FTPU_DEV_BAUD;
	// Cycles the board's reset holds after the button (ftpu_board_reset).
	static constexpr unsigned kResetHold = (1u << 10) + 8;

	std::vector<uint8_t> inq, outq;
	size_t in_head = 0, out_head = 0;

	// Transmitter: the byte on the line and when its start bit began.
	bool tx_active = false;
	uint16_t tx_frame = 0; // start bit, 8 data bits LSB first, stop bit
	uint64_t tx_start = 0;
	// Receiver.
	bool rx_active = false, rx_wait_high = false;
	uint64_t rx_start = 0;
	unsigned rx_bit = 0;
	uint16_t rx_frame = 0;
	uint64_t frame_errors = 0;
	uint64_t bytes_in = 0, bytes_out = 0;
	bool busy_q = true, line_q = true;

	static uint64_t edge(uint64_t k) { return k * kClockHz / kBaud; }

	bool open(const char *trace_path)
	{
		if (!Model::open(trace_path))
			return false;
		reset(4);
		return true;
	}

	void cycle()
	{
		const uint64_t t = cycles;
		if (!tx_active && in_head < inq.size()) {
			tx_frame = (uint16_t)(0x200u | (unsigned)inq[in_head++] << 1);
			tx_active = true;
			tx_start = t;
			bytes_in++;
			if (in_head == inq.size())
				inq.clear(), in_head = 0;
		}
		bool line = true;
		if (tx_active) {
			uint64_t k = 0;
			while (k < 10 && t - tx_start >= edge(k + 1))
				k++;
			if (k >= 10)
				tx_active = false;
			else
				line = tx_frame >> k & 1u;
			// A byte may follow at once (its start bit is this cycle).
			if (!tx_active && in_head < inq.size()) {
				tx_frame = (uint16_t)(0x200u | (unsigned)inq[in_head++] << 1);
				tx_active = true;
				tx_start = t;
				bytes_in++;
				line = false;
				if (in_head == inq.size())
					inq.clear(), in_head = 0;
			}
		}
		top->uart_rx_i = line;
		clock([&] {
			line_q = top->uart_tx_o;
			busy_q = top->busy_o;
		});
		receive(t);
	}

	// Samples the board's transmit line as it was in cycle t.
	void receive(uint64_t t)
	{
		if (rx_wait_high) { // after a framing error: wait for the line to idle
			rx_wait_high = !line_q;
			return;
		}
		if (!rx_active) {
			if (!line_q) {
				rx_active = true;
				rx_start = t;
				rx_bit = 0;
				rx_frame = 0;
			}
			return;
		}
		// Middle of bit k: rx_start + (2k + 1) * ClockHz / (2 * Baud).
		uint64_t mid = rx_start + (2 * (uint64_t)rx_bit + 1) * kClockHz / (2 * kBaud);
		if (t != mid)
			return;
		rx_frame |= (uint16_t)((line_q ? 1u : 0u) << rx_bit);
		if (rx_bit == 0 && line_q) { // a glitch, not a start bit
			rx_active = false;
			return;
		}
		if (++rx_bit < 10)
			return;
		rx_active = false;
		if (rx_frame >> 9 & 1u) {
			outq.push_back((uint8_t)(rx_frame >> 1));
			bytes_out++;
		} else {
			frame_errors++;
			rx_wait_high = true;
		}
	}

	void get_config(ftpu_sim_device_config *c) const override
	{
		c->n = FTPU_DEV_N;
		c->add_cuts = FTPU_DEV_ADD_CUTS;
		c->row_delay = FTPU_DEV_ROW_DELAY;
		c->ub_vectors = FTPU_DEV_UB_VECTORS;
		c->wm_rows = FTPU_DEV_WM_ROWS;
		c->acc_vectors = FTPU_DEV_ACC_VECTORS;
		c->bias_vectors = FTPU_DEV_BIAS_VECTORS;
		c->iq_words = FTPU_DEV_IQ_WORDS;
		c->clock_hz = FTPU_DEV_CLOCK_HZ;
		c->in_flight = FTPU_DEV_IN_FLIGHT;
		c->vector_unit = FTPU_DEV_VECTOR_UNIT;
		c->link_bytes = FTPU_DEV_LINK_BYTES;
		c->in_order = FTPU_DEV_IN_ORDER;
	}

	// The line's pace is the baud rate; nothing to set.
	void set_pace(const ftpu_sim_device_pace *) override {}

	void push(const uint8_t *b, size_t n) override { inq.insert(inq.end(), b, b + n); }
	size_t in_queued() const override { return inq.size() - in_head + (tx_active ? 1 : 0); }

	size_t pull(uint8_t *buf, size_t cap) override
	{
		size_t n = outq.size() - out_head;
		if (n > cap)
			n = cap;
		if (n)
			std::memcpy(buf, outq.data() + out_head, n);
		out_head += n;
		if (out_head == outq.size())
			outq.clear(), out_head = 0;
		return n;
	}
	size_t out_queued() const override { return outq.size() - out_head; }

	void run(uint64_t n) override
	{
		for (uint64_t i = 0; i < n; i++)
			cycle();
	}

	// Idle: the device says so, and no bit is on either line.
	bool idle() const override
	{
		return !busy_q && !tx_active && in_head == inq.size() && !rx_active && line_q;
	}

	bool run_until_idle(uint64_t max_cycles, uint64_t *ran) override
	{
		uint64_t i = 0;
		unsigned settled = 0;
		bool ok = false;
		while (i < max_cycles) {
			cycle();
			i++;
			settled = idle() ? settled + 1 : 0;
			// A whole character time of quiet: a reply would have started.
			if (settled >= FTPU_SIM_DEVICE_IDLE_SETTLE + edge(10)) {
				ok = true;
				break;
			}
		}
		if (ran)
			*ran = i;
		return ok;
	}

	uint32_t credit() const override { return 0; }
	uint32_t reg_read(unsigned) override { return 0; }
	void reg_write(unsigned, uint32_t) override {}
	void read_counters(ftpu_sim_device_counters *c) override { *c = {}; }

	void get_stats(ftpu_sim_device_stats *st) const override
	{
		st->bytes_in = bytes_in;
		st->bytes_out = bytes_out;
	}

	// The button: held for n cycles, then the board's own reset hold.
	void reset(unsigned n) override
	{
		inq.clear(), outq.clear();
		in_head = out_head = 0;
		tx_active = rx_active = rx_wait_high = false;
		hold_reset(n, [&] {
			top->uart_rx_i = 1;
			clock([] {});
		});
		for (unsigned i = 0; i < kResetHold; i++) {
			top->uart_rx_i = 1;
			clock([] {});
		}
		top->eval();
	}
};

} // namespace

FTPU_DEFINE_OPENER(Board)
