// SPDX-License-Identifier: Apache-2.0
// phy_shim.cpp - ftpu_sim over a Verilated PHY test top (sim/tops/
// ftpu_phy_*_tb.sv), the C API of sim/ftpu_sim_phy.h. Compiled once per
// model with FTPU_MODEL, FTPU_VCLASS, FTPU_VHEADER, one of FTPU_PHY_UART,
// FTPU_PHY_FT245, FTPU_PHY_AXIS, and that PHY's parameters as FTPU_PHY_*
// (the Verilated class does not expose parameters).
//
// Two clocks, scheduled in picoseconds: every call runs the falling edges
// due before the next rising edge, then drives the inputs, settles,
// samples the outputs and raises the clock(s) of that edge. FST traces
// (TRACE=1) are stamped in half-picoseconds (2t before the edge, 2t + 1
// after), so both clocks show at their real ratio.
//
// Several PHY models link into one test (the UART at three rates): the C
// functions are identical in every PHY shim and dispatch through the
// PhyIface interface, so they are defined weak and the linker keeps one.
#include <new>

#include "sim_model.hpp"
#include "ftpu_sim_phy.h"
#include FTPU_VHEADER

namespace ftpu {

// What the generic C functions need from any PHY model. Defined the same
// in every PHY shim (one definition under the ODR).
struct PhyIface {
	virtual ~PhyIface() = default;
	virtual void phy_config(ftpu_sim_phy_config *cfg) const = 0;
	virtual bool set_clocks(uint32_t core, uint32_t pin, uint32_t phase) = 0;
	virtual unsigned next_edges() const = 0;
	virtual uint64_t now_ps() const = 0;
	virtual uint64_t pin_edges() const = 0;
	virtual bool uart_cycle(ftpu_sim_uart_io *) { return false; }
	virtual unsigned ft245_cycle(ftpu_sim_ft245_io *) { return 0; }
	virtual unsigned axis_cycle(ftpu_sim_axis_io *) { return 0; }
};

} // namespace ftpu

namespace {

// The clock schedule and the edge loop; C sets the clock and reset pins.
template <class C, class V> struct Phy : ftpu::Model<V>, ftpu::PhyIface {
	static constexpr unsigned NClk = 2; // 0 core, 1 pin
	bool has_pin = true;
	uint64_t period[NClk] = {10000, 16667};
	uint64_t next_rise[NClk] = {10000, 16667};
	uint64_t fall_at[NClk] = {0, 0};
	bool high[NClk] = {false, false};
	uint64_t now = 0, pins = 0;

	C &self() { return *static_cast<C *>(this); }

	void eval_at(uint64_t t2)
	{
		this->top->eval();
#ifdef FTPU_TRACE
		if (this->fst)
			this->fst->dump(t2);
#else
		(void)t2;
#endif
	}

	bool set_clocks(uint32_t core, uint32_t pin, uint32_t phase) override
	{
		if (core < 2 || (has_pin && (pin < 2 || phase >= pin)))
			return false;
		period[0] = core;
		period[1] = pin;
		next_rise[0] = now + core;
		next_rise[1] = now + phase + pin;
		return true;
	}

	unsigned next_edges() const override
	{
		uint64_t t = next_rise[0];
		if (has_pin && next_rise[1] < t)
			t = next_rise[1];
		unsigned m = next_rise[0] == t ? FTPU_SIM_PHY_CORE : 0;
		if (has_pin && next_rise[1] == t)
			m |= FTPU_SIM_PHY_PIN;
		return m;
	}

	uint64_t now_ps() const override { return now; }
	uint64_t pin_edges() const override { return pins; }

	// Runs to the next rising edge: falls due first (in time order), then
	// drive(), settle, sample(), rise. Returns the clocks that rose.
	template <class D, class S> unsigned edge(D drive, S sample)
	{
		unsigned m = next_edges();
		uint64_t t = next_rise[(m & FTPU_SIM_PHY_CORE) ? 0 : 1];
		for (;;) {
			int f = -1;
			for (unsigned i = 0; i < NClk; i++)
				if (high[i] && fall_at[i] <= t &&
				    (f < 0 || fall_at[i] < fall_at[f]))
					f = (int)i;
			if (f < 0)
				break;
			high[f] = false;
			self().set_clk((unsigned)f, false);
			eval_at(2 * fall_at[f]);
		}
		drive();
		eval_at(2 * t);
		sample();
		for (unsigned i = 0; i < NClk; i++) {
			if (!(m & (1u << i)))
				continue;
			high[i] = true;
			fall_at[i] = t + period[i] / 2;
			next_rise[i] = t + period[i];
			self().set_clk(i, true);
		}
		eval_at(2 * t + 1);
		now = t;
		if (m & FTPU_SIM_PHY_CORE)
			this->cycles++;
		if (m & FTPU_SIM_PHY_PIN)
			pins++;
		return m;
	}

	// Both resets low until each clock has risen n times.
	template <class I> void hold_resets(unsigned n, I idle_edge)
	{
		uint64_t c0 = this->cycles, p0 = pins;
		self().set_resets(false);
		while (this->cycles - c0 < n || (has_pin && pins - p0 < n))
			idle_edge();
		self().set_resets(true);
	}
};

#if defined(FTPU_PHY_UART)

struct Uart : Phy<Uart, FTPU_VCLASS> {
	Uart() { has_pin = false; }

