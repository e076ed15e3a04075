// SPDX-License-Identifier: Apache-2.0
// sim_model.hpp - the C++ side of ftpu_sim.h: one base class that every
// Verilated model's shim derives from, and helpers to move packed vectors
// between C word arrays and Verilator's port types.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

#include "ftpu_sim.h"
#include "verilated.h"

struct ftpu_sim {
	virtual ~ftpu_sim() = default;
	virtual unsigned lanes() const { return 0; }
	virtual unsigned lanes_delay() const { return 0; }
	virtual void lanes_eval(const uint32_t *, const uint32_t *,
				const uint32_t *, uint32_t *) {}
	virtual bool array_dims(ftpu_array_dims *) const { return false; }
	virtual void reset(unsigned) {}
	virtual void array_cycle(const ftpu_array_in *, bool *, uint32_t *) {}
	virtual unsigned link_capacity() const { return 0; }
	virtual bool link_cycle(ftpu_sim_link_io *) { return false; }
	virtual bool link_stats(ftpu_sim_link_stats *) const { return false; }
	virtual bool mu_dims(ftpu_mu_dims *) const { return false; }
	virtual bool mu_write(ftpu_sim_mu_mem, unsigned, const uint32_t *) { return false; }
	virtual bool mu_read(ftpu_sim_mu_mem, unsigned, uint32_t *) { return false; }
	virtual bool mu_push(const ftpu_mu_cmd *) { return false; }
	virtual bool mu_run(uint64_t, ftpu_mu_stats *) { return false; }
	uint64_t cycles = 0;
};

namespace ftpu {

// Copy between a port (any Verilator width class) and little-endian words.
template <std::size_t N>
inline void to_port(VlWide<N> &port, const uint32_t *w)
{
	std::memcpy(port.data(), w, N * sizeof(uint32_t));
}
template <typename T> inline void to_port(T &port, const uint32_t *w)
{
	uint64_t v = w[0];
	if (sizeof(T) > 4)
		v |= (uint64_t)w[1] << 32;
	port = (T)v;
}
template <std::size_t N>
inline void from_port(const VlWide<N> &port, uint32_t *w)
{
	std::memcpy(w, port.data(), N * sizeof(uint32_t));
}
template <typename T> inline void from_port(const T &port, uint32_t *w)
{
	uint64_t v = port;
	w[0] = (uint32_t)v;
	if (sizeof(T) > 4)
		w[1] = (uint32_t)(v >> 32);
}

} // namespace ftpu

#ifdef FTPU_TRACE
#include "verilated_fst_c.h"
#endif

// The threads a model was Verilated for (--threads, mk/models.mk): its
// context gets exactly these, not Verilator's default of one per CPU (a
// thread pool a single-threaded model never uses).
#ifndef FTPU_SIM_THREADS
#define FTPU_SIM_THREADS 1
#endif

namespace ftpu {

// Owns one Verilated model in its own context, and its optional FST trace.
template <class V> struct Model : ftpu_sim {
	std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
	std::unique_ptr<V> top;
#ifdef FTPU_TRACE
	std::unique_ptr<VerilatedFstC> fst;
#endif
	uint64_t time = 0;

	// False when a trace is asked of a build without tracing.
	bool open(const char *trace_path)
	{
#ifdef FTPU_TRACE
		if (trace_path)
			ctx->traceEverOn(true);
#endif
		ctx->threads(FTPU_SIM_THREADS);
		// Unpinned: several simulations in one machine share its CPUs.
		ctx->useNumaAssign(false);
		top.reset(new V{ctx.get()});
		// Settle once with the clock low, so that the first rising edge a
		// shim drives is seen as one.
		top->eval();
		if (!trace_path)
			return true;
#ifdef FTPU_TRACE
		fst.reset(new VerilatedFstC);
		top->trace(fst.get(), 99);
		fst->open(trace_path);
		return fst->isOpen();
#else
		return false;
#endif
	}

	// Settle combinational logic and record this time step.
	void eval()
	{
		top->eval();
#ifdef FTPU_TRACE
		if (fst)
			fst->dump(time);
#endif
		time++;
	}

	// One clock cycle: the low half settles the inputs already driven and
	// calls sample() on this cycle's outputs; then the rising edge.
	template <class F> void clock(F sample)
	{
		top->clk_i = 0;
		eval();
		sample();
		top->clk_i = 1;
		eval();
		cycles++;
	}

	// Holds rst_ni low for n cycles, each run by idle_cycle().
	template <class F> void hold_reset(unsigned n, F idle_cycle)
	{
		top->rst_ni = 0;
		for (unsigned i = 0; i < n; i++)
			idle_cycle();
		top->rst_ni = 1;
	}

	~Model() override
	{
		if (top)
			top->final();
#ifdef FTPU_TRACE
		if (fst)
			fst->close();
#endif
	}
};

// Defines ftpu_sim_open_<model>() for a shim class C.
#define FTPU_CAT2(a, b) a##b
#define FTPU_CAT(a, b) FTPU_CAT2(a, b)
#define FTPU_DEFINE_OPENER(C)                                                  \
	extern "C" ftpu_sim *FTPU_CAT(ftpu_sim_open_, FTPU_MODEL)(            \
		const char *trace_path)                                        \
	{                                                                      \
		C *m = new (std::nothrow) C;                                   \
		if (m && !m->open(trace_path)) {                               \
			delete m;                                              \
			return nullptr;                                        \
		}                                                              \
		return m;                                                      \
	}

} // namespace ftpu
