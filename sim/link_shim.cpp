// SPDX-License-Identifier: Apache-2.0
// link_shim.cpp - ftpu_sim over a Verilated ftpu_link_loop (sim/tops/):
// one call per clock cycle, all ports in one struct. Compiled with
// FTPU_MODEL, FTPU_VCLASS, FTPU_VHEADER, FTPU_LINK_DEPTH and
// FTPU_LINK_BYTES (the model's Depth and Bytes; the Verilated class does
// not expose parameters).
#include <new>

#include "sim_model.hpp"
#include FTPU_VHEADER

namespace {

struct Link : ftpu::Model<FTPU_VCLASS> {
	unsigned link_capacity() const override { return FTPU_LINK_DEPTH; }

	void drive(const ftpu_sim_link_io *io)
	{
		top->loop_i = io->loop;
		top->rx_in_valid_i = io->rx_valid;
#if FTPU_LINK_BYTES == 1
		top->rx_in_data_i = io->rx_byte;
		top->rx_in_count_i = 1;
#else
		top->rx_in_data_i = io->rx_beat;
		top->rx_in_count_i = io->rx_count;
#endif
		top->rx_out_ready_i = io->rx_out_ready;
		top->rx_ctl_ready_i = io->ctl_ready;
		top->flush_i = io->flush;
		top->err_ready_i = io->err_ready;
		top->tx_in_valid_i = io->tx_valid;
		top->tx_in_data_i = io->tx_word;
		top->tx_out_ready_i = io->tx_out_ready;
	}

	void sample(ftpu_sim_link_io *io) const
	{
		io->rx_ready = top->rx_in_ready_o;
		io->rx_out_valid = top->rx_out_valid_o;
		io->rx_out_word = top->rx_out_data_o;
		io->credit = top->rx_credit_o;
		io->ctl_valid = top->rx_ctl_valid_o;
		io->ctl_word = top->rx_ctl_data_o;
		io->ack_seq = top->ack_seq_o;
		io->err_valid = top->err_valid_o;
		io->err_code = top->err_code_o;
		io->err_seq = top->err_seq_o;
		io->err_type = top->err_type_o;
		io->tx_ready = top->tx_in_ready_o;
		io->tx_out_valid = top->tx_out_valid_o;
#if FTPU_LINK_BYTES == 1
		io->tx_out_byte = top->tx_out_data_o;
#else
		io->tx_out_beat = top->tx_out_data_o;
#endif
	}

	// Low half of the cycle: inputs settle, outputs are sampled; then the
	// rising edge.
	bool link_cycle(ftpu_sim_link_io *io) override
	{
		drive(io);
		clock([&] { sample(io); });
		return true;
	}

	bool link_stats(ftpu_sim_link_stats *s) const override
	{
		uint32_t err[5];
		ftpu::from_port(top->err_count_o, err);
		s->frames_ok = top->frames_ok_o;
		s->bytes_skipped = top->bytes_skipped_o;
		s->errors[0] = 0;
		for (unsigned c = 1; c <= 5; c++)
			s->errors[c] = err[c - 1];
		s->err_lost = top->err_lost_o;
		return true;
	}

	void reset(unsigned n) override
	{
		ftpu_sim_link_io idle = {};
		hold_reset(n, [&] { link_cycle(&idle); });
	}
};

} // namespace

FTPU_DEFINE_OPENER(Link)
