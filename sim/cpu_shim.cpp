// SPDX-License-Identifier: Apache-2.0
// cpu_shim.cpp - ftpu_sim over a Verilated ftpu_cpu_tb (sim/tops/): the
// control core with its memories, driven through sim/ftpu_sim_cpu.h. The
// shim plays the rest of the device: it answers the register port as the
// control plane would (a table the test sets), feeds the CONTROL mailbox
// and collects RESPONSE words. Compiled with FTPU_MODEL, FTPU_VCLASS,
// FTPU_VHEADER, FTPU_CPU_ROM_WORDS and FTPU_CPU_RAM_WORDS (the model's
// parameters). Its C functions are not per-model: link at most one cpu
// model into a program.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <new>
#include <string>
#include <vector>

#include "ftpu_sim_cpu.h"
#include "ftpu_spec.h"
#include "sim_model.hpp"
#include FTPU_VHEADER

namespace
{

constexpr uint32_t RomBase = 0x00000000u;
constexpr uint32_t RamBase = 0x00010000u;
constexpr uint32_t MmioBase = 0x40000000u;
constexpr uint32_t RomBytes = 4u * FTPU_CPU_ROM_WORDS;
constexpr uint32_t RamBytes = 4u * FTPU_CPU_RAM_WORDS;

bool in_mem(uint32_t addr)
{
	return (addr - RomBase < RomBytes) || (addr - RamBase < RamBytes);
}

struct Cpu : ftpu::Model<FTPU_VCLASS> {
	uint32_t regs[256] = {};
	unsigned reg_nreads[256] = {};
	unsigned reg_nwrites[256] = {};
	uint32_t reg_last[256] = {};
	std::deque<uint32_t> ctl;
	std::vector<uint32_t> rsp;
	std::string console;
	ftpu_sim_cpu_stats st = {};
	unsigned rsp_period = 1;
	uint16_t credit = 0;
	unsigned ext_delay = 0;
	// RESPONSE framing: words left in the frame being received, or -1
	// before its w1, -2 before its w2.
	long rsp_left = -1;
	// reg_rdata_i of the next cycle: the word read in this one, else 0
	// (ftpu_control's register protocol)
	uint32_t reg_rdata_next = 0;

	void drive_idle()
	{
		top->ld_we_i = 0;
		top->ext_delay_i = ext_delay & 15u;
		top->credit_i = credit;
		top->ctl_valid_i = !ctl.empty();
		top->ctl_data_i = ctl.empty() ? 0 : ctl.front();
		top->rsp_ready_i = (cycles % rsp_period) == 0;
		top->reg_rdata_i = reg_rdata_next;
		reg_rdata_next = 0;
	}

	// One clock cycle of the running model; events of the cycle are
	// counted from the outputs sampled before the edge.
	unsigned step()
	{
		unsigned ev = 0;
		drive_idle();
		clock([&] {
			if (top->reg_req_o) {
				unsigned a = top->reg_addr_o;
				if (top->reg_we_o) {
					reg_nwrites[a]++;
					reg_last[a] = top->reg_wdata_o;
					// ftpu_control: CMD SNAPSHOT copies
					// the counters to SNAP
					if (a == FTPU_REG_CMD &&
					    (top->reg_wdata_o >> FTPU_CMD_SNAPSHOT_LSB & 1))
						for (unsigned i = 0; i < FTPU_LINK_CNT_COUNT; i++)
							regs[FTPU_REG_SNAP + i] =
								regs[FTPU_REG_CYCLES + i];
				} else {
					reg_nreads[a]++;
					reg_rdata_next = regs[a];
				}
			}
			if (top->ctl_valid_i && top->ctl_ready_o)
				ctl.pop_front();
			if (top->rsp_valid_o && top->rsp_ready_i) {
				uint32_t w = top->rsp_data_o;
				rsp.push_back(w);
				if (rsp_left == -1) {
					rsp_left = -2;
				} else if (rsp_left == -2) {
					rsp_left = w & 0xffffu;
				} else {
					rsp_left--;
				}
				if (rsp_left == 0) {
					rsp_left = -1;
					st.responses++;
					ev |= FTPU_SIM_CPU_UNTIL_RESPONSE;
				}
			}
			st.retired += top->retire_o;
			st.traps += top->trap_o;
			st.core_resets += top->core_rst_o;
			if (top->exit_valid_o) {
				st.exited = true;
				st.exit_code = top->exit_code_o;
				st.exit_cycle = st.cycles;
				ev |= FTPU_SIM_CPU_UNTIL_EXIT;
			}
			if (top->con_valid_o)
				console.push_back((char)top->con_data_o);
		});
		st.cycles++;
		return ev;
	}