	void set_clk(unsigned i, bool v)
	{
		if (i == 0)
			top->clk_i = v;
	}
	void set_resets(bool v) { top->rst_ni = v; }

	void phy_config(ftpu_sim_phy_config *c) const override
	{
		*c = {};
		c->kind = FTPU_SIM_PHY_UART;
		c->clock_hz = FTPU_PHY_CLOCK_HZ;
		c->baud = FTPU_PHY_BAUD;
		c->fifo_depth = FTPU_PHY_FIFO_DEPTH;
	}

	void drive(const ftpu_sim_uart_io *io)
	{
		top->loop_i = io->loop;
		top->uart_rx_i = io->rx;
		top->out_ready_i = io->out_ready;
		top->in_valid_i = io->in_valid;
		top->in_data_i = io->in_byte;
	}

	void sample(ftpu_sim_uart_io *io) const
	{
		io->tx = top->uart_tx_o;
		io->out_valid = top->out_valid_o;
		io->out_byte = top->out_data_o;
		io->in_ready = top->in_ready_o;
		io->frame_err = top->frame_err_o;
		io->brk = top->break_o;
		io->overrun = top->overrun_o;
		io->frame_errs = top->frame_errs_o;
		io->overruns = top->overruns_o;
	}

	bool uart_cycle(ftpu_sim_uart_io *io) override
	{
		edge([&] { drive(io); }, [&] { sample(io); });
		return true;
	}

	void reset(unsigned n) override
	{
		ftpu_sim_uart_io idle = {};
		idle.rx = true;
		hold_resets(n, [&] { uart_cycle(&idle); });
	}
};

#elif defined(FTPU_PHY_FT245)

struct Ft245 : Phy<Ft245, FTPU_VCLASS> {
	void set_clk(unsigned i, bool v)
	{
		if (i == 0)
			top->clk_i = v;
		else
			top->ft_clk_i = v;
	}
	void set_resets(bool v) { top->rst_ni = top->ft_rst_ni = v; }

	void phy_config(ftpu_sim_phy_config *c) const override
	{
		*c = {};
		c->kind = FTPU_SIM_PHY_FT245;
		c->rx_depth = FTPU_PHY_RX_DEPTH;
		c->tx_depth = FTPU_PHY_TX_DEPTH;
		c->burst = FTPU_PHY_BURST;
		c->flush_idle = FTPU_PHY_FLUSH_IDLE;
	}

	void drive(const ftpu_sim_ft245_io *io)
	{
		top->loop_i = io->loop;
		top->out_ready_i = io->out_ready;
		top->in_valid_i = io->in_valid;
		top->in_data_i = io->in_byte;
		top->ft_rxf_ni = io->rxf_n;
		top->ft_txe_ni = io->txe_n;
		top->chip_d_i = io->chip_d;
		top->float_d_i = io->float_d;
	}

	void sample(ftpu_sim_ft245_io *io) const
	{
		io->out_valid = top->out_valid_o;
		io->out_byte = top->out_data_o;
		io->in_ready = top->in_ready_o;
		io->rd_n = top->ft_rd_no;
		io->wr_n = top->ft_wr_no;
		io->oe_n = top->ft_oe_no;
		io->siwu_n = top->ft_siwu_no;
		io->data_oe = top->ft_data_oe_o;
		io->bus = top->bus_o;
		io->contention = top->contention_o;
	}

	unsigned ft245_cycle(ftpu_sim_ft245_io *io) override
	{
		return edge([&] { drive(io); }, [&] { sample(io); });
	}

	void reset(unsigned n) override
	{
		ftpu_sim_ft245_io idle = {};
		idle.rxf_n = idle.txe_n = true;
		hold_resets(n, [&] { ft245_cycle(&idle); });
	}
};

#elif defined(FTPU_PHY_AXIS)

struct Axis : Phy<Axis, FTPU_VCLASS> {
	void set_clk(unsigned i, bool v)
	{
		if (i == 0)
			top->clk_i = v;
		else
			top->aclk_i = v;
	}
	void set_resets(bool v) { top->rst_ni = top->arst_ni = v; }

