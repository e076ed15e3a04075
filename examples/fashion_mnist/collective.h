/* SPDX-License-Identifier: Apache-2.0 */
/*
 * collective.h - the processes of an MPI run (`mpirun -np N fashion_mnist`):
 * each rank one replica on a device of its own (docs/demo.md, Replicas).
 * The one operation they need is gathering equal blocks from every rank
 * in rank order (MPI_Allgather): every rank then sums the gradients itself
 * in that order (ftpu_train_reduce), so all of them apply the same bits,
 * whatever reduction algorithm the MPI library would have picked.
 *
 * MPI is optional: built where pkg-config finds Open MPI (ompi-c) or MPICH,
 * else a run is one process and an mpirun launch is refused.
 */
#ifndef FM_COLLECTIVE_H
#define FM_COLLECTIVE_H

#include <stdbool.h>
#include <stddef.h>

struct mlp_collective {
	int rank, ranks; /* 0 and 1 outside an MPI job */
	bool mpi;        /* MPI_Init ran: finish with mlp_collective_finish */
};

/* Joins the MPI job when mpirun launched this process (its environment
 * says so), else a job of one. Failures return a negative ftpu status. */
int mlp_collective_init(struct mlp_collective *c, int *argc, char ***argv, char *err,
			size_t errlen);
/* Leaves the job: MPI_Finalize after a run that went well, else
 * MPI_Abort with status (the other ranks are stopped, never left
 * waiting in a collective). */
void mlp_collective_finish(struct mlp_collective *c, int status);
/* all = every rank's bytes bytes of mine, rank 0's first. */
int mlp_collective_allgather(const struct mlp_collective *c, const void *mine, size_t bytes,
			     void *all, char *err, size_t errlen);

#endif /* FM_COLLECTIVE_H */
