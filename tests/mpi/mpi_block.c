/* Blocking MPI calls inside a nested region and inside tasks, with more
 * OpenMP threads than workers (2 ranks).
 *
 * Each shape passes a token around a ring that alternates between the two
 * ranks and runs from the LAST member of a team to the first: rank 0's
 * member m (m < M-1) receives from rank 1's member m+1, then sends to rank
 * 1's member m, which sends to rank 0's member m-1. So the members that a
 * runtime starts first (the low numbers) block in MPI_Recv until every
 * member above them has run: with fewer workers than members, a runtime
 * that lets a member blocked in MPI keep its worker never runs the members
 * queued behind it (libomp runs each member on a kernel thread of its own).
 *
 *   nested  an outer team of 2, each member opening a nested team of 4
 *           (dyn-var false) whose members take part in the ring;
 *   task    the same teams, but each member of a nested team creates one
 *           task that takes part in the ring, then waits for it;
 *   coll    the same teams, each member in collectives (MPI_Allreduce,
 *           MPI_Barrier) on a communicator of its own, which rank 1's
 *           members take in the reverse order: a member that waits in one
 *           waits for a member of the other rank that may be queued behind
 *           one of that rank's own waiting members.
 *
 * Every received token is checked against the hop it should have come
 * from. MPITEST_TIMEOUT=s: after s seconds print the shape that hung and
 * exit 3.
 *
 * usage: mpirun -np 2 mpi_block [rounds] [nested|task|coll|all] */
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;
static volatile sig_atomic_t shape_now;
static const char *const shape_names[] = {"start", "nested", "task", "coll"};
static int errors;

/* One member's part of a ring of M members per rank; `base` keeps rings
   that run at the same time apart (the tags). Hop numbers: rank 0's member
   m is hop 2 (M-1-m), rank 1's is one more. */
static void ring_member(int m, int M, int base) {
  int hop = 2 * (M - 1 - m) + rank, token = -1;
  if (rank == 0) {
    if (m < M - 1) {
      MPI_Recv(&token, 1, MPI_INT, 1, base + 2 * (m + 1) + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (token != hop - 1) {
        fprintf(stderr, "rank 0 member %d of ring %d: token %d, expected %d\n", m, base, token, hop - 1);
        __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
      }
    }
    MPI_Send(&hop, 1, MPI_INT, 1, base + 2 * m, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, base + 2 * m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (token != hop - 1) {
      fprintf(stderr, "rank 1 member %d of ring %d: token %d, expected %d\n", m, base, token, hop - 1);
      __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
    }
    if (m > 0)
      MPI_Send(&hop, 1, MPI_INT, 0, base + 2 * m + 1, MPI_COMM_WORLD);
  }
}

/* One member's collectives: `comms` has one communicator per member of
   each of the 2 nested teams, rank 1's members taking them in reverse. */
static void coll_member(int outer, int m, int M, MPI_Comm *comms) {
  if (M != 4) {
    fprintf(stderr, "nested team of %d, not 4\n", M);
    __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
    return;
  }
  int c = outer * M + (rank == 0 ? m : M - 1 - m), sum = -1, v = 10 * c + 1;
  MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comms[c]);
  if (sum != 2 * v) {
    fprintf(stderr, "rank %d member %d: MPI_Allreduce gave %d, expected %d\n", rank, m, sum, 2 * v);
    __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
  }
  MPI_Barrier(comms[c]);
}

static void on_timeout(int sig) {
  (void)sig;
  char msg[128];
  int len = snprintf(msg, sizeof msg, "HUNG: rank %d in shape '%s' (MPITEST_TIMEOUT)\n", rank,
                     shape_names[shape_now]);
  if (write(2, msg, (size_t)len) < 0) {
  }
  _exit(3);
}

int main(int argc, char **argv) {
  int provided, ranks;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (provided < MPI_THREAD_MULTIPLE || ranks != 2) {
    if (rank == 0)
      fprintf(stderr, "mpi_block: needs 2 ranks and MPI_THREAD_MULTIPLE (have %d ranks, level %d)\n", ranks,
              provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *t = getenv("MPITEST_TIMEOUT");
  if (t && atoi(t) > 0) {
    signal(SIGALRM, on_timeout);
    alarm((unsigned)atoi(t));
  }
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  const char *which = argc > 2 ? argv[2] : "all";
  int all_shapes = strcmp(which, "all") == 0;
  int nested = all_shapes || strcmp(which, "nested") == 0, tasks = all_shapes || strcmp(which, "task") == 0;
  int coll = all_shapes || strcmp(which, "coll") == 0;
  MPI_Comm comms[8];
  for (int i = 0; i < 8; i++)
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
  omp_set_dynamic(0);
  omp_set_max_active_levels(2);

  for (int r = 0; r < rounds; r++) {
    shape_now = 1;
#pragma omp parallel num_threads(2) if (nested)
    if (nested) {
      int outer = omp_get_thread_num();
#pragma omp parallel num_threads(4)
      {
        if (omp_get_num_threads() != 4) {
          fprintf(stderr, "nested team of %d, not 4\n", omp_get_num_threads());
          __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
        } else {
          ring_member(omp_get_thread_num(), 4, 100 * outer);
        }
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    shape_now = 2;
#pragma omp parallel num_threads(2) if (tasks)
    if (tasks) {
      int outer = omp_get_thread_num();
#pragma omp parallel num_threads(4)
      {
        int m = omp_get_thread_num(), M = omp_get_num_threads();
#pragma omp task firstprivate(m, M)
        ring_member(m, M, 1000 + 100 * outer);
#pragma omp taskwait
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    shape_now = 3;
#pragma omp parallel num_threads(2) if (coll)
    if (coll) {
      int outer = omp_get_thread_num();
#pragma omp parallel num_threads(4)
      {
        /* every member started before the first collective */
#pragma omp barrier
        coll_member(outer, omp_get_thread_num(), omp_get_num_threads(), comms);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  for (int i = 0; i < 8; i++)
    MPI_Comm_free(&comms[i]);
  int all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mpi_block: %d rounds of each shape, %s\n", rounds, all ? "WRONG TOKENS" : "ok");
  MPI_Finalize();
  return all ? 1 : 0;
}
