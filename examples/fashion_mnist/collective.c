/* SPDX-License-Identifier: Apache-2.0 */
/* collective.c - an MPI job's ranks as replicas (collective.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef FTPU_HAVE_MPI
#include <mpi.h>
#endif

#include "collective.h"
#include "fail.h"
#include "ftpu.h"

/* The ranks mpirun (Open MPI, or a PMI launcher: MPICH) says this job has,
 * 0 when not launched by one. */
static long launched_ranks(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strtol(v, NULL, 10);
	}
	return 0;
}

int mlp_collective_init(struct mlp_collective *c, int *argc, char ***argv, char *err,
			size_t errlen)
{
	*c = (struct mlp_collective){ .rank = 0, .ranks = 1 };
	long ranks = launched_ranks();
	if (ranks <= 0)
		return FTPU_OK;
#ifdef FTPU_HAVE_MPI
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return fm_fail(FTPU_ERR_IO, err, errlen, "MPI_Init failed");
	c->mpi = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->ranks);
	return FTPU_OK;
#else
	(void)argc, (void)argv;
	if (ranks == 1)
		return FTPU_OK;
	return fm_fail(FTPU_ERR_UNSUPPORTED, err, errlen,
		       "launched as one of %ld MPI ranks, but built without MPI (install "
		       "libopenmpi-dev and rebuild, or use --replicas for threads)", ranks);
#endif
}

void mlp_collective_finish(struct mlp_collective *c, int status)
{
#ifdef FTPU_HAVE_MPI
	if (c->mpi) {
		if (status && c->ranks > 1)
			MPI_Abort(MPI_COMM_WORLD, status);
		MPI_Finalize();
	}
#else
	(void)status;
#endif
	c->mpi = false;
}

int mlp_collective_allgather(const struct mlp_collective *c, const void *mine, size_t bytes,
			     void *all, char *err, size_t errlen)
{
	if (c->ranks == 1) {
		memmove(all, mine, bytes);
		return FTPU_OK;
	}
#ifdef FTPU_HAVE_MPI
	if (bytes > INT_MAX)
		return fm_fail(FTPU_ERR_INVALID, err, errlen, "MPI: %zu bytes in one gather", bytes);
	if (MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
			  MPI_COMM_WORLD) != MPI_SUCCESS)
		return fm_fail(FTPU_ERR_IO, err, errlen, "MPI_Allgather of %zu bytes failed", bytes);
	return FTPU_OK;
#else
	(void)err, (void)errlen;
	return FTPU_ERR_UNSUPPORTED;
#endif
}
