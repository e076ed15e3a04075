// SPDX-License-Identifier: Apache-2.0
// sim_api.cpp - the generic half of ftpu_sim.h, dispatching to the model.
#include "sim_model.hpp"

extern "C" {

void ftpu_sim_close(ftpu_sim *sim)
{
	delete sim;
}

unsigned ftpu_sim_lanes(const ftpu_sim *sim)
{
	return sim ? sim->lanes() : 0;
}

unsigned ftpu_sim_lanes_delay(const ftpu_sim *sim)
{
	return sim ? sim->lanes_delay() : 0;
}

void ftpu_sim_lanes_eval(ftpu_sim *sim, const uint32_t *x, const uint32_t *y,
			 const uint32_t *z, uint32_t *r)
{
	sim->lanes_eval(x, y, z, r);
}

bool ftpu_sim_array_dims(const ftpu_sim *sim, ftpu_array_dims *dims)
{
	return sim && dims && sim->array_dims(dims);
}

void ftpu_sim_reset(ftpu_sim *sim, unsigned cycles)
{
	sim->reset(cycles);
}

void ftpu_sim_array_cycle(ftpu_sim *sim, const ftpu_array_in *in,
			  bool *out_valid, uint32_t *out_psum)
{
	sim->array_cycle(in, out_valid, out_psum);
}

uint64_t ftpu_sim_cycles(const ftpu_sim *sim)
{
	return sim->cycles;
}

unsigned ftpu_sim_link_capacity(const ftpu_sim *sim)
{
	return sim ? sim->link_capacity() : 0;
}

bool ftpu_sim_link_cycle(ftpu_sim *sim, ftpu_sim_link_io *io)
{
	return sim && io && sim->link_cycle(io);
}

bool ftpu_sim_link_get_stats(const ftpu_sim *sim, ftpu_sim_link_stats *stats)
{
	return sim && stats && sim->link_stats(stats);
}

bool ftpu_sim_mu_dims(const ftpu_sim *sim, ftpu_mu_dims *dims)
{
	return sim && dims && sim->mu_dims(dims);
}

bool ftpu_sim_mu_write(ftpu_sim *sim, ftpu_sim_mu_mem mem, unsigned addr,
		       const uint32_t *words)
{
	return sim && words && sim->mu_write(mem, addr, words);
}

bool ftpu_sim_mu_read(ftpu_sim *sim, ftpu_sim_mu_mem mem, unsigned addr,
		      uint32_t *words)
{
	return sim && words && sim->mu_read(mem, addr, words);
}

bool ftpu_sim_mu_push(ftpu_sim *sim, const ftpu_mu_cmd *cmd)
{
	return sim && cmd && sim->mu_push(cmd);
}

bool ftpu_sim_mu_run(ftpu_sim *sim, uint64_t max_cycles, ftpu_mu_stats *st)
{
	return sim && sim->mu_run(max_cycles, st);
}

} // extern "C"