	bool load(uint32_t addr, const uint32_t *w, size_t n)
	{
		if (addr & 3u || (!w && n))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!in_mem(addr + 4u * (uint32_t)i))
				return false;
		top->rst_ni = 0;
		for (size_t i = 0; i < n; i++) {
			top->ld_we_i = 1;
			top->ld_addr_i = (addr >> 2) + (uint32_t)i;
			top->ld_data_i = w[i];
			clock([] {});
		}
		top->ld_we_i = 0;
		return true;
	}

	void restart(unsigned n)
	{
		ctl.clear();
		rsp.clear();
		console.clear();
		rsp_left = -1;
		reg_rdata_next = 0;
		for (unsigned a = 0; a < 256; a++)
			reg_nreads[a] = reg_nwrites[a] = reg_last[a] = 0;
		hold_reset(n ? n : 1, [&] {
			drive_idle();
			clock([] {});
		});
		st = {};
	}

	void reset(unsigned n) override
	{
		restart(n);
	}
};

Cpu *cpu(ftpu_sim *sim)
{
	return dynamic_cast<Cpu *>(sim);
}

const Cpu *cpu(const ftpu_sim *sim)
{
	return dynamic_cast<const Cpu *>(sim);
}

// One hex token: false if it is not a hex number of at most 8 digits.
bool parse_hex(const std::string &t, uint32_t *v)
{
	if (t.empty() || t.size() > 8)
		return false;
	char *end = nullptr;
	errno = 0;
	unsigned long x = std::strtoul(t.c_str(), &end, 16);
	if (errno || *end)
		return false;
	*v = (uint32_t)x;
	return true;
}

} // namespace

FTPU_DEFINE_OPENER(Cpu)

