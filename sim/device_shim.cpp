// SPDX-License-Identifier: Apache-2.0
// device_shim.cpp - ftpu_sim over a Verilated ftpu_top (rtl/ftpu_top.sv), the
// whole device: host bytes are queued and offered on in_valid_i at a set
// pace, in beats of up to LinkBytes bytes; bytes the device sends are
// collected whenever out_ready_i is high (a settable pattern models a slow
// or stalled reader), and the register
// port is driven between them. Compiled with FTPU_MODEL, FTPU_VCLASS,
// FTPU_VHEADER and the model's parameters as FTPU_DEV_* (the Verilated class
// does not expose parameters).
//
// Several device models link into one program (test_device uses two): the
// C functions below are identical in every device shim and dispatch through
// the DeviceIface interface (device_iface.hpp; board_shim.cpp implements it
// too), so they are defined weak and the linker keeps one copy.
#include <cstddef>
#include <new>
#include <vector>

#include "ftpu_spec.h"
#include "sim_model.hpp"
#include FTPU_VHEADER

#include "device_iface.hpp"

namespace {

struct Device : ftpu::Model<FTPU_VCLASS>, ftpu::DeviceIface {
	// A byte FIFO: [head, size) unread; compacted when half is dead.
	struct Bytes {
		std::vector<uint8_t> v;
		size_t head = 0;
		size_t size() const { return v.size() - head; }
		void clear() { v.clear(), head = 0; }
		void compact()
		{
			if (head > 4096 && head * 2 > v.size()) {
				v.erase(v.begin(), v.begin() + (ptrdiff_t)head);
				head = 0;
			}
		}
	};
	Bytes inq, outq;
	ftpu_sim_device_pace pace = {1, 1, 0, 0};
	unsigned in_wait = 0; // cycles before the next byte may be offered
	uint64_t bytes_in = 0, bytes_out = 0;
	// Outputs sampled in the last cycle.
	uint32_t credit_q = 0, rdata_q = 0;
	bool idle_q = false;

	bool open(const char *trace_path)
	{
		if (!Model::open(trace_path))
			return false;
		reset(4);
		return true;
	}

