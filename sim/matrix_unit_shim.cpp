// SPDX-License-Identifier: Apache-2.0
// matrix_unit_shim.cpp - ftpu_sim over a Verilated ftpu_matrix_unit_tb
// (sim/tops/): backdoor memory access, a command queue offered in order,
// and a run loop that counts the unit's performance events. Compiled with
// FTPU_MODEL, FTPU_VCLASS, FTPU_VHEADER, FTPU_N, FTPU_ROW_DELAY,
// FTPU_COL_SKEW and the address widths FTPU_UB_ADDR_W, FTPU_WM_ADDR_W,
// FTPU_ACC_ADDR_W (the Verilated class does not expose parameters).
#include <deque>
#include <new>

#include "sim_model.hpp"
#include FTPU_VHEADER

namespace {

constexpr unsigned kN = FTPU_N, kRowDelay = FTPU_ROW_DELAY, kColSkew = FTPU_COL_SKEW;
constexpr unsigned kUb = 1u << FTPU_UB_ADDR_W, kWm = 1u << FTPU_WM_ADDR_W;
constexpr unsigned kAcc = 1u << FTPU_ACC_ADDR_W;

struct MatrixUnit : ftpu::Model<FTPU_VCLASS> {
	std::deque<ftpu_mu_cmd> queue;

	bool mu_dims(ftpu_mu_dims *d) const override
	{
		d->n = kN;
		d->row_delay = kRowDelay;
		d->latency = kN * kRowDelay + kColSkew * (kN - 1) + 2; // ftpu_systolic_array's
		d->ub_vectors = kUb;
		d->wm_rows = kWm;
		d->acc_vectors = kAcc;
		return true;
	}

	static unsigned depth(ftpu_sim_mu_mem mem)
	{
		return mem == FTPU_SIM_MU_UB ? kUb : mem == FTPU_SIM_MU_WM ? kWm : kAcc;
	}

	// Drives the head of the queue (if any); the backdoor stays as set.
	void drive_cmd()
	{
		bool v = !queue.empty();
		const ftpu_mu_cmd c = v ? queue.front() : ftpu_mu_cmd{};
		top->cmd_valid_i = v;
		top->cmd_op_i = c.matmul;
		top->cmd_wm_addr_i = c.wm_addr;
		top->cmd_ub_addr_i = c.ub_addr;
		top->cmd_acc_addr_i = c.acc_addr;
		top->cmd_n_i = c.n;
		top->cmd_accumulate_i = c.accumulate;
		top->cmd_swap_i = c.swap;
	}

	// Low half of the cycle: inputs settle and outputs are sampled (the
	// caller's function), then the rising edge.
	bool mu_write(ftpu_sim_mu_mem mem, unsigned addr, const uint32_t *w) override
	{
		if (addr >= depth(mem) || top->busy_o || !queue.empty())
			return false;
		uint32_t data[kN] = {0};
		for (unsigned i = 0; i < (mem == FTPU_SIM_MU_ACC ? kN : kN / 2); i++)
			data[i] = w[i];
		top->cmd_valid_i = 0;
		top->bd_we_i = 1;
		top->bd_mem_i = mem;
		top->bd_addr_i = addr;
		ftpu::to_port(top->bd_wdata_i, data);
		clock([] {});
		top->bd_we_i = 0;
		return true;
	}

	bool mu_read(ftpu_sim_mu_mem mem, unsigned addr, uint32_t *w) override
	{
		if (addr >= depth(mem))
			return false;
		uint32_t data[kN];
		top->bd_mem_i = mem;
		top->bd_addr_i = addr;
		top->eval();
		ftpu::from_port(top->bd_rdata_o, data);
		for (unsigned i = 0; i < (mem == FTPU_SIM_MU_ACC ? kN : kN / 2); i++)
			w[i] = data[i];
		return true;
	}

	bool mu_push(const ftpu_mu_cmd *c) override
	{
		queue.push_back(*c);
		return true;
	}

	bool mu_run(uint64_t max_cycles, ftpu_mu_stats *st) override
	{
		ftpu_mu_stats s = {};
		uint64_t first = 0, last = 0;
		bool started = false, wrote = false;
		top->bd_we_i = 0;
		while (!queue.empty() || top->busy_o) {
			if (s.cycles == max_cycles) {
				if (st)
					*st = s;
				return false;
			}
			drive_cmd();
			clock([&] {
				if (top->cmd_valid_i && top->cmd_ready_o) {
					queue.pop_front();
					if (!started)
						first = s.cycles, started = true;
				}
				if (top->acc_wr_o)
					last = s.cycles, wrote = true, s.acc_writes++;
				s.vectors += top->mac_o;
				s.weight_stalls += top->weight_stall_o;
				s.input_stalls += top->input_stall_o;
			});
			s.cycles++;
		}
		top->cmd_valid_i = 0;
		top->eval();
		s.span = started && wrote ? last - first + 1 : 0;
		if (st)
			*st = s;
		return true;
	}

	void reset(unsigned n) override
	{
		queue.clear();
		top->cmd_valid_i = 0;
		top->bd_we_i = 0;
		hold_reset(n, [&] { clock([] {}); });
		top->eval();
	}
};

} // namespace

FTPU_DEFINE_OPENER(MatrixUnit)