extern "C" {

bool ftpu_sim_cpu_get_config(const ftpu_sim *sim, ftpu_sim_cpu_config *cfg)
{
	if (!cpu(sim) || !cfg)
		return false;
	*cfg = {RomBase, RomBytes, RamBase, RamBytes, MmioBase};
	return true;
}

bool ftpu_sim_cpu_load_words(ftpu_sim *sim, uint32_t addr,
			     const uint32_t *words, size_t n)
{
	Cpu *c = cpu(sim);
	return c && c->load(addr, words, n);
}

long ftpu_sim_cpu_load_hex(ftpu_sim *sim, const char *path)
{
	Cpu *c = cpu(sim);
	if (!c || !path)
		return -1;
	FILE *f = std::fopen(path, "r");
	if (!f)
		return -1;
	long loaded = 0;
	uint32_t addr = 0;
	std::string tok;
	bool ok = true;
	int ch;
	do {
		ch = std::fgetc(f);
		if (ch != EOF && !std::isspace(ch)) {
			tok.push_back((char)ch);
			continue;
		}
		if (tok.empty())
			continue;
		uint32_t v;
		if (tok[0] == '@') {
			ok = parse_hex(tok.substr(1), &v) && v < 0x40000000u;
			addr = v << 2;
		} else {
			ok = parse_hex(tok, &v) && c->load(addr, &v, 1);
			addr += 4;
			loaded++;
		}
		tok.clear();
	} while (ok && ch != EOF);
	std::fclose(f);
	return ok ? loaded : -1;
}

void ftpu_sim_cpu_restart(ftpu_sim *sim, unsigned cycles)
{
	Cpu *c = cpu(sim);
	if (c)
		c->restart(cycles);
}

unsigned ftpu_sim_cpu_run(ftpu_sim *sim, uint64_t max_cycles, unsigned until)
{
	Cpu *c = cpu(sim);
	if (!c)
		return 0;
	for (uint64_t i = 0; i < max_cycles; i++) {
		unsigned ev = c->step() & until;
		if (ev)
			return ev & (0u - ev); // lowest bit
	}
	return 0;
}

bool ftpu_sim_cpu_get_stats(const ftpu_sim *sim, ftpu_sim_cpu_stats *st)
{
	const Cpu *c = cpu(sim);
	if (!c || !st)
		return false;
	*st = c->st;
	return true;
}

size_t ftpu_sim_cpu_console(ftpu_sim *sim, char *buf, size_t cap)
{
	Cpu *c = cpu(sim);
	if (!c || !buf)
		return 0;
	size_t n = c->console.size() < cap ? c->console.size() : cap;
	c->console.copy(buf, n);
	c->console.erase(0, n);
	return n;
}

bool ftpu_sim_cpu_set_ext_delay(ftpu_sim *sim, unsigned delay)
{
	Cpu *c = cpu(sim);
	if (!c || delay > 15)
		return false;
	c->ext_delay = delay;
	return true;
}

bool ftpu_sim_cpu_reg_set(ftpu_sim *sim, unsigned addr, uint32_t value)
{
	Cpu *c = cpu(sim);
	if (!c || addr > 255)
		return false;
	c->regs[addr] = value;
	return true;
}

bool ftpu_sim_cpu_reg_writes(const ftpu_sim *sim, unsigned addr,
			     unsigned *count, uint32_t *last)
{
	const Cpu *c = cpu(sim);
	if (!c || addr > 255)
		return false;
	if (count)
		*count = c->reg_nwrites[addr];
	if (last)
		*last = c->reg_last[addr];
	return true;
}

unsigned ftpu_sim_cpu_reg_reads(const ftpu_sim *sim, unsigned addr)
{
	const Cpu *c = cpu(sim);
	return c && addr < 256 ? c->reg_nreads[addr] : 0;
}

bool ftpu_sim_cpu_ctl_push(ftpu_sim *sim, const uint32_t *words, size_t n)
{
	Cpu *c = cpu(sim);
	if (!c || (!words && n))
		return false;
	c->ctl.insert(c->ctl.end(), words, words + n);
	return true;
}

size_t ftpu_sim_cpu_ctl_queued(const ftpu_sim *sim)
{
	const Cpu *c = cpu(sim);
	return c ? c->ctl.size() : 0;
}

size_t ftpu_sim_cpu_rsp_pull(ftpu_sim *sim, uint32_t *words, size_t cap)
{
	Cpu *c = cpu(sim);
	if (!c || !words)
		return 0;
	size_t n = c->rsp.size() < cap ? c->rsp.size() : cap;
	std::copy(c->rsp.begin(), c->rsp.begin() + (long)n, words);
	c->rsp.erase(c->rsp.begin(), c->rsp.begin() + (long)n);
	return n;
}

bool ftpu_sim_cpu_set_credit(ftpu_sim *sim, uint16_t credit)
{
	Cpu *c = cpu(sim);
	if (!c)
		return false;
	c->credit = credit;
	return true;
}

bool ftpu_sim_cpu_set_rsp_period(ftpu_sim *sim, unsigned period)
{
	Cpu *c = cpu(sim);
	if (!c || !period)
		return false;
	c->rsp_period = period;
	return true;
}

} // extern "C"