	// One clock cycle: drive the link and the register port (req, we, addr,
	// wdata), sample outputs before the edge, then move the queues.
	void cycle(bool req = false, bool we = false, unsigned addr = 0,
		   uint32_t wdata = 0)
	{
		// A beat: up to FTPU_DEV_LINK_BYTES queued bytes, byte 0 first.
		const size_t in_n = in_wait ? 0
			: inq.size() < FTPU_DEV_LINK_BYTES ? inq.size()
							   : FTPU_DEV_LINK_BYTES;
		const bool in_v = in_n != 0;
		uint32_t in_beat = 0;
		for (size_t i = 0; i < in_n; i++)
			in_beat |= (uint32_t)inq.v[inq.head + i] << (8 * i);
		bool out_r = cycles % pace.out_period == 0;
		if (pace.out_stall_every &&
		    cycles % pace.out_stall_every < pace.out_stall_len)
			out_r = false;
		top->in_valid_i = in_v;
		top->in_data_i = in_beat;
		top->in_count_i = (unsigned)in_n;
		top->out_ready_i = out_r;
		top->reg_req_i = req;
		top->reg_we_i = we;
		top->reg_addr_i = addr & 0xffu;
		top->reg_wdata_i = wdata;
		bool in_fire = false, out_fire = false;
		uint32_t out_beat = 0;
		clock([&] {
			in_fire = in_v && top->in_ready_o;
			out_fire = out_r && top->out_valid_o;
			out_beat = top->out_data_o;
			credit_q = top->credit_o;
			idle_q = top->idle_o;
			rdata_q = top->reg_rdata_o;
		});
		if (in_fire) {
			inq.head += in_n, bytes_in += in_n;
			inq.compact();
			in_wait = pace.in_period - 1;
		} else if (in_wait) {
			in_wait--;
		}
		if (out_fire) { /* output beats are full: frames are whole words */
			for (unsigned i = 0; i < FTPU_DEV_LINK_BYTES; i++)
				outq.v.push_back((uint8_t)(out_beat >> (8 * i)));
			bytes_out += FTPU_DEV_LINK_BYTES;
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
		c->vector_unit = FTPU_DEV_VECTOR_UNIT;
		c->link_bytes = FTPU_DEV_LINK_BYTES;
		c->in_order = FTPU_DEV_IN_ORDER;
		c->in_flight = FTPU_DEV_IN_FLIGHT;
	}

	void set_pace(const ftpu_sim_device_pace *p) override
	{
		pace = *p;
		if (in_wait >= pace.in_period)
			in_wait = pace.in_period - 1;
	}

	void push(const uint8_t *b, size_t n) override
	{
		inq.v.insert(inq.v.end(), b, b + n);
	}

	size_t in_queued() const override { return inq.size(); }

	size_t pull(uint8_t *buf, size_t cap) override
	{
		size_t n = outq.size() < cap ? outq.size() : cap;
		if (n)
			std::memcpy(buf, outq.v.data() + outq.head, n);
		outq.head += n;
		if (outq.head == outq.v.size())
			outq.clear();
		else
			outq.compact();
		return n;
	}

	size_t out_queued() const override { return outq.size(); }

	void run(uint64_t n) override
	{
		for (uint64_t i = 0; i < n; i++)
			cycle();
	}

	bool run_until_idle(uint64_t max_cycles, uint64_t *ran) override
	{
		uint64_t i = 0;
		unsigned settled = 0;
		bool ok = false;
		while (i < max_cycles) {
			cycle();
			i++;
			settled = idle_q && !inq.size() ? settled + 1 : 0;
			if (settled >= FTPU_SIM_DEVICE_IDLE_SETTLE) {
				ok = true;
				break;
			}
		}
		if (ran)
			*ran = i;
		return ok;
	}

	uint32_t credit() const override { return credit_q; }
	bool idle() const override { return idle_q; }

	uint32_t reg_read(unsigned addr) override
	{
		cycle(true, false, addr);
		cycle();
		return rdata_q;
	}

	void reg_write(unsigned addr, uint32_t value) override
	{
		cycle(true, true, addr, value);
	}

	// The counter registers (CYCLES + enum ftpu_link_counter): a read
	// request per cycle, each word the cycle after its request (a _lo read
	// latches its _hi).
	void read_counters(ftpu_sim_device_counters *c) override
	{
		enum { kFirst = FTPU_REG_CYCLES, kCount = FTPU_LINK_CNT_COUNT };
		uint32_t w[kCount];
		for (unsigned i = 0; i <= kCount; i++) {
			if (i < kCount)
				cycle(true, false, kFirst + i);
			else
				cycle();
			if (i > 0)
				w[i - 1] = rdata_q;
		}
		auto w64 = [&w](unsigned lo) { return (uint64_t)w[lo + 1] << 32 | w[lo]; };
		c->cycles = w[FTPU_LINK_CNT_CYCLES];
		c->busy = w[FTPU_LINK_CNT_BUSY];
		c->macs = w64(FTPU_LINK_CNT_MACS_LO);
		c->weight_stall = w[FTPU_LINK_CNT_WEIGHT_STALL];
		c->input_stall = w[FTPU_LINK_CNT_INPUT_STALL];
		c->output_stall = w[FTPU_LINK_CNT_OUTPUT_STALL];
		c->idle = w[FTPU_LINK_CNT_IDLE];
		c->bytes_in = w64(FTPU_LINK_CNT_BYTES_IN_LO);
		c->bytes_out = w64(FTPU_LINK_CNT_BYTES_OUT_LO);
		c->instructions = w[FTPU_LINK_CNT_INSTRUCTIONS];
	}

	void get_stats(ftpu_sim_device_stats *st) const override
	{
		st->bytes_in = bytes_in;
		st->bytes_out = bytes_out;
	}

	// Holds rst_ni low with the link idle; queued bytes are dropped.
	void reset(unsigned n) override
	{
		inq.clear();
		outq.clear();
		in_wait = 0;
		hold_reset(n, [&] {
			top->in_valid_i = 0;
			top->out_ready_i = 0;
			top->reg_req_i = 0;
			top->reg_we_i = 0;
			clock([] {});
		});
		top->eval();
	}
};

} // namespace

FTPU_DEFINE_OPENER(Device)

// The generic half, weak (see the head of this file).
#define FTPU_WEAK __attribute__((weak))

namespace {
ftpu::DeviceIface *dev(ftpu_sim *sim)
{
	return dynamic_cast<ftpu::DeviceIface *>(sim);
}
const ftpu::DeviceIface *dev(const ftpu_sim *sim)
{
	return dynamic_cast<const ftpu::DeviceIface *>(sim);
}
} // namespace

extern "C" {

FTPU_WEAK bool ftpu_sim_device_get_config(const ftpu_sim *sim,
					  ftpu_sim_device_config *cfg)
{
	const ftpu::DeviceIface *d = dev(sim);
	if (!d || !cfg)
		return false;
	d->get_config(cfg);
	return true;
}

FTPU_WEAK bool ftpu_sim_device_set_pace(ftpu_sim *sim,
					const ftpu_sim_device_pace *pace)
{
	ftpu::DeviceIface *d = dev(sim);
	if (!d || !pace || !pace->in_period || !pace->out_period)
		return false;
	d->set_pace(pace);
	return true;
}

FTPU_WEAK bool ftpu_sim_device_push(ftpu_sim *sim, const void *bytes, size_t n)
{
	ftpu::DeviceIface *d = dev(sim);
	if (!d || (!bytes && n))
		return false;
	if (n)
		d->push(static_cast<const uint8_t *>(bytes), n);
	return true;
}

FTPU_WEAK size_t ftpu_sim_device_in_queued(const ftpu_sim *sim)
{
	const ftpu::DeviceIface *d = dev(sim);
	return d ? d->in_queued() : 0;
}

FTPU_WEAK size_t ftpu_sim_device_pull(ftpu_sim *sim, void *buf, size_t cap)
{
	ftpu::DeviceIface *d = dev(sim);
	return d && buf ? d->pull(static_cast<uint8_t *>(buf), cap) : 0;
}

FTPU_WEAK size_t ftpu_sim_device_out_queued(const ftpu_sim *sim)
{
	const ftpu::DeviceIface *d = dev(sim);
	return d ? d->out_queued() : 0;
}

FTPU_WEAK bool ftpu_sim_device_run(ftpu_sim *sim, uint64_t n)
{
	ftpu::DeviceIface *d = dev(sim);
	if (!d)
		return false;
	d->run(n);
	return true;
}

FTPU_WEAK bool ftpu_sim_device_run_until_idle(ftpu_sim *sim,
					      uint64_t max_cycles,
					      uint64_t *ran)
{
	ftpu::DeviceIface *d = dev(sim);
	if (!d) {
		if (ran)
			*ran = 0;
		return false;
	}
	return d->run_until_idle(max_cycles, ran);
}

FTPU_WEAK uint32_t ftpu_sim_device_credit(const ftpu_sim *sim)
{
	const ftpu::DeviceIface *d = dev(sim);
	return d ? d->credit() : 0;
}

FTPU_WEAK bool ftpu_sim_device_idle(const ftpu_sim *sim)
{
	const ftpu::DeviceIface *d = dev(sim);
	return d && d->idle();
}

FTPU_WEAK bool ftpu_sim_device_reg_read(ftpu_sim *sim, unsigned addr,
					uint32_t *value)
{
	ftpu::DeviceIface *d = dev(sim);
	if (!d || !value)
		return false;
	*value = d->reg_read(addr);
	return true;
}

FTPU_WEAK bool ftpu_sim_device_reg_write(ftpu_sim *sim, unsigned addr,
					 uint32_t value)
{
	ftpu::DeviceIface *d = dev(sim);
	if (!d)
		return false;
	d->reg_write(addr, value);
	return true;
}

FTPU_WEAK bool ftpu_sim_device_read_counters(ftpu_sim *sim,
					     ftpu_sim_device_counters *c)
{
	ftpu::DeviceIface *d = dev(sim);
	if (!d || !c)
		return false;
	d->read_counters(c);
	return true;
}

FTPU_WEAK bool ftpu_sim_device_get_stats(const ftpu_sim *sim,
					 ftpu_sim_device_stats *st)
{
	const ftpu::DeviceIface *d = dev(sim);
	if (!d || !st)
		return false;
	d->get_stats(st);
	return true;
}

} // extern "C"
