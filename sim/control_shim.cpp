// SPDX-License-Identifier: Apache-2.0
// control_shim.cpp - ftpu_sim over a Verilated ftpu_control (rtl/core/): one
// call per clock cycle, all ports in one struct. Compiled with FTPU_MODEL,
// FTPU_VCLASS, FTPU_VHEADER and the model's configuration as FTPU_DEV_* (mk/spec.mk; the
// Verilated class does not expose parameters). Its C functions are not
// per-model: link at most one control model into a program.
#include <new>

#include "sim_model.hpp"
#include FTPU_VHEADER

namespace {

struct Control : ftpu::Model<FTPU_VCLASS> {
	void drive(const ftpu_sim_control_io *io)
	{
		top->req_valid_i = io->req_valid;
		top->req_data_i = io->req_word;
		top->rsp_ready_i = io->rsp_ready;
		top->credit_i = io->credit;
		top->state_i = io->state & 3u;
		top->free_words_i = io->free_words;
		top->queued_words_i = io->queued_words;
		top->ev_busy_i = !!(io->ev & FTPU_SIM_CTL_EV_BUSY);
		top->ev_mac_i = !!(io->ev & FTPU_SIM_CTL_EV_MAC);
		top->ev_weight_stall_i = !!(io->ev & FTPU_SIM_CTL_EV_WEIGHT_STALL);
		top->ev_input_stall_i = !!(io->ev & FTPU_SIM_CTL_EV_INPUT_STALL);
		top->ev_output_stall_i = !!(io->ev & FTPU_SIM_CTL_EV_OUTPUT_STALL);
		top->ev_idle_i = !!(io->ev & FTPU_SIM_CTL_EV_IDLE);
		top->ev_bytes_in_i = !!(io->ev & FTPU_SIM_CTL_EV_BYTE_IN);
		top->ev_bytes_out_i = !!(io->ev & FTPU_SIM_CTL_EV_BYTE_OUT);
		top->ev_instr_i = !!(io->ev & FTPU_SIM_CTL_EV_INSTR);
		top->fault_valid_i = io->fault_valid;
		top->fault_pc_i = io->fault_pc;
		top->fault_code_i = io->fault_code;
		top->fault_instr_i = io->fault_instr;
		top->reset_done_i = io->reset_done;
		top->reg_req_i = io->reg_req;
		top->reg_we_i = io->reg_we;
		top->reg_addr_i = io->reg_addr;
		top->reg_wdata_i = io->reg_wdata;
	}

	void sample(ftpu_sim_control_io *io) const
	{
		io->req_ready = top->req_ready_o;
		io->rsp_valid = top->rsp_valid_o;
		io->rsp_word = top->rsp_data_o;
		io->reset = top->reset_o;
		io->reg_rdata = top->reg_rdata_o;
	}

	// Low half of the cycle: inputs settle, outputs are sampled; then the
	// rising edge.
	void cycle(ftpu_sim_control_io *io)
	{
		drive(io);
		clock([&] { sample(io); });
	}

	void reset(unsigned n) override
	{
		ftpu_sim_control_io idle = {};
		hold_reset(n, [&] { cycle(&idle); });
	}
};

} // namespace

FTPU_DEFINE_OPENER(Control)

extern "C" bool ftpu_sim_control_get_params(const ftpu_sim *sim,
					ftpu_sim_control_params *p)
{
	if (!dynamic_cast<const Control *>(sim) || !p)
		return false;
	struct ftpu_sim_control_params q = {
		FTPU_DEV_N,	       FTPU_DEV_N,	     FTPU_DEV_UB_VECTORS,
		FTPU_DEV_WEIGHT_TILES, FTPU_DEV_ACC_VECTORS, FTPU_DEV_BIAS_VECTORS,
		FTPU_DEV_IQ_WORDS,     FTPU_DEV_CLOCK_HZ,    FTPU_DEV_ROW_DELAY,
		FTPU_DEV_MAX_PAYLOAD,  FTPU_DEV_VECTOR_UNIT, FTPU_DEV_LINK_BYTES,
	};
	*p = q;
	return true;
}

extern "C" bool ftpu_sim_control_cycle(ftpu_sim *sim, ftpu_sim_control_io *io)
{
	Control *c = dynamic_cast<Control *>(sim);
	if (!c || !io)
		return false;
	c->cycle(io);
	return true;
}
