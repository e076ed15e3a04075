// SPDX-License-Identifier: Apache-2.0
// lanes_shim.cpp - ftpu_sim over a Verilated ftpu_lanes (sim/tops/).
// Compiled once per lanes model with FTPU_MODEL, FTPU_VCLASS, FTPU_VHEADER
// and FTPU_LANES_DELAY (the model's pipeline registers less one, or 0).
#include <new>

#include "sim_model.hpp"
#include FTPU_VHEADER

namespace {

struct Lanes : ftpu::Model<FTPU_VCLASS> {
	static constexpr unsigned kLanes = sizeof(top->x_i) / sizeof(uint32_t);

	unsigned lanes() const override { return kLanes; }
	unsigned lanes_delay() const override { return FTPU_LANES_DELAY; }

	void lanes_eval(const uint32_t *x, const uint32_t *y, const uint32_t *z,
			uint32_t *r) override
	{
		ftpu::to_port(top->x_i, x);
		ftpu::to_port(top->y_i, y);
		ftpu::to_port(top->z_i, z);
		top->clk_i = 1;
		eval();
		ftpu::from_port(top->r_o, r);
		top->clk_i = 0;
		eval();
		cycles++;
	}
};

} // namespace

FTPU_DEFINE_OPENER(Lanes)