	void phy_config(ftpu_sim_phy_config *c) const override
	{
		*c = {};
		c->kind = FTPU_SIM_PHY_AXIS;
		c->data_w = FTPU_PHY_DATA_W;
		c->async = FTPU_PHY_ASYNC != 0;
		c->fifo_depth = FTPU_PHY_FIFO_DEPTH;
		c->flush_idle = FTPU_PHY_FLUSH_IDLE;
	}

	void drive(const ftpu_sim_axis_io *io)
	{
		top->loop_i = io->loop;
		top->out_ready_i = io->out_ready;
		top->in_valid_i = io->in_valid;
		top->in_data_i = io->in_byte;
		top->s_axis_tvalid_i = io->s_tvalid;
		ftpu::to_port(top->s_axis_tdata_i, io->s_tdata);
		top->s_axis_tkeep_i = io->s_tkeep;
		top->s_axis_tlast_i = io->s_tlast;
		top->m_axis_tready_i = io->m_tready;
	}

	void sample(ftpu_sim_axis_io *io) const
	{
		io->out_valid = top->out_valid_o;
		io->out_byte = top->out_data_o;
		io->in_ready = top->in_ready_o;
		io->s_tready = top->s_axis_tready_o;
		io->m_tvalid = top->m_axis_tvalid_o;
		uint32_t w[4] = {0, 0, 0, 0};
		ftpu::from_port(top->m_axis_tdata_o, w);
		for (unsigned i = 0; i < 4; i++)
			io->m_tdata[i] = w[i];
		io->m_tkeep = top->m_axis_tkeep_o;
		io->m_tlast = top->m_axis_tlast_o;
	}

	unsigned axis_cycle(ftpu_sim_axis_io *io) override
	{
		return edge([&] { drive(io); }, [&] { sample(io); });
	}

	void reset(unsigned n) override
	{
		ftpu_sim_axis_io idle = {};
		hold_resets(n, [&] { axis_cycle(&idle); });
	}
};

#else
#error "phy_shim.cpp: define FTPU_PHY_UART, FTPU_PHY_FT245 or FTPU_PHY_AXIS"
#endif

const ftpu::PhyIface *phy(const ftpu_sim *sim)
{
	return dynamic_cast<const ftpu::PhyIface *>(sim);
}

ftpu::PhyIface *phy(ftpu_sim *sim)
{
	return dynamic_cast<ftpu::PhyIface *>(sim);
}

} // namespace

#if defined(FTPU_PHY_UART)
FTPU_DEFINE_OPENER(Uart)
#elif defined(FTPU_PHY_FT245)
FTPU_DEFINE_OPENER(Ft245)
#else
FTPU_DEFINE_OPENER(Axis)
#endif

extern "C" {

__attribute__((weak)) bool
ftpu_sim_phy_get_config(const ftpu_sim *sim, ftpu_sim_phy_config *cfg)
{
	const ftpu::PhyIface *p = phy(sim);
	if (!p || !cfg)
		return false;
	p->phy_config(cfg);
	return true;
}

__attribute__((weak)) bool ftpu_sim_phy_set_clocks(ftpu_sim *sim,
						   uint32_t core_period_ps,
						   uint32_t pin_period_ps,
						   uint32_t pin_phase_ps)
{
	ftpu::PhyIface *p = phy(sim);
	return p && p->set_clocks(core_period_ps, pin_period_ps, pin_phase_ps);
}

__attribute__((weak)) unsigned ftpu_sim_phy_next(const ftpu_sim *sim)
{
	const ftpu::PhyIface *p = phy(sim);
	return p ? p->next_edges() : 0;
}

__attribute__((weak)) uint64_t ftpu_sim_phy_time_ps(const ftpu_sim *sim)
{
	const ftpu::PhyIface *p = phy(sim);
	return p ? p->now_ps() : 0;
}

__attribute__((weak)) uint64_t ftpu_sim_phy_pin_cycles(const ftpu_sim *sim)
{
	const ftpu::PhyIface *p = phy(sim);
	return p ? p->pin_edges() : 0;
}

__attribute__((weak)) bool ftpu_sim_uart_cycle(ftpu_sim *sim,
					       ftpu_sim_uart_io *io)
{
	ftpu::PhyIface *p = phy(sim);
	return p && io && p->uart_cycle(io);
}

__attribute__((weak)) unsigned ftpu_sim_ft245_cycle(ftpu_sim *sim,
						    ftpu_sim_ft245_io *io)
{
	ftpu::PhyIface *p = phy(sim);
	return p && io ? p->ft245_cycle(io) : 0;
}

__attribute__((weak)) unsigned ftpu_sim_axis_cycle(ftpu_sim *sim,
						   ftpu_sim_axis_io *io)
{
	ftpu::PhyIface *p = phy(sim);
	return p && io ? p->axis_cycle(io) : 0;
}

} // extern "C"
