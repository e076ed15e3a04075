// SPDX-License-Identifier: Apache-2.0
// array_shim.cpp - ftpu_sim over a Verilated ftpu_systolic_array.
// Compiled once per array size with FTPU_MODEL, FTPU_VCLASS, FTPU_VHEADER,
// FTPU_ROWS, FTPU_COLS, FTPU_ROW_DELAY and FTPU_COL_SKEW (the Verilated
// class does not expose parameters).
#include <new>

#include "sim_model.hpp"
#include FTPU_VHEADER

namespace {

constexpr unsigned kRows = FTPU_ROWS, kCols = FTPU_COLS;
constexpr unsigned kRowDelay = FTPU_ROW_DELAY, kColSkew = FTPU_COL_SKEW;
constexpr unsigned kWords16(unsigned n) { return (n * 16 + 31) / 32; }

struct Array : ftpu::Model<FTPU_VCLASS> {
	bool array_dims(ftpu_array_dims *d) const override
	{
		d->rows = kRows;
		d->cols = kCols;
		d->row_delay = kRowDelay;
		// ftpu_systolic_array's Latency
		d->latency = kRows * kRowDelay + kColSkew * (kCols - 1) + 2;
		return true;
	}

	void drive(const ftpu_array_in *in)
	{
		uint32_t act[kWords16(kRows) + 1] = {0};
		uint32_t wl[kWords16(kCols) + 1] = {0};
		uint32_t psum[kCols + 1] = {0};
		bool valid = in && in->valid, wl_valid = in && in->wl_valid;
		if (valid) {
			for (unsigned r = 0; r < kRows; r++)
				act[r / 2] |= (uint32_t)in->act[r] << (16 * (r % 2));
			for (unsigned c = 0; c < kCols; c++)
				psum[c] = in->psum[c];
		}
		if (wl_valid)
			for (unsigned c = 0; c < kCols; c++)
				wl[c / 2] |= (uint32_t)in->wl_data[c] << (16 * (c % 2));
		top->in_valid_i = valid;
		top->in_wsel_i = valid && in->wsel;
		ftpu::to_port(top->in_act_i, act);
		ftpu::to_port(top->in_psum_i, psum);
		top->wl_valid_i = wl_valid;
		top->wl_buf_i = wl_valid && in->wl_buf;
		top->wl_row_i = wl_valid ? in->wl_row : 0;
		ftpu::to_port(top->wl_data_i, wl);
	}

	// Low half of the cycle: inputs settle, outputs are sampled; then the
	// rising edge.
	void array_cycle(const ftpu_array_in *in, bool *out_valid,
			 uint32_t *out_psum) override
	{
		drive(in);
		clock([&] {
			if (out_valid)
				*out_valid = top->out_valid_o;
			if (out_psum && top->out_valid_o)
				ftpu::from_port(top->out_psum_o, out_psum);
		});
	}

	void reset(unsigned n) override
	{
		hold_reset(n, [&] { array_cycle(nullptr, nullptr, nullptr); });
	}
};

} // namespace

FTPU_DEFINE_OPENER(Array)
